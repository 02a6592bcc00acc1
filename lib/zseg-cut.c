/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zseg-cut.c - where the segmented zstd writers cut their input
 *
 * One forward scan.  A cut is found, then waits in a small queue until
 * tail bytes have come after it (the end of the input drops it);
 * meanwhile the bytes after it are scanned as the next segment's.
 *
 * Indexed: what a cut costs.  A segment cannot reach back across its
 * start, so a cut costs what the bytes after it would have matched
 * before it: little between unrelated files, a whole file's worth in
 * front of the second copy of a file (a tar of /usr/share/doc has the
 * same changelog.gz in several packages' directories; the last place
 * before such a member, its header's padding, is where the old policy
 * of "the last place before the target" cut, 2.6 % over one frame).  The
 * scan estimates it with anchors: at every STRIDE-th input offset, the 4
 * bytes before it (not all alike) that hash to 0 mod 2^ABITS mark an
 * anchor, keyed by the KEY bytes before it; an anchor whose key was last
 * seen at q, within the window, is a match the bytes since the previous
 * anchor would have used, and every cut place in (q, p) would lose it.
 * Anchors at fixed offsets find repeats that lie a multiple of STRIDE
 * apart: the files of a tar, 512-aligned, always are.  Each segment's cut
 * is the place x in [target/2, target] that loses least together with the
 * cheapest place of the segment after x, decided once those places and a
 * window after them have been scanned (a lookahead of two targets and a
 * window).  All of it depends on the bytes only.
 *
 * Indexed: where a cut can be.  After ZD_ZSEG_RESET_RUN identical bytes
 * (a run place: the reset pair fits, and readers since the first indexed
 * layout read it in parallel), and, in a stretch of FREE bytes or more
 * without one (a large binary or text member), wherever a reset with
 * literals fits (zd_zseg_reset_find(), a literal place): in machine code
 * every few hundred bytes.  One place is kept per granule, the first.
 *
 * Indexed, balanced (the input's size known): the same places and costs,
 * but each cut is chosen near a fixed offset, k * total / n, once the
 * places around it and a window after them are scanned.
 */
#include "config.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "lib/endian.h"
#include "lib/tar-cut.h"
#include "lib/zseg-cut.h"

enum {
	QUEUE = 2,	/* tail <= the shortest segment: two at most */
	STRIDE = 16,	/* an anchor is tested every STRIDE bytes */
	ABITS = 5,	/* 1 in 2^ABITS tested places is an anchor */
	KEY = 32,	/* bytes before an anchor that key it */
	MIN_GAP = 8,	/* between anchors */
	WEIGHT_MAX = 4096,	/* bytes an anchor stands for, at most */
	MAX_CANDS = 1024,	/* cut places per target, at most */
	FREE = 64 << 10,	/* literal places: this far from run places */
	BALANCED_MAX = 1024,	/* balanced: total / target under this */
	SLACK = 4,		/* balanced: a cut within size / SLACK, */
	PENALTY = 32,		/* where a byte lost weighs as PENALTY bytes
				 * of distance from its offset */
	SPAN = ZD_ZSEG_RESET_SPAN,	/* bytes a literal place looks at */
};

struct cand {
	uint64_t at;
	int64_t d;	/* cost difference: cost(j) = sum of d[0..j] */
	bool lit;	/* a literal place */
};

struct anchor {
	uint64_t key;
	uint64_t at;	/* 0: empty */
};

struct zd_zseg_cut {
	struct zd_zseg_cut_params p;
	uint64_t pos;		/* bytes scanned */
	uint64_t seg;		/* start of the segment being scanned */
	uint64_t q[QUEUE];	/* found, waiting for tail bytes after them */
	unsigned nq;
	/* frames, pzstd */
	struct zd_tar_cut tc;	/* where a frame may end (tar-cut.h) */
	/* indexed */
	uint64_t run;		/* identical bytes ending at pos */
	unsigned char prev;
	bool after;		/* none in [lo, hi]: the first one after */
	uint64_t horizon;	/* how far back a match reaches */
	uint64_t gran;		/* one cut place per gran bytes */
	struct cand *cand;	/* places >= lo, ascending; +1 end slot */
	size_t ncand, cand_max;
	int64_t *cost;		/* decide(): each place's */
	size_t *dq;		/* decide(): a monotonic queue of places */
	struct anchor *tab;
	unsigned tab_bits;
	uint64_t last_anchor;
	unsigned char hist[KEY];	/* the KEY bytes before pos */
	uint64_t last_run;	/* the last run place scanned, or 0 */
	uint64_t lit_from;	/* literal places before it are searched */
	unsigned char lhist[SPAN];	/* the SPAN bytes before pos */
	/* balanced */
	uint64_t nseg;		/* segments aimed at; 0: not balanced */
	uint64_t size;		/* total / nseg */
	uint64_t next;		/* the cut to choose: k, 1 <= k < nseg */
};

static uint64_t
max64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static uint64_t
min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

uint64_t
zd_zseg_cut_count(uint64_t total, uint64_t target)
{
	uint64_t n = 1;

	if (total == 0 || target == 0 || total / target >= BALANCED_MAX)
		return 0;
	while (total / n >= target)
		n *= 2;
	return n;
}

/* Balanced: the ideal offset of cut k, k * total / nseg, and how far a
 * cut may be from it. */
static uint64_t
ideal(const struct zd_zseg_cut *c, uint64_t k)
{
	return c->p.total / c->nseg * k + c->p.total % c->nseg * k / c->nseg;
}

static uint64_t
slack(const struct zd_zseg_cut *c)
{
	return max64(c->size / SLACK, 1);
}

/* Balanced: all the cuts are chosen. */
static bool
done(const struct zd_zseg_cut *c)
{
	return c->nseg > 0 && c->next >= c->nseg;
}

/* Indexed: a cut is looked for in [lo, hi] of the segment's start
 * (balanced: around the ideal offset, places kept from half a segment
 * before it) ... */
static uint64_t
cut_lo(const struct zd_zseg_cut *c)
{
	if (c->nseg > 0 && !done(c))
		return max64(c->seg + ZD_ZSEG_CUT_RUN,
		             ideal(c, c->next) - c->size / 2);
	return c->seg + max64(c->p.target / 2, ZD_ZSEG_CUT_RUN);
}

static uint64_t
cut_hi(const struct zd_zseg_cut *c)
{
	if (c->nseg > 0 && !done(c))
		return ideal(c, c->next) + slack(c);
	return c->seg + max64(c->p.target, ZD_ZSEG_CUT_RUN);
}

/* ... and chosen once the places of the next segment are known and
 * the horizon after them is scanned (balanced: the horizon after hi). */
static uint64_t
decide_at(const struct zd_zseg_cut *c)
{
	if (done(c))
		return UINT64_MAX;
	if (c->nseg > 0)
		return cut_hi(c) + c->horizon;
	return cut_hi(c) + max64(c->p.target, ZD_ZSEG_CUT_RUN) + c->horizon;
}

/* The shortest segment the policy makes (but for the last one). */
static uint64_t
min_gap(const struct zd_zseg_cut_params *p)
{
	return p->layout == ZD_LAYOUT_INDEXED ?
	       max64(p->target / 2, ZD_ZSEG_CUT_RUN) : p->target;
}

static int
indexed_init(struct zd_zseg_cut *c, struct zd_error *err)
{
	const struct zd_zseg_cut_params *p = &c->p;
	uint64_t w = UINT64_C(1) << p->window_log, t = p->target;
	uint64_t span, anchors;

	c->nseg = zd_zseg_cut_count(p->total, p->target);
	if (c->nseg > 0) {
		c->size = p->total / c->nseg;
		c->next = 1;
		t = max64(c->size, 1);
	}
	c->horizon = min64(w, max64(t, ZD_ZSEG_CUT_RUN));
	c->gran = max64(t / MAX_CANDS, 1);
	/* places in [lo, decide_at], one per granule, and the end slot */
	if (c->nseg == 1)
		span = 0;		/* one segment: no place is kept */
	else if (c->nseg > 1)
		span = c->size / 2 + slack(c) + c->horizon + 1;
	else
		span = decide_at(c) - cut_lo(c);
	c->cand_max = (size_t)(span / c->gran + 3);
	/* about one slot per anchor the horizon holds */
	anchors = c->horizon / (STRIDE << ABITS);
	c->tab_bits = zd_log2_ceil(max64(anchors, 1)) + 1;
	if (c->tab_bits < 10)
		c->tab_bits = 10;
	if (c->tab_bits > 18)
		c->tab_bits = 18;
	c->cand = calloc(c->cand_max + 1, sizeof(*c->cand));
	c->cost = calloc(c->cand_max, sizeof(*c->cost));
	c->dq = calloc(c->cand_max, sizeof(*c->dq));
	c->tab = calloc((size_t)1 << c->tab_bits, sizeof(*c->tab));
	if (c->cand == NULL || c->cost == NULL || c->dq == NULL ||
	    c->tab == NULL)
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	return 0;
}

struct zd_zseg_cut *
zd_zseg_cut_new(const struct zd_zseg_cut_params *p, struct zd_error *err)
{
	struct zd_zseg_cut *c;

	if ((p->layout != ZD_LAYOUT_INDEXED && p->layout != ZD_LAYOUT_FRAMES &&
	     p->layout != ZD_LAYOUT_PZSTD) || p->target == 0 ||
	    p->tail == 0 || p->tail > min_gap(p) ||
	    (p->layout == ZD_LAYOUT_INDEXED &&
	     (p->window_log < 10 || p->window_log > 31))) {
		zd_err(err, ZD_E_INTERNAL, "bad cut parameters");
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (c == NULL) {
		zd_err(err, ZD_E_NOMEM, "out of memory");
		return NULL;
	}
	c->p = *p;
	zd_tar_cut_init(&c->tc);
	if (p->layout == ZD_LAYOUT_INDEXED && indexed_init(c, err) < 0) {
		zd_zseg_cut_free(c);
		return NULL;
	}
	return c;
}

void
zd_zseg_cut_free(struct zd_zseg_cut *c)
{
	if (c == NULL)
		return;
	free(c->cand);
	free(c->cost);
	free(c->dq);
	free(c->tab);
	free(c);
}

/* Indexed: drops the places before lo, keeping the later ones' costs. */
static void
prune(struct zd_zseg_cut *c)
{
	uint64_t lo = cut_lo(c);
	int64_t carry = 0;
	size_t k = 0;

	while (k < c->ncand && c->cand[k].at < lo)
		carry += c->cand[k++].d;
	if (k > 0) {
		/* the end slot moves too */
		memmove(c->cand, c->cand + k,
		        (c->ncand - k + 1) * sizeof(*c->cand));
		c->ncand -= k;
		c->cand[0].d += carry;
	}
	/*
	 * A literal place was found with the SPAN bytes before it in its
	 * segment as it was then; one the cut just made leaves fewer (a
	 * balanced cut lands wherever its offset says) is no place now.
	 */
	for (k = 0; k < c->ncand && c->cand[k].at < c->seg + SPAN;) {
		if (!c->cand[k].lit) {
			k++;
			continue;
		}
		c->cand[k + 1].d += c->cand[k].d;	/* end slot at ncand */
		memmove(c->cand + k, c->cand + k + 1,
		        (c->ncand - k) * sizeof(*c->cand));
		c->ncand--;
	}
}

/* A cut at x: the next segment starts there. */
static void
found(struct zd_zseg_cut *c, uint64_t x)
{
	assert(c->nq < QUEUE);
	c->q[c->nq++] = x;
	c->seg = x;
	c->after = false;
	/* balanced: the next cut at least half a segment on */
	if (c->nseg > 0)
		for (c->next++; !done(c) &&
		     ideal(c, c->next) < x + c->size / 2; c->next++)
			;
	if (c->p.layout == ZD_LAYOUT_INDEXED)
		prune(c);
}

/* Indexed: the cut places x to y (y <= pos), the first of each granule
 * at or after lo. */
static void
add_cands(struct zd_zseg_cut *c, uint64_t x, uint64_t y, bool lit)
{
	if (done(c))
		return;
	x = max64(x, cut_lo(c));
	if (c->ncand > 0 && c->cand[c->ncand - 1].at / c->gran == x / c->gran)
		x = (x / c->gran + 1) * c->gran;
	for (; x <= y; x = (x / c->gran + 1) * c->gran) {
		assert(c->ncand < c->cand_max);
		c->cand[c->ncand].at = x;	/* its d: the end slot's */
		c->cand[c->ncand].lit = lit;
		c->cand[++c->ncand].d = 0;
	}
}

/* The first place at or after x. */
static size_t
cand_from(const struct zd_zseg_cut *c, uint64_t x)
{
	size_t a = 0, b = c->ncand;

	while (a < b) {
		size_t m = a + (b - a) / 2;

		if (c->cand[m].at < x)
			a = m + 1;
		else
			b = m;
	}
	return a;
}

/*
 * Indexed, at decide_at(): of the places x in [lo, hi], the one for which
 * x and the cheapest place of the segment after it (in [x + lo - seg,
 * x + hi - seg]; none: 0) lose least together, the last of equals: a cut
 * in front of a costly stretch is avoided by ending the segment before
 * early enough.  With no place in [lo, hi], the first one after hi.
 */
/*
 * Indexed, balanced, at decide_at(): of the places within slack() of the
 * ideal offset, the one whose loss plus its distance / PENALTY is least,
 * the nearest of equals (the earlier of two as near): where the losses
 * are alike the cut is at the nearest place, and it moves away from one
 * in front of a copy of what is before it by as far as that saves.  With
 * none there, the nearer of the last one before and the first one after
 * (the after state, if there is neither).
 */
static void
decide_balanced(struct zd_zseg_cut *c)
{
	uint64_t b = ideal(c, c->next), lo = b - slack(c), hi = b + slack(c);
	uint64_t best_dist = 0;
	int64_t cost = 0, score, best_score = 0;
	size_t best = SIZE_MAX, before = SIZE_MAX, after = SIZE_MAX;

	for (size_t j = 0; j < c->ncand; j++) {
		uint64_t x = c->cand[j].at, dist = x > b ? x - b : b - x;

		cost += c->cand[j].d;
		if (x < lo) {
			before = j;
			continue;
		}
		if (x > hi) {
			after = j;
			break;
		}
		score = cost + (int64_t)(dist / PENALTY);
		if (best == SIZE_MAX || score < best_score ||
		    (score == best_score && dist < best_dist)) {
			best = j;
			best_score = score;
			best_dist = dist;
		}
	}
	if (best == SIZE_MAX) {
		best = before;
		if (after != SIZE_MAX &&
		    (before == SIZE_MAX ||
		     c->cand[after].at - b < b - c->cand[before].at))
			best = after;
	}
	if (best != SIZE_MAX)
		found(c, c->cand[best].at);
	else
		c->after = true;
}

static void
decide(struct zd_zseg_cut *c)
{
	uint64_t lo = cut_lo(c) - c->seg, hi = cut_hi(c);
	int64_t cost = 0, best_cost = 0;
	size_t best = SIZE_MAX, head = 0, tail = 0, next = 0;

	if (c->nseg > 0) {
		decide_balanced(c);
		return;
	}
	for (size_t j = 0; j < c->ncand; j++) {
		cost += c->cand[j].d;
		c->cost[j] = cost;
	}
	for (size_t j = 0; j < c->ncand; j++) {
		uint64_t x = c->cand[j].at;
		int64_t total;

		if (x > hi) {
			if (best == SIZE_MAX)
				best = j;
			break;
		}
		/* the places in [x + lo, x + lo + (hi - seg) - lo] */
		for (; next < c->ncand &&
		     c->cand[next].at <= x + (hi - c->seg); next++) {
			if (c->cand[next].at < x + lo)
				continue;
			while (tail > head &&
			       c->cost[c->dq[tail - 1]] >= c->cost[next])
				tail--;
			c->dq[tail++] = next;
		}
		while (tail > head && c->cand[c->dq[head]].at < x + lo)
			head++;
		total = c->cost[j] + (tail > head ? c->cost[c->dq[head]] : 0);
		if (best == SIZE_MAX || total <= best_cost) {
			best = j;
			best_cost = total;
		}
	}
	if (best != SIZE_MAX)
		found(c, c->cand[best].at);
	else
		c->after = true;
}

/* A 64-bit key of the KEY bytes before b, or 0 when they are all one
 * byte value (zero padding: not worth a slot). */
static uint64_t
anchor_key(const unsigned char *b)
{
	uint64_t w0 = zd_le64(b - 32), w1 = zd_le64(b - 24);
	uint64_t w2 = zd_le64(b - 16), w3 = zd_le64(b - 8), k;

	if (w0 == w1 && w1 == w2 && w2 == w3 &&
	    w0 == (w0 & 0xff) * UINT64_C(0x0101010101010101))
		return 0;
	k = w0 * UINT64_C(0x9E3779B97F4A7C15) ^
	    w1 * UINT64_C(0xC2B2AE3D27D4EB4F) ^
	    w2 * UINT64_C(0x165667B19E3779F9) ^
	    w3 * UINT64_C(0x27D4EB2F165667C5);
	k ^= k >> 29;
	return k != 0 ? k : 1;
}

/* The anchor at input offset p, after the bytes ending at b. */
static void
anchor(struct zd_zseg_cut *c, const unsigned char *b, uint64_t p)
{
	uint64_t key = anchor_key(b), w;
	struct anchor *a;

	if (key == 0)
		return;
	a = &c->tab[key >> (64 - c->tab_bits)];
	w = min64(p - c->last_anchor, WEIGHT_MAX);
	c->last_anchor = p;
	if (a->key == key && a->at != 0 && p - a->at <= c->horizon) {
		size_t i0 = cand_from(c, a->at + 1), end = cand_from(c, p);

		if (i0 < end) {
			c->cand[i0].d += (int64_t)w;
			c->cand[end].d -= (int64_t)w;
		}
	}
	a->key = key;
	a->at = p;
}

/* The anchors at input offsets (p0, p0 + n], the bytes ending at
 * b + n (KEY bytes before b readable). */
static void
scan_anchors(struct zd_zseg_cut *c, const unsigned char *b, size_t n,
             uint64_t p0)
{
	/* the offsets that are multiples of STRIDE, as b + o */
	size_t o = (size_t)(STRIDE - p0 % STRIDE);

	for (; o <= n; o += STRIDE) {
		uint32_t raw = zd_le32(b + o - 4), v;
		uint64_t p;

		/* the xor: 4 zero bytes (common in binaries) are no anchor */
		v = (raw ^ UINT32_C(0x5bd1e995)) * UINT32_C(0x9E3779B1);
		if (v >> (32 - ABITS) != 0 || raw == (raw >> 8 | raw << 24))
			continue;
		p = p0 + o;
		if (p >= KEY && p >= c->last_anchor + MIN_GAP)
			anchor(c, b + o, p);
	}
}

static uint64_t
bcast(unsigned char b)
{
	return b * UINT64_C(0x0101010101010101);
}

/* The 8 bytes of w are all alike. */
static bool
alike(uint64_t w)
{
	return w == (w >> 8 | w << 56);
}

/*
 * Literal places.  A place x depends on the SPAN bytes before it alone,
 * which zd_zseg_reset_find() reads as the writer will; the first SPAN of
 * a scanned piece come partly from lhist, the SPAN bytes before it.
 */

/* The SPAN bytes before x, x in the piece b (p0: its first byte's
 * offset), contiguous in tmp if need be; returns their end. */
static const unsigned char *
lit_bytes(const struct zd_zseg_cut *c, const unsigned char *b, uint64_t p0,
          uint64_t x, unsigned char *tmp)
{
	size_t in = (size_t)(x - p0);

	if (in >= SPAN)
		return b + in;
	memcpy(tmp, c->lhist + in, SPAN - in);
	memcpy(tmp + SPAN - in, b, in);
	return tmp + SPAN;
}

/*
 * Searches the literal places in [from, to] (to: at most the piece's end),
 * the first of each granule, from where the last search ended and no
 * closer than FREE after a run place.  first: returns the first one
 * (UINT64_MAX: none) without keeping it; else each one is a candidate.
 */
static uint64_t
lit_search(struct zd_zseg_cut *c, const unsigned char *b, uint64_t p0,
           uint64_t to, bool first)
{
	unsigned char tmp[SPAN];
	uint64_t x = max64(max64(c->lit_from, c->last_run + FREE),
	                   max64(cut_lo(c), c->seg + SPAN));

	if (done(c))
		x = to + 1;	/* no more cuts */

	for (; x <= to; x++) {
		const unsigned char *e = x - p0 >= 4 ? b + (x - p0) :
		                         lit_bytes(c, b, p0, x, tmp);
		struct zd_zseg_reset r;

		/* a reset with literals ends in 4 alike (F) */
		if (e[-1] != e[-2] || e[-2] != e[-3] || e[-3] != e[-4])
			continue;
		if (!zd_zseg_reset_find(lit_bytes(c, b, p0, x, tmp),
		                        (size_t)(x - c->seg), &r) || r.pair)
			continue;
		if (first)
			return x;
		add_cands(c, x, x, true);
		x = (x / c->gran + 1) * c->gran - 1;	/* the next granule */
	}
	c->lit_from = max64(c->lit_from, x);
	return UINT64_MAX;
}

/* Run places x to y: the literal places before them first. */
static void
run_places(struct zd_zseg_cut *c, const unsigned char *b, uint64_t p0,
           uint64_t x, uint64_t y)
{
	lit_search(c, b, p0, x - 1, false);
	add_cands(c, x, y, false);
	c->last_run = y;
	c->lit_from = max64(c->lit_from, y + 1);
}

/*
 * The cut places in the n bytes at b: where the ZD_ZSEG_CUT_RUN bytes
 * before are identical.  17 identical bytes hold 8 at a multiple of 8
 * from b, so while the run so far is under 9, 8 bytes that are not all
 * alike are skipped at once; else the bytes equal to the one before are
 * counted, 8 at a time.  In the after state, stops at the first place
 * (it is the cut).  Returns the bytes scanned.
 */
static size_t
scan_runs(struct zd_zseg_cut *c, const unsigned char *b, size_t n)
{
	uint64_t run = c->run, p0 = c->pos;
	unsigned char prev = c->prev;
	size_t i = 0;

	if (p0 == 0 && n > 0)
		prev = b[0];	/* run 0: the first byte starts it */
	while (i < n) {
		uint64_t bp = bcast(prev), w = 0;
		size_t i0 = i, lead, t, k, j0;
		unsigned char last;

		if (run < 9 && n - i >= 8) {
			/* 32 bytes at a time, then 8 */
			for (; n - i >= 32; i += 32)
				if (alike(zd_le64(b + i)) |
				    alike(zd_le64(b + i + 8)) |
				    alike(zd_le64(b + i + 16)) |
				    alike(zd_le64(b + i + 24)))
					break;
			for (; n - i >= 8; i += 8)
				if (alike(zd_le64(b + i)))
					break;
			if (i > i0) {
				/* the run at i: in the last block skipped */
				last = b[i - 1];
				w = zd_le64(b + i - 8) ^ bcast(last);
				run = (uint64_t)__builtin_clzll(w) / 8;
				prev = last;
				continue;
			}
		}
		/* bytes equal to prev: whole blocks, then a part of one */
		while (n - i >= 8 && zd_le64(b + i) == bp)
			i += 8;
		k = n - i < 8 ? n - i : 8;
		if (k == 8) {
			w = zd_le64(b + i);
			lead = (size_t)__builtin_ctzll(w ^ bp) / 8;
		} else {
			for (lead = 0; lead < k && b[i + lead] == prev; lead++)
				;
		}
		/* places after bytes i0 + j - 1, for j in [j0, i - i0 +
		 * lead] (none when a run that ended the last piece stops at
		 * its first byte: its place there was the last piece's) */
		j0 = run >= ZD_ZSEG_CUT_RUN ? 1 :
		     (size_t)(ZD_ZSEG_CUT_RUN - run);
		if (j0 <= i - i0 + lead) {
			if (c->after) {
				c->run = run + j0;
				c->prev = prev;
				c->pos = p0 + i0 + j0;
				found(c, c->pos);
				return i0 + j0;
			}
			run_places(c, b, p0, p0 + i0 + j0, p0 + i + lead);
		}
		if (lead == k) {
			run += i - i0 + k;
		} else {
			last = b[i + k - 1];
			if (k == 8) {
				uint64_t y = w ^ bcast(last);

				/* 0: all 8 alike, but not like prev */
				t = y != 0 ? (size_t)__builtin_clzll(y) / 8 : 8;
			} else {
				for (t = 1; t < k - lead &&
				     b[i + k - 1 - t] == last; t++)
					;
			}
			run = t;
			prev = last;
		}
		i += k;
	}
	c->run = run;
	c->prev = prev;
	c->pos = p0 + n;
	if (!c->after)
		lit_search(c, b, p0, p0 + n, false);
	return n;
}

/*
 * Scans b[0, n) (n > 0), the KEY bytes before it in c->hist: cut places,
 * then anchors, up to the first place in the after state.  Returns the
 * bytes scanned.
 */
static size_t
scan_indexed(struct zd_zseg_cut *c, const unsigned char *b, size_t n)
{
	unsigned char tmp[2 * KEY];
	uint64_t p0 = c->pos, lit = UINT64_MAX;
	size_t k = n < KEY ? n : KEY, m;

	/* after: the first place, run or literal, is the cut */
	if (c->after) {
		lit = lit_search(c, b, p0, p0 + n, true);
		if (lit != UINT64_MAX)
			n = (size_t)(lit - p0);
	}
	k = n < KEY ? n : KEY;
	/* the first KEY bytes, with the history before them */
	memcpy(tmp, c->hist, KEY);
	memcpy(tmp + KEY, b, k);
	m = n > 0 ? scan_runs(c, b, n) : 0;
	if (c->after && m == n && lit != UINT64_MAX)
		found(c, lit);
	scan_anchors(c, tmp + KEY, m < k ? m : k, p0);
	if (m > k)
		scan_anchors(c, b + k, m - k, p0 + k);
	if (m >= KEY) {
		memcpy(c->hist, b + m - KEY, KEY);
	} else {
		memmove(c->hist, c->hist + m, KEY - m);
		memcpy(c->hist + KEY - m, b, m);
	}
	if (m >= SPAN) {
		memcpy(c->lhist, b + m - SPAN, SPAN);
	} else {
		memmove(c->lhist, c->lhist + m, SPAN - m);
		memcpy(c->lhist + SPAN - m, b, m);
	}
	return m;
}

/* How many bytes from c->pos on can be scanned before something is due:
 * a waiting cut becomes final, a frame ends, or an indexed cut is to be
 * chosen (none is due at c->pos itself: at_due() and the caller dealt
 * with it). */
static uint64_t
room(const struct zd_zseg_cut *c)
{
	uint64_t due = UINT64_MAX;

	if (c->nq > 0)
		due = c->q[0] + c->p.tail;
	if (c->p.layout == ZD_LAYOUT_INDEXED && !c->after)
		due = min64(due, decide_at(c));
	assert(due > c->pos);
	return due - c->pos;
}

/* c->pos is where the cut of an indexed segment may be due to be chosen. */
static void
at_due(struct zd_zseg_cut *c)
{
	if (c->p.layout == ZD_LAYOUT_INDEXED && !c->after &&
	    c->pos == decide_at(c))
		decide(c);
}

/*
 * Frames and pzstd: a frame ends at the first place at or after target
 * bytes where a reader that stops there fails (tar-cut.h), since stock
 * dpkg stops at the end of the first frame and a tar cut on a member
 * boundary would install in part with status 0.  Scans up to len bytes;
 * returns how many, up to and including a cut.
 */
static size_t
scan_frames(struct zd_zseg_cut *c, const unsigned char *b, size_t len)
{
	bool cut;
	size_t n = zd_tar_cut_feed(&c->tc, b, len, c->seg + c->p.target,
	                           &cut);

	c->pos += n;
	if (cut)
		found(c, c->pos);
	return n;
}

/* A waiting cut with tail bytes after it, if any. */
static bool
pop_final(struct zd_zseg_cut *c, uint64_t *cut)
{
	if (c->nq == 0 || c->pos < c->q[0] + c->p.tail)
		return false;
	*cut = c->q[0];
	c->q[0] = c->q[1];
	c->nq--;
	return true;
}

bool
zd_zseg_cut_feed(struct zd_zseg_cut *c, const void *buf, size_t len,
                 size_t *used, uint64_t *cut)
{
	const unsigned char *b = buf;
	size_t i = 0;

	for (;;) {
		uint64_t r;

		at_due(c);
		if (pop_final(c, cut)) {
			*used = i;
			return true;
		}
		if (i == len)
			break;
		r = min64(room(c), len - i);
		if (c->p.layout == ZD_LAYOUT_INDEXED)
			i += scan_indexed(c, b + i, (size_t)r);
		else
			i += scan_frames(c, b + i, (size_t)r);
	}
	*used = len;
	return false;
}

bool
zd_zseg_cut_end(struct zd_zseg_cut *c, uint64_t *cut)
{
	if (pop_final(c, cut))
		return true;
	/* a cut waiting with fewer than tail bytes after it is dropped */
	if (c->p.layout != ZD_LAYOUT_INDEXED || c->after || c->nq > 0 ||
	    done(c) || c->pos < cut_hi(c))
		return false;
	/* places too close to the end cannot be cuts */
	while (c->ncand > 0 && c->cand[c->ncand - 1].at + c->p.tail > c->pos)
		c->ncand--;
	c->cand[c->ncand].d = 0;
	decide(c);
	return pop_final(c, cut);
}
