/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check-tar-libarchive.c - libarchive loaded on first use */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "lib/tar-libarchive.h"
#include "tests/unit/testutil.h"

/* A library that is not there: an error naming it, nothing filled in. */
START_TEST(test_archive_load_missing)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_archive_fns fns;

	memset(&fns, 0, sizeof(fns));
	ck_assert_int_eq(zd_tar_libarchive_load("libzdeb-no-such.so.0", &fns,
	                                        &err), -1);
	ck_assert_int_eq(err.code, ZD_E_IO);
	ck_assert_msg(strstr(err.msg, "cannot load libarchive "
	                     "(libzdeb-no-such.so.0)") != NULL, "%s", err.msg);
	ck_assert_ptr_null(fns.fn_archive_read_new);
}
END_TEST

/* A library without the functions (libc): refused, naming one. */
START_TEST(test_archive_load_wrong_library)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_archive_fns fns;

	memset(&fns, 0, sizeof(fns));
	ck_assert_int_eq(zd_tar_libarchive_load("libc.so.6", &fns, &err), -1);
	ck_assert_msg(strstr(err.msg, "no symbol archive_") != NULL, "%s",
	              err.msg);
	ck_assert_ptr_null(fns.fn_archive_read_new);
}
END_TEST

/* The real one: every pointer set, and a tar made by tar(1) is read. */
START_TEST(test_archive_tar_reader)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct archive_entry *e;
	struct archive *a;
	void *tar;
	size_t len;
	char buf[16];

	ck_assert_ptr_null(zd_archive_fns.fn_archive_read_new);
	ck_assert_int_eq(zd_test_sh("cd '%s' && mkdir d && printf hello "
	                            ">d/f && tar -cf t.tar --format=gnu d/f",
	                            zd_test_tmpdir), 0);
	tar = zd_test_read_file(zd_test_path("t.tar"), &len);
	a = zd_tar_libarchive_tar_reader(&err);
	ck_assert_msg(a != NULL, "%s", err.msg);
#define ZD_ARCHIVE_SET(f) \
	ck_assert_msg(zd_archive_fns.fn_##f != NULL, "%s not loaded", #f);
	ZD_ARCHIVE_FUNCS(ZD_ARCHIVE_SET)
#undef ZD_ARCHIVE_SET
	ck_assert_int_eq(archive_read_open_memory(a, tar, len), ARCHIVE_OK);
	ck_assert_int_eq(archive_read_next_header(a, &e), ARCHIVE_OK);
	ck_assert_str_eq(archive_entry_pathname(e), "d/f");
	ck_assert_int_eq(archive_entry_size(e), 5);
	ck_assert_int_eq(archive_read_data(a, buf, sizeof(buf)), 5);
	ck_assert_int_eq(memcmp(buf, "hello", 5), 0);
	ck_assert_int_eq(archive_read_next_header(a, &e), ARCHIVE_EOF);
	archive_read_free(a);
	free(tar);
}
END_TEST

static Suite *
archive_lazy_suite(void)
{
	Suite *s = suite_create("archive-lazy");
	TCase *tc = zd_test_tcase(s, "core");

	tcase_add_test(tc, test_archive_load_missing);
	tcase_add_test(tc, test_archive_load_wrong_library);
	tcase_add_test(tc, test_archive_tar_reader);
	return s;
}

int
main(void)
{
	return zd_test_main(archive_lazy_suite());
}
