/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zstd-frame.h - zstd frame, block and skippable frame headers (RFC 8878)
 *
 * Parsed by hand so that only libzstd's stable API is needed.  The walker
 * finds where a frame ends, and a bound on what it decodes to, by reading
 * the 3-byte block headers only: nothing is decompressed.
 */
#ifndef ZDEB_ZSTD_FRAME_H
#define ZDEB_ZSTD_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/error.h"
#include "lib/fdio.h"

/* RFC 8878 3.1.1 and 3.1.2 */
#define ZD_ZSTD_MAGIC		0xFD2FB528u
#define ZD_ZSTD_SKIP_MAGIC	0x184D2A50u	/* low 4 bits free */
#define ZD_ZSTD_SKIP_MASK	0xFFFFFFF0u
#define ZD_ZSTD_SKIP_HDR	8		/* magic + Frame_Size */
#define ZD_ZSTD_FHDR_MAX	18		/* largest frame header */
#define ZD_ZSTD_BLOCK_MAX	(128u << 10)	/* Block_Maximum_Size */
#define ZD_ZSTD_WINLOG_MIN	10
#define ZD_ZSTD_WINLOG_MAX	41		/* Window_Descriptor max */

/* RFC 8878 3.1.1.2.2 Block_Type */
enum zd_zstd_block_type {
	ZD_ZSTD_BLOCK_RAW = 0,
	ZD_ZSTD_BLOCK_RLE = 1,
	ZD_ZSTD_BLOCK_COMPRESSED = 2,
	ZD_ZSTD_BLOCK_RESERVED = 3,
};

struct zd_zstd_fhdr {
	size_t header_size;		/* magic included */
	uint64_t window_size;		/* single segment: content size */
	uint64_t content_size;		/* valid if has_content_size */
	uint32_t dict_id;
	bool has_content_size;
	bool single_segment;
	bool checksum;
};

struct zd_zstd_block {
	bool last;
	enum zd_zstd_block_type type;
	uint32_t size;		/* Block_Size field */
	uint32_t csize;		/* content bytes after the header */
};

/*
 * Parses a frame header at buf[0, len).  Returns 0 with h filled; 1 when
 * len is too short (h->header_size then says how many bytes are needed,
 * or 5 if even the descriptor is missing); -1 with err set (ZD_E_FORMAT)
 * on a bad magic, a reserved bit or an out of range window.
 */
int zd_zstd_fhdr_parse(const void *buf, size_t len, struct zd_zstd_fhdr *h,
                       struct zd_error *err);

/*
 * Writes a frame header: Single_Segment off, no dictionary, window
 * 2^window_log, content size if has_size (4-byte field below 4 GiB,
 * else 8), checksum flag as given.  buf holds ZD_ZSTD_FHDR_MAX bytes.
 * Returns the header size.
 */
size_t zd_zstd_fhdr_write(void *buf, unsigned window_log, bool has_size,
                          uint64_t content_size, bool checksum);

/*
 * Parses the 3-byte block header at buf; block_max is the frame's
 * Block_Maximum_Size.  Returns 0, or -1 with err set (ZD_E_FORMAT) on a
 * reserved type or a block larger than block_max.
 */
int zd_zstd_block_parse(const void *buf, uint64_t block_max,
                        struct zd_zstd_block *b, struct zd_error *err);

/* min(window, 128 KiB): the largest a block may be or decode to. */
uint64_t zd_zstd_block_max(const struct zd_zstd_fhdr *h);

/* The class of a libzstd decoding error (a ZSTD_isError() result):
 * ZD_E_CHECKSUM, ZD_E_LIMIT (window too large), ZD_E_NOMEM, else
 * ZD_E_FORMAT. */
enum zd_errc zd_zstd_errc(size_t zstd_rc);

/* One frame of a member, as the walker found it. */
struct zd_zstd_frame_info {
	uint64_t off;		/* offset in the region */
	uint64_t size;		/* whole frame, checksum included */
	bool skippable;
	uint32_t magic;		/* skippable: its magic */
	struct zd_zstd_fhdr hdr;	/* zstd frames only */
	uint64_t blocks;	/* number of blocks */
	uint64_t decoded_max;	/* bound on the decoded size */
};

/*
 * Called for each block of a zstd frame with the offset of its header in
 * the region.  Returns 0 to go on, or -1 with err set to stop the walk.
 */
typedef int (*zd_zstd_block_fn)(void *ctx, uint64_t off,
                                const struct zd_zstd_block *b,
                                struct zd_error *err);

/*
 * Walks the frame (zstd or skippable) starting at offset off of region
 * in, reading headers only, calling on_block (may be NULL) for each block.
 * name (may be NULL) names the region in messages.  Returns 0 with fi
 * filled, or -1 with err set: ZD_E_FORMAT "unexpected end of data in
 * 'NAME' at offset N" when the region ends inside the frame, or naming the
 * bad header and its offset.
 */
int zd_zstd_frame_walk(const struct zd_region *in, uint64_t off,
                       const char *name, struct zd_zstd_frame_info *fi,
                       zd_zstd_block_fn on_block, void *ctx,
                       struct zd_error *err);

#endif
