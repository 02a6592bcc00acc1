/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check-zseg-read.c - pieces of an indexed frame: every segment decodes on
 * its own, walking the blocks finds the index's boundaries, the index
 * found from the tail alone
 */
#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>
#include <zstd.h>

#include "lib/endian.h"
#include "lib/zseg-index.h"
#include "lib/zseg-reset.h"
#include "lib/zseg-read.h"
#include "lib/zstd-frame.h"
#include "tests/unit/testutil.h"
#include "tests/unit/zseg-fixture.h"

/* ---- structure: every segment decodes on its own ---- */

/* A tar (resets: the pair) and machine code (resets with literals). */
static const enum input_kind standalone_kinds[] = { IN_TAR, IN_CODE };

START_TEST(test_zseg_read_segments_standalone)
{
	const enum input_kind kind = standalone_kinds[_i];
	struct zd_error err = ZD_ERROR_INIT;
	struct parsed ps;
	size_t len = make_input(kind, 8 * MIB), inlen;
	unsigned char *in;
	uint64_t pos, upos = 0;
	struct zd_zseg_piece *walked = NULL;
	size_t nwalked = 0, pairs = 0, lits = 0;
	struct zd_region r;

	ck_assert_zd_ok(compress_to(path_in, path_z, ZD_LAYOUT_INDEXED, 3,
	                            256 * KIB, 2, &err), &err);
	in = zd_test_read_file(path_in, &inlen);
	ck_assert_uint_eq(inlen, len);
	parse_output(&ps);
	ck_assert_uint_gt(ps.idx.nrec, 10);
	ck_assert_uint_eq(ps.idx.nrec, ps.idx.segments);
	/* header: checksum on, single segment off, FCS in 4 bytes */
	ck_assert_uint_eq(ps.z[4], 0x84);
	ck_assert(ps.outer.hdr.checksum && !ps.outer.hdr.single_segment);
	ck_assert_uint_eq(ps.outer.hdr.content_size, len);
	pos = ps.outer.hdr.header_size;
	for (size_t i = 0; i < ps.idx.nrec; i++) {
		const struct zd_zseg_record *rec = &ps.idx.rec[i];
		unsigned char *f = malloc(rec->csize + 6);
		unsigned char *out = malloc(rec->usize + 1);
		size_t n;

		/* the segment with its reset, B or F marked last */
		zd_zstd_fhdr_write(f, ps.idx.window_log, false, 0, false);
		memcpy(f + 6, ps.z + pos, rec->csize);
		if (i + 1 < ps.idx.nrec) {
			struct zd_zseg_reset rs;
			unsigned char want[ZD_ZSEG_RESET_MAX];
			size_t wn;

			/* the reset the bytes before the cut call for:
			 * the pair after 17 identical ones */
			ck_assert(zd_zseg_reset_find(in + upos + rec->usize,
			                             rec->usize, &rs));
			if (kind == IN_CODE)
				ck_assert(!rs.pair);
			pairs += rs.pair;
			lits += !rs.pair;
			wn = zd_zseg_reset_encode(in + upos + rec->usize, &rs,
			                          want);
			ck_assert_uint_ge(rec->csize, wn);
			ck_assert_mem_eq(f + 6 + rec->csize - wn, want, wn);
			f[6 + rec->csize - ZD_ZSEG_RESET_LAST] |= 1;
		}
		n = ZSTD_decompress(out, rec->usize + 1, f, rec->csize + 6);
		ck_assert_msg(!ZSTD_isError(n), "segment %zu: %s", i,
		              ZSTD_getErrorName(n));
		ck_assert_uint_eq(n, rec->usize);
		ck_assert_mem_eq(out, in + upos, n);
		ck_assert_uint_eq(XXH64(out, n, 0), rec->hash);
		pos += rec->csize;
		upos += rec->usize;
		free(f);
		free(out);
	}
	ck_assert_uint_eq(upos, len);
	/* version 2 where a record ends in a reset with literals; a tar
	 * has 17 zeros at the end of most members */
	ck_assert_uint_eq(ps.idx.version, lits > 0 ? 2 : 1);
	if (kind == IN_TAR)
		ck_assert_uint_gt(pairs, 2 * lits);
	/* the content checksum */
	ck_assert_uint_eq(zd_le32(ps.z + ps.outer.size - 4),
	                  (uint32_t)XXH64(in, len, 0));
	/* walking the blocks finds exactly the index's boundaries */
	open_region(path_z, &r);
	ck_assert_uint_eq(r.len, ps.zlen);
	ck_assert_zd_ok(zd_zseg_pieces_walk(&r, &ps.outer, &walked, &nwalked,
	                                    &err), &err);
	ck_assert_uint_eq(nwalked, ps.idx.nrec);
	pos = ps.outer.hdr.header_size;
	for (size_t i = 0; i < nwalked; i++) {
		ck_assert_uint_eq(walked[i].off, pos);
		ck_assert_uint_eq(walked[i].csize, ps.idx.rec[i].csize);
		ck_assert_uint_ge(walked[i].bound, ps.idx.rec[i].usize);
		pos += walked[i].csize;
	}
	/* a version-1 index lists no reset with literals */
	if (kind == IN_CODE) {
		struct zd_zseg_piece *pc = NULL;
		size_t npc = 0;

		ps.idx.version = 1;
		ck_assert_int_eq(zd_zseg_pieces_from_index(&r, &ps.outer,
		                                           &ps.idx, &pc, &npc,
		                                           &err), -1);
		ck_assert_int_eq(err.code, ZD_E_FORMAT);
		ck_assert_str_eq(err.msg, "index record 0 does not end at a "
		                 "reset");
		ps.idx.version = 2;
		ck_assert_zd_ok(zd_zseg_pieces_from_index(&r, &ps.outer,
		                                          &ps.idx, &pc, &npc,
		                                          &err), &err);
		ck_assert_uint_eq(npc, ps.idx.nrec);
		free(pc);
	}
	close(r.fd);
	free(walked);
	zd_zseg_index_free(&ps.idx);
	free(ps.z);
	free(in);
}
END_TEST

/* ---- the index found from the tail, without a walk ---- */

/* zd_zseg_index_at_tail() on path_z; with *outer and *ixf on success. */
static int
at_tail(struct zd_zstd_frame_info *outer, struct zd_zstd_frame_info *ixf)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_zseg_index idx;
	struct zd_region r;
	int rc;

	open_region(path_z, &r);
	rc = zd_zseg_index_at_tail(&r, outer, ixf, &idx, &err);
	ck_assert_msg(rc >= 0, "%s", err.msg);
	if (rc == 1) {
		ck_assert_uint_ge(idx.nrec, 1);
		zd_zseg_index_free(&idx);
	}
	close(r.fd);
	return rc;
}

START_TEST(test_zseg_read_index_at_tail)
{
	static const unsigned char skip[12] = {
		0x50, 0x2a, 0x4d, 0x18, 4, 0, 0, 0, 1, 2, 3, 4,
	};
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_zstd_frame_info outer, ixf;
	struct parsed ps;
	unsigned char *z;

	make_input(IN_TEXT, 2 * MIB);
	ck_assert_zd_ok(compress_to(path_in, path_z, ZD_LAYOUT_INDEXED, 3,
	                            128 * KIB, 2, &err), &err);
	parse_output(&ps);
	/* found: the same frames as the walk finds */
	ck_assert_int_eq(at_tail(&outer, &ixf), 1);
	ck_assert_uint_eq(outer.off, 0);
	ck_assert_uint_eq(outer.size, ps.outer.size);
	ck_assert_uint_eq(outer.hdr.window_size, ps.outer.hdr.window_size);
	ck_assert_uint_eq(outer.hdr.content_size, 2 * MIB);
	ck_assert_uint_eq(ixf.off, ps.outer.size);
	ck_assert_uint_eq(ixf.size, ps.ixf.size);
	/* a skippable frame after the index: not at the tail, walked */
	z = malloc(ps.zlen + sizeof(skip));
	ck_assert_ptr_nonnull(z);
	memcpy(z, ps.z, ps.zlen);
	memcpy(z + ps.zlen, skip, sizeof(skip));
	zd_test_write_file(path_z, z, ps.zlen + sizeof(skip));
	ck_assert_int_eq(at_tail(&outer, &ixf), 0);
	check_decodes(path_z, 2);
	/* a damaged check value: not taken; the walk warns */
	memcpy(z, ps.z, ps.zlen);
	z[ps.zlen - 1] ^= 0x40;
	zd_test_write_file(path_z, z, ps.zlen);
	ck_assert_int_eq(at_tail(&outer, &ixf), 0);
	/* a frame header that disagrees with the index: not taken */
	memcpy(z, ps.z, ps.zlen);
	z[4] ^= 0x04;		/* content checksum flag */
	zd_test_write_file(path_z, z, ps.zlen);
	ck_assert_int_eq(at_tail(&outer, &ixf), 0);
	/* no index, and a region shorter than a skippable header */
	zd_test_write_file(path_z, ps.z, ps.outer.size);
	ck_assert_int_eq(at_tail(&outer, &ixf), 0);
	zd_test_write_file(path_z, ps.z, 5);
	ck_assert_int_eq(at_tail(&outer, &ixf), 0);
	/* one byte cut from the front: the frame header is gone */
	zd_test_write_file(path_z, ps.z + 1, ps.zlen - 1);
	ck_assert_int_eq(at_tail(&outer, &ixf), 0);
	free(z);
	zd_zseg_index_free(&ps.idx);
	free(ps.z);
}
END_TEST

/* ---- a reset is the blocks the walk finds, not bytes that end like one ---- */

/* Decodes frame header h plus the n bytes at seg, the byte 10 before
 * their end marked last (as the reader decodes a segment on its own). */
static size_t
alone(const unsigned char *seg, size_t n, unsigned char *out, size_t cap)
{
	unsigned char f[256];
	size_t h = zd_zstd_fhdr_write(f, 10, false, 0, false), r;

	ck_assert_uint_le(h + n, sizeof(f));
	memcpy(f + h, seg, n);
	f[h + n - ZD_ZSEG_RESET_LAST] |= 1;
	r = ZSTD_decompress(out, cap, f, h + n);
	ck_assert_msg(!ZSTD_isError(r), "%s", ZSTD_getErrorName(r));
	return r;
}

/*
 * Two segments in one frame: the first a raw block of raw (not last) and
 * then the blocks tail; the second one compressed block of 10 literals and
 * a match of 3 at repeat code 3, which is offset 8 in a fresh frame and
 * what the first segment left otherwise.  The index (version 2) has the
 * hashes of each segment decoded on its own, the frame checksum is of the
 * one-pass decode (zstd -d, dpkg-deb), and the two differ unless the
 * first segment ends in a reset.  Returns the size written to f.
 */
static size_t
two_segments(unsigned char *f, size_t cap, const unsigned char *raw,
             size_t nraw, const unsigned char *tail, size_t ntail)
{
	static const unsigned char lits[10] = "ABCDEFGHIJ";
	unsigned char a1[128], a2[13], whole[256], one[256];
	size_t h, n, r1, r2, n1, nwhole;
	uint32_t ck;

	h = zd_zstd_fhdr_write(f, 10, true, 0, true);	/* size: below */
	n = h;
	f[n++] = (unsigned char)(nraw << 3);	/* raw, not last */
	f[n++] = (unsigned char)(nraw >> 5);
	f[n++] = 0;
	memcpy(f + n, raw, nraw);
	n += nraw;
	memcpy(f + n, tail, ntail);
	n += ntail;
	r1 = n - h;
	n1 = alone(f + h, r1, a1, sizeof(a1));
	f[n++] = (17 << 3) | (2 << 1) | 1;	/* compressed, last, 17 */
	f[n++] = 0;
	f[n++] = 0;
	f[n++] = 10 << 3;			/* 10 raw literals */
	memcpy(f + n, lits, 10);
	n += 10;
	/* one sequence, RLE codes: literal length 10, offset code 1 and
	 * its bit (value 3: repeat 3), match length 3 */
	f[n++] = 1;
	f[n++] = 0x54;
	f[n++] = 10;
	f[n++] = 1;
	f[n++] = 0;
	f[n++] = 0x03;
	r2 = n - h - r1;
	ck_assert_uint_eq(zd_zstd_fhdr_write(f, 10, true, n1 + 13, true), h);
	memcpy(a2, lits, 10);			/* on its own: offset 8 */
	memcpy(a2 + 10, lits + 2, 3);
	ck_assert_uint_le(n, sizeof(one));
	memcpy(one, f, n);
	one[4] &= (unsigned char)~0x04;		/* no checksum to check */
	nwhole = ZSTD_decompress(whole, sizeof(whole), one, n);
	ck_assert_msg(!ZSTD_isError(nwhole), "%s", ZSTD_getErrorName(nwhole));
	ck_assert_uint_eq(nwhole, n1 + 13);
	ck_assert_mem_eq(whole, a1, n1);
	ck_assert(memcmp(whole + n1, a2, 13) != 0);
	ck = (uint32_t)XXH64(whole, nwhole, 0);
	f[n++] = (unsigned char)ck;
	f[n++] = (unsigned char)(ck >> 8);
	f[n++] = (unsigned char)(ck >> 16);
	f[n++] = (unsigned char)(ck >> 24);
	{
		struct zd_zseg_record rec[2] = {
			{ r1, n1, 1, XXH64(a1, n1, 0) },
			{ r2, 13, 1, XXH64(a2, 13, 0) },
		};
		struct zd_zseg_index idx = { 2, 10, (unsigned)h, n1 + 13, 2, 2,
		                             rec };
		size_t ni = zd_zseg_index_encode(&idx, f + n, cap - n);

		ck_assert_uint_gt(ni, 0);
		n += ni;
	}
	return n;
}

/* -T1 decodes in one pass and finds the second segment's hash wrong;
 * more threads decode it on its own and refuse the first one's end. */
static void
refused(const unsigned char *f, size_t n)
{
	struct zd_error err = ZD_ERROR_INIT;

	zd_test_write_file(path_z, f, n);
	ck_assert_int_eq(decode_to(path_z, path_out, 1, 0, 0, &err), -1);
	ck_assert_int_eq(err.code, ZD_E_CHECKSUM);
	zd_err_clear(&err);
	ck_assert_int_eq(decode_to(path_z, path_out, 4, 0, 0, &err), -1);
	ck_assert_int_eq(err.code, ZD_E_FORMAT);
	ck_assert_msg(strstr(err.msg, "segment 0 at offset 10: corrupt zstd "
	                     "data: the piece's blocks do not end in a "
	                     "reset") != NULL, "%s", err.msg);
	zd_err_clear(&err);
}

START_TEST(test_zseg_read_reset_parsed)
{
	static const unsigned char lead[16] = "0123456789abcdez";
	unsigned char f[512], raw[32];
	size_t n;

	paths();
	/* F without R8 and R4 before it */
	n = two_segments(f, sizeof(f), lead, 16, zd_zseg_reset_last,
	                 ZD_ZSEG_RESET_LAST);
	refused(f, n);
	/* the pair's bytes, A's inside the raw block: B alone */
	memcpy(raw, lead, 16);
	memcpy(raw + 16, zd_zseg_reset, 10);
	n = two_segments(f, sizeof(f), raw, 26, zd_zseg_reset + 10,
	                 ZD_ZSEG_RESET_LAST);
	refused(f, n);
}
END_TEST

/* Decoded in place: exact pieces of 1 to whole_max bytes only. */
START_TEST(test_zseg_read_piece_whole)
{
	struct zd_zseg_piece pc = { .usize = 100, .exact = true };

	ck_assert(zd_zseg_piece_whole(&pc, 100));
	ck_assert(!zd_zseg_piece_whole(&pc, 99));
	pc.exact = false;
	ck_assert(!zd_zseg_piece_whole(&pc, 100));
	pc.exact = true;
	pc.usize = 0;
	ck_assert(!zd_zseg_piece_whole(&pc, 100));
}
END_TEST

static Suite *
zseg_read_suite(void)
{
	Suite *s = suite_create("zseg-read");
	TCase *core = zd_test_tcase(s, "core");
	TCase *malformed = zd_test_tcase(s, "malformed");

	tcase_add_loop_test(core, test_zseg_read_segments_standalone, 0,
	                    sizeof(standalone_kinds) /
	                    sizeof(standalone_kinds[0]));
	tcase_add_test(malformed, test_zseg_read_index_at_tail);
	tcase_add_test(malformed, test_zseg_read_reset_parsed);
	tcase_add_test(core, test_zseg_read_piece_whole);
	return s;
}

int
main(void)
{
	return zd_test_main(zseg_read_suite());
}
