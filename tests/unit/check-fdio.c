/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check-fdio.c - moving bytes inside a file; growing a pipe; fd sinks;
 * durable output */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/fdio.h"
#include "tests/unit/testutil.h"

#define LEN ((size_t)(3u << 20) + 12345)	/* several 1 MiB chunks */

/* A file holding LEN random bytes at offset 0 (also in *bytes) and room
 * for moves after them. */
static int
random_file(unsigned char **bytes)
{
	struct zd_error err = ZD_ERROR_INIT;
	int fd = zd_tmpfile(&err);

	ck_assert_int_ge(fd, 0);
	*bytes = malloc(LEN);
	ck_assert_ptr_nonnull(*bytes);
	zd_test_fill_random(*bytes, LEN, 42);
	ck_assert_zd_ok(zd_write_all(fd, *bytes, LEN, &err), &err);
	return fd;
}

/* memmove() on a copy of the file's bytes against zd_fd_move(). */
static void
check_move(uint64_t from, uint64_t to, uint64_t len)
{
	struct zd_error err = ZD_ERROR_INIT;
	unsigned char *bytes, *want, *got;
	size_t size = LEN + (size_t)to;
	int fd = random_file(&bytes);

	want = calloc(1, size);
	got = calloc(1, size);
	ck_assert_ptr_nonnull(want);
	ck_assert_ptr_nonnull(got);
	memcpy(want, bytes, LEN);
	memmove(want + to, want + from, (size_t)len);
	ck_assert_zd_ok(zd_fd_move(fd, from, to, len, &err), &err);
	ck_assert_int_eq(pread(fd, got, size, 0),
	                 (ssize_t)(to + len > LEN ? to + len : LEN));
	ck_assert_int_eq(memcmp(got, want, (size_t)(to + len > LEN ? to + len :
	                                             LEN)), 0);
	free(bytes);
	free(want);
	free(got);
	close(fd);
}

START_TEST(test_fd_move_up_overlapping)
{
	check_move(10, 14, LEN - 10);		/* a frame header grows */
	check_move(0, (1u << 20) + 3, LEN);	/* more than a chunk */
}
END_TEST

START_TEST(test_fd_move_down_overlapping)
{
	check_move(18, 10, LEN - 18);
	check_move((1u << 20) + 7, 1, LEN - (1u << 20) - 7);
}
END_TEST

START_TEST(test_fd_move_nothing)
{
	check_move(5, 5, 100);
	check_move(5, 9, 0);
}
END_TEST

START_TEST(test_fd_move_past_end)
{
	struct zd_error err = ZD_ERROR_INIT;
	unsigned char *bytes;
	int fd = random_file(&bytes);

	ck_assert_int_eq(zd_fd_move(fd, LEN - 10, 0, 20, &err), -1);
	ck_assert_int_ne(err.code, ZD_OK);
	ck_assert_str_ne(err.msg, "");
	free(bytes);
	close(fd);
}
END_TEST

/* The default 64 KiB pipe becomes 1 MiB (root may always ask for it; others
 * up to /proc/sys/fs/pipe-max-size, 1 MiB by default), as F_GETPIPE_SZ
 * reports. */
START_TEST(test_pipe_grow)
{
	int fds[2];

	ck_assert_int_eq(pipe(fds), 0);
	ck_assert_int_eq(fcntl(fds[1], F_GETPIPE_SZ), 64 << 10);
	ck_assert_uint_eq(zd_pipe_grow(fds[1]), 1u << 20);
	ck_assert_int_eq(fcntl(fds[0], F_GETPIPE_SZ), 1 << 20);
	close(fds[0]);
	close(fds[1]);
}
END_TEST

/* A pipe already larger keeps its size. */
START_TEST(test_pipe_grow_never_shrinks)
{
	int fds[2];

	ck_assert_int_eq(pipe(fds), 0);
	if (fcntl(fds[1], F_SETPIPE_SZ, 4 << 20) < 0) {
		close(fds[0]);
		close(fds[1]);
		return;		/* not root: nothing above 1 MiB to test */
	}
	ck_assert_uint_eq(zd_pipe_grow(fds[1]), 4u << 20);
	ck_assert_int_eq(fcntl(fds[1], F_GETPIPE_SZ), 4 << 20);
	close(fds[0]);
	close(fds[1]);
}
END_TEST

/* A regular file is left alone. */
START_TEST(test_pipe_grow_not_a_pipe)
{
	struct zd_error err = ZD_ERROR_INIT;
	int fd = zd_tmpfile(&err);

	ck_assert_int_ge(fd, 0);
	ck_assert_uint_eq(zd_pipe_grow(fd), 0);
	ck_assert_uint_eq(zd_pipe_grow(-1), 0);
	close(fd);
}
END_TEST

/*
 * zd_sink_fd_init: out of order only where that is safe.  A regular file
 * takes bytes at offsets from where it was when the sink was made, and
 * the stream's end moves its offset there; in order, the sink writes as
 * ZD_SINK_FD does.
 */
START_TEST(test_sink_fd_positional)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_fd_sink f;
	struct zd_sink s;
	char path[4200], got[32];
	int fd = zd_tmpfile(&err), fds[2];

	ck_assert_int_ge(fd, 0);
	ck_assert_zd_ok(zd_write_all(fd, "head", 4, &err), &err);
	zd_sink_fd_init(&s, &f, fd);
	ck_assert_ptr_nonnull(s.pwrite);
	ck_assert_zd_ok(s.pwrite(s.ctx, "world", 5, 6, &err), &err);
	ck_assert_zd_ok(s.pwrite(s.ctx, "hello,", 6, 0, &err), &err);
	ck_assert_zd_ok(s.pwrite(s.ctx, NULL, 0, 11, &err), &err);
	ck_assert_int_eq(lseek(fd, 0, SEEK_CUR), 15);
	ck_assert_zd_ok(zd_write_all(fd, "!", 1, &err), &err);
	ck_assert_int_eq(pread(fd, got, sizeof(got), 0), 16);
	ck_assert_mem_eq(got, "headhello,world!", 16);
	ck_assert_zd_ok(s.write(s.ctx, "?", 1, &err), &err);
	ck_assert_int_eq(lseek(fd, 0, SEEK_CUR), 17);
	close(fd);
	/* appending: pwrite would append too, so in order only */
	snprintf(path, sizeof(path), "%s/app", zd_test_tmpdir);
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
	ck_assert_int_ge(fd, 0);
	zd_sink_fd_init(&s, &f, fd);
	ck_assert_ptr_null(s.pwrite);
	close(fd);
	/* a pipe: in order only */
	ck_assert_int_eq(pipe(fds), 0);
	zd_sink_fd_init(&s, &f, fds[1]);
	ck_assert_ptr_null(s.pwrite);
	ck_assert_zd_ok(s.write(s.ctx, "x", 1, &err), &err);
	ck_assert_int_eq(read(fds[0], got, 1), 1);
	close(fds[0]);
	close(fds[1]);
	/* /dev/null: nothing is kept, any order will do */
	fd = open("/dev/null", O_WRONLY);
	ck_assert_int_ge(fd, 0);
	zd_sink_fd_init(&s, &f, fd);
	ck_assert_ptr_nonnull(s.pwrite);
	ck_assert_zd_ok(s.pwrite(s.ctx, "x", 1, 1000, &err), &err);
	close(fd);
}
END_TEST

/*
 * A pipe's sink writes without waiting for its reader (trywrite): into a
 * full pipe nothing (0), into a nearly full one what fits, and once the
 * reader has taken some, more; the bytes arrive whole and in order.
 * Other sinks have no trywrite.
 */
START_TEST(test_sink_fd_trywrite)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_fd_sink f;
	struct zd_sink s;
	enum { PIPE = 64 << 10, N = 3 * PIPE };
	unsigned char *buf = malloc(N), *got = malloc(N);
	size_t sent = 0, recvd = 0;
	ssize_t n;
	int fds[2], fd;

	ck_assert_ptr_nonnull(buf);
	ck_assert_ptr_nonnull(got);
	for (size_t i = 0; i < N; i++)
		buf[i] = (unsigned char)(i * 7 + i / 251);
	ck_assert_int_eq(pipe(fds), 0);
	ck_assert_int_eq(fcntl(fds[1], F_GETPIPE_SZ), PIPE);
	zd_sink_fd_init(&s, &f, fds[1]);
	ck_assert_ptr_nonnull(s.trywrite);
	/* what fits: all of it, whatever the kernel */
	n = s.trywrite(s.ctx, buf, 1000, &err);
	ck_assert_int_eq(n, 1000);
	if (f.wait) {
		/* a kernel that refuses RWF_NOWAIT on pipes: the sink fell
		 * back to a write that waits, and said so */
		ck_assert_int_eq(read(fds[0], got, 1000), 1000);
		ck_assert_mem_eq(got, buf, 1000);
		fprintf(stderr, "test_sink_fd_trywrite: this kernel has no "
		        "RWF_NOWAIT on pipes; only the fallback was checked\n");
		goto out;
	}
	n = s.trywrite(s.ctx, buf + 1000, N - 1000, &err);
	ck_assert_int_ge(n, 0);
	ck_assert_uint_eq((size_t)n + 1000, PIPE);	/* what fits */
	sent = (size_t)n + 1000;
	ck_assert_int_eq(s.trywrite(s.ctx, buf + sent, N - sent, &err), 0);
	while (recvd < N) {
		ssize_t r = read(fds[0], got + recvd, 5000);

		ck_assert_int_gt(r, 0);
		recvd += (size_t)r;
		if (sent < N) {
			n = s.trywrite(s.ctx, buf + sent, N - sent, &err);
			ck_assert_int_ge(n, 0);
			sent += (size_t)n;
		}
	}
	ck_assert_uint_eq(sent, N);
	ck_assert_mem_eq(got, buf, N);
	/* the reader gone: an error (EPIPE, with SIGPIPE ignored in this
	 * test's process), not a count */
	signal(SIGPIPE, SIG_IGN);
	close(fds[0]);
	fds[0] = -1;
	ck_assert_int_eq(s.trywrite(s.ctx, buf, 10, &err), -1);
	ck_assert_int_eq(err.code, ZD_E_IO);
out:
	if (fds[0] >= 0)
		close(fds[0]);
	close(fds[1]);
	fd = zd_tmpfile(&err);
	ck_assert_int_ge(fd, 0);
	zd_sink_fd_init(&s, &f, fd);
	ck_assert_ptr_null(s.trywrite);
	close(fd);
	free(buf);
	free(got);
}
END_TEST

/* Durable output: the temporary beside the target, committed over an
 * old file, or aborted with the old file kept; a temporary a writer
 * holds is never cleaned, one nobody holds is. */
START_TEST(test_outfile_commit_abort_clean)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_outfile a = ZD_OUTFILE_INIT, b = ZD_OUTFILE_INIT;
	const char *target = zd_test_path("out.deb");
	char *text;

	zd_test_write_file(target, "old", 3);
	ck_assert_zd_ok(zd_outfile_open(&a, target, 0644, &err), &err);
	ck_assert_int_eq(strncmp(a.tmp, target, strlen(target)), 0);
	ck_assert_str_eq(a.tmp + strlen(target) + 6 + 6, "");
	ck_assert_zd_ok(zd_write_all(a.fd, "new", 3, &err), &err);
	/* a second writer of the same target leaves a's temporary */
	ck_assert_zd_ok(zd_outfile_open(&b, target, 0644, &err), &err);
	ck_assert_int_eq(access(a.tmp, F_OK), 0);
	zd_outfile_abort(&b);
	ck_assert_uint_eq(zd_outfile_clean(target), 0);
	ck_assert_int_eq(access(a.tmp, F_OK), 0);
	ck_assert_zd_ok(zd_outfile_commit(&a, target, true, &err), &err);
	ck_assert_ptr_null(a.tmp);
	zd_outfile_abort(&a);
	text = zd_test_read_text(target);
	ck_assert_str_eq(text, "new");
	free(text);
	/* aborted: the old file stays, no temporary */
	ck_assert_zd_ok(zd_outfile_open(&a, target, 0644, &err), &err);
	ck_assert_zd_ok(zd_write_all(a.fd, "partial", 7, &err), &err);
	zd_outfile_abort(&a);
	text = zd_test_read_text(target);
	ck_assert_str_eq(text, "new");
	free(text);
	ck_assert_int_eq(zd_test_sh("test -z \"$(ls '%s' | grep zdeb-)\"",
	                            zd_test_tmpdir), 0);
	/* what a killed writer leaves (no lock held) goes; others stay */
	ck_assert_int_eq(zd_test_sh("cd '%s' && : >out.deb.zdeb-AbC123 && "
	                            ": >out.deb.zdeb-toolong1 && "
	                            ": >other.deb.zdeb-AbC123",
	                            zd_test_tmpdir), 0);
	ck_assert_uint_eq(zd_outfile_clean(target), 1);
	ck_assert_int_eq(zd_test_sh("cd '%s' && test ! -e out.deb.zdeb-AbC123 "
	                            "&& test -e out.deb.zdeb-toolong1 && "
	                            "test -e other.deb.zdeb-AbC123",
	                            zd_test_tmpdir), 0);
	/* every target's in a directory, but not one a writer holds */
	ck_assert_zd_ok(zd_outfile_open(&a, target, 0644, &err), &err);
	ck_assert_uint_eq(zd_outfile_clean_dir(zd_test_tmpdir), 1);
	ck_assert_int_eq(access(a.tmp, F_OK), 0);
	zd_outfile_abort(&a);
	ck_assert_int_eq(zd_test_sh("cd '%s' && test ! -e "
	                            "other.deb.zdeb-AbC123 && test -e "
	                            "out.deb.zdeb-toolong1", zd_test_tmpdir),
	                 0);
}
END_TEST

START_TEST(test_outfile_open_fails)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_outfile o = ZD_OUTFILE_INIT;
	const char *target = zd_test_path("no/such/dir/out.deb");

	ck_assert_int_eq(zd_outfile_open(&o, target, 0644, &err), -1);
	ck_assert_int_eq(err.code, ZD_E_IO);
	ck_assert_ptr_nonnull(strstr(err.msg, "cannot create"));
	ck_assert_ptr_null(o.tmp);
	zd_outfile_abort(&o);
	ck_assert_int_eq(zd_fsync_parent(target, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "cannot sync directory"));
}
END_TEST

static Suite *
fdio_suite(void)
{
	Suite *s = suite_create("fdio");
	TCase *core = zd_test_tcase(s, "core");
	TCase *malformed = zd_test_tcase(s, "malformed");

	tcase_add_test(core, test_fd_move_up_overlapping);
	tcase_add_test(core, test_fd_move_down_overlapping);
	tcase_add_test(core, test_fd_move_nothing);
	tcase_add_test(core, test_pipe_grow);
	tcase_add_test(core, test_pipe_grow_never_shrinks);
	tcase_add_test(core, test_pipe_grow_not_a_pipe);
	tcase_add_test(core, test_sink_fd_positional);
	tcase_add_test(core, test_sink_fd_trywrite);
	tcase_add_test(core, test_outfile_commit_abort_clean);
	tcase_add_test(malformed, test_fd_move_past_end);
	tcase_add_test(malformed, test_outfile_open_fails);
	return s;
}

int
main(void)
{
	return zd_test_main(fdio_suite());
}
