/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tar-find.h - one file of a small tar held in memory (a control.tar)
 */
#ifndef ZDEB_TAR_FIND_H
#define ZDEB_TAR_FIND_H

#include <stddef.h>

#include "lib/error.h"

/*
 * Finds the regular file name ("md5sums"; "./md5sums" matches too) in
 * tar[0, len) and copies its bytes, NUL-terminated, into *text (malloc'd,
 * caller frees), its length into *text_len.  Returns 1, 0 when there is
 * no such member, or -1 with err set: ZD_E_FORMAT "NAME is not a plain
 * file of sane size" (not regular, or over 256 MiB), "cannot read NAME",
 * or libarchive's message for a malformed tar; ZD_E_NOMEM.
 */
int zd_tar_find_file(const void *tar, size_t len, const char *name,
                     char **text, size_t *text_len, struct zd_error *err);

#endif
