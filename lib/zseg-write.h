/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zseg-write.h - zstd writers for the segmented layouts: indexed (one frame
 * of independently compressed segments plus a trailing index), frames
 * (concatenated frames) and pzstd (pzstd's skippable headers)
 */
#ifndef ZDEB_ZSEG_WRITE_H
#define ZDEB_ZSEG_WRITE_H

#include <stdint.h>

#include "lib/codec.h"
#include "lib/error.h"

/*
 * Compresses in_fd[0, in_size) to out_fd in layout p->layout (INDEXED,
 * FRAMES or PZSTD) on p->threads threads.  The bytes depend only on the
 * input and p (never on p->threads).  Returns 0, or -1 with err set.
 */
int zd_zseg_compress(const struct zd_comp_params *p, int in_fd,
                     uint64_t in_size, int out_fd, struct zd_error *err);

/* The target segment size the policy picks for this level and input. */
uint64_t zd_zseg_target_size(const struct zd_comp_params *p,
                             uint64_t in_size);

#endif
