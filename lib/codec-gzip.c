/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * codec-gzip.c - gzip through zlib, writing the bytes dpkg-deb writes
 *
 * dpkg-deb (lib/dpkg/compress.c, compress_gzip) writes with
 * gzdopen(fd, "w<level><strategy>"), which is deflateInit2() with
 * windowBits 15 + 16, memLevel 8 and no gz_header: mtime 0, no name, the OS
 * byte of zlib's build (3 on Unix).  Deflate's output does not depend on how
 * the input is split between calls with Z_NO_FLUSH, so calling deflate()
 * directly gives the same bytes as gzwrite().
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "lib/codec-impl.h"

/* zlib's DEF_MEM_LEVEL, the value gzdopen() uses. */
#define GZIP_MEM_LEVEL 8
/* 15: 32 KiB window; + 16: gzip wrapper instead of zlib's. */
#define GZIP_WINDOW_BITS (15 + 16)

static int
gz_strategy(enum zd_strategy s)
{
	switch (s) {
	case ZD_STRATEGY_FILTERED:
		return Z_FILTERED;
	case ZD_STRATEGY_HUFFMAN:
		return Z_HUFFMAN_ONLY;
	case ZD_STRATEGY_RLE:
		return Z_RLE;
	case ZD_STRATEGY_FIXED:
		return Z_FIXED;
	default:
		return Z_DEFAULT_STRATEGY;
	}
}

static int
gz_init(void **state, const struct zd_comp_params *p, struct zd_error *err)
{
	z_stream *z = calloc(1, sizeof(*z));
	int zr;

	if (z == NULL)
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	zr = deflateInit2(z, p->level, Z_DEFLATED, GZIP_WINDOW_BITS,
	                  GZIP_MEM_LEVEL, gz_strategy(p->strategy));
	if (zr != Z_OK) {
		free(z);
		return zd_err(err, zr == Z_MEM_ERROR ? ZD_E_NOMEM :
		              ZD_E_INTERNAL, "cannot initialize gzip "
		              "compression: %s", zError(zr));
	}
	*state = z;
	return 0;
}

/*
 * Deflates all of in, with Z_FINISH if finish.  Each call either takes
 * input or fills obuf, so none returns Z_BUF_ERROR but one with nothing to
 * do, which the loop never makes.
 */
static int
gz_code(void *state, const void *in, size_t len, bool finish,
        unsigned char *obuf, int out_fd, struct zd_error *err)
{
	z_stream *z = state;
	int zr;

	z->next_in = (Bytef *)(uintptr_t)in;
	z->avail_in = (uInt)len;
	do {
		z->next_out = obuf;
		z->avail_out = (uInt)ZD_CODEC_CHUNK;
		zr = deflate(z, finish ? Z_FINISH : Z_NO_FLUSH);
		if (zr != Z_OK && zr != Z_STREAM_END)
			return zd_err(err, ZD_E_INTERNAL, "gzip compression "
			              "failed: %s", z->msg ? z->msg : zError(zr));
		if (zd_write_all(out_fd, obuf, ZD_CODEC_CHUNK - z->avail_out,
		                 err) < 0)
			return -1;
	} while (finish ? zr != Z_STREAM_END :
	         z->avail_in > 0 || z->avail_out == 0);
	return 0;
}

static void
gz_end(void *state)
{
	deflateEnd(state);
	free(state);
}

const struct zd_cstream_ops zd_codec_gzip_stream = {
	gz_init, gz_code, gz_end,
};

int
zd_codec_gzip_decompress(const struct zd_region *in,
                         const struct zd_dec_params *p, struct zd_sink *out,
                         struct zd_error *err)
{
	struct zd_codec_out o = { out, p, 0 };
	unsigned char *ibuf = malloc(ZD_CODEC_CHUNK);
	unsigned char *obuf = malloc(ZD_CODEC_CHUNK);
	z_stream z = { 0 };
	bool inited = false, in_member = true;
	uint64_t off = 0;
	int rc = -1, zr;

	if (ibuf == NULL || obuf == NULL) {
		zd_err(err, ZD_E_NOMEM, "out of memory");
		goto out;
	}
	zr = inflateInit2(&z, GZIP_WINDOW_BITS);
	if (zr != Z_OK) {
		zd_err(err, zr == Z_MEM_ERROR ? ZD_E_NOMEM : ZD_E_INTERNAL,
		       "cannot initialize gzip decompression: %s", zError(zr));
		goto out;
	}
	inited = true;
	for (;;) {
		uInt had_in;
		/* Offset in the member of the next byte inflate reads. */
		uint64_t pos;

		if (z.avail_in == 0) {
			ssize_t n = zd_codec_read_chunk(in, &off, ibuf,
			                                ZD_CODEC_CHUNK, err);

			if (n < 0)
				goto out;
			if (n == 0) {
				if (in_member) {
					zd_codec_err_truncated(err, p, in->len);
					goto out;
				}
				break;
			}
			z.next_in = ibuf;
			z.avail_in = (uInt)n;
		}
		pos = off - z.avail_in;
		if (!in_member) {
			/* Another member follows (as gzip -d accepts). */
			if (z.next_in[0] != 0x1f) {
				zd_codec_err_corrupt(err, ZD_E_FORMAT, p,
				                     "gzip", pos, "trailing "
				                     "data after the last "
				                     "member");
				goto out;
			}
			inflateReset(&z);
			in_member = true;
		}
		had_in = z.avail_in;
		z.next_out = obuf;
		z.avail_out = (uInt)ZD_CODEC_CHUNK;
		zr = inflate(&z, Z_NO_FLUSH);
		if (zr == Z_NEED_DICT || zr == Z_DATA_ERROR ||
		    zr == Z_STREAM_ERROR) {
			/* zlib's words for a CRC32 or ISIZE mismatch. */
			bool check = z.msg != NULL &&
			    (strcmp(z.msg, "incorrect data check") == 0 ||
			     strcmp(z.msg, "incorrect length check") == 0);

			zd_codec_err_corrupt(err, check ? ZD_E_CHECKSUM :
			                     ZD_E_FORMAT, p, "gzip",
			                     pos + (had_in - z.avail_in),
			                     z.msg ? z.msg : zError(zr));
			goto out;
		}
		if (zr == Z_MEM_ERROR) {
			zd_err(err, ZD_E_NOMEM, "out of memory");
			goto out;
		}
		if (zd_codec_out_write(&o, obuf, ZD_CODEC_CHUNK - z.avail_out,
		                       err) < 0)
			goto out;
		if (zr == Z_STREAM_END)
			in_member = false;
		/*
		 * Z_BUF_ERROR: no progress was possible.  With input left
		 * and room for output that cannot happen, so fail rather
		 * than loop.
		 */
		if (zr == Z_BUF_ERROR && z.avail_in > 0 &&
		    z.avail_out > 0) {
			zd_codec_err_corrupt(err, ZD_E_INTERNAL, p, "gzip", pos,
			                     "decoder made no progress");
			goto out;
		}
	}
	rc = 0;
out:
	if (inited)
		inflateEnd(&z);
	free(ibuf);
	free(obuf);
	return rc;
}
