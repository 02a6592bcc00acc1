/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * regress-main.c - replays saved fuzz inputs through a harness without
 * libFuzzer (zstd's tests/fuzz/regression_driver.c, for hex files)
 *
 * Each argument is a file of hexadecimal text (as `xxd -p` writes it;
 * whitespace ignored, '#' starts a comment line).  Without arguments
 * (as a `make check` test), the files are
 * $ZDEB_SRCDIR/tests/fuzz/regress/HARNESS-*.hex, HARNESS being the
 * harness this driver is linked with (ZD_FUZZ_HARNESS).  Every input is
 * run once; a crash or sanitizer report fails the program.
 */
#include "config.h"

#include <ctype.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz.h"

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Reads a hex text file into a malloc'd buffer; NULL on error. */
static uint8_t *
read_hex(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	uint8_t *buf = NULL;
	size_t n = 0, cap = 0;
	int c, hi = -1;
	int bol = 1;

	if (f == NULL)
		return NULL;
	while ((c = fgetc(f)) != EOF) {
		int v;

		if (bol && c == '#') {
			while ((c = fgetc(f)) != EOF && c != '\n')
				;
			continue;
		}
		bol = c == '\n';
		if (isspace(c))
			continue;
		v = hexval(c);
		if (v < 0) {
			fprintf(stderr, "%s: not hex: '%c'\n", path, c);
			free(buf);
			fclose(f);
			return NULL;
		}
		if (hi < 0) {
			hi = v;
			continue;
		}
		if (n == cap) {
			uint8_t *nb;

			cap = cap ? 2 * cap : 4096;
			nb = realloc(buf, cap);
			if (nb == NULL) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		buf[n++] = (uint8_t)(hi << 4 | v);
		hi = -1;
	}
	fclose(f);
	if (hi >= 0) {
		fprintf(stderr, "%s: odd number of hex digits\n", path);
		free(buf);
		return NULL;
	}
	if (buf == NULL)
		buf = malloc(1);
	*len = n;
	return buf;
}

static int
replay(const char *path, int n)
{
	size_t len = 0;
	uint8_t *buf = read_hex(path, &len);
	uint8_t *exact;

	if (buf == NULL) {
		fprintf(stderr, "cannot read '%s'\n", path);
		return -1;
	}
	/* An exact-size copy, so that overreads are caught. */
	exact = malloc(len ? len : 1);
	if (exact == NULL) {
		free(buf);
		return -1;
	}
	memcpy(exact, buf, len);
	free(buf);
	LLVMFuzzerTestOneInput(exact, len);
	free(exact);
	printf("ok %d - %s\n", n, path);
	return 0;
}

int
main(int argc, char **argv)
{
	const char *src = getenv("ZDEB_SRCDIR");
	char pattern[4096];
	glob_t g;
	int rc = 0;

	if (argc > 1) {
		for (int i = 1; i < argc; i++)
			if (replay(argv[i], i) < 0)
				return 1;
		return 0;
	}
#ifdef ZD_FUZZ_HARNESS
	snprintf(pattern, sizeof(pattern), "%s/tests/fuzz/regress/%s-*.hex",
	         src != NULL ? src : ".", ZD_FUZZ_HARNESS);
	if (glob(pattern, 0, NULL, &g) != 0) {
		printf("no input matches %s\n", pattern);
		return 0;
	}
	for (size_t i = 0; i < g.gl_pathc && rc == 0; i++)
		if (replay(g.gl_pathv[i], (int)i + 1) < 0)
			rc = 1;
	globfree(&g);
#else
	(void)src;
	(void)pattern;
	(void)g;
#endif
	return rc;
}
