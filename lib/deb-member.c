/* SPDX-License-Identifier: GPL-2.0-or-later */
/* deb-member.c - decode a .deb member, inline or on a thread into a pipe */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/deb-member.h"
#include "lib/membuf.h"
#include "lib/tar-find.h"
#include "lib/zseg-layout.h"

int
zd_deb_member_decode(const struct zd_deb_member *m,
                     const struct zd_dec_params *p, struct zd_sink *out,
                     struct zd_error *err)
{
	struct zd_dec_params q = *p;

	if (q.member == NULL)
		q.member = m->name;
	if (q.threads == 0)
		q.threads = 1;
	if (zd_decompress(m->codec, &m->region, &q, out, err) < 0) {
		if (strstr(err->msg, m->name) == NULL)
			zd_err_prefix(err, "member '%s'", m->name);
		return -1;
	}
	return 0;
}

static int
count_write(void *ctx, const void *buf, size_t len, struct zd_error *err)
{
	(void)buf;
	(void)err;
	*(uint64_t *)ctx += len;
	return 0;
}

int
zd_deb_member_size(const struct zd_deb_member *m,
                   const struct zd_dec_params *p, uint64_t *size,
                   struct zd_error *err)
{
	struct zd_sink sink = { count_write, size, NULL, NULL };

	*size = 0;
	if (m->codec->type == ZD_COMP_NONE) {
		*size = m->region.len;
		return 0;
	}
	if (m->codec->type == ZD_COMP_ZSTD) {
		struct zd_zstd_info info;

		if (zd_zstd_describe(&m->region, &info, err) < 0) {
			zd_err_prefix(err, "member '%s'", m->name);
			return -1;
		}
		if (info.content_size >= 0) {
			*size = (uint64_t)info.content_size;
			return 0;
		}
	}
	return zd_deb_member_decode(m, p, &sink, err);
}

int
zd_deb_member_read_file(const struct zd_deb_member *m,
                    const struct zd_dec_params *p, const char *name,
                    char **text, size_t *len, struct zd_error *err)
{
	struct zd_membuf b = ZD_MEMBUF_INIT(ZD_MEMBER_READ_MAX);
	struct zd_sink sink = ZD_SINK_MEMBUF(&b);
	int rc;

	*text = NULL;
	*len = 0;
	rc = zd_deb_member_decode(m, p, &sink, err);
	if (rc == 0) {
		rc = zd_tar_find_file(b.buf, b.len, name, text, len, err);
		if (rc < 0)
			zd_err_prefix(err, "member '%s'", m->name);
	}
	free(b.buf);
	return rc;
}

static void *
stream_main(void *arg)
{
	struct zd_member_stream *s = arg;
	struct zd_sink sink = ZD_SINK_FD(&s->write_fd);

	s->rc = zd_deb_member_decode(s->member, &s->params, &sink, &s->err);
	close(s->write_fd);
	s->write_fd = -1;
	return NULL;
}

int
zd_deb_member_stream_start(struct zd_member_stream *s,
                       const struct zd_deb_member *m,
                       const struct zd_dec_params *p, struct zd_error *err)
{
	int fds[2];
	int rc;

	memset(s, 0, sizeof(*s));
	s->read_fd = s->write_fd = -1;
	if (pipe2(fds, O_CLOEXEC) < 0)
		return zd_err_errno(err, ZD_E_IO, "cannot create pipe");
	s->read_fd = fds[0];
	s->write_fd = fds[1];
	zd_pipe_grow(fds[1]);
	s->member = m;
	s->params = *p;
	s->err = (struct zd_error)ZD_ERROR_INIT;
	rc = pthread_create(&s->thread, NULL, stream_main, s);
	if (rc != 0) {
		close(fds[0]);
		close(fds[1]);
		s->read_fd = s->write_fd = -1;
		errno = rc;
		return zd_err_errno(err, ZD_E_INTERNAL, "cannot start "
		                    "decoder thread");
	}
	s->started = true;
	return 0;
}

/* Reads what the consumer left (tar's end-of-archive padding) to EOF. */
static void
drain(int fd)
{
	char buf[65536];

	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
	}
}

int
zd_deb_member_stream_finish(struct zd_member_stream *s, bool consumer_failed,
                        struct zd_error *err)
{
	if (s->read_fd >= 0 && !consumer_failed)
		drain(s->read_fd);
	if (s->read_fd >= 0) {
		close(s->read_fd);
		s->read_fd = -1;
	}
	if (!s->started)
		return 0;
	pthread_join(s->thread, NULL);
	s->started = false;
	if (s->rc < 0 && !consumer_failed) {
		*err = s->err;
		return -1;
	}
	return consumer_failed ? -1 : 0;
}
