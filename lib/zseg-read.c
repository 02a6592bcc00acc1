/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zseg-read.c - pieces of an indexed frame, and decoding one piece
 *
 * zdeb-format(5), "The index" and "Reading": a segment is decoded
 * together with the reset after it (its last block marked last), under a
 * header declaring the outer window, so that it yields all of its bytes
 * on its own.
 */
#include "config.h"

/* ZSTD_d_stableOutBuffer (experimental in 1.5; a libzstd that refuses it
 * decodes every piece by streaming, see zd_zseg_piece_stream) */
#define ZSTD_STATIC_LINKING_ONLY

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>
#include <zstd_errors.h>

#include "lib/endian.h"
#include "lib/zseg-read.h"
#include "lib/zseg-reset.h"

enum { SEG_HDR = 6 };

/* The outer frame [0, end) of in: its header parsed, nothing walked. */
static int
outer_at(const struct zd_region *in, uint64_t end,
         struct zd_zstd_frame_info *outer, struct zd_error *err)
{
	unsigned char b[ZD_ZSTD_FHDR_MAX];
	size_t n = end < sizeof(b) ? (size_t)end : sizeof(b);
	int rc;

	memset(outer, 0, sizeof(*outer));
	if (zd_region_read(in, b, n, 0, err) < 0)
		return -1;
	rc = zd_zstd_fhdr_parse(b, n, &outer->hdr, NULL);
	if (rc != 0 || end < outer->hdr.header_size + 4)
		return 0;
	outer->size = end;
	outer->decoded_max = outer->hdr.content_size;
	return 1;
}

/* Parses the candidate index frame at buf[at, len), which ends the region
 * at offset base + len, and checks it against the frame before it. */
static int
try_tail_index(const struct zd_region *in, const unsigned char *buf,
               size_t len, size_t at, uint64_t base,
               struct zd_zstd_frame_info *outer,
               struct zd_zstd_frame_info *ixf, struct zd_zseg_index *idx,
               struct zd_error *err)
{
	int rc;

	if (zd_zseg_index_parse(buf + at, len - at, idx, NULL) < 0)
		return 0;
	rc = outer_at(in, base + at, outer, err);
	if (rc == 1 && zd_zseg_index_check_frame(idx, outer, NULL) < 0)
		rc = 0;
	if (rc != 1) {
		zd_zseg_index_free(idx);
		return rc;
	}
	memset(ixf, 0, sizeof(*ixf));
	ixf->off = base + at;
	ixf->size = len - at;
	ixf->skippable = true;
	ixf->magic = ZD_ZSEG_INDEX_MAGIC;
	return 1;
}

int
zd_zseg_index_at_tail(const struct zd_region *in,
                      struct zd_zstd_frame_info *outer,
                      struct zd_zstd_frame_info *ixf,
                      struct zd_zseg_index *idx, struct zd_error *err)
{
	unsigned char *buf;
	size_t len = in->len < ZD_ZSEG_INDEX_MAX ? (size_t)in->len :
	             ZD_ZSEG_INDEX_MAX;
	uint64_t base = in->len - len;
	int rc = 0;

	memset(idx, 0, sizeof(*idx));
	if (len < ZD_ZSTD_SKIP_HDR)
		return 0;
	buf = malloc(len);
	if (buf == NULL)
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	if (zd_region_read(in, buf, len, base, err) < 0) {
		free(buf);
		return -1;
	}
	/* The magic may also occur inside the payload (in a hash): every
	 * place whose size field reaches exactly the end is tried. */
	for (size_t at = len - ZD_ZSTD_SKIP_HDR + 1; rc == 0 && at-- > 0;) {
		if (zd_le32(buf + at) == ZD_ZSEG_INDEX_MAGIC &&
		    zd_le32(buf + at + 4) == len - at - ZD_ZSTD_SKIP_HDR)
			rc = try_tail_index(in, buf, len, at, base, outer, ixf,
			                    idx, err);
	}
	free(buf);
	return rc;
}

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
			int kind;

			if (zd_region_read(in, b, sizeof(b),
			                   pos + r->csize - sizeof(b),
			                   err) < 0)
				goto fail;
			/* version 1 has the pair alone (zseg-index.h) */
			kind = zd_zseg_reset_tail(b, sizeof(b));
			if (kind == 0 || (kind == 1 && idx->version < 2)) {
				zd_err(err, ZD_E_FORMAT, "index record %zu "
				       "does not end at a reset", i);
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

		p = reallocarray(w->pc, cap, sizeof(*p));
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
	size_t n;

	if (off < w->skip_to)
		return 0;	/* block B of a reset pair */
	/* A segment ends in the reset pair, whose two 7-byte blocks make
	 * 9 bytes, or in a reset with literals, whose last block F (7
	 * bytes) makes 3 (zseg-reset.h). */
	if (!b->last && off - w->start >= 3 &&
	    b->type == ZD_ZSTD_BLOCK_COMPRESSED && b->size == 7) {
		n = w->in->len - off < sizeof(r) ? (size_t)(w->in->len - off) :
		    sizeof(r);
		if (zd_region_read(w->in, r, n, off, err) < 0)
			return -1;
		if (n == sizeof(r) &&
		    memcmp(r, zd_zseg_reset, sizeof(r)) == 0) {
			w->bound += 9;
			w->skip_to = off + sizeof(r);
			return walk_push(w, off + sizeof(r), true, err);
		}
		if (n >= ZD_ZSEG_RESET_LAST &&
		    memcmp(r, zd_zseg_reset_last, ZD_ZSEG_RESET_LAST) == 0) {
			w->bound += 3;
			return walk_push(w, off + ZD_ZSEG_RESET_LAST, true,
			                 err);
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

enum { IN_CHUNK = 1 << 20 };

/* The piece's bytes, read IN_CHUNK at a time into a buffer that stays in
 * the cache: a rebuilt frame header first for a segment, then the region,
 * with the last block of the reset (B or F) marked last. */
struct feed {
	const struct zd_region *in;
	uint64_t off, end;	/* region bytes not read yet */
	unsigned char *buf;
	size_t hl;		/* header bytes still to hand out */
	unsigned wlog;
	uint64_t flip;		/* region offset of B's or F's header, or
				 * none */
	/* with a reset: the walk of the piece's block headers */
	bool walk;
	uint64_t blk;		/* region offset of the next header */
	uint64_t last[3];	/* the last three headers, the newest last */
};

/*
 * Walks the block headers in b, the n region bytes at f->off (a header
 * that straddles their end is read on its own).  The decoder parses the
 * same headers; the walk keeps where the last three are, for
 * reset_check().
 */
static int
feed_walk(struct feed *f, const unsigned char *b, size_t n,
          struct zd_error *err)
{
	uint64_t lim = f->off + n;

	while (f->blk < lim) {
		unsigned char h[3];
		const unsigned char *p = h;
		struct zd_zstd_block bl;

		if (f->blk + 3 <= lim)
			p = b + (f->blk - f->off);
		else if (f->blk + 3 > f->end)
			return zd_err(err, ZD_E_FORMAT, "corrupt zstd data: a "
			              "block header runs past the piece");
		else if (zd_region_read(f->in, h, 3, f->blk, err) < 0)
			return -1;
		if (zd_zstd_block_parse(p, ZD_ZSTD_BLOCK_MAX, &bl, err) < 0) {
			zd_err_prefix(err, "corrupt zstd data");
			return -1;
		}
		f->last[0] = f->last[1];
		f->last[1] = f->last[2];
		f->last[2] = f->blk;
		f->blk += 3 + (uint64_t)bl.csize;
	}
	return 0;
}

/*
 * A piece decoded whole ends in a reset only if its blocks, as the walk
 * found them, end in one: B after A, or F after R4 after R8.  Bytes that
 * merely end like one (inside a larger block, or F without the blocks
 * before it) would leave the next segment's repeat offsets as they were,
 * which it, decoded on its own, does not see.
 */
static int
reset_check(const struct feed *f, struct zd_error *err)
{
	unsigned char b[ZD_ZSEG_RESET_MAX];
	uint64_t e = f->end - ZD_ZSEG_RESET_LAST, start;
	size_t l8, l4;

	if (f->blk != f->end || f->last[2] != e || f->last[1] == UINT64_MAX)
		goto bad;
	/* the last three blocks if a reset with literals could be them,
	 * else the last two; one read either way */
	start = f->last[0] != UINT64_MAX &&
	        f->end - f->last[0] <= sizeof(b) ? f->last[0] : f->last[1];
	if (f->end - start > sizeof(b))
		goto bad;
	if (zd_region_read(f->in, b, (size_t)(f->end - start), start, err) < 0)
		return -1;
	if (e - f->last[1] == ZD_ZSEG_RESET_SIZE - ZD_ZSEG_RESET_LAST &&
	    memcmp(b + (f->last[1] - start), zd_zseg_reset,
	           ZD_ZSEG_RESET_SIZE) == 0)
		return 0;	/* A, B */
	if (start != f->last[0])
		goto bad;
	l8 = (size_t)(f->last[1] - f->last[0]);
	l4 = (size_t)(e - f->last[1]);
	if (memcmp(b + l8 + l4, zd_zseg_reset_last, ZD_ZSEG_RESET_LAST) == 0 &&
	    zd_zseg_reset_block_ok(b, l8, 8) &&
	    zd_zseg_reset_block_ok(b + l8, l4, 4))
		return 0;	/* R8, R4, F */
bad:
	return zd_err(err, ZD_E_FORMAT, "corrupt zstd data: the piece's "
	              "blocks do not end in a reset");
}

static bool
feed_done(const struct feed *f)
{
	return f->hl == 0 && f->off == f->end;
}

static int
feed_next(struct feed *f, ZSTD_inBuffer *ib, struct zd_error *err)
{
	size_t at = 0, n;

	if (f->hl > 0) {
		zd_zstd_fhdr_write(f->buf, f->wlog, false, 0, false);
		at = f->hl;
		f->hl = 0;
	}
	n = IN_CHUNK - at;
	if (n > f->end - f->off)
		n = (size_t)(f->end - f->off);
	if (zd_region_read(f->in, f->buf + at, n, f->off, err) < 0)
		return -1;
	if (f->walk && feed_walk(f, f->buf + at, n, err) < 0)
		return -1;
	if (f->flip >= f->off && f->flip - f->off < n)
		f->buf[at + (f->flip - f->off)] |= 1;	/* B or F is last */
	f->off += n;
	ib->src = f->buf;
	ib->size = at + n;
	ib->pos = 0;
	return 0;
}

/* The piece's name and offset are prefixed by the caller. */
static int
zstd_fail(size_t rc, struct zd_error *err)
{
	enum zd_errc c = zd_zstd_errc(rc);

	if (c == ZD_E_CHECKSUM)
		return zd_err(err, c, "checksum mismatch");
	return zd_err(err, c, "corrupt zstd data: %s", ZSTD_getErrorName(rc));
}

/* Hands the output buffer's bytes on, hashed while still in the cache. */
static int
out_put(const struct zd_zseg_out *out, ZSTD_outBuffer *ob,
        XXH64_state_t *hash, uint64_t *produced, uint64_t limit,
        struct zd_error *err)
{
	if (ob->pos > limit - *produced) {
		out->put(out->ctx, 0);
		ob->dst = NULL;
		return zd_err(err, ZD_E_FORMAT, "decodes to more than the "
		              "%ju bytes %s", (uintmax_t)limit,
		              hash != NULL ? "the index lists" :
		              "its blocks can hold");
	}
	if (hash != NULL)
		XXH64_update(hash, ob->dst, ob->pos);
	*produced += ob->pos;
	out->put(out->ctx, ob->pos);
	ob->dst = NULL;
	return 0;
}

static int
stream_piece(ZSTD_DCtx *dctx, struct feed *f, const struct zd_zseg_out *out,
             XXH64_state_t *hash, uint64_t limit, uint64_t *produced,
             struct zd_error *err)
{
	ZSTD_inBuffer ib = { NULL, 0, 0 };
	ZSTD_outBuffer ob = { NULL, 0, 0 };
	size_t rc;

	for (;;) {
		if (ib.pos == ib.size && !feed_done(f) &&
		    feed_next(f, &ib, err) < 0)
			goto fail;
		if (ob.dst == NULL) {
			ob.dst = out->get(out->ctx, &ob.size, err);
			if (ob.dst == NULL)
				return -1;
			ob.pos = 0;
		}
		rc = ZSTD_decompressStream(dctx, &ob, &ib);
		if (ZSTD_isError(rc)) {
			zstd_fail(rc, err);
			goto fail;
		}
		if (rc == 0)
			break;		/* frame done, all flushed */
		if (ob.pos == ob.size) {
			if (out_put(out, &ob, hash, produced, limit, err) < 0)
				return -1;
		} else if (ib.pos == ib.size && feed_done(f)) {
			zd_err(err, ZD_E_FORMAT, "corrupt zstd data: the "
			       "piece ends inside a block");
			goto fail;
		}
	}
	if (out_put(out, &ob, hash, produced, limit, err) < 0)
		return -1;
	if (ib.pos != ib.size || !feed_done(f))
		return zd_err(err, ZD_E_FORMAT, "corrupt zstd data: the frame "
		              "ends before the piece does");
	return 0;
fail:
	if (ob.dst != NULL)
		out->put(out->ctx, 0);
	return -1;
}

/*
 * Input handed to the decoder per call when decoding in place: the output
 * it makes, 2-6 times as much, is hashed and handed on while still in the
 * cache (L2 is 0.5-2 MiB).
 */
enum { WHOLE_STEP = 64 << 10 };

/* A whole exact piece, decoded in place (zd_zseg_out.get_whole). */
static int
whole_piece(ZSTD_DCtx *dctx, struct feed *f, const struct zd_zseg_out *out,
            XXH64_state_t *hash, uint64_t usize, uint64_t *produced,
            struct zd_error *err)
{
	ZSTD_inBuffer ib = { NULL, 0, 0 };
	ZSTD_outBuffer ob;
	size_t rc, handed = 0;
	unsigned char *dst;

	dst = out->get_whole(out->ctx, (size_t)usize, f->end - f->off, err);
	if (dst == NULL)
		return -1;
	ob.dst = dst;
	ob.size = (size_t)usize;
	ob.pos = 0;
	for (;;) {
		ZSTD_inBuffer sl;

		if (ib.pos == ib.size && !feed_done(f) &&
		    feed_next(f, &ib, err) < 0)
			goto fail;
		sl = ib;
		if (sl.size - sl.pos > WHOLE_STEP)
			sl.size = sl.pos + WHOLE_STEP;
		rc = ZSTD_decompressStream(dctx, &ob, &sl);
		ib.pos = sl.pos;
		if (ZSTD_isError(rc) &&
		    ZSTD_getErrorCode(rc) == ZSTD_error_dstSize_tooSmall) {
			zd_err(err, ZD_E_FORMAT, "decodes to more than the %ju "
			       "bytes the index lists", (uintmax_t)usize);
			goto fail;
		}
		if (ZSTD_isError(rc)) {
			zstd_fail(rc, err);
			goto fail;
		}
		if (ob.pos > handed) {
			XXH64_update(hash, dst + handed, ob.pos - handed);
			handed = ob.pos;
			out->progress(out->ctx, handed);
		}
		if (rc == 0)
			break;		/* frame done */
		if (ib.pos == ib.size && feed_done(f)) {
			zd_err(err, ZD_E_FORMAT, "corrupt zstd data: the "
			       "piece ends inside a block");
			goto fail;
		}
	}
	*produced = handed;
	out->put(out->ctx, handed);
	if (ib.pos != ib.size || !feed_done(f))
		return zd_err(err, ZD_E_FORMAT, "corrupt zstd data: the frame "
		              "ends before the piece does");
	return 0;
fail:
	out->put(out->ctx, handed);
	return -1;
}

bool
zd_zseg_piece_whole(const struct zd_zseg_piece *pc, size_t whole_max)
{
	return pc->exact && pc->usize > 0 && pc->usize <= whole_max;
}

int
zd_zseg_piece_stream(const struct zd_region *in, unsigned window_log,
                     const struct zd_zseg_piece *pc, ZSTD_DCtx *dctx,
                     unsigned char **ibuf, const struct zd_zseg_out *out,
                     struct zd_error *err)
{
	struct feed f;
	XXH64_state_t *hash = NULL;
	uint64_t produced = 0, limit = pc->exact ? pc->usize : pc->bound;
	size_t rc;
	int ret;
	bool whole;

	memset(&f, 0, sizeof(f));
	f.in = in;
	f.off = pc->off;
	f.flip = UINT64_MAX;
	f.hl = pc->segment ? SEG_HDR : 0;
	f.wlog = window_log;
	if (__builtin_add_overflow(pc->off, pc->csize, &f.end) ||
	    f.end > in->len)
		return zd_err(err, ZD_E_FORMAT, "piece runs past the end of "
		              "the member");
	if (pc->reset_tail) {
		if (pc->csize < ZD_ZSEG_RESET_SIZE)
			return zd_err(err, ZD_E_FORMAT, "missing reset blocks");
		f.flip = f.end - ZD_ZSEG_RESET_LAST;
		f.walk = true;
		f.blk = pc->off;
		f.last[0] = f.last[1] = f.last[2] = UINT64_MAX;
	}
	if (*ibuf == NULL && (*ibuf = malloc(IN_CHUNK)) == NULL)
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	f.buf = *ibuf;
	rc = ZSTD_DCtx_reset(dctx, ZSTD_reset_session_only);
	if (ZSTD_isError(rc))
		return zstd_fail(rc, err);
	if (pc->exact) {
		hash = XXH64_createState();
		if (hash == NULL)
			return zd_err(err, ZD_E_NOMEM, "out of memory");
		XXH64_reset(hash, 0);
	}
	whole = out->get_whole != NULL &&
	        zd_zseg_piece_whole(pc, out->whole_max) &&
	        !ZSTD_isError(ZSTD_DCtx_setParameter(dctx,
	                                             ZSTD_d_stableOutBuffer, 1));
	if (whole) {
		ret = whole_piece(dctx, &f, out, hash, pc->usize, &produced,
		                  err);
	} else {
		(void)ZSTD_DCtx_setParameter(dctx, ZSTD_d_stableOutBuffer, 0);
		ret = stream_piece(dctx, &f, out, hash, limit, &produced, err);
	}
	if (ret == 0 && f.walk)
		ret = reset_check(&f, err);
	if (ret == 0 && pc->exact && produced != pc->usize)
		ret = zd_err(err, ZD_E_CHECKSUM, "decoded size %ju does not "
		             "match the index (%ju)", (uintmax_t)produced,
		             (uintmax_t)pc->usize);
	if (ret == 0 && pc->exact && XXH64_digest(hash) != pc->hash)
		ret = zd_err(err, ZD_E_CHECKSUM, "decoded bytes do not match "
		             "the index hash");
	XXH64_freeState(hash);
	return ret;
}
