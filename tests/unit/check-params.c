/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check-params.c - the names of the parameters' values */
#include "config.h"

#include <check.h>

#include "lib/params.h"
#include "tests/unit/testutil.h"

START_TEST(test_params_layout_names)
{
	static const char *const names[] = {
		"indexed", "single", "frames", "pzstd", "dpkg",
	};
	enum zd_zstd_layout l;

	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
		ck_assert_int_eq(zd_layout_parse(names[i], &l), 0);
		ck_assert_int_eq(l, (enum zd_zstd_layout)i);
		ck_assert_str_eq(zd_layout_name(l), names[i]);
	}
	l = ZD_LAYOUT_PZSTD;
	ck_assert_int_eq(zd_layout_parse("PZSTD", &l), -1);
	ck_assert_int_eq(zd_layout_parse("", &l), -1);
	ck_assert_int_eq(zd_layout_parse("indexed ", &l), -1);
	ck_assert_int_eq(l, ZD_LAYOUT_PZSTD);
	ck_assert_str_eq(zd_layout_name((enum zd_zstd_layout)99), "unknown");
}
END_TEST

static Suite *
params_suite(void)
{
	Suite *s = suite_create("params");
	TCase *core = zd_test_tcase(s, "core");

	tcase_add_test(core, test_params_layout_names);
	return s;
}

int
main(void)
{
	return zd_test_main(params_suite());
}
