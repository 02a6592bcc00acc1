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

static Suite *
pkginfo_suite(void)
{
	Suite *s = suite_create("pkginfo");
	TCase *core = zd_test_tcase_plain(s, "core");
	TCase *malformed = zd_test_tcase_plain(s, "malformed");

	tcase_add_test(core, test_pkginfo_field);
	tcase_add_test(malformed, test_pkginfo_unsupported);
	return s;
}

int
main(void)
{
	return zd_test_main(pkginfo_suite());
}
