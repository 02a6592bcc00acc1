/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check-tar-safepath.c - tar member name rules: check, normalize, split */
#include "config.h"

#include <check.h>
#include <string.h>

#include "lib/tar-safepath.h"
#include "tests/unit/testutil.h"

static const struct {
	const char *in, *out;
} good[] = {
	{ "./", "" },
	{ ".", "" },
	{ "./usr/bin/x", "usr/bin/x" },
	{ "usr//bin/./x/", "usr/bin/x" },
	{ "usr/..x/y", "usr/..x/y" },
	{ "a/b..", "a/b.." },
	{ "./a/./b", "a/b" },
	{ "...", "..." },
	{ ".hidden/.x", ".hidden/.x" },
};

START_TEST(test_safepath_normalize)
{
	struct zd_error err = ZD_ERROR_INIT;
	char out[ZD_SAFEPATH_MAX];

	ck_assert_zd_ok(zd_tar_safepath_normalize(good[_i].in, out, sizeof(out),
	                                      &err), &err);
	ck_assert_str_eq(out, good[_i].out);
	ck_assert_zd_ok(zd_tar_safepath_check(good[_i].in, &err), &err);
}
END_TEST

static const struct {
	const char *in, *why;
} bad[] = {
	{ "../x", "'..' path component refused" },
	{ "./../x", "'..' path component refused" },
	{ "./a/../../x", "'..' path component refused" },
	{ "a/..", "'..' path component refused" },
	{ "..", "'..' path component refused" },
	{ "a//../b", "'..' path component refused" },
	{ "/abs", "absolute path refused" },
	{ "//abs", "absolute path refused" },
	{ "", "empty name" },
};

START_TEST(test_safepath_refused)
{
	struct zd_error err = ZD_ERROR_INIT;
	char out[ZD_SAFEPATH_MAX];

	ck_assert_int_eq(zd_tar_safepath_normalize(bad[_i].in, out, sizeof(out),
	                                       &err), -1);
	ck_assert_int_eq(err.code, ZD_E_FORMAT);
	ck_assert_msg(strstr(err.msg, bad[_i].why) != NULL, "%s: %s",
	              bad[_i].in, err.msg);
	if (bad[_i].in[0] != '\0')
		ck_assert_msg(strstr(err.msg, bad[_i].in) != NULL,
		              "message does not name '%s': %s", bad[_i].in,
		              err.msg);
	err = (struct zd_error)ZD_ERROR_INIT;
	ck_assert_int_eq(zd_tar_safepath_check(bad[_i].in, &err), -1);
}
END_TEST

START_TEST(test_safepath_limits)
{
	struct zd_error err = ZD_ERROR_INIT;
	char name[600], out[16];

	memset(name, 'a', 300);
	name[300] = '\0';
	ck_assert_int_eq(zd_tar_safepath_normalize(name, out, sizeof(out),
	                                           &err), -1);
	ck_assert_int_eq(err.code, ZD_E_LIMIT);
	ck_assert_ptr_nonnull(strstr(err.msg, "component too long"));
	err = (struct zd_error)ZD_ERROR_INIT;
	ck_assert_int_eq(zd_tar_safepath_normalize("abcdefgh/ijklmnop", out,
	                                       sizeof(out), &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "path too long"));
	/* Exactly fitting: 15 bytes and the NUL. */
	ck_assert_zd_ok(zd_tar_safepath_normalize("./abcdefg/ijklmno", out,
	                                      sizeof(out), &err), &err);
	ck_assert_str_eq(out, "abcdefg/ijklmno");
}
END_TEST

START_TEST(test_safepath_split)
{
	char a[] = "usr/bin/x", b[] = "top";
	const char *dir;

	ck_assert_str_eq(zd_tar_safepath_split(a, &dir), "x");
	ck_assert_str_eq(dir, "usr/bin");
	ck_assert_str_eq(zd_tar_safepath_split(b, &dir), "top");
	ck_assert_str_eq(dir, "");
}
END_TEST

static Suite *
safepath_suite(void)
{
	Suite *s = suite_create("safepath");
	TCase *core = zd_test_tcase_plain(s, "core");
	TCase *malformed = zd_test_tcase_plain(s, "malformed");
	TCase *limits = zd_test_tcase_plain(s, "limits");

	tcase_add_loop_test(core, test_safepath_normalize, 0,
	                    sizeof(good) / sizeof(*good));
	tcase_add_test(core, test_safepath_split);
	tcase_add_loop_test(malformed, test_safepath_refused, 0,
	                    sizeof(bad) / sizeof(*bad));
	tcase_add_test(limits, test_safepath_limits);
	return s;
}

int
main(void)
{
	return zd_test_main(safepath_suite());
}
