/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check-dpkg-format.c - the --showformat language and dpkg's field writers */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/dpkg-format.h"
#include "tests/unit/testutil.h"

static const char stanza[] =
	"Package: Foo\n"
	"Source: foo-src (2:1.0-1)\n"
	"Version: 0:1.2-3\n"
	"Architecture: amd64\n"
	"Multi-Arch: same\n"
	"Priority: OPTIONAL\n"
	"Maintainer: Me <me@example.org>\n"
	"Depends: libc6 (>=2.36),  Bar | baz:any (<<  1:3)\n"
	"X-Custom: custom\n"
	"Description: summary\n"
	" long\n";

struct loaded {
	struct zd_control ctl;
	struct zd_pkginfo pi;
};

static void
load(const char *text, struct loaded *l)
{
	struct zd_error err = ZD_ERROR_INIT;

	struct zd_pkginfo_opts o = { .file = "control", .native_arch = "amd64" };

	ck_assert_zd_ok(zd_dpkg_pkginfo_parse(text, strlen(text), &o, &l->ctl,
	                                 &l->pi, &err), &err);
}

static void
unload(struct loaded *l)
{
	zd_dpkg_pkginfo_free(&l->pi);
	zd_dpkg_control_free(&l->ctl);
}

static void
check_print(const struct zd_pkginfo *pi, const char *fmt, const char *want)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_pkgformat *f = zd_dpkg_format_parse(fmt, &err);
	char *s;

	ck_assert_msg(f != NULL, "'%s': %s", fmt, err.msg);
	s = zd_dpkg_format_print(f, pi, &err);
	ck_assert_msg(s != NULL, "'%s': %s", fmt, err.msg);
	ck_assert_str_eq(s, want);
	free(s);
	zd_dpkg_format_free(f);
}

START_TEST(test_pkgformat_print)
{
	struct loaded l;

	load(stanza, &l);
	check_print(&l.pi, "${Package}\t${Version}\n", "foo\t1.2-3\n");
	check_print(&l.pi, "[${Package;6}][${Package;-6}][${Package;2}]",
	            "[   foo][foo   ][fo]");
	check_print(&l.pi, "${Nope;4}|${Essential;4}|${Status;3}|",
	            "|  no|   |");
	check_print(&l.pi, "a\\tb\\\\c\\r\\x$", "a\tb\\c\rx$");
	check_print(&l.pi, "${binary:Package} ${binary:Summary}",
	            "foo:amd64 summary");
	check_print(&l.pi, "${source:Package} ${source:Version} "
	            "${source:Upstream-Version}", "foo-src 2:1.0-1 1.0");
	check_print(&l.pi, "${Depends}", "libc6 (>= 2.36), bar | baz:any "
	            "(<< 1:3)");
	check_print(&l.pi, "${Priority} ${multi-arch} ${x-custom}",
	            "optional same custom");
	check_print(&l.pi, "${Package;0x5}", "  foo");
	unload(&l);
}
END_TEST

/* A Source version dpkg cannot parse is its error, and nothing is
 * printed; without a Description the synopsis is empty. */
START_TEST(test_pkgformat_source_version)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_pkgformat *f =
		zd_dpkg_format_parse("${source:Version}", &err);
	struct loaded l;

	ck_assert_ptr_nonnull(f);
	load("Package: q\nVersion: 1\nArchitecture: all\nMaintainer: m\n"
	     "Source: s (x1)\n", &l);
	ck_assert_ptr_null(zd_dpkg_format_print(f, &l.pi, &err));
	ck_assert_int_eq(err.code, ZD_E_FORMAT);
	ck_assert_str_eq(err.msg, "version 'x1' has bad syntax: version number "
	                 "does not start with digit");
	check_print(&l.pi, "[${binary:Synopsis}]"
	            "[${source:Package}]", "[][s]");
	unload(&l);
	zd_dpkg_format_free(f);
}
END_TEST

START_TEST(test_pkgformat_bad_format)
{
	static const struct {
		const char *fmt;
		const char *msg;
	} bad[] = {
		{ "${Package", "missing closing brace" },
		{ "${Package;x}", "invalid character 'x' in field width" },
		{ "${Package;99999999999}", "field width is out of range" },
		{ "", "may not be empty string" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct zd_error err = ZD_ERROR_INIT;

		ck_assert_ptr_null(zd_dpkg_format_parse(bad[i].fmt, &err));
		ck_assert_int_eq(err.code, ZD_E_USAGE);
		ck_assert_str_eq(err.msg, bad[i].msg);
	}
}
END_TEST

static Suite *
pkgformat_suite(void)
{
	Suite *s = suite_create("pkgformat");
	TCase *core = zd_test_tcase_plain(s, "core");
	TCase *malformed = zd_test_tcase_plain(s, "malformed");

	tcase_add_test(core, test_pkgformat_print);
	tcase_add_test(malformed, test_pkgformat_source_version);
	tcase_add_test(malformed, test_pkgformat_bad_format);
	return s;
}

int
main(void)
{
	return zd_test_main(pkgformat_suite());
}
