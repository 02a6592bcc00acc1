/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tar-cut.c - safe frame ends in a tar stream: follows the headers as the
 * bytes go by (GNU and ustar formats, as dpkg-deb and zdeb write them)
 */
#include "config.h"

#include <string.h>

#include "lib/tar-cut.h"

/* ustar header fields (POSIX pax(1), GNU tar src/tar.h) */
enum {
	NAME_OFF = 0, NAME_LEN = 100,
	SIZE_OFF = 124, SIZE_LEN = 12,
	CHKSUM_OFF = 148, CHKSUM_LEN = 8,
	TYPE_OFF = 156,
};

void
zd_tar_cut_init(struct zd_tar_cut *c)
{
	memset(c, 0, sizeof(*c));
	c->state = ZD_TAR_CUT_HEADER;
}

/* An octal field as GNU tar reads it (leading spaces, then digits up to a
 * space or NUL), or base-256 (0x80: positive); false if neither. */
static bool
field_num(const unsigned char *f, size_t len, uint64_t *v)
{
	size_t i = 0;

	*v = 0;
	if (f[0] == 0x80) {
		for (i = 1; i < len; i++) {
			if (*v >> 56 != 0)
				return false;
			*v = *v << 8 | f[i];
		}
		return true;
	}
	while (i < len && f[i] == ' ')
		i++;
	if (i == len || f[i] < '0' || f[i] > '7')
		return false;
	for (; i < len && f[i] >= '0' && f[i] <= '7'; i++) {
		if (*v >> 61 != 0)
			return false;
		*v = *v << 3 | (uint64_t)(f[i] - '0');
	}
	return i == len || f[i] == ' ' || f[i] == '\0';
}

static bool
all_zero(const unsigned char *b, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (b[i] != 0)
			return false;
	return true;
}

/* The checksum as tar computes it, unsigned (or signed, as GNU tar also
 * accepts), with the field itself counted as spaces. */
static bool
checksum_ok(const unsigned char *h)
{
	uint64_t want, u = 0;
	int64_t s = 0;

	if (!field_num(h + CHKSUM_OFF, CHKSUM_LEN, &want))
		return false;
	for (size_t i = 0; i < ZD_TAR_BLOCK; i++) {
		unsigned char b = i >= CHKSUM_OFF &&
		                  i < CHKSUM_OFF + CHKSUM_LEN ? ' ' : h[i];

		u += b;
		s += (signed char)b;
	}
	return want == u || (int64_t)want == s;
}

/* Whether the name ends with '/': the pending long name's, else the
 * 100-byte field's (ustar's prefix field comes before it). */
static bool
dir_name(const struct zd_tar_cut *c)
{
	size_t n = strnlen((const char *)c->hdr + NAME_OFF, NAME_LEN);

	if (c->long_pending)
		return c->long_dir;
	return n > 0 && c->hdr[NAME_OFF + n - 1] == '/';
}

/* A complete header in c->hdr: what follows it. */
static void
header_done(struct zd_tar_cut *c)
{
	const unsigned char *h = c->hdr;
	uint64_t size, padded;

	c->hlen = 0;
	if (all_zero(h, ZD_TAR_BLOCK)) {
		c->state = ZD_TAR_CUT_NONE;	/* the end, for both */
		return;
	}
	if (!checksum_ok(h)) {
		/* the first block: no tar reader reads this input */
		c->state = c->pos == ZD_TAR_BLOCK ? ZD_TAR_CUT_OPAQUE :
		           ZD_TAR_CUT_NONE;
		return;
	}
	if (!field_num(h + SIZE_OFF, SIZE_LEN, &size) ||
	    __builtin_add_overflow(size, ZD_TAR_BLOCK - 1, &padded)) {
		c->state = ZD_TAR_CUT_NONE;
		return;
	}
	padded &= ~(uint64_t)(ZD_TAR_BLOCK - 1);
	c->type = h[TYPE_OFF];
	switch (c->type) {
	case ZD_TAR_REG:
	case '\0':
		/* dpkg takes a regular file named "x/" for a directory and
		 * reads no data where GNU tar skips it: no common view */
		if (size > 0 && dir_name(c)) {
			c->state = ZD_TAR_CUT_NONE;
			return;
		}
		c->type = ZD_TAR_REG;
		break;
	case ZD_TAR_LONGNAME:
	case ZD_TAR_LONGLINK:
	case '7':	/* contiguous: data GNU tar reads, dpkg refuses */
		break;
	case ZD_TAR_LNK:
	case ZD_TAR_SYM:
	case ZD_TAR_CHR:
	case ZD_TAR_BLK:
	case ZD_TAR_DIR:
	case ZD_TAR_FIFO:
		/* dpkg reads no data for these, whatever the size says */
		if (size == 0)
			break;
		/* fall through */
	default:
		/* pax, sparse, volume headers...: not followed */
		c->state = ZD_TAR_CUT_NONE;
		return;
	}
	/* the long name (and link) records name the member after them */
	if (c->type != ZD_TAR_LONGNAME && c->type != ZD_TAR_LONGLINK)
		c->long_pending = false;
	c->last = 0;
	c->data_start = c->pos;
	c->data_end = c->pos + padded;
	c->state = ZD_TAR_CUT_DATA;
}

/* The first offset >= q off the grid, if it is before limit. */
static bool
off_grid(uint64_t q, uint64_t limit, uint64_t *at)
{
	if (q % ZD_TAR_BLOCK == 0)
		q++;
	if (q >= limit)
		return false;
	*at = q;
	return true;
}

size_t
zd_tar_cut_feed(struct zd_tar_cut *c, const unsigned char *buf, size_t len,
                uint64_t from, bool *found)
{
	size_t done = 0;

	*found = false;
	for (;;) {
		size_t n = len - done;
		uint64_t q = from > c->pos ? from : c->pos, at;

		switch (c->state) {
		case ZD_TAR_CUT_NONE:
			c->pos += n;
			return len;
		case ZD_TAR_CUT_OPAQUE:
			*found = off_grid(q, c->pos + n + 1, &at);
			if (!*found)
				at = c->pos + n;
			done += (size_t)(at - c->pos);
			c->pos = at;
			return done;
		case ZD_TAR_CUT_HEADER:
			if (n == 0)
				return done;
			if (n > ZD_TAR_BLOCK - c->hlen)
				n = ZD_TAR_BLOCK - c->hlen;
			memcpy(c->hdr + c->hlen, buf + done, n);
			c->hlen += n;
			c->pos += n;
			done += n;
			if (c->hlen == ZD_TAR_BLOCK)
				header_done(c);
			break;
		case ZD_TAR_CUT_DATA:
			if (n > c->data_end - c->pos)
				n = (size_t)(c->data_end - c->pos);
			if (q <= c->data_start)
				q = c->data_start + 1;
			if (c->type == ZD_TAR_REG &&
			    off_grid(q, c->data_end, &at) && at <= c->pos + n) {
				done += (size_t)(at - c->pos);
				c->pos = at;
				*found = true;
				return done;
			}
			for (size_t i = 0; c->type == ZD_TAR_LONGNAME && i < n;
			     i++)
				if (buf[done + i] != 0)
					c->last = buf[done + i];
			c->pos += n;
			done += n;
			if (c->pos == c->data_end) {
				if (c->type == ZD_TAR_LONGNAME) {
					c->long_pending = true;
					c->long_dir = c->last == '/';
				}
				c->state = ZD_TAR_CUT_HEADER;
			} else if (done == len) {
				return done;
			}
			break;
		}
	}
}
