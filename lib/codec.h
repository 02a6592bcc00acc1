/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * codec.h - one vtable per compressor, and the registry that finds them
 *
 * Compression is file to fd (zd_compress: the input is a seekable file of
 * known size, so a frame header can declare the content size up front) or,
 * for gzip and xz, a stream fed a buffer at a time (zd_cstream); zstd's
 * segmented layouts stream through zseg-write.h.  Decompression is region
 * to sink: the input is a pread()-able byte range (a .deb member), the
 * output is streamed in order.
 */
#ifndef ZDEB_CODEC_H
#define ZDEB_CODEC_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/error.h"
#include "lib/fdio.h"
#include "lib/params.h"

struct zd_cstream_ops;

struct zd_codec {
	enum zd_comp_type type;
	const char *name;		/* "zstd" */
	const char *ext;		/* ".zst"; "" for none */
	int default_level;		/* dpkg-deb's default */
	/* NULL for read-only codecs. */
	int (*compress)(const struct zd_comp_params *p, int in_fd,
	                uint64_t in_size, int out_fd, struct zd_error *err);
	int (*decompress)(const struct zd_region *in,
	                  const struct zd_dec_params *p, struct zd_sink *out,
	                  struct zd_error *err);
	/* Compression fed a buffer at a time (zd_cstream), or NULL when
	 * compress() needs the whole input first. */
	const struct zd_cstream_ops *stream;
};

/* Registry lookups; NULL when unknown. */
const struct zd_codec *zd_codec_get(enum zd_comp_type type);
const struct zd_codec *zd_codec_find_by_name(const char *name);
/* ext includes the dot (".xz"); "" finds none. */
const struct zd_codec *zd_codec_find_by_ext(const char *ext);
/* Sniffs the first bytes of a member (len may be short); NULL if unknown. */
const struct zd_codec *zd_codec_find_by_magic(const void *buf, size_t len);

/* Level range of a compressor that can write. */
void zd_codec_level_range(enum zd_comp_type type, int *min, int *max);

/*
 * Parses a compression level string for type.  Returns 0, or -1 with err
 * set (ZD_E_USAGE) and a message such as
 * "compression level 'foobar' is not an integer" or one naming the
 * compressor and its range.
 */
int zd_codec_parse_level(enum zd_comp_type type, const char *s, int *level,
                         struct zd_error *err);
/*
 * The strategy called name as dpkg spells it ("none", "filtered",
 * "huffman", "rle", "fixed", "extreme"); false when no strategy has that
 * name (*s untouched).
 */
bool zd_strategy_find_by_name(const char *name, enum zd_strategy *s);
/* True when s applies to type, as dpkg's compressor_check_params() has
 * it: none (and the default) to every type, filtered, huffman, rle and
 * fixed to gzip, extreme to xz. */
bool zd_codec_strategy_valid(enum zd_comp_type type, enum zd_strategy s);
/* Parses a strategy name and checks it is valid for type. */
int zd_codec_parse_strategy(enum zd_comp_type type, const char *s,
                            enum zd_strategy *strategy, struct zd_error *err);
/* Name of a strategy, as dpkg-deb spells it. */
const char *zd_strategy_name(enum zd_strategy s);

/*
 * Applies dpkg-deb's parameter normalization: gzip at level 0 becomes none
 * (dpkg-deb then writes an uncompressed data.tar).  Call it before choosing
 * the member name.
 */
void zd_codec_fixup_params(struct zd_comp_params *p);

/* 0 if p can compress (a writable codec, level and strategy valid for
 * it), else -1 with err set as zd_compress() does. */
int zd_comp_params_check(const struct zd_comp_params *p,
                         struct zd_error *err);

/*
 * Compresses in_fd[0, in_size) to out_fd with p (dispatches on p->type).
 * Returns 0, or -1 with err set: ZD_E_USAGE if p->level or p->strategy is
 * not valid for p->type, ZD_E_UNSUPPORTED for a read-only codec.
 */
int zd_compress(const struct zd_comp_params *p, int in_fd, uint64_t in_size,
                int out_fd, struct zd_error *err);
/*
 * A compressor fed a buffer at a time, writing to out_fd as it goes: the
 * tar stream is compressed while it is made, nothing is spooled.  For gzip
 * and xz, whose bytes do not depend on how the input is cut or on knowing
 * its size (zstd's segmented layouts have zd_zseg_writer; its single and
 * dpkg layouts declare or mimic what needs the size first).
 */
struct zd_cstream;

/* True when p's compressor can be fed a buffer at a time. */
bool zd_codec_stream_supported(const struct zd_comp_params *p);
/* Checks p and starts; NULL with err set. */
struct zd_cstream *zd_codec_stream_new(const struct zd_comp_params *p,
                                       int out_fd, struct zd_error *err);
/* Compresses len bytes (a zd_sink write function; ctx: the stream). */
int zd_codec_stream_write(void *s, const void *buf, size_t len,
                     struct zd_error *err);
/* Ends the compressed stream.  Returns 0, or -1 with err set. */
int zd_codec_stream_finish(struct zd_cstream *s, struct zd_error *err);
void zd_codec_stream_free(struct zd_cstream *s);

/* Decompresses region in with codec c into out. */
int zd_decompress(const struct zd_codec *c, const struct zd_region *in,
                  const struct zd_dec_params *p, struct zd_sink *out,
                  struct zd_error *err);

#endif
