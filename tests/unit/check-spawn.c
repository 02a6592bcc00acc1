/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check-spawn.c - running programs: redirections, statuses, capture */
#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/spawn.h"
#include "tests/unit/testutil.h"

static char *sh_c[] = { (char *)"sh", (char *)"-c", NULL, NULL };

START_TEST(test_spawn_capture)
{
	struct zd_error err = ZD_ERROR_INIT;
	char out[16];

	sh_c[2] = (char *)"printf 'one\\ntwo\\n\\n\\n'; echo oops >&2; exit 3";
	ck_assert_int_eq(zd_spawn_capture(sh_c, out, sizeof(out), &err), 3);
	ck_assert_str_eq(out, "one\ntwo");
	/* Longer than out: the start is kept, the rest read and dropped. */
	sh_c[2] = (char *)"seq 1 100000";
	ck_assert_int_eq(zd_spawn_capture(sh_c, out, sizeof(out), &err), 0);
	ck_assert_str_eq(out, "1\n2\n3\n4\n5\n6\n7\n8");
	/* stdin is /dev/null. */
	sh_c[2] = (char *)"wc -c";
	ck_assert_int_eq(zd_spawn_capture(sh_c, out, sizeof(out), &err), 0);
	ck_assert_str_eq(out, "0");
}
END_TEST

START_TEST(test_spawn_pipe_and_status)
{
	const struct zd_spawn_opts o = {
		ZD_SPAWN_NULL, ZD_SPAWN_PIPE, ZD_SPAWN_NULL, -1
	};
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_spawn sp;
	char buf[64];
	ssize_t n;

	sh_c[2] = (char *)"printf abc; kill -TERM $$";
	ck_assert_zd_ok(zd_spawn_start(sh_c, &o, &sp, &err), &err);
	ck_assert_int_ge(sp.out_fd, 0);
	n = read(sp.out_fd, buf, sizeof(buf));
	ck_assert_int_eq(n, 3);
	ck_assert_int_eq(zd_spawn_wait(&sp, &err), 128 + 15);
	ck_assert_int_eq(sp.out_fd, -1);
}
END_TEST

START_TEST(test_spawn_not_runnable)
{
	const struct zd_spawn_opts o = {
		ZD_SPAWN_NULL, ZD_SPAWN_NULL, ZD_SPAWN_NULL, -1
	};
	char *missing[] = { (char *)"zdeb-no-such-program-here", NULL };
	char *path[] = { (char *)"/nonexistent/zdeb", NULL };
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_spawn sp;
	char out[8];

	ck_assert_int_eq(zd_spawn_run(missing, &o, &err), 127);
	ck_assert_int_eq(zd_spawn_capture(path, out, sizeof(out), &err),
	                 127);
	ck_assert_int_eq(zd_spawn_start(path, &o, &sp, &err), -1);
	ck_assert_int_eq(err.code, ZD_E_IO);
	ck_assert_msg(strstr(err.msg, "cannot run '/nonexistent/zdeb'") !=
	              NULL, "%s", err.msg);
}
END_TEST

START_TEST(test_spawn_pipe_refused)
{
	const struct zd_spawn_opts o = {
		ZD_SPAWN_PIPE, ZD_SPAWN_NULL, ZD_SPAWN_NULL, -1
	};
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_spawn sp;

	sh_c[2] = (char *)"true";
	ck_assert_int_eq(zd_spawn_start(sh_c, &o, &sp, &err), -1);
	ck_assert_int_eq(err.code, ZD_E_USAGE);
}
END_TEST

/* stderr into a given fd (ZD_SPAWN_FD), stdout apart; refused for stdin
 * and stdout. */
START_TEST(test_spawn_stderr_fd)
{
	struct zd_spawn_opts o = {
		ZD_SPAWN_NULL, ZD_SPAWN_NULL, ZD_SPAWN_FD, -1
	};
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_spawn sp;
	char *text;
	int fd;

	fd = open(zd_test_path("err"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	o.err_fd = fd;
	sh_c[2] = (char *)"echo out; echo 'E: broken' >&2";
	ck_assert_int_eq(zd_spawn_run(sh_c, &o, &err), 0);
	close(fd);
	text = zd_test_read_text(zd_test_path("err"));
	ck_assert_str_eq(text, "E: broken\n");
	free(text);
	o.out = ZD_SPAWN_FD;
	ck_assert_int_eq(zd_spawn_start(sh_c, &o, &sp, &err), -1);
	ck_assert_int_eq(err.code, ZD_E_USAGE);
}
END_TEST

static Suite *
spawn_suite(void)
{
	Suite *s = suite_create("spawn");
	TCase *core = zd_test_tcase(s, "core");
	TCase *malformed = zd_test_tcase(s, "malformed");

	tcase_add_test(core, test_spawn_capture);
	tcase_add_test(core, test_spawn_pipe_and_status);
	tcase_add_test(core, test_spawn_stderr_fd);
	tcase_add_test(malformed, test_spawn_not_runnable);
	tcase_add_test(malformed, test_spawn_pipe_refused);
	return s;
}

int
main(void)
{
	return zd_test_main(spawn_suite());
}
