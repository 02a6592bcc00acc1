/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check-deb.c - locating .deb members, dpkg-deb's checks and wording */
#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/ar.h"
#include "lib/deb.h"
#include "tests/unit/testutil.h"

static bool
have_dpkg_deb(void)
{
	return zd_test_tool("command -v dpkg-deb >/dev/null", "dpkg-deb");
}

/* Builds tmpdir/t.deb with the real dpkg-deb and compressor comp. */
static void
build_real(const char *comp)
{
	ck_assert_int_eq(zd_test_sh(
		"cd '%s' && mkdir -p p/DEBIAN p/usr/share/x && "
		"printf 'Package: t\\nVersion: 1\\nArchitecture: all\\n"
		"Maintainer: M <m@x>\\nDescription: d\\n' >p/DEBIAN/control && "
		"seq 1 5000 >p/usr/share/x/f && chmod -R go-w p && "
		"SOURCE_DATE_EPOCH=1700000000 dpkg-deb --root-owner-group "
		"-Z%s -b p t.deb >/dev/null", zd_test_tmpdir, comp), 0);
}

/* Asserts that region r holds the bytes `ar p t.deb name` prints. */
static void
check_region(const struct zd_region *r, const char *name)
{
	char *want, *got;
	size_t len;

	ck_assert_int_eq(zd_test_sh("cd '%s' && ar p t.deb %s >want",
	                            zd_test_tmpdir, name), 0);
	want = zd_test_read_file(zd_test_path("want"), &len);
	ck_assert_uint_eq(r->len, len);
	got = malloc(len + 1);
	ck_assert_int_eq(pread(r->fd, got, len, (off_t)r->off), (ssize_t)len);
	ck_assert_int_eq(memcmp(got, want, len), 0);
	free(got);
	free(want);
}

static const struct {
	const char *opt;
	const char *control;	/* dpkg-deb 1.21 compresses both alike */
	const char *data;
	enum zd_comp_type type;
} comps[] = {
	{ "gzip", "control.tar.gz", "data.tar.gz", ZD_COMP_GZIP },
	{ "xz", "control.tar.xz", "data.tar.xz", ZD_COMP_XZ },
	{ "zstd", "control.tar.zst", "data.tar.zst", ZD_COMP_ZSTD },
	{ "none", "control.tar", "data.tar", ZD_COMP_NONE },
};

START_TEST(test_deb_open_real)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_deb deb;

	if (!have_dpkg_deb())
		return;
	build_real(comps[_i].opt);
	ck_assert_zd_ok(zd_deb_open(zd_test_path("t.deb"), &deb, &err), &err);
	ck_assert_str_eq(deb.format, "2.0");
	ck_assert_uint_eq(deb.major, 2);
	ck_assert_str_eq(deb.version_line, "2.0");
	ck_assert(!deb.old_format);
	ck_assert_str_eq(deb.control.name, comps[_i].control);
	ck_assert_ptr_nonnull(deb.control.codec);
	ck_assert_int_eq(deb.control.codec->type, comps[_i].type);
	ck_assert_str_eq(deb.data.name, comps[_i].data);
	ck_assert_ptr_nonnull(deb.data.codec);
	ck_assert_int_eq(deb.data.codec->type, comps[_i].type);
	ck_assert_uint_eq(deb.n_members, 3);
	ck_assert(!deb.trailing_garbage);
	ck_assert_str_eq(deb.dpkg_msg, "");
	check_region(&deb.control.region, deb.control.name);
	check_region(&deb.data.region, deb.data.name);
	zd_deb_close(&deb);
	zd_deb_close(&deb);
}
END_TEST

/* stdin is a pipe: the package is spooled to a temporary file. */
START_TEST(test_deb_open_stdin_pipe)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_deb deb;
	int p[2];
	pid_t pid;

	if (!have_dpkg_deb())
		return;
	build_real("zstd");
	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char cmd[4300];

		close(p[0]);
		dup2(p[1], 1);
		snprintf(cmd, sizeof(cmd), "cat '%s'", zd_test_path("t.deb"));
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	ck_assert_int_ge(dup2(p[0], 0), 0);
	close(p[0]);
	ck_assert_zd_ok(zd_deb_open("-", &deb, &err), &err);
	waitpid(pid, NULL, 0);
	ck_assert_str_eq(deb.data.name, "data.tar.zst");
	check_region(&deb.control.region, "control.tar.zst");
	check_region(&deb.data.region, "data.tar.zst");
	zd_deb_close(&deb);
}
END_TEST

/* stdin is the file itself (dup2 onto fd 0). */
START_TEST(test_deb_open_stdin_file)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_deb deb;
	int fd;

	if (!have_dpkg_deb())
		return;
	build_real("gzip");
	fd = open(zd_test_path("t.deb"), O_RDONLY);
	ck_assert_int_ge(dup2(fd, 0), 0);
	close(fd);
	ck_assert_zd_ok(zd_deb_open("-", &deb, &err), &err);
	ck_assert_str_eq(deb.data.name, "data.tar.gz");
	check_region(&deb.data.region, "data.tar.gz");
	zd_deb_close(&deb);
}
END_TEST

/* A fake package made with our ar writer: members as "name=content". */
static void
make_deb(const char *file, const char *const *members)
{
	struct zd_error err = ZD_ERROR_INIT;
	int fd = open(zd_test_path(file), O_RDWR | O_CREAT | O_TRUNC, 0644);

	ck_assert_int_ge(fd, 0);
	ck_assert_zd_ok(zd_ar_write_magic(fd, &err), &err);
	for (size_t i = 0; members[i] != NULL; i++) {
		const char *eq = strchr(members[i], '=');
		char name[17];

		ck_assert_ptr_nonnull(eq);
		snprintf(name, sizeof(name), "%.*s", (int)(eq - members[i]),
		         members[i]);
		ck_assert_zd_ok(zd_ar_write_member_buf(fd, name, 0, eq + 1,
		                                       strlen(eq + 1), &err),
		                &err);
	}
	close(fd);
}

START_TEST(test_deb_skips_underscore)
{
	static const char *const m[] = {
		"debian-binary=2.0\n", "_gpgorigin=sig", "control.tar.gz=c",
		"_extra=x", "data.tar.zst=dd", "trailer=t", NULL,
	};
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_deb deb;

	make_deb("u.deb", m);
	ck_assert_zd_ok(zd_deb_open(zd_test_path("u.deb"), &deb, &err), &err);
	ck_assert_str_eq(deb.control.name, "control.tar.gz");
	ck_assert_uint_eq(deb.control.region.len, 1);
	ck_assert_str_eq(deb.data.name, "data.tar.zst");
	ck_assert_uint_eq(deb.data.region.len, 2);
	ck_assert_uint_eq(deb.n_members, 6);
	ck_assert_str_eq(deb.members[5].name, "trailer");
	ck_assert(!deb.trailing_garbage);
	zd_deb_close(&deb);
}
END_TEST

START_TEST(test_deb_control_only)
{
	static const char *const m[] = {
		"debian-binary=2.1\nextra", "control.tar=c", NULL,
	};
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_deb deb;

	make_deb("c.deb", m);
	ck_assert_zd_ok(zd_deb_open_flags(zd_test_path("c.deb"), ZD_DEB_CONTROL_ONLY,
	                                  &deb, &err), &err);
	ck_assert_str_eq(deb.format, "2.1");
	ck_assert_int_eq(deb.control.codec->type, ZD_COMP_NONE);
	ck_assert_str_eq(deb.data.name, "");
	zd_deb_close(&deb);
	ck_assert_int_eq(zd_deb_open(zd_test_path("c.deb"), &deb, &err), -1);
	ck_assert_ptr_nonnull(strstr(deb.dpkg_msg, "unexpected end of file in "
	                             "archive member header in "));
	ck_assert_ptr_nonnull(strstr(err.msg, "missing member 'data.tar'"));
}
END_TEST

START_TEST(test_deb_trailing_garbage)
{
	static const char *const m[] = {
		"debian-binary=2.0\n", "control.tar.xz=c", "data.tar.xz=d",
		NULL,
	};
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_deb deb;

	make_deb("g.deb", m);
	ck_assert_int_eq(zd_test_sh("printf 'junk' >>'%s'", zd_test_path("g.deb")), 0);
	ck_assert_zd_ok(zd_deb_open(zd_test_path("g.deb"), &deb, &err), &err);
	ck_assert(deb.trailing_garbage);
	zd_deb_close(&deb);
}
END_TEST

/*
 * Broken packages: the error code, our message, and dpkg-deb's message,
 * checked against the real dpkg-deb --fsys-tarfile when it is installed.
 */
static const struct {
	const char *members[6];	/* NULL: see raw */
	const char *raw;	/* whole file contents when members[0] NULL */
	enum zd_errc code;
	const char *msg;
	const char *dpkg;
} bad[] = {
	{ { "debian-binary=2.0\n", "data.tar.xz=d", "control.tar.gz=c" },
	  NULL, ZD_E_FORMAT, "member 'data.tar.xz' before 'control.tar'",
	  "archive 'bad.deb' has premature member 'data.tar.xz' before "
	  "'control.tar', giving up" },
	{ { "debian-binary=2.0\n", "control.tar.gz=c" },
	  NULL, ZD_E_FORMAT, "missing member 'data.tar'",
	  "unexpected end of file in archive member header in bad.deb" },
	{ { "debian-binary=2.0\n", "control.tar.gz=c", "control.tar.xz=c",
	    "data.tar.xz=d" },
	  NULL, ZD_E_FORMAT, "second control member 'control.tar.xz' at "
	  "offset 134", "archive 'bad.deb' contains two control members, "
	  "giving up" },
	{ { "debian-binary=2.0", "control.tar.gz=c", "data.tar.xz=d" },
	  NULL, ZD_E_FORMAT, "member 'debian-binary' has no newline",
	  "archive has no newlines in header" },
	{ { "debian-binary=3.0\n", "control.tar.gz=c", "data.tar.xz=d" },
	  NULL, ZD_E_UNSUPPORTED, "format version 3.0 is not supported",
	  "archive is format version 3.0; get a newer dpkg-deb" },
	{ { "debian-binary=2\n", "control.tar.gz=c", "data.tar.xz=d" },
	  NULL, ZD_E_FORMAT, "member 'debian-binary': invalid format version: "
	  "format version has no dot", "archive has invalid format version: "
	  "format version has no dot" },
	{ { "debian-binary=2.0x\n", "control.tar.gz=c", "data.tar.xz=d" },
	  NULL, ZD_E_FORMAT, "format version followed by junk",
	  "archive has invalid format version: format version followed by "
	  "junk" },
	{ { "debian-binary=2.0\n", "control.tar.gz=c", "foo=x",
	    "data.tar.xz=d" },
	  NULL, ZD_E_FORMAT, "member 'foo' between 'control.tar.gz' and "
	  "'data.tar'", "archive 'bad.deb' has premature member 'foo' before "
	  "'data.tar', giving up" },
	{ { "debian-binary=2.0\n", "control.tar.gz=c", "data.tar.foo=d" },
	  NULL, ZD_E_FORMAT, "unknown compression for member 'data.tar.foo'",
	  "archive 'bad.deb' uses unknown compression for member "
	  "'data.tar.foo', giving up" },
	{ { "debian-binary=2.0\n", "control.tar.bz2=c", "data.tar.xz=d" },
	  NULL, ZD_E_UNSUPPORTED, "compression 'bzip2' of member "
	  "'control.tar.bz2' is not allowed",
	  "archive 'bad.deb' uses unknown compression for member "
	  "'control.tar.bz2', giving up" },
	{ { "control.tar.gz=c", "debian-binary=2.0\n", "data.tar.xz=d" },
	  NULL, ZD_E_FORMAT, "not a Debian binary package: first member is "
	  "'control.tar.gz', not 'debian-binary' (try dpkg-split?)",
	  "file 'bad.deb' is not a Debian binary archive (try dpkg-split?)" },
	{ { NULL }, "PK\003\004 this is a zip file", ZD_E_FORMAT,
	  "not a Debian package (bad ar magic)",
	  "unexpected end of file in archive magic version number in "
	  "bad.deb" },
	{ { NULL }, "PK\003\004 this is a zip file\nwith more text after "
	  "it", ZD_E_FORMAT, "not a Debian package (bad ar magic)",
	  "'bad.deb' is not a Debian format archive" },
	{ { NULL }, "!<arch>", ZD_E_FORMAT, "not a Debian package (bad ar "
	  "magic)", "unexpected end of file in archive magic version number "
	  "in bad.deb" },
	{ { NULL }, "", ZD_E_FORMAT, "not a Debian package (empty file)",
	  "unexpected end of file in archive magic version number in "
	  "bad.deb" },
	{ { NULL }, "!<arch>\ndebian-binary   0           0     0     100644  "
	  "4         `\n2.0\ncontrol.tar.gz  0           0     0     100644  "
	  "1         \n\nc\n", ZD_E_FORMAT, "bad header trailer",
	  "file 'bad.deb' is corrupt - bad archive header magic" },
	{ { NULL }, "!<arch>\ndebian-binary   0           0     0     100644  "
	  "4         `\n2.0\ncontrol.tar.gz  0           0     0     100644  "
	  "1x        `\nc\n", ZD_E_FORMAT, "size '1x        ' is not a decimal",
	  "invalid character 'x' in archive 'bad.deb' member 'control.tar.gz' "
	  "size" },
	{ { NULL }, "!<arch>\ndebian-binary   0           0     0     100644  "
	  "4         `\n2.0\ncontrol.tar.gz  0           0     0     100644  "
	  "1         `\nc\ndata.tar.xz     0           0     0     100644  "
	  "99        `\nd", ZD_E_FORMAT, "ar member 'data.tar.xz' at offset "
	  "134: size 99 runs past the end of the file (195 bytes)",
	  NULL },
	/* test_deb_control_past_end: reported as such, not as a missing
	 * data member (dpkg-deb seeks past it, then meets the end). */
	{ { NULL }, "!<arch>\ndebian-binary   0           0     0     100644  "
	  "4         `\n2.0\ncontrol.tar.gz  0           0     0     100644  "
	  "999       `\nc\n", ZD_E_FORMAT, "ar member 'control.tar.gz' at "
	  "offset 72: size 999 runs past the end of the file (134 bytes)",
	  "unexpected end of file in archive member header in bad.deb" },
	{ { NULL }, "0.939000\n10\n0123456789", ZD_E_UNSUPPORTED,
	  "old-format (0.939000) packages are not supported", "" },
};

START_TEST(test_deb_bad)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_deb deb;
	char *out;

	if (bad[_i].members[0] != NULL)
		make_deb("bad.deb", bad[_i].members);
	else
		zd_test_write_file(zd_test_path("bad.deb"), bad[_i].raw,
		                   strlen(bad[_i].raw));
	ck_assert_int_eq(chdir(zd_test_tmpdir), 0);
	ck_assert_int_eq(zd_deb_open("bad.deb", &deb, &err), -1);
	ck_assert_msg(err.code == bad[_i].code, "case %d: code %d: %s", _i,
	              err.code, err.msg);
	ck_assert_msg(strncmp(err.msg, "'bad.deb': ", 11) == 0 &&
	              strstr(err.msg, bad[_i].msg) != NULL,
	              "case %d: got '%s'", _i, err.msg);
	ck_assert_int_eq(deb.fd, -1);
	if (bad[_i].dpkg != NULL)
		ck_assert_msg(strcmp(deb.dpkg_msg, bad[_i].dpkg) == 0,
		              "case %d: dpkg_msg '%s'", _i, deb.dpkg_msg);
	if (bad[_i].dpkg == NULL || bad[_i].dpkg[0] == '\0' ||
	    !have_dpkg_deb())
		return;
	/* What the real dpkg-deb says. */
	zd_test_sh("dpkg-deb --fsys-tarfile bad.deb >/dev/null 2>err");
	out = zd_test_read_text("err");
	ck_assert_msg(strncmp(out, "dpkg-deb: error: ", 17) == 0 &&
	              strncmp(out + 17, deb.dpkg_msg,
	                      strlen(deb.dpkg_msg)) == 0 &&
	              out[17 + strlen(deb.dpkg_msg)] == '\n',
	              "case %d: dpkg-deb said '%s', we '%s'", _i, out,
	              deb.dpkg_msg);
	free(out);
}
END_TEST

START_TEST(test_deb_open_missing)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_deb deb;

	ck_assert_int_eq(zd_deb_open(zd_test_path("nope.deb"), &deb, &err), -1);
	ck_assert_int_eq(err.code, ZD_E_IO);
	ck_assert_ptr_nonnull(strstr(err.msg, "No such file or directory"));
	ck_assert_ptr_nonnull(strstr(deb.dpkg_msg, "failed to read archive"));
}
END_TEST

/* dpkg's deb_version_parse(), which --deb-format uses too. */
START_TEST(test_deb_version_parse)
{
	static const struct {
		const char *s, *why;
		unsigned major, minor;
	} v[] = {
		{ "2.0", NULL, 2, 0 },
		{ "2.0\n", NULL, 2, 0 },
		{ "02.00", NULL, 2, 0 },
		{ "0.939000", NULL, 0, 939000 },
		{ "2147483647.2147483647", NULL, 2147483647, 2147483647 },
		{ "", "format version with empty major component", 0, 0 },
		{ ".0", "format version with empty major component", 0, 0 },
		{ "2", "format version has no dot", 0, 0 },
		{ "2.", "format version with empty minor component", 0, 0 },
		{ "2.0x", "format version followed by junk", 0, 0 },
		{ "2.0\nx", NULL, 2, 0 },
		{ "2147483648.0",
		  "format version with too big major component", 0, 0 },
		{ "2.2147483648",
		  "format version with too big minor component", 0, 0 },
	};

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		unsigned major = 7, minor = 7;
		const char *why = zd_deb_version_parse(v[i].s, &major,
		                                       &minor);

		if (v[i].why == NULL) {
			ck_assert_msg(why == NULL, "'%s': %s", v[i].s, why);
			ck_assert_uint_eq(major, v[i].major);
			ck_assert_uint_eq(minor, v[i].minor);
		} else {
			ck_assert_ptr_nonnull(why);
			ck_assert_str_eq(why, v[i].why);
			ck_assert_uint_eq(major, 7);
		}
	}
}
END_TEST

static Suite *
deb_suite(void)
{
	Suite *s = suite_create("deb");
	TCase *core = zd_test_tcase(s, "core");
	TCase *malformed = zd_test_tcase(s, "malformed");

	tcase_add_loop_test(core, test_deb_open_real, 0,
	                    sizeof(comps) / sizeof(comps[0]));
	tcase_add_test(core, test_deb_open_stdin_pipe);
	tcase_add_test(core, test_deb_open_stdin_file);
	tcase_add_test(core, test_deb_skips_underscore);
	tcase_add_test(core, test_deb_control_only);
	tcase_add_test(core, test_deb_trailing_garbage);
	tcase_add_loop_test(malformed, test_deb_bad, 0,
	                    sizeof(bad) / sizeof(bad[0]));
	tcase_add_test(malformed, test_deb_open_missing);
	tcase_add_test(malformed, test_deb_version_parse);
	return s;
}

int
main(void)
{
	return zd_test_main(deb_suite());
}
