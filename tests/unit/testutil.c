/* SPDX-License-Identifier: GPL-2.0-or-later */
/* testutil.c - helpers shared by the Check unit tests */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/unit/testutil.h"

char zd_test_tmpdir[4096];

void
zd_test_tmpdir_setup(void)
{
	const char *base = getenv("TMPDIR");

	snprintf(zd_test_tmpdir, sizeof(zd_test_tmpdir), "%s/zdeb-unit.XXXXXX",
	         base && *base ? base : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(zd_test_tmpdir));
}

void
zd_test_tmpdir_teardown(void)
{
	if (zd_test_tmpdir[0] != '\0')
		zd_test_sh("rm -rf '%s'", zd_test_tmpdir);
	zd_test_tmpdir[0] = '\0';
}

int
zd_test_sh(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	if (st == -1 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

void
zd_test_fill_random(void *buf, size_t len, uint64_t seed)
{
	unsigned char *p = buf;
	uint64_t x = seed * 0x9E3779B97F4A7C15ULL + 1;

	for (size_t i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p[i] = (unsigned char)(x >> 24);
	}
}

void
zd_test_write_uneven(zd_test_write_fn write, void *ctx, const void *buf,
                     size_t len, size_t max, uint64_t seed)
{
	struct zd_error err = ZD_ERROR_INIT;
	const unsigned char *b = buf;
	uint64_t x = seed;
	size_t off = 0;

	while (off < len) {
		size_t n;

		x = x * 6364136223846793005u + 1442695040888963407u;
		n = 1 + (size_t)((x >> 33) % max);
		if (n > len - off)
			n = len - off;
		ck_assert_zd_ok(write(ctx, b + off, n, &err), &err);
		off += n;
	}
}

void
zd_test_write_file(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");

	ck_assert_msg(f != NULL, "cannot create %s", path);
	ck_assert_uint_eq(fwrite(buf, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
}

void *
zd_test_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	size_t cap = 0, n = 0;

	ck_assert_msg(f != NULL, "cannot open %s", path);
	for (;;) {
		size_t got;

		if (n == cap) {
			cap = cap ? cap * 2 : 65536;
			buf = realloc(buf, cap);
			ck_assert_ptr_nonnull(buf);
		}
		got = fread(buf + n, 1, cap - n, f);
		if (got == 0)
			break;
		n += got;
	}
	fclose(f);
	*len = n;
	return buf;
}

char *
zd_test_path(const char *name)
{
	static char buf[8][4200];
	static int i;

	i = (i + 1) % 8;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", zd_test_tmpdir, name);
	return buf[i];
}

char *
zd_test_read_text(const char *path)
{
	size_t len;
	char *buf = zd_test_read_file(path, &len);

	buf = realloc(buf, len + 1);
	ck_assert_ptr_nonnull(buf);
	buf[len] = '\0';
	return buf;
}

TCase *
zd_test_tcase(Suite *s, const char *name)
{
	TCase *tc = tcase_create(name);

	/* Check's 4 s catch hangs, but many tests run dpkg-deb, tar or xz
	 * on a machine that may be shared: 120 s still catches a hang. */
	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, zd_test_tmpdir_setup,
	                          zd_test_tmpdir_teardown);
	suite_add_tcase(s, tc);
	return tc;
}

TCase *
zd_test_tcase_plain(Suite *s, const char *name)
{
	TCase *tc = tcase_create(name);

	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return tc;
}

/* Where tests record the tools they missed (tests run in forked children,
 * so the parent reads them back from a file); "" before zd_test_main. */
static char skip_path[4096];

bool
zd_test_tool(const char *check, const char *what)
{
	FILE *f;

	if (zd_test_sh("%s", check) == 0)
		return true;
	if (getenv("ZDEB_TEST_REQUIRE") != NULL)
		ck_abort_msg("%s not found, and ZDEB_TEST_REQUIRE is set",
		             what);
	f = skip_path[0] != '\0' ? fopen(skip_path, "a") : NULL;
	if (f != NULL) {
		fprintf(f, "%s\n", what);
		fclose(f);
	}
	return false;
}

/* Prints "SKIP: WHAT not found" once per tool recorded in skip_path;
 * returns whether there was any. */
static bool
report_skips(void)
{
	char line[512], seen[4096] = "";
	bool any = false;
	FILE *f = fopen(skip_path, "r");

	if (f == NULL)
		return false;
	while (fgets(line, sizeof(line), f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		any = true;
		if (strstr(seen, line) != NULL)
			continue;
		fprintf(stderr, "SKIP: %s not found: the tests comparing with "
		        "it did not run\n", line);
		if (strlen(seen) + strlen(line) + 2 < sizeof(seen)) {
			strcat(seen, line);
			strcat(seen, "\n");
		}
	}
	fclose(f);
	return any;
}

int
zd_test_main(Suite *s)
{
	SRunner *sr;
	const char *tmp = getenv("TMPDIR");
	bool skipped;
	int failed, fd;

	snprintf(skip_path, sizeof(skip_path), "%s/zdeb-skips-XXXXXX",
	         tmp != NULL && *tmp != '\0' ? tmp : "/tmp");
	fd = mkstemp(skip_path);
	if (fd < 0)
		skip_path[0] = '\0';
	else
		close(fd);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	skipped = skip_path[0] != '\0' && report_skips();
	if (skip_path[0] != '\0')
		unlink(skip_path);
	if (failed != 0)
		return EXIT_FAILURE;
	/* automake's "skipped": some comparisons did not run. */
	return skipped ? 77 : EXIT_SUCCESS;
}
