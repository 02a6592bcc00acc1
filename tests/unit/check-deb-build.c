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
#include "lib/dpkg-pkginfo.h"
#include "tests/unit/testutil.h"

/* dpkg-deb names the package from its parse: lowercased, the version
 * without epoch, an old Revision field folded in. */
static const char ctl_text[] =
	"Package: Foo\nVersion: 2:1.0\nArchitecture: amd64\n"
	"Maintainer: x <x@example.org>\nDescription: foo\nRevision: 1\n";

START_TEST(test_build_dest_default)
{
	struct zd_error err = ZD_ERROR_INIT;
	char *p;

	p = zd_deb_build_dest_path("pkg///", NULL, NULL, &err);
	ck_assert_ptr_nonnull(p);
	ck_assert_str_eq(p, "pkg.deb");
	free(p);
	/* dpkg's path_trim_slash_slashdot(). */
	p = zd_deb_build_dest_path("pkg/./.", NULL, NULL, &err);
	ck_assert_str_eq(p, "pkg.deb");
	free(p);
	p = zd_deb_build_dest_path("/", NULL, NULL, &err);
	ck_assert_str_eq(p, "/.deb");
	free(p);
	p = zd_deb_build_dest_path("pkg", "out.deb", NULL, &err);
	ck_assert_str_eq(p, "out.deb");
	free(p);
}
END_TEST

START_TEST(test_build_dest_directory)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_pkginfo_opts o = { .file = "t", .native_arch = "amd64" };
	struct zd_control ctl = { 0 };
	struct zd_pkginfo pi;
	char *p, want[4200];

	ck_assert_zd_ok(zd_dpkg_pkginfo_parse(ctl_text, strlen(ctl_text), &o,
	                                      &ctl, &pi, &err), &err);
	p = zd_deb_build_dest_path("pkg", zd_test_tmpdir, &pi, &err);
	ck_assert_ptr_nonnull(p);
	snprintf(want, sizeof(want), "%s/foo_1.0-1_amd64.deb", zd_test_tmpdir);
	ck_assert_str_eq(p, want);
	free(p);
	ck_assert_ptr_null(zd_deb_build_dest_path("pkg", zd_test_tmpdir, NULL,
	                                      &err));
	ck_assert_ptr_nonnull(strstr(err.msg, "target is directory"));
	zd_dpkg_pkginfo_free(&pi);
	zd_dpkg_control_free(&ctl);
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
