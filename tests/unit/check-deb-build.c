/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check-deb-build.c - output path rules */
#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/deb-build.h"
#include "lib/dpkg-control.h"
#include "tests/unit/testutil.h"

static const char ctl_text[] =
	"Package: foo\nVersion: 2:1.0-1\nArchitecture: amd64\n"
	"Maintainer: x <x@example.org>\nDescription: foo\n";

START_TEST(test_build_dest_default)
{
	struct zd_error err = ZD_ERROR_INIT;
	char *p;

	p = zd_build_dest_path("pkg///", NULL, NULL, &err);
	ck_assert_ptr_nonnull(p);
	ck_assert_str_eq(p, "pkg.deb");
	free(p);
	p = zd_build_dest_path("pkg", "out.deb", NULL, &err);
	ck_assert_str_eq(p, "out.deb");
	free(p);
}
END_TEST

START_TEST(test_build_dest_directory)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_control ctl = { 0 };
	char *p, want[4200];

	ck_assert_zd_ok(zd_control_parse(ctl_text, strlen(ctl_text), "t",
	                                 &ctl, &err), &err);
	p = zd_build_dest_path("pkg", zd_test_tmpdir, &ctl, &err);
	ck_assert_ptr_nonnull(p);
	snprintf(want, sizeof(want), "%s/foo_1.0-1_amd64.deb", zd_test_tmpdir);
	ck_assert_str_eq(p, want);
	free(p);
	ck_assert_ptr_null(zd_build_dest_path("pkg", zd_test_tmpdir, NULL,
	                                      &err));
	ck_assert_ptr_nonnull(strstr(err.msg, "target is directory"));
	zd_control_free(&ctl);
}
END_TEST

static Suite *
build_suite(void)
{
	Suite *s = suite_create("build");
	TCase *core = zd_test_tcase(s, "core");

	tcase_add_test(core, test_build_dest_default);
	tcase_add_test(core, test_build_dest_directory);
	return s;
}

int
main(void)
{
	return zd_test_main(build_suite());
}
