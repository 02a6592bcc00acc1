/* SPDX-License-Identifier: GPL-2.0-or-later */
/* codec-none.c - the "none" codec: a plain copy both ways */
#include "config.h"

#include <stdlib.h>

#include "lib/codec-impl.h"

int
zd_codec_none_compress(const struct zd_comp_params *p, int in_fd,
                       uint64_t in_size, int out_fd, struct zd_error *err)
{
	unsigned char *buf = malloc(ZD_CODEC_CHUNK);
	uint64_t off = 0;
	int rc = -1;

	(void)p;
	if (buf == NULL)
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	while (off < in_size) {
		size_t n = in_size - off > ZD_CODEC_CHUNK ?
		           ZD_CODEC_CHUNK : (size_t)(in_size - off);

		if (zd_pread_all(in_fd, buf, n, off, err) < 0)
			goto out;
		if (zd_write_all(out_fd, buf, n, err) < 0)
			goto out;
		off += n;
	}
	rc = 0;
out:
	free(buf);
	return rc;
}

int
zd_codec_none_decompress(const struct zd_region *in,
                         const struct zd_dec_params *p, struct zd_sink *out,
                         struct zd_error *err)
{
	struct zd_codec_out o = { out, p, 0 };
	struct zd_sink capped = { zd_codec_out_sink_write, &o, NULL, NULL };

	return zd_copy_region(in, &capped, err);
}
