/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zseg-layout.c - which zstd layout a member has: its frames listed by
 * walking headers, our index found and checked, nothing decoded
 *
 * What zdeb info shows (zd_zstd_describe), and what zseg-decode.c plans
 * its decoding from.
 */
#include "config.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/endian.h"
#include "lib/zseg-layout.h"
#include "lib/zseg-read.h"

#define INDEX_READ_MAX (64u << 10)	/* larger index frames: damaged */

void
zd_zseg_layout_free(struct zd_zseg_frames *fl)
{
	free(fl->f);
	fl->f = NULL;
	fl->n = fl->cap = fl->nzstd = 0;
}

int
zd_zseg_layout_list(const struct zd_region *in, const char *name,
                    struct zd_zseg_frames *fl, struct zd_error *err)
{
	uint64_t off = 0;

	memset(fl, 0, sizeof(*fl));
	do {
		struct zd_zstd_frame_info *fi;

		if (fl->n == fl->cap) {
			size_t cap = fl->cap ? 2 * fl->cap : 16;

			fi = reallocarray(fl->f, cap, sizeof(*fi));
			if (fi == NULL) {
				zd_zseg_layout_free(fl);
				return zd_err(err, ZD_E_NOMEM, "out of memory");
			}
			fl->f = fi;
			fl->cap = cap;
		}
		fi = &fl->f[fl->n];
		if (zd_zstd_frame_walk(in, off, name, fi, NULL, NULL,
		                       err) < 0) {
			zd_zseg_layout_free(fl);
			return -1;
		}
		fl->n++;
		if (!fi->skippable)
			fl->nzstd++;
		off += fi->size;
	} while (off < in->len);
	if (fl->nzstd == 0) {
		zd_zseg_layout_free(fl);
		return zd_err(err, ZD_E_FORMAT, "no zstd frame in '%s'", name);
	}
	return 0;
}

static const struct zd_zstd_frame_info *
first_zstd(const struct zd_zseg_frames *fl, size_t *at)
{
	for (size_t i = 0; i < fl->n; i++) {
		if (!fl->f[i].skippable) {
			*at = i;
			return &fl->f[i];
		}
	}
	return NULL;
}

/* One zstd frame, our index right after it, then nothing but skippables. */
bool
zd_zseg_layout_is_indexed(const struct zd_zseg_frames *fl, size_t *at)
{
	return fl->nzstd == 1 && first_zstd(fl, at) != NULL &&
	       *at + 1 < fl->n && fl->f[*at + 1].skippable &&
	       fl->f[*at + 1].magic == ZD_ZSEG_INDEX_MAGIC;
}

/* pzstd's 12-byte skippable header right before frame i. */
static bool
pzstd_header_before(const struct zd_zseg_frames *fl, size_t i)
{
	return i > 0 && fl->f[i - 1].magic == ZD_ZSTD_SKIP_MAGIC &&
	       fl->f[i - 1].size == 12;
}

bool
zd_zseg_layout_is_pzstd(const struct zd_zseg_frames *fl)
{
	size_t headers = 0, seen = 0;

	for (size_t i = 0; i < fl->n; i++) {
		if (fl->f[i].skippable)
			continue;
		if (pzstd_header_before(fl, i))
			headers++;
		else if (seen > 0)
			return false;
		seen++;
	}
	return headers > 0;
}

int
zd_zseg_layout_read_index(const struct zd_region *in,
                          const struct zd_zstd_frame_info *outer,
                          const struct zd_zstd_frame_info *fi,
                          struct zd_zseg_index *idx, struct zd_error *err)
{
	unsigned char *buf;
	int rc;

	memset(idx, 0, sizeof(*idx));
	if (fi->size > INDEX_READ_MAX)
		return zd_err(err, ZD_E_FORMAT, "index frame too large");
	buf = malloc((size_t)fi->size);
	if (buf == NULL)
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	rc = zd_region_read(in, buf, (size_t)fi->size, fi->off, err);
	if (rc == 0)
		rc = zd_zseg_index_parse(buf, (size_t)fi->size, idx, err);
	free(buf);
	if (rc == 0 && zd_zseg_index_check_frame(idx, outer, err) < 0) {
		zd_zseg_index_free(idx);
		rc = -1;
	}
	return rc;
}

/* An indexed member found from its tail. */
static void
describe_indexed(const struct zd_zstd_frame_info *outer,
                 const struct zd_zstd_frame_info *ixf,
                 const struct zd_zseg_index *idx, struct zd_zstd_info *info)
{
	info->layout = ZD_LAYOUT_INDEXED;
	info->window_log = zd_log2_ceil(outer->hdr.window_size);
	info->content_size = outer->hdr.content_size <= INT64_MAX ?
	                     (int64_t)outer->hdr.content_size : -1;
	info->segments = idx->segments;
	info->index_size = ixf->size;
}

/* Frames or segments: segments are counted from the index or the walk. */
int
zd_zstd_describe(const struct zd_region *in, struct zd_zstd_info *info,
                 struct zd_error *err)
{
	struct zd_zseg_frames fl;
	struct zd_zstd_frame_info fl_outer, ixf;
	struct zd_zseg_index idx;
	struct zd_zseg_piece *pc = NULL;
	size_t at = 0, n = 0;
	uint64_t wmax = 0, sum = 0;
	bool known = true;

	memset(info, 0, sizeof(*info));
	switch (zd_zseg_index_at_tail(in, &fl_outer, &ixf, &idx, err)) {
	case 1:
		describe_indexed(&fl_outer, &ixf, &idx, info);
		zd_zseg_index_free(&idx);
		return 0;
	case -1:
		return -1;
	}
	if (zd_zseg_layout_list(in, NULL, &fl, err) < 0)
		return -1;
	for (size_t i = 0; i < fl.n; i++) {
		const struct zd_zstd_frame_info *f = &fl.f[i];

		if (f->skippable)
			continue;
		if (f->hdr.window_size > wmax)
			wmax = f->hdr.window_size;
		if (!f->hdr.has_content_size ||
		    __builtin_add_overflow(sum, f->hdr.content_size, &sum))
			known = false;
	}
	info->window_log = zd_log2_ceil(wmax);
	info->content_size = known && sum <= INT64_MAX ? (int64_t)sum : -1;
	info->segments = fl.nzstd;
	if (zd_zseg_layout_is_indexed(&fl, &at)) {
		info->layout = ZD_LAYOUT_INDEXED;
		info->index_size = fl.f[at + 1].size;
		if (zd_zseg_layout_read_index(in, &fl.f[at], &fl.f[at + 1],
		                              &idx, NULL) == 0) {
			info->segments = idx.segments;
			zd_zseg_index_free(&idx);
		} else if (zd_zseg_pieces_walk(in, &fl.f[at], &pc, &n,
		                               NULL) == 0) {
			info->segments = n;
			free(pc);
		}
	} else if (zd_zseg_layout_is_pzstd(&fl)) {
		/* Even one pzstd frame: its leading skippable header is what
		 * stock dpkg cannot read. */
		info->layout = ZD_LAYOUT_PZSTD;
	} else {
		info->layout = fl.nzstd == 1 ? ZD_LAYOUT_SINGLE :
		               ZD_LAYOUT_FRAMES;
	}
	zd_zseg_layout_free(&fl);
	return 0;
}
