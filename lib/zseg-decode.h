/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zseg-decode.h - zstd member decoding: chooses indexed / multi-frame /
 * sequential decode and drives the worker pool
 */
#ifndef ZDEB_ZSEG_DECODE_H
#define ZDEB_ZSEG_DECODE_H

#include <stdint.h>

#include "lib/error.h"
#include "lib/fdio.h"
#include "lib/params.h"

/*
 * On two threads or more, in order into the output queue (not at offsets),
 * an indexed segment of at most this many bytes is decoded in place into
 * one buffer of its size; larger ones stream into chunks.  The largest
 * segment target (zseg-write.c TARGET_MAX).
 */
#define ZD_ZSEG_WHOLE_MAX ((size_t)64 << 20)
/* Its buffer's pages are made at once only when its size is at most this
 * many times its compressed bytes + 1 MiB (package data: 2-10; zeros and
 * runs go further, and get theirs as they are written): a size only a
 * claim stands for costs no memory by itself. */
#define ZD_ZSEG_POPULATE_RATIO 32
#define ZD_ZSEG_POPULATE(size, csize) \
	((size) / ZD_ZSEG_POPULATE_RATIO <= (csize) + ((uint64_t)1 << 20))

/*
 * Decodes a whole zstd member (every frame; skippable frames skipped) into
 * out, in order, on p->threads threads where the layout allows, at most
 * zd_dec_max_output(p, in->len) bytes.  Returns 0, or -1 with err set
 * (ZD_E_FORMAT with the member and offset on truncated or corrupt input,
 * ZD_E_CHECKSUM on a hash mismatch, ZD_E_LIMIT on caps).
 */
int zd_zstd_pdecode(const struct zd_region *in, const struct zd_dec_params *p,
                    struct zd_sink *out, struct zd_error *err);

#endif
