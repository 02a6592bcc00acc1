/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * deb-member.h - decode a .deb member into a sink, or into a pipe that a
 * tar reader consumes while the decoder runs on its own thread
 */
#ifndef ZDEB_DEB_MEMBER_H
#define ZDEB_DEB_MEMBER_H

#include <pthread.h>
#include <stdbool.h>

#include "lib/codec.h"
#include "lib/deb.h"
#include "lib/error.h"

/* Decodes member m of an opened .deb into out with p. */
int zd_deb_member_decode(const struct zd_deb_member *m,
                     const struct zd_dec_params *p, struct zd_sink *out,
                     struct zd_error *err);

/*
 * The decoded size of member m into *size: the zstd frame headers' when
 * they all declare it (a decoder checks them against the bytes), the
 * member's own when it is not compressed, else by decoding it into
 * nothing with p.  Returns 0, or -1 with err set as zd_deb_member_decode.
 */
int zd_deb_member_size(const struct zd_deb_member *m,
                       const struct zd_dec_params *p, uint64_t *size,
                       struct zd_error *err);

/* The largest member zd_deb_member_read_file() decodes into memory. */
#define ZD_MEMBER_READ_MAX ((size_t)64 << 20)

/*
 * Decodes member m (a control.tar: at most ZD_MEMBER_READ_MAX bytes) into
 * memory and copies its file name ("control") into *text, NUL-terminated
 * (malloc'd, caller frees).  Returns 1, 0 when the tar has no such file,
 * or -1 with err set: as zd_deb_member_decode, ZD_E_LIMIT over the size, as
 * zd_tar_find_file.
 */
int zd_deb_member_read_file(const struct zd_deb_member *m,
                        const struct zd_dec_params *p, const char *name,
                        char **text, size_t *len, struct zd_error *err);

/*
 * A decoder thread writing a member's decoded bytes into a pipe.  The
 * consumer reads zd_member_stream.read_fd until EOF, then calls
 * zd_deb_member_stream_finish() which joins the thread and reports the
 * decoder's error, if any.
 */
struct zd_member_stream {
	int read_fd;
	int write_fd;
	pthread_t thread;
	bool started;
	const struct zd_deb_member *member;
	struct zd_dec_params params;
	struct zd_error err;	/* written by the thread, read after join */
	int rc;
};

int zd_deb_member_stream_start(struct zd_member_stream *s,
                           const struct zd_deb_member *m,
                           const struct zd_dec_params *p,
                           struct zd_error *err);
/*
 * Reads what the consumer left unread to EOF (tar's end-of-archive
 * padding), closes the read end, joins the thread and returns its result.
 * When the consumer failed first, pass consumer_failed = true: the pipe is
 * closed without draining, so the decoder stops with EPIPE, which is then
 * not reported again.
 */
int zd_deb_member_stream_finish(struct zd_member_stream *s,
                                bool consumer_failed, struct zd_error *err);

#endif
