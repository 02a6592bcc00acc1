/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check-inoset.c - the set of (device, inode) pairs and their names */
#include "config.h"

#include <check.h>
#include <string.h>

#include "lib/inoset.h"
#include "tests/unit/testutil.h"

START_TEST(test_inoset_find_add)
{
	struct zd_inoset s = ZD_INOSET_INIT;
	struct zd_error err = ZD_ERROR_INIT;
	const char *name = "unset";

	ck_assert(!zd_inoset_find(&s, 1, 2, &name));
	ck_assert_str_eq(name, "unset");
	ck_assert_zd_ok(zd_inoset_add(&s, 1, 2, "./usr/a", &err), &err);
	ck_assert_zd_ok(zd_inoset_add(&s, 2, 1, NULL, &err), &err);
	ck_assert(zd_inoset_find(&s, 1, 2, &name));
	ck_assert_str_eq(name, "./usr/a");
	ck_assert(zd_inoset_find(&s, 2, 1, &name));
	ck_assert_ptr_null(name);
	ck_assert(zd_inoset_find(&s, 2, 1, NULL));
	/* Same inode on another device, same device another inode. */
	ck_assert(!zd_inoset_find(&s, 3, 2, NULL));
	ck_assert(!zd_inoset_find(&s, 1, 3, NULL));
	zd_inoset_free(&s);
	ck_assert(!zd_inoset_find(&s, 1, 2, NULL));
}
END_TEST

START_TEST(test_inoset_first_name_kept)
{
	struct zd_inoset s = ZD_INOSET_INIT;
	struct zd_error err = ZD_ERROR_INIT;
	const char *name = NULL;

	ck_assert_zd_ok(zd_inoset_add(&s, 7, 9, "first", &err), &err);
	ck_assert_zd_ok(zd_inoset_add(&s, 7, 9, "second", &err), &err);
	ck_assert(zd_inoset_find(&s, 7, 9, &name));
	ck_assert_str_eq(name, "first");
	zd_inoset_free(&s);
}
END_TEST

START_TEST(test_inoset_many)
{
	struct zd_inoset s = ZD_INOSET_INIT;
	struct zd_error err = ZD_ERROR_INIT;

	for (unsigned i = 0; i < 5000; i++)
		ck_assert_zd_ok(zd_inoset_add(&s, i % 3, i * 7919u, NULL,
		                              &err), &err);
	for (unsigned i = 0; i < 5000; i++) {
		ck_assert(zd_inoset_find(&s, i % 3, i * 7919u, NULL));
		ck_assert(!zd_inoset_find(&s, (i + 1) % 3, i * 7919u, NULL));
	}
	zd_inoset_free(&s);
	zd_inoset_free(&s);	/* an empty set frees again */
}
END_TEST

static Suite *
inoset_suite(void)
{
	Suite *s = suite_create("inoset");
	TCase *core = zd_test_tcase(s, "core");

	tcase_add_test(core, test_inoset_find_add);
	tcase_add_test(core, test_inoset_first_name_kept);
	tcase_add_test(core, test_inoset_many);
	return s;
}

int
main(void)
{
	return zd_test_main(inoset_suite());
}
