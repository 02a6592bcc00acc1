/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check-zseg-reset.c - the resets that end a segment, decoded by libzstd:
 * two segments spliced around a reset decode to the input as one frame,
 * and the first one alone (its last block marked last) to its own bytes
 */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "lib/zseg-reset.h"
#include "lib/zstd-frame.h"
#include "tests/unit/testutil.h"

/* Compresses in[0, n) as a frame without checksum and appends its
 * blocks, none marked last, to out at *len. */
static void
append_blocks(unsigned char *out, size_t *len, const unsigned char *in,
              size_t n, int level)
{
	struct zd_error err = ZD_ERROR_INIT;
	size_t cap = ZSTD_compressBound(n), zn, pos, last = 0;
	unsigned char *z = malloc(cap);
	ZSTD_CCtx *c = ZSTD_createCCtx();
	struct zd_zstd_fhdr h;

	ck_assert_ptr_nonnull(z);
	ck_assert_ptr_nonnull(c);
	ck_assert(!ZSTD_isError(ZSTD_CCtx_setParameter(
		c, ZSTD_c_compressionLevel, level)));
	zn = ZSTD_compress2(c, z, cap, in, n);
	ck_assert_msg(!ZSTD_isError(zn), "%s", ZSTD_getErrorName(zn));
	ck_assert_zd_ok(zd_zstd_fhdr_parse(z, zn, &h, &err), &err);
	for (pos = h.header_size; pos < zn;) {
		struct zd_zstd_block b;

		ck_assert_zd_ok(zd_zstd_block_parse(z + pos, ZD_ZSTD_BLOCK_MAX,
		                                    &b, &err), &err);
		last = pos;
		pos += 3 + (size_t)b.csize;
		if (b.last)
			break;
	}
	ck_assert_uint_eq(pos, zn);
	z[last] &= 0xfe;
	memcpy(out + *len, z + h.header_size, zn - h.header_size);
	*len += zn - h.header_size;
	ZSTD_freeCCtx(c);
	free(z);
}

/* The last block of out[0, len) marked last (a reset's B or F). */
static void
mark_last(unsigned char *out, size_t len)
{
	out[len - ZD_ZSEG_RESET_LAST] |= 1;
}

/* The sizes of R8 and R4 at the front of a reset with literals of n
 * bytes, by their block headers. */
static void
reset_blocks(const unsigned char *r, size_t n, size_t *l8, size_t *l4)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_zstd_block b;

	ck_assert_zd_ok(zd_zstd_block_parse(r, ZD_ZSTD_BLOCK_MAX, &b, &err),
	                &err);
	*l8 = 3 + (size_t)b.csize;
	ck_assert_zd_ok(zd_zstd_block_parse(r + *l8, ZD_ZSTD_BLOCK_MAX, &b,
	                                    &err), &err);
	*l4 = 3 + (size_t)b.csize;
	ck_assert_uint_eq(*l8 + *l4 + ZD_ZSEG_RESET_LAST, n);
}

static void
decodes_to(const unsigned char *z, size_t zn, const unsigned char *want,
           size_t n, const char *what, size_t cut)
{
	unsigned char *got = malloc(n + 16);
	size_t rc;

	ck_assert_ptr_nonnull(got);
	rc = ZSTD_decompress(got, n + 16, z, zn);
	ck_assert_msg(!ZSTD_isError(rc), "%s, cut %zu: %s", what, cut,
	              ZSTD_getErrorName(rc));
	ck_assert_msg(rc == n && memcmp(got, want, n) == 0,
	              "%s, cut %zu: wrong bytes (%zu of %zu)", what, cut, rc,
	              n);
	free(got);
}

/*
 * in[0, n) cut at x with reset r: [0, x - keep) and [x, n) compressed as
 * frames of their own, spliced around the reset under one header; that
 * frame decodes to in, and the first part with its reset alone to
 * in[0, x).  The reset is returned in *rlen bytes.
 */
static void
check_cut(const unsigned char *in, size_t n, size_t x,
          const struct zd_zseg_reset *r, int level, size_t *rlen)
{
	unsigned char *z = malloc(ZSTD_compressBound(n) + 2 * 64 +
	                          ZD_ZSEG_RESET_MAX);
	size_t zn, hl, reset;

	ck_assert_ptr_nonnull(z);
	hl = zd_zstd_fhdr_write(z, 23, false, 0, false);
	zn = hl;
	append_blocks(z, &zn, in, x - r->keep, level);
	reset = zd_zseg_reset_encode(in + x, r, z + zn);
	ck_assert_uint_le(reset, ZD_ZSEG_RESET_MAX);
	ck_assert_uint_ge(reset, ZD_ZSEG_RESET_SIZE);
	zn += reset;
	ck_assert_int_eq(zd_zseg_reset_tail(z + hl, zn - hl),
	                 r->pair ? 2 : 1);
	if (!r->pair) {
		/* R8 and R4 as a reader's walk finds them */
		size_t l8, l4;

		reset_blocks(z + zn - reset, reset, &l8, &l4);
		ck_assert(zd_zseg_reset_block_ok(z + zn - reset, l8, 8));
		ck_assert(zd_zseg_reset_block_ok(z + zn - reset + l8, l4, 4));
		ck_assert(!zd_zseg_reset_block_ok(z + zn - reset, l8, 4));
		ck_assert(!zd_zseg_reset_block_ok(z + zn - reset + l8, l4, 8));
	}
	/* the first segment alone */
	mark_last(z, zn);
	decodes_to(z, zn, in, x, "first segment alone", x);
	z[zn - ZD_ZSEG_RESET_LAST] &= 0xfe;
	/* both, as one frame: the second one's frame starts at {1, 4, 8} */
	append_blocks(z, &zn, in + x, n - x, level);
	{
		/* mark the very last block last: walk to it */
		struct zd_error err = ZD_ERROR_INIT;
		size_t pos = hl, last = hl;

		while (pos < zn) {
			struct zd_zstd_block b;

			ck_assert_zd_ok(zd_zstd_block_parse(z + pos,
			                                    ZD_ZSTD_BLOCK_MAX,
			                                    &b, &err), &err);
			last = pos;
			pos += 3 + (size_t)b.csize;
		}
		ck_assert_uint_eq(pos, zn);
		z[last] |= 1;
	}
	decodes_to(z, zn, in, n, "both segments", x);
	*rlen = reset;
	free(z);
}

START_TEST(test_zseg_reset_constants)
{
	struct zd_zseg_reset r;
	unsigned char b[64], out[ZD_ZSEG_RESET_MAX];
	size_t n;

	/* 17 alike: the pair, whatever the byte */
	memset(b, 'x', sizeof(b));
	b[64 - 18] = 'y';
	ck_assert(zd_zseg_reset_find(b + 64, 64, &r));
	ck_assert(r.pair);
	ck_assert_uint_eq(r.keep, 9);
	ck_assert_uint_eq(zd_zseg_reset_encode(b + 64, &r, out),
	                  ZD_ZSEG_RESET_SIZE);
	ck_assert_mem_eq(out, zd_zseg_reset, ZD_ZSEG_RESET_SIZE);
	/* 16 alike: a reset with literals; R8's match cannot start in the
	 * last 17 (it would reach the 'y'), so it makes 13 bytes, R8 with
	 * 4 literals */
	b[64 - 17] = 'y';
	ck_assert(zd_zseg_reset_find(b + 64, 64, &r));
	ck_assert(!r.pair);
	ck_assert_uint_eq(r.keep, 13);
	ck_assert_uint_eq(r.at4, 6);
	n = zd_zseg_reset_encode(b + 64, &r, out);
	ck_assert_uint_eq(n, 34);
	ck_assert_mem_eq(out, "\x5c\x00\x00\x20xxxx\x01\x54\x00\x03\x00\x0b",
	                 14);
	ck_assert_mem_eq(out + 14, "\x3c\x00\x00\x00\x01\x54\x00\x02\x00\x07",
	                 10);
	ck_assert_mem_eq(out + 24, zd_zseg_reset_last, ZD_ZSEG_RESET_LAST);
	ck_assert_int_eq(zd_zseg_reset_tail(out, n), 1);
	ck_assert_int_eq(zd_zseg_reset_tail(zd_zseg_reset, 20), 2);
	ck_assert_int_eq(zd_zseg_reset_tail(out, 9), 0);
	ck_assert_int_eq(zd_zseg_reset_tail(b, 34), 0);
	/* too few bytes of its own */
	ck_assert(!zd_zseg_reset_find(b + 64, 16, &r));
}
END_TEST

/* Random bytes ending in 4 zeros (F fits), b[0, 256). */
static void
tail_f(unsigned char *b)
{
	zd_test_fill_random(b, 256, 7);
	memset(b + 252, 0, 4);
}

/* No place: the last 4 not alike, or no repeat at 4 or at 8 in reach. */
START_TEST(test_zseg_reset_none)
{
	struct zd_zseg_reset r;
	unsigned char b[256];

	tail_f(b);
	b[252] = 1;
	ck_assert(!zd_zseg_reset_find(b + 256, 256, &r));
	/* 4 alike, but nothing 4 and 8 back */
	tail_f(b);
	ck_assert(!zd_zseg_reset_find(b + 256, 256, &r));
	/* a repeat at 4 (b[240, 243) = b[236, 239)), none at 8 before it */
	memcpy(b + 240, b + 236, 3);
	ck_assert(!zd_zseg_reset_find(b + 256, 256, &r));
	/* one at 8 before it: found, making 256 - 220 bytes */
	memcpy(b + 220, b + 212, 3);
	ck_assert(zd_zseg_reset_find(b + 256, 256, &r));
	ck_assert(!r.pair);
	ck_assert_uint_eq(r.keep, 36);
	ck_assert_uint_eq(r.at4, 16);
	/* out of reach: the repeat at 8 more than ZD_ZSEG_RESET_SPAN - 8
	 * back */
	tail_f(b);
	memcpy(b + 240, b + 236, 3);
	memcpy(b + 190, b + 182, 3);
	ck_assert(!zd_zseg_reset_find(b + 256, 256, &r));
	/* or past the bytes that are the segment's */
	memcpy(b + 220, b + 212, 3);
	ck_assert(zd_zseg_reset_find(b + 256, 44, &r));
	ck_assert(!zd_zseg_reset_find(b + 256, 43, &r));
	/* a repeat at 8 that would overlap R4's match does not count:
	 * b[242, 245) = b[234, 237) and b[244, 247) = b[240, 243) */
	tail_f(b);
	memcpy(b + 240, "\x01\x02\x03", 3);
	memcpy(b + 244, "\x01\x02\x03", 3);
	b[234] = 3;
	b[235] = b[243];
	b[236] = 1;
	ck_assert(!zd_zseg_reset_find(b + 256, 256, &r));
	memcpy(b + 230, b + 222, 3);
	ck_assert(zd_zseg_reset_find(b + 256, 256, &r));
	ck_assert_uint_eq(r.keep, 256 - 230);
	ck_assert_uint_eq(r.at4, 256 - 244);
}
END_TEST

/* The longest reset: R8 as far back as it can be, 47 literals after its
 * match (a 2-byte literals header), R4 right before F. */
START_TEST(test_zseg_reset_longest)
{
	struct zd_zseg_reset r;
	unsigned char b[4096];
	size_t rlen;

	zd_test_fill_random(b, sizeof(b), 11);
	memset(b + 4092, 0, 4);
	memcpy(b + 4090, b + 4086, 2);	/* b[4090, 4093) = b[4086, 4089) */
	b[4088] = 0;
	memcpy(b + 4040, b + 4032, 3);
	ck_assert(zd_zseg_reset_find(b + 4096, 4096, &r));
	ck_assert_uint_eq(r.keep, ZD_ZSEG_RESET_SPAN - 8);
	ck_assert_uint_eq(r.at4, 6);
	check_cut(b, sizeof(b), sizeof(b), &r, 3, &rlen);
	ck_assert_uint_eq(rlen, 11 + 47 + 10 + ZD_ZSEG_RESET_LAST);
}
END_TEST

/*
 * Blocks that are not R8 or R4 as the writer makes them: any header,
 * literals header or sequence byte changed, or another length, is
 * refused; only the literals and the match length (3 to 34) may be
 * anything.  With a 2-byte literals header (R8 here) and a 1-byte one.
 */
START_TEST(test_zseg_reset_block_refused)
{
	struct zd_zseg_reset r;
	unsigned char b[4096], z[ZD_ZSEG_RESET_MAX];
	size_t n, l8, l4;

	zd_test_fill_random(b, sizeof(b), 11);
	memset(b + 4092, 0, 4);
	memcpy(b + 4090, b + 4086, 2);
	b[4088] = 0;
	memcpy(b + 4040, b + 4032, 3);
	ck_assert(zd_zseg_reset_find(b + 4096, 4096, &r) && !r.pair);
	n = zd_zseg_reset_encode(b + 4096, &r, z);
	reset_blocks(z, n, &l8, &l4);
	ck_assert_uint_eq(z[3] & 0xf, 4);	/* R8: 2-byte header */
	ck_assert_uint_eq(z[l8 + 3] & 7, 0);	/* R4: 1-byte header */
	for (int k = 0; k < 2; k++) {
		unsigned char *blk = k == 0 ? z : z + l8;
		size_t len = k == 0 ? l8 : l4, lh = k == 0 ? 2 : 1;
		unsigned off = k == 0 ? 8 : 4;

		ck_assert(zd_zseg_reset_block_ok(blk, len, off));
		ck_assert(!zd_zseg_reset_block_ok(blk, len - 1, off));
		ck_assert(!zd_zseg_reset_block_ok(blk, len, 1));
		for (size_t i = 0; i < len; i++) {
			bool lit = i >= 3 + lh && i < len - 6;

			for (unsigned bit = 0; bit < 8; bit++) {
				/* a match length code of 0-31 is any match
				 * of 3-34 */
				bool ok = lit || (i == len - 2 && bit < 5);

				blk[i] ^= (unsigned char)(1u << bit);
				ck_assert_msg(zd_zseg_reset_block_ok(blk, len,
				                                     off) == ok,
				              "block %d byte %zu bit %u", k, i,
				              bit);
				blk[i] ^= (unsigned char)(1u << bit);
			}
		}
	}
}
END_TEST

/*
 * Every place a reset fits in inputs of few byte values (repeats at 4 and
 * 8 everywhere, runs of 4 often), with literals short and long (2-byte
 * literal headers), decoded by libzstd as above.
 */
START_TEST(test_zseg_reset_decodes)
{
	enum { N = 3000 };
	unsigned char *in = malloc(N);
	size_t found = 0, pairs = 0;

	ck_assert_ptr_nonnull(in);
	for (uint64_t seed = 1; seed <= 6; seed++) {
		unsigned vals = 2 + (unsigned)seed;

		/* each byte the one before it, or one of vals values */
		zd_test_fill_random(in, N, seed);
		for (size_t i = 1; i < N; i++)
			in[i] = in[i] & 1 || i % 400 < 24 ? in[i - 1] :
			        (unsigned char)(in[i] / 2 % vals * 37);
		for (size_t x = 100; x < N - 100; x++) {
			struct zd_zseg_reset r;
			size_t rlen;

			if (!zd_zseg_reset_find(in + x, x, &r))
				continue;
			ck_assert_uint_le(r.keep, ZD_ZSEG_RESET_SPAN - 8);
			check_cut(in, N, x, &r, 1 + (int)(x % 19), &rlen);
			found++;
			if (r.pair)
				pairs++;
		}
	}
	ck_assert_uint_gt(found, 1000);
	ck_assert_uint_gt(pairs, 10);
	free(in);
}
END_TEST

/* The path of the libzstd this test runs with, from /proc/self/maps. */
static char *
libzstd_path(void)
{
	char *maps = zd_test_read_text("/proc/self/maps"), *p, *e;

	p = strstr(maps, "/libzstd.so");
	ck_assert_msg(p != NULL, "no libzstd in /proc/self/maps");
	while (p > maps && p[-1] != ' ')
		p--;
	e = strchr(p, '\n');
	ck_assert_ptr_nonnull(e);
	*e = '\0';
	p = strdup(p);
	free(maps);
	return p;
}

/* Machine code, where runs of 17 are rare and resets with literals are
 * not: libzstd's own. */
START_TEST(test_zseg_reset_binary)
{
	size_t len, found = 0;
	char *path = libzstd_path();
	unsigned char *in = zd_test_read_file(path, &len);

	ck_assert_uint_gt(len, 300000);
	for (size_t y = 65536; y + 65536 < len && found < 40; y++) {
		struct zd_zseg_reset r;
		size_t rlen;

		if (!zd_zseg_reset_find(in + y, y, &r) || r.pair)
			continue;
		check_cut(in + y - 65536, 131072, 65536, &r, 19, &rlen);
		found++;
		y += 997;
	}
	ck_assert_uint_ge(found, 20);
	free(path);
	free(in);
}
END_TEST

static Suite *
zseg_reset_suite(void)
{
	Suite *s = suite_create("zseg-reset");
	TCase *core = zd_test_tcase_plain(s, "core");
	TCase *malformed = zd_test_tcase_plain(s, "malformed");

	tcase_add_test(core, test_zseg_reset_constants);
	tcase_add_test(core, test_zseg_reset_decodes);
	tcase_add_test(core, test_zseg_reset_binary);
	tcase_add_test(core, test_zseg_reset_longest);
	tcase_add_test(malformed, test_zseg_reset_none);
	tcase_add_test(malformed, test_zseg_reset_block_refused);
	return s;
}

int
main(void)
{
	return zd_test_main(zseg_reset_suite());
}
