/* SPDX-License-Identifier: GPL-2.0-or-later */
/* msg.h - all of the CLI's diagnostics and exit codes */
#ifndef ZDEB_MSG_H
#define ZDEB_MSG_H

#include <stdint.h>

#include "lib/error.h"

enum {
	ZD_EXIT_OK = 0,
	ZD_EXIT_MISMATCH = 1,	/* verify found a difference */
	ZD_EXIT_ERROR = 2,
};

/* Program name used as message prefix ("zdeb" or "dpkg-deb"). */
extern const char *zd_progname;
/* Verbosity from -v. */
extern int zd_verbose;

void zd_msg_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void zd_msg_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void zd_msg_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints err's message as an error; returns ZD_EXIT_ERROR. */
int zd_msg_fail(const struct zd_error *err);
/* Prints a usage error and the --help pointer; returns ZD_EXIT_ERROR. */
int zd_msg_usage(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The last error printed since zd_msg_last_clear(), else the last
 * warning, else NULL (repo run records why a job failed). */
const char *zd_msg_last(void);
void zd_msg_last_clear(void);
/* zd_warn_fn printing "PROG: warning: MSG". */
void zd_msg_warn_cb(void *ctx, const char *msg);
/* True when fd 2 is a terminal (progress output). */
int zd_msg_stderr_is_tty(void);
/* s as a JSON string on stdout (quotes, backslashes and control
 * characters escaped; other bytes as they are). */
void zd_msg_json_str(const char *s);
/* On a terminal: "PROG: STAGE (N MB)..." over the previous such line,
 * then erased by progress_end() (before any other message). */
void zd_msg_progress(const char *stage, uint64_t bytes);
void zd_msg_progress_end(void);

#endif
