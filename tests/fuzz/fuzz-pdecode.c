/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-pdecode.c - the zstd member decoder (zd_zstd_pdecode) on a memfd,
 * with small caps (1 MiB window, 8 MiB output) and two threads, and the
 * layout describer
 *
 * The oracle is libzstd's own streaming loop over the whole input (it
 * steps over skippable frames itself), with the same caps.  When zdeb
 * succeeds, the oracle must succeed with the same bytes; when zdeb fails
 * for anything but a cap, the oracle must fail too (an index may make the
 * parallel decoder warn and walk, never give other bytes or refuse good
 * data).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xxhash.h>
#include <zstd.h>

#include "lib/params.h"
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

/*
 * libzstd decodes every frame of data[0, size) into s, the window capped
 * at 2^wlog and the output at max_output.  Returns 0, or -1 when libzstd
 * fails, the input ends inside a frame or the output exceeds the cap.
 */
static int
oracle(const uint8_t *data, size_t size, int wlog, uint64_t max_output,
       struct hsink *s)
{
	ZSTD_DCtx *d = ZSTD_createDCtx();
	ZSTD_inBuffer in = { data, size, 0 };
	unsigned char out[1 << 16];
	size_t r = 1;
	int rc = -1;

	if (d == NULL)
		abort();
	if (ZSTD_isError(ZSTD_DCtx_setParameter(d, ZSTD_d_windowLogMax, wlog)))
		abort();
	while (in.pos < in.size) {
		ZSTD_outBuffer o = { out, sizeof(out), 0 };

		r = ZSTD_decompressStream(d, &o, &in);
		if (ZSTD_isError(r))
			goto done;
		hash_write(s, out, o.pos, NULL);
		if (s->n > max_output)
			goto done;
		if (o.pos == 0 && r != 0 && in.pos == in.size)
			break;
	}
	/* Flush what libzstd still holds of the last frame. */
	while (r != 0) {
		ZSTD_outBuffer o = { out, sizeof(out), 0 };

		r = ZSTD_decompressStream(d, &o, &in);
		if (ZSTD_isError(r) || o.pos == 0)
			goto done;
		hash_write(s, out, o.pos, NULL);
		if (s->n > max_output)
			goto done;
	}
	rc = size > 0 ? 0 : -1;
done:
	ZSTD_freeDCtx(d);
	return rc;
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
	struct zd_dec_params p;
	struct zd_zstd_info info;
	struct zd_region r;
	struct hsink a = { NULL, 0 }, b = { NULL, 0 };
	struct zd_sink sa = { hash_write, &a, NULL, NULL };
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
	rb = oracle(data, size, 20, p.max_output, &b);
	if (ra == 0 && (err.code != ZD_OK || err.msg[0] != '\0'))
		abort();
	/* Success means the right bytes: the oracle agrees. */
	if (ra == 0 && (rb != 0 || a.n != b.n ||
	                XXH64_digest(a.h) != XXH64_digest(b.h)))
		abort();
	/* A refusal is right: the oracle refuses too, or a cap was hit, or
	 * the member holds skippable frames only (libzstd decodes that to
	 * nothing; zdeb refuses it as a member). */
	if (ra != 0 && rb == 0 && err.code != ZD_E_LIMIT &&
	    strstr(err.msg, "no zstd frame") == NULL)
		abort();
	XXH64_freeState(a.h);
	XXH64_freeState(b.h);
	close(fd);
	return 0;
}
