/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zseg-index.h - the segment index of the indexed zstd layout
 *
 * The index is a skippable frame (RFC 8878 3.1.2) right after the outer
 * frame, at most ZD_ZSEG_INDEX_MAX bytes in all (zdeb-format(5),
 * "The index").  It is untrusted input: every field is checked, and a
 * reader that finds it inconsistent walks the frame instead.
 *
 * Byte format, all integers little-endian; "varint" is unsigned LEB128
 * (7 bits a byte, low group first, at most 10 bytes, no overlong form):
 *
 *   u32   0x184D2A5B                skippable frame magic
 *   u32   N                         payload size (Frame_Size)
 *   payload, N bytes:
 *     4   "ZDXI"                    index magic
 *     u8  1 or 2                    version: 1, every record but the last
 *                                   ends in the reset pair; 2, in the
 *                                   pair or in a reset with literals
 *                                   (zseg-reset.h)
 *     u8  0                         flags (no bit defined: a reader
 *                                   rejects any set bit)
 *     u8  window_log                the outer frame's Window_Descriptor
 *                                   is exactly 2^window_log
 *     u8  header_size               size of the outer frame header
 *     varint content_size           = the frame's Frame_Content_Size
 *     varint segments               segments written (>= records)
 *     varint records                number of records (>= 1)
 *     records times:
 *       varint csize                compressed bytes of the record: its
 *                                   blocks, then its reset, except for
 *                                   the last record
 *       varint usize                decoded bytes
 *       varint nseg                 segments in the record (>= 1)
 *       u64  hash                   XXH64 (seed 0) of the decoded bytes
 *     u32 check                     XXH32 (seed 0) of the payload before it
 *
 * Record k's bytes start at header_size + the csize of records before it,
 * counted from the start of the outer frame; the csizes add up to the
 * frame size minus header_size minus the 4-byte checksum, and the usizes to
 * content_size.  A record is one segment, or a group of consecutive
 * segments when one record per segment would not fit in 4 KiB; either
 * way it decodes on its own (with its reset, whose last block is marked
 * last) under a header declaring window 2^window_log.
 */
#ifndef ZDEB_ZSEG_INDEX_H
#define ZDEB_ZSEG_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "lib/error.h"
#include "lib/zstd-frame.h"

#define ZD_ZSEG_INDEX_MAGIC	0x184D2A5Bu	/* skippable, ours */
#define ZD_ZSEG_INDEX_MAX	4096		/* whole skippable frame */
#define ZD_ZSEG_INDEX_VERSION	2		/* the newest */

struct zd_zseg_record {
	uint64_t csize;
	uint64_t usize;
	uint64_t nseg;
	uint64_t hash;
};

struct zd_zseg_index {
	unsigned version;		/* 1 or 2 */
	unsigned window_log;
	unsigned header_size;
	uint64_t content_size;
	uint64_t segments;
	size_t nrec;
	struct zd_zseg_record *rec;	/* nrec records */
};

/*
 * Encodes idx as a whole skippable frame into buf (cap bytes).  Returns the
 * frame size, or 0 if it does not fit in cap.
 */
size_t zd_zseg_index_encode(const struct zd_zseg_index *idx, void *buf,
                            size_t cap);

/*
 * Parses and checks a whole skippable frame (its 8-byte header included).
 * On success idx->rec is allocated (free with zd_zseg_index_free()).
 * Returns 0, or -1 with err set: ZD_E_FORMAT with a message naming the
 * field ("bad index magic", "record 3 size overflows", ...), ZD_E_NOMEM.
 */
int zd_zseg_index_parse(const void *buf, size_t len, struct zd_zseg_index *idx,
                        struct zd_error *err);

/*
 * Checks idx against the outer frame fi (as zd_zstd_frame_walk() found
 * it): window, header size, content size, and records tiling the frame's
 * blocks exactly.  Returns 0, or -1 with err set (ZD_E_FORMAT, naming the
 * field).
 */
int zd_zseg_index_check_frame(const struct zd_zseg_index *idx,
                              const struct zd_zstd_frame_info *fi,
                              struct zd_error *err);

/* Frees idx->rec (idx may be NULL). */
void zd_zseg_index_free(struct zd_zseg_index *idx);

#endif
