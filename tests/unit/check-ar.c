/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check-ar.c - the ar writer (byte-identical to dpkg-deb) and reader */
#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/ar.h"
#include "lib/fdio.h"
#include "tests/unit/testutil.h"

static int
create(const char *name)
{
	int fd = open(zd_test_path(name), O_RDWR | O_CREAT | O_TRUNC, 0644);

	ck_assert_int_ge(fd, 0);
	return fd;
}

/* Writes a file made of magic + one raw 60-byte header + data. */
static void
write_raw(const char *name, const char *hdr, const char *data, size_t len)
{
	char buf[4096];

	ck_assert_uint_eq(strlen(hdr), ZD_AR_HDR_LEN);
	memcpy(buf, ZD_AR_MAGIC, 8);
	memcpy(buf + 8, hdr, 60);
	memcpy(buf + 68, data, len);
	zd_test_write_file(zd_test_path(name), buf, 68 + len);
}

/* Runs zd_ar_next once over a file; returns its result. */
static int
next_once(const char *name, struct zd_ar_member *m, struct zd_error *err)
{
	uint64_t size, off = ZD_AR_MAGIC_LEN;
	int fd = open(zd_test_path(name), O_RDONLY);
	int rc;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(zd_fd_size(fd, &size, err), 0);
	rc = zd_ar_next(fd, size, &off, m, err);
	close(fd);
	return rc;
}

START_TEST(test_ar_write_readback)
{
	struct zd_error err = ZD_ERROR_INIT;
	unsigned char big[70001];
	struct zd_ar_member m;
	uint64_t size, off = ZD_AR_MAGIC_LEN;
	int fd = create("t.a");
	int in = create("in.bin");
	int n = 0;

	zd_test_fill_random(big, sizeof(big), 1);
	ck_assert_int_eq(write(in, big, sizeof(big)), (ssize_t)sizeof(big));
	ck_assert_zd_ok(zd_ar_write_magic(fd, &err), &err);
	ck_assert_zd_ok(zd_ar_write_member_buf(fd, "debian-binary", 1700000000,
	                                       "2.0\n", 4, &err), &err);
	ck_assert_zd_ok(zd_ar_write_member_buf(fd, "odd", 5, "abc", 3, &err),
	                &err);
	ck_assert_zd_ok(zd_ar_write_member_buf(fd, "data.tar.zst", 7, big,
	                                       sizeof(big), &err), &err);
	/* bytes 1001 .. 1001 + 999 of in.bin */
	ck_assert_zd_ok(zd_ar_write_member_buf(fd, "part", 7, big + 1001, 999,
	                                       &err), &err);
	ck_assert_zd_ok(zd_ar_write_member_buf(fd, "empty", 0, "", 0, &err),
	                &err);
	close(in);

	ck_assert_int_eq(zd_test_sh("cd '%s' && test \"$(ar t t.a | tr '\\n' "
	                            "' ')\" = 'debian-binary odd data.tar.zst "
	                            "part empty '", zd_test_tmpdir), 0);
	ck_assert_int_eq(zd_test_sh("cd '%s' && ar p t.a data.tar.zst | cmp -s "
	                            "- in.bin && test \"$(ar p t.a odd)\" = abc",
	                            zd_test_tmpdir), 0);
	ck_assert_int_eq(zd_test_sh("cd '%s' && tail -c +1002 in.bin | "
	                            "head -c 999 >part.want && ar p t.a part | "
	                            "cmp -s - part.want", zd_test_tmpdir), 0);

	ck_assert_zd_ok(zd_ar_check_magic(fd, &err), &err);
	ck_assert_zd_ok(zd_fd_size(fd, &size, &err), &err);
	for (;;) {
		int rc = zd_ar_next(fd, size, &off, &m, &err);

		ck_assert_int_ge(rc, 0);
		if (rc == 0)
			break;
		n++;
		if (n == 2) {
			ck_assert_str_eq(m.name, "odd");
			ck_assert_uint_eq(m.size, 3);
			ck_assert_uint_eq(m.mtime, 5);
			ck_assert_uint_eq(m.mode, 0100644);
			ck_assert_uint_eq(m.data_off, 8 + 60 + 4 + 60);
		}
		if (n == 3)
			ck_assert_uint_eq(m.size, sizeof(big));
		if (n == 4)
			ck_assert_uint_eq(m.size, 999);
	}
	ck_assert_int_eq(n, 5);
	ck_assert_uint_eq(off, size);
	close(fd);
}
END_TEST

/* Our bytes equal dpkg-deb's: rebuild a dpkg-deb package member by member
 * with our writer and compare the whole file. */
START_TEST(test_ar_matches_dpkg_deb)
{
	struct zd_error err = ZD_ERROR_INIT;
	unsigned char hdr[ZD_AR_HDR_LEN];
	struct zd_ar_member m;
	uint64_t size, off = ZD_AR_MAGIC_LEN;
	int fd, out;
	int n = 0;

	if (!zd_test_tool("command -v dpkg-deb >/dev/null", "dpkg-deb"))
		return;
	ck_assert_int_eq(zd_test_sh(
		"cd '%s' && mkdir -p p/DEBIAN p/usr/share/x && "
		"printf 'Package: t\\nVersion: 1\\nArchitecture: all\\n"
		"Maintainer: M <m@x>\\nDescription: d\\n' >p/DEBIAN/control && "
		"printf 'hello' >p/usr/share/x/f && chmod -R go-w p && "
		"SOURCE_DATE_EPOCH=1700000001 dpkg-deb --root-owner-group "
		"-Znone -b p t.deb >/dev/null", zd_test_tmpdir), 0);
	fd = open(zd_test_path("t.deb"), O_RDONLY);
	ck_assert_int_ge(fd, 0);
	out = create("ours.deb");
	ck_assert_zd_ok(zd_fd_size(fd, &size, &err), &err);
	ck_assert_zd_ok(zd_ar_write_magic(out, &err), &err);
	for (;;) {
		int rc = zd_ar_next(fd, size, &off, &m, &err);
		unsigned char *data;
		int mine;

		ck_assert_msg(rc >= 0, "%s", err.msg);
		if (rc == 0)
			break;
		n++;
		ck_assert_uint_eq(m.mtime, 1700000001);
		ck_assert_int_eq(pread(fd, hdr, 60, (off_t)m.hdr_off), 60);
		data = malloc(m.size + 1);
		ck_assert_int_eq(pread(fd, data, m.size, (off_t)m.data_off),
		                 (ssize_t)m.size);
		/* The header alone. */
		mine = create("hdr");
		ck_assert_zd_ok(zd_ar_write_header(mine, m.name, m.mtime,
		                                   m.size, &err), &err);
		close(mine);
		ck_assert_int_eq(zd_test_sh("cd '%s' && dd if=t.deb bs=1 "
		                            "skip=%ju count=60 2>/dev/null | "
		                            "cmp -s - hdr", zd_test_tmpdir,
		                            (uintmax_t)m.hdr_off), 0);
		ck_assert_zd_ok(zd_ar_write_member_buf(out, m.name, m.mtime,
		                                       data, m.size, &err),
		                &err);
		free(data);
	}
	ck_assert_int_eq(n, 3);
	close(out);
	close(fd);
	ck_assert_int_eq(zd_test_sh("cd '%s' && cmp t.deb ours.deb",
	                            zd_test_tmpdir), 0);
}
END_TEST

START_TEST(test_ar_header_format)
{
	struct zd_error err = ZD_ERROR_INIT;
	int fd = create("h");
	size_t len;
	char *got;

	ck_assert_zd_ok(zd_ar_write_header(fd, "control.tar.zst", 999999999999,
	                                   9999999999, &err), &err);
	close(fd);
	got = zd_test_read_file(zd_test_path("h"), &len);
	ck_assert_uint_eq(len, 60);
	ck_assert_int_eq(memcmp(got, "control.tar.zst 9999999999990     0     "
	                        "100644  9999999999`\n", 60), 0);
	free(got);
}
END_TEST

START_TEST(test_ar_write_limits)
{
	struct zd_error err = ZD_ERROR_INIT;
	int fd = create("l");

	ck_assert_int_eq(zd_ar_write_header(fd, "0123456789abcdef", 0, 0,
	                                    &err), -1);
	ck_assert_int_eq(err.code, ZD_E_USAGE);
	ck_assert_int_eq(zd_ar_write_header(fd, "", 0, 0, &err), -1);
	ck_assert_int_eq(zd_ar_write_header(fd, "x", 0, 10000000000ULL, &err),
	                 -1);
	ck_assert_int_eq(err.code, ZD_E_LIMIT);
	ck_assert_ptr_nonnull(strstr(err.msg, "size 10000000000 too large"));
	ck_assert_int_eq(zd_ar_write_header(fd, "x", 1000000000000ULL, 0,
	                                    &err), -1);
	ck_assert_int_eq(err.code, ZD_E_LIMIT);
	close(fd);
}
END_TEST

START_TEST(test_ar_missing_final_padding)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_ar_member m;

	write_raw("p.a", "x               0           0     0     100644  "
	          "3         `\n", "abc", 3);
	ck_assert_int_eq(next_once("p.a", &m, &err), 1);
	ck_assert_uint_eq(m.size, 3);
}
END_TEST

START_TEST(test_ar_gnu_name)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_ar_member m;

	write_raw("g.a", "data.tar.xz/                0     0     100644  "
	          "2         `\n", "ab", 2);
	ck_assert_int_eq(next_once("g.a", &m, &err), 1);
	ck_assert_str_eq(m.name, "data.tar.xz");
	/* Blank numeric fields (other than size) read as 0. */
	write_raw("b.a", "x                                               "
	          "2         `\n", "ab", 2);
	ck_assert_int_eq(next_once("b.a", &m, &err), 1);
	ck_assert_uint_eq(m.mode, 0);
}
END_TEST

/* Malformed headers: each gives ZD_E_FORMAT and a message naming it. */
static const struct {
	const char *hdr;
	size_t len;		/* data bytes present */
	const char *msg;
} bad_hdrs[] = {
	{ "x               0           0     0     100644  1x        `\n", 2,
	  "corrupt ar member header at offset 8: member 'x': size '1x        '"
	  " is not a decimal number" },
	{ "x               0           0     0     100644            `\n", 2,
	  "size '          ' is not a decimal number" },
	{ "x               0           0     0     100644  -1        `\n", 2,
	  "is not a decimal number" },
	{ "x               0           0     0     100644  1 2       `\n", 2,
	  "is not a decimal number" },
	{ "x               0           0     0     100644  2         \n\n", 2,
	  "corrupt ar member header at offset 8: bad header trailer" },
	{ "x               0           0     0     100684  2         `\n", 2,
	  "member 'x': mode '100684  ' is not an octal number" },
	{ "x               1e9         0     0     100644  2         `\n", 2,
	  "member 'x': time '1e9         ' is not a decimal number" },
	{ "x               0           0x    0     100644  2         `\n", 2,
	  "member 'x': uid '0x    ' is not a decimal number" },
	{ "x               0           0     9999999 0644  2         `\n", 2,
	  "is not an octal number" },
	{ "x               0           0     0     100644  3         `\n", 2,
	  "ar member 'x' at offset 8: size 3 runs past the end of the file "
	  "(70 bytes)" },
	{ "x               0           0     0     100644  9999999999`\n", 2,
	  "size 9999999999 runs past the end" },
};

START_TEST(test_ar_bad_header)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_ar_member m;

	write_raw("bad.a", bad_hdrs[_i].hdr, "ab", bad_hdrs[_i].len);
	ck_assert_int_eq(next_once("bad.a", &m, &err), -1);
	ck_assert_int_eq(err.code, ZD_E_FORMAT);
	ck_assert_msg(strstr(err.msg, bad_hdrs[_i].msg) != NULL,
	              "case %d: got '%s'", _i, err.msg);
}
END_TEST

START_TEST(test_ar_nul_in_name)
{
	struct zd_error err = ZD_ERROR_INIT;
	unsigned char hdr[61];
	struct zd_ar_member m;

	memcpy(hdr, "ab              0           0     0     100644  2         "
	       "`\n", 61);
	hdr[1] = '\0';
	ck_assert_int_eq(zd_ar_parse_header(hdr, 8, &m, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "NUL byte in member name 'a?"));
}
END_TEST

START_TEST(test_ar_offset_overflow)
{
	struct zd_error err = ZD_ERROR_INIT;
	const unsigned char *hdr = (const unsigned char *)
		"x               0           0     0     100644  2         `\n";
	struct zd_ar_member m;

	ck_assert_int_eq(zd_ar_parse_header(hdr, UINT64_MAX - 10, &m, &err),
	                 -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "offset overflow"));
}
END_TEST

START_TEST(test_ar_truncated)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_ar_member m;
	uint64_t off = 8;
	int fd;

	zd_test_write_file(zd_test_path("tr.a"), "!<arch>\nx               0", 25);
	fd = open(zd_test_path("tr.a"), O_RDONLY);
	ck_assert_int_eq(zd_ar_next(fd, 25, &off, &m, &err), -1);
	ck_assert_int_eq(err.code, ZD_E_FORMAT);
	ck_assert_str_eq(err.msg, "truncated ar member header at offset 8 "
	                 "(17 bytes left)");
	close(fd);
}
END_TEST

START_TEST(test_ar_bad_magic)
{
	struct zd_error err = ZD_ERROR_INIT;
	int fd;

	zd_test_write_file(zd_test_path("m.a"), "!<arch>\r\n", 9);
	fd = open(zd_test_path("m.a"), O_RDONLY);
	ck_assert_int_eq(zd_ar_check_magic(fd, &err), -1);
	ck_assert_int_eq(err.code, ZD_E_FORMAT);
	ck_assert_str_eq(err.msg, "not an ar archive (bad magic)");
	close(fd);
	zd_test_write_file(zd_test_path("s.a"), "!<ar", 4);
	fd = open(zd_test_path("s.a"), O_RDONLY);
	ck_assert_int_eq(zd_ar_check_magic(fd, &err), -1);
	ck_assert_str_eq(err.msg, "not an ar archive (file too short)");
	close(fd);
}
END_TEST

/* Members begun blank and ended once their size is known: the same bytes
 * as the plain writer's. */
START_TEST(test_ar_member_in_place)
{
	struct zd_error err = ZD_ERROR_INIT;
	uint64_t hdr;
	int fd = create("t.a"), ref = create("ref.a");

	ck_assert_zd_ok(zd_ar_write_magic(fd, &err), &err);
	ck_assert_zd_ok(zd_ar_begin_member(fd, &hdr, &err), &err);
	ck_assert_uint_eq(hdr, ZD_AR_MAGIC_LEN);
	ck_assert_zd_ok(zd_write_all(fd, "abc", 3, &err), &err);
	ck_assert_zd_ok(zd_ar_end_member(fd, hdr, "odd", 5, 3, &err), &err);
	ck_assert_zd_ok(zd_ar_begin_member(fd, &hdr, &err), &err);
	ck_assert_uint_eq(hdr, ZD_AR_MAGIC_LEN + 60 + 4);
	ck_assert_zd_ok(zd_write_all(fd, "data", 4, &err), &err);
	/* the size must be where the bytes end */
	ck_assert_int_eq(zd_ar_end_member(fd, hdr, "data", 7, 5, &err), -1);
	ck_assert_int_eq(err.code, ZD_E_INTERNAL);
	zd_err_clear(&err);
	ck_assert_zd_ok(zd_ar_end_member(fd, hdr, "data", 7, 4, &err), &err);
	/* the field checks of the plain writer */
	ck_assert_zd_ok(zd_ar_begin_member(fd, &hdr, &err), &err);
	ck_assert_int_eq(zd_ar_end_member(fd, hdr, "a-name-too-long-x", 7, 0,
	                                  &err), -1);
	ck_assert_int_eq(err.code, ZD_E_USAGE);
	ck_assert_int_eq(ftruncate(fd, (off_t)hdr), 0);

	ck_assert_zd_ok(zd_ar_write_magic(ref, &err), &err);
	ck_assert_zd_ok(zd_ar_write_member_buf(ref, "odd", 5, "abc", 3, &err),
	                &err);
	ck_assert_zd_ok(zd_ar_write_member_buf(ref, "data", 7, "data", 4,
	                                       &err), &err);
	close(fd);
	close(ref);
	ck_assert_int_eq(zd_test_sh("cd '%s' && cmp t.a ref.a",
	                            zd_test_tmpdir), 0);
}
END_TEST

static Suite *
ar_suite(void)
{
	Suite *s = suite_create("ar");
	TCase *core = zd_test_tcase(s, "core");
	TCase *malformed = zd_test_tcase(s, "malformed");
	TCase *limits = zd_test_tcase(s, "limits");

	tcase_add_test(core, test_ar_write_readback);
	tcase_add_test(core, test_ar_member_in_place);
	tcase_add_test(core, test_ar_matches_dpkg_deb);
	tcase_add_test(core, test_ar_header_format);
	tcase_add_test(core, test_ar_missing_final_padding);
	tcase_add_test(core, test_ar_gnu_name);
	tcase_add_loop_test(malformed, test_ar_bad_header, 0,
	                    sizeof(bad_hdrs) / sizeof(bad_hdrs[0]));
	tcase_add_test(malformed, test_ar_nul_in_name);
	tcase_add_test(malformed, test_ar_truncated);
	tcase_add_test(malformed, test_ar_bad_magic);
	tcase_add_test(limits, test_ar_write_limits);
	tcase_add_test(limits, test_ar_offset_overflow);
	return s;
}

int
main(void)
{
	return zd_test_main(ar_suite());
}
