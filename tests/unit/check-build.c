/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check-build.c - output path rules and the atomic .deb writer */
#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/build.h"
#include "lib/control.h"
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

static int
mem_fd(const char *s)
{
	int fd = zd_tmpfile(NULL);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, s, strlen(s)), (ssize_t)strlen(s));
	return fd;
}

START_TEST(test_build_write_deb)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_deb_parts parts = { 0 };
	char out[4200];

	parts.mtime = 1700000000;
	strcpy(parts.control_name, "control.tar");
	parts.control_fd = mem_fd("ctl");
	parts.control_size = 3;
	strcpy(parts.data_name, "data.tar");
	parts.data_fd = mem_fd("data");
	parts.data_size = 4;
	snprintf(out, sizeof(out), "%s/x.deb", zd_test_tmpdir);
	ck_assert_zd_ok(zd_build_write_deb(out, &parts, &err), &err);
	ck_assert_int_eq(zd_test_sh("cd '%s' && test \"$(ar t x.deb | tr '\\n' ' ')\" = "
	                            "'debian-binary control.tar data.tar ' && "
	                            "test \"$(ar p x.deb data.tar)\" = data && "
	                            "test \"$(ls | wc -l)\" = 1",
	                            zd_test_tmpdir), 0);
	close(parts.control_fd);
	close(parts.data_fd);
}
END_TEST

START_TEST(test_build_write_deb_failure_leaves_nothing)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_deb_parts parts = { 0 };
	char out[4200];

	strcpy(parts.control_name, "control.tar");
	parts.control_fd = mem_fd("ctl");
	parts.control_size = 30;	/* more than the file holds */
	strcpy(parts.data_name, "data.tar");
	parts.data_fd = mem_fd("data");
	parts.data_size = 4;
	snprintf(out, sizeof(out), "%s/x.deb", zd_test_tmpdir);
	ck_assert_int_eq(zd_build_write_deb(out, &parts, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "x.deb"));
	ck_assert_int_eq(zd_test_sh("test -z \"$(ls -A '%s')\"",
	                            zd_test_tmpdir), 0);
	close(parts.control_fd);
	close(parts.data_fd);
}
END_TEST

static Suite *
build_suite(void)
{
	Suite *s = suite_create("build");
	TCase *core = zd_test_tcase(s, "core");
	TCase *malformed = zd_test_tcase(s, "malformed");

	tcase_add_test(core, test_build_dest_default);
	tcase_add_test(core, test_build_dest_directory);
	tcase_add_test(core, test_build_write_deb);
	tcase_add_test(malformed, test_build_write_deb_failure_leaves_nothing);
	return s;
}

int
main(void)
{
	return zd_test_main(build_suite());
}
