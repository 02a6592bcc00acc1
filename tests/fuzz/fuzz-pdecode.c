/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-pdecode.c - the zstd member decoder (zd_zstd_pdecode) on a memfd,
 * with small caps (1 MiB window, 8 MiB output) and two threads, and the
 * layout describer
 *
 * The output is compared with the sequential decoder's: both succeed with
 * the same bytes, or both fail (an index may make the parallel decoder
 * warn and walk, never give other bytes).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xxhash.h>

#include "lib/codec.h"
#include "lib/zseg-decode.h"
#include "lib/zseg-layout.h"
#include "tests/fuzz/fuzz.h"

struct hsink {
	XXH64_state_t *h;
	uint64_t n;
};

static int
hash_write(void *ctx, const void *buf, size_t len, struct zd_error *err)
{
	struct hsink *s = ctx;

	(void)err;
	XXH64_update(s->h, buf, len);
	s->n += len;
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
	struct zd_error err = ZD_ERROR_INIT, serr = ZD_ERROR_INIT;
	struct zd_dec_params p;
	struct zd_zstd_info info;
	struct zd_region r;
	struct hsink a = { NULL, 0 }, b = { NULL, 0 };
	struct zd_sink sa = { hash_write, &a }, sb = { hash_write, &b };
	int fd, ra, rb;

	fd = zd_fuzz_memfd(data, size);
	if (fd < 0)
		return 0;
	r.fd = fd;
	r.off = 0;
	r.len = size;
	memset(&p, 0, sizeof(p));
	p.threads = 2;
	p.max_window = UINT64_C(1) << 20;
	p.max_output = UINT64_C(8) << 20;
	p.member = "data.tar.zst";
	p.warn = quiet;
	a.h = XXH64_createState();
	b.h = XXH64_createState();
	if (a.h == NULL || b.h == NULL)
		abort();
	XXH64_reset(a.h, 0);
	XXH64_reset(b.h, 0);
	(void)zd_zstd_describe(&r, &info, &err);
	err = (struct zd_error)ZD_ERROR_INIT;
	ra = zd_zstd_pdecode(&r, &p, &sa, &err);
	rb = zd_zstd_decode_sequential(&r, &p, &sb, &serr);
	if (ra == 0 && (err.code != ZD_OK || err.msg[0] != '\0'))
		abort();
	/* Success means the right bytes: the sequential decode agrees. */
	if (ra == 0 && rb == 0 &&
	    (a.n != b.n || XXH64_digest(a.h) != XXH64_digest(b.h)))
		abort();
	XXH64_freeState(a.h);
	XXH64_freeState(b.h);
	close(fd);
	return 0;
}
