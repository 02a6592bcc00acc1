/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fdio.c - full reads and writes, sinks, regions, temporary files */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "lib/fdio.h"

int
zd_write_all(int fd, const void *buf, size_t len, struct zd_error *err)
{
	const unsigned char *p = buf;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return zd_err_errno(err, ZD_E_IO, "write failed");
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

ssize_t
zd_read_full(int fd, void *buf, size_t len, struct zd_error *err)
{
	unsigned char *p = buf;
	size_t done = 0;

	while (done < len) {
		ssize_t n = read(fd, p + done, len - done);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return zd_err_errno(err, ZD_E_IO, "read failed");
		}
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

int
zd_pread_all(int fd, void *buf, size_t len, uint64_t off,
             struct zd_error *err)
{
	unsigned char *p = buf;

	while (len > 0) {
		ssize_t n = pread(fd, p, len, (off_t)off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return zd_err_errno(err, ZD_E_IO, "read failed at "
			                    "offset %ju", (uintmax_t)off);
		}
		if (n == 0)
			return zd_err(err, ZD_E_FORMAT, "unexpected end of "
			              "file at offset %ju", (uintmax_t)off);
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

int
zd_region_read(const struct zd_region *r, void *buf, size_t len,
               uint64_t off, struct zd_error *err)
{
	uint64_t end;

	if (__builtin_add_overflow(off, (uint64_t)len, &end) || end > r->len)
		return zd_err(err, ZD_E_FORMAT, "read of %zu bytes at offset "
		              "%ju runs past the end of the member (%ju bytes)",
		              len, (uintmax_t)off, (uintmax_t)r->len);
	return zd_pread_all(r->fd, buf, len, r->off + off, err);
}

int
zd_copy_region(const struct zd_region *r, struct zd_sink *sink,
               struct zd_error *err)
{
	enum { CHUNK = 1 << 17 };
	unsigned char *buf = malloc(CHUNK);
	uint64_t off = 0;
	int rc = -1;

	if (buf == NULL)
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	while (off < r->len) {
		size_t n = r->len - off > CHUNK ? CHUNK : (size_t)(r->len - off);

		if (zd_region_read(r, buf, n, off, err) < 0)
			goto out;
		if (sink->write(sink->ctx, buf, n, err) < 0)
			goto out;
		off += n;
	}
	rc = 0;
out:
	free(buf);
	return rc;
}

int
zd_sink_fd_write(void *ctx, const void *buf, size_t len, struct zd_error *err)
{
	return zd_write_all(*(int *)ctx, buf, len, err);
}

static int
sink_fd_pwrite(void *ctx, const void *buf, size_t len, uint64_t off,
               struct zd_error *err)
{
	struct zd_fd_sink *f = ctx;

	if (buf == NULL) {
		if (lseek(f->fd, (off_t)(f->base + off), SEEK_SET) < 0)
			return zd_err_errno(err, ZD_E_IO, "cannot seek");
		return 0;
	}
	return zd_pwrite_all(f->fd, buf, len, f->base + off, err);
}

/* Bytes written to fd at any offset end up where they belong: a regular
 * file (not O_APPEND, where pwrite appends), or /dev/null. */
static bool
fd_positional(int fd)
{
	struct stat st, null;
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || (fl & O_APPEND) != 0 || fstat(fd, &st) < 0)
		return false;
	if (S_ISCHR(st.st_mode))
		return stat("/dev/null", &null) == 0 && S_ISCHR(null.st_mode) &&
		       st.st_rdev == null.st_rdev;
	return S_ISREG(st.st_mode);
}

/*
 * A pipe's writer that finds it full need not sleep: it can go on with
 * other work (decoding) and write later.  RWF_NOWAIT (Linux, on pipes
 * since 5.8 or so) says so for one write without touching the file
 * status flags the reader may share; a kernel that refuses it gets a
 * write that waits.
 */
static ssize_t
sink_fd_trywrite(void *ctx, const void *buf, size_t len,
                 struct zd_error *err)
{
	struct zd_fd_sink *f = ctx;

#ifdef RWF_NOWAIT
	while (!f->wait && len > 0) {
		struct iovec v = { (void *)buf, len };
		ssize_t n = pwritev2(f->fd, &v, 1, -1, RWF_NOWAIT);

		if (n >= 0)
			return n;
		if (errno == EAGAIN)
			return 0;
		if (errno == EINTR)
			continue;
		if (errno != EOPNOTSUPP && errno != EINVAL && errno != ENOSYS)
			break;	/* the write below reports it */
		f->wait = true;
	}
#endif
	return zd_write_all(f->fd, buf, len, err) < 0 ? -1 : (ssize_t)len;
}

void
zd_sink_fd_init(struct zd_sink *s, struct zd_fd_sink *f, int fd)
{
	off_t at = lseek(fd, 0, SEEK_CUR);
	struct stat st;

	f->fd = fd;
	f->base = at > 0 ? (uint64_t)at : 0;
	f->wait = false;
	s->write = zd_sink_fd_write;
	s->ctx = f;
	s->pwrite = at >= 0 && fd_positional(fd) ? sink_fd_pwrite : NULL;
	s->trywrite = fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode) ?
	              sink_fd_trywrite : NULL;
}

/*
 * The sizes asked for, largest first: 1 MiB is the most an unprivileged
 * process may ask for by default (/proc/sys/fs/pipe-max-size).
 */
static const int pipe_sizes[] = { 1 << 20, 256 << 10 };

size_t
zd_pipe_grow(int fd)
{
	int cur = fcntl(fd, F_GETPIPE_SZ);	/* EBADF unless a pipe */

	if (cur < 0)
		return 0;
	for (size_t i = 0; i < sizeof(pipe_sizes) / sizeof(pipe_sizes[0]) &&
	     cur < pipe_sizes[i]; i++) {
		int n = fcntl(fd, F_SETPIPE_SZ, pipe_sizes[i]);

		if (n > 0) {
			cur = n;
			break;
		}
	}
	return (size_t)cur;
}

int
zd_fd_size(int fd, uint64_t *size, struct zd_error *err)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return zd_err_errno(err, ZD_E_IO, "cannot stat file");
	*size = (uint64_t)st.st_size;
	return 0;
}

int
zd_pwrite_all(int fd, const void *buf, size_t len, uint64_t off,
              struct zd_error *err)
{
	const unsigned char *p = buf;

	while (len > 0) {
		ssize_t n = pwrite(fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return zd_err_errno(err, ZD_E_IO, "cannot write");
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

int
zd_fd_move(int fd, uint64_t from, uint64_t to, uint64_t len,
           struct zd_error *err)
{
	enum { CHUNK = 1 << 20 };
	unsigned char *buf;
	uint64_t done = 0;
	int rc = 0;

	if (from == to || len == 0)
		return 0;
	buf = malloc(CHUNK);
	if (buf == NULL)
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	/* forwards: the last chunk first, so that no byte is overwritten
	 * before it is read */
	while (rc == 0 && done < len) {
		size_t n = len - done > CHUNK ? CHUNK : (size_t)(len - done);
		uint64_t at = to > from ? len - done - n : done;

		rc = zd_pread_all(fd, buf, n, from + at, err);
		if (rc == 0)
			rc = zd_pwrite_all(fd, buf, n, to + at, err);
		done += n;
	}
	free(buf);
	return rc;
}

int
zd_tmpfile(struct zd_error *err)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	int fd;

	if (dir == NULL || *dir == '\0')
		dir = "/tmp";
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	snprintf(path, sizeof(path), "%s/zdeb.XXXXXX", dir);
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0)
		return zd_err_errno(err, ZD_E_IO, "cannot create temporary "
		                    "file in '%s'", dir);
	unlink(path);
	return fd;
}

/* The directory part of path ("." when none), malloc'd; NULL: no memory. */
static char *
parent_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (slash == NULL)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

int
zd_fsync_parent(const char *path, struct zd_error *err)
{
	char *dir = parent_of(path);
	int fd, rc = 0;

	if (dir == NULL)
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fsync(fd) < 0)
		rc = zd_err_errno(err, ZD_E_IO, "cannot sync directory '%s'",
		                  dir);
	if (fd >= 0)
		close(fd);
	free(dir);
	return rc;
}

/* Is name a temporary of base, "BASE.zdeb-" and six characters? */
static bool
is_temp_of(const char *name, const char *base)
{
	size_t b = strlen(base), t = strlen(ZD_OUTFILE_TAG);

	return strncmp(name, base, b) == 0 &&
	       strncmp(name + b, ZD_OUTFILE_TAG, t) == 0 &&
	       strlen(name + b + t) == 6 && strchr(name + b + t, '/') == NULL;
}

/* Removes the temporaries in dir that no process holds locked: of base,
 * or of any target when base is NULL. */
static size_t
clean_dir(const char *dir, const char *base)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = 0, t = strlen(ZD_OUTFILE_TAG);
	int saved = errno;

	while (d != NULL && (de = readdir(d)) != NULL) {
		size_t len = strlen(de->d_name);
		int fd;

		if (base != NULL ? !is_temp_of(de->d_name, base) :
		    len <= t + 6 ||
		    strncmp(de->d_name + len - 6 - t, ZD_OUTFILE_TAG, t) != 0)
			continue;
		fd = openat(dirfd(d), de->d_name, O_RDONLY | O_CLOEXEC |
		            O_NOFOLLOW | O_NONBLOCK);
		if (fd < 0)
			continue;
		/* a live writer holds its lock; a dead one's went with it */
		if (flock(fd, LOCK_EX | LOCK_NB) == 0 &&
		    unlinkat(dirfd(d), de->d_name, 0) == 0)
			n++;
		close(fd);
	}
	if (d != NULL)
		closedir(d);
	errno = saved;
	return n;
}

size_t
zd_outfile_clean(const char *target)
{
	char *dir = parent_of(target);
	const char *slash = strrchr(target, '/');
	size_t n = 0;

	if (dir != NULL)
		n = clean_dir(dir, slash != NULL ? slash + 1 : target);
	free(dir);
	return n;
}

size_t
zd_outfile_clean_dir(const char *dir)
{
	return clean_dir(dir, NULL);
}

int
zd_outfile_open(struct zd_outfile *o, const char *target, mode_t mode,
                struct zd_error *err)
{
	size_t n = strlen(target) + sizeof(ZD_OUTFILE_TAG "XXXXXX");
	mode_t mask = umask(022);

	umask(mask);
	o->fd = -1;
	o->tmp = malloc(n);
	if (o->tmp == NULL)
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	zd_outfile_clean(target);
	for (int tries = 0; ; tries++) {
		struct stat a, b;
		int locked;

		snprintf(o->tmp, n, "%s" ZD_OUTFILE_TAG "XXXXXX", target);
		o->fd = mkostemp(o->tmp, O_CLOEXEC);
		if (o->fd < 0)
			break;
		/*
		 * Locked, and still ours: a cleaner that opened it between
		 * the two may have removed it (then make another).  Where
		 * there are no locks (ENOLCK, an old NFS), no cleaner can
		 * take one either, so none removes it.
		 */
		while ((locked = flock(o->fd, LOCK_EX)) < 0 && errno == EINTR)
			;
		if (locked < 0 ||
		    (fstat(o->fd, &a) == 0 && stat(o->tmp, &b) == 0 &&
		     a.st_ino == b.st_ino && a.st_dev == b.st_dev))
			break;
		close(o->fd);
		o->fd = -1;
		if (tries == 8) {
			errno = EAGAIN;
			break;
		}
	}
	if (o->fd < 0) {
		zd_err_errno(err, ZD_E_IO, "cannot create '%s'", o->tmp);
		free(o->tmp);
		o->tmp = NULL;
		return -1;
	}
	if (fchmod(o->fd, mode & ~mask) < 0)
		return zd_err_errno(err, ZD_E_IO, "cannot chmod '%s'", o->tmp);
	return 0;
}

int
zd_outfile_commit(struct zd_outfile *o, const char *target, bool sync_dir,
                  struct zd_error *err)
{
	if (fsync(o->fd) < 0)
		return zd_err_errno(err, ZD_E_IO, "cannot write '%s'", target);
	if (rename(o->tmp, target) < 0)
		return zd_err_errno(err, ZD_E_IO, "cannot rename '%s' to '%s'",
		                    o->tmp, target);
	free(o->tmp);
	o->tmp = NULL;
	/* the lock goes with the close, after the rename: no cleaner can
	 * take the file between */
	close(o->fd);
	o->fd = -1;
	if (sync_dir && zd_fsync_parent(target, err) < 0)
		return -1;
	return 0;
}

void
zd_outfile_abort(struct zd_outfile *o)
{
	int saved = errno;

	if (o->tmp != NULL)
		unlink(o->tmp);
	if (o->fd >= 0)
		close(o->fd);
	free(o->tmp);
	o->tmp = NULL;
	o->fd = -1;
	errno = saved;
}
