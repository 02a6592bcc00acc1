/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * codec-lzma.c - the legacy .lzma (lzma_alone) format, read only, as
 * dpkg-deb reads it (lzma_alone_decoder without a memory limit)
 */
#include "config.h"

#include <lzma.h>

#include "lib/codec-impl.h"

int
zd_codec_lzma_decompress(const struct zd_region *in,
                         const struct zd_dec_params *p, struct zd_sink *out,
                         struct zd_error *err)
{
	lzma_stream s = LZMA_STREAM_INIT;
	lzma_ret r;

	r = lzma_alone_decoder(&s, UINT64_MAX);
	if (r != LZMA_OK)
		return zd_err(err, r == LZMA_MEM_ERROR ? ZD_E_NOMEM :
		              ZD_E_INTERNAL, "cannot initialize lzma "
		              "decompression");
	return zd_codec_lzma_run(&s, in, p, out, "lzma", err);
}
