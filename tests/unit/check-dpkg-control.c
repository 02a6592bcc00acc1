/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check-dpkg-control.c - the deb822 control paragraph parser (dpkg's rules) */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <string.h>

#include "lib/dpkg-control.h"
#include "tests/unit/testutil.h"

static int
parse(const char *s, struct zd_control *ctl, struct zd_error *err)
{
	return zd_dpkg_control_parse(s, strlen(s), "DEBIAN/control", ctl, err);
}

START_TEST(test_control_good)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_control ctl;
	const char *in =
		"\n\nPackage: zdeb\n"
		"Version:   1.0-1  \n"
		"Depends : libc6 (>= 2.36),\n"
		"\tlibzstd1\n"
		"X-Empty:\n"
		"Description: short\n"
		" long line one  \n"
		" .\n"
		" long line two\n"
		"\n\n";

	ck_assert_zd_ok(parse(in, &ctl, &err), &err);
	ck_assert_uint_eq(ctl.n, 5);
	ck_assert_str_eq(ctl.fields[0].name, "Package");
	ck_assert_str_eq(ctl.fields[0].value, "zdeb");
	ck_assert_uint_eq(ctl.fields[0].line, 3);
	ck_assert_str_eq(zd_dpkg_control_get(&ctl, "version"), "1.0-1");
	ck_assert_str_eq(zd_dpkg_control_get(&ctl, "DEPENDS"),
	                 "libc6 (>= 2.36),\n\tlibzstd1");
	ck_assert_str_eq(zd_dpkg_control_get(&ctl, "X-Empty"), "");
	ck_assert_str_eq(zd_dpkg_control_get(&ctl, "Description"),
	                 "short\n long line one  \n .\n long line two");
	ck_assert_uint_eq(ctl.fields[4].line, 8);
	ck_assert_ptr_null(zd_dpkg_control_get(&ctl, "Maintainer"));
	zd_dpkg_control_free(&ctl);
	ck_assert_uint_eq(ctl.n, 0);
	zd_dpkg_control_free(&ctl);
}
END_TEST

START_TEST(test_control_empty_first_line)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_control ctl;

	ck_assert_zd_ok(parse("Description:\n text\n", &ctl, &err), &err);
	ck_assert_str_eq(zd_dpkg_control_get(&ctl, "Description"), "\n text");
	zd_dpkg_control_free(&ctl);
}
END_TEST

/* '\r' is whitespace to dpkg: trimmed at the end of a value. */
START_TEST(test_control_crlf)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_control ctl;

	ck_assert_zd_ok(parse("Package: a\r\nDescription: b\r\n c\r\n", &ctl,
	                      &err), &err);
	ck_assert_str_eq(zd_dpkg_control_get(&ctl, "Package"), "a");
	ck_assert_str_eq(zd_dpkg_control_get(&ctl, "Description"), "b\r\n c");
	zd_dpkg_control_free(&ctl);
}
END_TEST

START_TEST(test_control_file)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_control ctl;
	char path[4200];

	snprintf(path, sizeof(path), "%s/control", zd_test_tmpdir);
	zd_test_write_file(path, "Package: a\n", 11);
	ck_assert_zd_ok(zd_dpkg_control_parse_file(path, &ctl, &err), &err);
	ck_assert_str_eq(zd_dpkg_control_get(&ctl, "package"), "a");
	zd_dpkg_control_free(&ctl);
	snprintf(path, sizeof(path), "%s/nope", zd_test_tmpdir);
	ck_assert_int_eq(zd_dpkg_control_parse_file(path, &ctl, &err), -1);
	ck_assert_int_eq(err.code, ZD_E_IO);
	ck_assert_ptr_nonnull(strstr(err.msg, "No such file"));
}
END_TEST

/* Messages and lines as dpkg-deb 1.21.22 gives them ("near line N": the
 * lines read so far). */
static const struct {
	const char *in;
	const char *msg;
} bad[] = {
	{ "Package foo\n",
	  "cannot parse 'DEBIAN/control' near line 0: field name 'Package' "
	  "must be followed by colon" },
	{ "Package: a\n: b\n",
	  "cannot parse 'DEBIAN/control' near line 1: empty field name" },
	{ " Package: a\n", "near line 0: empty field name" },
	{ "Package: a\n-Foo: b\n",
	  "near line 1: field name '-Foo' cannot start with hyphen" },
	{ "Package: a\nVersion: 1\npackage: b\n",
	  "near line 3: duplicate value for 'Package' field" },
	{ "X-Foo: a\nx-foo: b\n",
	  "near line 2: duplicate value for user-defined field 'x-foo'" },
	{ "Description: a\n b\n  \n c\n",
	  "near line 2: blank line in value of field 'Description'" },
	{ "Package: ab", "near line 0: end of file during value of field "
	  "'Package' (missing final newline)" },
	/* dpkg's quirks at the end of the file. */
	{ "Package: a", "near line 0: end of file before value of field "
	  "'Package' (missing final newline)" },
	{ "Package:", "end of file after field name 'Package'" },
	{ "Package", "end of file after field name 'Packag'" },
	{ "Package\n", "end of file after field name 'Package'" },
	{ "Package x\n", "near line 0: field name 'Package' must be followed "
	  "by colon" },
	{ "Package: a\n\nPackage: b\n", "near line 4: several package info "
	  "entries found, only one allowed" },
	{ "# comment\nPackage: a\n", "near line 0: field name '#' must be "
	  "followed by colon" },
	{ "X: a\n", "near line 1: user-defined field name 'X' too short" },
	{ "\n\n", "no package information in 'DEBIAN/control'" },
	{ "", "no package information in 'DEBIAN/control'" },
	{ "Package: a\r\n\r\nVersion: 1\n", "near line 1: blank line in "
	  "value of field 'Package'" },
	{ "Pack\032age: a\n", "near line 0: MSDOS end of file (^Z) in field "
	  "name 'Pack'" },
	{ "Package: \032\n", "near line 0: MSDOS end of file (^Z) in value of "
	  "field 'Package' (missing newline?)" },
};

START_TEST(test_control_bad)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_control ctl = { NULL, 7 };

	ck_assert_int_eq(parse(bad[_i].in, &ctl, &err), -1);
	ck_assert_int_eq(err.code, ZD_E_FORMAT);
	ck_assert_msg(strstr(err.msg, bad[_i].msg) != NULL, "case %d: got '%s'",
	              _i, err.msg);
	ck_assert_uint_eq(ctl.n, 0);
	ck_assert_ptr_null(ctl.fields);
}
END_TEST

/* A NUL byte ends a name or value as a C string, as in dpkg; ^Z ends a
 * line. */
START_TEST(test_control_nul)
{
	static const char in[] = "Package: a\nX-Y: b\0c\n\032";
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_control ctl;

	ck_assert_zd_ok(zd_dpkg_control_parse(in, sizeof(in) - 1, "c", &ctl,
	                                      &err), &err);
	ck_assert_uint_eq(ctl.n, 2);
	ck_assert_str_eq(zd_dpkg_control_get(&ctl, "X-Y"), "b");
	zd_dpkg_control_free(&ctl);
}
END_TEST

/* The callbacks see what dpkg's parser sees: each field after its
 * duplicate check, dpkg's line count, the end of the first stanza, and a
 * second stanza before it is refused. */
struct seen {
	char log[512];
};

static void
cb_stanza(void *ctx)
{
	struct seen *s = ctx;

	strcat(s->log, "[");
}

static int
cb_field(void *ctx, const struct zd_control *ctl, struct zd_error *err)
{
	struct seen *s = ctx;
	const struct zd_field *f = &ctl->fields[ctl->n - 1];
	char buf[64];

	(void)err;
	snprintf(buf, sizeof(buf), "%s@%d,%u ", f->name, f->lno, f->line);
	strcat(s->log, buf);
	return 0;
}

static int
cb_done(void *ctx, const struct zd_control *ctl, int lno,
        struct zd_error *err)
{
	struct seen *s = ctx;
	char buf[64];

	(void)err;
	snprintf(buf, sizeof(buf), "]%zu@%d ", ctl->n, lno);
	strcat(s->log, buf);
	return 0;
}

START_TEST(test_control_callbacks)
{
	static const char in[] = "\nPackage: a\nDescription: x\n y\n\n"
	                         "Package: b\nX-A: 1\n";
	struct zd_error err = ZD_ERROR_INIT;
	struct seen seen = { "" };
	struct zd_control_cb cb = { cb_stanza, cb_field, cb_done, &seen };
	struct zd_control ctl;
	int lno;

	ck_assert_int_eq(zd_dpkg_control_parse_dpkg(in, strlen(in), &ctl, &cb,
	                                            &lno, &err), -1);
	ck_assert_str_eq(seen.log, "[Package@2,2 Description@4,3 ]2@5 "
	                 "[Package@6,6 X-A@7,7 ");
	ck_assert_int_eq(lno, 8);
	ck_assert_str_eq(err.msg, "several package info entries found, only "
	                 "one allowed");
	zd_dpkg_control_free(&ctl);
	/* Blank lines after a stanza begin no second one. */
	seen.log[0] = '\0';
	ck_assert_int_eq(zd_dpkg_control_parse_dpkg("X-A: 1\n\n\032\n", 11,
	                                            &ctl, &cb, &lno, &err), 0);
	ck_assert_str_eq(seen.log, "[X-A@1,1 ]1@2 ");
	ck_assert_int_eq(lno, 4);
	zd_dpkg_control_free(&ctl);
	ck_assert_int_eq(zd_dpkg_control_parse_dpkg("\n\032\n", 3, &ctl, &cb,
	                                       &lno, &err), 1);
	ck_assert_int_eq(lno, 3);
}
END_TEST

static Suite *
control_suite(void)
{
	Suite *s = suite_create("control");
	TCase *core = zd_test_tcase(s, "core");
	TCase *malformed = zd_test_tcase_plain(s, "malformed");

	tcase_add_test(core, test_control_good);
	tcase_add_test(core, test_control_empty_first_line);
	tcase_add_test(core, test_control_crlf);
	tcase_add_test(core, test_control_file);
	tcase_add_loop_test(malformed, test_control_bad, 0,
	                    sizeof(bad) / sizeof(bad[0]));
	tcase_add_test(core, test_control_nul);
	tcase_add_test(core, test_control_callbacks);
	return s;
}

int
main(void)
{
	return zd_test_main(control_suite());
}
