/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tar-walk.h - dpkg-deb's deterministic tree walk, as names fed to tar
 *
 * The order is dpkg's lib/dpkg/treewalk.c (1.21.22): pre-order, the
 * entries of each directory sorted with strcmp(), the root first as "./".
 * With ZD_TREEWALK_DATA the walk also does what src/deb/build.c's
 * file_treewalk_feed() does on top: it drops every name whose path below
 * the root starts with "DEBIAN" (a plain prefix test, so "DEBIAN.txt" goes
 * too), refuses names with a newline, and holds symlinks back until every
 * other entry has been given, in walk order.
 */
#ifndef ZDEB_TAR_WALK_H
#define ZDEB_TAR_WALK_H

#include "lib/error.h"

enum zd_treewalk_flags {
	ZD_TREEWALK_DATA = 1 << 0,	/* data.tar rules (see above) */
	ZD_TREEWALK_NOCHECK = 1 << 1,	/* dpkg-deb --nocheck: allow '\n' */
};

struct zd_treewalk_entry {
	const char *name;	/* as fed to tar: "./", "./usr", "./usr/bin" */
	const char *path;	/* on disk: ROOT, ROOT/usr, ROOT/usr/bin */
};

/* Returns 0, or -1 with err set to stop the walk. */
typedef int (*zd_treewalk_fn)(void *ctx, const struct zd_treewalk_entry *e,
                              struct zd_error *err);

/*
 * Calls fn for every entry under root (root included) in dpkg-deb's order.
 * Directories are told apart with lstat(), so a symlink to a directory is
 * not followed.  A directory that is its own ancestor (a bind mount loop)
 * is given but not entered, as dpkg does.  Returns 0, or -1 with err set:
 * ZD_E_IO naming the path that cannot be read, ZD_E_USAGE if root is not a
 * directory, ZD_E_FORMAT for a newline in a name, or fn's error.
 */
int zd_treewalk(const char *root, unsigned flags, zd_treewalk_fn fn,
                void *ctx, struct zd_error *err);

#endif
