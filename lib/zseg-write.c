/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zseg-write.c - zstd writers for the indexed, frames and pzstd layouts
 *
 * The calling thread picks the cuts (from the input bytes and the options
 * only, so the output never depends on the thread count), workers
 * compress segments independently, and the calling thread writes them in
 * order.  Indexed layout (doc/zstd-indexed-layout.md): each segment is
 * compressed as its own frame without its last 9 bytes, the frame header is
 * dropped, the last block's Last_Block bit cleared and the 20 reset bytes
 * appended, which regenerate those 9 bytes; cuts are only placed after 17
 * identical bytes.
 */
#include "config.h"

#include <assert.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>
#include <zstd.h>

#include "lib/fdio.h"
#include "lib/sched.h"
#include "lib/zseg-index.h"
#include "lib/zseg-write.h"
#include "lib/zstd-frame.h"

enum {
	RUN = 17,		/* identical bytes needed before a cut */
	TAIL_KEEP = 9,		/* bytes the reset pair regenerates */
	INNER_WLOG_MAX = 27,	/* dpkg and zstd refuse more by default */
	PZSTD_WLOG_MAX = 23,	/* pzstd's own limit */
	PZSTD_HDR = 12,		/* skippable header before each frame */
};
#define MIB (UINT64_C(1) << 20)
#define SMALL_INPUT MIB		/* below: one segment */
#define TARGET_MAX (64 * MIB)	/* ultra levels, long mode */
#define SCAN_CHUNK ((size_t)1 << 20)

struct seg_slot {
	uint64_t start, end;
	bool last;
	unsigned char *in;
	size_t in_cap;
	unsigned char *out;
	size_t out_cap, out_len;
	uint64_t hash;		/* XXH64 of [start, end) (indexed) */
};

struct writer {
	const struct zd_comp_params *p;
	int in_fd, out_fd;
	uint64_t in_size;
	uint64_t target;
	unsigned wlog;		/* ZSTD_c_windowLog to set, 0: default */
	unsigned outer_wlog;	/* indexed: the outer Window_Descriptor */

	unsigned window;
	struct seg_slot *slots;
	unsigned nworkers;
	ZSTD_CCtx **cctx;	/* one per worker, made on first use */

	uint64_t next_start;	/* produce: next segment start */
	unsigned char *scan;	/* produce: cut scan buffer */

	XXH64_state_t *total;	/* consume: all input, in order */
	struct zd_zseg_record *segs;	/* consume: one per segment */
	size_t nseg, seg_cap;
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
 * The target is 7/8 of pzstd's frame size (4 windows), measured to give at
 * least as many segments as pzstd at less size overhead (the cut lands a
 * little after the target); see the "Costs" section of
 * doc/zstd-indexed-layout.md.  Small inputs get one segment.
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
	t = (UINT64_C(1) << (wl + 2)) / 8 * 7;
	if (t > TARGET_MAX || p->zstd_long)
		t = TARGET_MAX;
	return t;
}

/*
 * Indexed cut: the first p >= start + max(target, RUN) with in[p-RUN, p)
 * identical, leaving at least target/4 bytes after it; else the end.
 */
static int
find_cut_indexed(struct writer *w, uint64_t start, uint64_t *cut,
                 struct zd_error *err)
{
	uint64_t min = w->target > RUN ? w->target : RUN;
	uint64_t tail = w->target / 4, lo, x, run = 0;
	unsigned char prev = 0;

	*cut = w->in_size;
	if (min >= w->in_size - start)
		return 0;
	lo = start + min;
	if (w->in_size - lo < tail)
		return 0;
	x = lo - RUN;
	/* small reads first: with small targets the cut is usually near */
	for (size_t chunk = 4096; x < w->in_size;
	     chunk = chunk < SCAN_CHUNK ? 2 * chunk : SCAN_CHUNK) {
		size_t n = w->in_size - x < chunk ? (size_t)(w->in_size - x) :
		           chunk;

		if (zd_pread_all(w->in_fd, w->scan, n, x, err) < 0)
			return -1;
		for (size_t i = 0; i < n; i++, x++) {
			unsigned char c = w->scan[i];

			run = (run > 0 && c == prev) ? run + 1 : 1;
			prev = c;
			if (run >= RUN && x + 1 >= lo) {
				if (w->in_size - (x + 1) < tail ||
				    x + 1 == w->in_size)
					return 0;
				*cut = x + 1;
				return 0;
			}
		}
	}
	return 0;
}

static int
w_produce(void *ctx, uint64_t i, unsigned slot, struct zd_error *err)
{
	struct writer *w = ctx;
	struct seg_slot *s = &w->slots[slot];
	uint64_t start = w->next_start, end;

	if (start >= w->in_size && !(i == 0 && w->in_size == 0))
		return 0;
	if (w->p->layout == ZD_LAYOUT_INDEXED) {
		if (find_cut_indexed(w, start, &end, err) < 0)
			return -1;
	} else {
		end = w->in_size - start > w->target ? start + w->target :
		      w->in_size;
		if (w->p->layout == ZD_LAYOUT_FRAMES &&
		    w->in_size - end < w->target / 4)
			end = w->in_size;
	}
	s->start = start;
	s->end = end;
	s->last = end == w->in_size;
	w->next_start = end;
	return 1;
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
get_cctx(struct writer *w, unsigned worker, struct zd_error *err)
{
	ZSTD_CCtx *c = w->cctx[worker];
	bool frames = w->p->layout != ZD_LAYOUT_INDEXED;

	if (c != NULL)
		return c;
	c = ZSTD_createCCtx();
	if (c == NULL) {
		zd_err(err, ZD_E_NOMEM, "out of memory");
		return NULL;
	}
	if (set_param(c, ZSTD_c_compressionLevel, eff_level(w->p), err) < 0 ||
	    set_param(c, ZSTD_c_checksumFlag, frames, err) < 0 ||
	    /* pzstd writes no content size: same bytes as pzstd -p1 */
	    set_param(c, ZSTD_c_contentSizeFlag,
	              w->p->layout != ZD_LAYOUT_PZSTD, err) < 0 ||
	    (w->p->zstd_long &&
	     set_param(c, ZSTD_c_enableLongDistanceMatching, 1, err) < 0) ||
	    (w->wlog != 0 &&
	     set_param(c, ZSTD_c_windowLog, (int)w->wlog, err) < 0)) {
		ZSTD_freeCCtx(c);
		return NULL;
	}
	w->cctx[worker] = c;
	return c;
}

static int
grow(unsigned char **buf, size_t *cap, size_t need, struct zd_error *err)
{
	unsigned char *b;

	if (*cap >= need && *buf != NULL)
		return 0;
	free(*buf);
	*buf = NULL;
	*cap = 0;
	b = malloc(need > 0 ? need : 1);
	if (b == NULL)
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	*buf = b;
	*cap = need;
	return 0;
}

/*
 * Turns the inner frame in s->out into segment blocks: drops the header,
 * clears the last block's Last_Block bit and appends the reset pair unless
 * the segment is the last one.
 */
static int
splice_inner(struct writer *w, struct seg_slot *s, struct zd_error *err)
{
	struct zd_zstd_fhdr h;
	size_t pos, last_hdr = 0;
	uint64_t bmax;

	if (zd_zstd_fhdr_parse(s->out, s->out_len, &h, err) != 0 ||
	    h.checksum || h.dict_id != 0)
		return zd_err(err, ZD_E_INTERNAL, "unexpected inner frame");
	if (h.window_size > UINT64_C(1) << w->outer_wlog)
		return zd_err(err, ZD_E_INTERNAL, "inner window %ju exceeds "
		              "the outer window", (uintmax_t)h.window_size);
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
		memcpy(s->out + s->out_len, zd_zseg_reset, ZD_ZSEG_RESET_SIZE);
		s->out_len += ZD_ZSEG_RESET_SIZE;
	}
	return 0;
}

static int
w_run(void *ctx, unsigned worker, uint64_t i, unsigned slot,
      struct zd_error *err)
{
	struct writer *w = ctx;
	struct seg_slot *s = &w->slots[slot];
	size_t len = (size_t)(s->end - s->start), inner = len, rc;
	ZSTD_CCtx *c = get_cctx(w, worker, err);

	(void)i;
	if (c == NULL)
		return -1;
	if (grow(&s->in, &s->in_cap, len, err) < 0)
		return -1;
	if (len > 0 && zd_pread_all(w->in_fd, s->in, len, s->start, err) < 0)
		return -1;
	if (w->p->layout == ZD_LAYOUT_INDEXED && !s->last) {
		assert(len >= RUN);
		inner = len - TAIL_KEEP;
	}
	if (grow(&s->out, &s->out_cap, ZSTD_compressBound(inner) +
	         PZSTD_HDR + ZD_ZSEG_RESET_SIZE, err) < 0)
		return -1;
	if (w->p->layout == ZD_LAYOUT_PZSTD) {
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
	if (w->p->layout != ZD_LAYOUT_INDEXED)
		return 0;
	s->hash = XXH64(s->in, len, 0);
	return splice_inner(w, s, err);
}

static int
w_consume(void *ctx, uint64_t i, unsigned slot, struct zd_error *err)
{
	struct writer *w = ctx;
	struct seg_slot *s = &w->slots[slot];
	size_t len = (size_t)(s->end - s->start);

	(void)i;
	if (zd_write_all(w->out_fd, s->out, s->out_len, err) < 0)
		return -1;
	if (w->p->layout != ZD_LAYOUT_INDEXED)
		return 0;
	XXH64_update(w->total, s->in, len);
	if (w->nseg == w->seg_cap) {
		size_t cap = w->seg_cap ? 2 * w->seg_cap : 64;
		struct zd_zseg_record *n = realloc(w->segs, cap * sizeof(*n));

		if (n == NULL)
			return zd_err(err, ZD_E_NOMEM, "out of memory");
		w->segs = n;
		w->seg_cap = cap;
	}
	w->segs[w->nseg].csize = s->out_len;
	w->segs[w->nseg].usize = len;
	w->segs[w->nseg].nseg = 1;
	w->segs[w->nseg].hash = s->hash;
	w->nseg++;
	/* big slots are not kept for later, smaller segments */
	if (s->in_cap > 64 * MIB) {
		free(s->in);
		s->in = NULL;
		s->in_cap = 0;
	}
	return 0;
}

/* XXH64 of in[off, off + len), read again from the input. */
static int
hash_range(struct writer *w, uint64_t off, uint64_t len, uint64_t *hash,
           struct zd_error *err)
{
	XXH64_state_t *st = XXH64_createState();
	int rc = -1;

	if (st == NULL)
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	XXH64_reset(st, 0);
	while (len > 0) {
		size_t n = len < SCAN_CHUNK ? (size_t)len : SCAN_CHUNK;

		if (zd_pread_all(w->in_fd, w->scan, n, off, err) < 0)
			goto out;
		XXH64_update(st, w->scan, n);
		off += n;
		len -= n;
	}
	*hash = XXH64_digest(st);
	rc = 0;
out:
	XXH64_freeState(st);
	return rc;
}

/*
 * Builds the index, grouping g consecutive segments per record with the
 * smallest g that fits in ZD_ZSEG_INDEX_MAX, and writes it.
 */
static int
write_index(struct writer *w, size_t header_size, struct zd_error *err)
{
	unsigned char buf[ZD_ZSEG_INDEX_MAX];
	struct zd_zseg_index idx;
	struct zd_zseg_record *rec = NULL;
	size_t g, n = 0, len = 0;
	int rc = -1;

	idx.window_log = w->outer_wlog;
	idx.header_size = (unsigned)header_size;
	idx.content_size = w->in_size;
	idx.segments = w->nseg;
	rec = calloc(w->nseg, sizeof(*rec));
	if (rec == NULL)
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	for (g = 1;; g++) {
		n = 0;
		for (size_t k = 0; k < w->nseg; k += g, n++) {
			size_t e = k + g < w->nseg ? k + g : w->nseg;

			memset(&rec[n], 0, sizeof(rec[n]));
			for (size_t j = k; j < e; j++) {
				rec[n].csize += w->segs[j].csize;
				rec[n].usize += w->segs[j].usize;
			}
			rec[n].nseg = e - k;
			rec[n].hash = w->segs[k].hash;
		}
		idx.nrec = n;
		idx.rec = rec;
		len = zd_zseg_index_encode(&idx, buf, sizeof(buf));
		if (len > 0)
			break;
	}
	if (g > 1) {
		uint64_t off = 0;

		for (size_t k = 0; k < n; k++) {
			if (hash_range(w, off, rec[k].usize, &rec[k].hash,
			               err) < 0)
				goto out;
			off += rec[k].usize;
		}
		len = zd_zseg_index_encode(&idx, buf, sizeof(buf));
		assert(len > 0);
	}
	rc = zd_write_all(w->out_fd, buf, len, err);
out:
	free(rec);
	return rc;
}

static void
writer_free(struct writer *w)
{
	if (w->slots != NULL) {
		for (unsigned i = 0; i < w->window; i++) {
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
	free(w->scan);
	free(w->segs);
	if (w->total != NULL)
		XXH64_freeState(w->total);
}

int
zd_zseg_compress(const struct zd_comp_params *p, int in_fd, uint64_t in_size,
                 int out_fd, struct zd_error *err)
{
	static const struct zd_sched_ops ops = {
		w_produce, w_run, w_consume, false,
	};
	struct writer w;
	unsigned threads = p->threads > 0 ? p->threads : 1;
	unsigned char hdr[ZD_ZSTD_FHDR_MAX], sum[4];
	size_t hlen = 0;
	int rc = -1;

	if (p->layout != ZD_LAYOUT_INDEXED && p->layout != ZD_LAYOUT_FRAMES &&
	    p->layout != ZD_LAYOUT_PZSTD)
		return zd_err(err, ZD_E_INTERNAL, "bad zstd layout");
	if (in_size > SIZE_MAX / 2)
		return zd_err(err, ZD_E_LIMIT, "input too large");
	memset(&w, 0, sizeof(w));
	w.p = p;
	w.in_fd = in_fd;
	w.out_fd = out_fd;
	w.in_size = in_size;
	w.target = zd_zseg_target_size(p, in_size);
	if (w.target == 0)
		w.target = 1;
	w.wlog = level_wlog(eff_level(p));
	if (p->zstd_long)
		w.wlog = INNER_WLOG_MAX;
	if (w.wlog > INNER_WLOG_MAX)
		w.wlog = INNER_WLOG_MAX;
	if (p->layout == ZD_LAYOUT_PZSTD && w.wlog > PZSTD_WLOG_MAX)
		w.wlog = PZSTD_WLOG_MAX;
	w.outer_wlog = zd_log2_ceil(in_size);
	if (w.outer_wlog > w.wlog)
		w.outer_wlog = w.wlog;
	if (w.outer_wlog < ZD_ZSTD_WINLOG_MIN)
		w.outer_wlog = ZD_ZSTD_WINLOG_MIN;
	/* more workers than segments would only cost memory */
	if (threads > in_size / w.target + 1)
		threads = (unsigned)(in_size / w.target + 1);
	w.window = threads > 1 ? 2 * threads : 1;
	w.nworkers = threads;
	w.slots = calloc(w.window, sizeof(*w.slots));
	w.cctx = calloc(w.nworkers, sizeof(*w.cctx));
	w.scan = malloc(SCAN_CHUNK);
	w.total = XXH64_createState();
	if (w.slots == NULL || w.cctx == NULL || w.scan == NULL ||
	    w.total == NULL) {
		zd_err(err, ZD_E_NOMEM, "out of memory");
		goto out;
	}
	XXH64_reset(w.total, 0);
	if (p->layout == ZD_LAYOUT_INDEXED) {
		hlen = zd_zstd_fhdr_write(hdr, w.outer_wlog, true, in_size,
		                          true);
		if (zd_write_all(out_fd, hdr, hlen, err) < 0)
			goto out;
	}
	if (zd_sched_run(&ops, &w, threads, w.window, err) < 0)
		goto out;
	if (p->layout == ZD_LAYOUT_INDEXED) {
		zd_put_le32(sum, (uint32_t)XXH64_digest(w.total));
		if (zd_write_all(out_fd, sum, 4, err) < 0 ||
		    write_index(&w, hlen, err) < 0)
			goto out;
	}
	rc = 0;
out:
	writer_free(&w);
	return rc;
}
