/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zseg-read.h - the independently decodable pieces of a zstd member
 *
 * A piece is either a segment (or group of segments) of an indexed frame,
 * decoded under a rebuilt frame header with its reset's last block marked
 * last, or a whole zstd frame of a multi-frame member.  Pieces come from
 * the index, from walking block headers and matching the resets, or from the
 * frame list; zseg-decode.c decodes them on several threads.
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
	bool reset_tail;	/* ends with a reset (zseg-reset.h) */
};

/*
 * Finds our index as the last frame of region in, and the indexed frame
 * right before it filling the region up to it, from the tail and the frame
 * header alone: no block header is read, which on a large member saves a
 * read per 128 KiB block before the first byte is decoded.  Returns 1 with
 * *outer, *ixf and *idx filled (idx has passed zd_zseg_index_check_frame;
 * free it), 0 when the region does not end so or the index is damaged
 * (the caller walks the frames, which names the problem), or -1 with err
 * set on an I/O error or when out of memory.
 */
int zd_zseg_index_at_tail(const struct zd_region *in,
                          struct zd_zstd_frame_info *outer,
                          struct zd_zstd_frame_info *ixf,
                          struct zd_zseg_index *idx, struct zd_error *err);

/*
 * Pieces of the indexed frame outer (as walked) from idx, which must have
 * passed zd_zseg_index_check_frame(); every record but the last must end
 * with a reset its version allows.  Returns 0 with *pieces (malloc'd, *n entries), or
 * -1 with err set (ZD_E_FORMAT naming the record, ZD_E_IO, ZD_E_NOMEM).
 */
int zd_zseg_pieces_from_index(const struct zd_region *in,
                              const struct zd_zstd_frame_info *outer,
                              const struct zd_zseg_index *idx,
                              struct zd_zseg_piece **pieces, size_t *n,
                              struct zd_error *err);

/*
 * Pieces of the indexed frame outer found by walking its block headers and
 * matching the resets' blocks, decoding nothing.  bound is exact up to
 * 128 KiB per compressed block.  Returns 0 or -1 with err set.
 */
int zd_zseg_pieces_walk(const struct zd_region *in,
                        const struct zd_zstd_frame_info *outer,
                        struct zd_zseg_piece **pieces, size_t *n,
                        struct zd_error *err);

/* Where a piece's decoded bytes go, a buffer at a time. */
struct zd_zseg_out {
	/* A buffer to decode into (*cap bytes), or NULL with err set. */
	unsigned char *(*get)(void *ctx, size_t *cap, struct zd_error *err);
	/* The buffer from get() holds len bytes (0: given back unused). */
	void (*put)(void *ctx, size_t len);
	void *ctx;
	/*
	 * Optional: a piece whose size is exact and at most whole_max is
	 * decoded in place, into one buffer of exactly its size from
	 * get_whole() (NULL with err set; csize: the piece's compressed
	 * bytes, against which to weigh the size its index claims), with no
	 * window of the decoder's own to copy out of; progress() hands on the
	 * first len bytes as they come (hashed already), and put() ends it as
	 * for get().
	 */
	unsigned char *(*get_whole)(void *ctx, size_t size, uint64_t csize,
	                            struct zd_error *err);
	void (*progress)(void *ctx, size_t len);
	size_t whole_max;
};

/* Is piece pc one that zd_zseg_piece_stream() decodes in place, given an
 * out with get_whole and this whole_max (if libzstd takes a stable
 * output buffer)? */
bool zd_zseg_piece_whole(const struct zd_zseg_piece *pc, size_t whole_max);

/*
 * Decodes piece pc of region in with dctx (windowLogMax already set),
 * handing the bytes to out as they come; each get() is followed by one
 * put().  window_log is the outer frame's, for segments.  *ibuf is a
 * reusable 1 MiB input buffer, allocated on first use (free it when done).
 * Checks the size and hash when exact - after the bytes are handed on, as
 * a frame checksum comes after its frame's bytes - and never hands on
 * more than the size (or bound).  Returns 0, or -1 with err set:
 * ZD_E_FORMAT (corrupt data), ZD_E_CHECKSUM (hash or size mismatch),
 * ZD_E_NOMEM, ZD_E_IO, or get()'s error.
 */
int zd_zseg_piece_stream(const struct zd_region *in, unsigned window_log,
                         const struct zd_zseg_piece *pc, ZSTD_DCtx *dctx,
                         unsigned char **ibuf,
                         const struct zd_zseg_out *out,
                         struct zd_error *err);

#endif
