/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zseg-cut.h - where the segmented zstd writers cut their input: the cut
 * policy, on the input bytes alone (no compression library)
 *
 * The input is fed in order, in pieces of any size; cut offsets come out
 * in order as they become final.  They depend only on the bytes and the
 * parameters, never on how the input was split into pieces, so the same
 * input always gives the same segments.  An indexed cut is final about
 * target + 2^window_log bytes after its segment's start (a frames or
 * pzstd cut, tail bytes after it): the caller holds that much input.
 */
#ifndef ZDEB_ZSEG_CUT_H
#define ZDEB_ZSEG_CUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/error.h"
#include "lib/params.h"
#include "lib/zseg-reset.h"

/* identical bytes before an indexed cut at a run place */
#define ZD_ZSEG_CUT_RUN	ZD_ZSEG_RESET_RUN

/*
 * layout: INDEXED cuts only where a reset fits (zseg-reset.h): where the
 * ZD_ZSEG_CUT_RUN bytes before the cut are identical (a run place), and
 * where a reset with literals fits at least 64 KiB from any run place (a
 * literal place); of those between target/2 and target
 * bytes after the segment's start, the one whose cut loses the fewest
 * matches within 2^window_log bytes (see zseg-cut.c), the last of equals;
 * with none there, the first one after.  FRAMES and PZSTD cut at the
 * first place at or after target bytes from the segment's start where a
 * reader stopping there fails (tar-cut.h): inside a regular file's data
 * and off the 512-byte grid, anywhere off the grid in an input that is
 * no tar, nowhere after a tar's end.  Either way a cut needs at least
 * tail bytes after it (else the rest stays with the last segment):
 * 1 <= tail <= target
 * (indexed: <= max(target / 2, ZD_ZSEG_CUT_RUN)).
 *
 * INDEXED with total, the input's size, given and under 1024 targets
 * (balanced): n = zd_zseg_cut_count(total, target) segments of about
 * s = total / n bytes
 * each, so that any number of cores that divides n decodes them in equal
 * rounds.  Cut k (1 <= k < n) is the place within s/4 of k * total / n
 * whose estimated loss plus 1/32 of its distance from there is least, the
 * nearest of equals; with none there, the nearer of the last place from
 * half a segment before and the first one after.
 */
struct zd_zseg_cut_params {
	enum zd_zstd_layout layout;	/* INDEXED, FRAMES or PZSTD */
	uint64_t target;		/* >= 1 */
	uint64_t tail;
	unsigned window_log;		/* INDEXED: 10 to 31 */
	uint64_t total;			/* INDEXED: the input's size, or 0 */
};

/*
 * The segments a balanced cut of total bytes aims at: the power of two n
 * for which total / n is at least target / 2 and under target, 1 when
 * total is under the target; 0 when the cut is not balanced (total 0, or
 * 1024 targets or more).
 */
uint64_t zd_zseg_cut_count(uint64_t total, uint64_t target);

struct zd_zseg_cut;

/* Returns NULL with err set (ZD_E_NOMEM, ZD_E_INTERNAL for bad
 * parameters).  Indexed, it holds about 16 bytes per 256 bytes of
 * window (at most 4 MiB). */
struct zd_zseg_cut *zd_zseg_cut_new(const struct zd_zseg_cut_params *p,
                                    struct zd_error *err);
void zd_zseg_cut_free(struct zd_zseg_cut *c);

/*
 * Scans the input's next bytes, buf[0, len).  Returns true when a cut
 * became final: *used of the bytes were scanned (the last of them made it
 * final) and *cut is its input offset, at most the bytes scanned so far;
 * call again with the rest.  Returns false when all len bytes were
 * scanned (*used = len) and no cut became final.
 */
bool zd_zseg_cut_feed(struct zd_zseg_cut *c, const void *buf, size_t len,
                      size_t *used, uint64_t *cut);

/* The end of the input: true with the next final cut (one still to be
 * chosen is chosen with the bytes there are), until false. */
bool zd_zseg_cut_end(struct zd_zseg_cut *c, uint64_t *cut);

#endif
