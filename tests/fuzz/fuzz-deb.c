/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-deb.c - opening a .deb (zd_deb_open on /proc/self/fd/N of a memfd),
 * then decoding its control member with small caps
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/deb-member.h"
#include "lib/deb.h"
#include "tests/fuzz/fuzz.h"

static int
null_write(void *ctx, const void *buf, size_t len, struct zd_error *err)
{
	(void)ctx;
	(void)buf;
	(void)len;
	(void)err;
	return 0;
}

static void
quiet(void *ctx, const char *msg)
{
	(void)ctx;
	(void)msg;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_deb deb;
	char path[64];
	int fd;

	fd = zd_fuzz_memfd(data, size);
	if (fd < 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (zd_deb_open(path, &deb, &err) == 0) {
		struct zd_dec_params p;
		struct zd_sink sink = { null_write, NULL, NULL, NULL };
		const struct zd_deb_member *ms[2] = { &deb.control,
		                                      &deb.data };

		memset(&p, 0, sizeof(p));
		p.threads = 1;
		p.max_window = UINT64_C(1) << 20;
		p.max_output = UINT64_C(4) << 20;
		p.warn = quiet;
		for (int i = 0; i < 2; i++) {
			const struct zd_deb_member *m = ms[i];

			if (m->name[0] == '\0' || m->codec == NULL)
				continue;
			if (m->region.off + m->region.len > size)
				abort();
			err = (struct zd_error)ZD_ERROR_INIT;
			(void)zd_deb_member_decode(m, &p, &sink, &err);
		}
		zd_deb_close(&deb);
	}
	close(fd);
	return 0;
}
