/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check-zseg-cut.c - the cut policy alone: where cuts land, the tail rule,
 * independence from how the input is fed, parameter checks
 */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "lib/zseg-cut.h"
#include "lib/zseg-reset.h"
#include "tests/unit/testutil.h"

#define KIB ((uint64_t)1 << 10)
#define MAX_CUTS 100000

struct cuts {
	uint64_t at[MAX_CUTS];
	size_t n;
};

/* Feeds buf[0, len) in pieces of `piece` bytes (0: all at once) and
 * collects the cuts, checking that each lies within the bytes fed. */
static void
run_cuts(const struct zd_zseg_cut_params *p, const unsigned char *buf,
         size_t len, size_t piece, struct cuts *out)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_zseg_cut *c = zd_zseg_cut_new(p, &err);
	size_t off = 0;
	uint64_t at;

	ck_assert_msg(c != NULL, "%s", err.msg);
	out->n = 0;
	while (off < len) {
		size_t n = piece == 0 || piece > len - off ? len - off : piece;
		size_t used;

		while (n > 0) {
			bool got = zd_zseg_cut_feed(c, buf + off, n, &used,
			                            &at);

			ck_assert_uint_le(used, n);
			off += used;
			n -= used;
			if (!got) {
				ck_assert_uint_eq(n, 0);
				break;
			}
			ck_assert_uint_le(at, off);
			ck_assert(out->n == 0 || at > out->at[out->n - 1]);
			ck_assert_uint_lt(out->n, MAX_CUTS);
			out->at[out->n++] = at;
		}
	}
	while (zd_zseg_cut_end(c, &at)) {
		ck_assert_uint_lt(out->n, MAX_CUTS);
		out->at[out->n++] = at;
	}
	zd_zseg_cut_free(c);
}

/* Random bytes (no run of 17 identical ones, but by a chance too small
 * to matter at this seed) with runs of 20 zero bytes at these KiB. */
static unsigned char *
random_with_runs(size_t len)
{
	static const size_t runs_at[] = { 10, 40, 60, 70, 100, 124, 140, 300 };
	unsigned char *b = malloc(len);

	ck_assert_ptr_nonnull(b);
	zd_test_fill_random(b, len, 12345);
	for (size_t i = 0; i < sizeof(runs_at) / sizeof(runs_at[0]); i++)
		if (runs_at[i] * KIB + 20 <= len)
			memset(b + runs_at[i] * KIB, 0, 20);
	return b;
}

static void
expect(const struct cuts *got, const uint64_t *want, size_t nwant)
{
	ck_assert_uint_eq(got->n, nwant);
	for (size_t i = 0; i < nwant; i++)
		ck_assert_msg(got->at[i] == want[i], "cut %zu at %ju, want %ju",
		              i, (uintmax_t)got->at[i], (uintmax_t)want[i]);
}

/*
 * Indexed, 64 KiB target, on bytes with no match to lose: every place in
 * [target/2, target] of the segment's start after 17 identical bytes
 * costs nothing, so the last one (the first of its 64-byte granule),
 * else the first one after the target; a tail under target/16 stays with
 * the last segment.
 */
START_TEST(test_zseg_cut_indexed)
{
	/* 60K+17: the last place at or before 64K (40K+17 ... 60K+20);
	 * 124K+17: the last before 60K+17 + 64K; then none in [156K+17,
	 * 188K+17], so the first after: 300K+17, inside the run */
	static const uint64_t want[] = {
		60 * KIB + 17, 124 * KIB + 17, 300 * KIB + 17,
	};
	const struct zd_zseg_cut_params p = {
		ZD_LAYOUT_INDEXED, 64 * KIB, 4 * KIB, 16, 0,
	};
	unsigned char *b = random_with_runs(320 * KIB);
	struct cuts *got = malloc(sizeof(*got));

	ck_assert_ptr_nonnull(got);
	run_cuts(&p, b, 320 * KIB, 0, got);
	expect(got, want, 3);
	/* 3 KiB after the last place: under 64K/16, no cut there */
	run_cuts(&p, b, 303 * KIB + 17, 0, got);
	expect(got, want, 2);
	/* exactly 4 KiB after it: cut */
	run_cuts(&p, b, 304 * KIB + 17, 0, got);
	expect(got, want, 3);
	free(got);
	free(b);
}
END_TEST

/*
 * The cut goes where it loses least: 20 KiB of random bytes R after a
 * zero run at 40K, then another zero run, then R again, 512-aligned to it
 * as the files of a tar are (anchors are looked for every 16 bytes of the
 * input).  The last place before the target is in front of the copy,
 * which would then have nothing to match; the place in front of R loses
 * nothing, and is taken.  Without the copy, the last place is.
 */
START_TEST(test_zseg_cut_cheapest)
{
	const struct zd_zseg_cut_params p = {
		ZD_LAYOUT_INDEXED, 64 * KIB, 4 * KIB, 16, 0,
	};
	const size_t len = 200 * KIB, r = 40 * KIB + 512, copy = 62 * KIB;
	unsigned char *b = malloc(len);
	struct cuts *got = malloc(sizeof(*got));

	ck_assert_ptr_nonnull(b);
	ck_assert_ptr_nonnull(got);
	zd_test_fill_random(b, len, 4242);
	memset(b + 40 * KIB, 0, 20);		/* places 40K+17 ... */
	memset(b + 61 * KIB, 0, 20);		/* and 61K+17 ... */
	run_cuts(&p, b, len, 0, got);
	ck_assert_uint_ge(got->n, 1);
	ck_assert_uint_eq(got->at[0], 61 * KIB + 17);	/* the last */
	memcpy(b + copy, b + r, 20 * KIB);
	run_cuts(&p, b, len, 0, got);
	ck_assert_uint_ge(got->n, 1);
	/* not in front of R's copy */
	ck_assert_uint_eq(got->at[0], 40 * KIB + 17);
	free(got);
	free(b);
}
END_TEST

/* The 17 bytes before a literal place x at b + x, the shortest one
 * (zseg-reset.h: R8 at x - 9 copies "B 0 C" from x - 17, R4 at x - 6
 * "A B 0" from x - 10, F three zeros): no 17 alike, no literal. */
static void
plant_literal(unsigned char *b, size_t x)
{
	static const unsigned char pat[17] = {
		'B', 0, 'C', 'r', 's', 't', 'u', 'A', 'B', 0, 'C',
		'A', 'B', 0, 0, 0, 0,
	};

	memcpy(b + x - 17, pat, 17);
}

/*
 * Literal places, in random bytes with none of their own: one every
 * 8 KiB, and a zero run at 316 KiB.  Cuts land on them as on run places
 * (each one where zd_zseg_reset_find() finds a reset with literals, the
 * last place in [target/2, target]), but for those less than 64 KiB after
 * a run place: the run's place is the last one before 320K, and after it
 * the first place is at 384K, past the target.
 */
START_TEST(test_zseg_cut_literal)
{
	const struct zd_zseg_cut_params p = {
		ZD_LAYOUT_INDEXED, 64 * KIB, 4 * KIB, 16, 0,
	};
	static const uint64_t want[] = {
		64 * KIB, 128 * KIB, 192 * KIB, 256 * KIB,
		316 * KIB + 117,	/* the run's first place */
		384 * KIB, 448 * KIB, 512 * KIB, 576 * KIB,
	};
	const size_t len = 600 * KIB;
	unsigned char *b = malloc(len);
	struct cuts *got = malloc(sizeof(*got));
	uint64_t prev = 0;

	ck_assert_ptr_nonnull(b);
	ck_assert_ptr_nonnull(got);
	zd_test_fill_random(b, len, 77);
	for (size_t x = 8 * KIB; x < len; x += 8 * KIB)
		plant_literal(b, x);
	memset(b + 316 * KIB + 100, 0, 20);	/* places 316K+117 ... */
	run_cuts(&p, b, len, 0, got);
	expect(got, want, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < got->n; i++) {
		struct zd_zseg_reset r;
		uint64_t x = got->at[i];

		ck_assert_msg(zd_zseg_reset_find(b + x, x - prev, &r),
		              "cut %zu at %ju: no reset fits", i, (uintmax_t)x);
		ck_assert(r.pair == (i == 4));
		ck_assert(r.pair || r.keep == 9);
		prev = x;
	}
	free(got);
	free(b);
}
END_TEST

/* Zero runs of 17 bytes every 1000 + 0-15 bytes in random ones; none in
 * [hole - gap, hole + gap). */
static unsigned char *
dense_places(size_t len, size_t hole, size_t gap)
{
	unsigned char *b = malloc(len);

	ck_assert_ptr_nonnull(b);
	zd_test_fill_random(b, len, 31);
	for (size_t at = 0; at + 17 <= len; at += 1000 + b[at] % 16)
		if (at + 17 <= hole - gap || at >= hole + gap)
			memset(b + at, 0, 17);
	return b;
}

static bool
zeros_before(const unsigned char *b, size_t x)
{
	for (size_t i = 1; i <= 17; i++)
		if (b[x - i] != 0)
			return false;
	return true;
}

/* The balanced count: the power of two that puts a segment in
 * [target/2, target); none balanced without a size or past 1024
 * targets. */
START_TEST(test_zseg_cut_count)
{
	const uint64_t M = 1 << 20;

	ck_assert_uint_eq(zd_zseg_cut_count(256 * M, 32 * M), 16);
	ck_assert_uint_eq(zd_zseg_cut_count(256 * M - 1, 32 * M), 8);
	ck_assert_uint_eq(zd_zseg_cut_count(392 * M, 32 * M), 16);
	ck_assert_uint_eq(zd_zseg_cut_count(512 * M, 32 * M), 32);
	ck_assert_uint_eq(zd_zseg_cut_count(115 * M, 32 * M), 4);
	ck_assert_uint_eq(zd_zseg_cut_count(32 * M, 32 * M), 2);
	ck_assert_uint_eq(zd_zseg_cut_count(32 * M - 1, 32 * M), 1);
	ck_assert_uint_eq(zd_zseg_cut_count(1, 32 * M), 1);
	ck_assert_uint_eq(zd_zseg_cut_count(0, 32 * M), 0);
	ck_assert_uint_eq(zd_zseg_cut_count(1023 * M, M), 1024);
	ck_assert_uint_eq(zd_zseg_cut_count(1024 * M, M), 0);
}
END_TEST

/*
 * Balanced, 2 MiB in 16 segments of 128 KiB (a 256 KiB target): where
 * places are dense and lose nothing (random bytes), each cut at the
 * place nearest k * 128 KiB; with none within 20 KiB of 5 * 128 KiB,
 * the nearer of the last before and the first after; the same whatever
 * the feeding; an input under the target, not cut.  And where the place
 * nearest 3 * 128 KiB is in front of a copy of the 16 KiB before it, the
 * cut moves to before those 16 KiB: 16 KiB lost weighs more than 16 KiB
 * away (1/32 of it).
 */
START_TEST(test_zseg_cut_balanced)
{
	const size_t len = 2 << 20, seg = 128 * KIB, hole = 5 * seg;
	struct zd_zseg_cut_params p = {
		ZD_LAYOUT_INDEXED, 256 * KIB, 16 * KIB, 16, len,
	};
	unsigned char *b = dense_places(len, 0, 0);
	struct cuts *got = malloc(sizeof(*got));
	struct cuts *fed = malloc(sizeof(*fed));
	uint64_t before = 0, after = UINT64_MAX, want;

	ck_assert_ptr_nonnull(got);
	ck_assert_ptr_nonnull(fed);
	run_cuts(&p, b, len, 0, got);
	ck_assert_uint_eq(got->n, 15);
	for (size_t k = 1; k < 16; k++) {
		uint64_t x = got->at[k - 1];

		ck_assert_msg(x + 4 * KIB >= k * seg && x <= k * seg + 4 * KIB,
		              "cut %zu at %ju", k, (uintmax_t)x);
		ck_assert(zeros_before(b, x));
	}
	free(b);
	b = dense_places(len, hole, 20 * KIB);
	run_cuts(&p, b, len, 0, got);
	ck_assert_uint_eq(got->n, 15);
	/* the places nearest the hole: zero runs end at them */
	for (size_t x = hole - 20 * KIB; x > 17 && before == 0; x--)
		if (zeros_before(b, x))
			before = x;
	for (size_t x = hole + 20 * KIB; x < len && after == UINT64_MAX; x++)
		if (zeros_before(b, x))
			after = x;
	want = hole - before <= after - hole ? before : after;
	ck_assert_uint_eq(got->at[4], want);
	for (size_t k = 0; k < 3; k++) {
		run_cuts(&p, b, len, k == 0 ? 1 : k == 1 ? 4093 : 65536, fed);
		ck_assert_uint_eq(fed->n, got->n);
		ck_assert_mem_eq(fed->at, got->at, got->n * sizeof(got->at[0]));
	}
	/* a copy of [3 * seg - 16K, 3 * seg) right after 3 * seg */
	free(b);
	b = dense_places(len, 3 * seg, 17 * KIB);
	memset(b + 3 * seg - 17, 0, 17);
	memset(b + 3 * seg - 16 * KIB - 17, 0, 17);
	memcpy(b + 3 * seg, b + 3 * seg - 16 * KIB, 16 * KIB);
	run_cuts(&p, b, len, 0, got);
	ck_assert_uint_eq(got->n, 15);
	ck_assert_uint_eq(got->at[2], 3 * seg - 16 * KIB);
	memset(b + 3 * seg, 0x55, 16 * KIB);	/* no copy: at the place */
	run_cuts(&p, b, len, 0, got);
	ck_assert_uint_eq(got->at[2], 3 * seg);
	/* under the target: one segment */
	p.total = 200 * KIB;
	run_cuts(&p, b, 200 * KIB, 0, got);
	ck_assert_uint_eq(got->n, 0);
	free(fed);
	free(got);
	free(b);
}
END_TEST

/*
 * Balanced, 4 MiB of random bytes in 4 segments of a 1 MiB + 1 target,
 * whose only places are two literal places 20 bytes apart at 1.5 MiB:
 * the second cut falls back to the first place after its offset, and the
 * next may not take the one 20 bytes on, where the segment would be too
 * short for the reset it was found with (a place found before a cut keeps
 * only while the SPAN bytes before it stay in its segment).  Every cut
 * gets its reset from the bytes of its own segment, as the writer finds
 * it, whatever the feeding.
 */
START_TEST(test_zseg_cut_balanced_literal)
{
	const size_t len = 4 << 20, x1 = 3 * (1 << 20) / 2 - 10, x2 = x1 + 20;
	const struct zd_zseg_cut_params p = {
		ZD_LAYOUT_INDEXED, (1 << 20) + 1, ((1 << 20) + 1) / 16, 20, len,
	};
	unsigned char *b = malloc(len);
	struct cuts *got = malloc(sizeof(*got));

	ck_assert_ptr_nonnull(b);
	ck_assert_ptr_nonnull(got);
	zd_test_fill_random(b, len, 88);
	memcpy(b + x1 - 22, "abcdefghabcwxyzwxyQQQQ", 22);
	memcpy(b + x2 - 22, "QQcdefghQQcwxyzwxyRRRR", 22);
	for (size_t piece = 0; piece <= 4096; piece += 4096) {
		uint64_t prev = 0;

		run_cuts(&p, b, len, piece, got);
		ck_assert_uint_eq(got->n, 1);
		ck_assert_uint_eq(got->at[0], x1);
		for (size_t i = 0; i < got->n; i++) {
			struct zd_zseg_reset r;
			uint64_t x = got->at[i];

			ck_assert_msg(zd_zseg_reset_find(b + x, x - prev, &r),
			              "cut %zu at %ju: no reset fits", i,
			              (uintmax_t)x);
			prev = x;
		}
	}
	free(got);
	free(b);
}
END_TEST

/* Every 17 identical bytes, with the smallest target: cuts 17 bytes apart
 * in a run of zeros, none in the random bytes around it. */
START_TEST(test_zseg_cut_tiny_target)
{
	const struct zd_zseg_cut_params p = { ZD_LAYOUT_INDEXED, 1, 1, 10, 0 };
	unsigned char b[1000];
	struct cuts *got = malloc(sizeof(*got));

	ck_assert_ptr_nonnull(got);
	zd_test_fill_random(b, sizeof(b), 7);
	memset(b + 300, 0, 100);
	run_cuts(&p, b, sizeof(b), 0, got);
	/* the first place after 17 bytes: 317; then every 17 bytes */
	ck_assert_uint_eq(got->n, 5);
	for (size_t i = 0; i < got->n; i++)
		ck_assert_uint_eq(got->at[i], 317 + 17 * i);
	free(got);
}
END_TEST

/*
 * Frames and pzstd: at target bytes or the first place after it where a
 * reader stopping there fails (tar-cut.h), with the tail rule.  Random
 * bytes are no tar: anywhere off the 512-byte grid.
 */
START_TEST(test_zseg_cut_fixed)
{
	struct zd_zseg_cut_params p = { ZD_LAYOUT_FRAMES, 1000, 62, 0, 0 };
	unsigned char *b = malloc(5100);
	struct cuts *got = malloc(sizeof(*got));

	ck_assert_ptr_nonnull(b);
	ck_assert_ptr_nonnull(got);
	zd_test_fill_random(b, 5100, 11);
	run_cuts(&p, b, 5050, 0, got);		/* 50 after 5000: no cut */
	ck_assert_uint_eq(got->n, 4);
	for (size_t i = 0; i < got->n; i++)
		ck_assert_uint_eq(got->at[i], 1000 * (i + 1));
	run_cuts(&p, b, 5062, 0, got);
	ck_assert_uint_eq(got->n, 5);
	p.layout = ZD_LAYOUT_PZSTD;
	p.tail = 1;
	run_cuts(&p, b, 5001, 0, got);
	ck_assert_uint_eq(got->n, 5);
	run_cuts(&p, b, 5000, 0, got);
	ck_assert_uint_eq(got->n, 4);
	/* the smallest target: a cut after every byte but the last, off
	 * the grid, once the first block is known to be no tar header
	 * (a reader stopping inside a header would end quietly) */
	p.target = 1;
	run_cuts(&p, b, 1040, 0, got);
	ck_assert_uint_eq(got->n, 1039 - 512 - 1);
	ck_assert_uint_eq(got->at[0], 513);
	for (size_t i = 1; i < got->n; i++)
		ck_assert_uint_ne(got->at[i] % 512, 0);
	/* a target on the grid: the byte after it, and so on */
	p.target = 512;
	run_cuts(&p, b, 2000, 0, got);
	ck_assert_uint_eq(got->n, 3);
	for (size_t i = 0; i < got->n; i++)
		ck_assert_uint_eq(got->at[i], 512 * (i + 1) + 1);
	/* zeros are an empty tar: no place where a reader would fail */
	memset(b, 0, 5100);
	p.target = 1000;
	run_cuts(&p, b, 5100, 0, got);
	ck_assert_uint_eq(got->n, 0);
	free(got);
	free(b);
}
END_TEST

/* The cuts depend on the bytes only, not on how they are fed. */
START_TEST(test_zseg_cut_feed_pieces)
{
	static const enum zd_zstd_layout layouts[] = {
		ZD_LAYOUT_INDEXED, ZD_LAYOUT_FRAMES, ZD_LAYOUT_PZSTD,
	};
	static const size_t pieces[] = { 1, 7, 4096, 100000 };
	const size_t len = 2 << 20;
	unsigned char *b = malloc(len);
	struct cuts *whole = malloc(sizeof(*whole));
	struct cuts *got = malloc(sizeof(*got));

	ck_assert_ptr_nonnull(b);
	ck_assert_ptr_nonnull(whole);
	ck_assert_ptr_nonnull(got);
	zd_test_fill_random(b, len, 99);
	/* zero runs of 17 to 300 bytes, about one per 3 KiB, but in
	 * 700 KiB, with literal places, one per 1 to 4 KiB */
	for (size_t at = 0; at + 300 < len; at += 1000 + b[at] * 16) {
		if (at > 1000 * KIB && at < 1700 * KIB)
			plant_literal(b, at);
		else
			memset(b + at, 0, 17 + b[at + 1]);
	}
	for (size_t l = 0; l < 3; l++) {
		struct zd_zseg_cut_params p = {
			layouts[l], 64 * KIB, 4 * KIB, 16, 0,
		};

		run_cuts(&p, b, len, 0, whole);
		ck_assert_uint_gt(whole->n, 20);
		for (size_t k = 0; k < sizeof(pieces) / sizeof(pieces[0]);
		     k++) {
			run_cuts(&p, b, len, pieces[k], got);
			ck_assert_uint_eq(got->n, whole->n);
			ck_assert_mem_eq(got->at, whole->at,
			                 whole->n * sizeof(whole->at[0]));
		}
	}
	free(got);
	free(whole);
	free(b);
}
END_TEST

START_TEST(test_zseg_cut_bad_params)
{
	static const struct zd_zseg_cut_params bad[] = {
		{ ZD_LAYOUT_SINGLE, 1000, 10, 20, 0 },
		{ ZD_LAYOUT_INDEXED, 0, 1, 20, 0 },
		{ ZD_LAYOUT_INDEXED, 1000, 0, 20, 0 },
		{ ZD_LAYOUT_INDEXED, 1000, 501, 20, 0 },	/* > the shortest */
		{ ZD_LAYOUT_INDEXED, 1000, 10, 9, 0 },	/* window */
		{ ZD_LAYOUT_INDEXED, 1000, 10, 32, 0 },
		{ ZD_LAYOUT_FRAMES, 1000, 1001, 0, 0 },
	};
	struct zd_error err = ZD_ERROR_INIT;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_ptr_null(zd_zseg_cut_new(&bad[i], &err));
		ck_assert_int_eq(err.code, ZD_E_INTERNAL);
	}
	zd_zseg_cut_free(NULL);
}
END_TEST

static Suite *
zseg_cut_suite(void)
{
	Suite *s = suite_create("zseg-cut");
	TCase *core = zd_test_tcase(s, "core");
	TCase *limits = zd_test_tcase(s, "limits");

	tcase_add_test(core, test_zseg_cut_indexed);
	tcase_add_test(core, test_zseg_cut_cheapest);
	tcase_add_test(core, test_zseg_cut_literal);
	tcase_add_test(core, test_zseg_cut_count);
	tcase_add_test(core, test_zseg_cut_balanced);
	tcase_add_test(core, test_zseg_cut_balanced_literal);
	tcase_add_test(core, test_zseg_cut_fixed);
	tcase_add_test(core, test_zseg_cut_feed_pieces);
	tcase_add_test(limits, test_zseg_cut_tiny_target);
	tcase_add_test(limits, test_zseg_cut_bad_params);
	return s;
}

int
main(void)
{
	return zd_test_main(zseg_cut_suite());
}
