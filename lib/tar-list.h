/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tar-list.h - list a tar stream as GNU tar 1.34's `tar -tv` does
 */
#ifndef ZDEB_TAR_LIST_H
#define ZDEB_TAR_LIST_H

#include <stdio.h>

#include "lib/error.h"

/*
 * Lists the tar stream read from tar_fd on out as `tar -tv` (GNU tar 1.34)
 * prints it, dates in local time.
 */
int zd_list_tar(int tar_fd, FILE *out, struct zd_error *err);

#endif
