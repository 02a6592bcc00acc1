/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * codec-bzip2.c - bzip2 through libbz2, read only; concatenated streams
 * are decoded one after the other, as bzip2 -d does
 */
#include "config.h"

#include <stdlib.h>

#include <bzlib.h>

#include "lib/codec-impl.h"

static const char *
bz_strerror(int r)
{
	switch (r) {
	case BZ_DATA_ERROR:
		return "compressed data is corrupt";
	case BZ_DATA_ERROR_MAGIC:
		return "file format not recognized";
	case BZ_MEM_ERROR:
		return "out of memory";
	default:
		return "internal error";
	}
}

int
zd_codec_bzip2_decompress(const struct zd_region *in,
                          const struct zd_dec_params *p, struct zd_sink *out,
                          struct zd_error *err)
{
	struct zd_codec_out o = { out, p, 0 };
	char *ibuf = malloc(ZD_CODEC_CHUNK);
	char *obuf = malloc(ZD_CODEC_CHUNK);
	bz_stream bz = { 0 };
	bool inited = false;
	uint64_t off = 0;
	int rc = -1, r;

	if (ibuf == NULL || obuf == NULL) {
		zd_err(err, ZD_E_NOMEM, "out of memory");
		goto out;
	}
	for (;;) {
		unsigned had_in;
		uint64_t pos;

		if (bz.avail_in == 0) {
			ssize_t n = zd_codec_read_chunk(in, &off, ibuf,
			                                ZD_CODEC_CHUNK, err);

			if (n < 0)
				goto out;
			if (n == 0) {
				/* The end: fine between streams only. */
				if (inited || off == 0) {
					zd_codec_err_truncated(err, p,
					                       in->len);
					goto out;
				}
				break;
			}
			bz.next_in = ibuf;
			bz.avail_in = (unsigned)n;
		}
		pos = off - bz.avail_in;
		if (!inited) {
			r = BZ2_bzDecompressInit(&bz, 0, 0);
			if (r != BZ_OK) {
				zd_err(err, ZD_E_NOMEM, "cannot initialize "
				       "bzip2 decompression");
				goto out;
			}
			inited = true;
		}
		had_in = bz.avail_in;
		bz.next_out = obuf;
		bz.avail_out = (unsigned)ZD_CODEC_CHUNK;
		r = BZ2_bzDecompress(&bz);
		if (r != BZ_OK && r != BZ_STREAM_END) {
			zd_codec_err_corrupt(err, r == BZ_MEM_ERROR ?
			                     ZD_E_NOMEM : ZD_E_FORMAT, p,
			                     "bzip2", pos, bz_strerror(r));
			goto out;
		}
		if (zd_codec_out_write(&o, obuf, ZD_CODEC_CHUNK - bz.avail_out,
		                       err) < 0)
			goto out;
		if (r == BZ_STREAM_END) {
			BZ2_bzDecompressEnd(&bz);
			inited = false;
		} else if (bz.avail_in == had_in &&
		           bz.avail_out == ZD_CODEC_CHUNK) {
			/* libbz2 consumes or produces on every call. */
			zd_codec_err_corrupt(err, ZD_E_INTERNAL, p, "bzip2",
			                     pos, "decoder made no progress");
			goto out;
		}
	}
	rc = 0;
out:
	if (inited)
		BZ2_bzDecompressEnd(&bz);
	free(ibuf);
	free(obuf);
	return rc;
}
