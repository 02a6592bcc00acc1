/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tar-safepath.h - the rules a tar member name must follow to be extracted
 * under a directory (pure functions, untrusted input)
 *
 * A name is relative, has no ".." component, and is normalized by
 * dropping "." components, repeated slashes and a trailing slash:
 * "./usr//bin/./x/" is "usr/bin/x", and "./" is "" (the directory
 * itself).  libarchive's cleanup_pathname() makes the same choices,
 * except that it strips a leading '/' where we refuse it.
 */
#ifndef ZDEB_TAR_SAFEPATH_H
#define ZDEB_TAR_SAFEPATH_H

#include <stddef.h>

#include "lib/error.h"

/* Longest normalized name accepted (PATH_MAX, the NUL included). */
#define ZD_SAFEPATH_MAX 4096

/*
 * Checks a tar member name: refuses an empty name, an absolute name and
 * ".." components.  Returns 0, or -1 with err set (ZD_E_FORMAT) naming the
 * member and the reason: "member '/etc/x': absolute path refused",
 * "member 'a/../../x': '..' path component refused", "member with an
 * empty name".
 */
int zd_tar_safepath_check(const char *name, struct zd_error *err);

/*
 * Checks name as zd_tar_safepath_check() does and writes its normalized form
 * into out (size bytes): "" for the directory itself.  Also refuses a
 * component longer than 255 bytes and a result that does not fit
 * (ZD_E_LIMIT "member 'N': path too long").  Returns 0 or -1 with err set.
 */
int zd_tar_safepath_normalize(const char *name, char *out, size_t size,
                          struct zd_error *err);

/*
 * Splits a normalized, non-empty path in place at its last '/': *dir is
 * the parent ("" for a top-level name) and the return value the last
 * component.  path must be writable; *dir points into it.
 */
char *zd_tar_safepath_split(char *path, const char **dir);

#endif
