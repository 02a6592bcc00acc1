/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * deb-recompress.c - re-encode the control and data members of a .deb,
 * keeping the tar bytes exactly
 */
#include "config.h"

#include <stdio.h>

#include "lib/ar.h"
#include "lib/deb-encoder.h"
#include "lib/deb-member.h"
#include "lib/deb-recompress.h"
#include "lib/deb-write.h"

struct progress {
	const struct zd_recompress_opts *o;
	const char *member;
};

static void
on_progress(void *ctx, uint64_t fed)
{
	const struct progress *pr = ctx;

	pr->o->progress(pr->o->progress_ctx, pr->member, fed);
}

/* Decodes m straight into the encoder, whose output goes straight into
 * out as member base + the codec's extension. */
static int
recode(const struct zd_deb_member *m, const char *base,
       const struct zd_recompress_opts *o, const struct zd_comp_params *cp,
       struct zd_debout *out,
       uint64_t *tar_bytes, uint64_t *out_bytes, struct zd_error *err)
{
	struct progress pr = { o, base };
	struct zd_encoder *e;
	struct zd_sink sink;
	char name[ZD_AR_NAME_MAX + 2];
	uint64_t off, in_size;
	int rc = -1;

	/* the tar's size first: the indexed layout's cuts are balanced
	 * over it (zseg-cut.h) */
	if (zd_deb_member_size(m, o->dec, &in_size, err) < 0)
		return -1;
	if (zd_deb_write_begin(out, err) < 0)
		return -1;
	e = zd_deb_encoder_new(cp, out->fd, in_size <= INT64_MAX ?
	                       (int64_t)in_size : -1, err);
	if (e == NULL)
		return -1;
	sink.write = zd_deb_encoder_write;
	sink.ctx = e;
	sink.pwrite = NULL;
	sink.trywrite = NULL;
	if (o->progress != NULL) {
		zd_deb_encoder_on_progress(e, on_progress, &pr);
		o->progress(o->progress_ctx, base, 0);
	}
	if (zd_deb_member_decode(m, o->dec, &sink, err) < 0 ||
	    zd_deb_encoder_finish(e, &off, out_bytes, tar_bytes, err) < 0)
		goto out;
	snprintf(name, sizeof(name), "%s%s", base,
	         zd_codec_get(cp->type)->ext);
	rc = zd_deb_write_end(out, name, off, *out_bytes, err);
out:
	zd_deb_encoder_free(e);
	return rc;
}

int
zd_deb_recompress(const struct zd_deb *deb, const char *out_path,
                  const struct zd_recompress_opts *o,
                  struct zd_recompress_result *r, struct zd_error *err)
{
	struct zd_recompress_result res = { { 0, 0 }, { 0, 0 } };
	struct zd_debout out = { .fd = -1 };
	struct zd_comp_params ctl;
	int rc = -1;

	if (o->control != NULL)
		ctl = *o->control;
	else
		zd_deb_encoder_control_params(o->comp, &ctl);
	if (zd_deb_write_open(&out, out_path, deb->members[0].mtime,
	                   o->durable, err) < 0 ||
	    recode(&deb->control, "control.tar", o, &ctl, &out,
	           &res.tar_bytes[0], &res.out_bytes[0], err) < 0 ||
	    recode(&deb->data, "data.tar", o, o->comp, &out, &res.tar_bytes[1],
	           &res.out_bytes[1], err) < 0 ||
	    zd_deb_write_commit(&out, err) < 0)
		goto out;
	if (r != NULL)
		*r = res;
	rc = 0;
out:
	zd_deb_write_abort(&out);
	return rc;
}
