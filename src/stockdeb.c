/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stockdeb.c - zdeb verify --dpkg-deb: does the system's own dpkg-deb
 * read a package's tars byte for byte as zdeb does?
 *
 * dpkg installs a package by reading "dpkg-deb --fsys-tarfile" and
 * "--control" (which reads the control tar), so the same bytes from the
 * stock binary mean that stock dpkg unpacks what zdeb would.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "lib/spawn.h"
#include "src/msg.h"
#include "src/stockdeb.h"

static bool
is_program(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	       access(path, X_OK) == 0;
}

/* name in PATH (or name itself when it holds a '/') into out. */
static int
lookup(const char *name, char *out, size_t outsize)
{
	const char *path = getenv("PATH");

	if (strchr(name, '/') != NULL) {
		if ((size_t)snprintf(out, outsize, "%s", name) >= outsize ||
		    !is_program(out))
			return -1;
		return 0;
	}
	if (path == NULL || *path == '\0')
		path = "/usr/bin:/bin";
	while (*path != '\0') {
		size_t n = strcspn(path, ":");
		int len = (int)(n > 0 ? n : 1);
		const char *dir = n > 0 ? path : ".";

		if ((size_t)snprintf(out, outsize, "%.*s/%s", len, dir,
		                     name) < outsize && is_program(out))
			return 0;
		path += n;
		if (*path == ':')
			path++;
	}
	return -1;
}

bool
zd_stockdeb_is_self(const char *path)
{
	struct stat a, b;

	return stat(path, &a) == 0 && stat("/proc/self/exe", &b) == 0 &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int
zd_stockdeb_find(const char *given, char *out, size_t outsize)
{
	const char *name = given != NULL ? given : "dpkg-deb";

	if (given == NULL && is_program(ZD_DPKG_DEB_DIVERTED))
		name = ZD_DPKG_DEB_DIVERTED;
	if (lookup(name, out, outsize) < 0) {
		zd_msg_error("cannot find the stock dpkg-deb '%s'%s", name,
		             given == NULL ? " (is dpkg installed?)" : "");
		return -1;
	}
	if (zd_stockdeb_is_self(out)) {
		zd_msg_error("'%s' is zdeb itself; name the stock binary with "
		             "--dpkg-deb=PATH", out);
		return -1;
	}
	return 0;
}

/* Hashes everything readable from fd; -1 on a read error (printed). */
static int
hash_all(int fd, const char *prog, struct zd_stockdeb_out *out)
{
	static unsigned char buf[1 << 16];
	XXH64_state_t *st = XXH64_createState();
	int rc = 0;

	if (st == NULL) {
		zd_msg_error("out of memory");
		return -1;
	}
	XXH64_reset(st, 0);
	out->len = 0;
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			zd_msg_error("cannot read the output of '%s': %s",
			             prog, strerror(errno));
			rc = -1;
			break;
		}
		if (n == 0)
			break;
		XXH64_update(st, buf, (size_t)n);
		out->len += (uint64_t)n;
	}
	out->hash = XXH64_digest(st);
	XXH64_freeState(st);
	return rc;
}

int
zd_stockdeb_read(const char *prog, const char *action, const char *deb,
                 struct zd_stockdeb_out *out)
{
	static const struct zd_spawn_opts o = {
		ZD_SPAWN_NULL, ZD_SPAWN_PIPE, ZD_SPAWN_INHERIT, -1
	};
	char *argv[] = { (char *)prog, (char *)action, (char *)"--",
	                 (char *)deb, NULL };
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_spawn sp;
	int rc;

	if (zd_spawn_start(argv, &o, &sp, &err) < 0) {
		zd_msg_error("%s", err.msg);
		return -1;
	}
	rc = hash_all(sp.out_fd, prog, out);
	out->status = zd_spawn_wait(&sp, &err);
	if (out->status < 0) {
		zd_msg_error("%s", err.msg);
		return -1;
	}
	return rc;
}
