/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * codec-zstd.c - zstd: the single-frame and dpkg-deb layouts, and the
 * sequential decoder of every layout
 *
 * The segmented layouts (indexed, frames, pzstd) live in zseg-write.c.
 *
 * SINGLE is one frame with the content size and checksum, always made in
 * libzstd's multi-threaded mode (nbWorkers >= 1): that mode cuts the input
 * into jobs by size alone, so its bytes are the same for any worker count,
 * and --threads 1 and --threads 8 give identical members.  (Single-threaded
 * mode, nbWorkers 0, would give different bytes.)
 *
 * DPKG replays dpkg-deb 1.21.22's filter_zstd() call for call: level,
 * checksum, nbWorkers only when more than one thread (clamped to the online
 * CPUs), no pledged size, ZSTD_CStreamInSize() reads with ZSTD_e_end on the
 * first short read.  Its bytes therefore depend on the thread count the way
 * dpkg-deb's do.
 *
 * The decoder reads every frame, unlike dpkg-deb, which stops after the
 * first one.  Frame headers are checked here (RFC 8878 3.1.1) so that
 * skippable frames are stepped over and a too large window is reported with
 * its size; the stable API has no frame header parser.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zstd.h>
#include <zstd_errors.h>

#include "lib/codec-impl.h"
#include "lib/zseg-decode.h"
#include "lib/zseg-write.h"
#include "lib/zstd-frame.h"

/* RFC 8878 3.1.1: frame magic; 3.1.2: skippable magic 0x184D2A5?. */
#define ZSTD_FRAME_MAGIC 0xFD2FB528u
#define ZSTD_SKIP_MAGIC_MASK 0xFFFFFFF0u
#define ZSTD_SKIP_MAGIC 0x184D2A50u
/* Magic (4) + descriptor (1) + window (1) + dictionary id (4) + FCS (8). */
#define ZSTD_HEADER_MAX 18
/* The window the decoder accepts by default: zstd's own default cap. */
#define DEFAULT_MAX_WINDOW (UINT64_C(1) << 27)
/* The largest window SINGLE writes, with or without --long. */
#define SINGLE_MAX_WINDOW_LOG 27

static uint32_t
le32(const unsigned char *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	       (uint32_t)b[3] << 24;
}

static int
zstd_fail(struct zd_error *err, const char *what, size_t r)
{
	bool nomem = ZSTD_getErrorCode(r) == ZSTD_error_memory_allocation;

	return zd_err(err, nomem ? ZD_E_NOMEM : ZD_E_INTERNAL, "%s: %s", what,
	              ZSTD_getErrorName(r));
}

/* Feeds in_fd[0, in_size) through cctx in chunks of chunk bytes. */
static int
compress_stream(ZSTD_CCtx *cctx, int in_fd, uint64_t in_size, int out_fd,
                size_t chunk, bool dpkg, struct zd_error *err)
{
	const size_t out_size = ZSTD_CStreamOutSize();
	unsigned char *ibuf = malloc(chunk);
	unsigned char *obuf = malloc(out_size);
	ZSTD_inBuffer in = { ibuf, 0, 0 };
	ZSTD_outBuffer out = { obuf, out_size, 0 };
	bool finish = false, done = false;
	uint64_t off = 0;
	int rc = -1;

	if (ibuf == NULL || obuf == NULL) {
		zd_err(err, ZD_E_NOMEM, "out of memory");
		goto out;
	}
	while (!done) {
		size_t r;

		if (in.pos == in.size && !finish) {
			size_t n = in_size - off > chunk ?
			           chunk : (size_t)(in_size - off);

			if (n > 0 && zd_pread_all(in_fd, ibuf, n, off,
			                          err) < 0)
				goto out;
			off += n;
			in.size = n;
			in.pos = 0;
			/*
			 * dpkg finishes on the first short read (so a
			 * multiple of chunk ends with an empty read); we
			 * finish as soon as the input is all read.  Both
			 * end up calling ZSTD_e_end with the same data.
			 */
			finish = dpkg ? n < chunk : off == in_size;
		}
		r = ZSTD_compressStream2(cctx, &out, &in, finish ?
		                         ZSTD_e_end : ZSTD_e_continue);
		if (ZSTD_isError(r)) {
			zstd_fail(err, "zstd compression failed", r);
			goto out;
		}
		if (finish && r == 0)
			done = true;
		if (out.pos == out.size || done) {
			if (zd_write_all(out_fd, obuf, out.pos, err) < 0)
				goto out;
			out.pos = 0;
		}
	}
	rc = 0;
out:
	free(ibuf);
	free(obuf);
	return rc;
}

static int
set_param(ZSTD_CCtx *cctx, ZSTD_cParameter param, int value,
          struct zd_error *err)
{
	size_t r = ZSTD_CCtx_setParameter(cctx, param, value);

	if (ZSTD_isError(r))
		return zstd_fail(err, "cannot set zstd parameter", r);
	return 0;
}

/* dpkg's filter_zstd_get_cputhreads(). */
static unsigned
dpkg_threads(unsigned want)
{
	ZSTD_bounds workers = ZSTD_cParam_getBounds(ZSTD_c_nbWorkers);
	long max;

	if (ZSTD_isError(workers.error) || workers.upperBound == 0)
		return 1;
	max = sysconf(_SC_NPROCESSORS_ONLN);
	if (max < 0)
		return 1;
	if (want < 1)
		want = 1;
	return (long)want < max ? want : (unsigned)max;
}

static int
compress_dpkg(const struct zd_comp_params *p, int in_fd, uint64_t in_size,
              int out_fd, struct zd_error *err)
{
	ZSTD_CCtx *cctx = ZSTD_createCCtx();
	unsigned threads = dpkg_threads(p->threads);
	int rc = -1;

	if (cctx == NULL)
		return zd_err(err, ZD_E_NOMEM, "cannot create zstd "
		              "compression context");
	if (set_param(cctx, ZSTD_c_compressionLevel, p->level, err) < 0 ||
	    set_param(cctx, ZSTD_c_checksumFlag, 1, err) < 0)
		goto out;
	/* dpkg ignores a failure here, and so do we. */
	if (threads > 1)
		ZSTD_CCtx_setParameter(cctx, ZSTD_c_nbWorkers, (int)threads);
	rc = compress_stream(cctx, in_fd, in_size, out_fd, ZSTD_CStreamInSize(),
	                     true, err);
out:
	ZSTD_freeCCtx(cctx);
	return rc;
}

static int
compress_single(const struct zd_comp_params *p, int in_fd, uint64_t in_size,
                int out_fd, struct zd_error *err)
{
	ZSTD_CCtx *cctx = ZSTD_createCCtx();
	unsigned workers = p->threads < 1 ? 1 : p->threads;
	ZSTD_bounds wb = ZSTD_cParam_getBounds(ZSTD_c_nbWorkers);
	size_t r;
	int rc = -1;

	if (cctx == NULL)
		return zd_err(err, ZD_E_NOMEM, "cannot create zstd "
		              "compression context");
	if (set_param(cctx, ZSTD_c_compressionLevel, p->level, err) < 0 ||
	    set_param(cctx, ZSTD_c_checksumFlag, 1, err) < 0 ||
	    set_param(cctx, ZSTD_c_contentSizeFlag, 1, err) < 0)
		goto out;
	/*
	 * Level 22's default window is 2^27, so only --long needs an
	 * explicit cap; libzstd still shrinks it for small inputs.
	 */
	if (p->zstd_long &&
	    (set_param(cctx, ZSTD_c_enableLongDistanceMatching, 1, err) < 0 ||
	     set_param(cctx, ZSTD_c_windowLog, SINGLE_MAX_WINDOW_LOG,
	               err) < 0))
		goto out;
	if (!ZSTD_isError(wb.error) && wb.upperBound > 0 &&
	    workers > (unsigned)wb.upperBound)
		workers = (unsigned)wb.upperBound;
	/* Multi-threaded mode always: same bytes for every worker count. */
	r = ZSTD_CCtx_setParameter(cctx, ZSTD_c_nbWorkers, (int)workers);
	if (ZSTD_isError(r))
		zd_warnf(p->warn, p->warn_ctx, "libzstd has no multi-threading "
		         "support: the zstd member will differ from one made "
		         "with a multi-threaded libzstd");
	r = ZSTD_CCtx_setPledgedSrcSize(cctx, in_size);
	if (ZSTD_isError(r)) {
		zstd_fail(err, "cannot set the zstd content size", r);
		goto out;
	}
	rc = compress_stream(cctx, in_fd, in_size, out_fd, ZD_CODEC_CHUNK,
	                     false, err);
out:
	ZSTD_freeCCtx(cctx);
	return rc;
}

int
zd_codec_zstd_compress(const struct zd_comp_params *p, int in_fd,
                       uint64_t in_size, int out_fd, struct zd_error *err)
{
	switch (p->layout) {
	case ZD_LAYOUT_SINGLE:
		return compress_single(p, in_fd, in_size, out_fd, err);
	case ZD_LAYOUT_DPKG:
		return compress_dpkg(p, in_fd, in_size, out_fd, err);
	case ZD_LAYOUT_INDEXED:
	case ZD_LAYOUT_FRAMES:
	case ZD_LAYOUT_PZSTD:
		return zd_zseg_compress(p, in_fd, in_size, out_fd, err);
	}
	return zd_err(err, ZD_E_INTERNAL, "unknown zstd layout %d",
	              (int)p->layout);
}

/*
 * Window size of the frame header in h[0, n) (RFC 8878 3.1.1.1.2), or 0
 * when the header is incomplete (the decoder then reports the error).
 */
static uint64_t
frame_window(const unsigned char *h, size_t n)
{
	static const unsigned did_size[4] = { 0, 1, 2, 4 };
	static const unsigned fcs_size[4] = { 0, 2, 4, 8 };
	unsigned fhd, fcs_n, pos;
	uint64_t fcs = 0;

	if (n < 6)
		return 0;
	fhd = h[4];
	if ((fhd & 0x20) == 0) {
		unsigned exponent = h[5] >> 3, mantissa = h[5] & 7;
		uint64_t base = UINT64_C(1) << (10 + exponent);

		return base + base / 8 * mantissa;
	}
	/* Single segment: the window is the content size. */
	fcs_n = fcs_size[fhd >> 6];
	if (fcs_n == 0)
		fcs_n = 1;
	pos = 5 + did_size[fhd & 3];
	if (pos + fcs_n > n)
		return 0;
	for (unsigned i = 0; i < fcs_n; i++)
		fcs |= (uint64_t)h[pos + i] << (8 * i);
	if (fcs_n == 2)
		fcs += 256;
	return fcs;
}

/*
 * At a frame boundary *pos: steps over skippable frames and checks the
 * next frame's window.  Sets *end when the member ends at *pos.
 */
static int
frame_boundary(const struct zd_region *in, const struct zd_dec_params *p,
               uint64_t max_window, uint64_t *pos, bool *end,
               struct zd_error *err)
{
	unsigned char h[ZSTD_HEADER_MAX];

	for (;;) {
		size_t n = in->len - *pos > sizeof(h) ?
		           sizeof(h) : (size_t)(in->len - *pos);
		uint64_t next, window;
		uint32_t magic;

		*end = n == 0;
		if (n < 4)
			return 0;
		if (zd_region_read(in, h, n, *pos, err) < 0)
			return -1;
		magic = le32(h);
		if (magic == ZSTD_FRAME_MAGIC) {
			window = frame_window(h, n);
			if (window > max_window)
				return zd_err(err, ZD_E_LIMIT, "window of %ju "
				              "bytes exceeds the limit of %ju "
				              "bytes in '%s' at offset %ju",
				              (uintmax_t)window,
				              (uintmax_t)max_window,
				              zd_codec_member(p),
				              (uintmax_t)*pos);
			return 0;
		}
		if ((magic & ZSTD_SKIP_MAGIC_MASK) != ZSTD_SKIP_MAGIC)
			return 0;
		if (n < 8 || __builtin_add_overflow(*pos, 8 + (uint64_t)
		                                    le32(h + 4), &next) ||
		    next > in->len)
			return zd_codec_err_truncated(err, p, in->len);
		*pos = next;
	}
}

static unsigned
window_log_max(uint64_t max_window)
{
	ZSTD_bounds b = ZSTD_dParam_getBounds(ZSTD_d_windowLogMax);
	unsigned log = 10;

	/* Round up: frame_boundary() enforces the exact limit. */
	while (log < 63 && (UINT64_C(1) << log) < max_window)
		log++;
	if (!ZSTD_isError(b.error)) {
		if ((int)log < b.lowerBound)
			log = (unsigned)b.lowerBound;
		if ((int)log > b.upperBound)
			log = (unsigned)b.upperBound;
	}
	return log;
}

int
zd_zstd_decode_sequential(const struct zd_region *in,
                          const struct zd_dec_params *p, struct zd_sink *out,
                          struct zd_error *err)
{
	const size_t ibuf_size = ZSTD_DStreamInSize();
	const size_t obuf_size = ZSTD_DStreamOutSize();
	const uint64_t max_window = p->max_window ? p->max_window :
	                            DEFAULT_MAX_WINDOW;
	struct zd_codec_out o = { out, p, 0 };
	ZSTD_DCtx *dctx = ZSTD_createDCtx();
	unsigned char *ibuf = malloc(ibuf_size);
	unsigned char *obuf = malloc(obuf_size);
	ZSTD_inBuffer zin = { ibuf, 0, 0 };
	bool boundary = true;
	unsigned stalls = 0;
	uint64_t off = 0;
	int rc = -1;
	size_t r;

	if (dctx == NULL || ibuf == NULL || obuf == NULL) {
		zd_err(err, ZD_E_NOMEM, "out of memory");
		goto out;
	}
	if (in->len == 0) {
		zd_codec_err_truncated(err, p, 0);
		goto out;
	}
	r = ZSTD_DCtx_setParameter(dctx, ZSTD_d_windowLogMax,
	                           (int)window_log_max(max_window));
	if (ZSTD_isError(r)) {
		zstd_fail(err, "cannot set the zstd window limit", r);
		goto out;
	}
	for (;;) {
		ZSTD_outBuffer zout = { obuf, obuf_size, 0 };
		/* Offset in the member of the next byte to decode. */
		uint64_t pos = off - (zin.size - zin.pos);
		size_t had_in;

		if (boundary) {
			bool end;

			if (frame_boundary(in, p, max_window, &pos, &end,
			                   err) < 0)
				goto out;
			if (end)
				break;
			/* Restart reading at the frame. */
			off = pos;
			zin.size = zin.pos = 0;
			boundary = false;
		}
		if (zin.pos == zin.size && off < in->len) {
			ssize_t n = zd_codec_read_chunk(in, &off, ibuf,
			                                ibuf_size, err);

			if (n < 0)
				goto out;
			zin.size = (size_t)n;
			zin.pos = 0;
		}
		had_in = zin.pos;
		r = ZSTD_decompressStream(dctx, &zout, &zin);
		if (ZSTD_isError(r)) {
			enum zd_errc ec = zd_zstd_errc(r);

			if (ec == ZD_E_NOMEM) {
				zd_err(err, ZD_E_NOMEM, "out of memory");
				goto out;
			}
			zd_codec_err_corrupt(err, ec, p, "zstd", pos,
			                     ZSTD_getErrorName(r));
			goto out;
		}
		if (zd_codec_out_write(&o, obuf, zout.pos, err) < 0)
			goto out;
		if (r == 0) {
			/* The frame ended and is fully flushed. */
			boundary = true;
			stalls = 0;
			continue;
		}
		if (zin.pos == zin.size && off == in->len &&
		    zout.pos < zout.size) {
			zd_codec_err_truncated(err, p, in->len);
			goto out;
		}
		/* libzstd progresses whenever it has input and room. */
		stalls = zin.pos == had_in && zout.pos == 0 ? stalls + 1 : 0;
		if (stalls > 2) {
			zd_codec_err_corrupt(err, ZD_E_INTERNAL, p, "zstd", pos,
			                     "decoder made no progress");
			goto out;
		}
	}
	rc = 0;
out:
	ZSTD_freeDCtx(dctx);
	free(ibuf);
	free(obuf);
	return rc;
}

int
zd_codec_zstd_decompress(const struct zd_region *in,
                         const struct zd_dec_params *p, struct zd_sink *out,
                         struct zd_error *err)
{
	/* Every layout: indexed, pzstd and frames in parallel, a single
	 * plain frame streamed (lib/zseg-decode.c chooses). */
	return zd_zstd_pdecode(in, p, out, err);
}
