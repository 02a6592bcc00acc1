/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dpkg-md5sums.h - DEBIAN/md5sums as debhelper's dh_md5sums writes it
 *
 * dh_md5sums (debhelper 13) runs `find -type f ! -regex './DEBIAN/.*'
 * -printf '%P\0'`, drops the conffiles, sorts the names with Perl's sort
 * (byte order, as strcmp) and writes md5sum's lines: "<32 hex>  <path>\n",
 * the path relative to the package root without "./".  The digests come
 * from libmd, the library dpkg itself uses.
 */
#ifndef ZDEB_DPKG_MD5SUMS_H
#define ZDEB_DPKG_MD5SUMS_H

#include <stddef.h>

#include "lib/error.h"

#define ZD_MD5_HEX_SIZE 33	/* 32 hex digits and a NUL */

/*
 * MD5 of the file at path as 32 lowercase hex digits.  Returns 0, or -1
 * with err set (ZD_E_IO naming the path).
 */
int zd_dpkg_md5sums_file(const char *path, char hex[ZD_MD5_HEX_SIZE],
                    struct zd_error *err);

/*
 * The md5sums text of the tree at dir: one line for every regular file
 * that goes into data.tar (the zd_treewalk data rules, so names starting
 * with "DEBIAN" are left out as dpkg-deb leaves them out), hardlinks under
 * each of their names, symlinks and other objects not at all, and the
 * conffiles of DIR/DEBIAN/conffiles left out (lines starting with '/'; a
 * line with a flag such as "remove-on-upgrade" names no shipped file).
 * Names are written raw, as dh_md5sums does after undoing md5sum's
 * escaping.  On success *text is malloc'd (caller frees) with *len bytes,
 * or NULL with *len 0 when there is no regular file.  Returns 0, or -1
 * with err set: ZD_E_IO for a file or directory that cannot be read,
 * ZD_E_NOMEM, or the walk's errors (zd_treewalk).
 */
int zd_dpkg_md5sums_tree(const char *dir, char **text, size_t *len,
                    struct zd_error *err);

#endif
