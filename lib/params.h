/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * params.h - what a caller asks of a compressor or a decoder: the codec
 * type, level, strategy, zstd layout and threads, and the decoder's limits
 *
 * Plain data, in the common layer: the codec registry (codec.h) and the
 * zstd engines (zseg-write.h, zseg-decode.h) both take these structs, so
 * they live below both.
 */
#ifndef ZDEB_PARAMS_H
#define ZDEB_PARAMS_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/error.h"

enum zd_comp_type {
	ZD_COMP_NONE,
	ZD_COMP_GZIP,
	ZD_COMP_XZ,
	ZD_COMP_ZSTD,
	ZD_COMP_BZIP2,	/* read only */
	ZD_COMP_LZMA,	/* read only */
	ZD_COMP__COUNT
};

/* Compression strategies, as dpkg-deb names them (-S). */
enum zd_strategy {
	ZD_STRATEGY_DEFAULT,	/* none given */
	ZD_STRATEGY_NONE,	/* "none": explicitly the default */
	ZD_STRATEGY_FILTERED,	/* gzip */
	ZD_STRATEGY_HUFFMAN,	/* gzip */
	ZD_STRATEGY_RLE,	/* gzip */
	ZD_STRATEGY_FIXED,	/* gzip */
	ZD_STRATEGY_EXTREME,	/* xz */
};

/* How a zstd member is laid out (see zdeb-format(5)). */
enum zd_zstd_layout {
	ZD_LAYOUT_INDEXED,	/* one frame, segments, trailing index */
	ZD_LAYOUT_SINGLE,	/* one plain frame */
	ZD_LAYOUT_FRAMES,	/* concatenated independent frames */
	ZD_LAYOUT_PZSTD,	/* pzstd: skippable header before each frame */
	ZD_LAYOUT_DPKG,		/* one frame made exactly as dpkg-deb does */
};

struct zd_comp_params {
	enum zd_comp_type type;
	int level;			/* validated for type */
	enum zd_strategy strategy;	/* validated for type */
	unsigned threads;		/* >= 1 */
	enum zd_zstd_layout layout;
	uint64_t segment_size;		/* 0: the layout's policy */
	bool zstd_long;			/* long-distance matching */
	zd_warn_fn warn;
	void *warn_ctx;
};

struct zd_dec_params {
	unsigned threads;		/* >= 1 */
	uint64_t max_window;	/* zstd window cap in bytes; 0: 128 MiB */
	/* decoded size cap in bytes; 0: the default, zd_dec_max_output();
	 * ZD_DEC_UNLIMITED: none, which the caller must ask for */
	uint64_t max_output;
	const char *member;	/* name for messages, e.g. data.tar.zst */
	/* zstd indexed: check the frame checksum on several threads too,
	 * where each segment's index hash already covers its bytes (what
	 * stock readers check; costs a pass in order over all bytes) */
	bool frame_checksum;
	zd_warn_fn warn;
	void *warn_ctx;
};

#define ZD_DEC_UNLIMITED UINT64_MAX

/*
 * The decoded size cap p sets for a member of csize compressed bytes:
 * p->max_output, or by default 1 GiB + 1024 x csize (saturating).  Real
 * packages stay far below (xz and zstd reach 1:1000 only on runs of one
 * byte); a decompression bomb stops after at most that many bytes.  Every
 * decoding entry point (zd_decompress, zd_zstd_pdecode) applies it.
 */
static inline uint64_t
zd_dec_max_output(const struct zd_dec_params *p, uint64_t csize)
{
	uint64_t cap;

	if (p->max_output != 0)
		return p->max_output;
	if (__builtin_mul_overflow(csize, UINT64_C(1024), &cap) ||
	    __builtin_add_overflow(cap, UINT64_C(1) << 30, &cap))
		return ZD_DEC_UNLIMITED;
	return cap;
}

/* A layout's name on the command line, in JSON and in messages. */
const char *zd_layout_name(enum zd_zstd_layout l);
/* The layout named s ("indexed" ...).  Returns 0, or -1 when none is. */
int zd_layout_parse(const char *s, enum zd_zstd_layout *l);

#endif
