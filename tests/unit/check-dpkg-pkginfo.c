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

	struct zd_pkginfo_opts o = { .file = "control", .native_arch = "amd64" };

	ck_assert_zd_ok(zd_dpkg_pkginfo_parse(text, strlen(text), &o, &l->ctl,
	                                 &l->pi, &err), &err);
}

/* zd_dpkg_pkginfo_field's text for name. */
static void
check_field(const struct zd_pkginfo *pi, const char *name, bool header,
            const char *want)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	ck_assert_ptr_nonnull(f);
	zd_dpkg_pkginfo_field(f, pi, name, header);
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
	check_field(&l.pi, "Priority", true, "");
	check_field(&l.pi, "Priority", false, "");
	zd_dpkg_pkginfo_free(&l.pi);
	zd_dpkg_control_free(&l.ctl);
}
END_TEST

/* dpkg's normal forms, and the obsolete fields mapped to modern ones. */
START_TEST(test_pkginfo_normalized)
{
	struct loaded l;

	load("Package: Foo\nRecommended: a\nOptional: b\nVersion: 0:1:2\n"
	     "Revision: 3\nClass: Important\nArchitecture: i386\n"
	     "Multi-Arch: Allowed\nEssential: YES\nProtected: no\n"
	     "Depends: x (<1), y(>= 2) |z:any (> 1:3)\n"
	     "Recommends: c (=1.0-1)\nProvides: p (= 1)\nMaintainer: m\n"
	     "Description: d\n", &l);
	check_field(&l.pi, "Version", false, "0:1:2-3");
	check_field(&l.pi, "Priority", true, "Priority: important\n");
	check_field(&l.pi, "Depends", false,
	            "x (<= 1), y (>= 2) | z:any (>= 1:3)");
	check_field(&l.pi, "Recommends", true,
	            "Recommends: a, c (= 1.0-1)\n");
	check_field(&l.pi, "Suggests", false, "b");
	check_field(&l.pi, "Multi-Arch", true, "Multi-Arch: allowed\n");
	check_field(&l.pi, "Essential", true, "Essential: yes\n");
	check_field(&l.pi, "Protected", true, "");
	check_field(&l.pi, "Protected", false, "no");
	check_field(&l.pi, "Class", true, "");
	check_field(&l.pi, "Revision", false, "");
	ck_assert_uint_eq(l.pi.warnings, 6);
	ck_assert_int_eq(l.pi.arch.type, ZD_ARCH_UNKNOWN);
	zd_dpkg_pkginfo_free(&l.pi);
	zd_dpkg_control_free(&l.ctl);
}
END_TEST

static void
collect(void *ctx, const char *msg)
{
	fprintf(ctx, "W %s\n", msg);
}

#define AT(n) "parsing file 'c' near line " #n
#define PKG(n) AT(n) " package 'q':\n "
#define HEAD "Package: q\nVersion: 1\nMaintainer: m\nDescription: d\n" \
             "Architecture: all\n"
/* Stanzas and dpkg's warnings ("W ...") and error ("E ..."), each checked
 * against dpkg-deb -b by tests/integ/t0270-dpkg-deb-control.sh too. */
static const struct {
	const char *in;
	const char *want;
} problems[] = {
	{ HEAD "Essential: maybe\n", "E " PKG(6) "boolean (yes/no) 'Essential' "
	  "field: has invalid value 'maybe'\n" },
	{ HEAD "Essential: yes no\n", "E " PKG(6) "boolean (yes/no) "
	  "'Essential' field: has trailing junk\n" },
	{ HEAD "Multi-Arch: bogus\n", "E " PKG(6) "quadstate "
	  "(foreign/allowed/same/no) 'Multi-Arch' field: has invalid value "
	  "'bogus'\n" },
	{ HEAD "Multi-Arch: same\n", "E " AT(7) " package 'q:all':\n package "
	  "has 'Multi-Arch: same' field but is architecture 'all'\n" },
	{ HEAD "Priority: optional x\n", "E " PKG(6) "word in 'Priority' "
	  "field: has trailing junk\n" },
	{ HEAD "Depends: foo (>> \n", "W " PKG(6) "'Depends' field, reference "
	  "to 'foo':\n version value starts with non-alphanumeric, suggest "
	  "adding a space\nE " PKG(6) "'Depends' field, reference to 'foo': "
	  "version unterminated\n" },
	{ HEAD "Depends: foo (< 1.0)\n", "W " PKG(6) "'Depends' field, "
	  "reference to 'foo':\n '<' is obsolete, use '<=' or '<<' instead\n" },
	{ HEAD "Depends: foo (1.0)\n", "W " PKG(6) "'Depends' field, "
	  "reference to 'foo':\n implicit exact match on version number, "
	  "suggest using '=' instead\n" },
	{ HEAD "Depends: foo (<> 1.0)\n", "E " PKG(6) "'Depends' field, "
	  "reference to 'foo':\n bad version relationship <>\n" },
	{ HEAD "Depends: foo (= 1.0 x)\n", "E " PKG(6) "'Depends' field, "
	  "reference to 'foo': version contains 'x' instead of ')'\n" },
	{ HEAD "Depends: foo (= a)\n", "E " PKG(6) "'Depends' field, "
	  "reference to 'foo': version 'a': version number does not start "
	  "with digit\n" },
	{ HEAD "Depends: Foo [amd64]\n", "E " PKG(6) "'Depends' field, syntax "
	  "error after reference to package 'foo'\n" },
	{ HEAD "Depends: foo,\n", "E " PKG(6) "'Depends' field, missing "
	  "package name, or garbage where package name expected\n" },
	{ HEAD "Depends: foo:\n", "E " PKG(6) "'Depends' field, missing "
	  "architecture name, or garbage where architecture name expected\n" },
	{ HEAD "Depends: foo:a_b\n", "E " PKG(6) "'Depends' field, reference "
	  "to 'foo': invalid architecture name 'a_b': character '_' not "
	  "allowed (only letters, digits and characters '-')\n" },
	{ HEAD "Depends: f!o\n", "E " PKG(6) "'Depends' field, invalid "
	  "package name 'f!o': character '!' not allowed (only letters, "
	  "digits and characters '-+._')\n" },
	{ HEAD "Conflicts: a | b\n", "E " PKG(6) "alternatives ('|') not "
	  "allowed in 'Conflicts' field\n" },
	{ HEAD "Provides: p (>= 1)\n", "W " PKG(6) "only exact versions may "
	  "be used for 'Provides' field\n" },
	{ HEAD "Conffiles: /etc/x 0123\n", "E " PKG(6) "value for 'Conffiles' "
	  "field has line starting with non-space '/'\n" },
	{ HEAD "Conffiles:\n /etc/x\n", "E " PKG(7) "value for 'Conffiles' "
	  "field has malformed line '/etc/x'\n" },
	{ HEAD "Conffiles:\n / 0123\n", "E " PKG(7) "value for 'Conffiles' "
	  "field has malformed line '/ 0123'\n" },
	{ HEAD "Conffiles:\n // 0123\n", "E " PKG(7) "root or empty directory "
	  "listed as a conffile in 'Conffiles' field\n" },
	{ HEAD "Filename: a b\nSize: 1\n", "E " PKG(7) "too few values in "
	  "archive details 'Size' field (compared to others)\n" },
	{ HEAD "Size: 1\nMD5sum: a b\n", "E " PKG(7) "too many values in "
	  "archive details 'MD5sum' field (compared to others)\n" },
	{ HEAD "Filename:\nSize: 1\n", "E " PKG(6) "empty archive details "
	  "'Filename' field\n" },
	{ HEAD "Triggers-Awaited: x\n", "E " PKG(6) "value for "
	  "'Triggers-Awaited' field not allowed in this context\n" },
	{ "Package: q\nArchitecture: a_b\nVersion: 1\n", "W " AT(2)
	  " package 'q:a_b':\n 'a_b' is not a valid architecture name in 'Architecture' field: "
	  "character '_' not allowed (only letters, digits and characters "
	  "'-')\nW parsing file 'c' near line 4 package 'q:a_b':\n missing "
	  "'Description' field\nW parsing file 'c' near line 4 package "
	  "'q:a_b':\n missing 'Maintainer' field\n" },
	{ "Package: q\nArchitecture:\nMulti-Arch: same\nVersion: 1\n", "W "
	  PKG(5) "missing 'Description' field\nW " PKG(5) "missing "
	  "'Maintainer' field\nW " PKG(5) "empty value for 'Architecture' "
	  "field\nE " PKG(5) "package has 'Multi-Arch: same' field but is "
	  "missing architecture\n" },
	{ "Version: 1\nPackage: Q!\n", "E " AT(2) ":\n invalid package name "
	  "in 'Package' field: character '!' not allowed (only letters, "
	  "digits and characters '-+._')\n" },
};
#undef HEAD

START_TEST(test_pkginfo_problems)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_control ctl;
	struct zd_pkginfo pi;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct zd_pkginfo_opts o = {
		.file = "c", .native_arch = "amd64",
		.warn = collect, .warn_ctx = f,
	};
	bool error = strstr(problems[_i].want, "E ") != NULL;

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(zd_dpkg_pkginfo_parse(problems[_i].in,
	                                  strlen(problems[_i].in), &o, &ctl,
	                                  &pi, &err), (error ? -1 : 0));
	if (error) {
		ck_assert_int_eq(err.code, ZD_E_FORMAT);
		fprintf(f, "E %s\n", err.msg);
	}
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_msg(strcmp(text, problems[_i].want) == 0, "case %d: got\n%s",
	              _i, text);
	free(text);
	zd_dpkg_pkginfo_free(&pi);
	zd_dpkg_control_free(&ctl);
	/* Strict: the first warning is the error. */
	o.strict = true;
	o.warn = NULL;
	ck_assert_int_eq(zd_dpkg_pkginfo_parse(problems[_i].in,
	                                  strlen(problems[_i].in), &o, &ctl,
	                                  &pi, &err), -1);
	ck_assert_msg(strncmp(err.msg, problems[_i].want + 2,
	                      strlen(err.msg)) == 0, "case %d: strict: %s", _i,
	              err.msg);
	zd_dpkg_pkginfo_free(&pi);
	zd_dpkg_control_free(&ctl);
}
END_TEST

START_TEST(test_pkginfo_check_name)
{
	struct zd_error err = ZD_ERROR_INIT;

	ck_assert_zd_ok(zd_dpkg_pkginfo_check_name("libc6-dev", &err), &err);
	ck_assert_zd_ok(zd_dpkg_pkginfo_check_name("g++", &err), &err);
	ck_assert_int_eq(zd_dpkg_pkginfo_check_name("", &err), -1);
	ck_assert_str_eq(err.msg, "may not be empty string");
	ck_assert_int_eq(zd_dpkg_pkginfo_check_name("-x", &err), -1);
	ck_assert_str_eq(err.msg, "must start with an alphanumeric character");
	ck_assert_int_eq(zd_dpkg_pkginfo_check_name("a b", &err), -1);
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
	int rc = zd_dpkg_version_parse(versions[_i].v, &v, &err);

	zd_dpkg_version_free(&v);
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
	tcase_add_test(core, test_pkginfo_normalized);
	tcase_add_loop_test(malformed, test_pkginfo_problems, 0,
	                    sizeof(problems) / sizeof(problems[0]));
	return s;
}

int
main(void)
{
	return zd_test_main(pkginfo_suite());
}
