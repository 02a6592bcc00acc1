/* SPDX-License-Identifier: GPL-2.0-or-later */
/* spawn.c - run a program with posix_spawn(3) (see spawn.h) */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdbool.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/spawn.h"

extern char **environ;

static int
redirect(posix_spawn_file_actions_t *fa, int fd, enum zd_spawn_io io)
{
	if (io != ZD_SPAWN_NULL)
		return 0;
	return posix_spawn_file_actions_addopen(fa, fd, "/dev/null",
	                                        fd == 0 ? O_RDONLY : O_WRONLY,
	                                        0);
}

int
zd_spawn_start(char *const argv[], const struct zd_spawn_opts *o,
               struct zd_spawn *sp, struct zd_error *err)
{
	posix_spawn_file_actions_t fa;
	int p[2] = { -1, -1 };
	int rc;

	sp->pid = -1;
	sp->out_fd = -1;
	if (o->in == ZD_SPAWN_PIPE || o->err == ZD_SPAWN_PIPE)
		return zd_err(err, ZD_E_USAGE, "only stdout can be a pipe");
	if (o->in == ZD_SPAWN_FD || o->out == ZD_SPAWN_FD)
		return zd_err(err, ZD_E_USAGE, "only stderr can be an fd");
	if (o->out == ZD_SPAWN_PIPE && pipe2(p, O_CLOEXEC) < 0)
		return zd_err_errno(err, ZD_E_IO, "cannot make a pipe");
	rc = posix_spawn_file_actions_init(&fa);
	if (rc == 0)
		rc = redirect(&fa, 0, o->in);
	if (rc == 0 && o->out == ZD_SPAWN_PIPE)
		rc = posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	else if (rc == 0)
		rc = redirect(&fa, 1, o->out);
	if (rc == 0 && o->err == ZD_SPAWN_FD)
		rc = posix_spawn_file_actions_adddup2(&fa, o->err_fd, 2);
	else if (rc == 0)
		rc = redirect(&fa, 2, o->err);
	if (rc == 0)
		rc = strchr(argv[0], '/') != NULL ?
		     posix_spawn(&sp->pid, argv[0], &fa, NULL, argv, environ) :
		     posix_spawnp(&sp->pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (p[1] >= 0)
		close(p[1]);
	if (rc != 0) {
		if (p[0] >= 0)
			close(p[0]);
		sp->pid = -1;
		errno = rc;
		return zd_err_errno(err, ZD_E_IO, "cannot run '%s'", argv[0]);
	}
	sp->out_fd = p[0];
	return 0;
}

int
zd_spawn_wait(struct zd_spawn *sp, struct zd_error *err)
{
	int ws;

	if (sp->out_fd >= 0) {
		close(sp->out_fd);
		sp->out_fd = -1;
	}
	while (waitpid(sp->pid, &ws, 0) < 0) {
		if (errno != EINTR)
			return zd_err_errno(err, ZD_E_IO, "cannot wait for "
			                    "process %ld", (long)sp->pid);
	}
	sp->pid = -1;
	if (WIFEXITED(ws))
		return WEXITSTATUS(ws);
	return 128 + (WIFSIGNALED(ws) ? WTERMSIG(ws) : 0);
}

/* An error of zd_spawn_start() that means "this program cannot run",
 * which a shell reports as status 127. */
static bool
not_runnable(const struct zd_error *e)
{
	return e->code == ZD_E_IO && (e->sys_errno == ENOENT ||
	       e->sys_errno == EACCES || e->sys_errno == ENOEXEC);
}

int
zd_spawn_run(char *const argv[], const struct zd_spawn_opts *o,
             struct zd_error *err)
{
	struct zd_error serr = ZD_ERROR_INIT;
	struct zd_spawn sp;

	if (o->out == ZD_SPAWN_PIPE)
		return zd_err(err, ZD_E_USAGE, "zd_spawn_run: no pipe");
	if (zd_spawn_start(argv, o, &sp, &serr) < 0) {
		if (not_runnable(&serr))
			return 127;
		*err = serr;
		return -1;
	}
	return zd_spawn_wait(&sp, err);
}

int
zd_spawn_capture(char *const argv[], char *out, size_t outsize,
                 struct zd_error *err)
{
	const struct zd_spawn_opts o = {
		ZD_SPAWN_NULL, ZD_SPAWN_PIPE, ZD_SPAWN_NULL, -1
	};
	struct zd_error serr = ZD_ERROR_INIT;
	struct zd_spawn sp;
	size_t used = 0;

	if (zd_spawn_start(argv, &o, &sp, &serr) < 0) {
		if (not_runnable(&serr))
			return 127;
		*err = serr;
		return -1;
	}
	for (;;) {
		char junk[512];
		char *dst = used + 1 < outsize ? out + used : junk;
		size_t room = used + 1 < outsize ? outsize - 1 - used :
		              sizeof(junk);
		ssize_t n = read(sp.out_fd, dst, room);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (dst != junk)
			used += (size_t)n;
	}
	if (outsize > 0) {
		out[used] = '\0';
		while (used > 0 && out[used - 1] == '\n')
			out[--used] = '\0';
	}
	return zd_spawn_wait(&sp, err);
}
