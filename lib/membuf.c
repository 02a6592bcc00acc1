/* SPDX-License-Identifier: GPL-2.0-or-later */
/* membuf.c - a growing byte buffer that a decoder can write into */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "lib/membuf.h"

int
zd_membuf_write(void *ctx, const void *buf, size_t len, struct zd_error *err)
{
	struct zd_membuf *b = ctx;

	if (len > b->max - b->len)
		return zd_err(err, ZD_E_LIMIT, "decoded member over %zu bytes",
		              b->max);
	/* One byte more than the data, for the NUL; max < SIZE_MAX. */
	if (b->len + len >= b->cap) {
		size_t cap = b->cap ? b->cap : 65536;
		char *p;

		while (cap <= b->len + len && cap <= SIZE_MAX / 2)
			cap *= 2;
		if (cap <= b->len + len)
			return zd_err(err, ZD_E_NOMEM, "out of memory");
		p = realloc(b->buf, cap);
		if (p == NULL)
			return zd_err(err, ZD_E_NOMEM, "out of memory");
		b->buf = p;
		b->cap = cap;
	}
	memcpy(b->buf + b->len, buf, len);
	b->len += len;
	b->buf[b->len] = '\0';
	return 0;
}
