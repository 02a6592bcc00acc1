/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zseg-write.c - zstd writers for the indexed, frames and pzstd layouts
 *
 * The input is pushed in (zd_zseg_writer_write) by the tar builder or a
 * decoder, so it is never spooled to a file.  The calling thread picks the
 * cuts as the bytes arrive (from the input bytes and the options only, so
 * the output never depends on the thread count), workers compress
 * segments independently, and the calling thread writes them in order.
 * Indexed layout (zdeb-format(5)): each segment is compressed
 * as its own frame without the last bytes its reset makes (zseg-reset.h:
 * 9 for the pair, after 17 identical bytes; up to 56 for one with
 * literals), the frame header is dropped, the last block's Last_Block bit
 * cleared and the reset appended.  When the input size is not known in advance, room for the
 * largest frame header is left and the header written at the end.
 */
#include "config.h"

#include <assert.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>
#include <zstd.h>

#include "lib/endian.h"
#include "lib/fdio.h"
#include "lib/sched.h"
#include "lib/zseg-cut.h"
#include "lib/zseg-index.h"
#include "lib/zseg-read.h"
#include "lib/zseg-reset.h"
#include "lib/zseg-write.h"
#include "lib/zstd-frame.h"

enum {
	INNER_WLOG_MAX = 27,	/* dpkg and zstd refuse more by default */
	PZSTD_WLOG_MAX = 23,	/* pzstd's own limit */
	PZSTD_HDR = 12,		/* skippable header before each frame */
};
#define MIB (UINT64_C(1) << 20)
#define SMALL_INPUT MIB		/* below: one segment */
#define TARGET_MAX (64 * MIB)	/* ultra levels, long mode */
#define READ_CHUNK ((size_t)1 << 20)
#define BLOCK ((size_t)1 << 20)	/* input is held in blocks of this */

/*
 * A block of input.  The cut policy decides a cut only after the input
 * that follows it (zseg-cut.h), so the bytes of a segment and of the
 * next ones are held in blocks until the segment is cut; then its slot
 * takes a reference to each block it lies in and its worker gathers the
 * bytes, which the calling thread would otherwise copy, along with those
 * after the cut.  Blocks are taken and given back by the calling thread
 * alone (refs: the pending input and each slot holding the block).
 */
struct inblock {
	struct inblock *next;	/* pending or spare */
	uint64_t off;		/* input offset of buf[0] */
	size_t len;
	unsigned refs;
	unsigned char buf[];	/* BLOCK bytes */
};

struct seg_slot {
	uint64_t start, end;
	bool last;
	struct inblock **blk;	/* the blocks [start, end) lies in */
	size_t nblk, blk_cap;
	unsigned char *in;	/* the segment's bytes, gathered */
	size_t in_cap;
	unsigned char *out;
	size_t out_cap, out_len;
	uint64_t hash;		/* XXH64 of [start, end) (indexed) */
	uint64_t inner_window;	/* indexed: the inner frame's */
	struct zd_zseg_reset reset;	/* indexed, but the last */
};

struct zd_zseg_writer {
	struct zd_comp_params p;
	int out_fd;
	uint64_t base;		/* out_fd offset of our first byte */
	bool size_known;
	uint64_t in_size;	/* if size_known */
	size_t hdr_room;	/* bytes left for the header at base */
	uint64_t target;	/* segment size the cuts aim at */
	unsigned wlog;		/* ZSTD_c_windowLog to set, 0: default */

	struct zd_sched *sched;
	unsigned window;
	struct seg_slot *slots;
	unsigned nworkers;
	ZSTD_CCtx **cctx;	/* one per worker, made on first use */
	bool failed;

	/* the calling thread: cutting */
	struct zd_zseg_cut *cut;
	uint64_t pos;		/* input bytes so far */
	uint64_t seg_start;	/* of the segment being scanned */
	struct inblock *pend;	/* input from the block holding seg_start */
	struct inblock *pend_tail;	/* to pos */
	struct inblock *spare;	/* blocks no one holds */
	uint64_t submitted;

	XXH64_state_t *total;	/* all input, in order, as it comes */

	/* the calling thread: consuming */
	struct zd_zseg_record *segs;	/* one per segment */
	bool *seg_lit;			/* it ends in a reset with literals */
	size_t nseg, seg_cap;
	uint64_t out_len;	/* bytes written after base + hdr_room */
	uint64_t inner_window;	/* the largest inner window */
	int in_fd;		/* the input file, if any (regrouping) */
};

/* zstd 1.5.4 default windowLog per level, for inputs of unknown size. */
static unsigned
level_wlog(int level)
{
	if (level <= 1)
		return 19;
	if (level == 2)
		return 20;
	if (level <= 8)
		return 21;
	if (level <= 16)
		return 22;
	if (level <= 19)
		return 23;
	if (level == 20)
		return 25;
	if (level == 21)
		return 26;
	return 27;
}

static int
eff_level(const struct zd_comp_params *p)
{
	return p->level == 0 ? ZSTD_CLEVEL_DEFAULT : p->level;
}

/*
 * The target is pzstd's frame size (4 windows).  Cuts land at or before
 * it wherever the input allows (zseg-cut.h), so there are at least as
 * many segments as pzstd has frames (but for a pzstd last frame under
 * target/16); see SEGMENT SIZE in zdeb(1).  Small inputs get one segment.
 */
uint64_t
zd_zseg_target_size(const struct zd_comp_params *p, uint64_t in_size)
{
	unsigned wl = level_wlog(eff_level(p));
	uint64_t t;

	if (p->segment_size != 0)
		return p->segment_size;
	if (p->layout == ZD_LAYOUT_PZSTD)
		return UINT64_C(1) << ((wl > PZSTD_WLOG_MAX ?
		                        PZSTD_WLOG_MAX : wl) + 2);
	if (in_size < SMALL_INPUT)
		return SMALL_INPUT;
	t = UINT64_C(1) << (wl + 2);
	if (t > TARGET_MAX || p->zstd_long)
		t = TARGET_MAX;
	return t;
}

static int
zerr(size_t rc, const char *what, struct zd_error *err)
{
	return zd_err(err, ZD_E_INTERNAL, "%s: %s", what,
	              ZSTD_getErrorName(rc));
}

static int
set_param(ZSTD_CCtx *c, ZSTD_cParameter param, int v, struct zd_error *err)
{
	size_t rc = ZSTD_CCtx_setParameter(c, param, v);

	if (ZSTD_isError(rc))
		return zd_err(err, ZD_E_USAGE, "cannot set zstd parameter: %s",
		              ZSTD_getErrorName(rc));
	return 0;
}

static ZSTD_CCtx *
get_cctx(struct zd_zseg_writer *w, unsigned worker, struct zd_error *err)
{
	ZSTD_CCtx *c = w->cctx[worker];
	bool frames = w->p.layout != ZD_LAYOUT_INDEXED;

	if (c != NULL)
		return c;
	c = ZSTD_createCCtx();
	if (c == NULL) {
		zd_err(err, ZD_E_NOMEM, "out of memory");
		return NULL;
	}
	if (set_param(c, ZSTD_c_compressionLevel, eff_level(&w->p), err) < 0 ||
	    set_param(c, ZSTD_c_checksumFlag, frames, err) < 0 ||
	    /* pzstd writes no content size */
	    set_param(c, ZSTD_c_contentSizeFlag,
	              w->p.layout != ZD_LAYOUT_PZSTD, err) < 0 ||
	    (w->p.zstd_long &&
	     set_param(c, ZSTD_c_enableLongDistanceMatching, 1, err) < 0) ||
	    (w->wlog != 0 &&
	     set_param(c, ZSTD_c_windowLog, (int)w->wlog, err) < 0)) {
		ZSTD_freeCCtx(c);
		return NULL;
	}
	w->cctx[worker] = c;
	return c;
}

/* *buf holds at least need bytes: a new buffer of exactly need bytes
 * unless it already does (its bytes are not kept). */
static int
grow(unsigned char **buf, size_t *cap, size_t need, struct zd_error *err)
{
	if (*cap >= need && *buf != NULL)
		return 0;
	free(*buf);
	*cap = 0;
	*buf = malloc(need > 0 ? need : 1);
	if (*buf == NULL)
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	*cap = need;
	return 0;
}

/*
 * Turns the inner frame in s->out into segment blocks: drops the header,
 * clears the last block's Last_Block bit and appends the segment's reset
 * unless it is the last one.
 */
static int
splice_inner(struct seg_slot *s, struct zd_error *err)
{
	struct zd_zstd_fhdr h;
	size_t pos, last_hdr = 0;
	uint64_t bmax;

	if (zd_zstd_fhdr_parse(s->out, s->out_len, &h, err) != 0 ||
	    h.checksum || h.dict_id != 0)
		return zd_err(err, ZD_E_INTERNAL, "unexpected inner frame");
	s->inner_window = h.window_size;
	bmax = zd_zstd_block_max(&h);
	memmove(s->out, s->out + h.header_size, s->out_len - h.header_size);
	s->out_len -= h.header_size;
	for (pos = 0;;) {
		struct zd_zstd_block b;

		if (s->out_len - pos < 3 ||
		    zd_zstd_block_parse(s->out + pos, bmax, &b, err) < 0 ||
		    s->out_len - pos - 3 < b.csize)
			return zd_err(err, ZD_E_INTERNAL, "bad inner block");
		last_hdr = pos;
		pos += 3 + (size_t)b.csize;
		if (b.last)
			break;
	}
	if (pos != s->out_len)
		return zd_err(err, ZD_E_INTERNAL, "inner frame trailing bytes");
	if (!s->last) {
		s->out[last_hdr] &= 0xfe;
		s->out_len += zd_zseg_reset_encode(s->in + (s->end - s->start),
		                                   &s->reset,
		                                   s->out + s->out_len);
	}
	return 0;
}

/* Worker: the slot's bytes from its blocks into one buffer. */
static int
gather(struct seg_slot *s, struct zd_error *err)
{
	size_t len = (size_t)(s->end - s->start), at = 0;

	if (grow(&s->in, &s->in_cap, len, err) < 0)
		return -1;
	for (size_t k = 0; k < s->nblk; k++) {
		const struct inblock *b = s->blk[k];
		uint64_t from = s->start > b->off ? s->start : b->off;
		uint64_t to = s->end < b->off + b->len ? s->end :
		              b->off + b->len;

		memcpy(s->in + at, b->buf + (from - b->off),
		       (size_t)(to - from));
		at += (size_t)(to - from);
	}
	assert(at == len);
	return 0;
}

static int
w_run(void *ctx, unsigned worker, uint64_t i, unsigned slot,
      struct zd_error *err)
{
	struct zd_zseg_writer *w = ctx;
	struct seg_slot *s = &w->slots[slot];
	size_t len = (size_t)(s->end - s->start), inner = len, rc;
	ZSTD_CCtx *c = get_cctx(w, worker, err);

	(void)i;
	if (c == NULL || gather(s, err) < 0)
		return -1;
	if (w->p.layout == ZD_LAYOUT_INDEXED && !s->last) {
		/* the cut policy placed it where one fits (zseg-cut.h) */
		if (!zd_zseg_reset_find(s->in + len, len, &s->reset))
			return zd_err(err, ZD_E_INTERNAL, "no reset fits the "
			              "cut at %ju", (uintmax_t)s->end);
		inner = len - s->reset.keep;
	}
	if (grow(&s->out, &s->out_cap, ZSTD_compressBound(inner) +
	         PZSTD_HDR + ZD_ZSEG_RESET_MAX, err) < 0)
		return -1;
	/* pzstd: not before the first frame, which stock dpkg would read
	 * as the whole, empty, member (see zseg-write.h) */
	if (w->p.layout == ZD_LAYOUT_PZSTD && s->start > 0) {
		rc = ZSTD_compress2(c, s->out + PZSTD_HDR,
		                    s->out_cap - PZSTD_HDR, s->in, inner);
		if (ZSTD_isError(rc))
			return zerr(rc, "zstd compression failed", err);
		if (rc > UINT32_MAX)
			return zd_err(err, ZD_E_LIMIT, "pzstd frame too large");
		zd_put_le32(s->out, ZD_ZSTD_SKIP_MAGIC);
		zd_put_le32(s->out + 4, 4);
		zd_put_le32(s->out + 8, (uint32_t)rc);
		s->out_len = rc + PZSTD_HDR;
		return 0;
	}
	rc = ZSTD_compress2(c, s->out, s->out_cap, s->in, inner);
	if (ZSTD_isError(rc))
		return zerr(rc, "zstd compression failed", err);
	s->out_len = rc;
	if (w->p.layout != ZD_LAYOUT_INDEXED)
		return 0;
	s->hash = XXH64(s->in, len, 0);
	return splice_inner(s, err);
}

/* Calling thread: one reference less; a block no one holds is spare. */
static void
unref(struct zd_zseg_writer *w, struct inblock *b)
{
	assert(b->refs > 0);
	if (--b->refs == 0) {
		b->next = w->spare;
		w->spare = b;
	}
}

static void
release_blocks(struct zd_zseg_writer *w, struct seg_slot *s)
{
	for (size_t k = 0; k < s->nblk; k++)
		unref(w, s->blk[k]);
	s->nblk = 0;
}

static int
w_consume(void *ctx, uint64_t i, unsigned slot, struct zd_error *err)
{
	struct zd_zseg_writer *w = ctx;
	struct seg_slot *s = &w->slots[slot];
	size_t len = (size_t)(s->end - s->start);

	(void)i;
	release_blocks(w, s);
	if (zd_write_all(w->out_fd, s->out, s->out_len, err) < 0)
		return -1;
	w->out_len += s->out_len;
	/* big slots are not kept for later, smaller segments */
	if (s->out_cap > 64 * MIB) {
		free(s->out);
		s->out = NULL;
		s->out_cap = 0;
	}
	if (w->p.layout != ZD_LAYOUT_INDEXED)
		return 0;
	if (s->inner_window > w->inner_window)
		w->inner_window = s->inner_window;
	if (w->nseg == w->seg_cap) {
		size_t cap = w->seg_cap ? 2 * w->seg_cap : 64;
		struct zd_zseg_record *n = reallocarray(w->segs, cap,
		                                           sizeof(*n));
		bool *lit;

		if (n == NULL)
			return zd_err(err, ZD_E_NOMEM, "out of memory");
		w->segs = n;
		lit = reallocarray(w->seg_lit, cap, sizeof(*lit));
		if (lit == NULL)
			return zd_err(err, ZD_E_NOMEM, "out of memory");
		w->seg_lit = lit;
		w->seg_cap = cap;
	}
	w->seg_lit[w->nseg] = !s->last && !s->reset.pair;
	w->segs[w->nseg].csize = s->out_len;
	w->segs[w->nseg].usize = len;
	w->segs[w->nseg].nseg = 1;
	w->segs[w->nseg].hash = s->hash;
	w->nseg++;
	return 0;
}

/* --- cutting, on the calling thread ------------------------------------ */

/* Appends the input's next len bytes to the pending blocks. */
static int
hold(struct zd_zseg_writer *w, const unsigned char *buf, size_t len,
     struct zd_error *err)
{
	while (len > 0) {
		struct inblock *b = w->pend_tail;
		size_t n;

		if (b == NULL || b->len == BLOCK) {
			b = w->spare;
			if (b != NULL)
				w->spare = b->next;
			else if ((b = malloc(sizeof(*b) + BLOCK)) == NULL)
				return zd_err(err, ZD_E_NOMEM, "out of memory");
			b->next = NULL;
			b->off = w->pos;
			b->len = 0;
			b->refs = 1;
			if (w->pend_tail != NULL)
				w->pend_tail->next = b;
			else
				w->pend = b;
			w->pend_tail = b;
		}
		n = BLOCK - b->len < len ? BLOCK - b->len : len;
		memcpy(b->buf + b->len, buf, n);
		b->len += n;
		w->pos += n;
		buf += n;
		len -= n;
	}
	return 0;
}

/* Queues [seg_start, end) as a segment: its slot holds the blocks it
 * lies in; the blocks before end are no longer pending (but for the one
 * being filled). */
static int
submit(struct zd_zseg_writer *w, uint64_t end, bool last,
       struct zd_error *err)
{
	struct seg_slot *s;
	unsigned slot;

	if (zd_sched_next_slot(w->sched, &slot, err) < 0)
		return -1;
	s = &w->slots[slot];
	s->start = w->seg_start;
	s->end = end;
	s->last = last;
	s->nblk = 0;
	for (struct inblock *b = w->pend; b != NULL && b->off < end;
	     b = b->next) {
		if (s->nblk == s->blk_cap) {
			size_t cap = s->blk_cap ? 2 * s->blk_cap : 16;
			struct inblock **n = reallocarray(s->blk, cap,
			                                   sizeof(*n));

			if (n == NULL)
				return zd_err(err, ZD_E_NOMEM, "out of memory");
			s->blk = n;
			s->blk_cap = cap;
		}
		s->blk[s->nblk++] = b;
		b->refs++;
	}
	while (w->pend != w->pend_tail &&
	       w->pend->off + w->pend->len <= end) {
		struct inblock *b = w->pend;

		w->pend = b->next;
		unref(w, b);
	}
	w->seg_start = end;
	w->submitted++;
	return zd_sched_submit(w->sched, err);
}

int
zd_zseg_writer_write(void *ctx, const void *data, size_t len,
                     struct zd_error *err)
{
	struct zd_zseg_writer *w = ctx;
	const unsigned char *buf = data;

	if (w->failed)
		return zd_err(err, ZD_E_INTERNAL, "writer failed before");
	/* the frame checksum, while the bytes are in the cache */
	if (w->p.layout == ZD_LAYOUT_INDEXED)
		XXH64_update(w->total, buf, len);
	while (len > 0) {
		uint64_t at;
		size_t n;
		bool got = zd_zseg_cut_feed(w->cut, buf, len, &n, &at);

		if (hold(w, buf, n, err) < 0)
			goto fail;
		buf += n;
		len -= n;
		if (got && submit(w, at, false, err) < 0)
			goto fail;
	}
	return 0;
fail:
	w->failed = true;
	return -1;
}

/* --- the end ------------------------------------------------------------ */

/* XXH64 of each group of records, from the input file when there is one:
 * its bytes in order, a group at a time. */
struct regroup {
	const struct zd_zseg_record *rec;
	size_t n, k;
	uint64_t left;
	XXH64_state_t *st;
	uint64_t *hash;
};

static int
regroup_write(void *ctx, const void *buf, size_t len, struct zd_error *err)
{
	struct regroup *g = ctx;
	const unsigned char *b = buf;

	while (len > 0) {
		size_t n;

		if (g->k >= g->n)
			return zd_err(err, ZD_E_INTERNAL, "index regroup");
		n = g->left < len ? (size_t)g->left : len;
		XXH64_update(g->st, b, n);
		b += n;
		len -= n;
		g->left -= n;
		if (g->left == 0) {
			g->hash[g->k++] = XXH64_digest(g->st);
			XXH64_reset(g->st, 0);
			if (g->k < g->n)
				g->left = g->rec[g->k].usize;
		}
	}
	return 0;
}

static int
hash_from_input(struct zd_zseg_writer *w, struct zd_zseg_record *rec,
                size_t n, XXH64_state_t *st, struct zd_error *err)
{
	struct zd_region in = { w->in_fd, 0, w->pos };
	struct regroup g;
	struct zd_sink sink = { regroup_write, &g, NULL, NULL };

	memset(&g, 0, sizeof(g));
	g.rec = rec;
	g.n = n;
	g.left = n > 0 ? rec[0].usize : 0;
	g.hash = calloc(n, sizeof(*g.hash));
	g.st = st;
	if (g.hash == NULL)
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	while (g.k < g.n && g.left == 0) {	/* empty groups */
		g.hash[g.k++] = XXH64_digest(g.st);
		if (g.k < g.n)
			g.left = rec[g.k].usize;
	}
	if (zd_copy_region(&in, &sink, err) < 0) {
		free(g.hash);
		return -1;
	}
	if (g.k != n) {
		free(g.hash);
		return zd_err(err, ZD_E_INTERNAL, "index regroup: %zu of %zu",
		              g.k, n);
	}
	for (size_t k = 0; k < n; k++)
		rec[k].hash = g.hash[k];
	free(g.hash);
	return 0;
}

/* Decoded bytes of one group, hashed as they come (zd_zseg_out). */
struct group_sink {
	unsigned char *buf;
	size_t cap;
	XXH64_state_t *st;
	uint64_t len;
};

static unsigned char *
group_get(void *ctx, size_t *cap, struct zd_error *err)
{
	struct group_sink *g = ctx;

	(void)err;
	*cap = g->cap;
	return g->buf;
}

static void
group_put(void *ctx, size_t len)
{
	struct group_sink *g = ctx;

	XXH64_update(g->st, g->buf, len);
	g->len += len;
}

/* Without the input: each group decoded from the frame just written, as
 * a reader decodes it (zseg-read.h), and hashed. */
static int
hash_from_frame(struct zd_zseg_writer *w, struct zd_zseg_record *rec,
                size_t n, unsigned wlog, size_t hlen, uint64_t frame_off,
                uint64_t frame_len, XXH64_state_t *st, struct zd_error *err)
{
	const struct zd_region in = { w->out_fd, frame_off, frame_len };
	struct group_sink g = { NULL, READ_CHUNK, st, 0 };
	const struct zd_zseg_out out = { group_get, group_put, &g, NULL, NULL,
	                                 0 };
	ZSTD_DCtx *dctx = ZSTD_createDCtx();
	unsigned char *ibuf = NULL;
	uint64_t off = hlen;
	int rc = -1;

	g.buf = malloc(g.cap);
	if (dctx == NULL || g.buf == NULL) {
		zd_err(err, ZD_E_NOMEM, "out of memory");
		goto out;
	}
	if (ZSTD_isError(ZSTD_DCtx_setParameter(dctx, ZSTD_d_windowLogMax,
	                                        (int)wlog))) {
		zd_err(err, ZD_E_INTERNAL, "cannot set the window");
		goto out;
	}
	for (size_t k = 0; k < n; k++) {
		struct zd_zseg_piece pc;

		memset(&pc, 0, sizeof(pc));
		pc.off = off;
		pc.csize = rec[k].csize;
		pc.bound = rec[k].usize;
		pc.nseg = rec[k].nseg;
		pc.segment = true;
		pc.reset_tail = k + 1 < n;
		XXH64_reset(st, 0);
		g.len = 0;
		if (zd_zseg_piece_stream(&in, wlog, &pc, dctx, &ibuf, &out,
		                         err) < 0)
			goto out;
		if (g.len != rec[k].usize) {
			zd_err(err, ZD_E_INTERNAL, "index regroup: group %zu",
			       k);
			goto out;
		}
		rec[k].hash = XXH64_digest(st);
		off += rec[k].csize;
	}
	rc = 0;
out:
	ZSTD_freeDCtx(dctx);
	free(ibuf);
	free(g.buf);
	return rc;
}

/* XXH64 of each group of records, which no one hashed as a whole. */
static int
hash_groups(struct zd_zseg_writer *w, struct zd_zseg_record *rec, size_t n,
            unsigned wlog, size_t hlen, uint64_t frame_off,
            uint64_t frame_len, struct zd_error *err)
{
	XXH64_state_t *st = XXH64_createState();
	int rc;

	if (st == NULL)
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	XXH64_reset(st, 0);
	rc = w->in_fd >= 0 ? hash_from_input(w, rec, n, st, err) :
	     hash_from_frame(w, rec, n, wlog, hlen, frame_off, frame_len, st,
	                     err);
	XXH64_freeState(st);
	return rc;
}

/*
 * Builds the index, grouping g consecutive segments per record with the
 * smallest g that fits in ZD_ZSEG_INDEX_MAX, and writes it.
 */
static int
write_index(struct zd_zseg_writer *w, unsigned outer_wlog, size_t hlen,
            uint64_t frame_off, uint64_t frame_len, struct zd_error *err)
{
	unsigned char buf[ZD_ZSEG_INDEX_MAX];
	struct zd_zseg_index idx;
	struct zd_zseg_record *rec = NULL;
	size_t g, n = 0, len = 0;
	int rc = -1;

	idx.window_log = outer_wlog;
	idx.header_size = (unsigned)hlen;

	idx.content_size = w->pos;
	idx.segments = w->nseg;
	rec = calloc(w->nseg > 0 ? w->nseg : 1, sizeof(*rec));
	if (rec == NULL)
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	for (g = 1;; g++) {
		n = 0;
		idx.version = 1;
		for (size_t k = 0; k < w->nseg; k += g, n++) {
			size_t e = k + g < w->nseg ? k + g : w->nseg;

			memset(&rec[n], 0, sizeof(rec[n]));
			for (size_t j = k; j < e; j++) {
				rec[n].csize += w->segs[j].csize;
				rec[n].usize += w->segs[j].usize;
			}
			rec[n].nseg = e - k;
			rec[n].hash = w->segs[k].hash;
			/* a record ends in its last segment's reset: an
			 * index with the pair alone keeps version 1, which
			 * a zdeb without resets with literals reads too */
			if (w->seg_lit[e - 1])
				idx.version = 2;
		}
		idx.nrec = n;
		idx.rec = rec;
		len = zd_zseg_index_encode(&idx, buf, sizeof(buf));
		if (len > 0)
			break;
	}
	if (g > 1) {
		if (hash_groups(w, rec, n, outer_wlog, hlen, frame_off,
		                frame_len, err) < 0)
			goto out;
		len = zd_zseg_index_encode(&idx, buf, sizeof(buf));
		assert(len > 0);
	}
	rc = zd_write_all(w->out_fd, buf, len, err);
	if (rc == 0)
		w->out_len += len;
out:
	free(rec);
	return rc;
}

/* Bytes of the member so far, from its first. */
static uint64_t
written(const struct zd_zseg_writer *w, size_t hlen)
{
	return (w->hdr_room > 0 ? hlen : 0) + w->out_len;
}

/*
 * The outer frame header, now that the size is known, in the room left for
 * it at base; the member starts at *start = base.  The room fits a content
 * size up to 4 GiB; a larger one needs a longer header, so the bytes after
 * the room move up first.
 */
static int
write_header(struct zd_zseg_writer *w, unsigned outer_wlog, size_t *hlen,
             uint64_t *start, struct zd_error *err)
{
	unsigned char hdr[ZD_ZSTD_FHDR_MAX];
	uint64_t end;

	*hlen = zd_zstd_fhdr_write(hdr, outer_wlog, true, w->pos, true);
	*start = w->base;
	if (w->hdr_room == 0)
		return 0;	/* written first */
	if (*hlen < w->hdr_room)
		return zd_err(err, ZD_E_INTERNAL, "frame header shorter than "
		              "its room");
	if (*hlen > w->hdr_room) {
		end = w->base + *hlen + w->out_len;
		if (zd_fd_move(w->out_fd, w->base + w->hdr_room,
		               w->base + *hlen, w->out_len, err) < 0)
			return -1;
		if (lseek(w->out_fd, (off_t)end, SEEK_SET) < 0)
			return zd_err_errno(err, ZD_E_IO, "cannot seek");
		w->hdr_room = *hlen;
	}
	if (zd_pwrite_all(w->out_fd, hdr, *hlen, *start, err) < 0) {
		zd_err_prefix(err, "frame header");
		return -1;
	}
	return 0;
}

static unsigned
outer_window_log(const struct zd_zseg_writer *w, uint64_t in_size)
{
	unsigned wl = zd_log2_ceil(in_size);

	if (wl > w->wlog)
		wl = w->wlog;
	return wl < ZD_ZSTD_WINLOG_MIN ? ZD_ZSTD_WINLOG_MIN : wl;
}

int
zd_zseg_writer_finish(struct zd_zseg_writer *w, uint64_t *start,
                      uint64_t *size, struct zd_error *err)
{
	unsigned char sum[4];
	unsigned outer_wlog = outer_window_log(w, w->pos);
	size_t hlen = 0;
	uint64_t first = w->base;
	int rc;

	if (w->failed)
		return zd_err(err, ZD_E_INTERNAL, "writer failed before");
	if (w->size_known && w->pos != w->in_size)
		return zd_err(err, ZD_E_IO, "input changed while being "
		              "compressed: %ju bytes, %ju expected",
		              (uintmax_t)w->pos, (uintmax_t)w->in_size);
	for (uint64_t at; zd_zseg_cut_end(w->cut, &at);)
		if (submit(w, at, false, err) < 0)
			goto fail;
	if ((w->pos > w->seg_start || w->submitted == 0) &&
	    submit(w, w->pos, true, err) < 0)
		goto fail;
	rc = zd_sched_finish(w->sched, true, err);
	w->sched = NULL;
	if (rc < 0)
		goto fail;
	if (w->p.layout == ZD_LAYOUT_INDEXED) {
		if (w->inner_window > UINT64_C(1) << outer_wlog) {
			zd_err(err, ZD_E_INTERNAL, "inner window %ju exceeds "
			       "the outer window", (uintmax_t)w->inner_window);
			goto fail;
		}
		if (write_header(w, outer_wlog, &hlen, &first, err) < 0)
			goto fail;
		zd_put_le32(sum, (uint32_t)XXH64_digest(w->total));
		if (zd_write_all(w->out_fd, sum, 4, err) < 0)
			goto fail;
		w->out_len += 4;
		if (write_index(w, outer_wlog, hlen, first,
		                written(w, hlen), err) < 0)
			goto fail;
	}
	*start = first;
	*size = written(w, hlen);
	return 0;
fail:
	w->failed = true;
	return -1;
}

uint64_t
zd_zseg_writer_frames(const struct zd_zseg_writer *w)
{
	return w->p.layout == ZD_LAYOUT_INDEXED ? 1 : w->submitted;
}

/* the writer submits its jobs: no produce callback */
static const struct zd_sched_ops writer_ops = {
	NULL, w_run, w_consume, false, NULL,
};

/* Frees every block: those slots hold, pending, spare. */
static void
free_blocks(struct zd_zseg_writer *w)
{
	struct inblock *b, *n;

	if (w->slots != NULL)
		for (unsigned i = 0; i < w->window; i++)
			release_blocks(w, &w->slots[i]);
	for (b = w->pend; b != NULL; b = n) {
		n = b->next;
		unref(w, b);
	}
	w->pend = w->pend_tail = NULL;
	for (b = w->spare; b != NULL; b = n) {
		n = b->next;
		free(b);
	}
	w->spare = NULL;
}

void
zd_zseg_writer_free(struct zd_zseg_writer *w)
{
	if (w == NULL)
		return;
	if (w->sched != NULL)
		zd_sched_finish(w->sched, false, NULL);
	free_blocks(w);
	if (w->slots != NULL) {
		for (unsigned i = 0; i < w->window; i++) {
			free(w->slots[i].blk);
			free(w->slots[i].in);
			free(w->slots[i].out);
		}
	}
	if (w->cctx != NULL) {
		for (unsigned i = 0; i < w->nworkers; i++)
			ZSTD_freeCCtx(w->cctx[i]);
	}
	free(w->slots);
	free(w->cctx);
	zd_zseg_cut_free(w->cut);
	free(w->segs);
	free(w->seg_lit);
	if (w->total != NULL)
		XXH64_freeState(w->total);
	free(w);
}

/* Window logs: inner (what the segments are compressed with). */
static void
set_window(struct zd_zseg_writer *w)
{
	w->wlog = level_wlog(eff_level(&w->p));
	if (w->p.zstd_long)
		w->wlog = INNER_WLOG_MAX;
	if (w->wlog > INNER_WLOG_MAX)
		w->wlog = INNER_WLOG_MAX;
	if (w->p.layout == ZD_LAYOUT_PZSTD && w->wlog > PZSTD_WLOG_MAX)
		w->wlog = PZSTD_WLOG_MAX;
}

/* Where the frame starts; room for its header, or the header itself. */
static int
start_output(struct zd_zseg_writer *w, struct zd_error *err)
{
	unsigned char hdr[ZD_ZSTD_FHDR_MAX];
	size_t hlen;
	off_t here = lseek(w->out_fd, 0, SEEK_CUR);

	if (here < 0 && !w->size_known)
		return zd_err_errno(err, ZD_E_IO, "output not seekable");
	w->base = here >= 0 ? (uint64_t)here : 0;	/* a pipe: 0 */
	if (w->p.layout != ZD_LAYOUT_INDEXED)
		return 0;
	if (w->size_known) {
		hlen = zd_zstd_fhdr_write(hdr, outer_window_log(w, w->in_size),
		                          true, w->in_size, true);
		if (zd_write_all(w->out_fd, hdr, hlen, err) < 0)
			return -1;
		w->out_len = hlen;
		return 0;
	}
	/* room for the header of a content size up to 4 GiB (most are):
	 * the member starts at base, nothing before it */
	w->hdr_room = zd_zstd_fhdr_write(hdr, ZD_ZSTD_WINLOG_MIN, true, 0,
	                                 true);
	memset(hdr, 0, sizeof(hdr));
	return zd_write_all(w->out_fd, hdr, w->hdr_room, err);
}

struct zd_zseg_writer *
zd_zseg_writer_new(const struct zd_comp_params *p, int out_fd,
                   int64_t in_size, struct zd_error *err)
{
	struct zd_zseg_writer *w;
	struct zd_zseg_cut_params cp;
	unsigned threads = p->threads > 0 ? p->threads : 1;
	uint64_t nseg;

	if (p->layout != ZD_LAYOUT_INDEXED && p->layout != ZD_LAYOUT_FRAMES &&
	    p->layout != ZD_LAYOUT_PZSTD) {
		zd_err(err, ZD_E_INTERNAL, "bad zstd layout");
		return NULL;
	}
	w = calloc(1, sizeof(*w));
	if (w == NULL) {
		zd_err(err, ZD_E_NOMEM, "out of memory");
		return NULL;
	}
	w->p = *p;
	w->out_fd = out_fd;
	w->in_fd = -1;
	w->size_known = in_size >= 0;
	w->in_size = in_size >= 0 ? (uint64_t)in_size : 0;
	w->target = zd_zseg_target_size(p, w->size_known ? w->in_size :
	                                 UINT64_MAX);
	if (w->target == 0)
		w->target = 1;
	set_window(w);
	cp.layout = p->layout;
	cp.target = w->target;
	cp.tail = p->layout == ZD_LAYOUT_PZSTD ? 1 : w->target / 16;
	if (cp.tail == 0)
		cp.tail = 1;
	cp.window_log = w->wlog;
	/* the size known, the indexed cuts balance the segments over it */
	cp.total = p->layout == ZD_LAYOUT_INDEXED && w->size_known ?
	           w->in_size : 0;
	w->cut = zd_zseg_cut_new(&cp, err);
	if (w->cut == NULL)
		goto fail;
	/* more workers than segments would only cost memory */
	nseg = zd_zseg_cut_count(cp.total, cp.target);
	if (nseg > 0 && threads > nseg)
		threads = (unsigned)nseg;
	else if (nseg == 0 && w->size_known &&
	         threads > w->in_size / w->target + 1)
		threads = (unsigned)(w->in_size / w->target + 1);
	w->window = threads > 1 ? 2 * threads : 1;
	w->nworkers = threads;
	w->slots = calloc(w->window, sizeof(*w->slots));
	w->cctx = calloc(w->nworkers, sizeof(*w->cctx));
	w->total = XXH64_createState();
	if (w->slots == NULL || w->cctx == NULL || w->total == NULL) {
		zd_err(err, ZD_E_NOMEM, "out of memory");
		goto fail;
	}
	XXH64_reset(w->total, 0);
	if (start_output(w, err) < 0)
		goto fail;
	w->sched = zd_sched_start(&writer_ops, w, threads, w->window, err);
	if (w->sched == NULL)
		goto fail;
	return w;
fail:
	zd_zseg_writer_free(w);
	return NULL;
}

int
zd_zseg_compress(const struct zd_comp_params *p, int in_fd, uint64_t in_size,
                 int out_fd, struct zd_error *err)
{
	struct zd_zseg_writer *w;
	unsigned char *buf;
	uint64_t off = 0, start, size;
	int rc = -1;

	if (in_size > INT64_MAX)
		return zd_err(err, ZD_E_LIMIT, "input too large");
	buf = malloc(READ_CHUNK);
	if (buf == NULL)
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	w = zd_zseg_writer_new(p, out_fd, (int64_t)in_size, err);
	if (w == NULL)
		goto out;
	w->in_fd = in_fd;
	while (off < in_size) {
		size_t n = in_size - off < READ_CHUNK ?
		           (size_t)(in_size - off) : READ_CHUNK;

		if (zd_pread_all(in_fd, buf, n, off, err) < 0 ||
		    zd_zseg_writer_write(w, buf, n, err) < 0)
			goto out;
		off += n;
	}
	rc = zd_zseg_writer_finish(w, &start, &size, err);
out:
	zd_zseg_writer_free(w);
	free(buf);
	return rc;
}
