/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check-dpkg-md5check.c - data.tar against md5sums */
#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/dpkg-md5check.h"
#include "tests/unit/testutil.h"

static unsigned nwarn;
static char last_warn[512];

static void
on_warn(void *ctx, const char *msg)
{
	(void)ctx;
	nwarn++;
	snprintf(last_warn, sizeof(last_warn), "%s", msg);
}

/* Makes T/d.tar of files a (hello), b (world), hardlink h -> a. */
static int
open_tar(void)
{
	ck_assert_int_eq(zd_test_sh(
		"cd '%s' && rm -rf src d.tar && mkdir -p src/usr && "
		"echo hello >src/usr/a && "
		"echo world >src/usr/b && ln src/usr/a src/usr/h && "
		"tar -C src -cf d.tar --format=gnu ./", zd_test_tmpdir), 0);
	return open(zd_test_path("d.tar"), O_RDONLY);
}

static const char good_sums[] =
	"b1946ac92492d2347c6235b4d2611184  usr/a\n"
	"591785b794601e212b260e25925636fd  usr/b\n"
	"b1946ac92492d2347c6235b4d2611184  usr/h\n";

START_TEST(test_md5check_match)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_md5check_result r;
	int fd = open_tar();

	nwarn = 0;
	ck_assert_zd_ok(zd_dpkg_md5check_tar(fd, good_sums, strlen(good_sums),
	                                on_warn, NULL, &r, &err), &err);
	ck_assert_uint_eq(r.checked, 3);
	ck_assert_uint_eq(r.mismatched, 0);
	ck_assert_uint_eq(nwarn, 0);
	close(fd);
}
END_TEST

START_TEST(test_md5check_mismatch)
{
	static const char sums[] =
		"b1946ac92492d2347c6235b4d2611184  usr/a\n"
		"00000000000000000000000000000000  usr/b\n"
		"00000000000000000000000000000000  usr/h\n"
		"b1946ac92492d2347c6235b4d2611184  usr/gone\n";
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_md5check_result r;
	int fd = open_tar();

	nwarn = 0;
	ck_assert_zd_ok(zd_dpkg_md5check_tar(fd, sums, strlen(sums), on_warn,
	                                     NULL, &r, &err), &err);
	ck_assert_uint_eq(r.mismatched, 3);
	ck_assert_uint_eq(nwarn, 3);
	ck_assert_ptr_nonnull(strstr(last_warn, "usr/gone"));
	close(fd);
}
END_TEST

START_TEST(test_md5check_malformed)
{
	static const char *const bad[] = {
		"nothex  usr/a\n",
		"b1946ac92492d2347c6235b4d2611184 usr/a\n",
		"b1946ac92492d2347c6235b4d261118  usr/a\n",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		struct zd_error err = ZD_ERROR_INIT;
		struct zd_md5check_result r;
		int fd = open_tar();

		ck_assert_int_eq(zd_dpkg_md5check_tar(fd, bad[i],
		                                      strlen(bad[i]), on_warn,
		                                      NULL, &r, &err), -1);
		ck_assert_int_eq(err.code, ZD_E_FORMAT);
		ck_assert_ptr_nonnull(strstr(err.msg, "md5sums line 1"));
		close(fd);
	}
}
END_TEST

START_TEST(test_md5check_find)
{
	struct zd_error err = ZD_ERROR_INIT;
	char *text = NULL;
	unsigned char *buf;
	size_t len, tlen;

	ck_assert_int_eq(zd_test_sh(
		"cd '%s' && mkdir c && printf 'x  y\\n' >c/md5sums && "
		"echo Package: x >c/control && "
		"tar -C c -cf c.tar ./control ./md5sums && "
		"tar -C c -cf n.tar ./control", zd_test_tmpdir), 0);
	buf = zd_test_read_file(zd_test_path("c.tar"), &len);
	ck_assert_int_eq(zd_dpkg_md5check_find(buf, len, &text, &tlen, &err),
	                 1);
	ck_assert_str_eq(text, "x  y\n");
	free(text);
	free(buf);
	buf = zd_test_read_file(zd_test_path("n.tar"), &len);
	ck_assert_int_eq(zd_dpkg_md5check_find(buf, len, &text, &tlen, &err),
	                 0);
	ck_assert_ptr_null(text);
	free(buf);
}
END_TEST

static Suite *
md5check_suite(void)
{
	Suite *s = suite_create("md5check");
	TCase *core = zd_test_tcase(s, "core");
	TCase *malformed = zd_test_tcase(s, "malformed");

	tcase_add_test(core, test_md5check_match);
	tcase_add_test(core, test_md5check_find);
	tcase_add_test(malformed, test_md5check_mismatch);
	tcase_add_test(malformed, test_md5check_malformed);
	return s;
}

int
main(void)
{
	return zd_test_main(md5check_suite());
}
