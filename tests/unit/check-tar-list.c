/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check-tar-list.c - the `tar -tv` listing against GNU tar's own */
#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "lib/tar-list.h"
#include "tests/unit/testutil.h"

START_TEST(test_list_matches_tar)
{
	struct zd_error err = ZD_ERROR_INIT;
	char path[4200];
	FILE *out;
	int fd;

	ck_assert_int_eq(zd_test_sh(
		"cd '%s' && mkdir -p src/a && echo hi >src/a/f && "
		"ln -s f src/a/l && ln src/a/f src/a/h && "
		"tar -C src -cf in.tar --format=gnu ./ && "
		"tar -tvf in.tar >want.txt", zd_test_tmpdir), 0);
	snprintf(path, sizeof(path), "%s/in.tar", zd_test_tmpdir);
	fd = open(path, O_RDONLY);
	snprintf(path, sizeof(path), "%s/got.txt", zd_test_tmpdir);
	out = fopen(path, "w");
	ck_assert_zd_ok(zd_list_tar(fd, out, &err), &err);
	fclose(out);
	close(fd);
	ck_assert_int_eq(zd_test_sh("cmp '%s/want.txt' '%s/got.txt'",
	                            zd_test_tmpdir, zd_test_tmpdir), 0);
}
END_TEST

static Suite *
list_suite(void)
{
	Suite *s = suite_create("list");
	TCase *core = zd_test_tcase(s, "core");

	tcase_add_test(core, test_list_matches_tar);
	return s;
}

int
main(void)
{
	return zd_test_main(list_suite());
}
