/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tar-extract.h - unpack a tar stream (libarchive), never outside DIR
 */
#ifndef ZDEB_TAR_EXTRACT_H
#define ZDEB_TAR_EXTRACT_H

#include <locale.h>
#include <stdbool.h>

#include "lib/error.h"
#include "lib/tar-safepath.h"

struct zd_extract_opts {
	bool owner;		/* restore ownership (dpkg-deb -x as root) */
	bool allow_devices;	/* device nodes and FIFOs */
	/* Called with each member name as it is extracted (-X). */
	void (*on_entry)(void *ctx, const char *name);
	/* The locale tar -x would run in ((locale_t)0: the calling
	 * thread's): libarchive converts pax names, which are UTF-8, to its
	 * charset as tar does, for the files made and for on_entry. */
	locale_t names;
	void *ctx;
	/* Warnings (setuid bits dropped); may be NULL. */
	zd_warn_fn warn;
	void *warn_ctx;
};

/*
 * Extracts the tar stream read from tar_fd into dir (which must exist).
 * Sets modes, mtimes, ownership (o->owner), symlinks, hardlinks, empty
 * directories, as `tar -x -p` does for dpkg-deb -x.  Nothing is created
 * outside dir: see tar-extract.c for the rules.  Regular files are written
 * under a temporary name and renamed when complete; without o->owner,
 * setuid/setgid bits of regular files are dropped (warning through
 * o->warn).  Returns 0, or -1 with err set naming the member and the
 * reason, e.g. ZD_E_FORMAT "member '../x': '..' path component refused",
 * "member '/x': absolute path refused", "member 'l/f': path goes through
 * symlink 'l' (refused)", "member 'h': hardlink target 'x' is not a
 * regular file extracted before it", "member 'dev/null': device node
 * refused", "member 'p': FIFO refused"; ZD_E_LIMIT for a name or link
 * target of ZD_SAFEPATH_MAX bytes or more, "member name too long (4097
 * bytes, the limit is 4095): '...'", before anything of that member is
 * made; ZD_E_IO on file system errors.
 */
int zd_tar_extract(int tar_fd, const char *dir,
                   const struct zd_extract_opts *o, struct zd_error *err);

#endif
