/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * codec-stream.c - compressors fed a buffer at a time (codec.h,
 * zd_cstream), and the file-to-fd compress() of the codecs that have one
 */
#include "config.h"

#include <stdlib.h>

#include "lib/codec-impl.h"

struct zd_cstream {
	const struct zd_cstream_ops *ops;
	void *state;
	int out_fd;
	unsigned char *obuf;		/* ZD_CODEC_CHUNK bytes */
};

static const struct zd_cstream_ops *
stream_ops(const struct zd_comp_params *p)
{
	const struct zd_codec *c = zd_codec_get(p->type);

	return c != NULL ? c->stream : NULL;
}

bool
zd_codec_stream_supported(const struct zd_comp_params *p)
{
	return stream_ops(p) != NULL;
}

struct zd_cstream *
zd_codec_stream_new(const struct zd_comp_params *p, int out_fd,
               struct zd_error *err)
{
	const struct zd_cstream_ops *ops;
	struct zd_cstream *s;

	if (zd_comp_params_check(p, err) < 0)
		return NULL;
	ops = stream_ops(p);
	if (ops == NULL) {
		zd_err(err, ZD_E_INTERNAL, "%s cannot compress a stream",
		       zd_codec_get(p->type)->name);
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (s == NULL || (s->obuf = malloc(ZD_CODEC_CHUNK)) == NULL) {
		free(s);
		zd_err(err, ZD_E_NOMEM, "out of memory");
		return NULL;
	}
	s->ops = ops;
	s->out_fd = out_fd;
	if (s->ops->init(&s->state, p, err) < 0) {
		free(s->obuf);
		free(s);
		return NULL;
	}
	return s;
}

int
zd_codec_stream_write(void *ctx, const void *buf, size_t len,
                 struct zd_error *err)
{
	struct zd_cstream *s = ctx;
	const unsigned char *b = buf;

	while (len > 0) {
		size_t n = len < ZD_CODEC_CHUNK ? len : ZD_CODEC_CHUNK;

		if (s->ops->code(s->state, b, n, false, s->obuf, s->out_fd,
		                 err) < 0)
			return -1;
		b += n;
		len -= n;
	}
	return 0;
}

int
zd_codec_stream_finish(struct zd_cstream *s, struct zd_error *err)
{
	return s->ops->code(s->state, NULL, 0, true, s->obuf, s->out_fd,
	                    err);
}

void
zd_codec_stream_free(struct zd_cstream *s)
{
	if (s == NULL)
		return;
	s->ops->end(s->state);
	free(s->obuf);
	free(s);
}

int
zd_codec_stream_compress_file(const struct zd_comp_params *p, int in_fd,
                         uint64_t in_size, int out_fd, struct zd_error *err)
{
	struct zd_cstream *s = zd_codec_stream_new(p, out_fd, err);
	unsigned char *ibuf = malloc(ZD_CODEC_CHUNK);
	uint64_t off = 0;
	int rc = -1;

	if (s == NULL || ibuf == NULL) {
		if (s != NULL)
			zd_err(err, ZD_E_NOMEM, "out of memory");
		goto out;
	}
	while (off < in_size) {
		size_t n = in_size - off > ZD_CODEC_CHUNK ? ZD_CODEC_CHUNK :
		           (size_t)(in_size - off);

		if (zd_pread_all(in_fd, ibuf, n, off, err) < 0 ||
		    zd_codec_stream_write(s, ibuf, n, err) < 0)
			goto out;
		off += n;
	}
	rc = zd_codec_stream_finish(s, err);
out:
	zd_codec_stream_free(s);
	free(ibuf);
	return rc;
}
