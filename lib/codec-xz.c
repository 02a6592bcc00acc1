/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * codec-xz.c - the liblzma formats: xz, written as dpkg-deb writes it, and
 * the legacy .lzma (lzma_alone), read only
 *
 * dpkg-deb 1.21.22 (lib/dpkg/compress.c, filter_xz_init) always uses the
 * multi-threaded encoder, even for one thread: preset = level (| EXTREME),
 * CRC64, block_size 0 (liblzma's default, 3 times the dictionary), no
 * timeout.  The MT encoder's output depends only on the preset and the
 * block size, never on the thread count, so every --threads value gives the
 * same bytes as dpkg-deb.  Decoding uses the multi-threaded decoder, which
 * decodes the blocks of such streams in parallel.
 */
#include "config.h"

#include <stdlib.h>

#include <lzma.h>

#include "lib/codec-impl.h"

/* liblzma's LZMA_THREADS_MAX (src/liblzma/common/common.h, not public). */
#define XZ_THREADS_MAX 16384

static const char *
lzma_strerror(lzma_ret r)
{
	/* liblzma has no messages of its own; these are dpkg's. */
	switch (r) {
	case LZMA_MEM_ERROR:
		return "out of memory";
	case LZMA_MEMLIMIT_ERROR:
		return "memory usage limit reached";
	case LZMA_FORMAT_ERROR:
		return "file format not recognized";
	case LZMA_OPTIONS_ERROR:
		return "unsupported options in file header";
	case LZMA_DATA_ERROR:
		return "compressed data is corrupt";
	case LZMA_BUF_ERROR:
		return "unexpected end of input";
	case LZMA_UNSUPPORTED_CHECK:
		return "unsupported type of integrity check";
	default:
		return "internal error";
	}
}

/* Memory the MT coders may use before they reduce their threads. */
static uint64_t
mt_memlimit(void)
{
	uint64_t m = lzma_physmem() / 2;

	if (m == 0)
		m = UINT64_C(128) << 20;
	if (m > INTPTR_MAX)
		m = INTPTR_MAX;
	return m;
}

static uint32_t
mt_threads(unsigned want)
{
	uint32_t max = lzma_cputhreads();

	if (max == 0)
		max = 1;
	if (want < 1)
		want = 1;
	return want < max ? want : max;
}

static int
xz_init(void **state, const struct zd_comp_params *p, struct zd_error *err)
{
	lzma_mt mt = {
		.flags = 0,
		.block_size = 0,
		.timeout = 0,
		.filters = NULL,
		.check = LZMA_CHECK_CRC64,
	};
	lzma_stream *s = malloc(sizeof(*s));
	uint64_t limit;
	lzma_ret r;

	if (s == NULL)
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	*s = (lzma_stream)LZMA_STREAM_INIT;
	mt.preset = (uint32_t)p->level;
	if (p->strategy == ZD_STRATEGY_EXTREME)
		mt.preset |= LZMA_PRESET_EXTREME;
	mt.threads = mt_threads(p->threads);
	/* As dpkg: fewer threads when memory is short (same output). */
	limit = mt_memlimit();
	for (; mt.threads > 1; mt.threads--)
		if (lzma_stream_encoder_mt_memusage(&mt) < limit)
			break;
	r = lzma_stream_encoder_mt(s, &mt);
	if (r != LZMA_OK) {
		free(s);
		return zd_err(err, r == LZMA_MEM_ERROR ? ZD_E_NOMEM :
		              ZD_E_INTERNAL, "cannot initialize xz "
		              "compression: %s", lzma_strerror(r));
	}
	*state = s;
	return 0;
}

/* Codes all of in, with LZMA_FINISH if finish: LZMA_RUN returns once the
 * input is taken and output room is left; LZMA_FINISH at the stream end. */
static int
xz_code(void *state, const void *in, size_t len, bool finish,
        unsigned char *obuf, int out_fd, struct zd_error *err)
{
	lzma_stream *s = state;
	lzma_ret r;

	s->next_in = in;
	s->avail_in = len;
	do {
		s->next_out = obuf;
		s->avail_out = ZD_CODEC_CHUNK;
		r = lzma_code(s, finish ? LZMA_FINISH : LZMA_RUN);
		if (r != LZMA_OK && r != LZMA_STREAM_END)
			return zd_err(err, r == LZMA_MEM_ERROR ? ZD_E_NOMEM :
			              ZD_E_INTERNAL, "xz compression failed: "
			              "%s", lzma_strerror(r));
		if (zd_write_all(out_fd, obuf, ZD_CODEC_CHUNK - s->avail_out,
		                 err) < 0)
			return -1;
	} while (finish ? r != LZMA_STREAM_END :
	         s->avail_in > 0 || s->avail_out == 0);
	return 0;
}

static void
xz_end(void *state)
{
	lzma_end(state);
	free(state);
}

const struct zd_cstream_ops zd_codec_xz_stream = {
	xz_init, xz_code, xz_end,
};

/* Drives an initialized liblzma decoder s over in into out (name: in
 * messages), then ends s. */
static int
lzma_run(lzma_stream *s, const struct zd_region *in,
         const struct zd_dec_params *p, struct zd_sink *out, const char *name,
         struct zd_error *err)
{
	struct zd_codec_out o = { out, p, 0 };
	unsigned char *ibuf = malloc(ZD_CODEC_CHUNK);
	unsigned char *obuf = malloc(ZD_CODEC_CHUNK);
	lzma_action action = LZMA_RUN;
	uint64_t off = 0;
	int rc = -1;

	if (ibuf == NULL || obuf == NULL) {
		zd_err(err, ZD_E_NOMEM, "out of memory");
		goto out;
	}
	for (;;) {
		lzma_ret r;

		if (s->avail_in == 0 && action == LZMA_RUN) {
			ssize_t n = zd_codec_read_chunk(in, &off, ibuf,
			                                ZD_CODEC_CHUNK, err);

			if (n < 0)
				goto out;
			if (n == 0)
				action = LZMA_FINISH;
			s->next_in = ibuf;
			s->avail_in = (size_t)n;
		}
		s->next_out = obuf;
		s->avail_out = ZD_CODEC_CHUNK;
		/*
		 * liblzma returns LZMA_BUF_ERROR when a second call in a row
		 * cannot progress, so this loop always ends.
		 */
		r = lzma_code(s, action);
		if (zd_codec_out_write(&o, obuf, ZD_CODEC_CHUNK - s->avail_out,
		                       err) < 0)
			goto out;
		if (r == LZMA_STREAM_END)
			break;
		if (r == LZMA_OK)
			continue;
		if (r == LZMA_BUF_ERROR) {
			zd_codec_err_truncated(err, p, in->len);
		} else if (r == LZMA_MEM_ERROR) {
			zd_err(err, ZD_E_NOMEM, "out of memory");
		} else {
			zd_codec_err_corrupt(err, r == LZMA_MEMLIMIT_ERROR ?
			                     ZD_E_LIMIT : ZD_E_FORMAT, p, name,
			                     s->total_in, lzma_strerror(r));
		}
		goto out;
	}
	if (s->total_in < in->len) {
		zd_codec_err_corrupt(err, ZD_E_FORMAT, p, name, s->total_in,
		                     "trailing data after the end of the "
		                     "stream");
		goto out;
	}
	rc = 0;
out:
	lzma_end(s);
	free(ibuf);
	free(obuf);
	return rc;
}

int
zd_codec_xz_decompress(const struct zd_region *in,
                       const struct zd_dec_params *p, struct zd_sink *out,
                       struct zd_error *err)
{
	lzma_mt mt = {
		/* Like xz -d: a member may hold several streams. */
		.flags = LZMA_CONCATENATED,
		.timeout = 0,
		.memlimit_stop = UINT64_MAX,
	};
	lzma_stream s = LZMA_STREAM_INIT;
	lzma_ret r;

	mt.threads = p->threads < 1 ? 1 :
	             p->threads > XZ_THREADS_MAX ? XZ_THREADS_MAX : p->threads;
	mt.memlimit_threading = mt_memlimit();
	r = lzma_stream_decoder_mt(&s, &mt);
	if (r != LZMA_OK)
		return zd_err(err, r == LZMA_MEM_ERROR ? ZD_E_NOMEM :
		              ZD_E_INTERNAL, "cannot initialize xz "
		              "decompression: %s", lzma_strerror(r));
	return lzma_run(&s, in, p, out, "xz", err);
}

/* .lzma as dpkg-deb reads it: lzma_alone_decoder without a memory limit. */
int
zd_codec_lzma_decompress(const struct zd_region *in,
                         const struct zd_dec_params *p, struct zd_sink *out,
                         struct zd_error *err)
{
	lzma_stream s = LZMA_STREAM_INIT;
	lzma_ret r;

	r = lzma_alone_decoder(&s, UINT64_MAX);
	if (r != LZMA_OK)
		return zd_err(err, r == LZMA_MEM_ERROR ? ZD_E_NOMEM :
		              ZD_E_INTERNAL, "cannot initialize lzma "
		              "decompression");
	return lzma_run(&s, in, p, out, "lzma", err);
}
