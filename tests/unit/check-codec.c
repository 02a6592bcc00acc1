/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check-codec.c - the codec registry, level and strategy parsing, every
 * codec's round trip, dpkg-deb's exact bytes and malformed input
 */
#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zstd.h>

#include "lib/codec.h"
#include "lib/fdio.h"
#include "lib/zseg-write.h"
#include "tests/unit/testutil.h"

/*
 * The segmented zstd layouts are not tested here; this fallback keeps the
 * test linking while lib/zseg-write.c is missing.  A real definition in
 * libzdeb.a wins over it.
 */
int zd_zseg_compress(const struct zd_comp_params *p, int in_fd,
                     uint64_t in_size, int out_fd, struct zd_error *err)
	__attribute__((weak));

int
zd_zseg_compress(const struct zd_comp_params *p, int in_fd, uint64_t in_size,
                 int out_fd, struct zd_error *err)
{
	(void)p;
	(void)in_fd;
	(void)in_size;
	(void)out_fd;
	return zd_err(err, ZD_E_UNSUPPORTED, "segmented layouts not linked");
}

/* A sink collecting into memory. */
struct membuf {
	unsigned char *p;
	size_t len, cap;
};

static int
membuf_write(void *ctx, const void *buf, size_t len, struct zd_error *err)
{
	struct membuf *m = ctx;

	(void)err;
	if (m->len + len > m->cap) {
		m->cap = (m->len + len) * 2;
		m->p = realloc(m->p, m->cap);
		ck_assert_ptr_nonnull(m->p);
	}
	memcpy(m->p + m->len, buf, len);
	m->len += len;
	return 0;
}

/* Writes buf to a fresh unlinked temporary file. */
static int
tmp_with(const void *buf, size_t len)
{
	struct zd_error err = ZD_ERROR_INIT;
	int fd = zd_tmpfile(&err);

	ck_assert_msg(fd >= 0, "%s", err.msg);
	ck_assert_zd_ok(zd_write_all(fd, buf, len, &err), &err);
	return fd;
}

static unsigned char *
fd_slurp(int fd, size_t *len)
{
	struct zd_error err = ZD_ERROR_INIT;
	uint64_t size;
	unsigned char *buf;

	ck_assert_zd_ok(zd_fd_size(fd, &size, &err), &err);
	buf = malloc(size + 1);
	ck_assert_ptr_nonnull(buf);
	if (size > 0)
		ck_assert_zd_ok(zd_pread_all(fd, buf, size, 0, &err), &err);
	*len = size;
	return buf;
}

/* Compresses buf with p; returns the malloc'd output. */
static unsigned char *
compress_buf(const struct zd_comp_params *p, const void *buf, size_t len,
             size_t *out_len)
{
	struct zd_error err = ZD_ERROR_INIT;
	int in = tmp_with(buf, len);
	int out = zd_tmpfile(&err);
	unsigned char *res;

	ck_assert_msg(out >= 0, "%s", err.msg);
	ck_assert_zd_ok(zd_compress(p, in, len, out, &err), &err);
	res = fd_slurp(out, out_len);
	close(in);
	close(out);
	return res;
}

/* Decompresses buf with the codec of type; returns rc, fills m and err. */
static int
decompress_buf(enum zd_comp_type type, const void *buf, size_t len,
               const struct zd_dec_params *dp, struct membuf *m,
               struct zd_error *err)
{
	int fd = tmp_with("!<arch>", 7);
	/* A region at a non-zero offset, as in a .deb. */
	struct zd_region r = { fd, 7, len };
	struct zd_sink sink = { membuf_write, m, NULL, NULL };
	int rc;

	ck_assert_zd_ok(zd_write_all(fd, buf, len, err), err);
	rc = zd_decompress(zd_codec_get(type), &r, dp, &sink, err);
	close(fd);
	return rc;
}

static const struct zd_dec_params dec_member = {
	.threads = 1, .member = "data.tar.x",
};

/* Test data: 0 bytes, zeros, random, text-like; some over 1 MiB. */
enum { DATA_EMPTY, DATA_ZERO, DATA_RANDOM, DATA_TEXT, DATA__COUNT };

static unsigned char *
make_data(int kind, size_t *len)
{
	static const char *const words[] = {
		"package", "zdeb", "control", "data.tar", "usr/share/doc",
		"\n", "Depends: libc6 (>= 2.36)", " ", "0123456789", "\t",
	};
	unsigned char *buf;
	size_t n = 0;
	uint64_t x = 42;

	switch (kind) {
	case DATA_EMPTY:
		*len = 0;
		return malloc(1);
	case DATA_ZERO:
		*len = (2u << 20) + 17;
		return calloc(1, *len);
	case DATA_RANDOM:
		*len = 300000;
		buf = malloc(*len);
		zd_test_fill_random(buf, *len, 7);
		return buf;
	default:
		*len = (3u << 19) + 5;	/* 1.5 MiB */
		buf = malloc(*len);
		while (n < *len) {
			const char *w;
			size_t wl;

			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			w = words[(x >> 33) % 10];
			wl = strlen(w);
			if (wl > *len - n)
				wl = *len - n;
			memcpy(buf + n, w, wl);
			n += wl;
		}
		return buf;
	}
}

struct rt_case {
	enum zd_comp_type type;
	int level;
	enum zd_strategy strategy;
	enum zd_zstd_layout layout;
	bool zstd_long;
};

static const struct rt_case rt_cases[] = {
	{ ZD_COMP_NONE, 0, ZD_STRATEGY_DEFAULT, 0, false },
	{ ZD_COMP_GZIP, 1, ZD_STRATEGY_DEFAULT, 0, false },
	{ ZD_COMP_GZIP, 6, ZD_STRATEGY_NONE, 0, false },
	{ ZD_COMP_GZIP, 9, ZD_STRATEGY_DEFAULT, 0, false },
	{ ZD_COMP_GZIP, 9, ZD_STRATEGY_FILTERED, 0, false },
	{ ZD_COMP_GZIP, 9, ZD_STRATEGY_HUFFMAN, 0, false },
	{ ZD_COMP_GZIP, 9, ZD_STRATEGY_RLE, 0, false },
	{ ZD_COMP_GZIP, 9, ZD_STRATEGY_FIXED, 0, false },
	{ ZD_COMP_GZIP, 0, ZD_STRATEGY_DEFAULT, 0, false },
	{ ZD_COMP_XZ, 0, ZD_STRATEGY_DEFAULT, 0, false },
	{ ZD_COMP_XZ, 1, ZD_STRATEGY_DEFAULT, 0, false },
	{ ZD_COMP_XZ, 6, ZD_STRATEGY_DEFAULT, 0, false },
	{ ZD_COMP_XZ, 2, ZD_STRATEGY_EXTREME, 0, false },
	{ ZD_COMP_ZSTD, 1, ZD_STRATEGY_DEFAULT, ZD_LAYOUT_SINGLE, false },
	{ ZD_COMP_ZSTD, 3, ZD_STRATEGY_DEFAULT, ZD_LAYOUT_SINGLE, false },
	{ ZD_COMP_ZSTD, 19, ZD_STRATEGY_DEFAULT, ZD_LAYOUT_SINGLE, false },
	{ ZD_COMP_ZSTD, -5, ZD_STRATEGY_DEFAULT, ZD_LAYOUT_SINGLE, false },
	{ ZD_COMP_ZSTD, 3, ZD_STRATEGY_DEFAULT, ZD_LAYOUT_SINGLE, true },
	{ ZD_COMP_ZSTD, 3, ZD_STRATEGY_DEFAULT, ZD_LAYOUT_DPKG, false },
	{ ZD_COMP_ZSTD, 12, ZD_STRATEGY_DEFAULT, ZD_LAYOUT_DPKG, false },
};
#define N_RT_CASES (sizeof(rt_cases) / sizeof(rt_cases[0]))

/* Loop index: case * DATA__COUNT + data kind. */
START_TEST(test_codec_roundtrip)
{
	const struct rt_case *c = &rt_cases[_i / DATA__COUNT];
	struct zd_comp_params p = {
		.type = c->type, .level = c->level, .strategy = c->strategy,
		.layout = c->layout, .zstd_long = c->zstd_long, .threads = 1,
	};
	size_t len, clen1, clen2;
	unsigned char *data = make_data(_i % DATA__COUNT, &len);
	unsigned char *c1, *c2;

	c1 = compress_buf(&p, data, len, &clen1);
	p.threads = 2;
	c2 = compress_buf(&p, data, len, &clen2);
	/* dpkg's zstd bytes depend on the thread count, by design. */
	if (!(c->type == ZD_COMP_ZSTD && c->layout == ZD_LAYOUT_DPKG))
		ck_assert_msg(clen1 == clen2 && memcmp(c1, c2, clen1) == 0,
		              "%s level %d: threads 1 and 2 differ",
		              zd_codec_get(c->type)->name, c->level);
	if (c->type == ZD_COMP_NONE)
		ck_assert(clen1 == len && memcmp(c1, data, len) == 0);
	for (unsigned t = 1; t <= 2; t++) {
		struct zd_dec_params dp = dec_member;
		struct zd_error err = ZD_ERROR_INIT;
		struct membuf m = { 0 };
		const unsigned char *cb = t == 1 ? c1 : c2;
		size_t cl = t == 1 ? clen1 : clen2;

		dp.threads = t;
		ck_assert_zd_ok(decompress_buf(c->type, cb, cl, &dp, &m, &err),
		                &err);
		ck_assert_uint_eq(m.len, len);
		ck_assert(len == 0 || memcmp(m.p, data, len) == 0);
		free(m.p);
	}
	free(data);
	free(c1);
	free(c2);
}
END_TEST

/* Enough data for several xz blocks and zstd jobs: threads really run. */
START_TEST(test_codec_threads_identical)
{
	static const struct rt_case cases[] = {
		{ ZD_COMP_XZ, 0, ZD_STRATEGY_DEFAULT, 0, false },
		{ ZD_COMP_ZSTD, 1, 0, ZD_LAYOUT_SINGLE, false },
		{ ZD_COMP_ZSTD, 1, 0, ZD_LAYOUT_SINGLE, true },
		{ ZD_COMP_GZIP, 6, ZD_STRATEGY_DEFAULT, 0, false },
	};
	const struct rt_case *c = &cases[_i];
	const size_t len = 12u << 20;
	unsigned char *data = malloc(len);
	unsigned char *ref = NULL;
	size_t ref_len = 0;

	/* Half random, half repeated: compressible but not trivially. */
	zd_test_fill_random(data, len / 2, 3);
	memcpy(data + len / 2, data, len / 2);
	for (size_t i = 0; i < len; i += 3)
		data[i] = 'a';
	for (unsigned t = 1; t <= 4; t *= 2) {
		struct zd_comp_params p = {
			.type = c->type, .level = c->level,
			.layout = c->layout, .zstd_long = c->zstd_long,
			.threads = t,
		};
		size_t clen;
		unsigned char *cb = compress_buf(&p, data, len, &clen);

		if (ref == NULL) {
			ref = cb;
			ref_len = clen;
			continue;
		}
		ck_assert_msg(clen == ref_len && memcmp(cb, ref, clen) == 0,
		              "%s: threads 1 and %u differ",
		              zd_codec_get(c->type)->name, t);
		free(cb);
	}
	if (c->type == ZD_COMP_XZ) {
		/* Several blocks, decoded on several threads. */
		struct zd_dec_params dp = dec_member;
		struct zd_error err = ZD_ERROR_INIT;
		struct membuf m = { 0 };

		dp.threads = 4;
		ck_assert_zd_ok(decompress_buf(c->type, ref, ref_len, &dp, &m,
		                               &err), &err);
		ck_assert(m.len == len && memcmp(m.p, data, len) == 0);
		free(m.p);
	}
	free(ref);
	free(data);
}
END_TEST

/*
 * dpkg-deb's own members: build a package with the real dpkg-deb, compress
 * its --fsys-tarfile output, compare with the data.tar.* member bytes.
 */
struct dpkg_case {
	const char *z;		/* -Z */
	int level;		/* -z */
	const char *strategy;	/* -S, or NULL */
	unsigned threads;	/* --threads-max */
};

static const struct dpkg_case dpkg_cases[] = {
	{ "gzip", 9, NULL, 1 },
	{ "gzip", 1, NULL, 2 },
	{ "gzip", 6, "filtered", 1 },
	{ "gzip", 9, "huffman", 1 },
	{ "gzip", 9, "rle", 1 },
	{ "gzip", 9, "fixed", 1 },
	{ "xz", 6, NULL, 1 },
	{ "xz", 6, NULL, 2 },
	{ "xz", 0, NULL, 1 },
	{ "xz", 3, "extreme", 2 },
	{ "zstd", 3, NULL, 1 },
	{ "zstd", 19, NULL, 1 },
	{ "zstd", 3, NULL, 2 },
	{ "zstd", 1, NULL, 2 },
	{ "zstd", 0, NULL, 1 },
	{ "zstd", 9, NULL, 2 },
};
#define N_DPKG_CASES (sizeof(dpkg_cases) / sizeof(dpkg_cases[0]))

static void
make_pkgdir(const char *dir)
{
	size_t len;
	unsigned char *text = make_data(DATA_TEXT, &len);
	unsigned char rnd[70000];
	char path[4200];

	ck_assert_int_eq(zd_test_sh("mkdir -p '%s/pkg/DEBIAN' "
	                            "'%s/pkg/usr/share/t'", dir, dir), 0);
	ck_assert_int_eq(zd_test_sh("printf 'Package: t\\nVersion: 1\\n"
	                            "Architecture: all\\nMaintainer: t <t@t>\\n"
	                            "Description: t\\n' > '%s/pkg/DEBIAN/"
	                            "control'", dir), 0);
	snprintf(path, sizeof(path), "%s/pkg/usr/share/t/text", dir);
	zd_test_write_file(path, text, len);
	zd_test_fill_random(rnd, sizeof(rnd), 11);
	snprintf(path, sizeof(path), "%s/pkg/usr/share/t/random", dir);
	zd_test_write_file(path, rnd, sizeof(rnd));
	free(text);
}

/* The tar in in_fd fed to a zd_cstream in uneven writes gives want. */
static void
check_stream_bytes(const struct zd_comp_params *p, int in_fd,
                   const unsigned char *want, size_t want_len)
{
	struct zd_error err = ZD_ERROR_INIT;
	int out = zd_tmpfile(&err);
	struct zd_cstream *s;
	unsigned char *tar, *got;
	size_t tar_len, got_len;

	ck_assert_int_ge(out, 0);
	tar = fd_slurp(in_fd, &tar_len);
	s = zd_codec_stream_new(p, out, &err);
	ck_assert_msg(s != NULL, "%s", err.msg);
	zd_test_write_uneven(zd_codec_stream_write, s, tar, tar_len, 300000,
	                     (uint64_t)p->level + 7);
	ck_assert_zd_ok(zd_codec_stream_finish(s, &err), &err);
	zd_codec_stream_free(s);
	got = fd_slurp(out, &got_len);
	ck_assert_msg(got_len == want_len && memcmp(got, want, got_len) == 0,
	              "streamed: %zu bytes, dpkg-deb wrote %zu", got_len,
	              want_len);
	close(out);
	free(tar);
	free(got);
}

START_TEST(test_codec_dpkg_bytes)
{
	const struct dpkg_case *dc = &dpkg_cases[_i];
	const struct zd_codec *c = zd_codec_find_by_name(dc->z);
	struct zd_comp_params p = {
		.type = c->type, .level = dc->level, .threads = dc->threads,
		.layout = ZD_LAYOUT_DPKG,
	};
	struct zd_error err = ZD_ERROR_INIT;
	char tar[4200], ref[4200];
	unsigned char *want, *got;
	size_t want_len, got_len;
	int in, out;
	uint64_t tar_size;

	if (!zd_test_tool("command -v dpkg-deb >/dev/null", "dpkg-deb") ||
	    !zd_test_tool("command -v ar >/dev/null", "ar"))
		return;
	if (dc->strategy != NULL)
		ck_assert_zd_ok(zd_codec_parse_strategy(c->type, dc->strategy,
		                                        &p.strategy, &err),
		                &err);
	make_pkgdir(zd_test_tmpdir);
	ck_assert_int_eq(zd_test_sh("cd '%s' && export SOURCE_DATE_EPOCH="
	                            "1700000000 && dpkg-deb --root-owner-group "
	                            "-Z%s -z%d %s%s --threads-max=%u -b pkg "
	                            "t.deb >/dev/null && dpkg-deb "
	                            "--fsys-tarfile t.deb > data.tar && ar p "
	                            "t.deb data.tar%s > ref", zd_test_tmpdir,
	                            dc->z, dc->level, dc->strategy ? "-S" : "",
	                            dc->strategy ? dc->strategy : "",
	                            dc->threads, c->ext), 0);
	snprintf(tar, sizeof(tar), "%s/data.tar", zd_test_tmpdir);
	snprintf(ref, sizeof(ref), "%s/ref", zd_test_tmpdir);
	want = zd_test_read_file(ref, &want_len);
	in = open(tar, O_RDONLY);
	ck_assert_int_ge(in, 0);
	ck_assert_zd_ok(zd_fd_size(in, &tar_size, &err), &err);
	ck_assert_uint_gt(tar_size, 1u << 20);
	out = zd_tmpfile(&err);
	ck_assert_int_ge(out, 0);
	ck_assert_zd_ok(zd_compress(&p, in, tar_size, out, &err), &err);
	got = fd_slurp(out, &got_len);
	ck_assert_msg(got_len == want_len && memcmp(got, want, got_len) == 0,
	              "-Z%s -z%d -S%s --threads-max=%u: %zu bytes, dpkg-deb "
	              "wrote %zu", dc->z, dc->level,
	              dc->strategy ? dc->strategy : "", dc->threads, got_len,
	              want_len);
	if (zd_codec_stream_supported(&p))
		check_stream_bytes(&p, in, want, want_len);
	close(in);
	close(out);
	free(want);
	free(got);
}
END_TEST

/* Write errors of a streaming compressor are reported, naming the write. */
START_TEST(test_codec_stream_write_error)
{
	static const enum zd_comp_type types[] = { ZD_COMP_GZIP, ZD_COMP_XZ };
	size_t len = 4u << 20;
	unsigned char *data = malloc(len);

	ck_assert_ptr_nonnull(data);
	zd_test_fill_random(data, len, 5);
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		struct zd_comp_params p = {
			.type = types[i], .level = 1, .threads = 2,
		};
		struct zd_error err = ZD_ERROR_INIT;
		int full = open("/dev/full", O_WRONLY);
		struct zd_cstream *s;
		int rc;

		ck_assert_int_ge(full, 0);
		s = zd_codec_stream_new(&p, full, &err);
		ck_assert_msg(s != NULL, "%s", err.msg);
		rc = zd_codec_stream_write(s, data, len, &err);
		if (rc == 0)
			rc = zd_codec_stream_finish(s, &err);
		ck_assert_int_eq(rc, -1);
		ck_assert_int_eq(err.code, ZD_E_IO);
		ck_assert_msg(strstr(err.msg, "No space left") != NULL, "%s",
		              err.msg);
		zd_codec_stream_free(s);
		close(full);
	}
	/* zstd's single layout needs its input size: no stream */
	{
		struct zd_comp_params p = {
			.type = ZD_COMP_ZSTD, .level = 3, .threads = 1,
			.layout = ZD_LAYOUT_SINGLE,
		};
		struct zd_error err = ZD_ERROR_INIT;

		ck_assert(!zd_codec_stream_supported(&p));
		ck_assert_ptr_null(zd_codec_stream_new(&p, 1, &err));
		ck_assert_int_eq(err.code, ZD_E_INTERNAL);
	}
	free(data);
}
END_TEST

START_TEST(test_codec_gzip_level0_is_none)
{
	struct zd_comp_params p = { .type = ZD_COMP_GZIP, .level = 0 };

	zd_codec_fixup_params(&p);
	ck_assert_int_eq(p.type, ZD_COMP_NONE);
	p.type = ZD_COMP_GZIP;
	p.level = 1;
	zd_codec_fixup_params(&p);
	ck_assert_int_eq(p.type, ZD_COMP_GZIP);
}
END_TEST

START_TEST(test_codec_lookup)
{
	static const unsigned char gz[] = { 0x1f, 0x8b, 8 };
	static const unsigned char xz[] = { 0xfd, '7', 'z', 'X', 'Z', 0 };
	static const unsigned char zst[] = { 0x28, 0xb5, 0x2f, 0xfd, 4 };
	static const unsigned char skip[] = { 0x5e, 0x2a, 0x4d, 0x18, 0 };
	static const unsigned char bz[] = { 'B', 'Z', 'h', '9' };
	static const unsigned char lz[] = { 0x5d, 0, 0, 0x80, 0 };
	static const unsigned char tar[] = { 'u', 's', 't', 'a', 'r' };

	ck_assert_int_eq(zd_codec_find_by_magic(gz, sizeof(gz))->type,
	                 ZD_COMP_GZIP);
	ck_assert_int_eq(zd_codec_find_by_magic(xz, sizeof(xz))->type,
	                 ZD_COMP_XZ);
	ck_assert_ptr_null(zd_codec_find_by_magic(xz, 5));
	ck_assert_int_eq(zd_codec_find_by_magic(zst, sizeof(zst))->type,
	                 ZD_COMP_ZSTD);
	ck_assert_int_eq(zd_codec_find_by_magic(skip, sizeof(skip))->type,
	                 ZD_COMP_ZSTD);
	ck_assert_int_eq(zd_codec_find_by_magic(bz, sizeof(bz))->type,
	                 ZD_COMP_BZIP2);
	ck_assert_int_eq(zd_codec_find_by_magic(lz, sizeof(lz))->type,
	                 ZD_COMP_LZMA);
	ck_assert_ptr_null(zd_codec_find_by_magic(tar, sizeof(tar)));
	ck_assert_ptr_null(zd_codec_find_by_magic(gz, 1));
	ck_assert_ptr_null(zd_codec_find_by_magic(NULL, 0));

	ck_assert_int_eq(zd_codec_find_by_ext(".zst")->type, ZD_COMP_ZSTD);
	ck_assert_int_eq(zd_codec_find_by_ext(".gz")->type, ZD_COMP_GZIP);
	ck_assert_int_eq(zd_codec_find_by_ext(".xz")->type, ZD_COMP_XZ);
	ck_assert_int_eq(zd_codec_find_by_ext(".bz2")->type, ZD_COMP_BZIP2);
	ck_assert_int_eq(zd_codec_find_by_ext(".lzma")->type, ZD_COMP_LZMA);
	ck_assert_int_eq(zd_codec_find_by_ext("")->type, ZD_COMP_NONE);
	ck_assert_ptr_null(zd_codec_find_by_ext(".zip"));

	ck_assert_int_eq(zd_codec_find_by_name("xz")->type, ZD_COMP_XZ);
	ck_assert_int_eq(zd_codec_find_by_name("none")->type, ZD_COMP_NONE);
	ck_assert_ptr_null(zd_codec_find_by_name("zst"));

	ck_assert_int_eq(zd_codec_get(ZD_COMP_GZIP)->default_level, 9);
	ck_assert_int_eq(zd_codec_get(ZD_COMP_XZ)->default_level, 6);
	ck_assert_int_eq(zd_codec_get(ZD_COMP_ZSTD)->default_level, 3);
	ck_assert_ptr_null(zd_codec_get(ZD_COMP_BZIP2)->compress);
	ck_assert_ptr_null(zd_codec_get(ZD_COMP_LZMA)->compress);
	ck_assert_ptr_null(zd_codec_get(ZD_COMP__COUNT));
	for (int t = 0; t < ZD_COMP__COUNT; t++)
		ck_assert_int_eq(zd_codec_get(t)->type, t);
}
END_TEST

START_TEST(test_codec_level_parse)
{
	struct zd_error err = ZD_ERROR_INIT;
	char want[256];
	int level = 0, min, max;

	ck_assert_zd_ok(zd_codec_parse_level(ZD_COMP_GZIP, "9", &level, &err),
	                &err);
	ck_assert_int_eq(level, 9);
	ck_assert_zd_ok(zd_codec_parse_level(ZD_COMP_ZSTD, "-7", &level,
	                                     &err), &err);
	ck_assert_int_eq(level, -7);
	ck_assert_zd_ok(zd_codec_parse_level(ZD_COMP_ZSTD, "22", &level,
	                                     &err), &err);
	ck_assert_int_eq(level, 22);

	ck_assert_int_eq(zd_codec_parse_level(ZD_COMP_GZIP, "foobar", &level,
	                                      &err), -1);
	ck_assert_int_eq(err.code, ZD_E_USAGE);
	ck_assert_str_eq(err.msg, "compression level 'foobar' is not an "
	                 "integer");
	ck_assert_int_eq(zd_codec_parse_level(ZD_COMP_GZIP, "10", &level,
	                                      &err), -1);
	ck_assert_str_eq(err.msg, "compression level 10 is out of range for "
	                 "gzip (0 to 9)");
	ck_assert_int_eq(zd_codec_parse_level(ZD_COMP_XZ, "-1", &level, &err),
	                 -1);
	ck_assert_str_eq(err.msg, "compression level -1 is out of range for "
	                 "xz (0 to 9)");
	ck_assert_int_eq(zd_codec_parse_level(ZD_COMP_ZSTD, "23", &level,
	                                      &err), -1);
	snprintf(want, sizeof(want), "compression level 23 is out of range "
	         "for zstd (%d to 22; 20 to 22 are 'ultra' levels that need "
	         "much more memory to compress and decompress)",
	         ZSTD_minCLevel());
	ck_assert_str_eq(err.msg, want);
	ck_assert_int_eq(zd_codec_parse_level(ZD_COMP_ZSTD,
	                                      "99999999999999999999", &level,
	                                      &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "is out of range for zstd"));
	ck_assert_int_eq(zd_codec_parse_level(ZD_COMP_BZIP2, "9", &level,
	                                      &err), -1);
	ck_assert_int_eq(level, 22);

	zd_codec_level_range(ZD_COMP_ZSTD, &min, &max);
	ck_assert_int_eq(min, ZSTD_minCLevel());
	ck_assert_int_eq(max, ZSTD_maxCLevel());
	zd_codec_level_range(ZD_COMP_NONE, &min, &max);
	ck_assert_int_eq(min, 0);
	ck_assert_int_eq(max, 0);
}
END_TEST

START_TEST(test_codec_strategy_parse)
{
	struct zd_error err = ZD_ERROR_INIT;
	enum zd_strategy s = ZD_STRATEGY_DEFAULT;

	ck_assert_zd_ok(zd_codec_parse_strategy(ZD_COMP_GZIP, "rle", &s,
	                                        &err), &err);
	ck_assert_int_eq(s, ZD_STRATEGY_RLE);
	ck_assert_zd_ok(zd_codec_parse_strategy(ZD_COMP_XZ, "extreme", &s,
	                                        &err), &err);
	ck_assert_int_eq(s, ZD_STRATEGY_EXTREME);
	for (int t = 0; t < ZD_COMP__COUNT; t++) {
		ck_assert_zd_ok(zd_codec_parse_strategy(t, "none", &s, &err),
		                &err);
		ck_assert_int_eq(s, ZD_STRATEGY_NONE);
	}
	ck_assert_int_eq(zd_codec_parse_strategy(ZD_COMP_GZIP, "extreme", &s,
	                                         &err), -1);
	ck_assert_int_eq(err.code, ZD_E_USAGE);
	ck_assert_str_eq(err.msg, "compression strategy 'extreme' is not "
	                 "valid for gzip (valid: none, filtered, huffman, rle, "
	                 "fixed)");
	ck_assert_int_eq(zd_codec_parse_strategy(ZD_COMP_XZ, "fixed", &s,
	                                         &err), -1);
	ck_assert_str_eq(err.msg, "compression strategy 'fixed' is not valid "
	                 "for xz (valid: none, extreme)");
	ck_assert_int_eq(zd_codec_parse_strategy(ZD_COMP_ZSTD, "rle", &s,
	                                         &err), -1);
	ck_assert_str_eq(err.msg, "compression strategy 'rle' is not valid "
	                 "for zstd (valid: none)");
	ck_assert_int_eq(zd_codec_parse_strategy(ZD_COMP_GZIP, "foo", &s,
	                                         &err), -1);
	ck_assert_str_eq(err.msg, "unknown compression strategy 'foo'");
	ck_assert_int_eq(s, ZD_STRATEGY_NONE);

	ck_assert_str_eq(zd_strategy_name(ZD_STRATEGY_HUFFMAN), "huffman");
	ck_assert_str_eq(zd_strategy_name(ZD_STRATEGY_EXTREME), "extreme");
	ck_assert_str_eq(zd_strategy_name(ZD_STRATEGY_NONE), "none");
}
END_TEST

/* The name lookup alone (dpkg-deb -S) and the type check alone (dpkg's
 * compressor_check_params), which dpkg-deb mode runs apart. */
START_TEST(test_codec_strategy_find)
{
	static const char *const names[] = { "none", "filtered", "huffman",
	                                     "rle", "fixed", "extreme" };
	enum zd_strategy s = ZD_STRATEGY_DEFAULT;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		ck_assert(zd_strategy_find_by_name(names[i], &s));
		ck_assert_str_eq(zd_strategy_name(s), names[i]);
	}
	s = ZD_STRATEGY_RLE;
	ck_assert(!zd_strategy_find_by_name("foo", &s));
	ck_assert(!zd_strategy_find_by_name("", &s));
	ck_assert(!zd_strategy_find_by_name("EXTREME", &s));
	ck_assert(!zd_strategy_find_by_name(NULL, &s));
	ck_assert_int_eq(s, ZD_STRATEGY_RLE);

	for (int t = 0; t < ZD_COMP__COUNT; t++) {
		ck_assert(zd_codec_strategy_valid(t, ZD_STRATEGY_DEFAULT));
		ck_assert(zd_codec_strategy_valid(t, ZD_STRATEGY_NONE));
		ck_assert(zd_codec_strategy_valid(t, ZD_STRATEGY_FIXED) ==
		          (t == ZD_COMP_GZIP));
		ck_assert(zd_codec_strategy_valid(t, ZD_STRATEGY_FILTERED) ==
		          (t == ZD_COMP_GZIP));
		ck_assert(zd_codec_strategy_valid(t, ZD_STRATEGY_EXTREME) ==
		          (t == ZD_COMP_XZ));
	}
}
END_TEST

START_TEST(test_codec_compress_rejects_bad_params)
{
	struct zd_comp_params p = { .type = ZD_COMP_GZIP, .level = 9,
	                            .strategy = ZD_STRATEGY_EXTREME,
	                            .threads = 1 };
	struct zd_error err = ZD_ERROR_INIT;

	ck_assert_int_eq(zd_compress(&p, -1, 0, -1, &err), -1);
	ck_assert_int_eq(err.code, ZD_E_USAGE);
	p.strategy = ZD_STRATEGY_DEFAULT;
	p.level = 10;
	ck_assert_int_eq(zd_compress(&p, -1, 0, -1, &err), -1);
	ck_assert_int_eq(err.code, ZD_E_USAGE);
	p.type = ZD_COMP_BZIP2;
	p.level = 9;
	ck_assert_int_eq(zd_compress(&p, -1, 0, -1, &err), -1);
	ck_assert_int_eq(err.code, ZD_E_UNSUPPORTED);
}
END_TEST

/* Runs a shell command in the fixture directory. */
#define SH_IN_TMP(...) \
	ck_assert_int_eq(zd_test_sh("cd '%s' && " __VA_ARGS__), 0)

static unsigned char *
tmp_file(const char *name, size_t *len)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/%s", zd_test_tmpdir, name);
	return zd_test_read_file(path, len);
}

static void
write_tmp_input(size_t *len, unsigned char **data)
{
	char path[4200];

	*data = make_data(DATA_TEXT, len);
	snprintf(path, sizeof(path), "%s/in", zd_test_tmpdir);
	zd_test_write_file(path, *data, *len);
}

static void
expect_decode(enum zd_comp_type type, const char *file,
              const unsigned char *data, size_t len, unsigned copies)
{
	struct zd_dec_params dp = dec_member;
	struct zd_error err = ZD_ERROR_INIT;
	struct membuf m = { 0 };
	size_t clen;
	unsigned char *cb = tmp_file(file, &clen);

	dp.threads = 2;
	ck_assert_zd_ok(decompress_buf(type, cb, clen, &dp, &m, &err), &err);
	ck_assert_uint_eq(m.len, len * copies);
	for (unsigned i = 0; i < copies; i++)
		ck_assert(memcmp(m.p + i * len, data, len) == 0);
	free(m.p);
	free(cb);
}

START_TEST(test_codec_zstd_multiframe)
{
	unsigned char *data;
	size_t len;

	write_tmp_input(&len, &data);
	SH_IN_TMP("zstd -q -3 in -o one.zst && cat one.zst one.zst > two.zst",
	          zd_test_tmpdir);
	/* pzstd puts a skippable frame before each of its frames. */
	SH_IN_TMP("pzstd -q -p 2 -3 in -o p.zst && "
	          "zstd -q -B262144 -T2 -19 in -o blk.zst",
	          zd_test_tmpdir);
	/* A skippable frame at the end (like an index) and a leading one. */
	SH_IN_TMP("printf '\\120\\052\\115\\030\\003\\000\\000\\000abc' > "
	          "skip && cat skip one.zst skip one.zst skip > skips.zst",
	          zd_test_tmpdir);
	expect_decode(ZD_COMP_ZSTD, "one.zst", data, len, 1);
	expect_decode(ZD_COMP_ZSTD, "two.zst", data, len, 2);
	expect_decode(ZD_COMP_ZSTD, "p.zst", data, len, 1);
	expect_decode(ZD_COMP_ZSTD, "blk.zst", data, len, 1);
	expect_decode(ZD_COMP_ZSTD, "skips.zst", data, len, 2);
	free(data);
}
END_TEST

START_TEST(test_codec_gzip_xz_bzip2_lzma_cli)
{
	unsigned char *data;
	size_t len;

	write_tmp_input(&len, &data);
	SH_IN_TMP("gzip -9 -n -c in > a.gz && cat a.gz a.gz > two.gz && "
	          "xz -c in > a.xz && cat a.xz a.xz > two.xz && "
	          "xz -T2 --block-size=200000 -c in > blk.xz && "
	          "bzip2 -c in > a.bz2 && cat a.bz2 a.bz2 > two.bz2 && "
	          "xz --format=lzma -c in > a.lzma", zd_test_tmpdir);
	expect_decode(ZD_COMP_GZIP, "a.gz", data, len, 1);
	expect_decode(ZD_COMP_GZIP, "two.gz", data, len, 2);
	expect_decode(ZD_COMP_XZ, "a.xz", data, len, 1);
	expect_decode(ZD_COMP_XZ, "two.xz", data, len, 2);
	expect_decode(ZD_COMP_XZ, "blk.xz", data, len, 1);
	expect_decode(ZD_COMP_BZIP2, "a.bz2", data, len, 1);
	expect_decode(ZD_COMP_BZIP2, "two.bz2", data, len, 2);
	expect_decode(ZD_COMP_LZMA, "a.lzma", data, len, 1);
	free(data);
}
END_TEST

/* One compressed sample per codec, made by us or the CLIs. */
static const struct {
	enum zd_comp_type type;
	const char *cmd;	/* writes "out" from "in" */
} samples[] = {
	{ ZD_COMP_GZIP, "gzip -n -c in > out" },
	{ ZD_COMP_XZ, "xz -T2 --block-size=300000 -c in > out" },
	{ ZD_COMP_ZSTD, "zstd -q -c in > out" },
	{ ZD_COMP_ZSTD, "pzstd -q -p 2 -c in > out" },
	{ ZD_COMP_BZIP2, "bzip2 -c in > out" },
	{ ZD_COMP_LZMA, "xz --format=lzma -c in > out" },
};
#define N_SAMPLES (sizeof(samples) / sizeof(samples[0]))

static unsigned char *
make_sample(size_t i, size_t *clen)
{
	unsigned char *data;
	size_t len;

	write_tmp_input(&len, &data);
	free(data);
	SH_IN_TMP("%s", zd_test_tmpdir, samples[i].cmd);
	return tmp_file("out", clen);
}

START_TEST(test_codec_truncated)
{
	size_t clen;
	unsigned char *cb = make_sample(_i, &clen);
	const size_t cuts[] = { 0, 1, 3, 9, 40, clen / 2, clen - 4, clen - 1 };

	for (size_t k = 0; k < sizeof(cuts) / sizeof(cuts[0]); k++) {
		struct zd_dec_params dp = dec_member;
		struct zd_error err = ZD_ERROR_INIT;
		struct membuf m = { 0 };
		char want[128];

		dp.threads = 2;
		ck_assert_int_eq(decompress_buf(samples[_i].type, cb, cuts[k],
		                                &dp, &m, &err), -1);
		ck_assert_msg(err.code == ZD_E_FORMAT, "%s cut at %zu: %d %s",
		              samples[_i].cmd, cuts[k], err.code, err.msg);
		snprintf(want, sizeof(want), "unexpected end of data in "
		         "'data.tar.x' at offset %zu", cuts[k]);
		ck_assert_msg(strcmp(err.msg, want) == 0 ||
		              strstr(err.msg, "corrupt ") == err.msg,
		              "%s cut at %zu: %s", samples[_i].cmd, cuts[k],
		              err.msg);
		/* Cutting the end off is always reported as such. */
		if (cuts[k] == clen / 2 || cuts[k] == 0)
			ck_assert_str_eq(err.msg, want);
		free(m.p);
	}
	free(cb);
}
END_TEST

START_TEST(test_codec_corrupt)
{
	size_t clen;
	unsigned char *cb = make_sample(_i, &clen);
	struct zd_dec_params dp = dec_member;
	struct zd_error err = ZD_ERROR_INIT;
	struct membuf m = { 0 };

	for (size_t k = clen / 3; k < clen / 3 + 64; k++)
		cb[k] ^= 0x55;
	dp.member = NULL;
	ck_assert_int_eq(decompress_buf(samples[_i].type, cb, clen, &dp, &m,
	                                &err), -1);
	ck_assert_msg(err.code == ZD_E_FORMAT || err.code == ZD_E_CHECKSUM,
	              "%s: %d %s", samples[_i].cmd, err.code, err.msg);
	ck_assert_msg(strstr(err.msg, "in 'member' at offset") != NULL,
	              "%s", err.msg);
	/* Trailing garbage after the data is an error too. */
	m.len = 0;
	free(cb);
	cb = make_sample(_i, &clen);
	cb = realloc(cb, clen + 5);
	ck_assert_ptr_nonnull(cb);
	memcpy(cb + clen, "\x01junk", 5);
	ck_assert_int_eq(decompress_buf(samples[_i].type, cb, clen + 5, &dp,
	                                &m, &err), -1);
	ck_assert_msg(err.code == ZD_E_FORMAT, "%s: %s", samples[_i].cmd,
	              err.msg);
	free(m.p);
	free(cb);
}
END_TEST

START_TEST(test_codec_max_output)
{
	size_t clen;
	unsigned char *cb = make_sample(_i, &clen);
	struct zd_dec_params dp = dec_member;
	struct zd_error err = ZD_ERROR_INIT;
	struct membuf m = { 0 };

	dp.max_output = 100000;
	ck_assert_int_eq(decompress_buf(samples[_i].type, cb, clen, &dp, &m,
	                                &err), -1);
	ck_assert_int_eq(err.code, ZD_E_LIMIT);
	ck_assert_str_eq(err.msg, "decoded data of 'data.tar.x' exceeds the "
	                 "limit of 100000 bytes");
	ck_assert_uint_le(m.len, 100000);
	free(m.p);
	free(cb);
}
END_TEST

START_TEST(test_codec_none_max_output)
{
	unsigned char buf[5000] = { 0 };
	struct zd_dec_params dp = dec_member;
	struct zd_error err = ZD_ERROR_INIT;
	struct membuf m = { 0 };

	dp.max_output = 4999;
	ck_assert_int_eq(decompress_buf(ZD_COMP_NONE, buf, sizeof(buf), &dp,
	                                &m, &err), -1);
	ck_assert_int_eq(err.code, ZD_E_LIMIT);
	dp.max_output = 5000;
	ck_assert_zd_ok(decompress_buf(ZD_COMP_NONE, buf, sizeof(buf), &dp,
	                               &m, &err), &err);
	ck_assert_uint_eq(m.len, 5000);
	free(m.p);
}
END_TEST

/* The library's default cap, 1 GiB + 1024 x the compressed size: every
 * decoder has it without the caller asking; ZD_DEC_UNLIMITED lifts it. */
START_TEST(test_codec_default_max_output)
{
	/* a frame declaring 3 GiB (8-byte content size, 1 MiB window), one
	 * raw block of 5 bytes: refused from its header */
	static const unsigned char frame[] = {
		0x28, 0xb5, 0x2f, 0xfd, 0xc0, 0x50,
		0, 0, 0, 0xc0, 0, 0, 0, 0,
		(5 << 3) | 1, 0, 0, 'h', 'e', 'l', 'l', 'o',
	};
	struct zd_dec_params dp = dec_member;
	struct zd_error err = ZD_ERROR_INIT;
	struct membuf m = { 0 };

	ck_assert_uint_eq(zd_dec_max_output(&dp, 0), UINT64_C(1) << 30);
	ck_assert_uint_eq(zd_dec_max_output(&dp, 1000),
	                  (UINT64_C(1) << 30) + 1024000);
	ck_assert_uint_eq(zd_dec_max_output(&dp, UINT64_MAX / 1000),
	                  ZD_DEC_UNLIMITED);
	dp.max_output = 77;
	ck_assert_uint_eq(zd_dec_max_output(&dp, 1000), 77);
	dp.max_output = 0;
	ck_assert_int_eq(decompress_buf(ZD_COMP_ZSTD, frame, sizeof(frame),
	                                &dp, &m, &err), -1);
	ck_assert_int_eq(err.code, ZD_E_LIMIT);
	ck_assert_msg(strstr(err.msg, "exceeds the limit of 1073764352 "
	                     "bytes") != NULL, "%s", err.msg);
	ck_assert_uint_eq(m.len, 0);
	/* lifted: decoded, and then it is short of what it declared */
	zd_err_clear(&err);
	dp.max_output = ZD_DEC_UNLIMITED;
	ck_assert_int_eq(decompress_buf(ZD_COMP_ZSTD, frame, sizeof(frame),
	                                &dp, &m, &err), -1);
	ck_assert_int_ne(err.code, ZD_E_LIMIT);
	free(m.p);
}
END_TEST

START_TEST(test_codec_zstd_window_limit)
{
	/* From a file: single segment, the window is the content size. */
	static const struct {
		const char *cmd;
		uint64_t window;
	} cases[] = {
		{ "zstd -q --long=21 -c in > out", 1572869 },
		{ "zstd -q --long=21 -c < in > out", 2097152 },
	};
	unsigned char *data, *cb;
	size_t len, clen;

	write_tmp_input(&len, &data);
	ck_assert_uint_eq(len, 1572869);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct zd_dec_params dp = dec_member;
		struct zd_error err = ZD_ERROR_INIT;
		struct membuf m = { 0 };
		char want[128];

		SH_IN_TMP("%s", zd_test_tmpdir, cases[i].cmd);
		cb = tmp_file("out", &clen);
		dp.max_window = 1u << 20;
		ck_assert_int_eq(decompress_buf(ZD_COMP_ZSTD, cb, clen, &dp,
		                                &m, &err), -1);
		ck_assert_int_eq(err.code, ZD_E_LIMIT);
		snprintf(want, sizeof(want), "window of %ju bytes exceeds the "
		         "limit of 1048576 bytes in 'data.tar.x' at offset 0",
		         (uintmax_t)cases[i].window);
		ck_assert_str_eq(err.msg, want);
		dp.max_window = cases[i].window;
		m.len = 0;
		ck_assert_zd_ok(decompress_buf(ZD_COMP_ZSTD, cb, clen, &dp, &m,
		                               &err), &err);
		ck_assert(m.len == len && memcmp(m.p, data, len) == 0);
		free(m.p);
		free(cb);
	}
	free(data);
}
END_TEST

static Suite *
codec_suite(void)
{
	Suite *s = suite_create("codec");
	TCase *core = zd_test_tcase(s, "core");
	TCase *malformed = zd_test_tcase(s, "malformed");
	TCase *limits = zd_test_tcase(s, "limits");

	tcase_set_timeout(core, 300);

	tcase_add_test(core, test_codec_lookup);
	tcase_add_test(core, test_codec_level_parse);
	tcase_add_test(core, test_codec_strategy_parse);
	tcase_add_test(core, test_codec_strategy_find);
	tcase_add_test(core, test_codec_gzip_level0_is_none);
	tcase_add_loop_test(core, test_codec_roundtrip, 0,
	                    N_RT_CASES * DATA__COUNT);
	tcase_add_loop_test(core, test_codec_threads_identical, 0, 4);
	tcase_add_loop_test(core, test_codec_dpkg_bytes, 0, N_DPKG_CASES);
	tcase_add_test(core, test_codec_zstd_multiframe);
	tcase_add_test(core, test_codec_gzip_xz_bzip2_lzma_cli);

	tcase_add_test(malformed, test_codec_compress_rejects_bad_params);
	tcase_add_test(malformed, test_codec_stream_write_error);
	tcase_add_loop_test(malformed, test_codec_truncated, 0, N_SAMPLES);
	tcase_add_loop_test(malformed, test_codec_corrupt, 0, N_SAMPLES);

	tcase_add_loop_test(limits, test_codec_max_output, 0, N_SAMPLES);
	tcase_add_test(limits, test_codec_none_max_output);
	tcase_add_test(limits, test_codec_default_max_output);
	tcase_add_test(limits, test_codec_zstd_window_limit);

	return s;
}

int
main(void)
{
	return zd_test_main(codec_suite());
}
