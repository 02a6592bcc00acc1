/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check-zstd-frame.c - frame, block and skippable header parsing */
#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "lib/endian.h"
#include "lib/zstd-frame.h"
#include "tests/unit/testutil.h"

static unsigned char *
compress(const void *src, size_t len, int level, bool checksum,
         bool content_size, size_t *out_len)
{
	ZSTD_CCtx *c = ZSTD_createCCtx();
	size_t cap = ZSTD_compressBound(len);
	unsigned char *out = malloc(cap);
	size_t rc;

	ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, level);
	ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, checksum);
	ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, content_size);
	rc = ZSTD_compress2(c, out, cap, src, len);
	ck_assert(!ZSTD_isError(rc));
	ZSTD_freeCCtx(c);
	*out_len = rc;
	return out;
}

/* A region over a buffer, through a temporary file. */
static struct zd_region
region_of(const void *buf, size_t len)
{
	char path[4200];
	struct zd_region r;

	snprintf(path, sizeof(path), "%s/region", zd_test_tmpdir);
	zd_test_write_file(path, buf, len);
	r.fd = open(path, O_RDONLY);
	ck_assert_int_ge(r.fd, 0);
	r.off = 0;
	r.len = len;
	return r;
}

START_TEST(test_zstd_frame_header_libzstd)
{
	static const size_t sizes[] = { 0, 1, 255, 256, 65791, 65792,
	                                1000000 };

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct zd_error err = ZD_ERROR_INIT;
		unsigned char *src = calloc(1, sizes[i] + 1), *z;
		struct zd_zstd_fhdr h;
		size_t zl;

		zd_test_fill_random(src, sizes[i] / 2, i);
		z = compress(src, sizes[i], 3, i & 1, true, &zl);
		ck_assert_int_eq(zd_zstd_fhdr_parse(z, zl, &h, &err), 0);
		ck_assert(h.has_content_size);
		ck_assert_uint_eq(h.content_size, sizes[i]);
		ck_assert_int_eq(h.checksum, i & 1);
		ck_assert_uint_eq(h.content_size, ZSTD_getFrameContentSize(z,
		                  zl));
		ck_assert_uint_ge(h.window_size, h.single_segment ?
		                  sizes[i] : 1024);
		/* short buffers ask for more */
		for (size_t n = 0; n < h.header_size; n++)
			ck_assert_int_eq(zd_zstd_fhdr_parse(z, n, &h, &err),
			                 1);
		free(z);
		z = compress(src, sizes[i], 1, false, false, &zl);
		ck_assert_int_eq(zd_zstd_fhdr_parse(z, zl, &h, &err), 0);
		ck_assert(!h.has_content_size);
		free(z);
		free(src);
	}
}
END_TEST

START_TEST(test_zstd_frame_header_write)
{
	static const uint64_t sizes[] = { 0, 1, 255, 256, 70000,
	                                  UINT32_MAX, UINT64_C(1) << 32 };
	unsigned char b[ZD_ZSTD_FHDR_MAX + 3];
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_zstd_fhdr h;

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		for (unsigned wl = 10; wl <= 27; wl += 17) {
			size_t n = zd_zstd_fhdr_write(b, wl, true, sizes[i],
			                              true);

			ck_assert_uint_eq(n, sizes[i] <= UINT32_MAX ? 10 : 14);
			ck_assert_int_eq(zd_zstd_fhdr_parse(b, n, &h, &err),
			                 0);
			ck_assert_uint_eq(h.header_size, n);
			ck_assert_uint_eq(h.content_size, sizes[i]);
			ck_assert_uint_eq(h.window_size, UINT64_C(1) << wl);
			ck_assert(!h.single_segment && h.checksum);
			ck_assert_uint_eq(ZSTD_getFrameContentSize(b, n),
			                  sizes[i]);
		}
	}
	ck_assert_uint_eq(zd_zstd_fhdr_write(b, 20, false, 0, false), 6);
	/* a frame with this header and an empty last raw block decodes */
	b[6] = 1;
	b[7] = b[8] = 0;
	ck_assert_uint_eq(ZSTD_decompress(b + 10, 1, b, 9), 0);
}
END_TEST

START_TEST(test_zstd_frame_header_malformed)
{
	unsigned char b[ZD_ZSTD_FHDR_MAX];
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_zstd_fhdr h;
	size_t n = zd_zstd_fhdr_write(b, 20, true, 5, true);

	b[4] |= 0x08;
	ck_assert_int_eq(zd_zstd_fhdr_parse(b, n, &h, &err), -1);
	ck_assert_int_eq(err.code, ZD_E_FORMAT);
	ck_assert_ptr_nonnull(strstr(err.msg, "reserved bit"));
	b[4] &= ~0x08;
	b[0] ^= 1;
	ck_assert_int_eq(zd_zstd_fhdr_parse(b, n, &h, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "magic"));
	b[0] ^= 1;
	b[5] = 0xff;	/* window log 41 + mantissa: still in range */
	ck_assert_int_eq(zd_zstd_fhdr_parse(b, n, &h, &err), 0);
}
END_TEST

START_TEST(test_zstd_frame_block)
{
	static const unsigned char reset_a[3] = { 0x3c, 0x00, 0x00 };
	static const unsigned char rle_last[3] = { 0x0b, 0x01, 0x00 };
	static const unsigned char reserved[3] = { 0x06, 0x00, 0x00 };
	static const unsigned char big_raw[3] = { 0x00, 0x00, 0x20 };
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_zstd_block bl;

	ck_assert_int_eq(zd_zstd_block_parse(reset_a, 1 << 17, &bl, &err), 0);
	ck_assert(!bl.last);
	ck_assert_int_eq(bl.type, ZD_ZSTD_BLOCK_COMPRESSED);
	ck_assert_uint_eq(bl.size, 7);
	ck_assert_uint_eq(bl.csize, 7);
	ck_assert_int_eq(zd_zstd_block_parse(rle_last, 1 << 17, &bl, &err),
	                 0);
	ck_assert(bl.last);
	ck_assert_int_eq(bl.type, ZD_ZSTD_BLOCK_RLE);
	ck_assert_uint_eq(bl.size, 33);
	ck_assert_uint_eq(bl.csize, 1);
	ck_assert_int_eq(zd_zstd_block_parse(rle_last, 32, &bl, &err), -1);
	ck_assert_int_eq(zd_zstd_block_parse(reserved, 1 << 17, &bl, &err),
	                 -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "reserved"));
	ck_assert_int_eq(zd_zstd_block_parse(big_raw, 1 << 17, &bl, &err),
	                 -1);
}
END_TEST

START_TEST(test_zstd_frame_walk)
{
	struct zd_error err = ZD_ERROR_INIT;
	size_t n1, n2, len = 600000;
	char want[100];
	unsigned char *src = malloc(len), *z1, *z2, *all;
	static const unsigned char skip[12] = {
		0x50, 0x2a, 0x4d, 0x18, 4, 0, 0, 0, 1, 2, 3, 4,
	};
	struct zd_zstd_frame_info fi;
	struct zd_region r;
	uint64_t off = 0;

	zd_test_fill_random(src, len, 7);
	memset(src + 100000, 'a', 300000);
	z1 = compress(src, len, 3, true, true, &n1);
	z2 = compress(src, 1000, 1, false, false, &n2);
	all = malloc(n1 + n2 + sizeof(skip));
	memcpy(all, z1, n1);
	memcpy(all + n1, skip, sizeof(skip));
	memcpy(all + n1 + sizeof(skip), z2, n2);
	r = region_of(all, n1 + n2 + sizeof(skip));

	ck_assert_zd_ok(zd_zstd_frame_walk(&r, off, "m", &fi, NULL, NULL,
	                                   &err), &err);
	ck_assert(!fi.skippable);
	ck_assert_uint_eq(fi.size, n1);
	ck_assert_uint_ge(fi.decoded_max, len);
	ck_assert_uint_ge(fi.blocks, len / (128 << 10));
	off += fi.size;
	ck_assert_zd_ok(zd_zstd_frame_walk(&r, off, "m", &fi, NULL, NULL,
	                                   &err), &err);
	ck_assert(fi.skippable);
	ck_assert_uint_eq(fi.magic, 0x184D2A50);
	ck_assert_uint_eq(fi.size, 12);
	off += fi.size;
	ck_assert_zd_ok(zd_zstd_frame_walk(&r, off, "m", &fi, NULL, NULL,
	                                   &err), &err);
	ck_assert_uint_eq(fi.size, n2);
	ck_assert_uint_ge(fi.decoded_max, 1000);
	close(r.fd);

	/* every truncation of the first frame is reported, never a hang */
	for (size_t cut = 0; cut < n1; cut += cut < 64 ? 1 : 4099) {
		r = region_of(all, cut);
		ck_assert_int_eq(zd_zstd_frame_walk(&r, 0, "data.tar.zst", &fi,
		                                    NULL, NULL, &err), -1);
		ck_assert_int_eq(err.code, ZD_E_FORMAT);
		close(r.fd);
	}
	r = region_of(all, n1 - 1);
	ck_assert_int_eq(zd_zstd_frame_walk(&r, 0, "data.tar.zst", &fi,
	                                    NULL, NULL, &err), -1);
	snprintf(want, sizeof(want), "unexpected end of data in "
	         "'data.tar.zst' at offset %zu", n1 - 1);
	ck_assert_str_eq(err.msg, want);
	close(r.fd);
	free(src);
	free(z1);
	free(z2);
	free(all);
}
END_TEST

START_TEST(test_zstd_frame_log2)
{
	ck_assert_uint_eq(zd_log2_ceil(0), 0);
	ck_assert_uint_eq(zd_log2_ceil(1), 0);
	ck_assert_uint_eq(zd_log2_ceil(2), 1);
	ck_assert_uint_eq(zd_log2_ceil(1025), 11);
	ck_assert_uint_eq(zd_log2_ceil(UINT64_C(1) << 40), 40);
}
END_TEST

static Suite *
zstd_frame_suite(void)
{
	Suite *s = suite_create("zstd-frame");
	TCase *core = zd_test_tcase(s, "core");
	TCase *malformed = zd_test_tcase(s, "malformed");

	tcase_add_test(core, test_zstd_frame_header_libzstd);
	tcase_add_test(core, test_zstd_frame_header_write);
	tcase_add_test(core, test_zstd_frame_block);
	tcase_add_test(core, test_zstd_frame_log2);
	tcase_add_test(malformed, test_zstd_frame_header_malformed);
	tcase_add_test(malformed, test_zstd_frame_walk);
	return s;
}

int
main(void)
{
	return zd_test_main(zstd_frame_suite());
}
