/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zseg-reset.c - the blocks that end a segment inside the indexed outer
 * frame
 *
 * A block with one sequence and RLE codes (RFC 8878 3.1.1.3): header,
 * raw literals section, Number_of_Sequences 1, Symbol_Compression_Modes
 * 0x54 (RLE for literal lengths, offsets and match lengths), the three
 * codes, and a bitstream of one byte: the offset's extra bits under the
 * padding bit (an RLE code's state takes no bits, the literal length is
 * 0 and a match length of 3 to 34 has no extra bits).
 */
#include "config.h"

#include <assert.h>
#include <string.h>

#include "lib/zseg-reset.h"
#include "lib/zstd-frame.h"

const unsigned char zd_zseg_reset[ZD_ZSEG_RESET_SIZE] = {
	0x3c, 0x00, 0x00, 0x00, 0x01, 0x54, 0x00, 0x03, 0x00, 0x0b,
	0x3c, 0x00, 0x00, 0x00, 0x02, 0x54, 0x00, 0x02, 0x00, 0x1c,
};

const unsigned char zd_zseg_reset_last[ZD_ZSEG_RESET_LAST] = {
	0x3c, 0x00, 0x00, 0x00, 0x01, 0x54, 0x00, 0x02, 0x00, 0x04,
};

enum {
	MATCH_MIN = 3,
	MATCH_MAX = 34,		/* the last match length without extra bits */
	SHORT_LITERALS = 31,	/* a 1-byte literals header holds 0 to 31 */
};

/* b[i, i + 3) equals the 3 bytes d before it. */
static bool
repeats(const unsigned char *b, size_t i, size_t d)
{
	return b[i] == b[i - d] && b[i + 1] == b[i + 1 - d] &&
	       b[i + 2] == b[i + 2 - d];
}

bool
zd_zseg_reset_find(const unsigned char *end, size_t avail,
                   struct zd_zseg_reset *r)
{
	size_t span = avail < ZD_ZSEG_RESET_SPAN ? avail : ZD_ZSEG_RESET_SPAN;
	const unsigned char *b = end - span;
	size_t i, p4, p8;

	memset(r, 0, sizeof(*r));
	if (avail >= ZD_ZSEG_RESET_RUN) {
		for (i = 2; i <= ZD_ZSEG_RESET_RUN && end[-(ptrdiff_t)i] ==
		     end[-1]; i++)
			;
		if (i > ZD_ZSEG_RESET_RUN) {
			r->pair = true;
			r->keep = 9;
			return true;
		}
	}
	/* Offsets from b.  F is a match of 3 at offset 1 at span - 3, so
	 * the last 4 bytes are alike; R4's match ends before it starts and
	 * R8's before R4's, which reaches 8 back: 8 <= p8, p8 + 3 <= p4,
	 * p4 + 3 <= span - 3. */
	if (span < 8 + 3 + 3 + 3 || b[span - 4] != b[span - 1] ||
	    b[span - 3] != b[span - 1] || b[span - 2] != b[span - 1])
		return false;
	/* The latest of each that fits is as good as any: an earlier one
	 * only makes more literals, and finds no R8 that a later one does
	 * not. */
	for (p4 = span - 6; !repeats(b, p4, 4); p4--)
		if (p4 == 8 + 3)
			return false;
	for (p8 = p4 - 3; !repeats(b, p8, 8); p8--)
		if (p8 == 8)
			return false;
	r->keep = span - p8;
	r->at4 = span - p4;
	return true;
}

/* One block: lits raw literals after a match of ml at offset code oc
 * with extra bits ob (the offset's value is (1 << oc) + ob). */
static size_t
block(unsigned char *out, const unsigned char *lits, size_t nlit, size_t ml,
      unsigned oc, unsigned ob)
{
	size_t lh = nlit <= SHORT_LITERALS ? 1 : 2, size = lh + nlit + 6, k = 3;

	assert(ml >= MATCH_MIN && ml <= MATCH_MAX && nlit < 4096);
	out[0] = (unsigned char)(size << 3 | 2 << 1);	/* compressed */
	out[1] = (unsigned char)(size >> 5);
	out[2] = (unsigned char)(size >> 13);
	if (lh == 1) {
		out[k++] = (unsigned char)(nlit << 3);	/* raw, 5-bit size */
	} else {
		out[k++] = (unsigned char)((nlit & 0xf) << 4 | 1 << 2);
		out[k++] = (unsigned char)(nlit >> 4);
	}
	memcpy(out + k, lits, nlit);
	k += nlit;
	out[k++] = 1;			/* one sequence */
	out[k++] = 0x54;		/* RLE, RLE, RLE */
	out[k++] = 0;			/* literal length 0 */
	out[k++] = (unsigned char)oc;
	out[k++] = (unsigned char)(ml - MATCH_MIN);
	out[k++] = (unsigned char)(1u << oc | ob);	/* padding bit over */
	assert(k == 3 + size);
	return k;
}

/* The match at b[at] reaching d back, as long as it goes before stop. */
static size_t
match_len(const unsigned char *b, size_t at, size_t d, size_t stop)
{
	size_t ml = MATCH_MIN;

	while (ml < MATCH_MAX && at + ml < stop && b[at + ml] == b[at + ml - d])
		ml++;
	return ml;
}

size_t
zd_zseg_reset_encode(const unsigned char *end, const struct zd_zseg_reset *r,
                     unsigned char *out)
{
	const unsigned char *b;
	size_t p4, f, m8, m4, n;

	if (r->pair) {
		memcpy(out, zd_zseg_reset, ZD_ZSEG_RESET_SIZE);
		return ZD_ZSEG_RESET_SIZE;
	}
	/* offsets from b, the first byte the reset makes */
	b = end - r->keep;
	p4 = r->keep - r->at4;
	f = r->keep - MATCH_MIN;
	m8 = match_len(b, 0, 8, p4);
	m4 = match_len(b, p4, 4, f);
	n = block(out, b + m8, p4 - m8, m8, 3, 3);	/* offset 8: 11 */
	n += block(out + n, b + p4 + m4, f - p4 - m4, m4, 2, 3); /* 4: 7 */
	memcpy(out + n, zd_zseg_reset_last, ZD_ZSEG_RESET_LAST);
	n += ZD_ZSEG_RESET_LAST;
	assert(n <= ZD_ZSEG_RESET_MAX);
	return n;
}

int
zd_zseg_reset_tail(const unsigned char *tail, size_t len)
{
	if (len >= ZD_ZSEG_RESET_SIZE &&
	    memcmp(tail + len - ZD_ZSEG_RESET_SIZE, zd_zseg_reset,
	           ZD_ZSEG_RESET_SIZE) == 0)
		return 2;
	if (len >= ZD_ZSEG_RESET_LAST &&
	    memcmp(tail + len - ZD_ZSEG_RESET_LAST, zd_zseg_reset_last,
	           ZD_ZSEG_RESET_LAST) == 0)
		return 1;
	return 0;
}

bool
zd_zseg_reset_block_ok(const unsigned char *blk, size_t len, unsigned offset)
{
	unsigned oc = offset == 8 ? 3 : 2;	/* value 11 or 7 (block()) */
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_zstd_block b;
	size_t size, lh, nlit;
	const unsigned char *t;

	if ((offset != 8 && offset != 4) || len < 3 + 1 + 6 ||
	    zd_zstd_block_parse(blk, ZD_ZSTD_BLOCK_MAX, &b, &err) < 0 ||
	    b.last || b.type != ZD_ZSTD_BLOCK_COMPRESSED || b.csize != len - 3)
		return false;	/* not compressed, last, or another size */
	size = b.csize;
	switch (blk[3] & 0xf) {
	case 0: case 8:		/* raw, 1-byte header (5-bit size) */
		lh = 1;
		nlit = blk[3] >> 3;
		break;
	case 4:			/* raw, 2-byte header (12-bit size) */
		lh = 2;
		nlit = (size_t)(blk[3] >> 4) | (size_t)blk[4] << 4;
		break;
	default:
		return false;
	}
	if (lh + nlit + 6 != size)
		return false;
	t = blk + 3 + lh + nlit;
	return t[0] == 1 && t[1] == 0x54 && t[2] == 0 && t[3] == oc &&
	       t[4] <= MATCH_MAX - MATCH_MIN && t[5] == (1u << oc | 3);
}
