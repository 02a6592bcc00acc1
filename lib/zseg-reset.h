/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zseg-reset.h - the blocks that end a segment inside the indexed outer
 * frame (zdeb-format(5), "Segments")
 *
 * Each segment is compressed as a frame of its own, which starts with the
 * repeat offsets {1, 4, 8} and leaves them as its sequences had them.  The
 * blocks after a segment's own restore them: three sequences with the
 * explicit offsets 8, 4 and 1, in that order, each a match of 3 or more
 * bytes whose bytes are the segment's last ones.  Two forms:
 *
 *   the pair, where the 17 bytes before the cut are identical (20 bytes):
 *     A  3c 00 00 | 00 01 54 00 03 00 0b      match 3 at offset 8
 *     B  3c 00 00 | 00 02 54 00 02 00 1c      match 3 at 4, then 3 at 1
 *
 *   with literals, wherever the last ZD_ZSEG_RESET_SPAN bytes before the
 *   cut hold, in this order, 3 bytes equal to the 3 that are 8 before them,
 *   3 equal to the 3 that are 4 before, and end in 4 identical bytes:
 *     R8 raw literals, 1 sequence: match at offset 8, then the literals
 *     R4 raw literals, 1 sequence: match at offset 4, then the literals
 *     F  3c 00 00 | 00 01 54 00 02 00 04      match 3 at offset 1
 *
 * Every sequence's codes are RLE (one symbol each), so a block needs no
 * FSE table; a reset ends with a ZD_ZSEG_RESET_LAST-byte block, B or F,
 * whose Last_Block bit a reader sets to decode the segment on its own.
 */
#ifndef ZDEB_ZSEG_RESET_H
#define ZDEB_ZSEG_RESET_H

#include <stdbool.h>
#include <stddef.h>

#define ZD_ZSEG_RESET_SIZE	20	/* the pair */
#define ZD_ZSEG_RESET_LAST	10	/* a reset's last block, B or F */
#define ZD_ZSEG_RESET_RUN	17	/* identical bytes the pair needs */
#define ZD_ZSEG_RESET_SPAN	64	/* bytes a reset with literals makes,
					 * at most */
/* Bytes of any reset, at most: R8 and R4 with 2-byte literal headers. */
#define ZD_ZSEG_RESET_MAX	(2 * 11 + ZD_ZSEG_RESET_LAST + \
				 ZD_ZSEG_RESET_SPAN)

/* The pair. */
extern const unsigned char zd_zseg_reset[ZD_ZSEG_RESET_SIZE];
/* F, the last block of a reset with literals. */
extern const unsigned char zd_zseg_reset_last[ZD_ZSEG_RESET_LAST];

/* How a segment ends: the reset after its own frame. */
struct zd_zseg_reset {
	bool pair;
	size_t keep;	/* the segment's last bytes it makes (pair: 9) */
	size_t at4;	/* with literals: R4's match, bytes before the end */
};

/*
 * The reset for a segment cut just before end, whose avail bytes before
 * end are all its own (the matches must not reach before it): the pair
 * if the ZD_ZSEG_RESET_RUN bytes before end are identical, else the one
 * with literals that makes the fewest bytes, if any.  Returns false when
 * no reset can end a segment there.  A pure function of those bytes, so
 * the cut policy (zseg-cut.c) and the writer agree on every place.
 */
bool zd_zseg_reset_find(const unsigned char *end, size_t avail,
                        struct zd_zseg_reset *r);

/*
 * Writes the blocks of r (as zd_zseg_reset_find() gave it for end) to
 * out, ZD_ZSEG_RESET_MAX bytes at least, none of them marked last.
 * Returns their size.
 */
size_t zd_zseg_reset_encode(const unsigned char *end,
                            const struct zd_zseg_reset *r,
                            unsigned char *out);

/*
 * What the last bytes of a segment's blocks (tail, len of them) end in:
 * 2 for the pair, 1 for F (a reset with literals), 0 for neither.
 */
int zd_zseg_reset_tail(const unsigned char *tail, size_t len);

/*
 * Whether blk, len bytes from a block header on, is R8 (offset 8) or R4
 * (offset 4) as zd_zseg_reset_encode() writes it: a compressed block,
 * not last, of raw literals and one sequence with RLE codes whose
 * literal length is 0 and whose offset is that one, given explicitly.  A
 * reader checks the two blocks before F so (their bytes as the blocks
 * its walk found, not merely bytes that end in F): F alone restores the
 * offsets only after them.
 */
bool zd_zseg_reset_block_ok(const unsigned char *blk, size_t len,
                            unsigned offset);

#endif
