/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check-zseg-index.c - index encode, parse and checks (untrusted input) */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "lib/endian.h"
#include "lib/zseg-index.h"
#include "tests/unit/testutil.h"

static struct zd_zseg_record recs[3] = {
	{ 1000, 4000000, 1, 0x1122334455667788u },
	{ 2000, 5000000, 2, 0x8877665544332211u },
	{ 300, 123, 1, 42 },
};

static struct zd_zseg_index
sample(void)
{
	struct zd_zseg_index idx;

	idx.version = 1;
	idx.window_log = 21;
	idx.header_size = 10;
	idx.content_size = 4000000 + 5000000 + 123;
	idx.segments = 4;
	idx.nrec = 3;
	idx.rec = recs;
	return idx;
}

/* Recomputes the trailing check value after a deliberate change. */
static void
fix_check(unsigned char *b, size_t len)
{
	zd_put_le32(b + len - 4, XXH32(b + 8, len - 12, 0));
}

START_TEST(test_zseg_index_round_trip)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_zseg_index idx = sample(), out;
	unsigned char b[ZD_ZSEG_INDEX_MAX];
	size_t len = zd_zseg_index_encode(&idx, b, sizeof(b));

	ck_assert_uint_gt(len, 0);
	ck_assert_uint_eq(zd_le32(b), 0x184D2A5B);
	ck_assert_uint_eq(zd_le32(b + 4), len - 8);
	ck_assert_zd_ok(zd_zseg_index_parse(b, len, &out, &err), &err);
	ck_assert_uint_eq(out.version, 1);
	ck_assert_uint_eq(out.window_log, 21);
	ck_assert_uint_eq(out.header_size, 10);
	ck_assert_uint_eq(out.content_size, idx.content_size);
	ck_assert_uint_eq(out.segments, 4);
	ck_assert_uint_eq(out.nrec, 3);
	for (size_t i = 0; i < 3; i++) {
		ck_assert_uint_eq(out.rec[i].csize, recs[i].csize);
		ck_assert_uint_eq(out.rec[i].usize, recs[i].usize);
		ck_assert_uint_eq(out.rec[i].nseg, recs[i].nseg);
		ck_assert_uint_eq(out.rec[i].hash, recs[i].hash);
	}
	zd_zseg_index_free(&out);
	zd_zseg_index_free(NULL);
	/* version 2: records may end in a reset with literals */
	idx.version = 2;
	len = zd_zseg_index_encode(&idx, b, sizeof(b));
	ck_assert_uint_eq(b[12], 2);
	ck_assert_zd_ok(zd_zseg_index_parse(b, len, &out, &err), &err);
	ck_assert_uint_eq(out.version, 2);
	zd_zseg_index_free(&out);
	idx.version = 1;
	len = zd_zseg_index_encode(&idx, b, sizeof(b));
	/* too small a buffer */
	ck_assert_uint_eq(zd_zseg_index_encode(&idx, b, len - 1), 0);
}
END_TEST

START_TEST(test_zseg_index_every_byte)
{
	struct zd_zseg_index idx = sample(), out;
	unsigned char b[ZD_ZSEG_INDEX_MAX];
	size_t len = zd_zseg_index_encode(&idx, b, sizeof(b));

	/* any single flipped bit is caught (by the check value at least) */
	for (size_t i = 0; i < len; i++) {
		for (unsigned bit = 0; bit < 8; bit++) {
			struct zd_error err = ZD_ERROR_INIT;

			b[i] ^= (unsigned char)(1u << bit);
			ck_assert_int_eq(zd_zseg_index_parse(b, len, &out,
			                                     &err), -1);
			ck_assert_int_eq(err.code, ZD_E_FORMAT);
			ck_assert_ptr_null(out.rec);
			b[i] ^= (unsigned char)(1u << bit);
		}
	}
	/* and every truncation */
	for (size_t n = 0; n < len; n++) {
		struct zd_error err = ZD_ERROR_INIT;

		ck_assert_int_eq(zd_zseg_index_parse(b, n, &out, &err), -1);
	}
}
END_TEST

START_TEST(test_zseg_index_fields)
{
	struct zd_zseg_index idx = sample(), out;
	unsigned char b[ZD_ZSEG_INDEX_MAX], c[ZD_ZSEG_INDEX_MAX];
	size_t len = zd_zseg_index_encode(&idx, b, sizeof(b));
	static const struct {
		size_t off;
		unsigned char val;
		const char *msg;
	} cases[] = {
		{ 8, 'X', "bad index magic" },
		{ 12, 0, "unknown index version 0" },
		{ 12, 3, "unknown index version 3" },
		{ 13, 1, "unknown index flags 0x01" },
		{ 14, 9, "bad index window log 9" },
		{ 14, 42, "bad index window log 42" },
		{ 15, 5, "bad index header size 5" },
		{ 15, 19, "bad index header size 19" },
	};
	struct zd_error err = ZD_ERROR_INIT;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memcpy(c, b, len);
		c[cases[i].off] = cases[i].val;
		fix_check(c, len);
		ck_assert_int_eq(zd_zseg_index_parse(c, len, &out, &err), -1);
		ck_assert_str_eq(err.msg, cases[i].msg);
	}
	/* sums that do not add up, with a valid check value */
	recs[0].usize++;
	len = zd_zseg_index_encode(&idx, c, sizeof(c));
	ck_assert_int_eq(zd_zseg_index_parse(c, len, &out, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "content size"));
	recs[0].usize--;
	idx.segments = 5;
	len = zd_zseg_index_encode(&idx, c, sizeof(c));
	ck_assert_int_eq(zd_zseg_index_parse(c, len, &out, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "segment counts"));
	idx.segments = 2;
	len = zd_zseg_index_encode(&idx, c, sizeof(c));
	ck_assert_int_eq(zd_zseg_index_parse(c, len, &out, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "segment count"));
	idx.segments = 4;
	recs[1].nseg = 0;
	recs[1].usize = 0;
	idx.segments = 3;
	idx.content_size -= 5000000;
	len = zd_zseg_index_encode(&idx, c, sizeof(c));
	ck_assert_int_eq(zd_zseg_index_parse(c, len, &out, &err), -1);
	ck_assert_str_eq(err.msg, "index record 1 has no segment");
	recs[1].nseg = 2;
	recs[1].usize = 5000000;
}
END_TEST

START_TEST(test_zseg_index_overflow)
{
	struct zd_zseg_record big[2] = {
		{ 100, UINT64_MAX, 1, 0 },
		{ 100, 2, 1, 0 },
	};
	struct zd_zseg_index idx = sample(), out;
	unsigned char b[ZD_ZSEG_INDEX_MAX];
	struct zd_error err = ZD_ERROR_INIT;
	size_t len;

	idx.rec = big;
	idx.nrec = 2;
	idx.segments = 2;
	idx.content_size = 1;	/* UINT64_MAX + 2 wraps to 1 */
	len = zd_zseg_index_encode(&idx, b, sizeof(b));
	ck_assert_int_eq(zd_zseg_index_parse(b, len, &out, &err), -1);
	ck_assert_str_eq(err.msg, "index record 1 sizes overflow");
	/* an overlong varint */
	idx.nrec = 1;
	idx.segments = 1;
	idx.content_size = 0;
	big[0].usize = 0;
	len = zd_zseg_index_encode(&idx, b, sizeof(b));
	ck_assert_uint_eq(b[16], 0);	/* content size 0 */
	memmove(b + 18, b + 17, len - 17);
	b[16] = 0x80;
	b[17] = 0x00;
	zd_put_le32(b + 4, (uint32_t)(len + 1 - 8));
	fix_check(b, len + 1);
	ck_assert_int_eq(zd_zseg_index_parse(b, len + 1, &out, &err), -1);
	ck_assert_str_eq(err.msg, "bad index content size");
}
END_TEST

START_TEST(test_zseg_index_frame_check)
{
	struct zd_zseg_index idx = sample();
	struct zd_zstd_frame_info fi;
	struct zd_error err = ZD_ERROR_INIT;

	memset(&fi, 0, sizeof(fi));
	fi.hdr.header_size = 10;
	fi.hdr.window_size = 1 << 21;
	fi.hdr.has_content_size = true;
	fi.hdr.content_size = idx.content_size;
	fi.hdr.checksum = true;
	fi.size = 10 + 3300 + 4;
	ck_assert_zd_ok(zd_zseg_index_check_frame(&idx, &fi, &err), &err);
	fi.size++;
	ck_assert_int_eq(zd_zseg_index_check_frame(&idx, &fi, &err), -1);
	ck_assert_str_eq(err.msg, "index records do not cover the frame");
	fi.size -= 2;
	ck_assert_int_eq(zd_zseg_index_check_frame(&idx, &fi, &err), -1);
	ck_assert_str_eq(err.msg, "index record 2 size exceeds frame");
	fi.size++;
	fi.hdr.window_size <<= 1;
	ck_assert_int_eq(zd_zseg_index_check_frame(&idx, &fi, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "window"));
	fi.hdr.window_size >>= 1;
	fi.hdr.content_size++;
	ck_assert_int_eq(zd_zseg_index_check_frame(&idx, &fi, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "content size"));
	fi.hdr.content_size--;
	fi.hdr.header_size = 14;
	ck_assert_int_eq(zd_zseg_index_check_frame(&idx, &fi, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "header size"));
}
END_TEST

START_TEST(test_zseg_index_limits)
{
	/* the largest record count that fits stays within 4 KiB */
	struct zd_zseg_record *many = calloc(1000, sizeof(*many));
	struct zd_zseg_index idx = sample(), out;
	unsigned char b[ZD_ZSEG_INDEX_MAX];
	struct zd_error err = ZD_ERROR_INIT;
	size_t n, len = 0;

	for (size_t i = 0; i < 1000; i++) {
		many[i].csize = UINT32_MAX;
		many[i].usize = UINT32_MAX;
		many[i].nseg = 1;
		many[i].hash = ~(uint64_t)i;
	}
	idx.rec = many;
	for (n = 1; n < 1000; n++) {
		size_t l;

		idx.nrec = n;
		idx.segments = n;
		idx.content_size = (uint64_t)n * UINT32_MAX;
		l = zd_zseg_index_encode(&idx, b, sizeof(b));
		if (l == 0)
			break;
		len = l;
	}
	ck_assert_uint_gt(n, 150);
	ck_assert_uint_le(len, ZD_ZSEG_INDEX_MAX);
	idx.nrec = n - 1;
	idx.segments = n - 1;
	idx.content_size = (uint64_t)(n - 1) * UINT32_MAX;
	len = zd_zseg_index_encode(&idx, b, sizeof(b));
	ck_assert_zd_ok(zd_zseg_index_parse(b, len, &out, &err), &err);
	ck_assert_uint_eq(out.nrec, n - 1);
	zd_zseg_index_free(&out);
	free(many);
}
END_TEST

static Suite *
zseg_index_suite(void)
{
	Suite *s = suite_create("zseg-index");
	TCase *core = zd_test_tcase_plain(s, "core");
	TCase *malformed = zd_test_tcase_plain(s, "malformed");
	TCase *limits = zd_test_tcase_plain(s, "limits");

	tcase_add_test(core, test_zseg_index_round_trip);
	tcase_add_test(malformed, test_zseg_index_every_byte);
	tcase_add_test(malformed, test_zseg_index_fields);
	tcase_add_test(malformed, test_zseg_index_overflow);
	tcase_add_test(malformed, test_zseg_index_frame_check);
	tcase_add_test(limits, test_zseg_index_limits);
	return s;
}

int
main(void)
{
	return zd_test_main(zseg_index_suite());
}
