/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * spawn.h - run a program with posix_spawn(3): its stdin, stdout and
 * stderr redirected as asked, its exit status collected
 *
 * One home for starting a process: zdeb verify --dpkg-deb reads the
 * stock dpkg-deb's output through a pipe, zdeb integrate runs
 * dpkg-divert and dpkg-query.  Every descriptor zdeb opens is O_CLOEXEC,
 * so the child gets only the three asked for.
 */
#ifndef ZDEB_SPAWN_H
#define ZDEB_SPAWN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "lib/error.h"

enum zd_spawn_io {
	ZD_SPAWN_INHERIT,	/* ours */
	ZD_SPAWN_NULL,		/* /dev/null */
	ZD_SPAWN_PIPE,		/* stdout only: a pipe we read */
	ZD_SPAWN_FD,		/* stderr only: into err_fd */
};

struct zd_spawn_opts {
	enum zd_spawn_io in, out, err;
	int err_fd;		/* err ZD_SPAWN_FD: stderr goes here */
};

struct zd_spawn {
	pid_t pid;
	int out_fd;	/* read end of the child's stdout (PIPE), else -1 */
};

/*
 * Starts argv[0] with argv (looked up in PATH unless it holds a '/').
 * Returns 0 with sp filled, or -1 with err set: ZD_E_IO "cannot run
 * 'PROG': WHY" (ENOENT when it does not exist), ZD_E_USAGE for a pipe
 * asked on stdin or stderr.  Close sp->out_fd and call zd_spawn_wait().
 */
int zd_spawn_start(char *const argv[], const struct zd_spawn_opts *o,
                   struct zd_spawn *sp, struct zd_error *err);

/*
 * Waits for the child, closing sp->out_fd if still open.  Returns its exit
 * status (128 + N when killed by signal N), or -1 with err set (ZD_E_IO).
 */
int zd_spawn_wait(struct zd_spawn *sp, struct zd_error *err);

/*
 * Starts argv as zd_spawn_start() does (stdout may not be a pipe) and
 * waits for it.  Returns its exit status, 127 when the program cannot be
 * run (not found, not executable), or -1 with err set when no process
 * could be made.
 */
int zd_spawn_run(char *const argv[], const struct zd_spawn_opts *o,
                 struct zd_error *err);

/*
 * Runs argv, stdin and stderr from/to /dev/null, and keeps the start of
 * its stdout in out (NUL-terminated, trailing newlines dropped, the rest
 * read and discarded).  Returns the exit status, 127 when the program
 * cannot be run, or -1 with err set when no process could be made.
 */
int zd_spawn_capture(char *const argv[], char *out, size_t outsize,
                     struct zd_error *err);

#endif
