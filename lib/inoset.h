/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * inoset.h - a set of inodes (device, inode number), each with an optional
 * name: the hardlinks met in a tree walk
 *
 * Used by the tar writer (a later link to an inode archived before) and
 * by Installed-Size (an inode counted once).  A tsearch(3) tree.
 */
#ifndef ZDEB_INOSET_H
#define ZDEB_INOSET_H

#include <stdbool.h>
#include <sys/types.h>

#include "lib/error.h"

struct zd_inoset {
	void *root;	/* tsearch(3) tree; NULL: empty */
};

#define ZD_INOSET_INIT { NULL }

/*
 * Looks (dev, ino) up.  Returns true when it is in s, with *name (may be
 * NULL) set to the name it was added with (NULL if none).
 */
bool zd_inoset_find(const struct zd_inoset *s, dev_t dev, ino_t ino,
                    const char **name);

/*
 * Adds (dev, ino) with a copy of name (may be NULL); an inode already in s
 * keeps its first name.  Returns 0, or -1 with err set (ZD_E_NOMEM).
 */
int zd_inoset_add(struct zd_inoset *s, dev_t dev, ino_t ino,
                  const char *name, struct zd_error *err);

/* Frees every entry; s is empty after. */
void zd_inoset_free(struct zd_inoset *s);

#endif
