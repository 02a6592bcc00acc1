/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * deb-encoder.c - a member's compressor, fed while its tar stream is made
 */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

#include "lib/deb-encoder.h"
#include "lib/fdio.h"
#include "lib/zseg-write.h"

struct zd_encoder {
	const struct zd_comp_params *p;
	int out_fd;			/* the caller's */
	uint64_t start;			/* out_fd's offset when made */
	int spool_fd;			/* -1 when streaming or storing */
	struct zd_zseg_writer *zw;	/* zstd's segmented layouts */
	struct zd_cstream *cs;		/* gzip, xz */
	uint64_t fed;
	zd_encoder_progress_fn progress;
	void *progress_ctx;
	uint64_t told;			/* fed at the last progress call */
};

static bool
streams(const struct zd_comp_params *p)
{
	return p->type == ZD_COMP_ZSTD &&
	       (p->layout == ZD_LAYOUT_INDEXED ||
	        p->layout == ZD_LAYOUT_FRAMES ||
	        p->layout == ZD_LAYOUT_PZSTD);
}

struct zd_encoder *
zd_deb_encoder_new(const struct zd_comp_params *p, int out_fd,
                   int64_t in_size, struct zd_error *err)
{
	struct zd_encoder *e;
	off_t here;

	if (zd_comp_params_check(p, err) < 0)
		return NULL;
	e = calloc(1, sizeof(*e));
	if (e == NULL) {
		zd_err(err, ZD_E_NOMEM, "out of memory");
		return NULL;
	}
	e->p = p;
	e->spool_fd = -1;
	e->out_fd = out_fd;
	here = lseek(out_fd, 0, SEEK_CUR);
	if (here < 0) {
		zd_err_errno(err, ZD_E_IO, "cannot seek the output");
		goto fail;
	}
	e->start = (uint64_t)here;
	if (streams(p)) {
		e->zw = zd_zseg_writer_new(p, e->out_fd, in_size, err);
		if (e->zw == NULL)
			goto fail;
	} else if (zd_codec_stream_supported(p)) {
		e->cs = zd_codec_stream_new(p, e->out_fd, err);
		if (e->cs == NULL)
			goto fail;
	} else if (p->type != ZD_COMP_NONE) {
		e->spool_fd = zd_tmpfile(err);
		if (e->spool_fd < 0)
			goto fail;
	}
	return e;
fail:
	zd_deb_encoder_free(e);
	return NULL;
}

void
zd_deb_encoder_on_progress(struct zd_encoder *e, zd_encoder_progress_fn fn,
                       void *ctx)
{
	e->progress = fn;
	e->progress_ctx = ctx;
}

int
zd_deb_encoder_write(void *ctx, const void *buf, size_t len,
                 struct zd_error *err)
{
	struct zd_encoder *e = ctx;

	e->fed += len;
	if (e->progress != NULL &&
	    e->fed - e->told >= ZD_ENCODER_PROGRESS_EVERY) {
		e->progress(e->progress_ctx, e->fed);
		e->told = e->fed;
	}
	if (e->zw != NULL)
		return zd_zseg_writer_write(e->zw, buf, len, err);
	if (e->cs != NULL)
		return zd_codec_stream_write(e->cs, buf, len, err);
	/* uncompressed, the bytes are the member: no spool to copy */
	return zd_write_all(e->spool_fd >= 0 ? e->spool_fd : e->out_fd, buf,
	                    len, err);
}

static bool
multi_frame(const struct zd_comp_params *p)
{
	return p->type == ZD_COMP_ZSTD && (p->layout == ZD_LAYOUT_FRAMES ||
	                                   p->layout == ZD_LAYOUT_PZSTD);
}

/* Frames are cut where a reader that stops at the end of one fails
 * (zseg-write.h), so that is what stock dpkg does: say so. */
static void
warn_frames(const struct zd_comp_params *p, uint64_t frames)
{
	char msg[320];

	if (p->warn == NULL || !multi_frame(p) || frames < 2)
		return;
	snprintf(msg, sizeof(msg), "a member in %ju zstd frames (layout "
	         "%s): stock dpkg reads only the first one, so it fails to "
	         "install the package (it never installs a part of it); "
	         "'zdeb integrate' makes it installable", (uintmax_t)frames,
	         zd_layout_name(p->layout));
	p->warn(p->warn_ctx, msg);
}

int
zd_deb_encoder_finish(struct zd_encoder *e, uint64_t *off, uint64_t *size,
                  uint64_t *in_size, struct zd_error *err)
{
	off_t end;

	if (e->zw != NULL) {
		if (zd_zseg_writer_finish(e->zw, off, size, err) < 0)
			return -1;
		warn_frames(e->p, zd_zseg_writer_frames(e->zw));
	} else {
		if (e->cs != NULL && zd_codec_stream_finish(e->cs, err) < 0)
			return -1;
		if (e->spool_fd >= 0 &&
		    zd_compress(e->p, e->spool_fd, e->fed, e->out_fd, err) < 0)
			return -1;
		end = lseek(e->out_fd, 0, SEEK_CUR);
		if (end < 0)
			return zd_err_errno(err, ZD_E_IO, "cannot seek the "
			                    "output");
		*off = e->start;
		*size = (uint64_t)end - e->start;
	}
	if (in_size != NULL)
		*in_size = e->fed;
	return 0;
}

void
zd_deb_encoder_free(struct zd_encoder *e)
{
	if (e == NULL)
		return;
	zd_zseg_writer_free(e->zw);
	zd_codec_stream_free(e->cs);
	if (e->spool_fd >= 0)
		close(e->spool_fd);
	free(e);
}

void
zd_deb_encoder_control_params(const struct zd_comp_params *p,
                          struct zd_comp_params *ctl)
{
	*ctl = *p;
	if (multi_frame(p))
		ctl->layout = ZD_LAYOUT_SINGLE;
}
