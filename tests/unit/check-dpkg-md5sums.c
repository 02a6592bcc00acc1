/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check-dpkg-md5sums.c - DEBIAN/md5sums as dh_md5sums writes it */
#include "config.h"

#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/dpkg-md5sums.h"
#include "tests/unit/testutil.h"

static void
put(const char *rel, const char *content)
{
	char path[sizeof(zd_test_tmpdir) + 256];

	snprintf(path, sizeof(path), "%s/%s", zd_test_tmpdir, rel);
	ck_assert_int_eq(zd_test_sh("mkdir -p \"$(dirname '%s')\"", path), 0);
	zd_test_write_file(path, content, strlen(content));
}

static char *
tree_md5sums(size_t *len)
{
	struct zd_error err = ZD_ERROR_INIT;
	char *text = NULL;

	ck_assert_zd_ok(zd_dpkg_md5sums_tree(zd_test_tmpdir, &text, len, &err),
	                &err);
	return text;
}

START_TEST(test_md5sums_file_known_digests)
{
	struct zd_error err = ZD_ERROR_INIT;
	char hex[ZD_MD5_HEX_SIZE], path[sizeof(zd_test_tmpdir) + 256];

	snprintf(path, sizeof(path), "%s/f", zd_test_tmpdir);
	zd_test_write_file(path, "", 0);
	ck_assert_zd_ok(zd_dpkg_md5sums_file(path, hex, &err), &err);
	ck_assert_str_eq(hex, "d41d8cd98f00b204e9800998ecf8427e");
	zd_test_write_file(path, "abc", 3);
	ck_assert_zd_ok(zd_dpkg_md5sums_file(path, hex, &err), &err);
	ck_assert_str_eq(hex, "900150983cd24fb0d6963f7d28e17f72");
}
END_TEST

/* A file larger than the read buffer, against coreutils md5sum. */
START_TEST(test_md5sums_file_matches_md5sum)
{
	struct zd_error err = ZD_ERROR_INIT;
	const size_t size = 3 * 65536 + 17;
	char hex[ZD_MD5_HEX_SIZE], path[sizeof(zd_test_tmpdir) + 256];
	char want[64] = "";
	unsigned char *buf = malloc(size);
	FILE *p;
	char cmd[sizeof(path) + 32];

	ck_assert_ptr_nonnull(buf);
	zd_test_fill_random(buf, size, 7);
	snprintf(path, sizeof(path), "%s/big", zd_test_tmpdir);
	zd_test_write_file(path, buf, size);
	free(buf);
	ck_assert_zd_ok(zd_dpkg_md5sums_file(path, hex, &err), &err);
	snprintf(cmd, sizeof(cmd), "md5sum '%s'", path);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(fscanf(p, "%32s", want), 1);
	pclose(p);
	ck_assert_str_eq(hex, want);
}
END_TEST

/*
 * Sorted by the whole path in byte order ("a-c" before "a/b", as Perl's
 * sort in dh_md5sums), no "./", DEBIAN/ left out, symlinks left out,
 * hardlinks under each name, conffiles left out.
 */
START_TEST(test_md5sums_tree_as_dh_md5sums)
{
	static const char want[] =
		"900150983cd24fb0d6963f7d28e17f72  a-c\n"
		"d41d8cd98f00b204e9800998ecf8427e  a/b\n"
		"900150983cd24fb0d6963f7d28e17f72  a/hard\n"
		"d41d8cd98f00b204e9800998ecf8427e  etc/not-conf\n"
		"d41d8cd98f00b204e9800998ecf8427e  z\n";
	char *text;
	size_t len;

	put("DEBIAN/control", "Package: x\n");
	put("DEBIAN/conffiles", "/etc/conf\nremove-on-upgrade /etc/gone\n");
	put("a/b", "");
	put("a-c", "abc");
	put("etc/conf", "abc");
	put("etc/not-conf", "");
	put("z", "");
	ck_assert_int_eq(zd_test_sh("cd '%s' && ln a-c a/hard && "
	                            "ln -s z a/link && mkdir empty",
	                            zd_test_tmpdir), 0);
	text = tree_md5sums(&len);
	ck_assert_uint_eq(len, strlen(want));
	ck_assert_mem_eq(text, want, len);
	free(text);
}
END_TEST

/* The same text as the pipeline dh_md5sums runs (find | sort | md5sum). */
START_TEST(test_md5sums_tree_matches_find_md5sum)
{
	char *text, *ref;
	size_t len, rlen;
	char path[sizeof(zd_test_tmpdir) + 256];

	put("usr/bin/tool", "#!/bin/sh\n");
	put("usr/share/doc/x/README", "read me\n");
	put("usr/share/doc/x-y/README", "other\n");
	put("usr/lib/x/data", "0123456789");
	text = tree_md5sums(&len);
	snprintf(path, sizeof(path), "%s.ref", zd_test_tmpdir);
	ck_assert_int_eq(zd_test_sh("cd '%s' && find . -type f ! -regex "
	                            "'./DEBIAN/.*' -printf '%%P\\0' | "
	                            "LC_ALL=C sort -z | xargs -r0 md5sum "
	                            ">'%s'", zd_test_tmpdir, path), 0);
	ref = zd_test_read_file(path, &rlen);
	unlink(path);
	ck_assert_uint_eq(len, rlen);
	ck_assert_mem_eq(text, ref, len);
	free(ref);
	free(text);
}
END_TEST

START_TEST(test_md5sums_tree_empty)
{
	char *text;
	size_t len = 1;

	put("DEBIAN/control", "Package: x\n");
	ck_assert_int_eq(zd_test_sh("ln -s nowhere '%s/l'", zd_test_tmpdir),
	                 0);
	text = tree_md5sums(&len);
	ck_assert_ptr_null(text);
	ck_assert_uint_eq(len, 0);
}
END_TEST

START_TEST(test_md5sums_unreadable)
{
	struct zd_error err = ZD_ERROR_INIT;
	char hex[ZD_MD5_HEX_SIZE], path[sizeof(zd_test_tmpdir) + 256];

	snprintf(path, sizeof(path), "%s/missing", zd_test_tmpdir);
	ck_assert_int_eq(zd_dpkg_md5sums_file(path, hex, &err), -1);
	ck_assert_int_eq(err.code, ZD_E_IO);
	ck_assert_ptr_nonnull(strstr(err.msg, "cannot open"));
	ck_assert_ptr_nonnull(strstr(err.msg, "missing"));
}
END_TEST

static Suite *
md5sums_suite(void)
{
	Suite *s = suite_create("md5sums");
	TCase *core = zd_test_tcase(s, "core");
	TCase *malformed = zd_test_tcase(s, "malformed");

	tcase_add_test(core, test_md5sums_file_known_digests);
	tcase_add_test(core, test_md5sums_file_matches_md5sum);
	tcase_add_test(core, test_md5sums_tree_as_dh_md5sums);
	tcase_add_test(core, test_md5sums_tree_matches_find_md5sum);
	tcase_add_test(core, test_md5sums_tree_empty);
	tcase_add_test(malformed, test_md5sums_unreadable);
	return s;
}

int
main(void)
{
	return zd_test_main(md5sums_suite());
}
