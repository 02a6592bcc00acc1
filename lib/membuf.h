/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * membuf.h - a growing byte buffer that a decoder can write into (zd_sink)
 */
#ifndef ZDEB_MEMBUF_H
#define ZDEB_MEMBUF_H

#include <stddef.h>

#include "lib/error.h"
#include "lib/fdio.h"

/*
 * buf holds len bytes and a NUL after them (once anything was written), so
 * text can be read as a string; past max bytes, a write fails with
 * ZD_E_LIMIT.  Start from ZD_MEMBUF_INIT(max); free(buf) when done.
 */
struct zd_membuf {
	char *buf;
	size_t len, cap, max;
};

#define ZD_MEMBUF_INIT(max) { NULL, 0, 0, (max) }

/* The zd_sink write function: appends len bytes of buf to ctx's buffer. */
int zd_membuf_write(void *ctx, const void *buf, size_t len,
                    struct zd_error *err);

#define ZD_SINK_MEMBUF(b) { zd_membuf_write, (b), NULL, NULL }

#endif
