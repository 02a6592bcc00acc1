/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zseg-fixture.c - inputs, compress and decode helpers shared by the
 * check-zseg-* unit tests
 */
#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/zseg-decode.h"
#include "lib/zseg-write.h"
#include "tests/unit/testutil.h"
#include "tests/unit/zseg-fixture.h"

char path_in[4200], path_z[4200], path_out[4200];
unsigned nwarn;
char last_warn[1024];

void
on_warn(void *ctx, const char *msg)
{
	(void)ctx;
	nwarn++;
	snprintf(last_warn, sizeof(last_warn), "%s", msg);
}

void
paths(void)
{
	snprintf(path_in, sizeof(path_in), "%s/in", zd_test_tmpdir);
	snprintf(path_z, sizeof(path_z), "%s/in.zst", zd_test_tmpdir);
	snprintf(path_out, sizeof(path_out), "%s/out", zd_test_tmpdir);
}

/* Text with runs of 17+ identical bytes now and then, and zero runs. */
static void
fill_text(unsigned char *b, size_t len, uint64_t seed)
{
	static const char *const words[] = {
		"zstd ", "segment ", "frame ", "the ", "index ", "dpkg ",
		"package\n", "of ", "data ", "--------------------\n",
	};
	uint64_t x = seed * 2654435761u + 1;
	size_t i = 0;

	while (i < len) {
		const char *w;
		size_t n;

		x = x * 6364136223846793005u + 1442695040888963407u;
		if ((x >> 33) % 97 == 0) {
			n = 17 + (x >> 40) % 600;
			if (n > len - i)
				n = len - i;
			memset(b + i, 0, n);
			i += n;
			continue;
		}
		w = words[(x >> 33) % 10];
		n = strlen(w);
		if (n > len - i)
			n = len - i;
		memcpy(b + i, w, n);
		i += n;
	}
}

/* Machine code's shape without its padding: 8-byte units of 4 random
 * bytes and a small little-endian number, a byte now and then a copy of
 * the one 8 or 4 before; the random ones are never 0, so no zero run is
 * longer than 4 and no 17 bytes are alike. */
static void
fill_code(unsigned char *b, size_t len, uint64_t seed)
{
	uint64_t x = seed * 2654435761u + 7;

	for (size_t i = 0; i < len; i++) {
		unsigned r;

		x = x * 6364136223846793005u + 1442695040888963407u;
		r = (unsigned)(x >> 33);
		if (i % 8 >= 4 && (r & 3) != 0)
			b[i] = i % 8 == 4 ? (unsigned char)(r >> 8 & 3) : 0;
		else if (i >= 8 && (r & 12) == 0)
			b[i] = b[i - 8];
		else if (i >= 4 && (r & 48) == 0)
			b[i] = b[i - 4];
		else
			b[i] = (unsigned char)(1 + (r >> 8) % 255);
	}
}

size_t
make_input(enum input_kind kind, size_t len)
{
	unsigned char *b;
	size_t got;

	paths();
	if (kind == IN_TAR) {
		ck_assert_int_eq(zd_test_sh("tar -cf - -C /usr/share doc "
		                            "2>/dev/null | head -c %zu > '%s'",
		                            len, path_in), 0);
		free(zd_test_read_file(path_in, &got));
		return got;
	}
	if (kind == IN_EMPTY)
		len = 0;
	if (kind == IN_TINY)
		len = 5;
	b = calloc(1, len + 1);
	ck_assert_ptr_nonnull(b);
	if (kind == IN_RANDOM)
		zd_test_fill_random(b, len, 1);
	else if (kind == IN_TEXT || kind == IN_TINY)
		fill_text(b, len, 2);
	else if (kind == IN_CODE)
		fill_code(b, len, 7);
	zd_test_write_file(path_in, b, len);
	free(b);
	return len;
}

void
zseg_params(struct zd_comp_params *p, enum zd_zstd_layout layout, int level,
            uint64_t seg, unsigned threads)
{
	memset(p, 0, sizeof(*p));
	p->type = ZD_COMP_ZSTD;
	p->level = level;
	p->threads = threads;
	p->layout = layout;
	p->segment_size = seg;
	p->warn = on_warn;
}

int
compress_to(const char *in, const char *out, enum zd_zstd_layout layout,
            int level, uint64_t seg, unsigned threads, struct zd_error *err)
{
	struct zd_comp_params p;
	int ifd = open(in, O_RDONLY), ofd;
	uint64_t size = 0;
	int rc;

	ck_assert_int_ge(ifd, 0);
	ofd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(ofd, 0);
	zseg_params(&p, layout, level, seg, threads);
	ck_assert_zd_ok(zd_fd_size(ifd, &size, err), err);
	rc = zd_zseg_compress(&p, ifd, size, ofd, err);
	close(ifd);
	close(ofd);
	return rc;
}

void
open_region(const char *path, struct zd_region *r)
{
	struct zd_error err = ZD_ERROR_INIT;

	r->fd = open(path, O_RDONLY);
	ck_assert_msg(r->fd >= 0, "cannot open '%s'", path);
	r->off = 0;
	ck_assert_zd_ok(zd_fd_size(r->fd, &r->len, &err), &err);
}

void
dec_params(struct zd_dec_params *p, unsigned threads)
{
	memset(p, 0, sizeof(*p));
	p->threads = threads;
	p->member = "data.tar.zst";
	p->warn = on_warn;
}

int
decode_to(const char *in, const char *out, unsigned threads,
          uint64_t max_window, uint64_t max_output, struct zd_error *err)
{
	struct zd_dec_params p;
	struct zd_region r;
	struct zd_sink sink;
	int ofd, rc;

	dec_params(&p, threads);
	p.max_window = max_window;
	p.max_output = max_output;
	open_region(in, &r);
	ofd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(ofd, 0);
	sink.write = zd_sink_fd_write;
	sink.ctx = &ofd;
	sink.pwrite = NULL;
	sink.trywrite = NULL;
	rc = zd_zstd_pdecode(&r, &p, &sink, err);
	close(r.fd);
	close(ofd);
	return rc;
}

bool
same_files(const char *a, const char *b)
{
	return zd_test_sh("cmp -s '%s' '%s'", a, b) == 0;
}

void
check_decodes(const char *z, unsigned threads)
{
	struct zd_error err = ZD_ERROR_INIT;

	nwarn = 0;
	ck_assert_zd_ok(decode_to(z, path_out, threads, 0, 0, &err), &err);
	ck_assert_msg(same_files(path_out, path_in), "decoded bytes differ");
	ck_assert_msg(nwarn == 0, "warning: %s", last_warn);
}

void
describe(const char *z, struct zd_zstd_info *info)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_region r;

	open_region(z, &r);
	ck_assert_zd_ok(zd_zstd_describe(&r, info, &err), &err);
	close(r.fd);
}

void
parse_output(struct parsed *ps)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_region r;

	ps->z = zd_test_read_file(path_z, &ps->zlen);
	open_region(path_z, &r);
	ck_assert_uint_eq(r.len, ps->zlen);
	ck_assert_zd_ok(zd_zstd_frame_walk(&r, 0, NULL, &ps->outer, NULL, NULL,
	                                   &err), &err);
	ck_assert_zd_ok(zd_zstd_frame_walk(&r, ps->outer.size, NULL, &ps->ixf,
	                                   NULL, NULL, &err), &err);
	ck_assert_uint_eq(ps->outer.size + ps->ixf.size, ps->zlen);
	ck_assert_uint_eq(ps->ixf.magic, ZD_ZSEG_INDEX_MAGIC);
	ck_assert_zd_ok(zd_zseg_index_parse(ps->z + ps->outer.size,
	                                    ps->ixf.size, &ps->idx, &err),
	                &err);
	ck_assert_zd_ok(zd_zseg_index_check_frame(&ps->idx, &ps->outer, &err),
	                &err);
	close(r.fd);
}
