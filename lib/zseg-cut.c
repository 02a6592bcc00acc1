/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zseg-cut.c - where the segmented zstd writers cut their input
 *
 * One forward scan.  A cut is found, then waits in a small queue until
 * tail more bytes have come (the end of the input drops it); meanwhile
 * the bytes after it are already scanned as the next segment's.
 */
#include "config.h"

#include <assert.h>
#include <stdlib.h>

#include "lib/zseg-cut.h"

enum { QUEUE = 2 };	/* tail <= the shortest segment: two at most */

struct zd_zseg_cut {
	struct zd_zseg_cut_params p;
	uint64_t pos;		/* bytes scanned */
	uint64_t seg;		/* start of the segment being scanned */
	/* indexed */
	uint64_t last;		/* the last cut place in [lo, pos], or 0 */
	bool after;		/* past hi with none: the first one after */
	uint64_t run;		/* identical bytes ending at pos */
	unsigned char prev;
	uint64_t q[QUEUE];	/* found, waiting for tail bytes after them */
	unsigned nq;
};

static uint64_t
max64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* Indexed: a cut is looked for in [lo, hi] of the segment's start. */
static uint64_t
cut_lo(const struct zd_zseg_cut *c)
{
	return c->seg + max64(c->p.target / 2, ZD_ZSEG_CUT_RUN);
}

static uint64_t
cut_hi(const struct zd_zseg_cut *c)
{
	return c->seg + max64(c->p.target, ZD_ZSEG_CUT_RUN);
}

/* The shortest segment the policy makes (but for the last one). */
static uint64_t
min_gap(const struct zd_zseg_cut_params *p)
{
	return p->layout == ZD_LAYOUT_INDEXED ?
	       max64(p->target / 2, ZD_ZSEG_CUT_RUN) : p->target;
}

struct zd_zseg_cut *
zd_zseg_cut_new(const struct zd_zseg_cut_params *p, struct zd_error *err)
{
	struct zd_zseg_cut *c;

	if ((p->layout != ZD_LAYOUT_INDEXED && p->layout != ZD_LAYOUT_FRAMES &&
	     p->layout != ZD_LAYOUT_PZSTD) || p->target == 0 ||
	    p->tail == 0 || p->tail > min_gap(p)) {
		zd_err(err, ZD_E_INTERNAL, "bad cut parameters");
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (c == NULL) {
		zd_err(err, ZD_E_NOMEM, "out of memory");
		return NULL;
	}
	c->p = *p;
	return c;
}

void
zd_zseg_cut_free(struct zd_zseg_cut *c)
{
	free(c);
}

/* A cut at x: the next segment starts there. */
static void
found(struct zd_zseg_cut *c, uint64_t x)
{
	assert(c->nq < QUEUE);
	c->q[c->nq++] = x;
	c->seg = x;
	c->last = 0;
	c->after = false;
}

/*
 * Indexed: scans buf[0, n), all before any offset where a cut is due
 * (the first waiting one, or hi), so only cut places are tracked here.
 */
static void
scan_runs(struct zd_zseg_cut *c, const unsigned char *buf, size_t n)
{
	uint64_t lo = cut_lo(c), run = c->run;
	unsigned char prev = c->prev;

	for (size_t i = 0; i < n; i++) {
		run = run > 0 && buf[i] == prev ? run + 1 : 1;
		prev = buf[i];
		if (run >= ZD_ZSEG_CUT_RUN && c->pos + i + 1 >= lo) {
			if (c->after) {
				c->run = run;
				c->prev = prev;
				c->pos += i + 1;
				found(c, c->pos);
				return;
			}
			c->last = c->pos + i + 1;
		}
	}
	c->run = run;
	c->prev = prev;
	c->pos += n;
}

/* How many bytes from c->pos on can be scanned before something is due:
 * a waiting cut becomes final, a frame ends, or hi is reached (none is
 * due at c->pos itself: at_due() and the caller dealt with it). */
static uint64_t
room(const struct zd_zseg_cut *c)
{
	uint64_t due = UINT64_MAX;

	if (c->nq > 0)
		due = c->q[0] + c->p.tail;
	if (c->p.layout != ZD_LAYOUT_INDEXED) {
		if (c->seg + c->p.target < due)
			due = c->seg + c->p.target;
	} else if (!c->after && cut_hi(c) < due) {
		due = cut_hi(c);
	}
	assert(due > c->pos);
	return due - c->pos;
}

/* c->pos is where something may be due: a frame or the look for an
 * indexed cut ends here. */
static void
at_due(struct zd_zseg_cut *c)
{
	if (c->p.layout != ZD_LAYOUT_INDEXED) {
		if (c->pos == c->seg + c->p.target)
			found(c, c->pos);
		return;
	}
	if (c->after || c->pos != cut_hi(c))
		return;
	if (c->last != 0)
		found(c, c->last);
	else
		c->after = true;
}

bool
zd_zseg_cut_feed(struct zd_zseg_cut *c, const void *buf, size_t len,
                 size_t *used, uint64_t *cut)
{
	const unsigned char *b = buf;
	size_t i = 0;

	for (;;) {
		uint64_t r, before = c->pos;

		at_due(c);
		if (c->nq > 0 && c->pos >= c->q[0] + c->p.tail) {
			*cut = c->q[0];
			c->q[0] = c->q[1];
			c->nq--;
			*used = i;
			return true;
		}
		if (i == len)
			break;
		r = room(c);
		if (r > len - i)
			r = len - i;
		if (c->p.layout != ZD_LAYOUT_INDEXED) {
			c->pos += r;
		} else if (!c->after &&
		           c->pos + ZD_ZSEG_CUT_RUN < cut_lo(c)) {
			/* before lo - RUN no byte counts: skip */
			uint64_t n = cut_lo(c) - ZD_ZSEG_CUT_RUN - c->pos;

			c->pos += n < r ? n : r;
			c->run = 0;
		} else {
			scan_runs(c, b + i, (size_t)r);
		}
		i += (size_t)(c->pos - before);
	}
	*used = len;
	return false;
}

bool
zd_zseg_cut_end(struct zd_zseg_cut *c, uint64_t *cut)
{
	/* a cut still waiting has fewer than tail bytes after it: none */
	(void)c;
	(void)cut;
	return false;
}
