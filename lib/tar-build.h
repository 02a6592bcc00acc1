/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tar-build.h - control.tar and data.tar, byte-identical to dpkg-deb's
 *
 * dpkg-deb -b (1.21.22) runs `tar -cf - --format=gnu --mtime @SDE
 * --clamp-mtime [--mode u+rw,go=rX] [--owner root:0 --group root:0] --null
 * --no-unquote --no-recursion -T -` (GNU tar 1.34) fed with its sorted tree
 * walk (lib/tar-walk.h).  This module writes the same bytes without running
 * tar: the uncompressed tar stream, ended by two zero blocks and padded to
 * a 10240-byte record.
 */
#ifndef ZDEB_TAR_BUILD_H
#define ZDEB_TAR_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/error.h"
#include "lib/fdio.h"

/* A regular file made in memory, for zd_tar_opts.extra. */
struct zd_tar_member {
	const char *name;	/* "./md5sums": directly below the root */
	const void *data;
	size_t size;
	uint32_t mode;		/* permission bits */
	int64_t mtime;		/* clamped as the files on disk are */
};

struct zd_tar_opts {
	bool clamp;		/* clamp mtimes to clamp_mtime (dpkg always) */
	int64_t clamp_mtime;	/* SOURCE_DATE_EPOCH, else time(NULL) */
	bool root_owner_group;	/* owner/group root:0 (data.tar) */
	bool control_mode;	/* --mode u+rw,go=rX on data.tar too (not
				 * dpkg-deb's behaviour); control.tar always
				 * gets it, and root:0 */
	bool nocheck;		/* dpkg-deb --nocheck: allow '\n' in names */
	zd_warn_fn warn;	/* optional: "'./s': socket ignored" */
	void *warn_ctx;
	/*
	 * zd_tar_build_control only: generated members (DEBIAN/md5sums, a
	 * control with Installed-Size), sorted by name with strcmp.  Each
	 * goes where the walk would put a file of that name, owned root:0
	 * with the control modes; one named as a file on disk replaces it.
	 * The tree on disk is not touched.
	 */
	const struct zd_tar_member *extra;
	size_t n_extra;
};

/*
 * Writes the data.tar of the tree at dir to out, as dpkg-deb does: every
 * entry but those whose path starts with "DEBIAN", symlinks last.  *size
 * (may be NULL) receives the bytes written.  Sockets are skipped with a
 * warning, as GNU tar does.  out NULL: only *size, the bytes it would
 * write, from the entries' metadata (no file's contents read, no
 * warning); a writer of the indexed zstd layout needs it first.  Returns 0, or -1 with err set naming the path:
 * ZD_E_IO if it cannot be read or changed while being read (GNU tar's
 * "file changed as we read it", which fails dpkg-deb), ZD_E_FORMAT for a
 * newline in a name, ZD_E_USAGE if dir is not a directory, ZD_E_LIMIT if a
 * number does not fit a header field.
 */
int zd_tar_build_data(const char *dir, const struct zd_tar_opts *o,
                     const struct zd_sink *out, uint64_t *size,
                     struct zd_error *err);

/*
 * Writes the control.tar of dir/DEBIAN to out, as dpkg-deb does: every
 * entry in walk order, owner root:0, modes adjusted with u+rw,go=rX.  The
 * contents are not checked here.  Errors as zd_tar_build_data().
 */
int zd_tar_build_control(const char *dir, const struct zd_tar_opts *o,
                        const struct zd_sink *out, uint64_t *size,
                        struct zd_error *err);

#endif
