/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zseg-read.h - the independently decodable pieces of a zstd member
 *
 * A piece is either a segment (or group of segments) of an indexed frame,
 * decoded under a rebuilt frame header with its reset pair marked last, or
 * a whole zstd frame of a multi-frame member.  Pieces come from the index,
 * from walking block headers and matching the reset pair, or from the
 * frame list; pdecode.c decodes them on several threads.
 */
#ifndef ZDEB_ZSEG_READ_H
#define ZDEB_ZSEG_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <zstd.h>

#include "lib/error.h"
#include "lib/fdio.h"
#include "lib/zseg-index.h"
#include "lib/zstd-frame.h"

struct zd_zseg_piece {
	uint64_t off;		/* first byte in the region */
	uint64_t csize;		/* bytes in the region */
	uint64_t bound;		/* decoded size is at most this */
	uint64_t usize;		/* exact decoded size, if exact */
	uint64_t hash;		/* XXH64 of the decoded bytes, if exact */
	uint64_t nseg;		/* segments in the piece */
	bool exact;		/* usize and hash are known (index) */
	bool segment;		/* needs a header; else a whole frame */
	bool reset_tail;	/* ends with the reset pair */
};

/*
 * Pieces of the indexed frame outer (as walked) from idx, which must have
 * passed zd_zseg_index_check_frame(); every record but the last must end
 * with the reset pair.  Returns 0 with *pieces (malloc'd, *n entries), or
 * -1 with err set (ZD_E_FORMAT naming the record, ZD_E_IO, ZD_E_NOMEM).
 */
int zd_zseg_pieces_from_index(const struct zd_region *in,
                              const struct zd_zstd_frame_info *outer,
                              const struct zd_zseg_index *idx,
                              struct zd_zseg_piece **pieces, size_t *n,
                              struct zd_error *err);

/*
 * Pieces of the indexed frame outer found by walking its block headers and
 * matching the 20 reset bytes, decoding nothing.  bound is exact up to
 * 128 KiB per compressed block.  Returns 0 or -1 with err set.
 */
int zd_zseg_pieces_walk(const struct zd_region *in,
                        const struct zd_zstd_frame_info *outer,
                        struct zd_zseg_piece **pieces, size_t *n,
                        struct zd_error *err);

/*
 * Decodes piece pc of region in into out (cap >= pc->bound, or pc->usize
 * when exact).  window_log is the outer frame's, for segments.  *cbuf /
 * *ccap is a reusable input buffer.  Checks the size and hash when exact.
 * Returns 0 with *len set, or -1 with err set: ZD_E_FORMAT (corrupt data),
 * ZD_E_CHECKSUM (hash or size mismatch), ZD_E_NOMEM, ZD_E_IO.
 */
int zd_zseg_piece_decode(const struct zd_region *in, unsigned window_log,
                         const struct zd_zseg_piece *pc, ZSTD_DCtx *dctx,
                         unsigned char **cbuf, size_t *ccap,
                         unsigned char *out, size_t cap, size_t *len,
                         struct zd_error *err);

#endif
