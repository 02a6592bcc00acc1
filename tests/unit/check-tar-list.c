/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check-tar-list.c - the `tar -tv` listing against GNU tar's own */
#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <locale.h>
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
	ck_assert_zd_ok(zd_tar_list(fd, out, (locale_t)0, &err), &err);
	fclose(out);
	close(fd);
	ck_assert_int_eq(zd_test_sh("cmp '%s/want.txt' '%s/got.txt'",
	                            zd_test_tmpdir, zd_test_tmpdir), 0);
}
END_TEST

/* Lists in.tar with zd_tar_list in locale lname and cmp with tar -tv. */
static void
cmp_listing(const char *lname)
{
	struct zd_error err = ZD_ERROR_INIT;
	locale_t loc = newlocale(LC_ALL_MASK, lname, (locale_t)0);
	FILE *out;
	int fd;

	ck_assert_msg(loc != (locale_t)0, "no locale %s", lname);
	ck_assert_int_eq(zd_test_sh("cd '%s' && LC_ALL=%s tar -tvf in.tar "
	                            ">want.txt", zd_test_tmpdir, lname), 0);
	fd = open(zd_test_path("in.tar"), O_RDONLY);
	ck_assert_int_ge(fd, 0);
	out = fopen(zd_test_path("got.txt"), "w");
	ck_assert_zd_ok(zd_tar_list(fd, out, loc, &err), &err);
	fclose(out);
	close(fd);
	freelocale(loc);
	ck_assert_msg(zd_test_sh("cd '%s' && diff want.txt got.txt >&2",
	                         zd_test_tmpdir) == 0,
	              "%s: listing differs from tar -tv", lname);
}

/* Names, symlink targets and hardlink targets are quoted as tar does,
 * in the locale given (tar-quote.c has the byte-by-byte test). */
START_TEST(test_list_quotes_names)
{
	ck_assert_int_eq(zd_test_sh(
		"cd '%s' && mkdir src && cd src && "
		"for n in 'F\\305\\221t\\303\\241ns.crt' "
		"'latin1-\\351t\\351' 'a\\\\x2d.slice' "
		"'tab\\tnl\\nend\\001\\177' 'nel\\302\\205'; do "
		"f=$(printf \"$n\"); : >\"$f\"; "
		"ln -s \"$f\" \"l-$f\"; ln \"$f\" \"h-$f\"; done && "
		"tar -cf ../in.tar --format=gnu --sort=name .",
		zd_test_tmpdir), 0);
	cmp_listing("C");
	cmp_listing("C.UTF-8");
}
END_TEST

/* An owner or group name is printed whole: a pax header can hold one
 * longer than the 32 bytes of the tar header (the lister cut at 63). */
START_TEST(test_list_long_owner)
{
	ck_assert_int_eq(zd_test_sh(
		"cd '%s' && mkdir src && : >src/f && "
		"u=$(printf 'u%%.0s' $(seq 100)) && "
		"g=$(printf 'g%%.0s' $(seq 80)) && "
		"tar -C src -cf in.tar --format=pax --owner=$u:1000 "
		"--group=$g:1000 --mtime=@0 ./f", zd_test_tmpdir), 0);
	cmp_listing("C");
}
END_TEST

static Suite *
list_suite(void)
{
	Suite *s = suite_create("list");
	TCase *core = zd_test_tcase(s, "core");

	tcase_add_test(core, test_list_matches_tar);
	tcase_add_test(core, test_list_quotes_names);
	tcase_add_test(core, test_list_long_owner);
	return s;
}

int
main(void)
{
	return zd_test_main(list_suite());
}
