/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * error.h - the error record every fallible lib/ function fills
 *
 * Fallible functions return 0 / a pointer on success and -1 / NULL on
 * failure, with `struct zd_error *err` (last argument) filled.  The message
 * buffer is fixed so that the error path never allocates.  `err` is left
 * untouched on success.
 */
#ifndef ZDEB_ERROR_H
#define ZDEB_ERROR_H

#include <stdarg.h>

enum zd_errc {
	ZD_OK = 0,
	ZD_E_IO,		/* read/write/open failed (sys_errno set) */
	ZD_E_NOMEM,
	ZD_E_FORMAT,		/* malformed input */
	ZD_E_UNSUPPORTED,
	ZD_E_LIMIT,		/* size or memory cap exceeded */
	ZD_E_CHECKSUM,
	ZD_E_USAGE,		/* bad option or argument */
	ZD_E_INTERNAL,
};

struct zd_error {
	enum zd_errc code;
	int sys_errno;
	char msg[512];
};

#define ZD_ERROR_INIT { ZD_OK, 0, { 0 } }

/* Warnings go through a callback; the CLI prints them. */
typedef void (*zd_warn_fn)(void *ctx, const char *msg);

/* Sets err (may be NULL) and returns -1. */
int zd_err(struct zd_error *err, enum zd_errc code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Like zd_err(), appending ": strerror(errno)" and recording errno. */
int zd_err_errno(struct zd_error *err, enum zd_errc code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Prefixes the message with "PREFIX: ". */
void zd_err_prefix(struct zd_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Resets err to ZD_ERROR_INIT. */
void zd_err_clear(struct zd_error *err);

/* Calls warn(ctx, formatted) when warn is not NULL. */
void zd_warnf(zd_warn_fn warn, void *ctx, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
