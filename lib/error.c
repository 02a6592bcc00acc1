/* SPDX-License-Identifier: GPL-2.0-or-later */
/* error.c - zd_error setters */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/error.h"

static void
vset(struct zd_error *err, enum zd_errc code, const char *fmt, va_list ap)
{
	err->code = code;
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
}

int
zd_err(struct zd_error *err, enum zd_errc code, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return -1;
	va_start(ap, fmt);
	vset(err, code, fmt, ap);
	va_end(ap);
	err->sys_errno = 0;
	return -1;
}

int
zd_err_errno(struct zd_error *err, enum zd_errc code, const char *fmt, ...)
{
	int saved = errno;
	va_list ap;
	size_t len;

	if (err == NULL)
		return -1;
	va_start(ap, fmt);
	vset(err, code, fmt, ap);
	va_end(ap);
	len = strlen(err->msg);
	snprintf(err->msg + len, sizeof(err->msg) - len, ": %s",
	         strerror(saved));
	err->sys_errno = saved;
	errno = saved;
	return -1;
}

/* dst = a ": " b, truncated to size. */
static void
join(char *dst, size_t size, const char *a, const char *b)
{
	size_t la = strlen(a) < size - 1 ? strlen(a) : size - 1;
	size_t lb;

	memcpy(dst, a, la);
	if (la + 2 < size) {
		memcpy(dst + la, ": ", 2);
		la += 2;
	}
	lb = strlen(b) < size - 1 - la ? strlen(b) : size - 1 - la;
	memcpy(dst + la, b, lb);
	dst[la + lb] = '\0';
}

void
zd_err_prefix(struct zd_error *err, const char *fmt, ...)
{
	char prefix[256];
	char old[sizeof(err->msg)];
	va_list ap;

	if (err == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof(old));
	old[sizeof(old) - 1] = '\0';
	join(err->msg, sizeof(err->msg), prefix, old);
}

void
zd_err_clear(struct zd_error *err)
{
	if (err == NULL)
		return;
	err->code = ZD_OK;
	err->sys_errno = 0;
	err->msg[0] = '\0';
}

void
zd_warnf(zd_warn_fn warn, void *ctx, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	if (warn == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	warn(ctx, buf);
}
