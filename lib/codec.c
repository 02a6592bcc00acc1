/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * codec.c - the codec registry, level and strategy parsing, and the helpers
 * the decoders share
 *
 * The registry is a const table indexed by enum zd_comp_type, as dpkg's
 * compressor_array.  Names, extensions and default levels are dpkg-deb's.
 */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <zstd.h>

#include "lib/codec-impl.h"
#include "lib/codec.h"
#include "lib/numparse.h"

/* zstd levels above this need --ultra in the zstd CLI (zstd's programs/). */
#define ZSTD_ULTRA_MIN_LEVEL 20

static const struct zd_codec codecs[ZD_COMP__COUNT] = {
	[ZD_COMP_NONE] = {
		.type = ZD_COMP_NONE,
		.name = "none",
		.ext = "",
		.default_level = 0,
		.compress = zd_codec_none_compress,
		.decompress = zd_codec_none_decompress,
	},
	[ZD_COMP_GZIP] = {
		.type = ZD_COMP_GZIP,
		.name = "gzip",
		.ext = ".gz",
		.default_level = 9,
		.compress = zd_codec_stream_compress_file,
		.decompress = zd_codec_gzip_decompress,
		.stream = &zd_codec_gzip_stream,
	},
	[ZD_COMP_XZ] = {
		.type = ZD_COMP_XZ,
		.name = "xz",
		.ext = ".xz",
		.default_level = 6,
		.compress = zd_codec_stream_compress_file,
		.decompress = zd_codec_xz_decompress,
		.stream = &zd_codec_xz_stream,
	},
	[ZD_COMP_ZSTD] = {
		.type = ZD_COMP_ZSTD,
		.name = "zstd",
		.ext = ".zst",
		.default_level = 3,	/* ZSTD_CLEVEL_DEFAULT */
		.compress = zd_codec_zstd_compress,
		.decompress = zd_codec_zstd_decompress,
	},
	[ZD_COMP_BZIP2] = {
		.type = ZD_COMP_BZIP2,
		.name = "bzip2",
		.ext = ".bz2",
		.default_level = 9,
		.compress = NULL,
		.decompress = zd_codec_bzip2_decompress,
	},
	[ZD_COMP_LZMA] = {
		.type = ZD_COMP_LZMA,
		.name = "lzma",
		.ext = ".lzma",
		.default_level = 6,
		.compress = NULL,
		.decompress = zd_codec_lzma_decompress,
	},
};

static const char *const strategy_names[] = {
	[ZD_STRATEGY_DEFAULT] = "none",
	[ZD_STRATEGY_NONE] = "none",
	[ZD_STRATEGY_FILTERED] = "filtered",
	[ZD_STRATEGY_HUFFMAN] = "huffman",
	[ZD_STRATEGY_RLE] = "rle",
	[ZD_STRATEGY_FIXED] = "fixed",
	[ZD_STRATEGY_EXTREME] = "extreme",
};

const struct zd_codec *
zd_codec_get(enum zd_comp_type type)
{
	if ((unsigned)type >= ZD_COMP__COUNT)
		return NULL;
	return &codecs[type];
}

const struct zd_codec *
zd_codec_find_by_name(const char *name)
{
	if (name == NULL)
		return NULL;
	for (size_t i = 0; i < ZD_COMP__COUNT; i++)
		if (strcmp(codecs[i].name, name) == 0)
			return &codecs[i];
	return NULL;
}

const struct zd_codec *
zd_codec_find_by_ext(const char *ext)
{
	if (ext == NULL)
		return NULL;
	for (size_t i = 0; i < ZD_COMP__COUNT; i++)
		if (strcmp(codecs[i].ext, ext) == 0)
			return &codecs[i];
	return NULL;
}

static bool
has_prefix(const unsigned char *b, size_t len, const void *magic, size_t n)
{
	return len >= n && memcmp(b, magic, n) == 0;
}

const struct zd_codec *
zd_codec_find_by_magic(const void *buf, size_t len)
{
	static const unsigned char gz[] = { 0x1f, 0x8b };
	static const unsigned char xz[] = { 0xfd, '7', 'z', 'X', 'Z', 0x00 };
	static const unsigned char zst[] = { 0x28, 0xb5, 0x2f, 0xfd };
	static const unsigned char bz2[] = { 'B', 'Z', 'h' };
	/*
	 * .lzma (lzma_alone) has no magic: the usual header starts with the
	 * properties byte 0x5d (lc=3 lp=0 pb=2) and a dictionary size whose
	 * low 16 bits are zero, as xz's own detection assumes.
	 */
	static const unsigned char lzma[] = { 0x5d, 0x00, 0x00 };
	const unsigned char *b = buf;

	if (b == NULL)
		return NULL;
	if (has_prefix(b, len, gz, sizeof(gz)))
		return &codecs[ZD_COMP_GZIP];
	if (has_prefix(b, len, xz, sizeof(xz)))
		return &codecs[ZD_COMP_XZ];
	if (has_prefix(b, len, zst, sizeof(zst)))
		return &codecs[ZD_COMP_ZSTD];
	/* Skippable frame 0x184D2A50..5F, little endian (RFC 8878 3.1.2). */
	if (len >= 4 && (b[0] & 0xf0) == 0x50 && b[1] == 0x2a &&
	    b[2] == 0x4d && b[3] == 0x18)
		return &codecs[ZD_COMP_ZSTD];
	if (has_prefix(b, len, bz2, sizeof(bz2)))
		return &codecs[ZD_COMP_BZIP2];
	if (has_prefix(b, len, lzma, sizeof(lzma)))
		return &codecs[ZD_COMP_LZMA];
	return NULL;
}

void
zd_codec_level_range(enum zd_comp_type type, int *min, int *max)
{
	switch (type) {
	case ZD_COMP_GZIP:
	case ZD_COMP_XZ:
		*min = 0;
		*max = 9;
		break;
	case ZD_COMP_ZSTD:
		*min = ZSTD_minCLevel();
		*max = ZSTD_maxCLevel();
		break;
	case ZD_COMP_NONE:
	default:
		*min = 0;
		*max = 0;
		break;
	}
}

static const char *
type_name(enum zd_comp_type type)
{
	const struct zd_codec *c = zd_codec_get(type);

	return c ? c->name : "unknown";
}

int
zd_codec_parse_level(enum zd_comp_type type, const char *s, int *level,
                     struct zd_error *err)
{
	const struct zd_codec *c = zd_codec_get(type);
	struct zd_error tmp = ZD_ERROR_INIT;
	long long v = 0;
	int min, max;
	bool ok;

	if (c == NULL || c->compress == NULL)
		return zd_err(err, ZD_E_USAGE, "cannot compress with %s",
		              type_name(type));
	zd_codec_level_range(type, &min, &max);
	ok = zd_parse_ll(s, LLONG_MIN, LLONG_MAX, "compression level", &v,
	                 &tmp) == 0;
	if (!ok && strstr(tmp.msg, "is not an integer") != NULL) {
		*err = tmp;
		return -1;
	}
	/* Not ok here means past long long: out of range as well. */
	if (!ok || v < min || v > max) {
		if (type == ZD_COMP_ZSTD)
			return zd_err(err, ZD_E_USAGE, "compression level %s "
			              "is out of range for %s (%d to %d; %d "
			              "to %d are 'ultra' levels that need "
			              "much more memory to compress and "
			              "decompress)", s, c->name, min, max,
			              ZSTD_ULTRA_MIN_LEVEL, max);
		return zd_err(err, ZD_E_USAGE, "compression level %s is out "
		              "of range for %s (%d to %d)", s, c->name, min,
		              max);
	}
	*level = (int)v;
	return 0;
}

bool
zd_codec_strategy_valid(enum zd_comp_type type, enum zd_strategy s)
{
	switch (s) {
	case ZD_STRATEGY_DEFAULT:
	case ZD_STRATEGY_NONE:
		return true;
	case ZD_STRATEGY_FILTERED:
	case ZD_STRATEGY_HUFFMAN:
	case ZD_STRATEGY_RLE:
	case ZD_STRATEGY_FIXED:
		return type == ZD_COMP_GZIP;
	case ZD_STRATEGY_EXTREME:
		return type == ZD_COMP_XZ;
	}
	return false;
}

bool
zd_strategy_find_by_name(const char *name, enum zd_strategy *s)
{
	/* Index 0 (DEFAULT) has no name of its own. */
	for (size_t i = ZD_STRATEGY_NONE; name != NULL &&
	     i < sizeof(strategy_names) / sizeof(strategy_names[0]); i++) {
		if (strcmp(strategy_names[i], name) == 0) {
			*s = (enum zd_strategy)i;
			return true;
		}
	}
	return false;
}

int
zd_codec_parse_strategy(enum zd_comp_type type, const char *s,
                        enum zd_strategy *strategy, struct zd_error *err)
{
	enum zd_strategy found;
	char valid[128] = "none";

	if (!zd_strategy_find_by_name(s, &found))
		return zd_err(err, ZD_E_USAGE, "unknown compression strategy "
		              "'%s'", s ? s : "");
	if (!zd_codec_strategy_valid(type, found)) {
		for (size_t i = ZD_STRATEGY_FILTERED;
		     i < sizeof(strategy_names) / sizeof(strategy_names[0]);
		     i++) {
			if (!zd_codec_strategy_valid(type,
			                             (enum zd_strategy)i))
				continue;
			strncat(valid, ", ", sizeof(valid) - strlen(valid) - 1);
			strncat(valid, strategy_names[i],
			        sizeof(valid) - strlen(valid) - 1);
		}
		return zd_err(err, ZD_E_USAGE, "compression strategy '%s' is "
		              "not valid for %s (valid: %s)", s,
		              type_name(type), valid);
	}
	*strategy = found;
	return 0;
}

const char *
zd_strategy_name(enum zd_strategy s)
{
	if ((unsigned)s >= sizeof(strategy_names) / sizeof(strategy_names[0]))
		return "unknown";
	return strategy_names[s];
}

void
zd_codec_fixup_params(struct zd_comp_params *p)
{
	/* dpkg's fixup_gzip_params(). */
	if (p->type == ZD_COMP_GZIP && p->level == 0)
		p->type = ZD_COMP_NONE;
}

int
zd_comp_params_check(const struct zd_comp_params *p, struct zd_error *err)
{
	const struct zd_codec *c = zd_codec_get(p->type);
	int min, max;

	if (c == NULL || c->compress == NULL)
		return zd_err(err, ZD_E_UNSUPPORTED, "cannot compress with %s",
		              type_name(p->type));
	zd_codec_level_range(p->type, &min, &max);
	if (p->type != ZD_COMP_NONE && (p->level < min || p->level > max))
		return zd_err(err, ZD_E_USAGE, "compression level %d is out "
		              "of range for %s (%d to %d)", p->level, c->name,
		              min, max);
	if (!zd_codec_strategy_valid(p->type, p->strategy))
		return zd_err(err, ZD_E_USAGE, "compression strategy '%s' is "
		              "not valid for %s", zd_strategy_name(p->strategy),
		              c->name);
	return 0;
}

int
zd_compress(const struct zd_comp_params *p, int in_fd, uint64_t in_size,
            int out_fd, struct zd_error *err)
{
	const struct zd_codec *c = zd_codec_get(p->type);

	if (zd_comp_params_check(p, err) < 0)
		return -1;
	/* Checked above; said again for the compiler's null analysis. */
	if (c == NULL || c->compress == NULL)
		return zd_err(err, ZD_E_INTERNAL, "no compressor");
	return c->compress(p, in_fd, in_size, out_fd, err);
}

int
zd_decompress(const struct zd_codec *c, const struct zd_region *in,
              const struct zd_dec_params *p, struct zd_sink *out,
              struct zd_error *err)
{
	struct zd_dec_params q = *p;

	if (c == NULL || c->decompress == NULL)
		return zd_err(err, ZD_E_INTERNAL, "no decompressor");
	q.max_output = zd_dec_max_output(p, in->len);
	return c->decompress(in, &q, out, err);
}

/* Helpers shared by the decoders (codec-impl.h). */

int
zd_codec_out_write(struct zd_codec_out *o, const void *buf, size_t len,
                   struct zd_error *err)
{
	uint64_t total;

	if (len == 0)
		return 0;
	if (__builtin_add_overflow(o->total, (uint64_t)len, &total) ||
	    (o->p->max_output != 0 && total > o->p->max_output))
		return zd_err(err, ZD_E_LIMIT, "decoded data of '%s' exceeds "
		              "the limit of %ju bytes", zd_codec_member(o->p),
		              (uintmax_t)o->p->max_output);
	if (o->sink->write(o->sink->ctx, buf, len, err) < 0)
		return -1;
	o->total = total;
	return 0;
}

int
zd_codec_out_sink_write(void *ctx, const void *buf, size_t len,
                        struct zd_error *err)
{
	return zd_codec_out_write(ctx, buf, len, err);
}

const char *
zd_codec_member(const struct zd_dec_params *p)
{
	return p->member ? p->member : "member";
}

int
zd_codec_err_truncated(struct zd_error *err, const struct zd_dec_params *p,
                       uint64_t off)
{
	return zd_err(err, ZD_E_FORMAT, "unexpected end of data in '%s' at "
	              "offset %ju", zd_codec_member(p), (uintmax_t)off);
}

int
zd_codec_err_corrupt(struct zd_error *err, enum zd_errc code,
                     const struct zd_dec_params *p, const char *name,
                     uint64_t off, const char *why)
{
	return zd_err(err, code, "corrupt %s data in '%s' at offset %ju: %s",
	              name, zd_codec_member(p), (uintmax_t)off, why);
}

ssize_t
zd_codec_read_chunk(const struct zd_region *in, uint64_t *off, void *buf,
                    size_t cap, struct zd_error *err)
{
	size_t n;

	if (*off >= in->len)
		return 0;
	n = in->len - *off > cap ? cap : (size_t)(in->len - *off);
	if (zd_region_read(in, buf, n, *off, err) < 0)
		return -1;
	*off += n;
	return (ssize_t)n;
}
