/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check-dpkg-instsize.c - Installed-Size with dpkg-gencontrol's rule */
#include "config.h"

#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/dpkg-instsize.h"
#include "tests/unit/testutil.h"

static void
put_size(const char *rel, size_t size)
{
	char path[sizeof(zd_test_tmpdir) + 256];
	char *buf = calloc(1, size + 1);

	ck_assert_ptr_nonnull(buf);
	snprintf(path, sizeof(path), "%s/%s", zd_test_tmpdir, rel);
	ck_assert_int_eq(zd_test_sh("mkdir -p \"$(dirname '%s')\"", path), 0);
	zd_test_write_file(path, buf, size);
	free(buf);
}

static uint64_t
tree_kib(void)
{
	struct zd_error err = ZD_ERROR_INIT;
	uint64_t kib = 0;

	ck_assert_zd_ok(zd_dpkg_instsize_tree(zd_test_tmpdir, &kib, &err),
	                &err);
	return kib;
}

/*
 * Directories ".", DEBIAN, a: 3; files 0, 1, 1024, 1025 bytes: 0+1+1+2;
 * a hardlink to the 1025-byte file: 0; a symlink: 1; a fifo: 1;
 * DEBIAN/postinst 10 bytes: 1; DEBIAN/control: not counted.
 */
START_TEST(test_instsize_rule)
{
	put_size("DEBIAN/control", 5000);
	put_size("DEBIAN/postinst", 10);
	put_size("a/zero", 0);
	put_size("a/one", 1);
	put_size("a/kib", 1024);
	put_size("a/kib1", 1025);
	ck_assert_int_eq(zd_test_sh("cd '%s' && ln a/kib1 a/hard && "
	                            "ln -s one a/link && mkfifo a/fifo",
	                            zd_test_tmpdir), 0);
	ck_assert_uint_eq(tree_kib(), 3 + 0 + 1 + 1 + 2 + 0 + 1 + 1 + 1);
}
END_TEST

/* Against dpkg-gencontrol itself, when dpkg-dev is installed. */
START_TEST(test_instsize_matches_dpkg_gencontrol)
{
	char cmd[sizeof(zd_test_tmpdir) * 2 + 256];
	char line[256], want[256] = "";
	FILE *p;

	if (!zd_test_tool("command -v dpkg-gencontrol >/dev/null",
	                  "dpkg-gencontrol"))
		return;
	put_size("t/DEBIAN/postinst", 100);
	put_size("t/usr/share/doc/p/big", 3 * 1024 * 1024 + 1);
	put_size("t/usr/bin/p", 4097);
	ck_assert_int_eq(zd_test_sh("cd '%s' && ln -s p t/usr/bin/q && "
	                            "ln t/usr/bin/p t/usr/bin/r && mkdir -p "
	                            "src/debian && printf 'Source: p\\n\\n"
	                            "Package: p\\nArchitecture: all\\n"
	                            "Description: x\\n y\\n' "
	                            ">src/debian/control && printf 'p (1) "
	                            "unstable; urgency=low\\n\\n  * x\\n\\n "
	                            "-- A <a@b.c>  Mon, 01 Jan 2024 00:00:00"
	                            " +0000\\n' >src/debian/changelog",
	                            zd_test_tmpdir), 0);
	snprintf(cmd, sizeof(cmd), "cd '%s/src' && dpkg-gencontrol -pp "
	         "-P'%s/t' -O -fdebian/files.tmp 2>/dev/null",
	         zd_test_tmpdir, zd_test_tmpdir);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	while (fgets(line, sizeof(line), p) != NULL)
		if (strncmp(line, "Installed-Size: ", 16) == 0)
			snprintf(want, sizeof(want), "%s", line + 16);
	pclose(p);
	ck_assert_str_ne(want, "");
	{
		struct zd_error err = ZD_ERROR_INIT;
		char dir[sizeof(zd_test_tmpdir) + 8];
		uint64_t kib = 0;

		snprintf(dir, sizeof(dir), "%s/t", zd_test_tmpdir);
		ck_assert_zd_ok(zd_dpkg_instsize_tree(dir, &kib, &err), &err);
		ck_assert_uint_eq(kib, strtoull(want, NULL, 10));
	}
}
END_TEST

static char *
add(const char *ctl, uint64_t kib)
{
	struct zd_error err = ZD_ERROR_INIT;
	char *out = NULL, *s;
	size_t len = 0;

	ck_assert_zd_ok(zd_dpkg_instsize_control_add(ctl, strlen(ctl), kib,
	                                             &out, &len, &err), &err);
	s = malloc(len + 1);
	ck_assert_ptr_nonnull(s);
	memcpy(s, out, len);
	s[len] = '\0';
	free(out);
	return s;
}

START_TEST(test_instsize_control_placement)
{
	char *s;

	s = add("Package: p\nVersion: 1\nArchitecture: all\nMaintainer: M "
	        "<m@x>\nDepends: a,\n b\nDescription: d\n long\n", 42);
	ck_assert_str_eq(s, "Package: p\nVersion: 1\nArchitecture: all\n"
	                 "Maintainer: M <m@x>\nInstalled-Size: 42\n"
	                 "Depends: a,\n b\nDescription: d\n long\n");
	free(s);
	/* Maintainer last, with a continuation line; blank lines kept. */
	s = add("Package: p\nMaintainer: M\n x\n\n", 7);
	ck_assert_str_eq(s, "Package: p\nMaintainer: M\n x\n"
	                 "Installed-Size: 7\n\n");
	free(s);
	/* No field ordered before it: first. */
	s = add("Description: d\n", 1);
	ck_assert_str_eq(s, "Installed-Size: 1\nDescription: d\n");
	free(s);
}
END_TEST

START_TEST(test_instsize_control_malformed)
{
	static const char twice[] = "Package: p\nInstalled-Size: 3\n";
	static const char bad[] = "Package p\n";
	struct zd_error err = ZD_ERROR_INIT;
	char *out = NULL;
	size_t len;

	ck_assert_int_eq(zd_dpkg_instsize_control_add(twice, strlen(twice), 1,
	                                              &out, &len, &err), -1);
	ck_assert_int_eq(err.code, ZD_E_FORMAT);
	ck_assert_ptr_nonnull(strstr(err.msg, "already has"));
	zd_err_clear(&err);
	ck_assert_int_eq(zd_dpkg_instsize_control_add(bad, strlen(bad), 1, &out,
	                                         &len, &err), -1);
	ck_assert_int_eq(err.code, ZD_E_FORMAT);
	ck_assert_ptr_nonnull(strstr(err.msg, "DEBIAN/control"));
	ck_assert_ptr_null(out);
}
END_TEST

static Suite *
instsize_suite(void)
{
	Suite *s = suite_create("instsize");
	TCase *core = zd_test_tcase(s, "core");
	TCase *malformed = zd_test_tcase_plain(s, "malformed");

	tcase_add_test(core, test_instsize_rule);
	tcase_add_test(core, test_instsize_matches_dpkg_gencontrol);
	tcase_add_test(core, test_instsize_control_placement);
	tcase_add_test(malformed, test_instsize_control_malformed);
	return s;
}

int
main(void)
{
	return zd_test_main(instsize_suite());
}
