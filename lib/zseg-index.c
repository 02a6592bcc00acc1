/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zseg-index.c - encode, parse and check the segment index
 *
 * The format is described in zseg-index.h.  Parsing is a pure function of
 * the bytes: every size is checked and every sum goes through
 * __builtin_add_overflow.
 */
#include "config.h"

#include <assert.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "lib/endian.h"
#include "lib/zseg-index.h"
#include "lib/zseg-reset.h"

static const unsigned char index_magic[4] = { 'Z', 'D', 'X', 'I' };
enum { FIXED_HDR = 8, CHECK_SIZE = 4, MIN_RECORD = 11 };

struct wbuf {
	unsigned char *p;
	size_t len, cap;
	bool overflow;
};

static void
put_bytes(struct wbuf *w, const void *b, size_t n)
{
	if (w->overflow || w->cap - w->len < n) {
		w->overflow = true;
		return;
	}
	memcpy(w->p + w->len, b, n);
	w->len += n;
}

static void
put_varint(struct wbuf *w, uint64_t v)
{
	unsigned char b[10];
	size_t n = 0;

	do {
		b[n] = (unsigned char)(v & 0x7f);
		v >>= 7;
		if (v != 0)
			b[n] |= 0x80;
		n++;
	} while (v != 0);
	put_bytes(w, b, n);
}

size_t
zd_zseg_index_encode(const struct zd_zseg_index *idx, void *buf, size_t cap)
{
	struct wbuf w = { buf, 0, cap, false };
	unsigned char b[8] = { 0 };

	assert(idx->nrec >= 1);
	assert(idx->version >= 1 && idx->version <= ZD_ZSEG_INDEX_VERSION);
	put_bytes(&w, b, ZD_ZSTD_SKIP_HDR);	/* filled below */
	put_bytes(&w, index_magic, 4);
	b[0] = (unsigned char)idx->version;
	b[1] = 0;
	b[2] = (unsigned char)idx->window_log;
	b[3] = (unsigned char)idx->header_size;
	put_bytes(&w, b, 4);
	put_varint(&w, idx->content_size);
	put_varint(&w, idx->segments);
	put_varint(&w, idx->nrec);
	for (size_t i = 0; i < idx->nrec; i++) {
		put_varint(&w, idx->rec[i].csize);
		put_varint(&w, idx->rec[i].usize);
		put_varint(&w, idx->rec[i].nseg);
		zd_put_le64(b, idx->rec[i].hash);
		put_bytes(&w, b, 8);
	}
	if (w.overflow || w.cap - w.len < CHECK_SIZE)
		return 0;
	zd_put_le32(b, XXH32(w.p + ZD_ZSTD_SKIP_HDR,
	                     w.len - ZD_ZSTD_SKIP_HDR, 0));
	put_bytes(&w, b, 4);
	zd_put_le32(w.p, ZD_ZSEG_INDEX_MAGIC);
	zd_put_le32(w.p + 4, (uint32_t)(w.len - ZD_ZSTD_SKIP_HDR));
	return w.len;
}

struct rbuf {
	const unsigned char *p;
	size_t pos, len;
};

static int
get_varint(struct rbuf *r, uint64_t *v, const char *what, size_t rec,
           struct zd_error *err)
{
	uint64_t x = 0;

	for (unsigned i = 0; i < 10; i++) {
		unsigned char c;

		if (r->pos >= r->len)
			goto bad;
		c = r->p[r->pos++];
		if (i == 9 && c > 1)
			goto bad;
		if (i > 0 && c == 0)
			goto bad;	/* overlong */
		x |= (uint64_t)(c & 0x7f) << (7 * i);
		if (!(c & 0x80)) {
			*v = x;
			return 0;
		}
	}
bad:
	if (rec == SIZE_MAX)
		return zd_err(err, ZD_E_FORMAT, "bad index %s", what);
	return zd_err(err, ZD_E_FORMAT, "bad index %s in record %zu", what,
	              rec);
}

int
zd_zseg_index_parse(const void *buf, size_t len, struct zd_zseg_index *idx,
                    struct zd_error *err)
{
	const unsigned char *p = buf;
	struct rbuf r;
	uint64_t nrec, csum = 0, usum = 0, ssum = 0;
	size_t plen;

	memset(idx, 0, sizeof(*idx));
	if (len < ZD_ZSTD_SKIP_HDR || zd_le32(p) != ZD_ZSEG_INDEX_MAGIC)
		return zd_err(err, ZD_E_FORMAT, "bad index frame magic");
	plen = zd_le32(p + 4);
	if (plen != len - ZD_ZSTD_SKIP_HDR)
		return zd_err(err, ZD_E_FORMAT, "bad index frame size");
	if (plen < FIXED_HDR + 3 + MIN_RECORD + CHECK_SIZE)
		return zd_err(err, ZD_E_FORMAT, "index too short");
	p += ZD_ZSTD_SKIP_HDR;
	if (zd_le32(p + plen - CHECK_SIZE) != XXH32(p, plen - CHECK_SIZE, 0))
		return zd_err(err, ZD_E_FORMAT, "bad index check value");
	if (memcmp(p, index_magic, 4) != 0)
		return zd_err(err, ZD_E_FORMAT, "bad index magic");
	if (p[4] < 1 || p[4] > ZD_ZSEG_INDEX_VERSION)
		return zd_err(err, ZD_E_FORMAT, "unknown index version %u",
		              p[4]);
	if (p[5] != 0)
		return zd_err(err, ZD_E_FORMAT, "unknown index flags 0x%02x",
		              p[5]);
	if (p[6] < ZD_ZSTD_WINLOG_MIN || p[6] > ZD_ZSTD_WINLOG_MAX)
		return zd_err(err, ZD_E_FORMAT, "bad index window log %u",
		              p[6]);
	if (p[7] < 6 || p[7] > ZD_ZSTD_FHDR_MAX)
		return zd_err(err, ZD_E_FORMAT, "bad index header size %u",
		              p[7]);
	idx->version = p[4];
	idx->window_log = p[6];
	idx->header_size = p[7];
	r.p = p;
	r.pos = FIXED_HDR;
	r.len = plen - CHECK_SIZE;
	if (get_varint(&r, &idx->content_size, "content size", SIZE_MAX,
	               err) < 0 ||
	    get_varint(&r, &idx->segments, "segment count", SIZE_MAX,
	               err) < 0 ||
	    get_varint(&r, &nrec, "record count", SIZE_MAX, err) < 0)
		return -1;
	if (nrec == 0 || nrec > (r.len - r.pos) / MIN_RECORD)
		return zd_err(err, ZD_E_FORMAT, "bad index record count");
	if (idx->segments < nrec)
		return zd_err(err, ZD_E_FORMAT, "bad index segment count");
	idx->rec = calloc((size_t)nrec, sizeof(*idx->rec));
	if (idx->rec == NULL)
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	idx->nrec = (size_t)nrec;
	for (size_t i = 0; i < idx->nrec; i++) {
		struct zd_zseg_record *rec = &idx->rec[i];

		if (get_varint(&r, &rec->csize, "size", i, err) < 0 ||
		    get_varint(&r, &rec->usize, "decoded size", i, err) < 0 ||
		    get_varint(&r, &rec->nseg, "segment count", i, err) < 0)
			goto fail;
		if (r.len - r.pos < 8) {
			zd_err(err, ZD_E_FORMAT, "index record %zu truncated",
			       i);
			goto fail;
		}
		rec->hash = zd_le64(r.p + r.pos);
		r.pos += 8;
		if (rec->csize < 3) {
			zd_err(err, ZD_E_FORMAT, "index record %zu size too "
			       "small", i);
			goto fail;
		}
		if (rec->nseg == 0) {
			zd_err(err, ZD_E_FORMAT, "index record %zu has no "
			       "segment", i);
			goto fail;
		}
		if (__builtin_add_overflow(csum, rec->csize, &csum) ||
		    __builtin_add_overflow(usum, rec->usize, &usum) ||
		    __builtin_add_overflow(ssum, rec->nseg, &ssum)) {
			zd_err(err, ZD_E_FORMAT, "index record %zu sizes "
			       "overflow", i);
			goto fail;
		}
	}
	if (r.pos != r.len) {
		zd_err(err, ZD_E_FORMAT, "trailing bytes in index");
		goto fail;
	}
	if (usum != idx->content_size) {
		zd_err(err, ZD_E_FORMAT, "index decoded sizes do not add up "
		       "to the content size");
		goto fail;
	}
	if (ssum != idx->segments) {
		zd_err(err, ZD_E_FORMAT, "index segment counts do not add up");
		goto fail;
	}
	return 0;
fail:
	zd_zseg_index_free(idx);
	return -1;
}

int
zd_zseg_index_check_frame(const struct zd_zseg_index *idx,
                          const struct zd_zstd_frame_info *fi,
                          struct zd_error *err)
{
	uint64_t pos, end;

	if (fi->skippable)
		return zd_err(err, ZD_E_FORMAT, "index follows no zstd frame");
	if (fi->hdr.single_segment || idx->window_log > 63 ||
	    fi->hdr.window_size != UINT64_C(1) << idx->window_log)
		return zd_err(err, ZD_E_FORMAT, "index window does not match "
		              "the frame");
	if (fi->hdr.header_size != idx->header_size)
		return zd_err(err, ZD_E_FORMAT, "index header size does not "
		              "match the frame");
	if (!fi->hdr.has_content_size ||
	    fi->hdr.content_size != idx->content_size)
		return zd_err(err, ZD_E_FORMAT, "index content size does not "
		              "match the frame");
	if (!fi->hdr.checksum)
		return zd_err(err, ZD_E_FORMAT, "indexed frame has no "
		              "checksum");
	end = fi->size - 4;
	pos = fi->hdr.header_size;
	for (size_t i = 0; i < idx->nrec; i++) {
		const struct zd_zseg_record *rec = &idx->rec[i];
		bool last = i + 1 == idx->nrec;

		if (!last && rec->csize < 3 + ZD_ZSEG_RESET_SIZE)
			return zd_err(err, ZD_E_FORMAT, "index record %zu size "
			              "too small", i);
		if (rec->csize > end - pos)
			return zd_err(err, ZD_E_FORMAT, "index record %zu size "
			              "exceeds frame", i);
		/* Every block header is 3 bytes and a block yields at most
		 * 128 KiB: a larger claim would size a decode buffer from a
		 * lie (RFC 8878 3.1.1.2). */
		if (rec->usize / ZD_ZSTD_BLOCK_MAX > rec->csize / 3 + 1)
			return zd_err(err, ZD_E_FORMAT, "index record %zu "
			              "decoded size exceeds what its blocks can "
			              "hold", i);
		pos += rec->csize;
	}
	if (pos != end)
		return zd_err(err, ZD_E_FORMAT, "index records do not cover "
		              "the frame");
	return 0;
}

void
zd_zseg_index_free(struct zd_zseg_index *idx)
{
	if (idx == NULL)
		return;
	free(idx->rec);
	idx->rec = NULL;
	idx->nrec = 0;
}
