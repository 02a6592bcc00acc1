/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-index.c - the segment index parser and its check against a frame
 *
 * Input: a zstd member (an outer frame, then the index frame).  The index
 * is parsed from the bytes after the first frame (or from the whole input
 * when that frame does not walk), checked against the walked frame, and
 * when it passes, turned into pieces, which must tile the frame.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/zseg-index.h"
#include "lib/zseg-read.h"
#include "lib/zstd-frame.h"
#include "tests/fuzz/fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_zstd_frame_info fi;
	struct zd_zseg_index idx;
	struct zd_zseg_piece *pc = NULL;
	struct zd_region r;
	size_t n = 0;
	const uint8_t *ix = data;
	size_t ixlen = size;
	bool walked;
	int fd;

	fd = zd_fuzz_memfd(data, size);
	if (fd < 0)
		return 0;
	r.fd = fd;
	r.off = 0;
	r.len = size;
	walked = zd_zstd_frame_walk(&r, 0, "fuzz", &fi, NULL, NULL,
	                            &err) == 0;
	if (walked && fi.size < size) {
		ix = data + fi.size;
		ixlen = size - (size_t)fi.size;
	}
	if (zd_zseg_index_parse(ix, ixlen, &idx, &err) == 0) {
		uint8_t buf[ZD_ZSEG_INDEX_MAX];
		size_t len;

		/* What parses re-encodes to the same bytes. */
		len = zd_zseg_index_encode(&idx, buf, sizeof(buf));
		if (ixlen <= sizeof(buf) &&
		    (len != ixlen || memcmp(buf, ix, len) != 0))
			abort();
		if (walked && !fi.skippable &&
		    zd_zseg_index_check_frame(&idx, &fi, &err) == 0 &&
		    zd_zseg_pieces_from_index(&r, &fi, &idx, &pc, &n,
		                              &err) == 0) {
			uint64_t pos = fi.off + fi.hdr.header_size;

			for (size_t i = 0; i < n; i++) {
				if (pc[i].off != pos)
					abort();
				pos += pc[i].csize;
			}
			if (pos + 4 != fi.off + fi.size)
				abort();
			free(pc);
		}
		zd_zseg_index_free(&idx);
	}
	if (walked && !fi.skippable &&
	    zd_zseg_pieces_walk(&r, &fi, &pc, &n, &err) == 0)
		free(pc);
	close(fd);
	return 0;
}
