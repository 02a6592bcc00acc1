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

struct zd_zstd_info {
	enum zd_zstd_layout layout;	/* INDEXED, PZSTD, FRAMES or SINGLE */
	uint64_t segments;		/* segments or frames; 1 for single */
	unsigned window_log;		/* largest window, log2 */
	int64_t content_size;		/* -1 when unknown */
	uint64_t index_size;		/* bytes of the index frame, 0 if none */
};

/*
 * Decodes a whole zstd member (every frame; skippable frames skipped) into
 * out, in order, on p->threads threads where the layout allows.  Returns 0,
 * or -1 with err set (ZD_E_FORMAT with the member and offset on truncated or
 * corrupt input, ZD_E_CHECKSUM on a hash mismatch, ZD_E_LIMIT on caps).
 */
int zd_zstd_pdecode(const struct zd_region *in, const struct zd_dec_params *p,
                    struct zd_sink *out, struct zd_error *err);

/* Describes the layout of a zstd member without decoding it. */
int zd_zstd_describe(const struct zd_region *in, struct zd_zstd_info *info,
                     struct zd_error *err);

#endif
