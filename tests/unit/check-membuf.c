/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check-membuf.c - the growing buffer sink: contents, NUL, limit */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "lib/membuf.h"
#include "tests/unit/testutil.h"

START_TEST(test_membuf_grows)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_membuf b = ZD_MEMBUF_INIT(SIZE_MAX - 1);
	size_t len = 300000;
	unsigned char *in = malloc(len);

	ck_assert_ptr_nonnull(in);
	zd_test_fill_random(in, len, 7);
	/* Past the first 64 KiB and several doublings, in uneven writes. */
	zd_test_write_uneven(zd_membuf_write, &b, in, len, 70000, 3);
	ck_assert_uint_eq(b.len, len);
	ck_assert_uint_gt(b.cap, len);
	ck_assert_int_eq(memcmp(b.buf, in, len), 0);
	ck_assert_int_eq(b.buf[len], '\0');
	free(b.buf);
	free(in);
	/* Text reads as a string, even an empty one. */
	b = (struct zd_membuf)ZD_MEMBUF_INIT(16);
	ck_assert_zd_ok(zd_membuf_write(&b, "", 0, &err), &err);
	ck_assert_str_eq(b.buf, "");
	ck_assert_zd_ok(zd_membuf_write(&b, "Package: a", 10, &err), &err);
	ck_assert_str_eq(b.buf, "Package: a");
	free(b.buf);
}
END_TEST

START_TEST(test_membuf_limit)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_membuf b = ZD_MEMBUF_INIT(10);
	struct zd_sink sink = ZD_SINK_MEMBUF(&b);

	ck_assert_zd_ok(sink.write(sink.ctx, "0123456789", 10, &err), &err);
	ck_assert_int_eq(sink.write(sink.ctx, "x", 1, &err), -1);
	ck_assert_int_eq(err.code, ZD_E_LIMIT);
	ck_assert_str_eq(err.msg, "decoded member over 10 bytes");
	/* What was taken stays. */
	ck_assert_uint_eq(b.len, 10);
	ck_assert_str_eq(b.buf, "0123456789");
	free(b.buf);
}
END_TEST

static Suite *
membuf_suite(void)
{
	Suite *s = suite_create("membuf");
	TCase *core = zd_test_tcase(s, "core");
	TCase *limits = zd_test_tcase(s, "limits");

	tcase_add_test(core, test_membuf_grows);
	tcase_add_test(limits, test_membuf_limit);
	return s;
}

int
main(void)
{
	return zd_test_main(membuf_suite());
}
