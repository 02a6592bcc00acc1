/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zstd-frame.c - zstd frame, block and skippable frame headers (RFC 8878)
 *
 * Section numbers refer to RFC 8878, "Zstandard Compression and the
 * 'application/zstd' Media Type".
 */
#include "config.h"

#include <assert.h>
#include <string.h>
#include <zstd_errors.h>

#include "lib/endian.h"
#include "lib/zstd-frame.h"

/* 3.1.1.1 Frame_Header */
int
zd_zstd_fhdr_parse(const void *buf, size_t len, struct zd_zstd_fhdr *h,
                   struct zd_error *err)
{
	static const unsigned did_size[4] = { 0, 1, 2, 4 };
	static const unsigned fcs_size[4] = { 0, 2, 4, 8 };
	const unsigned char *p = buf;
	unsigned fhd, fcs_len, did_len, pos;

	memset(h, 0, sizeof(*h));
	if (len < 4) {
		h->header_size = 5;
		return 1;
	}
	if (zd_le32(p) != ZD_ZSTD_MAGIC)
		return zd_err(err, ZD_E_FORMAT, "bad zstd frame magic");
	if (len < 5) {
		h->header_size = 5;
		return 1;
	}
	fhd = p[4];
	if (fhd & 0x08)
		return zd_err(err, ZD_E_FORMAT, "reserved bit set in zstd "
		              "frame header");
	h->single_segment = (fhd >> 5) & 1;
	h->checksum = (fhd >> 2) & 1;
	did_len = did_size[fhd & 3];
	fcs_len = fcs_size[fhd >> 6];
	if (fcs_len == 0 && h->single_segment)
		fcs_len = 1;
	h->header_size = 5 + !h->single_segment + did_len + fcs_len;
	if (len < h->header_size)
		return 1;
	pos = 5;
	if (!h->single_segment) {
		unsigned wd = p[pos++];
		unsigned wlog = ZD_ZSTD_WINLOG_MIN + (wd >> 3);
		uint64_t base;

		if (wlog > ZD_ZSTD_WINLOG_MAX)
			return zd_err(err, ZD_E_FORMAT, "zstd window "
			              "descriptor out of range");
		base = UINT64_C(1) << wlog;
		h->window_size = base + (base >> 3) * (wd & 7);
	}
	for (unsigned i = 0; i < did_len; i++)
		h->dict_id |= (uint32_t)p[pos + i] << (8 * i);
	pos += did_len;
	if (fcs_len > 0) {
		uint64_t v = 0;

		for (unsigned i = 0; i < fcs_len; i++)
			v |= (uint64_t)p[pos + i] << (8 * i);
		if (fcs_len == 2)
			v += 256;
		h->has_content_size = true;
		h->content_size = v;
		if (h->single_segment)
			h->window_size = v;
	}
	return 0;
}

size_t
zd_zstd_fhdr_write(void *buf, unsigned window_log, bool has_size,
                   uint64_t content_size, bool checksum)
{
	unsigned char *p = buf;
	size_t n = 6;

	assert(window_log >= ZD_ZSTD_WINLOG_MIN &&
	       window_log <= ZD_ZSTD_WINLOG_MAX);
	zd_put_le32(p, ZD_ZSTD_MAGIC);
	p[4] = checksum ? 0x04 : 0x00;
	p[5] = (unsigned char)((window_log - ZD_ZSTD_WINLOG_MIN) << 3);
	if (has_size && content_size <= UINT32_MAX) {
		p[4] |= 2 << 6;
		zd_put_le32(p + 6, (uint32_t)content_size);
		n += 4;
	} else if (has_size) {
		p[4] |= 3 << 6;
		zd_put_le64(p + 6, content_size);
		n += 8;
	}
	return n;
}

uint64_t
zd_zstd_block_max(const struct zd_zstd_fhdr *h)
{
	return h->window_size < ZD_ZSTD_BLOCK_MAX ? h->window_size :
	       ZD_ZSTD_BLOCK_MAX;
}

/* 3.1.1.2 Blocks */
int
zd_zstd_block_parse(const void *buf, uint64_t block_max,
                    struct zd_zstd_block *b, struct zd_error *err)
{
	const unsigned char *p = buf;
	uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8 |
	             (uint32_t)p[2] << 16;

	b->last = v & 1;
	b->type = (enum zd_zstd_block_type)((v >> 1) & 3);
	b->size = v >> 3;
	switch (b->type) {
	case ZD_ZSTD_BLOCK_RAW:
		b->csize = b->size;
		break;
	case ZD_ZSTD_BLOCK_RLE:
		b->csize = 1;
		break;
	case ZD_ZSTD_BLOCK_COMPRESSED:
		/* libzstd checks the compressed size against 128 KiB only */
		b->csize = b->size;
		if (b->size > ZD_ZSTD_BLOCK_MAX)
			return zd_err(err, ZD_E_FORMAT, "zstd block too large");
		return 0;
	default:
		return zd_err(err, ZD_E_FORMAT, "reserved zstd block type");
	}
	if (b->size > block_max)
		return zd_err(err, ZD_E_FORMAT, "zstd block too large");
	return 0;
}

/* Appends " in 'NAME' at offset N" to the message in err. */
static int
at_offset(struct zd_error *err, const char *name, uint64_t off)
{
	char msg[sizeof(err->msg)];

	if (err == NULL)
		return -1;
	memcpy(msg, err->msg, sizeof(msg));
	msg[sizeof(msg) - 1] = '\0';
	if (name != NULL)
		return zd_err(err, err->code, "%.300s in '%.100s' at offset "
		              "%ju", msg, name, (uintmax_t)off);
	return zd_err(err, err->code, "%.400s at offset %ju", msg,
	              (uintmax_t)off);
}

static int
truncated(const struct zd_region *in, const char *name, struct zd_error *err)
{
	if (name != NULL)
		return zd_err(err, ZD_E_FORMAT, "unexpected end of data in "
		              "'%s' at offset %ju", name, (uintmax_t)in->len);
	return zd_err(err, ZD_E_FORMAT, "unexpected end of data at offset "
	              "%ju", (uintmax_t)in->len);
}

int
zd_zstd_frame_walk(const struct zd_region *in, uint64_t off,
                   const char *name, struct zd_zstd_frame_info *fi,
                   zd_zstd_block_fn on_block, void *ctx,
                   struct zd_error *err)
{
	unsigned char hb[ZD_ZSTD_FHDR_MAX];
	uint64_t left, pos, block_max;
	size_t n;
	int rc;

	memset(fi, 0, sizeof(*fi));
	fi->off = off;
	if (off > in->len || in->len - off < 4)
		return truncated(in, name, err);
	left = in->len - off;
	n = left < sizeof(hb) ? (size_t)left : sizeof(hb);
	if (zd_region_read(in, hb, n, off, err) < 0)
		return -1;
	fi->magic = zd_le32(hb);
	if ((fi->magic & ZD_ZSTD_SKIP_MASK) == ZD_ZSTD_SKIP_MAGIC) {
		/* 3.1.2 Skippable frames */
		if (n < ZD_ZSTD_SKIP_HDR)
			return truncated(in, name, err);
		fi->skippable = true;
		fi->size = ZD_ZSTD_SKIP_HDR + (uint64_t)zd_le32(hb + 4);
		if (fi->size > left)
			return truncated(in, name, err);
		return 0;
	}
	if (fi->magic != ZD_ZSTD_MAGIC)
		return zd_err(err, ZD_E_FORMAT, "not a zstd frame in '%s' at "
		              "offset %ju", name != NULL ? name : "member",
		              (uintmax_t)off);
	rc = zd_zstd_fhdr_parse(hb, n, &fi->hdr, err);
	if (rc == 1)
		return truncated(in, name, err);
	if (rc < 0)
		return at_offset(err, name, off);
	if (fi->hdr.dict_id != 0)
		return zd_err(err, ZD_E_UNSUPPORTED, "zstd frame at offset %ju "
		              "needs a dictionary", (uintmax_t)off);
	block_max = zd_zstd_block_max(&fi->hdr);
	pos = fi->hdr.header_size;
	for (;;) {
		struct zd_zstd_block b;

		if (left - pos < 3)
			return truncated(in, name, err);
		if (zd_region_read(in, hb, 3, off + pos, err) < 0)
			return -1;
		if (zd_zstd_block_parse(hb, block_max, &b, err) < 0)
			return at_offset(err, name, off + pos);
		if (left - pos - 3 < b.csize)
			return truncated(in, name, err);
		if (on_block != NULL && on_block(ctx, off + pos, &b, err) < 0)
			return -1;
		fi->blocks++;
		if (b.type == ZD_ZSTD_BLOCK_COMPRESSED)
			fi->decoded_max += block_max;
		else
			fi->decoded_max += b.size;
		pos += 3 + (uint64_t)b.csize;
		if (b.last)
			break;
	}
	if (fi->hdr.checksum) {
		if (left - pos < 4)
			return truncated(in, name, err);
		pos += 4;
	}
	fi->size = pos;
	return 0;
}

enum zd_errc
zd_zstd_errc(size_t zstd_rc)
{
	switch (ZSTD_getErrorCode(zstd_rc)) {
	case ZSTD_error_checksum_wrong:
		return ZD_E_CHECKSUM;
	case ZSTD_error_frameParameter_windowTooLarge:
		return ZD_E_LIMIT;
	case ZSTD_error_memory_allocation:
		return ZD_E_NOMEM;
	default:
		return ZD_E_FORMAT;
	}
}
