/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check-deb-write.c - a .deb written in place, renamed when complete */
#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/ar.h"
#include "lib/deb-write.h"
#include "lib/fdio.h"
#include "tests/unit/testutil.h"

/* Writes one member of d in place; its bytes start at the returned
 * offset. */
static uint64_t
put_member(struct zd_debout *d, const char *bytes)
{
	struct zd_error err = ZD_ERROR_INIT;
	off_t off;

	ck_assert_zd_ok(zd_deb_write_begin(d, &err), &err);
	off = lseek(d->fd, 0, SEEK_CUR);
	ck_assert_int_ge(off, 0);
	ck_assert_zd_ok(zd_write_all(d->fd, bytes, strlen(bytes), &err), &err);
	return (uint64_t)off;
}

/* The members of the reference archive below into d, then commit. */
static void
finish_reference(struct zd_debout *d)
{
	struct zd_error err = ZD_ERROR_INIT;
	uint64_t off;

	off = put_member(d, "ctl");	/* odd: padded */
	ck_assert_zd_ok(zd_deb_write_end(d, "control.tar", off, 3, &err), &err);
	off = put_member(d, "data");
	ck_assert_zd_ok(zd_deb_write_end(d, "data.tar", off, 4, &err), &err);
	ck_assert_zd_ok(zd_deb_write_commit(d, &err), &err);
}

/* The same archive made with the plain ar writer, into path. */
static void
write_reference(const char *path)
{
	struct zd_error err = ZD_ERROR_INIT;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	ck_assert_int_ge(fd, 0);
	ck_assert_zd_ok(zd_ar_write_magic(fd, &err), &err);
	ck_assert_zd_ok(zd_ar_write_member_buf(fd, "debian-binary", 1700000000,
	                                       "2.0\n", 4, &err), &err);
	ck_assert_zd_ok(zd_ar_write_member_buf(fd, "control.tar", 1700000000,
	                                       "ctl", 3, &err), &err);
	ck_assert_zd_ok(zd_ar_write_member_buf(fd, "data.tar", 1700000000,
	                                       "data", 4, &err), &err);
	close(fd);
}

START_TEST(test_debout_members)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_debout d;
	struct stat st;
	const char *out = zd_test_path("o/x.deb");
	const char *ref = zd_test_path("ref.deb");
	mode_t old = umask(022);

	ck_assert_int_eq(zd_test_sh("mkdir '%s/o'", zd_test_tmpdir), 0);
	ck_assert_zd_ok(zd_deb_write_open(&d, out, 1700000000, true, &err),
	                &err);
	/* nothing at the output path until commit */
	ck_assert_int_ne(access(out, F_OK), 0);
	finish_reference(&d);
	zd_deb_write_abort(&d);	/* after commit: frees only */
	umask(old);

	ck_assert_int_eq(stat(out, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0644);
	write_reference(ref);
	ck_assert_int_eq(zd_test_sh("cmp '%s' '%s'", out, ref), 0);
	ck_assert_int_eq(zd_test_sh("cd '%s/o' && test \"$(ar t x.deb | tr '\\n' "
	                            "' ')\" = 'debian-binary control.tar "
	                            "data.tar ' && test \"$(ar p x.deb "
	                            "data.tar)\" = data && test \"$(ls | wc "
	                            "-l)\" = 1", zd_test_tmpdir), 0);
}
END_TEST

/* Writes bytes as a member, ends it as starting skip bytes later with size
 * bytes: refused (ZD_E_INTERNAL, msg in the message); abort leaves
 * nothing. */
static void
check_end_refused(const char *bytes, uint64_t skip, uint64_t size,
                  const char *msg)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_debout d;
	uint64_t off;

	ck_assert_zd_ok(zd_deb_write_open(&d, zd_test_path("x.deb"), 0, false,
	                                  &err), &err);
	off = put_member(&d, bytes);
	ck_assert_int_eq(zd_deb_write_end(&d, "data.tar", off + skip, size,
	                                  &err), -1);
	ck_assert_int_eq(err.code, ZD_E_INTERNAL);
	ck_assert_msg(strstr(err.msg, msg) != NULL, "%s", err.msg);
	zd_deb_write_abort(&d);
	ck_assert_int_eq(zd_test_sh("test -z \"$(ls -A '%s')\"",
	                            zd_test_tmpdir), 0);
}

START_TEST(test_debout_size_mismatch_leaves_nothing)
{
	check_end_refused("12345", 0, 4, "data.tar");
}
END_TEST

/* a member said to start after its first bytes */
START_TEST(test_debout_gap_refused)
{
	check_end_refused("1234", 2, 2, "right after its header");
}
END_TEST

/* An existing FIFO at the output path gets the bytes and stays a FIFO;
 * the package is made in TMPDIR, which is empty again after commit. */
START_TEST(test_debout_fifo_written_into)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_debout d;
	struct stat st;
	const char *fifo = zd_test_path("fifo");
	const char *got = zd_test_path("got.deb");
	const char *ref = zd_test_path("ref.deb");
	int tries;

	ck_assert_int_eq(zd_test_sh("cd '%s' && mkdir t && mkfifo fifo && "
	                            "{ cat fifo >got.deb & }", zd_test_tmpdir),
	                 0);
	ck_assert_int_eq(setenv("TMPDIR", zd_test_path("t"), 1), 0);
	ck_assert_zd_ok(zd_deb_write_open(&d, fifo, 1700000000, false, &err),
	                &err);
	finish_reference(&d);
	zd_deb_write_abort(&d);
	unsetenv("TMPDIR");

	ck_assert_int_eq(stat(fifo, &st), 0);
	ck_assert(S_ISFIFO(st.st_mode));
	write_reference(ref);
	/* cat has the last bytes once it sees the end: wait for it */
	for (tries = 0; tries < 100; tries++) {
		if (zd_test_sh("cmp -s '%s' '%s'", got, ref) == 0)
			break;
		usleep(20000);
	}
	ck_assert_int_lt(tries, 100);
	ck_assert_int_eq(zd_test_sh("test -z \"$(ls -A '%s/t')\"",
	                            zd_test_tmpdir), 0);
}
END_TEST

START_TEST(test_debout_open_fails)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_debout d;

	ck_assert_int_eq(zd_deb_write_open(&d,
	                                   zd_test_path("no/such/dir/x.deb"),
	                                   0, true, &err), -1);
	ck_assert_int_eq(err.code, ZD_E_IO);
	ck_assert_ptr_nonnull(strstr(err.msg, "no/such/dir/x.deb"));
	zd_deb_write_abort(&d);
}
END_TEST

static Suite *
debout_suite(void)
{
	Suite *s = suite_create("debout");
	TCase *core = zd_test_tcase(s, "core");
	TCase *malformed = zd_test_tcase(s, "malformed");

	tcase_add_test(core, test_debout_members);
	tcase_add_test(core, test_debout_fifo_written_into);
	tcase_add_test(malformed, test_debout_size_mismatch_leaves_nothing);
	tcase_add_test(malformed, test_debout_gap_refused);
	tcase_add_test(malformed, test_debout_open_fails);
	return s;
}

int
main(void)
{
	return zd_test_main(debout_suite());
}
