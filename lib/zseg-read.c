/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zseg-read.c - pieces of an indexed frame, and decoding one piece
 *
 * doc/zstd-indexed-layout.md, "The index" and "What the decoder does": a
 * segment is decoded together with the reset pair after it (B marked
 * last), under a header declaring the outer window, so that it yields all
 * of its bytes on its own.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>
#include <zstd_errors.h>

#include "lib/zseg-read.h"

enum { SEG_HDR = 6 };

int
zd_zseg_pieces_from_index(const struct zd_region *in,
                          const struct zd_zstd_frame_info *outer,
                          const struct zd_zseg_index *idx,
                          struct zd_zseg_piece **pieces, size_t *n,
                          struct zd_error *err)
{
	struct zd_zseg_piece *pc;
	uint64_t pos = outer->off + outer->hdr.header_size;

	pc = calloc(idx->nrec, sizeof(*pc));
	if (pc == NULL)
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	for (size_t i = 0; i < idx->nrec; i++) {
		const struct zd_zseg_record *r = &idx->rec[i];

		pc[i].off = pos;
		pc[i].csize = r->csize;
		pc[i].bound = r->usize;
		pc[i].usize = r->usize;
		pc[i].hash = r->hash;
		pc[i].nseg = r->nseg;
		pc[i].exact = true;
		pc[i].segment = true;
		pc[i].reset_tail = i + 1 < idx->nrec;
		if (pc[i].reset_tail) {
			unsigned char b[ZD_ZSEG_RESET_SIZE];

			if (zd_region_read(in, b, sizeof(b),
			                   pos + r->csize - sizeof(b),
			                   err) < 0)
				goto fail;
			if (memcmp(b, zd_zseg_reset, sizeof(b)) != 0) {
				zd_err(err, ZD_E_FORMAT, "index record %zu "
				       "does not end at a reset pair", i);
				goto fail;
			}
		}
		pos += r->csize;
	}
	*pieces = pc;
	*n = idx->nrec;
	return 0;
fail:
	free(pc);
	return -1;
}

struct walk {
	const struct zd_region *in;
	uint64_t block_max;
	struct zd_zseg_piece *pc;
	size_t n, cap;
	uint64_t start;		/* current piece's first byte */
	uint64_t bound;		/* current piece's bound so far */
	uint64_t skip_to;	/* blocks before this are in a reset pair */
};

static int
walk_push(struct walk *w, uint64_t end, bool reset_tail,
          struct zd_error *err)
{
	struct zd_zseg_piece *p;

	if (w->n == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 64;

		p = realloc(w->pc, cap * sizeof(*p));
		if (p == NULL)
			return zd_err(err, ZD_E_NOMEM, "out of memory");
		w->pc = p;
		w->cap = cap;
	}
	p = &w->pc[w->n++];
	memset(p, 0, sizeof(*p));
	p->off = w->start;
	p->csize = end - w->start;
	p->bound = w->bound;
	p->nseg = 1;
	p->segment = true;
	p->reset_tail = reset_tail;
	w->start = end;
	w->bound = 0;
	return 0;
}

static int
walk_block(void *ctx, uint64_t off, const struct zd_zstd_block *b,
           struct zd_error *err)
{
	struct walk *w = ctx;
	unsigned char r[ZD_ZSEG_RESET_SIZE];

	if (off < w->skip_to)
		return 0;	/* block B of a reset pair */
	/* The reset pair decodes to 9 bytes. */
	if (!b->last && off - w->start >= 3 &&
	    b->type == ZD_ZSTD_BLOCK_COMPRESSED && b->size == 7 &&
	    w->in->len - off >= sizeof(r)) {
		if (zd_region_read(w->in, r, sizeof(r), off, err) < 0)
			return -1;
		if (memcmp(r, zd_zseg_reset, sizeof(r)) == 0) {
			w->bound += 9;
			w->skip_to = off + sizeof(r);
			return walk_push(w, off + sizeof(r), true, err);
		}
	}
	if (b->type == ZD_ZSTD_BLOCK_COMPRESSED)
		w->bound += w->block_max;
	else
		w->bound += b->size;
	if (b->last)
		return walk_push(w, off + 3 + b->csize, false, err);
	return 0;
}

int
zd_zseg_pieces_walk(const struct zd_region *in,
                    const struct zd_zstd_frame_info *outer,
                    struct zd_zseg_piece **pieces, size_t *n,
                    struct zd_error *err)
{
	struct zd_zstd_frame_info fi;
	struct walk w;

	memset(&w, 0, sizeof(w));
	w.in = in;
	w.block_max = zd_zstd_block_max(&outer->hdr);
	w.start = outer->off + outer->hdr.header_size;
	if (zd_zstd_frame_walk(in, outer->off, NULL, &fi, walk_block, &w,
	                       err) < 0) {
		free(w.pc);
		return -1;
	}
	*pieces = w.pc;
	*n = w.n;
	return 0;
}

int
zd_zseg_piece_decode(const struct zd_region *in, unsigned window_log,
                     const struct zd_zseg_piece *pc, ZSTD_DCtx *dctx,
                     unsigned char **cbuf, size_t *ccap,
                     unsigned char *out, size_t cap, size_t *len,
                     struct zd_error *err)
{
	size_t hl = pc->segment ? SEG_HDR : 0, need, rc;

	if (pc->csize > SIZE_MAX - SEG_HDR)
		return zd_err(err, ZD_E_LIMIT, "piece too large");
	need = hl + (size_t)pc->csize;
	if (*ccap < need || *cbuf == NULL) {
		free(*cbuf);
		*cbuf = malloc(need);
		*ccap = *cbuf != NULL ? need : 0;
		if (*cbuf == NULL)
			return zd_err(err, ZD_E_NOMEM, "out of memory");
	}
	if (pc->segment) {
		unsigned char h[ZD_ZSTD_FHDR_MAX];

		zd_zstd_fhdr_write(h, window_log, false, 0, false);
		memcpy(*cbuf, h, SEG_HDR);
	}
	if (zd_region_read(in, *cbuf + hl, (size_t)pc->csize, pc->off,
	                   err) < 0)
		return -1;
	if (pc->reset_tail) {
		unsigned char *b = *cbuf + need - ZD_ZSEG_RESET_SIZE / 2;

		if (pc->csize < ZD_ZSEG_RESET_SIZE ||
		    memcmp(*cbuf + need - ZD_ZSEG_RESET_SIZE, zd_zseg_reset,
		           ZD_ZSEG_RESET_SIZE) != 0)
			return zd_err(err, ZD_E_FORMAT, "missing reset blocks");
		b[0] |= 1;	/* block B becomes the last block */
	}
	rc = ZSTD_decompressDCtx(dctx, out, cap, *cbuf, need);
	if (ZSTD_isError(rc)) {
		if (ZSTD_getErrorCode(rc) == ZSTD_error_checksum_wrong)
			return zd_err(err, ZD_E_CHECKSUM, "checksum mismatch");
		return zd_err(err, ZD_E_FORMAT, "corrupt zstd data: %s",
		              ZSTD_getErrorName(rc));
	}
	if (pc->exact) {
		if (rc != pc->usize)
			return zd_err(err, ZD_E_CHECKSUM, "decoded size %zu "
			              "does not match the index (%ju)", rc,
			              (uintmax_t)pc->usize);
		if (XXH64(out, rc, 0) != pc->hash)
			return zd_err(err, ZD_E_CHECKSUM, "decoded bytes do "
			              "not match the index hash");
	}
	*len = rc;
	return 0;
}
