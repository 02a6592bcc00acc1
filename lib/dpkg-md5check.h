/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dpkg-md5check.h - check a data.tar stream against DEBIAN/md5sums
 */
#ifndef ZDEB_DPKG_MD5CHECK_H
#define ZDEB_DPKG_MD5CHECK_H

#include <stddef.h>

#include "lib/error.h"

/*
 * Finds the "md5sums" member of a control.tar held in memory.  Returns 1
 * with *text (malloc'd, caller frees) and *len set, 0 when there is none,
 * or -1 with err set.
 */
int zd_dpkg_md5check_find(const void *ctl_tar, size_t ctl_len, char **text,
                     size_t *len, struct zd_error *err);

struct zd_md5check_result {
	unsigned checked;	/* files whose digest was compared */
	unsigned mismatched;	/* digest differs, or listed but absent */
};

/*
 * Reads the data.tar stream from tar_fd to its end and compares the MD5 of
 * every regular file (hardlinks by their target's digest) with the
 * md5sums text ("<32 hex>  <path>" lines, paths without "./").  Each
 * difference is reported through warn ("'usr/bin/x': MD5 mismatch"),
 * including files md5sums lists that the tar lacks.  Returns 0 (see r for
 * the counts), or -1 with err set when md5sums or the tar is malformed.
 */
int zd_dpkg_md5check_tar(int tar_fd, const char *md5sums, size_t len,
                    zd_warn_fn warn, void *warn_ctx,
                    struct zd_md5check_result *r, struct zd_error *err);

#endif
