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
	return s;
}

int
main(void)
{
	return zd_test_main(zseg_read_suite());
}
