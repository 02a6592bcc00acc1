/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zseg-layout.h - which zstd layout a member has (indexed, pzstd, frames,
 * single), found by walking frame headers; nothing is decoded
 */
#ifndef ZDEB_ZSEG_LAYOUT_H
#define ZDEB_ZSEG_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/error.h"
#include "lib/fdio.h"
#include "lib/params.h"
#include "lib/zseg-index.h"
#include "lib/zstd-frame.h"

/* The frames of a member, in order, skippable ones included. */
struct zd_zseg_frames {
	struct zd_zstd_frame_info *f;
	size_t n, cap;
	size_t nzstd;
};


/*
 * Walks the headers of every frame of in (name: for messages).  Returns 0
 * with fl filled (free it with zd_zseg_layout_free), or -1 with err set:
 * ZD_E_FORMAT when a frame is truncated or bad, or when in holds no zstd
 * frame; ZD_E_NOMEM.
 */
int zd_zseg_layout_list(const struct zd_region *in, const char *name,
                        struct zd_zseg_frames *fl, struct zd_error *err);
void zd_zseg_layout_free(struct zd_zseg_frames *fl);

/* One zstd frame, our index right after it, then nothing but skippables;
 * *at: the zstd frame's position in fl. */
bool zd_zseg_layout_is_indexed(const struct zd_zseg_frames *fl, size_t *at);
/* Every zstd frame but perhaps the first (as zdeb writes it, see
 * zseg-write.h) right after pzstd's 12-byte skippable header. */
bool zd_zseg_layout_is_pzstd(const struct zd_zseg_frames *fl);

/*
 * Reads and parses the index frame fi and checks it against the indexed
 * frame outer.  Returns 0 with idx filled (free it with
 * zd_zseg_index_free), or -1 with err set: ZD_E_FORMAT when the index is
 * over 64 KiB, malformed or disagrees with outer; ZD_E_IO; ZD_E_NOMEM.
 */
int zd_zseg_layout_read_index(const struct zd_region *in,
                              const struct zd_zstd_frame_info *outer,
                              const struct zd_zstd_frame_info *fi,
                              struct zd_zseg_index *idx,
                              struct zd_error *err);

struct zd_zstd_info {
	enum zd_zstd_layout layout;	/* INDEXED, PZSTD, FRAMES or SINGLE */
	uint64_t segments;		/* segments or frames; 1 for single */
	unsigned window_log;		/* largest window, log2 */
	int64_t content_size;		/* -1 when unknown */
	uint64_t index_size;		/* index frame bytes, 0 if none */
};

/* Describes the layout of a zstd member without decoding it.  Returns 0,
 * or -1 with err set as zd_zseg_layout_list() does. */
int zd_zstd_describe(const struct zd_region *in, struct zd_zstd_info *info,
                     struct zd_error *err);

#endif
