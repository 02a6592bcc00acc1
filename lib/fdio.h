/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fdio.h - full reads and writes (EINTR, short counts), sinks and regions
 *
 * A zd_region is a byte range of a seekable file read with pread(), so that
 * several threads can read one .deb member at once.  A zd_sink receives
 * decoded bytes in order (stdout, a pipe into the tar extractor, a hash).
 */
#ifndef ZDEB_FDIO_H
#define ZDEB_FDIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/error.h"

struct zd_region {
	int fd;
	uint64_t off;	/* offset of the first byte in fd */
	uint64_t len;	/* number of bytes */
};

struct zd_sink {
	/* Returns 0, or -1 with err set. */
	int (*write)(void *ctx, const void *buf, size_t len,
	             struct zd_error *err);
	void *ctx;
	/*
	 * NULL, or for a sink that can take its bytes out of order (a
	 * regular file): writes len bytes at offset off of the stream, as
	 * if all before them had been written; buf NULL: the stream ends at
	 * off.  Returns 0, or -1 with err set.  A writer uses either write
	 * or pwrite for one stream, never both.
	 */
	int (*pwrite)(void *ctx, const void *buf, size_t len, uint64_t off,
	              struct zd_error *err);
	/*
	 * NULL, or for a sink whose writes may wait for a reader (a pipe):
	 * writes as many of the len bytes as it takes without waiting.
	 * Returns that count (0 when it would wait for all of them), or -1
	 * with err set.  Where the kernel cannot tell, it waits and writes
	 * all len bytes.
	 */
	ssize_t (*trywrite)(void *ctx, const void *buf, size_t len,
	                    struct zd_error *err);
};

/* Writes all of buf to fd.  Returns 0, or -1 with err set (ZD_E_IO). */
int zd_write_all(int fd, const void *buf, size_t len, struct zd_error *err);
/*
 * Reads up to len bytes, retrying short reads until EOF.  Returns the count
 * read (< len only at EOF), or -1 with err set.
 */
ssize_t zd_read_full(int fd, void *buf, size_t len, struct zd_error *err);
/* pread()s exactly len bytes at off; EOF before that is ZD_E_FORMAT. */
int zd_pread_all(int fd, void *buf, size_t len, uint64_t off,
                 struct zd_error *err);
/* pwrite()s all of buf at off (EINTR, short counts).  Returns 0, or -1
 * with err set (ZD_E_IO "cannot write"). */
int zd_pwrite_all(int fd, const void *buf, size_t len, uint64_t off,
                  struct zd_error *err);
/* Reads len bytes at offset off inside region r (bounds checked). */
int zd_region_read(const struct zd_region *r, void *buf, size_t len,
                   uint64_t off, struct zd_error *err);

/* Copies n bytes of in_fd from offset off to sink. */
int zd_copy_region(const struct zd_region *r, struct zd_sink *sink,
                   struct zd_error *err);

/* A sink writing to a file descriptor; ctx points to an int fd. */
int zd_sink_fd_write(void *ctx, const void *buf, size_t len,
                     struct zd_error *err);
#define ZD_SINK_FD(fdptr) { zd_sink_fd_write, (fdptr), NULL, NULL }

/*
 * A sink writing to fd from its current offset, in order or, when fd is
 * a regular file not opened for appending, or /dev/null, at any offset
 * (pwrite; the stream's end moves the file offset there), and when fd
 * is a pipe, without waiting for its reader (trywrite).  f holds the
 * state and must outlive the sink.
 */
struct zd_fd_sink {
	int fd;		/* first: ctx is also an int * */
	uint64_t base;	/* fd's offset when the sink was made */
	bool wait;	/* trywrite waits: the kernel has no RWF_NOWAIT here */
};
void zd_sink_fd_init(struct zd_sink *s, struct zd_fd_sink *f, int fd);

/*
 * If fd is a pipe, makes its buffer 1 MiB (else 256 KiB; never smaller
 * than it is), so that the writer need not wait for the reader after every
 * 64 KiB, the default.  A pipe the kernel does not let grow keeps its
 * size.  Returns the pipe's size, or 0 when fd is not a pipe.
 */
size_t zd_pipe_grow(int fd);

/* Size of the regular file behind fd, or -1 with err set. */
int zd_fd_size(int fd, uint64_t *size, struct zd_error *err);

/*
 * Moves len bytes of fd from offset from to offset to, as memmove() does
 * (the ranges may overlap), with pread/pwrite; the file offset is not
 * used.  Returns 0, or -1 with err set.
 */
int zd_fd_move(int fd, uint64_t from, uint64_t to, uint64_t len,
               struct zd_error *err);

/*
 * Creates an unlinked temporary file in $TMPDIR (or /tmp).  Returns the fd,
 * or -1 with err set.
 */
int zd_tmpfile(struct zd_error *err);

/*
 * Output files made durable before they are done, the one home of it.
 * zd_outfile_open() creates "TARGET.zdeb-XXXXXX" beside target (O_EXCL,
 * mode as given less the umask) and holds an flock on it while it is
 * open; first it removes the temporaries of target that no live process
 * holds (what a writer killed by SIGKILL or a power loss left).
 * zd_outfile_commit() fsyncs the file, renames it to target and, when
 * sync_dir, fsyncs target's directory, so that once it returns the
 * output survives a crash whole, and a file already at target is
 * replaced only by a complete one.  zd_outfile_abort() removes the
 * temporary (errno kept) unless committed, and closes it.
 */
#define ZD_OUTFILE_TAG ".zdeb-"
struct zd_outfile {
	int fd;		/* -1 when closed */
	char *tmp;	/* "TARGET.zdeb-XXXXXX"; NULL once renamed */
};
#define ZD_OUTFILE_INIT { -1, NULL }

/* Returns 0, or -1 with err set (ZD_E_IO "cannot create 'TMP'"). */
int zd_outfile_open(struct zd_outfile *o, const char *target, mode_t mode,
                    struct zd_error *err);
/* Returns 0, or -1 with err set (ZD_E_IO: "cannot write 'TARGET'" for
 * a failed fsync, "cannot rename", "cannot sync directory"); on failure
 * the temporary is left for zd_outfile_abort(). */
int zd_outfile_commit(struct zd_outfile *o, const char *target,
                      bool sync_dir, struct zd_error *err);
void zd_outfile_abort(struct zd_outfile *o);
/*
 * Removes the temporaries of target ("TARGET.zdeb-" and 6 characters)
 * that no process holds locked.  Returns how many it removed.
 */
size_t zd_outfile_clean(const char *target);
/* The same for every target in dir: removes each "*.zdeb-XXXXXX" there
 * that no process holds.  Returns how many. */
size_t zd_outfile_clean_dir(const char *dir);
/* fsyncs the directory that holds path.  Returns 0, or -1 with err set
 * (ZD_E_IO "cannot sync directory 'DIR'"). */
int zd_fsync_parent(const char *path, struct zd_error *err);

#endif
