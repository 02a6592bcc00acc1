/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check-deb-member.c - a member decoded on a thread into a pipe */
#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/deb-member.h"
#include "tests/unit/testutil.h"

/* T/p.deb, built by dpkg-deb from a tree with a 3 MiB file (xz). */
static void
make_deb(void)
{
	ck_assert_int_eq(zd_test_sh(
		"cd '%s' && mkdir -p p/DEBIAN p/usr/share/t && "
		"printf 'Package: t\\nVersion: 1\\nArchitecture: all\\n"
		"Maintainer: t <t@example.org>\\nDescription: t\\n' "
		">p/DEBIAN/control && "
		"head -c 3145728 /dev/urandom >p/usr/share/t/blob && "
		"dpkg-deb --root-owner-group -Zxz -b p p.deb >/dev/null && "
		"dpkg-deb --fsys-tarfile p.deb >want.tar", zd_test_tmpdir), 0);
}

/* Opens T/p.deb (made by make_deb) into deb and starts decoding its data
 * member on threads into s. */
static void
start_stream(struct zd_deb *deb, struct zd_member_stream *s, unsigned threads)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_dec_params p;
	char path[4200];

	make_deb();
	snprintf(path, sizeof(path), "%s/p.deb", zd_test_tmpdir);
	ck_assert_zd_ok(zd_deb_open(path, deb, &err), &err);
	memset(&p, 0, sizeof(p));
	p.threads = threads;
	ck_assert_zd_ok(zd_deb_member_stream_start(s, &deb->data, &p, &err),
	                &err);
}

/* Reads fd to EOF into T/got.tar. */
static void
read_to_file(int fd)
{
	char path[4200], buf[65536];
	FILE *f;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/got.tar", zd_test_tmpdir);
	f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		ck_assert_uint_eq(fwrite(buf, 1, (size_t)n, f), (size_t)n);
	ck_assert_int_eq(n, 0);
	ck_assert_int_eq(fclose(f), 0);
}

/*
 * The decoded tar comes out of the pipe whole, and the pipe holds 1 MiB,
 * so that the decoder runs while the tar reader works instead of waiting
 * for it after every 64 KiB (the default).
 */
START_TEST(test_stream_through_large_pipe)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_member_stream s;
	struct zd_deb deb;

	start_stream(&deb, &s, 2);
	ck_assert_int_eq(fcntl(s.read_fd, F_GETPIPE_SZ), 1 << 20);
	read_to_file(s.read_fd);
	ck_assert_zd_ok(zd_deb_member_stream_finish(&s, false, &err), &err);
	ck_assert_int_eq(zd_test_sh("cmp '%s/want.tar' '%s/got.tar'",
	                            zd_test_tmpdir, zd_test_tmpdir), 0);
	zd_deb_close(&deb);
}
END_TEST

/* A consumer that gives up: the decoder stops on the closed pipe, and
 * its EPIPE is not reported again.  SIGPIPE is ignored, as zdeb's main()
 * does. */
START_TEST(test_stream_consumer_failed)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_member_stream s;
	struct zd_deb deb;
	char buf[512];

	signal(SIGPIPE, SIG_IGN);
	start_stream(&deb, &s, 1);
	ck_assert_int_eq(read(s.read_fd, buf, sizeof(buf)),
	                 (ssize_t)sizeof(buf));
	ck_assert_int_eq(zd_deb_member_stream_finish(&s, true, &err), -1);
	ck_assert_int_eq(err.code, ZD_OK);
	zd_deb_close(&deb);
}
END_TEST

/* A file of the control member, read into memory. */
START_TEST(test_member_read_file)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_dec_params p = { .threads = 1 };
	struct zd_deb deb;
	char *text;
	size_t len;

	/* small, unlike make_deb's: quick on a busy machine */
	ck_assert_int_eq(zd_test_sh(
		"cd '%s' && mkdir -p p/DEBIAN p/usr && "
		"printf 'Package: t\\nVersion: 1\\nArchitecture: all\\n"
		"Maintainer: t <t@example.org>\\nDescription: t\\n' "
		">p/DEBIAN/control && echo x >p/usr/x && "
		"dpkg-deb --root-owner-group -Zxz -b p p.deb >/dev/null",
		zd_test_tmpdir), 0);
	ck_assert_zd_ok(zd_deb_open(zd_test_path("p.deb"), &deb, &err), &err);
	ck_assert_int_eq(zd_deb_member_read_file(&deb.control, &p, "control",
	                                     &text, &len, &err), 1);
	ck_assert_uint_eq(len, strlen(text));
	ck_assert_ptr_nonnull(strstr(text, "Package: t\nVersion: 1\n"));
	free(text);
	ck_assert_int_eq(zd_deb_member_read_file(&deb.control, &p, "postinst",
	                                     &text, &len, &err), 0);
	ck_assert_ptr_null(text);
	/* any member is a tar: the data member has no ./control */
	ck_assert_int_eq(zd_deb_member_read_file(&deb.data, &p, "control",
	                                         &text, &len, &err), 0);
	zd_deb_close(&deb);
}
END_TEST

static Suite *
memberdec_suite(void)
{
	Suite *s = suite_create("memberdec");
	TCase *core = zd_test_tcase(s, "core");

	tcase_add_test(core, test_stream_through_large_pipe);
	tcase_add_test(core, test_stream_consumer_failed);
	tcase_add_test(core, test_member_read_file);
	return s;
}

int
main(void)
{
	return zd_test_main(memberdec_suite());
}
