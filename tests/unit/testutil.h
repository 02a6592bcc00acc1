/* SPDX-License-Identifier: GPL-2.0-or-later */
/* testutil.h - helpers shared by the Check unit tests */
#ifndef ZDEB_TESTUTIL_H
#define ZDEB_TESTUTIL_H

#include <check.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/error.h"

/* Asserts rc == 0, printing err->msg otherwise. */
#define ck_assert_zd_ok(rc, errp) \
	ck_assert_msg((rc) == 0, "failed: %s", (errp)->msg)

/* Fixture: a fresh temporary directory, removed (recursively) after. */
extern char zd_test_tmpdir[4096];
void zd_test_tmpdir_setup(void);
void zd_test_tmpdir_teardown(void);

/* Runs a shell command (sh -c); returns its exit status, -1 on signal. */
int zd_test_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Fills buf with deterministic pseudo-random bytes from seed. */
void zd_test_fill_random(void *buf, size_t len, uint64_t seed);

/* Writes len bytes of buf through write(ctx, ...) in pieces of 1 to max
 * bytes, their sizes drawn from seed; aborts the test on an error. */
typedef int (*zd_test_write_fn)(void *ctx, const void *buf, size_t len,
                                struct zd_error *err);
void zd_test_write_uneven(zd_test_write_fn write, void *ctx, const void *buf,
                          size_t len, size_t max, uint64_t seed);

/* Writes len bytes to path (0644); aborts the test on failure. */
void zd_test_write_file(const char *path, const void *buf, size_t len);
/* Reads a whole file into a malloc'd buffer; aborts on failure. */
void *zd_test_read_file(const char *path, size_t *len);

/*
 * "TMPDIR/name" in the fixture's directory; the result stays valid for the
 * next 7 calls.
 */
char *zd_test_path(const char *name);
/* zd_test_read_file, NUL-terminated. */
char *zd_test_read_text(const char *path);

/* A test case of s, named name, run in the temporary directory fixture,
 * with a 120 s timeout (hangs only). */
TCase *zd_test_tcase(Suite *s, const char *name);
/* The same without the fixture. */
TCase *zd_test_tcase_plain(Suite *s, const char *name);

/*
 * True when the shell command check succeeds (e.g. "command -v dpkg-deb
 * >/dev/null").  Otherwise the test cannot compare with what (a tool):
 * with ZDEB_TEST_REQUIRE set (tools/test, CI) the test fails; else the
 * tool is recorded, the caller returns, and the whole program reports
 * SKIP (exit 77) naming it, unless another test failed.
 */
bool zd_test_tool(const char *check, const char *what);

/* Runs the suite (CK_FORK default), returns the exit status for main:
 * 0, 1 when a test failed, 77 when a zd_test_tool() check missed. */
int zd_test_main(Suite *s);

#endif
