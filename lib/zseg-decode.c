/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zseg-decode.c - zstd member decoding: indexed, multi-frame or sequential
 *
 * The member's frames are listed first by walking headers (zseg-layout.h:
 * nothing is decoded, so a truncated member fails before any output).  One
 * frame with our index after it is decoded segment by segment; several
 * frames are decoded frame by frame; both on the worker pool, each worker
 * decoding its piece in place into one buffer (an indexed segment) or
 * streaming it into chunks, which the workers themselves write in order
 * (outq.h), in bounded memory.  With one thread, or a plain single frame,
 * one streaming decoder reads the member once.
 */
#include "config.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>
#include <zstd.h>

#include "lib/endian.h"
#include "lib/outq.h"
#include "lib/sched.h"
#include "lib/zseg-decode.h"
#include "lib/zseg-index.h"
#include "lib/zseg-layout.h"
#include "lib/zseg-read.h"
#include "lib/zstd-frame.h"

#define MIB (UINT64_C(1) << 20)
#define DEFAULT_MAX_WINDOW (128 * MIB)
#define CHUNK (256u << 10)		/* decoded bytes handed on at once */
#define PCHUNK (128u << 10)		/* positional: written at once */
#define MEM_BUDGET (512 * MIB)		/* decoded bytes queued, at most */
/*
 * Pieces in flight, written where they belong (positional): one per
 * worker, as many again done but waiting for those before them, and one
 * more.  Their bytes are written as they are decoded, so the window
 * holds no memory.
 */
#define WINDOW(threads) (2 * (threads) + 1)
/*
 * Pieces in flight through the queue (in order, into a pipe): one per
 * worker and the one being written.  Each holds a buffer of its whole
 * size (decoded in place) until it is written, and memory touched for
 * the first time cost 0.5-0.6 ns/B on the VM measured (its host takes
 * free pages back; whether that is the cause was not measured;
 * doc/measurements/decode-2026-12-02-pipe-profile.txt), so a
 * window of 2 x threads + 1 made 5 buffers where threads + 1 makes 3.
 * On the text tree into `cat`, -T2 with threads + 1 took 0.91 [0.89,
 * 0.95] of the time with 2 x threads + 1 (lib 0.95 [0.94, 0.99]), 2 x
 * threads 0.96 [0.92, 1.02] (lib 0.97 [0.94, 1.03]): bench/decode.sh
 * --ab, 31 paired rounds each, load 0.27 at the start, 2-vCPU AMD EPYC
 * family 25 model 1, 2026-12-02 (doc/measurements/decode-2026-12-02-window.txt).
 * Pieces streamed into chunks (not all decoded in place: see
 * queue_window) keep 2 x threads + 1: so streamed, threads + 1 had
 * been the slower, 68 against 63 ms at a load of 0.77
 * (doc/measurements/decode-2026-11-27-pipe.txt).
 */
#define QWINDOW(threads) ((threads) + 1)

struct dec;

struct dworker {
	struct dec *d;
	ZSTD_DCtx *dctx;	/* made on first use */
	unsigned char *ibuf;	/* input, see zd_zseg_piece_stream */
	unsigned slot;		/* of the piece being decoded */
	/* positional output: the worker's buffer, reused for each write */
	unsigned char *obuf;
	uint64_t at;		/* where its next bytes go in the output */
	struct zd_error werr;	/* the output's, if it failed */
	bool wfailed;
};

struct dec {
	const struct zd_region *in;
	const struct zd_dec_params *p;
	struct zd_sink *out;
	const char *name;
	struct zd_zseg_piece *pc;
	size_t n;
	unsigned wlog;		/* segments: the outer window */
	bool frames;		/* pieces are whole frames */
	struct zd_outq *q;	/* decoded bytes, workers to writer */
	uint64_t *uoff;		/* positional: each piece's output offset */
	unsigned nworkers;
	struct dworker *wk;	/* one per worker */
	XXH64_state_t *total;	/* writer: indexed content checksum */
	uint64_t emitted;	/* writer */
	/* One thread, indexed: the frame is streamed and each piece's
	 * XXH64 checked as its bytes pass (emit). */
	XXH64_state_t *piece_hash;
	size_t cur;		/* piece being hashed */
	uint64_t cur_len;	/* its bytes seen so far */
};

static const char *
member_name(const struct zd_dec_params *p)
{
	return p->member != NULL ? p->member : "member";
}

static uint64_t
max_window(const struct zd_dec_params *p)
{
	return p->max_window != 0 ? p->max_window : DEFAULT_MAX_WINDOW;
}

/* Round up: the exact cap was checked on each frame header. */
static unsigned
window_log_max(const struct zd_dec_params *p)
{
	unsigned wl = 0;

	while (wl < 31 && (UINT64_C(1) << wl) < max_window(p))
		wl++;
	return wl < ZD_ZSTD_WINLOG_MIN ? ZD_ZSTD_WINLOG_MIN : wl;
}

/* Checks piece d->cur once all its bytes have passed. */
static int
piece_done(struct dec *d, struct zd_error *err)
{
	const struct zd_zseg_piece *pc = &d->pc[d->cur];

	if (XXH64_digest(d->piece_hash) != pc->hash) {
		uint64_t seg = 0;

		for (size_t k = 0; k < d->cur; k++)
			seg += d->pc[k].nseg;
		return zd_err(err, ZD_E_CHECKSUM, "'%s': segment %ju at "
		              "offset %ju: decoded bytes do not match the "
		              "index hash", d->name, (uintmax_t)seg,
		              (uintmax_t)pc->off);
	}
	XXH64_reset(d->piece_hash, 0);
	d->cur++;
	d->cur_len = 0;
	return 0;
}

/* Feeds streamed bytes to the per-piece hashes, piece by piece. */
static int
hash_pieces(struct dec *d, const unsigned char *buf, size_t len,
            struct zd_error *err)
{
	while (d->cur < d->n && d->pc[d->cur].usize == d->cur_len)
		if (piece_done(d, err) < 0)
			return -1;
	while (len > 0) {
		uint64_t left;
		size_t n;

		if (d->cur >= d->n)
			return zd_err(err, ZD_E_FORMAT, "'%s' decodes to more "
			              "bytes than its index lists", d->name);
		left = d->pc[d->cur].usize - d->cur_len;
		n = left < len ? (size_t)left : len;
		XXH64_update(d->piece_hash, buf, n);
		d->cur_len += n;
		buf += n;
		len -= n;
		while (d->cur < d->n && d->pc[d->cur].usize == d->cur_len)
			if (piece_done(d, err) < 0)
				return -1;
	}
	return 0;
}

/*
 * Hands len decoded bytes on, checked against the output limit and fed
 * to the piece hashes when those are checked in order; with nowait, only
 * what the sink takes without waiting (see trywrite in fdio.h), and never
 * with the piece hashes.  Returns the count handed on, or -1.
 */
static ssize_t
emit_some(struct dec *d, const void *buf, size_t len, bool nowait,
          struct zd_error *err)
{
	uint64_t total;
	ssize_t n = (ssize_t)len;

	if (d->out->trywrite == NULL || d->piece_hash != NULL)
		nowait = false;
	if (d->piece_hash != NULL && hash_pieces(d, buf, len, err) < 0)
		return -1;
	if (__builtin_add_overflow(d->emitted, (uint64_t)len, &total) ||
	    (d->p->max_output != 0 && total > d->p->max_output))
		return zd_err(err, ZD_E_LIMIT, "decoded data of '%s' exceeds "
		              "the limit of %ju bytes", d->name,
		              (uintmax_t)d->p->max_output);
	if (len == 0)
		return 0;
	if (nowait)
		n = d->out->trywrite(d->out->ctx, buf, len, err);
	else if (d->out->write(d->out->ctx, buf, len, err) < 0)
		n = -1;
	if (n > 0)
		d->emitted += (uint64_t)n;
	return n;
}

/* All len bytes (emit_some without nowait): 0, or -1. */
static int
emit(struct dec *d, const void *buf, size_t len, struct zd_error *err)
{
	return emit_some(d, buf, len, false, err) < 0 ? -1 : 0;
}

static int
zstd_error(size_t rc, const char *name, struct zd_error *err)
{
	switch (zd_zstd_errc(rc)) {
	case ZD_E_LIMIT:
		return zd_err(err, ZD_E_LIMIT, "window of '%s' exceeds the "
		              "limit", name);
	case ZD_E_CHECKSUM:
		return zd_err(err, ZD_E_CHECKSUM, "checksum mismatch in '%s'",
		              name);
	case ZD_E_NOMEM:
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	default:
		return zd_err(err, ZD_E_FORMAT, "corrupt zstd data in '%s': %s",
		              name, ZSTD_getErrorName(rc));
	}
}

/* One streaming decoder over the whole member, in bounded memory. */
static int
decode_stream(struct dec *d, struct zd_error *err)
{
	ZSTD_DCtx *dctx = ZSTD_createDCtx();
	size_t isz = ZSTD_DStreamInSize(), osz = ZSTD_DStreamOutSize();
	unsigned char *ibuf = malloc(isz), *obuf = malloc(osz);
	unsigned wl = 0;
	uint64_t off = 0;
	size_t ret;
	bool pending = false;
	int rc = -1;

	wl = window_log_max(d->p);
	if (dctx == NULL || ibuf == NULL || obuf == NULL) {
		zd_err(err, ZD_E_NOMEM, "out of memory");
		goto out;
	}
	ret = ZSTD_DCtx_setParameter(dctx, ZSTD_d_windowLogMax, (int)wl);
	if (ZSTD_isError(ret)) {
		zstd_error(ret, d->name, err);
		goto out;
	}
	/*
	 * ret is 0 right after a frame ends (all its output flushed); when a
	 * call fills the output buffer, more may be pending without input.
	 */
	ret = 0;
	for (;;) {
		size_t n = d->in->len - off < isz ? (size_t)(d->in->len - off) :
		           isz;
		ZSTD_inBuffer ib = { ibuf, n, 0 };

		if (n == 0 && !pending)
			break;
		if (n > 0 && zd_region_read(d->in, ibuf, n, off, err) < 0)
			goto out;
		off += n;
		do {
			ZSTD_outBuffer ob = { obuf, osz, 0 };

			ret = ZSTD_decompressStream(dctx, &ob, &ib);
			if (ZSTD_isError(ret)) {
				zstd_error(ret, d->name, err);
				goto out;
			}
			if (emit(d, obuf, ob.pos, err) < 0)
				goto out;
			pending = ret != 0 && ob.pos == ob.size;
		} while (ib.pos < ib.size || (n == 0 && pending));
		if (n == 0)
			break;
	}
	if (ret != 0) {
		zd_err(err, ZD_E_FORMAT, "unexpected end of data in '%s' at "
		       "offset %ju", d->name, (uintmax_t)d->in->len);
		goto out;
	}
	rc = 0;
out:
	ZSTD_freeDCtx(dctx);
	free(ibuf);
	free(obuf);
	return rc;
}

static int
d_produce(void *ctx, uint64_t i, unsigned slot, struct zd_error *err)
{
	struct dec *d = ctx;

	(void)err;
	if (i >= d->n)
		return 0;
	if (d->q != NULL)
		zd_outq_start(d->q, slot, i);
	return 1;
}

static void
piece_prefix(const struct dec *d, size_t i, struct zd_error *err)
{
	uint64_t seg = 0;

	for (size_t k = 0; k < i; k++)
		seg += d->pc[k].nseg;
	zd_err_prefix(err, "'%s': %s %ju at offset %ju", d->name,
	              d->frames ? "frame" : "segment", (uintmax_t)seg,
	              (uintmax_t)d->pc[i].off);
}

/* zd_zseg_out for a worker: chunks of the output queue. */
static unsigned char *
w_get(void *ctx, size_t *cap, struct zd_error *err)
{
	struct dworker *w = ctx;

	return zd_outq_get(w->d->q, w->slot, 0, true, cap, err);
}

static void
w_put(void *ctx, size_t len)
{
	struct dworker *w = ctx;

	zd_outq_put(w->d->q, w->slot, len);
}

/* zd_zseg_out for a worker: a whole piece decoded in place in the queue,
 * handed on as it fills. */
static unsigned char *
w_get_whole(void *ctx, size_t size, uint64_t csize, struct zd_error *err)
{
	struct dworker *w = ctx;
	size_t cap;

	/* pages made at once only for a size real data reaches: a claim of
	 * more gets memory as the bytes come */
	return zd_outq_get(w->d->q, w->slot, size,
	                   ZD_ZSEG_POPULATE(size, csize), &cap, err);
}

static void
w_progress(void *ctx, size_t len)
{
	struct dworker *w = ctx;

	zd_outq_progress(w->d->q, w->slot, len);
}

/* zd_zseg_out for a worker writing at known offsets (out->pwrite): one
 * buffer, written where its bytes belong as soon as it is full, while
 * it is still in the cache. */
static unsigned char *
p_get(void *ctx, size_t *cap, struct zd_error *err)
{
	struct dworker *w = ctx;

	if (w->wfailed) {
		*err = w->werr;
		return NULL;
	}
	if (w->obuf == NULL && (w->obuf = malloc(PCHUNK)) == NULL) {
		zd_err(err, ZD_E_NOMEM, "out of memory");
		return NULL;
	}
	*cap = PCHUNK;
	return w->obuf;
}

static void
p_put(void *ctx, size_t len)
{
	struct dworker *w = ctx;
	const struct zd_sink *out = w->d->out;

	if (len == 0 || w->wfailed)
		return;
	if (out->pwrite(out->ctx, w->obuf, len, w->at, &w->werr) < 0)
		w->wfailed = true;
	w->at += len;
}

static int
worker_dctx(struct dworker *w, struct zd_error *err)
{
	size_t rc;

	if (w->dctx != NULL)
		return 0;
	w->dctx = ZSTD_createDCtx();
	if (w->dctx == NULL)
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	rc = ZSTD_DCtx_setParameter(w->dctx, ZSTD_d_windowLogMax,
	                            (int)window_log_max(w->d->p));
	return ZSTD_isError(rc) ? zstd_error(rc, w->d->name, err) : 0;
}

static int
d_run(void *ctx, unsigned worker, uint64_t i, unsigned slot,
      struct zd_error *err)
{
	struct dec *d = ctx;
	struct dworker *w = &d->wk[worker];
	const struct zd_zseg_out queued = {
		w_get, w_put, w, w_get_whole, w_progress, ZD_ZSEG_WHOLE_MAX,
	};
	const struct zd_zseg_out placed = { p_get, p_put, w, NULL, NULL, 0 };
	int rc;

	w->d = d;
	w->slot = slot;
	if (d->uoff != NULL)
		w->at = d->uoff[i];
	rc = worker_dctx(w, err);
	if (rc == 0)
		rc = zd_zseg_piece_stream(d->in, d->wlog, &d->pc[i], w->dctx,
		                          &w->ibuf, d->q != NULL ? &queued :
		                          &placed, err);
	if (rc == 0 && w->wfailed) {
		*err = w->werr;
		return -1;	/* the output's error: no piece to name */
	}
	if (rc < 0)
		piece_prefix(d, (size_t)i, err);
	if (d->q != NULL)
		zd_outq_finish(d->q, slot, rc < 0);
	return rc;
}

/* Any worker or the calling thread, one at a time, in order: the bytes
 * of the head piece (see outq.h). */
static ssize_t
d_write(void *ctx, const unsigned char *buf, size_t len, bool nowait,
        struct zd_error *err)
{
	struct dec *d = ctx;
	ssize_t n = emit_some(d, buf, len, nowait, err);

	if (n > 0 && d->total != NULL)
		XXH64_update(d->total, buf, (size_t)n);
	return n;
}

/* Calling thread: piece i is written (by the workers, see outq.h). */
static int
d_consume(void *ctx, uint64_t i, unsigned slot, struct zd_error *err)
{
	struct dec *d = ctx;

	(void)slot;
	return zd_outq_wait(d->q, i, err);
}

/* A worker with no piece to decode: writes what others left. */
static bool
d_idle(void *ctx)
{
	struct dec *d = ctx;

	return zd_outq_flush(d->q);
}

/* Positional: piece i was written by its worker. */
static int
p_consume(void *ctx, uint64_t i, unsigned slot, struct zd_error *err)
{
	(void)ctx;
	(void)i;
	(void)slot;
	(void)err;
	return 0;
}

/*
 * Positional output (out->pwrite, exact pieces): each piece's offset is
 * known, so each worker writes its bytes there as it decodes them; the
 * total is checked against the cap first.
 */
static int
plan_positions(struct dec *d, struct zd_error *err)
{
	uint64_t total = 0;

	d->uoff = malloc(d->n * sizeof(*d->uoff));
	if (d->uoff == NULL)
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	for (size_t i = 0; i < d->n; i++) {
		d->uoff[i] = total;
		if (__builtin_add_overflow(total, d->pc[i].usize, &total) ||
		    (d->p->max_output != 0 && total > d->p->max_output))
			return zd_err(err, ZD_E_LIMIT, "decoded data of '%s' "
			              "exceeds the limit of %ju bytes", d->name,
			              (uintmax_t)d->p->max_output);
	}
	d->emitted = total;
	return 0;
}

/* True when the pieces come from the index (sizes and hashes known). */
static bool
pieces_exact(const struct dec *d)
{
	if (d->n == 0)
		return false;
	for (size_t i = 0; i < d->n; i++)
		if (!d->pc[i].exact)
			return false;
	return true;
}

/* The window through the queue: QWINDOW when every piece is decoded in
 * place (zd_zseg_piece_whole), else WINDOW. */
static unsigned
queue_window(const struct dec *d, unsigned threads)
{
	for (size_t i = 0; i < d->n; i++)
		if (!zd_zseg_piece_whole(&d->pc[i], ZD_ZSEG_WHOLE_MAX))
			return WINDOW(threads);
	return QWINDOW(threads);
}

/* Pieces on threads >= 2 workers, written in order as they are decoded,
 * or, to a sink that takes them so and when their sizes are known, where
 * they belong. */
static int
decode_pieces(struct dec *d, struct zd_error *err)
{
	static const struct zd_sched_ops queued = {
		d_produce, d_run, d_consume, true, d_idle,
	};
	static const struct zd_sched_ops placed = {
		d_produce, d_run, p_consume, false, NULL,
	};
	bool positional = d->out->pwrite != NULL && pieces_exact(d) &&
	                  d->total == NULL;
	unsigned threads = d->p->threads, window;
	int rc = -1;

	if (threads > d->n)
		threads = (unsigned)d->n;
	window = positional ? WINDOW(threads) : queue_window(d, threads);
	d->nworkers = threads;
	d->wk = calloc(d->nworkers, sizeof(*d->wk));
	if (positional) {
		if (d->wk != NULL && plan_positions(d, err) < 0)
			goto out;
	} else {
		d->q = zd_outq_new(window, CHUNK, MEM_BUDGET, d_write, d);
		if (d->q != NULL)
			zd_outq_set_jobs(d->q, d->n);
	}
	if (d->wk == NULL || (!positional && d->q == NULL)) {
		zd_err(err, ZD_E_NOMEM, "out of memory");
		goto out;
	}
	rc = zd_sched_run(positional ? &placed : &queued, d, threads, window,
	                  err);
	if (rc == 0 && positional)
		rc = d->out->pwrite(d->out->ctx, NULL, 0, d->emitted, err);
out:
	if (d->wk != NULL) {
		for (unsigned i = 0; i < d->nworkers; i++) {
			ZSTD_freeDCtx(d->wk[i].dctx);
			free(d->wk[i].ibuf);
			free(d->wk[i].obuf);
		}
	}
	free(d->wk);
	free(d->uoff);
	zd_outq_free(d->q);
	d->wk = NULL;
	d->uoff = NULL;
	d->q = NULL;
	return rc;
}

/* Pieces for the indexed frame: the index, else a walk.  */
static int
plan_indexed(struct dec *d, const struct zd_zstd_frame_info *outer,
             const struct zd_zstd_frame_info *ixf, struct zd_error *err)
{
	struct zd_error ierr = ZD_ERROR_INIT;
	struct zd_zseg_index idx;

	if (zd_zseg_layout_read_index(d->in, outer, ixf, &idx,
	                              &ierr) == 0) {
		int rc = zd_zseg_pieces_from_index(d->in, outer, &idx, &d->pc,
		                                   &d->n, &ierr);

		zd_zseg_index_free(&idx);
		if (rc == 0)
			return 0;
		if (ierr.code != ZD_E_FORMAT) {
			*err = ierr;
			return -1;
		}
	} else if (ierr.code != ZD_E_FORMAT) {
		*err = ierr;
		return -1;
	}
	zd_warnf(d->p->warn, d->p->warn_ctx, "%s: index damaged (%s), "
	         "decoding by walking blocks", d->name, ierr.msg);
	return zd_zseg_pieces_walk(d->in, outer, &d->pc, &d->n, err);
}

/*
 * The indexed frame on the workers.  Pieces from the index are each
 * checked against their XXH64, which covers every byte the frame
 * checksum (32 bits of one XXH64 of all, which only the thread writing
 * in order can compute, over bytes mostly out of its cache by then)
 * covers, so it is checked only when asked (p->frame_checksum) and for
 * pieces found by walking the blocks, which have no hash of their own.
 */
static int
decode_indexed(struct dec *d, const struct zd_zstd_frame_info *outer,
               struct zd_error *err)
{
	unsigned char sum[4];
	int rc;

	if (!pieces_exact(d) || d->p->frame_checksum) {
		d->total = XXH64_createState();
		if (d->total == NULL)
			return zd_err(err, ZD_E_NOMEM, "out of memory");
		XXH64_reset(d->total, 0);
	}
	d->wlog = zd_log2_ceil(outer->hdr.window_size);
	rc = decode_pieces(d, err);
	if (rc == 0 && d->total != NULL &&
	    zd_region_read(d->in, sum, 4, outer->off + outer->size - 4,
	                   err) < 0)
		rc = -1;
	if (rc == 0 && d->total != NULL &&
	    zd_le32(sum) != (uint32_t)XXH64_digest(d->total))
		rc = zd_err(err, ZD_E_CHECKSUM, "checksum mismatch in '%s'",
		            d->name);
	if (rc == 0 && outer->hdr.has_content_size &&
	    d->emitted != outer->hdr.content_size)
		rc = zd_err(err, ZD_E_FORMAT, "'%s' decodes to %ju bytes, "
		            "not the %ju its header declares", d->name,
		            (uintmax_t)d->emitted,
		            (uintmax_t)outer->hdr.content_size);
	XXH64_freeState(d->total);
	d->total = NULL;
	return rc;
}

/* True when there are several pieces and several threads for them. */
static bool
pieces_usable(const struct dec *d)
{
	return d->n >= 2 && d->p->threads > 1;
}

/*
 * One thread: stream the frame once (libzstd checks the frame checksum and
 * content size) and check every segment's XXH64 as its bytes pass, rather
 * than decoding each segment into a buffer of its own, which falls out of
 * the cache on large segments.  A mismatch is reported at the end of its
 * segment, as a frame checksum is at the end of a frame.
 */
static int
decode_stream_hashed(struct dec *d, struct zd_error *err)
{
	int rc;

	d->piece_hash = XXH64_createState();
	if (d->piece_hash == NULL)
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	XXH64_reset(d->piece_hash, 0);
	d->cur = 0;
	d->cur_len = 0;
	rc = decode_stream(d, err);
	if (rc == 0 && hash_pieces(d, NULL, 0, err) < 0)
		rc = -1;
	if (rc == 0 && d->cur != d->n)
		rc = zd_err(err, ZD_E_FORMAT, "'%s' decodes to fewer bytes "
		            "than its index lists", d->name);
	XXH64_freeState(d->piece_hash);
	d->piece_hash = NULL;
	return rc;
}

/* Refuses a frame whose window or declared size is over the limits;
 * *known sums the declared sizes so far. */
static int
frame_limits(const struct zd_zstd_frame_info *f, const struct zd_dec_params *p,
             const char *name, uint64_t *known, struct zd_error *err)
{
	if (f->hdr.window_size > max_window(p))
		return zd_err(err, ZD_E_LIMIT, "window of %ju bytes exceeds "
		              "the limit of %ju bytes in '%s' at offset %ju",
		              (uintmax_t)f->hdr.window_size,
		              (uintmax_t)max_window(p), name,
		              (uintmax_t)f->off);
	if (f->hdr.has_content_size &&
	    (__builtin_add_overflow(*known, f->hdr.content_size, known) ||
	     (p->max_output != 0 && *known > p->max_output)))
		return zd_err(err, ZD_E_LIMIT, "decoded data of '%s' exceeds "
		              "the limit of %ju bytes", name,
		              (uintmax_t)p->max_output);
	return 0;
}

/*
 * The pieces of an indexed member whose index ends it, from the tail alone
 * (zd_zseg_index_at_tail).  Returns 1 when planned, 0 when the member has
 * to be walked (no index at its end, or one that disagrees with the frame:
 * the walk warns), -1 with err set.
 */
static int
plan_from_tail(struct dec *d, struct zd_zstd_frame_info *outer,
               struct zd_error *err)
{
	struct zd_error ierr = ZD_ERROR_INIT;
	struct zd_zstd_frame_info ixf;
	struct zd_zseg_index idx;
	int rc = zd_zseg_index_at_tail(d->in, outer, &ixf, &idx, err);

	if (rc != 1)
		return rc;
	rc = zd_zseg_pieces_from_index(d->in, outer, &idx, &d->pc, &d->n,
	                               &ierr);
	zd_zseg_index_free(&idx);
	if (rc == 0)
		return 1;
	if (ierr.code != ZD_E_FORMAT) {
		*err = ierr;
		return -1;
	}
	return 0;
}

/* The indexed frame outer, its pieces planned: on the workers, else
 * streamed with each exact piece's hash checked. */
static int
decode_planned(struct dec *d, const struct zd_zstd_frame_info *outer,
               struct zd_error *err)
{
	if (pieces_usable(d))
		return decode_indexed(d, outer, err);
	if (pieces_exact(d))
		return decode_stream_hashed(d, err);
	return decode_stream(d, err);
}

/* Several frames: each a piece, decoded on the workers when it pays. */
static int
decode_frames(struct dec *d, const struct zd_zseg_frames *fl,
              struct zd_error *err)
{
	d->pc = calloc(fl->nzstd, sizeof(*d->pc));
	if (d->pc == NULL)
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	d->frames = true;
	for (size_t i = 0; i < fl->n; i++) {
		const struct zd_zstd_frame_info *f = &fl->f[i];
		struct zd_zseg_piece *pc = &d->pc[d->n];

		if (f->skippable)
			continue;
		pc->off = f->off;
		pc->csize = f->size;
		pc->nseg = 1;
		pc->bound = f->hdr.has_content_size ? f->hdr.content_size :
		            f->decoded_max;
		d->n++;
	}
	return pieces_usable(d) ? decode_pieces(d, err) :
	       decode_stream(d, err);
}

int
zd_zstd_pdecode(const struct zd_region *in, const struct zd_dec_params *pp,
                struct zd_sink *out, struct zd_error *err)
{
	struct zd_zstd_frame_info outer;
	struct zd_zseg_frames fl;
	struct zd_dec_params q = *pp;
	const struct zd_dec_params *p = &q;
	struct dec d;
	size_t at = 0;
	uint64_t known = 0;
	int rc;

	q.max_output = zd_dec_max_output(pp, in->len);
	memset(&d, 0, sizeof(d));
	memset(&fl, 0, sizeof(fl));
	d.in = in;
	d.p = p;
	d.out = out;
	d.name = member_name(p);
	rc = plan_from_tail(&d, &outer, err);
	if (rc == 1) {
		rc = frame_limits(&outer, p, d.name, &known, err);
		if (rc == 0)
			rc = decode_planned(&d, &outer, err);
		goto out;
	}
	if (rc < 0 || zd_zseg_layout_list(in, d.name, &fl, err) < 0) {
		rc = -1;
		goto out;
	}
	for (size_t i = 0; i < fl.n; i++) {
		if (!fl.f[i].skippable &&
		    frame_limits(&fl.f[i], p, d.name, &known, err) < 0) {
			rc = -1;
			goto out;
		}
	}
	if (zd_zseg_layout_is_indexed(&fl, &at)) {
		rc = plan_indexed(&d, &fl.f[at], &fl.f[at + 1], err);
		if (rc == 0)
			rc = decode_planned(&d, &fl.f[at], err);
	} else if (fl.nzstd > 1) {
		rc = decode_frames(&d, &fl, err);
	} else {
		rc = decode_stream(&d, err);
	}
out:
	free(d.pc);
	zd_zseg_layout_free(&fl);
	return rc;
}
