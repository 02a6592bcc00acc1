/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check-numparse.c - the number and size parsers */
#include "config.h"

#include <check.h>
#include <string.h>

#include "lib/numparse.h"
#include "tests/unit/testutil.h"

START_TEST(test_numparse_valid)
{
	struct zd_error err = ZD_ERROR_INIT;
	long long v = 0;

	ck_assert_zd_ok(zd_parse_ll("19", 0, 22, "level", &v, &err), &err);
	ck_assert_int_eq(v, 19);
	ck_assert_zd_ok(zd_parse_ll("-7", -131072, 22, "level", &v, &err),
	                &err);
	ck_assert_int_eq(v, -7);
}
END_TEST

START_TEST(test_numparse_not_integer)
{
	static const char *const bad[] = {
		"foobar", "", " 1", "1 ", "1x", "0x10", "--1", "1.5", "+",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct zd_error err = ZD_ERROR_INIT;
		long long v = 42;

		ck_assert_int_eq(zd_parse_ll(bad[i], 0, 9, "compression level",
		                             &v, &err), -1);
		ck_assert_int_eq(err.code, ZD_E_USAGE);
		ck_assert_msg(strstr(err.msg, "is not an integer") != NULL,
		              "'%s': %s", bad[i], err.msg);
		ck_assert_int_eq(v, 42);
	}
}
END_TEST

START_TEST(test_numparse_range)
{
	struct zd_error err = ZD_ERROR_INIT;
	long long v;

	ck_assert_int_eq(zd_parse_ll("10", 0, 9, "level", &v, &err), -1);
	ck_assert_str_eq(err.msg, "level 10 is out of range (0 to 9)");
	ck_assert_int_eq(zd_parse_ll("99999999999999999999", 0, 9, "level",
	                             &v, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "out of range"));
}
END_TEST

START_TEST(test_numparse_size)
{
	struct zd_error err = ZD_ERROR_INIT;
	uint64_t v;

	ck_assert_zd_ok(zd_parse_size("4M", 1, UINT64_MAX, "size", &v, &err),
	                &err);
	ck_assert_uint_eq(v, 4u << 20);
	ck_assert_zd_ok(zd_parse_size("16MiB", 1, UINT64_MAX, "size", &v,
	                              &err), &err);
	ck_assert_uint_eq(v, 16u << 20);
	ck_assert_zd_ok(zd_parse_size("4096", 1, UINT64_MAX, "size", &v, &err),
	                &err);
	ck_assert_uint_eq(v, 4096);
	ck_assert_int_eq(zd_parse_size("4X", 1, UINT64_MAX, "size", &v, &err),
	                 -1);
	ck_assert_int_eq(zd_parse_size("-4", 1, UINT64_MAX, "size", &v, &err),
	                 -1);
	ck_assert_int_eq(zd_parse_size("0", 1, UINT64_MAX, "size", &v, &err),
	                 -1);
	ck_assert_int_eq(zd_parse_size("99999999999G", 1, UINT64_MAX, "size",
	                               &v, &err), -1);
}
END_TEST

static Suite *
numparse_suite(void)
{
	Suite *s = suite_create("numparse");
	TCase *core = zd_test_tcase_plain(s, "core");
	TCase *malformed = zd_test_tcase_plain(s, "malformed");

	tcase_add_test(core, test_numparse_valid);
	tcase_add_test(core, test_numparse_size);
	tcase_add_test(malformed, test_numparse_not_integer);
	tcase_add_test(malformed, test_numparse_range);
	return s;
}

int
main(void)
{
	return zd_test_main(numparse_suite());
}
