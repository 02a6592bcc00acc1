/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * codec-zstd.c - zstd in the registry: the single-frame and dpkg-deb
 * layouts written here, the segmented ones and every decode handed to the
 * zseg engines
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
 * Decoding is zseg-decode.c's for every layout: it reads every frame,
 * unlike dpkg-deb, which stops after the first one.
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

/* The largest window SINGLE writes, with or without --long. */
#define SINGLE_MAX_WINDOW_LOG 27

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

int
zd_codec_zstd_decompress(const struct zd_region *in,
                         const struct zd_dec_params *p, struct zd_sink *out,
                         struct zd_error *err)
{
	/* Every layout: indexed, pzstd and frames in parallel, a single
	 * plain frame streamed (lib/zseg-decode.c chooses). */
	return zd_zstd_pdecode(in, p, out, err);
}
