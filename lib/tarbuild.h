/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tarbuild.h - control.tar and data.tar, byte-identical to dpkg-deb's
 *
 * dpkg-deb -b runs `tar -cf - --format=gnu --mtime @SDE --clamp-mtime
 * [--mode u+rw,go=rX] [--owner root:0 --group root:0] --null --no-unquote
 * --no-recursion -T -` fed with its sorted tree walk.  This module writes
 * the same bytes without running tar.
 */
#ifndef ZDEB_TARBUILD_H
#define ZDEB_TARBUILD_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/error.h"

struct zd_tar_opts {
	bool clamp;		/* clamp mtimes to clamp_mtime (dpkg always) */
	int64_t clamp_mtime;	/* SOURCE_DATE_EPOCH or build time */
	bool root_owner_group;	/* owner/group root:0 */
	bool control_mode;	/* control.tar: --mode u+rw,go=rX, root:0 */
};

/*
 * Writes the data.tar of the tree at dir (DEBIAN/ excluded, as dpkg-deb)
 * to out_fd.  *size receives the bytes written.  Returns 0, or -1 with err
 * set naming the path that failed.
 */
int zd_tarbuild_data(const char *dir, const struct zd_tar_opts *o, int out_fd,
                     uint64_t *size, struct zd_error *err);
/* Writes the control.tar of dir/DEBIAN to out_fd, as dpkg-deb does. */
int zd_tarbuild_control(const char *dir, const struct zd_tar_opts *o,
                        int out_fd, uint64_t *size, struct zd_error *err);

#endif
