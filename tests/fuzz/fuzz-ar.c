/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-ar.c - the ar reader: zd_ar_check_magic, then zd_ar_next over the
 * whole input (a memfd), and zd_ar_parse_header on its first 60 bytes
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/ar.h"
#include "tests/fuzz/fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_ar_member m;
	uint64_t off = ZD_AR_MAGIC_LEN, prev;
	int fd;

	if (size >= ZD_AR_HDR_LEN)
		(void)zd_ar_parse_header(data, 0, &m, &err);
	fd = zd_fuzz_memfd(data, size);
	if (fd < 0)
		return 0;
	if (zd_ar_check_magic(fd, &err) == 0) {
		for (;;) {
			prev = off;
			err = (struct zd_error)ZD_ERROR_INIT;
			if (zd_ar_next(fd, size, &off, &m, &err) <= 0)
				break;
			/* Every member lies inside the file and moves on. */
			if (off <= prev || m.data_off + m.size > size ||
			    off > size)
				abort();
		}
	}
	close(fd);
	return 0;
}
