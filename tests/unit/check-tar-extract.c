/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check-tar-extract.c - member name rules and extraction */
#include "config.h"

#include <check.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/tar-extract.h"
#include "tests/unit/testutil.h"

START_TEST(test_extract_safepath_ok)
{
	static const char *const good[] = {
		"./", "./usr/bin/x", "usr/..x/y", "a/b..", "./a/./b",
	};
	struct zd_error err = ZD_ERROR_INIT;

	for (size_t i = 0; i < sizeof(good) / sizeof(*good); i++)
		ck_assert_zd_ok(zd_tar_safepath_check(good[i], &err), &err);
}
END_TEST

START_TEST(test_extract_safepath_refused)
{
	static const char *const bad[] = {
		"/etc/passwd", "../x", "./../x", "a/../../b", "a/..", "..", "",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		struct zd_error err = ZD_ERROR_INIT;

		ck_assert_int_eq(zd_tar_safepath_check(bad[i], &err), -1);
		ck_assert_int_eq(err.code, ZD_E_FORMAT);
		if (bad[i][0] != '\0')
			ck_assert_msg(strstr(err.msg, bad[i]) != NULL,
			              "message does not name '%s': %s", bad[i],
			              err.msg);
	}
}
END_TEST

/* Extracts T/in.tar into T/out with o; returns zd_tar_extract's result. */
static int
extract_tmp_opts(const struct zd_extract_opts *o, struct zd_error *err)
{
	char path[4200];
	int fd, rc;

	snprintf(path, sizeof(path), "%s/in.tar", zd_test_tmpdir);
	fd = open(path, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	snprintf(path, sizeof(path), "%s/out", zd_test_tmpdir);
	mkdir(path, 0755);
	rc = zd_tar_extract(fd, path, o, err);
	close(fd);
	return rc;
}

/* Extracts T/in.tar into T/out with default options (owner not kept). */
static int
extract_tmp(struct zd_error *err)
{
	struct zd_extract_opts o = { 0 };

	return extract_tmp_opts(&o, err);
}

/* Makes T/in.tar with python3's tarfile from the statements in py. */
static void
make_tar(const char *py)
{
	ck_assert_int_eq(zd_test_sh(
		"cd '%s' && python3 -c '"
		"import io, tarfile\n"
		"t = tarfile.open(\"in.tar\", \"w\", format=tarfile.GNU_FORMAT)\n"
		"def reg(n, data=b\"x\", mode=0o644):\n"
		"    i = tarfile.TarInfo(n); i.size = len(data); i.mode = mode\n"
		"    t.addfile(i, io.BytesIO(data))\n"
		"def sym(n, target):\n"
		"    i = tarfile.TarInfo(n); i.type = tarfile.SYMTYPE\n"
		"    i.linkname = target; t.addfile(i)\n"
		"def hard(n, target):\n"
		"    i = tarfile.TarInfo(n); i.type = tarfile.LNKTYPE\n"
		"    i.linkname = target; t.addfile(i)\n"
		"def typ(n, ty):\n"
		"    i = tarfile.TarInfo(n); i.type = ty; t.addfile(i)\n"
		"%s\n"
		"t.close()\n'", zd_test_tmpdir, py), 0);
}

/* True when T/REL exists (lstat). */
static bool
exists(const char *rel)
{
	char p[4200];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", zd_test_tmpdir, rel);
	return lstat(p, &st) == 0;
}

/* Asserts the last extraction failed with a message containing want. */
#define ck_assert_refused(rc, err, want) do { \
	ck_assert_int_eq((rc), -1); \
	ck_assert_msg(strstr((err)->msg, (want)) != NULL, \
	              "message lacks '%s': %s", (want), (err)->msg); \
} while (0)

START_TEST(test_extract_tree)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct stat a, b;
	char p1[4200], p2[4200];

	ck_assert_int_eq(zd_test_sh(
		"cd '%s' && mkdir -p src/d/e && echo hi >src/d/f && "
		"ln src/d/f src/d/g && ln -s f src/d/l && chmod 4711 src/d/f && "
		"touch -d @1000000000 src/d/f && "
		"tar -C src -cf in.tar --format=gnu ./", zd_test_tmpdir), 0);
	ck_assert_zd_ok(extract_tmp(&err), &err);
	snprintf(p1, sizeof(p1), "%s/out/d/f", zd_test_tmpdir);
	snprintf(p2, sizeof(p2), "%s/out/d/g", zd_test_tmpdir);
	ck_assert_int_eq(stat(p1, &a), 0);
	ck_assert_int_eq(stat(p2, &b), 0);
	ck_assert_uint_eq(a.st_ino, b.st_ino);
	/* Ownership not restored: setuid dropped. */
	ck_assert_uint_eq(a.st_mode & 07777, 0711);
	ck_assert_int_eq(a.st_mtime, 1000000000);
	snprintf(p1, sizeof(p1), "%s/out/d/l", zd_test_tmpdir);
	ck_assert_int_eq(lstat(p1, &a), 0);
	ck_assert(S_ISLNK(a.st_mode));
	snprintf(p1, sizeof(p1), "%s/out/d/e", zd_test_tmpdir);
	ck_assert_int_eq(stat(p1, &a), 0);
	ck_assert(S_ISDIR(a.st_mode));
}
END_TEST

START_TEST(test_extract_dotdot_refused)
{
	struct zd_error err = ZD_ERROR_INIT;
	char p[4200];

	/* GNU tar stores "../escape" as given with -P. */
	ck_assert_int_eq(zd_test_sh(
		"cd '%s' && mkdir src && echo x >escape-new && cd src && "
		"tar -cPf ../in.tar --format=gnu ../escape-new && "
		"rm ../escape-new",
		zd_test_tmpdir), 0);
	ck_assert_int_eq(extract_tmp(&err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "'..' path component refused"));
	snprintf(p, sizeof(p), "%s/escape-new", zd_test_tmpdir);
	ck_assert_int_ne(access(p, F_OK), 0);
}
END_TEST

START_TEST(test_extract_symlink_escape_refused)
{
	struct zd_error err = ZD_ERROR_INIT;
	char p[4200];

	/* A symlink to outside, then a file written through it. */
	ck_assert_int_eq(zd_test_sh(
		"cd '%s' && mkdir -p src outside && ln -s ../outside src/link && "
		"tar -C src -cf in.tar --format=gnu link && "
		"mkdir -p src2/link && echo pwned >src2/link/file && "
		"tar -C src2 -rf in.tar --format=gnu link/file",
		zd_test_tmpdir), 0);
	ck_assert_int_eq(extract_tmp(&err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "link/file"));
	snprintf(p, sizeof(p), "%s/outside/file", zd_test_tmpdir);
	ck_assert_int_ne(access(p, F_OK), 0);
}
END_TEST

START_TEST(test_extract_setuid_kept_with_owner)
{
	struct zd_extract_opts o = { .owner = true };
	struct zd_error err = ZD_ERROR_INIT;
	struct stat st;
	char p[4200];

	if (geteuid() != 0)
		return;		/* fchown needs root */
	make_tar("reg(\"f\", b\"hi\", 0o6755)");
	ck_assert_zd_ok(extract_tmp_opts(&o, &err), &err);
	snprintf(p, sizeof(p), "%s/out/f", zd_test_tmpdir);
	ck_assert_int_eq(stat(p, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 06755);
}
END_TEST

START_TEST(test_extract_absolute_refused)
{
	struct zd_error err = ZD_ERROR_INIT;

	make_tar("reg(\"/abs-zdeb-test\")");
	ck_assert_refused(extract_tmp(&err), &err, "absolute path refused");
	ck_assert(!exists("out/abs-zdeb-test"));
}
END_TEST

START_TEST(test_extract_write_through_symlink_refused)
{
	struct zd_error err = ZD_ERROR_INIT;

	/* Even a symlink pointing inside is not walked through. */
	make_tar("typ(\"d\", tarfile.DIRTYPE)\nsym(\"l\", \"d\")\n"
	         "reg(\"l/f\")");
	ck_assert_refused(extract_tmp(&err), &err,
	                  "member 'l/f': path goes through symlink 'l'");
	ck_assert(!exists("out/d/f"));
}
END_TEST

START_TEST(test_extract_hardlink_outside_refused)
{
	struct zd_error err = ZD_ERROR_INIT;

	ck_assert_int_eq(zd_test_sh("mkdir '%s/secret' && echo s "
	                            ">'%s/secret/s'", zd_test_tmpdir,
	                            zd_test_tmpdir), 0);
	make_tar("sym(\"l\", \"../secret\")\nhard(\"h\", \"l/s\")");
	ck_assert_refused(extract_tmp(&err), &err,
	                  "hardlink target 'l/s' is not a regular file "
	                  "extracted before it");
	ck_assert(!exists("out/h"));
	make_tar("hard(\"h\", \"../secret/s\")");
	ck_assert_refused(extract_tmp(&err), &err, "'..' path component");
}
END_TEST

START_TEST(test_extract_hardlink_not_yet_extracted_refused)
{
	struct zd_error err = ZD_ERROR_INIT;

	make_tar("hard(\"h\", \"later\")\nreg(\"later\")");
	ck_assert_refused(extract_tmp(&err), &err,
	                  "member 'h': hardlink target 'later' is not a "
	                  "regular file extracted before it");
	/* A directory is not a hardlink target either. */
	make_tar("typ(\"d\", tarfile.DIRTYPE)\nhard(\"h\", \"d\")");
	ck_assert_refused(extract_tmp(&err), &err, "is not a regular file");
	/* Nor a name that was a file, then replaced by a symlink. */
	make_tar("reg(\"f\")\nsym(\"f\", \"/etc/passwd\")\n"
	         "hard(\"h\", \"f\")");
	ck_assert_refused(extract_tmp(&err), &err, "is not a regular file");
}
END_TEST

START_TEST(test_extract_special_refused_unless_allowed)
{
	struct zd_extract_opts o = { .allow_devices = true };
	struct zd_error err = ZD_ERROR_INIT;

	make_tar("typ(\"p\", tarfile.FIFOTYPE)");
	ck_assert_refused(extract_tmp(&err), &err, "member 'p': FIFO refused");
	ck_assert(!exists("out/p"));
	make_tar("typ(\"c\", tarfile.CHRTYPE)");
	ck_assert_refused(extract_tmp(&err), &err,
	                  "member 'c': device node refused");
	make_tar("typ(\"p\", tarfile.FIFOTYPE)");
	ck_assert_zd_ok(extract_tmp_opts(&o, &err), &err);
	ck_assert(exists("out/p"));
}
END_TEST

START_TEST(test_extract_truncated_leaves_no_partial_file)
{
	struct zd_error err = ZD_ERROR_INIT;

	ck_assert_int_eq(zd_test_sh(
		"cd '%s' && mkdir src && head -c 100000 /dev/urandom >src/big "
		"&& tar -C src -cf full.tar --format=gnu big && "
		"head -c 60000 full.tar >in.tar", zd_test_tmpdir), 0);
	ck_assert_int_eq(extract_tmp(&err), -1);
	ck_assert(!exists("out/big"));
	/* No temporary file is left behind either. */
	ck_assert_int_eq(zd_test_sh("test -z \"$(ls -A '%s/out')\"",
	                            zd_test_tmpdir), 0);
}
END_TEST

START_TEST(test_extract_replaces_existing_symlink_not_target)
{
	struct zd_error err = ZD_ERROR_INIT;

	/* A symlink to outside, then a file of the same name: the file
	 * replaces the link, the link's target is untouched. */
	zd_test_sh("echo keep >'%s/victim'", zd_test_tmpdir);
	make_tar("sym(\"f\", \"../victim\")\nreg(\"f\", b\"new\")");
	ck_assert_zd_ok(extract_tmp(&err), &err);
	ck_assert_int_eq(zd_test_sh("grep -qx keep '%s/victim' && "
	                            "test ! -L '%s/out/f'", zd_test_tmpdir,
	                            zd_test_tmpdir), 0);
}
END_TEST

START_TEST(test_extract_hardlink_to_itself)
{
	struct zd_error err = ZD_ERROR_INIT;

	make_tar("reg(\"f\", b\"keep\")\nhard(\"./f\", \"f\")");
	ck_assert_zd_ok(extract_tmp(&err), &err);
	ck_assert_int_eq(zd_test_sh("grep -qx keep '%s/out/f'",
	                            zd_test_tmpdir), 0);
}
END_TEST

START_TEST(test_extract_readonly_dir_filled)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct stat st;
	char p[4200];

	make_tar("i = tarfile.TarInfo(\"ro\"); i.type = tarfile.DIRTYPE\n"
	         "i.mode = 0o555; i.mtime = 1234567890; t.addfile(i)\n"
	         "reg(\"ro/f\")");
	ck_assert_zd_ok(extract_tmp(&err), &err);
	snprintf(p, sizeof(p), "%s/out/ro", zd_test_tmpdir);
	ck_assert_int_eq(stat(p, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0555);
	ck_assert_int_eq(st.st_mtime, 1234567890);
	chmod(p, 0755);
}
END_TEST

static Suite *
extract_suite(void)
{
	Suite *s = suite_create("extract");
	TCase *core = zd_test_tcase(s, "core");
	TCase *malformed = zd_test_tcase(s, "malformed");

	tcase_add_test(core, test_extract_safepath_ok);
	tcase_add_test(core, test_extract_tree);
	tcase_add_test(core, test_extract_setuid_kept_with_owner);
	tcase_add_test(core, test_extract_replaces_existing_symlink_not_target);
	tcase_add_test(core, test_extract_readonly_dir_filled);
	tcase_add_test(core, test_extract_hardlink_to_itself);
	tcase_add_test(malformed, test_extract_safepath_refused);
	tcase_add_test(malformed, test_extract_dotdot_refused);
	tcase_add_test(malformed, test_extract_symlink_escape_refused);
	tcase_add_test(malformed, test_extract_absolute_refused);
	tcase_add_test(malformed, test_extract_write_through_symlink_refused);
	tcase_add_test(malformed, test_extract_hardlink_outside_refused);
	tcase_add_test(malformed,
	               test_extract_hardlink_not_yet_extracted_refused);
	tcase_add_test(malformed, test_extract_special_refused_unless_allowed);
	tcase_add_test(malformed,
	               test_extract_truncated_leaves_no_partial_file);
	return s;
}

int
main(void)
{
	return zd_test_main(extract_suite());
}
