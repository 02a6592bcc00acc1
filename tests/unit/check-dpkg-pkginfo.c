/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check-dpkg-pkginfo.c - dpkg's binary package model and field writers */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/dpkg-pkginfo.h"
#include "tests/unit/testutil.h"

static const char stanza[] =
	"Package: Foo\n"
	"Version: 0:1.2-3\n"
	"Architecture: amd64\n"
	"Essential: no\n"
	"Maintainer: Me <me@example.org>\n"
	"X-Custom: custom\n"
	"Description: summary\n";

struct loaded {
	struct zd_control ctl;
	struct zd_pkginfo pi;
};

static void
load(const char *text, struct loaded *l)
{
	struct zd_error err = ZD_ERROR_INIT;

	ck_assert_zd_ok(zd_control_parse(text, strlen(text), "control",
	                                 &l->ctl, &err), &err);
	ck_assert_zd_ok(zd_pkginfo_load(&l->ctl, "amd64", &l->pi, &err),
	                &err);
}

/* zd_pkginfo_field's text for name. */
static void
check_field(const struct zd_pkginfo *pi, const char *name, bool header,
            const char *want)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	ck_assert_ptr_nonnull(f);
	zd_pkginfo_field(f, pi, name, header);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_str_eq(s, want);
	free(s);
}

START_TEST(test_pkginfo_field)
{
	struct loaded l;

	load(stanza, &l);
	check_field(&l.pi, "package", true, "Package: foo\n");
	check_field(&l.pi, "Essential", true, "");
	check_field(&l.pi, "Essential", false, "no");
	check_field(&l.pi, "binary:Package", false, "");
	check_field(&l.pi, "x-custom", true, "X-Custom: custom\n");
	zd_pkginfo_free(&l.pi);
	zd_control_free(&l.ctl);
}
END_TEST

START_TEST(test_pkginfo_unsupported)
{
	static const char *const extra[] = {
		"Depends: foo [amd64]\n", "Depends: foo (> 1)\n",
		"Optional: x\n", "Status: install ok installed\n",
		"Provides: foo (>= 1)\n", "Essential: maybe\n",
		"Depends: foo,\n",
	};

	for (size_t i = 0; i < sizeof(extra) / sizeof(extra[0]); i++) {
		struct zd_error err = ZD_ERROR_INIT;
		struct zd_control ctl;
		struct zd_pkginfo pi;
		char buf[1024];

		snprintf(buf, sizeof(buf), "Package: foo\nVersion: 1\n"
		         "Architecture: all\nMaintainer: m\n"
		         "Description: d\n%s", extra[i]);
		ck_assert_zd_ok(zd_control_parse(buf, strlen(buf), "control",
		                                 &ctl, &err), &err);
		ck_assert_int_eq(zd_pkginfo_load(&ctl, "amd64", &pi, &err),
		                 -1);
		ck_assert_int_eq(err.code, ZD_E_UNSUPPORTED);
		zd_control_free(&ctl);
	}
}
END_TEST

START_TEST(test_pkginfo_check_name)
{
	struct zd_error err = ZD_ERROR_INIT;

	ck_assert_zd_ok(zd_pkginfo_check_name("libc6-dev", &err), &err);
	ck_assert_zd_ok(zd_pkginfo_check_name("g++", &err), &err);
	ck_assert_int_eq(zd_pkginfo_check_name("", &err), -1);
	ck_assert_str_eq(err.msg, "may not be empty string");
	ck_assert_int_eq(zd_pkginfo_check_name("-x", &err), -1);
	ck_assert_str_eq(err.msg, "must start with an alphanumeric character");
	ck_assert_int_eq(zd_pkginfo_check_name("a b", &err), -1);
	ck_assert_str_eq(err.msg, "character ' ' not allowed (only letters, "
	                 "digits and characters '-+._')");
}
END_TEST

static const struct {
	const char *v;
	const char *why;	/* NULL: valid */
} versions[] = {
	{ "1.0", NULL }, { "1:2.3-4ubuntu1~bpo+1", NULL }, { "0", NULL },
	{ "1.0-1-2", NULL }, { " 1.0 ", NULL }, { "2:1:0", NULL },
	{ "", "version string is empty" },
	{ "1.0 2", "version string has embedded spaces" },
	{ ":1", "epoch in version is empty" },
	{ "a:1", "epoch in version is empty" },
	{ "1a:1", "epoch in version is not number" },
	{ "1-a:b", "epoch in version is not number" },
	{ "-1:1", "epoch in version is negative" },
	{ "99999999999:1", "epoch in version is too big" },
	{ "1:", "nothing after colon in version number" },
	{ "1.0-", "revision number is empty" },
	{ "-1", "version number is empty" },
	{ "a1", "version number does not start with digit" },
	{ "1_0", "invalid character in version number" },
	{ "1-a_b", "invalid character in revision number" },
};

START_TEST(test_pkginfo_version_parse)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_version v;
	int rc = zd_version_parse(versions[_i].v, &v, &err);

	zd_version_free(&v);
	if (versions[_i].why == NULL) {
		ck_assert_zd_ok(rc, &err);
		return;
	}
	ck_assert_int_eq(rc, -1);
	ck_assert_int_eq(err.code, ZD_E_FORMAT);
	ck_assert_str_eq(err.msg, versions[_i].why);
}
END_TEST

static Suite *
pkginfo_suite(void)
{
	Suite *s = suite_create("pkginfo");
	TCase *core = zd_test_tcase_plain(s, "core");
	TCase *malformed = zd_test_tcase_plain(s, "malformed");

	tcase_add_test(core, test_pkginfo_field);
	tcase_add_test(core, test_pkginfo_check_name);
	tcase_add_loop_test(core, test_pkginfo_version_parse, 0,
	                    sizeof(versions) / sizeof(versions[0]));
	tcase_add_test(malformed, test_pkginfo_unsupported);
	return s;
}

int
main(void)
{
	return zd_test_main(pkginfo_suite());
}
