/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tar-list.h - list a tar stream as GNU tar 1.34's `tar -tv` does
 */
#ifndef ZDEB_TAR_LIST_H
#define ZDEB_TAR_LIST_H

#include <locale.h>
#include <stdio.h>

#include "lib/error.h"

/*
 * Lists the tar stream read from tar_fd on out as `tar -tv` (GNU tar 1.34)
 * prints it, dates in local time, names quoted as zd_tar_quote() does in
 * the locale names ((locale_t)0: the calling thread's).  Returns 0, or -1
 * with err set: ZD_E_FORMAT naming the member for a damaged tar stream,
 * ZD_E_NOMEM.
 */
int zd_tar_list(int tar_fd, FILE *out, locale_t names,
                struct zd_error *err);

#endif
