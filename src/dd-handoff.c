/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dd-handoff.c - the dpkg-deb front end hands what it does not implement
 * to the real dpkg-deb: found, run, counted or forbidden
 *
 * ZDEB_HANDOFF says what a hand-off does: "allow" (or unset) runs the real
 * dpkg-deb with the original command line; "count" does so and logs one
 * line per hand-off to the file named by ZDEB_HANDOFF_LOG (appended), else
 * to standard error; "never" refuses, as an error with exit status 2, so
 * that a test (or a system where zdeb is the only dpkg-deb) sees every gap.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "src/cmd.h"
#include "src/dd.h"
#include "src/stockdeb.h"

enum handoff {
	HANDOFF_ALLOW,
	HANDOFF_COUNT,
	HANDOFF_NEVER,
	HANDOFF_BAD,
};

static enum handoff
handoff_mode(void)
{
	const char *v = getenv("ZDEB_HANDOFF");

	if (v == NULL || *v == '\0' || strcmp(v, "allow") == 0)
		return HANDOFF_ALLOW;
	if (strcmp(v, "count") == 0)
		return HANDOFF_COUNT;
	if (strcmp(v, "never") == 0)
		return HANDOFF_NEVER;
	return HANDOFF_BAD;
}

/* The real dpkg-deb: the diverted one, else /usr/bin/dpkg-deb unless that
 * is us. */
static const char *
real_dpkg_deb(void)
{
	static const char stock[] = "/usr/bin/dpkg-deb";

	if (access(ZD_DPKG_DEB_DIVERTED, X_OK) == 0)
		return ZD_DPKG_DEB_DIVERTED;
	if (access(stock, X_OK) != 0 || zd_stockdeb_is_self(stock))
		return NULL;
	return stock;
}

/* One line: "zdeb: hand-off to REAL (WHY): dpkg-deb ARGS...", written
 * with one write(2) so that concurrent runs do not interleave. */
static void
log_handoff(const char *real, const char *why)
{
	const char *path = getenv("ZDEB_HANDOFF_LOG");
	char *line = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&line, &len);
	int fd = 2;

	if (f == NULL)
		return;
	fprintf(f, "zdeb: hand-off to %s (%s): dpkg-deb", real, why);
	for (int i = 1; i < dd_opts.argc; i++)
		fprintf(f, " %s", dd_opts.argv[i]);
	fputc('\n', f);
	if (fclose(f) != 0) {
		free(line);
		return;
	}
	if (path != NULL && *path != '\0')
		fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
		          0644);
	if (fd >= 0) {
		fflush(stderr);
		if (write(fd, line, len) < 0)
			dd_debug("cannot log the hand-off: %s",
			         strerror(errno));
		if (fd != 2)
			close(fd);
	}
	free(line);
}

int
dd_delegate(const char *why, const struct zd_deb *deb)
{
	enum handoff mode = handoff_mode();
	const char *real;
	char **argv;

	if (mode == HANDOFF_BAD)
		return dd_fail("%s: zdeb would hand this to the real dpkg-deb, "
		               "but ZDEB_HANDOFF='%s' is not allow, count or "
		               "never", why, getenv("ZDEB_HANDOFF"));
	if (mode == HANDOFF_NEVER)
		return dd_fail("%s: not implemented by zdeb, and ZDEB_HANDOFF="
		               "never forbids handing it to the real dpkg-deb",
		               why);
	real = real_dpkg_deb();
	if (real == NULL)
		return dd_fail("%s (not supported by zdeb, and no real "
		               "dpkg-deb to run)", why);
	dd_debug("running %s: %s", real, why);
	if (mode == HANDOFF_COUNT)
		log_handoff(real, why);
	fflush(stdout);
	if (deb != NULL && deb->fd >= 0) {
		/* The .deb came from stdin: give the real one our copy. */
		if (lseek(deb->fd, 0, SEEK_SET) != 0 || dup2(deb->fd, 0) < 0)
			return dd_fail("cannot rewind standard input: %s",
			               strerror(errno));
	}
	argv = calloc((size_t)dd_opts.argc + 1, sizeof(*argv));
	if (argv == NULL)
		return dd_fail("out of memory");
	argv[0] = (char *)"dpkg-deb";
	for (int i = 1; i < dd_opts.argc; i++)
		argv[i] = dd_opts.argv[i];
	execv(real, argv);
	free(argv);
	return dd_fail("unable to execute %s: %s", real, strerror(errno));
}
