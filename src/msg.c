/* SPDX-License-Identifier: GPL-2.0-or-later */
/* msg.c - diagnostics: "zdeb: error: ..." on stderr */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "lib/json.h"
#include "src/msg.h"

const char *zd_progname = "zdeb";
int zd_verbose;
/* The last error and warning printed, for zd_msg_last(). */
static char last_error[512], last_warning[512];

static void
vmsg(const char *kind, const char *fmt, va_list ap)
{
	char *keep = kind == NULL ? NULL :
	             kind[0] == 'e' ? last_error : last_warning;
	va_list aq;

	if (keep != NULL) {
		va_copy(aq, ap);
		vsnprintf(keep, sizeof(last_error), fmt, aq);
		va_end(aq);
	}
	fflush(stdout);
	if (kind != NULL)
		fprintf(stderr, "%s: %s: ", zd_progname, kind);
	else
		fprintf(stderr, "%s: ", zd_progname);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void
zd_msg_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("error", fmt, ap);
	va_end(ap);
}

void
zd_msg_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning", fmt, ap);
	va_end(ap);
}

void
zd_msg_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(NULL, fmt, ap);
	va_end(ap);
}

int
zd_msg_fail(const struct zd_error *err)
{
	zd_msg_error("%s", err->msg);
	return ZD_EXIT_ERROR;
}

int
zd_msg_usage(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("error", fmt, ap);
	va_end(ap);
	if (cmd != NULL)
		fprintf(stderr, "Try '%s %s --help' for more information.\n",
		        zd_progname, cmd);
	else
		fprintf(stderr, "Try '%s --help' for more information.\n",
		        zd_progname);
	return ZD_EXIT_ERROR;
}

const char *
zd_msg_last(void)
{
	return last_error[0] != '\0' ? last_error :
	       last_warning[0] != '\0' ? last_warning : NULL;
}

void
zd_msg_last_clear(void)
{
	last_error[0] = '\0';
	last_warning[0] = '\0';
}

void
zd_msg_warn_cb(void *ctx, const char *msg)
{
	(void)ctx;
	zd_msg_warn("%s", msg);
}

int
zd_msg_stderr_is_tty(void)
{
	return isatty(2);
}

void
zd_msg_json_str(const char *s)
{
	zd_json_write_str(stdout, s);
}

void
zd_msg_progress(const char *stage, uint64_t bytes)
{
	if (bytes > 0)
		fprintf(stderr, "\r%s: %s (%.1f MB)...\033[K", zd_progname,
		        stage, (double)bytes / 1e6);
	else
		fprintf(stderr, "\r%s: %s...\033[K", zd_progname, stage);
}

void
zd_msg_progress_end(void)
{
	fputs("\r\033[K", stderr);
}
