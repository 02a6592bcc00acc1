/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * endian.h - little-endian loads and stores for on-disk fields, and the
 * bit width of a size
 *
 * Common layer: the zstd frame parser, the segment index and the segment
 * reader and writer all store little-endian fields (style.md: on-disk
 * bytes go through explicit helpers, never a struct laid over a buffer).
 * Included as "lib/endian.h"; it does not replace the system <endian.h>.
 */
#ifndef ZDEB_ENDIAN_H
#define ZDEB_ENDIAN_H

#include <stdint.h>

static inline uint32_t
zd_le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint64_t
zd_le64(const unsigned char *p)
{
	return (uint64_t)zd_le32(p) | (uint64_t)zd_le32(p + 4) << 32;
}

static inline void
zd_put_le32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

static inline void
zd_put_le64(unsigned char *p, uint64_t v)
{
	zd_put_le32(p, (uint32_t)v);
	zd_put_le32(p + 4, (uint32_t)(v >> 32));
}

/* Log2 of the smallest power of two >= v; 0 for v <= 1. */
static inline unsigned
zd_log2_ceil(uint64_t v)
{
	return v <= 1 ? 0 : 64 - (unsigned)__builtin_clzll(v - 1);
}

#endif
