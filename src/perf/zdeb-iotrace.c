// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * zdeb-iotrace.c - LD_PRELOAD library timing the I/O calls of an install.
 *
 * Loaded into dpkg by zdeb-perf(1) and inherited by its children
 * (dpkg-deb, tar, maintainer scripts).  Each wrapper times the real call
 * with CLOCK_MONOTONIC and adds count and nanoseconds to a per-process
 * total; a destructor appends one line of key=value pairs to the file
 * named by ZDEB_IOTRACE_FILE with a single O_APPEND write(2), so the lines
 * of concurrent processes never interleave.  A forked child starts from
 * zero (pthread_atfork), so nothing is counted twice.
 *
 * Writes and reads are split by the kind of file descriptor (regular file,
 * FIFO, other), learnt with one fstat(2) per descriptor and forgotten at
 * close(2); reads of a descriptor opened on a name ending in ".deb" count
 * as archive reads.  A process that ends in _exit(2), exec(2) or on a
 * signal writes nothing: that is what the harness's "other" column is for.
 *
 * Standalone on purpose: no libzdeb, only libc and libdl, so the object
 * can be preloaded into any program.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define ZD_IOT_EXPORT __attribute__((visibility("default")))

enum iot_cat {
	IOT_FSYNC,		/* fsync fdatasync sync_file_range syncfs */
	IOT_RENAME,		/* rename renameat renameat2 */
	IOT_WRITE_REG,		/* write family on regular files */
	IOT_WRITE_PIPE,		/* write family on FIFOs */
	IOT_WRITE_OTHER,	/* write family on anything else */
	IOT_READ_ARCHIVE,	/* read family on a ".deb" */
	IOT_READ_PIPE,		/* read family on FIFOs */
	IOT_READ_OTHER,		/* read family on anything else */
	IOT_OPEN,		/* open openat creat (64 variants) */
	IOT_CLOSE,
	IOT_UNLINK,		/* unlink unlinkat */
	IOT_NCATS
};

static const char *const cat_name[IOT_NCATS] = {
	"fsync", "rename", "write_reg", "write_pipe", "write_other",
	"read_archive", "read_pipe", "read_other", "open", "close",
	"unlink",
};

/* Updated with atomics by every thread of the process (zdeb decodes on
 * several threads); read once by the destructor. */
static uint64_t cat_n[IOT_NCATS];
static uint64_t cat_ns[IOT_NCATS];
static uint64_t cat_bytes[IOT_NCATS];
static uint64_t cat_in_ns[IOT_NCATS];	/* part of cat_ns spent in a stream */

/*
 * A "stream" is the time from the first byte read from a FIFO to its end
 * of file: in dpkg that is the unpack of one data.tar from the pipe of
 * dpkg-deb --fsys-tarfile.  The harness splits dpkg's life into that
 * and the rest (database, control area, deferred fsync and rename).
 * Written by the thread that reads the pipe (dpkg has one).
 */
static int in_stream;
static uint64_t stream_start_ns;
static uint64_t stream_ns;
static uint64_t stream_n;

enum fd_kind { FD_UNKNOWN, FD_REG, FD_FIFO, FD_OTHER, FD_ARCHIVE };
#define FD_MAX 65536
static unsigned char fd_kind[FD_MAX];	/* relaxed atomics, any thread */

static uint64_t start_ns;
static char exe_name[64];
static int role_fsys;	/* argv has --fsys-tarfile (or is zdeb cat-data) */
static int role_ctrl;	/* argv has --control */

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void
account(enum iot_cat c, uint64_t t0, long long bytes)
{
	uint64_t dt = now_ns() - t0;

	__atomic_fetch_add(&cat_n[c], 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&cat_ns[c], dt, __ATOMIC_RELAXED);
	if (__atomic_load_n(&in_stream, __ATOMIC_RELAXED) != 0)
		__atomic_fetch_add(&cat_in_ns[c], dt, __ATOMIC_RELAXED);
	if (bytes > 0)
		__atomic_fetch_add(&cat_bytes[c], (uint64_t)bytes,
		                   __ATOMIC_RELAXED);
}

static void
stream_note(enum iot_cat c, uint64_t t0, ssize_t rc)
{
	if (c != IOT_READ_PIPE)
		return;
	if (rc > 0 && in_stream == 0) {
		stream_start_ns = t0;
		stream_n++;
		__atomic_store_n(&in_stream, 1, __ATOMIC_RELAXED);
	} else if (rc == 0 && in_stream != 0) {
		stream_ns += now_ns() - stream_start_ns;
		__atomic_store_n(&in_stream, 0, __ATOMIC_RELAXED);
	}
}

static void *
real(const char *name, void **slot)
{
	void *p = __atomic_load_n(slot, __ATOMIC_RELAXED);

	if (p == NULL) {
		p = dlsym(RTLD_NEXT, name);
		if (p == NULL)
			abort();
		__atomic_store_n(slot, p, __ATOMIC_RELAXED);
	}
	return p;
}

#define REAL(ret, name, ...) \
	static void *name##_slot; \
	ret (*real_##name)(__VA_ARGS__) = \
		(ret (*)(__VA_ARGS__))real(#name, &name##_slot)

static void
fd_forget(int fd)
{
	if (fd >= 0 && fd < FD_MAX)
		__atomic_store_n(&fd_kind[fd], FD_UNKNOWN, __ATOMIC_RELAXED);
}

static bool
is_archive_name(const char *path)
{
	size_t n;

	if (path == NULL)
		return false;
	n = strlen(path);
	return n >= 4 && strcmp(path + n - 4, ".deb") == 0;
}

static void
fd_opened(int fd, const char *path)
{
	if (fd < 0 || fd >= FD_MAX)
		return;
	__atomic_store_n(&fd_kind[fd],
	                 is_archive_name(path) ? FD_ARCHIVE : FD_UNKNOWN,
	                 __ATOMIC_RELAXED);
}

static enum fd_kind
fd_classify(int fd)
{
	struct stat st;
	unsigned char k;

	if (fd < 0 || fd >= FD_MAX)
		return FD_OTHER;
	k = __atomic_load_n(&fd_kind[fd], __ATOMIC_RELAXED);
	if (k != FD_UNKNOWN)
		return (enum fd_kind)k;
	if (fstat(fd, &st) < 0)
		return FD_OTHER;
	if (S_ISREG(st.st_mode))
		k = FD_REG;
	else if (S_ISFIFO(st.st_mode))
		k = FD_FIFO;
	else
		k = FD_OTHER;
	__atomic_store_n(&fd_kind[fd], k, __ATOMIC_RELAXED);
	return (enum fd_kind)k;
}

static enum iot_cat
write_cat(int fd)
{
	switch (fd_classify(fd)) {
	case FD_REG:
	case FD_ARCHIVE:
		return IOT_WRITE_REG;
	case FD_FIFO:
		return IOT_WRITE_PIPE;
	default:
		return IOT_WRITE_OTHER;
	}
}

static enum iot_cat
read_cat(int fd)
{
	switch (fd_classify(fd)) {
	case FD_ARCHIVE:
		return IOT_READ_ARCHIVE;
	case FD_FIFO:
		return IOT_READ_PIPE;
	default:
		return IOT_READ_OTHER;
	}
}

/*
 * The wrappers: time the real call from t0, account it, and return its
 * result with errno as the call left it.
 */
static int
timed(enum iot_cat c, uint64_t t0, int rc)
{
	int e = errno;

	account(c, t0, 0);
	errno = e;
	return rc;
}

static ssize_t
timed_io(enum iot_cat c, uint64_t t0, ssize_t rc)
{
	int e = errno;

	stream_note(c, t0, rc);
	account(c, t0, rc);
	errno = e;
	return rc;
}

static int
timed_open(uint64_t t0, int rc, const char *path)
{
	int e = errno;

	account(IOT_OPEN, t0, 0);
	fd_opened(rc, path);
	errno = e;
	return rc;
}

/* --- sync ---------------------------------------------------------- */

ZD_IOT_EXPORT int
fsync(int fd)
{
	REAL(int, fsync, int);
	uint64_t t0 = now_ns();

	return timed(IOT_FSYNC, t0, real_fsync(fd));
}

ZD_IOT_EXPORT int
fdatasync(int fd)
{
	REAL(int, fdatasync, int);
	uint64_t t0 = now_ns();

	return timed(IOT_FSYNC, t0, real_fdatasync(fd));
}

ZD_IOT_EXPORT int
sync_file_range(int fd, off64_t off, off64_t n, unsigned int flags)
{
	REAL(int, sync_file_range, int, off64_t, off64_t, unsigned int);
	uint64_t t0 = now_ns();

	return timed(IOT_FSYNC, t0, real_sync_file_range(fd, off, n, flags));
}

ZD_IOT_EXPORT int
syncfs(int fd)
{
	REAL(int, syncfs, int);
	uint64_t t0 = now_ns();

	return timed(IOT_FSYNC, t0, real_syncfs(fd));
}

/* --- rename -------------------------------------------------------- */

ZD_IOT_EXPORT int
rename(const char *from, const char *to)
{
	REAL(int, rename, const char *, const char *);
	uint64_t t0 = now_ns();

	return timed(IOT_RENAME, t0, real_rename(from, to));
}

ZD_IOT_EXPORT int
renameat(int dfrom, const char *from, int dto, const char *to)
{
	REAL(int, renameat, int, const char *, int, const char *);
	uint64_t t0 = now_ns();

	return timed(IOT_RENAME, t0, real_renameat(dfrom, from, dto, to));
}

ZD_IOT_EXPORT int
renameat2(int dfrom, const char *from, int dto, const char *to,
          unsigned int flags)
{
	REAL(int, renameat2, int, const char *, int, const char *,
	     unsigned int);
	uint64_t t0 = now_ns();

	return timed(IOT_RENAME, t0,
	             real_renameat2(dfrom, from, dto, to, flags));
}

/* --- write (stream_note ignores write categories) ------------------ */

ZD_IOT_EXPORT ssize_t
write(int fd, const void *buf, size_t n)
{
	REAL(ssize_t, write, int, const void *, size_t);
	enum iot_cat c = write_cat(fd);
	uint64_t t0 = now_ns();

	return timed_io(c, t0, real_write(fd, buf, n));
}

ZD_IOT_EXPORT ssize_t
pwrite(int fd, const void *buf, size_t n, off_t off)
{
	REAL(ssize_t, pwrite, int, const void *, size_t, off_t);
	enum iot_cat c = write_cat(fd);
	uint64_t t0 = now_ns();

	return timed_io(c, t0, real_pwrite(fd, buf, n, off));
}

ZD_IOT_EXPORT ssize_t
pwrite64(int fd, const void *buf, size_t n, off64_t off)
{
	REAL(ssize_t, pwrite64, int, const void *, size_t, off64_t);
	enum iot_cat c = write_cat(fd);
	uint64_t t0 = now_ns();

	return timed_io(c, t0, real_pwrite64(fd, buf, n, off));
}

ZD_IOT_EXPORT ssize_t
writev(int fd, const struct iovec *iov, int cnt)
{
	REAL(ssize_t, writev, int, const struct iovec *, int);
	enum iot_cat c = write_cat(fd);
	uint64_t t0 = now_ns();

	return timed_io(c, t0, real_writev(fd, iov, cnt));
}

/* --- read ---------------------------------------------------------- */

ZD_IOT_EXPORT ssize_t
read(int fd, void *buf, size_t n)
{
	REAL(ssize_t, read, int, void *, size_t);
	enum iot_cat c = read_cat(fd);
	uint64_t t0 = now_ns();

	return timed_io(c, t0, real_read(fd, buf, n));
}

ZD_IOT_EXPORT ssize_t
pread(int fd, void *buf, size_t n, off_t off)
{
	REAL(ssize_t, pread, int, void *, size_t, off_t);
	enum iot_cat c = read_cat(fd);
	uint64_t t0 = now_ns();

	return timed_io(c, t0, real_pread(fd, buf, n, off));
}

ZD_IOT_EXPORT ssize_t
pread64(int fd, void *buf, size_t n, off64_t off)
{
	REAL(ssize_t, pread64, int, void *, size_t, off64_t);
	enum iot_cat c = read_cat(fd);
	uint64_t t0 = now_ns();

	return timed_io(c, t0, real_pread64(fd, buf, n, off));
}

ZD_IOT_EXPORT ssize_t
readv(int fd, const struct iovec *iov, int cnt)
{
	REAL(ssize_t, readv, int, const struct iovec *, int);
	enum iot_cat c = read_cat(fd);
	uint64_t t0 = now_ns();

	return timed_io(c, t0, real_readv(fd, iov, cnt));
}

/* --- open, close, unlink ------------------------------------------- */

static mode_t
open_mode(int flags, va_list ap)
{
	if ((flags & O_CREAT) != 0 || (flags & O_TMPFILE) == O_TMPFILE)
		return (mode_t)va_arg(ap, unsigned int);
	return 0;
}

/* The mode argument of an open(): there only with O_CREAT/O_TMPFILE. */
#define OPEN_MODE(flags, mode) do { \
		va_list ap_; \
		va_start(ap_, flags); \
		(mode) = open_mode(flags, ap_); \
		va_end(ap_); \
	} while (0)

ZD_IOT_EXPORT int
open(const char *path, int flags, ...)
{
	REAL(int, open, const char *, int, mode_t);
	mode_t mode;
	uint64_t t0;

	OPEN_MODE(flags, mode);
	t0 = now_ns();
	return timed_open(t0, real_open(path, flags, mode), path);
}

ZD_IOT_EXPORT int
open64(const char *path, int flags, ...)
{
	REAL(int, open64, const char *, int, mode_t);
	mode_t mode;
	uint64_t t0;

	OPEN_MODE(flags, mode);
	t0 = now_ns();
	return timed_open(t0, real_open64(path, flags, mode), path);
}

ZD_IOT_EXPORT int
openat(int dfd, const char *path, int flags, ...)
{
	REAL(int, openat, int, const char *, int, mode_t);
	mode_t mode;
	uint64_t t0;

	OPEN_MODE(flags, mode);
	t0 = now_ns();
	return timed_open(t0, real_openat(dfd, path, flags, mode), path);
}

ZD_IOT_EXPORT int
openat64(int dfd, const char *path, int flags, ...)
{
	REAL(int, openat64, int, const char *, int, mode_t);
	mode_t mode;
	uint64_t t0;

	OPEN_MODE(flags, mode);
	t0 = now_ns();
	return timed_open(t0, real_openat64(dfd, path, flags, mode), path);
}

ZD_IOT_EXPORT int
creat(const char *path, mode_t mode)
{
	REAL(int, creat, const char *, mode_t);
	uint64_t t0 = now_ns();

	return timed_open(t0, real_creat(path, mode), path);
}

ZD_IOT_EXPORT int
close(int fd)
{
	REAL(int, close, int);
	uint64_t t0;

	fd_forget(fd);
	t0 = now_ns();
	return timed(IOT_CLOSE, t0, real_close(fd));
}

ZD_IOT_EXPORT int
unlink(const char *path)
{
	REAL(int, unlink, const char *);
	uint64_t t0 = now_ns();

	return timed(IOT_UNLINK, t0, real_unlink(path));
}

ZD_IOT_EXPORT int
unlinkat(int dfd, const char *path, int flags)
{
	REAL(int, unlinkat, int, const char *, int);
	uint64_t t0 = now_ns();

	return timed(IOT_UNLINK, t0, real_unlinkat(dfd, path, flags));
}

/* --- process start and end ----------------------------------------- */

static void
reset_after_fork(void)
{
	for (int c = 0; c < IOT_NCATS; c++) {
		cat_n[c] = 0;
		cat_ns[c] = 0;
		cat_bytes[c] = 0;
		cat_in_ns[c] = 0;
	}
	in_stream = 0;
	stream_ns = 0;
	stream_n = 0;
	start_ns = now_ns();
}

__attribute__((constructor)) static void
iotrace_init(int argc, char **argv)
{
	const char *base;

	start_ns = now_ns();
	if (argc > 0 && argv != NULL && argv[0] != NULL) {
		base = strrchr(argv[0], '/');
		base = base != NULL ? base + 1 : argv[0];
		snprintf(exe_name, sizeof(exe_name), "%s", base);
		for (int i = 1; i < argc && argv[i] != NULL; i++) {
			if (strcmp(argv[i], "--fsys-tarfile") == 0 ||
			    strcmp(argv[i], "cat-data") == 0)
				role_fsys = 1;
			else if (strcmp(argv[i], "--control") == 0 ||
			         strcmp(argv[i], "-e") == 0)
				role_ctrl = 1;
		}
	}
	for (size_t i = 0; exe_name[i] != '\0'; i++)
		if (exe_name[i] == ' ' || exe_name[i] == '=')
			exe_name[i] = '_';
	pthread_atfork(NULL, NULL, reset_after_fork);
}

__attribute__((destructor)) static void
iotrace_fini(void)
{
	static void *write_slot, *open_slot, *close_slot;
	ssize_t (*wr)(int, const void *, size_t);
	int (*op)(const char *, int, mode_t);
	int (*cl)(int);
	const char *file = getenv("ZDEB_IOTRACE_FILE");
	char line[4096];
	struct rusage ru;
	size_t len = 0;
	int fd, e = errno;

	if (file == NULL || *file == '\0')
		return;
	if (in_stream != 0) {
		stream_ns += now_ns() - stream_start_ns;
		in_stream = 0;
	}
	getrusage(RUSAGE_SELF, &ru);
	len += (size_t)snprintf(line + len, sizeof(line) - len,
		"pid=%ld ppid=%ld exe=%s fsys=%d ctrl=%d start_ns=%llu "
		"end_ns=%llu utime_us=%lld stime_us=%lld stream_n=%llu "
		"stream_ns=%llu",
		(long)getpid(), (long)getppid(),
		exe_name[0] != '\0' ? exe_name : "?", role_fsys, role_ctrl,
		(unsigned long long)start_ns,
		(unsigned long long)now_ns(),
		(long long)ru.ru_utime.tv_sec * 1000000 + ru.ru_utime.tv_usec,
		(long long)ru.ru_stime.tv_sec * 1000000 + ru.ru_stime.tv_usec,
		(unsigned long long)stream_n, (unsigned long long)stream_ns);
	for (int c = 0; c < IOT_NCATS && len < sizeof(line) - 100; c++)
		len += (size_t)snprintf(line + len, sizeof(line) - len,
			" %s_n=%llu %s_ns=%llu %s_in_ns=%llu %s_bytes=%llu",
			cat_name[c], (unsigned long long)cat_n[c],
			cat_name[c], (unsigned long long)cat_ns[c],
			cat_name[c], (unsigned long long)cat_in_ns[c],
			cat_name[c], (unsigned long long)cat_bytes[c]);
	if (len >= sizeof(line) - 1)
		len = sizeof(line) - 2;
	line[len++] = '\n';

	/* The real calls: this line must not count itself. */
	wr = (ssize_t (*)(int, const void *, size_t))real("write",
	                                                   &write_slot);
	op = (int (*)(const char *, int, mode_t))real("open", &open_slot);
	cl = (int (*)(int))real("close", &close_slot);
	fd = op(file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd >= 0) {
		if (wr(fd, line, len) < 0)
			(void)0;	/* nowhere to report it */
		cl(fd);
	}
	errno = e;
}
