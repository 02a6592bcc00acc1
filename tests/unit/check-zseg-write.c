/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check-zseg-write.c - the segmented zstd writers: round trips through
 * ours and foreign decoders, determinism, streamed input, where the cuts
 * land, index grouping, over 4 GiB, stock dpkg-deb
 */
#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "lib/endian.h"
#include "lib/zseg-cut.h"
#include "lib/zseg-decode.h"
#include "lib/zseg-index.h"
#include "lib/zseg-layout.h"
#include "lib/zseg-write.h"
#include "lib/zstd-frame.h"
#include "tests/unit/testutil.h"
#include "tests/unit/zseg-fixture.h"

/* ---- round trips ---- */

struct rt_case {
	enum input_kind kind;
	size_t len;
	enum zd_zstd_layout layout;
	int level;
	uint64_t seg;
};

/* The member's first bytes are a zstd frame's, not a skippable one's. */
static void
check_first_frame_plain(const char *z)
{
	size_t len;
	unsigned char *b = zd_test_read_file(z, &len);

	ck_assert_uint_ge(len, 4);
	ck_assert_uint_eq(zd_le32(b), ZD_ZSTD_MAGIC);
	free(b);
}

/*
 * The decoded offsets where the frames of z end (the last one excepted),
 * into ends[]; returns how many.  Skippable frames are stepped over.
 */
static size_t
frame_ends(const char *z, uint64_t *ends, size_t max)
{
	size_t len, off = 0, n = 0, cap = 1 << 20;
	unsigned char *b = zd_test_read_file(z, &len);
	unsigned char *out = malloc(cap);
	ZSTD_DCtx *d = ZSTD_createDCtx();
	uint64_t total = 0;

	ck_assert_ptr_nonnull(out);
	ck_assert_ptr_nonnull(d);
	while (off < len) {
		size_t fl;

		if ((zd_le32(b + off) & 0xFFFFFFF0u) == 0x184D2A50u) {
			off += 8 + zd_le32(b + off + 4);
			continue;
		}
		fl = ZSTD_findFrameCompressedSize(b + off, len - off);
		ck_assert(!ZSTD_isError(fl));
		{
			ZSTD_inBuffer in = { b + off, fl, 0 };
			size_t rc;

			ZSTD_DCtx_reset(d, ZSTD_reset_session_only);
			do {
				ZSTD_outBuffer o = { out, cap, 0 };

				rc = ZSTD_decompressStream(d, &o, &in);
				ck_assert(!ZSTD_isError(rc));
				total += o.pos;
			} while (rc != 0);
		}
		off += fl;
		if (off < len) {
			ck_assert_uint_lt(n, max);
			ends[n++] = total;
		}
	}
	ZSTD_freeDCtx(d);
	free(out);
	free(b);
	return n;
}

/*
 * Frames and pzstd of a complete tar: stock dpkg reads only the first
 * frame, and GNU tar and dpkg's extractor fail where it ends (and where
 * any other frame ends), off the 512-byte grid inside a file's data,
 * never quietly at a member boundary (tar-cut.h).
 */
START_TEST(test_zseg_write_frame_ends_fail)
{
	static const enum zd_zstd_layout layouts[] = {
		ZD_LAYOUT_FRAMES, ZD_LAYOUT_PZSTD,
	};
	static const uint64_t segs[] = { 4 * KIB, 64 * KIB, MIB };
	struct zd_error err = ZD_ERROR_INIT;
	uint64_t ends[4096];

	paths();
	ck_assert_int_eq(zd_test_sh("cd /usr/share && find doc -type f | "
	                            "LC_ALL=C sort | head -400 | tar -cf - "
	                            "-T - > '%s'", path_in), 0);
	ck_assert_int_eq(zd_test_sh("tar -tf '%s' >/dev/null", path_in), 0);
	for (size_t l = 0; l < 2; l++) {
		for (size_t k = 0; k < 3; k++) {
			size_t n;

			ck_assert_zd_ok(compress_to(path_in, path_z,
			                            layouts[l], 3, segs[k], 2,
			                            &err), &err);
			check_decodes(path_z, 2);
			check_first_frame_plain(path_z);
			n = frame_ends(path_z, ends, 4096);
			ck_assert_uint_gt(n, 0);
			for (size_t i = 0; i < n; i++) {
				ck_assert_uint_ne(ends[i] % 512, 0);
				/* GNU tar: the first end and every 64th */
				if (i % 64 != 0)
					continue;
				ck_assert_msg(zd_test_sh(
				        "head -c %ju '%s' | tar -tf - "
				        ">/dev/null 2>&1", (uintmax_t)ends[i],
				        path_in) != 0,
				        "layout %d, segment %ju: GNU tar reads "
				        "the tar cut at %ju", (int)layouts[l],
				        (uintmax_t)segs[k],
				        (uintmax_t)ends[i]);
			}
		}
	}
}
END_TEST

static const struct rt_case rt_cases[] = {
	{ IN_RANDOM, 1 * MIB + 3, ZD_LAYOUT_INDEXED, 3, 64 * KIB },
	{ IN_ZEROS, 2 * MIB, ZD_LAYOUT_INDEXED, 3, 64 * KIB },
	{ IN_TEXT, 3 * MIB, ZD_LAYOUT_INDEXED, 1, 64 * KIB },
	{ IN_TEXT, 3 * MIB, ZD_LAYOUT_INDEXED, -5, 100 * KIB },
	{ IN_TEXT, 300 * KIB, ZD_LAYOUT_INDEXED, 19, 64 * KIB },
	{ IN_TAR, 12 * MIB, ZD_LAYOUT_INDEXED, 3, 0 },
	{ IN_TAR, 12 * MIB, ZD_LAYOUT_INDEXED, 1, 256 * KIB },
	{ IN_TAR, 600 * KIB, ZD_LAYOUT_INDEXED, 19, 64 * KIB },
	{ IN_TEXT, 3 * MIB, ZD_LAYOUT_INDEXED, 3, 1 },
	{ IN_CODE, 4 * MIB, ZD_LAYOUT_INDEXED, 3, 128 * KIB },
	{ IN_CODE, 600 * KIB, ZD_LAYOUT_INDEXED, 19, 64 * KIB },
	{ IN_CODE, 2 * MIB, ZD_LAYOUT_INDEXED, 3, 1 },	/* records grouped */
	{ IN_EMPTY, 0, ZD_LAYOUT_INDEXED, 3, 0 },
	{ IN_TINY, 0, ZD_LAYOUT_INDEXED, 3, 1 },
	{ IN_RANDOM, 1 * MIB + 3, ZD_LAYOUT_FRAMES, 3, 64 * KIB },
	{ IN_TEXT, 3 * MIB, ZD_LAYOUT_FRAMES, -5, 64 * KIB },
	{ IN_TAR, 12 * MIB, ZD_LAYOUT_FRAMES, 3, 1 * MIB },
	{ IN_TAR, 600 * KIB, ZD_LAYOUT_FRAMES, 19, 100 * KIB },
	{ IN_EMPTY, 0, ZD_LAYOUT_FRAMES, 3, 0 },
	{ IN_RANDOM, 1 * MIB + 3, ZD_LAYOUT_PZSTD, 3, 64 * KIB },
	{ IN_TAR, 12 * MIB, ZD_LAYOUT_PZSTD, 1, 0 },
	{ IN_ZEROS, 2 * MIB, ZD_LAYOUT_PZSTD, 3, 100 * KIB },
	{ IN_TAR, 600 * KIB, ZD_LAYOUT_PZSTD, 19, 100 * KIB },
	{ IN_EMPTY, 0, ZD_LAYOUT_PZSTD, 3, 0 },
};

START_TEST(test_zseg_write_round_trip)
{
	const struct rt_case *c = &rt_cases[_i];
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_zstd_info info;
	size_t len = make_input(c->kind, c->len);

	ck_assert_zd_ok(compress_to(path_in, path_z, c->layout, c->level,
	                            c->seg, 2, &err), &err);
	check_decodes(path_z, 2);
	check_decodes(path_z, 1);
	ck_assert_int_eq(zd_test_sh("zstd -q -dc '%s' | cmp -s - '%s'",
	                            path_z, path_in), 0);
	if (c->layout == ZD_LAYOUT_PZSTD)
		ck_assert_int_eq(zd_test_sh("pzstd -q -dc '%s' | "
		                            "cmp -s - '%s'", path_z, path_in),
		                 0);
	describe(path_z, &info);
	if (c->layout == ZD_LAYOUT_INDEXED) {
		ck_assert_int_eq(info.layout, ZD_LAYOUT_INDEXED);
		ck_assert_uint_gt(info.index_size, 0);
		ck_assert_uint_le(info.index_size, ZD_ZSEG_INDEX_MAX);
		ck_assert_int_eq(info.content_size, (int64_t)len);
		ck_assert_uint_le(info.window_log, 27);
		/* No run of 17 identical bytes, no reset with literals:
		 * nowhere to cut. */
		if (c->kind == IN_RANDOM)
			ck_assert_uint_eq(info.segments, 1);
		/* Nothing but resets with literals: version 2. */
		if (c->kind == IN_CODE) {
			struct parsed ps;

			parse_output(&ps);
			ck_assert_uint_eq(ps.idx.version, 2);
			zd_zseg_index_free(&ps.idx);
			free(ps.z);
		}
	} else if (c->layout == ZD_LAYOUT_PZSTD) {
		/* No skippable header before the first frame, which stock
		 * dpkg would take for the whole member; one frame is
		 * plain. */
		ck_assert_int_eq(info.layout, info.segments > 1 ?
		                 ZD_LAYOUT_PZSTD : ZD_LAYOUT_SINGLE);
		check_first_frame_plain(path_z);
	}
	/* Zeros are an empty tar: a frame can end nowhere a reader that
	 * stops there would fail (tar-cut.h), so they are one frame. */
	if (c->kind == IN_ZEROS && c->layout != ZD_LAYOUT_INDEXED)
		ck_assert_uint_eq(info.segments, 1);
	else if (len > 64 && len > 4 * c->seg && c->seg > 0 &&
	         c->kind != IN_RANDOM)
		ck_assert_uint_gt(info.segments, 2);
}
END_TEST

/* ---- determinism ---- */

START_TEST(test_zseg_write_threads_identical)
{
	static const enum zd_zstd_layout layouts[] = {
		ZD_LAYOUT_INDEXED, ZD_LAYOUT_FRAMES, ZD_LAYOUT_PZSTD,
	};
	static const unsigned threads[] = { 2, 8 };
	struct zd_error err = ZD_ERROR_INIT;
	char other[4300];

	make_input(IN_TAR, 6 * MIB);
	snprintf(other, sizeof(other), "%s.T", path_z);
	for (size_t l = 0; l < 3; l++) {
		ck_assert_zd_ok(compress_to(path_in, path_z, layouts[l], 3,
		                            256 * KIB, 1, &err), &err);
		for (size_t t = 0; t < 2; t++) {
			ck_assert_zd_ok(compress_to(path_in, other, layouts[l],
			                            3, 256 * KIB, threads[t],
			                            &err), &err);
			ck_assert_msg(same_files(path_z, other),
			              "layout %d: -T1 and -T%u differ",
			              (int)layouts[l], threads[t]);
		}
	}
}
END_TEST

/* ---- the streaming writer told the size: the bytes of a file of it ---- */

/*
 * Feeds path_in to a zd_zseg_writer in uneven chunks, after 100 bytes of
 * something else in the output file, and writes the member it reports to
 * out.  sized: the writer is told the input's size first.
 */
static void
stream_to(const char *out, enum zd_zstd_layout layout, int level,
          uint64_t seg, unsigned threads, bool sized)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_comp_params p;
	struct zd_zseg_writer *w;
	unsigned char junk[100];
	size_t len;
	unsigned char *in = zd_test_read_file(path_in, &len);
	uint64_t start, size;
	char tmp[4400];
	unsigned char *z;
	int fd;

	snprintf(tmp, sizeof(tmp), "%.4300s.raw", out);
	fd = open(tmp, O_RDWR | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	memset(junk, 'j', sizeof(junk));
	ck_assert_int_eq(write(fd, junk, sizeof(junk)), (ssize_t)sizeof(junk));
	zseg_params(&p, layout, level, seg, threads);
	w = zd_zseg_writer_new(&p, fd, sized ? (int64_t)len : -1, &err);
	ck_assert_msg(w != NULL, "%s", err.msg);
	zd_test_write_uneven(zd_zseg_writer_write, w, in, len, 70000, 7);
	ck_assert_zd_ok(zd_zseg_writer_finish(w, &start, &size, &err), &err);
	zd_zseg_writer_free(w);
	/* nothing between what was there and the member, nothing after */
	ck_assert_uint_eq(start, sizeof(junk));
	ck_assert_uint_eq((uint64_t)lseek(fd, 0, SEEK_CUR), start + size);
	ck_assert_uint_eq((uint64_t)lseek(fd, 0, SEEK_END), start + size);
	z = malloc(size > 0 ? size : 1);
	ck_assert_ptr_nonnull(z);
	ck_assert_zd_ok(zd_pread_all(fd, z, size, start, &err), &err);
	close(fd);
	zd_test_write_file(out, z, size);
	free(z);
	free(in);
}

START_TEST(test_zseg_write_streamed)
{
	static const enum zd_zstd_layout layouts[] = {
		ZD_LAYOUT_INDEXED, ZD_LAYOUT_FRAMES, ZD_LAYOUT_PZSTD,
	};
	static const struct {
		enum input_kind kind;
		size_t len;
		uint64_t seg;		/* 0: the level's policy */
	} inputs[] = {
		{ IN_TAR, 6 * MIB, 256 * KIB },
		{ IN_TAR, 3 * MIB, 0 },
		{ IN_TEXT, 300 * KIB, 1 },	/* index records grouped */
		{ IN_RANDOM, 600 * KIB, 64 * KIB },	/* no cut: one */
		{ IN_EMPTY, 0, 0 },
		{ IN_TINY, 0, 0 },
	};
	struct zd_error err = ZD_ERROR_INIT;
	char streamed[4300];

	snprintf(streamed, sizeof(streamed), "%s/streamed", zd_test_tmpdir);
	for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
		make_input(inputs[i].kind, inputs[i].len);
		for (size_t l = 0; l < 3; l++) {
			if (inputs[i].seg == 1 && layouts[l] != ZD_LAYOUT_INDEXED)
				continue;
			ck_assert_zd_ok(compress_to(path_in, path_z, layouts[l],
			                            3, inputs[i].seg, 1, &err),
			                &err);
			for (unsigned t = 1; t <= 2; t++) {
				stream_to(streamed, layouts[l], 3,
				          inputs[i].seg, t, true);
				ck_assert_msg(same_files(path_z, streamed),
				              "input %zu, layout %d, -T%u: "
				              "streamed bytes differ", i,
				              (int)layouts[l], t);
			}
			/* of unknown size: cut as the bytes come (indexed:
			 * not balanced), the same for any thread count */
			stream_to(path_z, layouts[l], 3, inputs[i].seg, 1,
			          false);
			check_decodes(path_z, 2);
			stream_to(streamed, layouts[l], 3, inputs[i].seg, 2,
			          false);
			ck_assert_msg(same_files(path_z, streamed),
			              "input %zu, layout %d, unknown size: "
			              "-T1 and -T2 differ", i, (int)layouts[l]);
		}
		if (inputs[i].seg == 1) {
			struct parsed ps;

			parse_output(&ps);
			ck_assert_uint_lt(ps.idx.nrec, ps.idx.segments);
			zd_zseg_index_free(&ps.idx);
			free(ps.z);
		}
	}
}
END_TEST

/*
 * The segments are the cut policy's (zseg-cut.h, tested alone in
 * check-zseg-cut): a tar cut by the writer at level 1 (window 2^19) with
 * a 256 KiB target, against the cutter fed the same bytes and told their
 * size, as the writer of a file is (balanced: 32 segments).
 */
START_TEST(test_zseg_write_cut_policy)
{
	struct zd_zseg_cut_params cp = {
		ZD_LAYOUT_INDEXED, 256 * KIB, 16 * KIB, 19, 0,
	};
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_comp_params p;
	struct zd_zseg_cut *cut;
	size_t len = make_input(IN_TAR, 6 * MIB), off = 0, used, k = 0;
	unsigned char *in = zd_test_read_file(path_in, &len);
	struct parsed ps;
	uint64_t at, upos = 0;

	cp.total = len;
	cut = zd_zseg_cut_new(&cp, &err);
	ck_assert_ptr_nonnull(cut);
	ck_assert_zd_ok(compress_to(path_in, path_z, ZD_LAYOUT_INDEXED, 1,
	                            256 * KIB, 2, &err), &err);
	parse_output(&ps);
	ck_assert_uint_gt(ps.idx.nrec, 10);
	for (;;) {
		bool got = zd_zseg_cut_feed(cut, in + off, len - off, &used,
		                            &at);

		off += used;
		if (!got && !zd_zseg_cut_end(cut, &at))
			break;
		ck_assert_uint_lt(k + 1, ps.idx.nrec);
		upos += ps.idx.rec[k++].usize;
		ck_assert_msg(upos == at, "cut %zu at %ju, the policy's at %ju",
		              k - 1, (uintmax_t)upos, (uintmax_t)at);
	}
	ck_assert_uint_eq(k + 1, ps.idx.nrec);
	/* 6 MiB / 32 under the target: 32 aimed at, fewer where compressed
	 * files leave no place near one */
	ck_assert_uint_le(ps.idx.nrec, 32);
	ck_assert_uint_ge(ps.idx.nrec, 24);
	zd_zseg_cut_free(cut);
	zd_zseg_index_free(&ps.idx);
	free(ps.z);
	free(in);
	/* the policy's targets: pzstd's frame size, 4 windows */
	memset(&p, 0, sizeof(p));
	p.type = ZD_COMP_ZSTD;
	p.layout = ZD_LAYOUT_INDEXED;
	p.level = 3;
	ck_assert_uint_eq(zd_zseg_target_size(&p, 100 * MIB), 8 * MIB);
	ck_assert_uint_eq(zd_zseg_target_size(&p, MIB - 1), MIB);
	p.level = 19;
	ck_assert_uint_eq(zd_zseg_target_size(&p, 100 * MIB), 32 * MIB);
	p.level = 1;
	ck_assert_uint_eq(zd_zseg_target_size(&p, 100 * MIB), 2 * MIB);
	p.level = 22;
	ck_assert_uint_eq(zd_zseg_target_size(&p, 100 * MIB), 64 * MIB);
	p.level = 19;
	p.layout = ZD_LAYOUT_PZSTD;
	ck_assert_uint_eq(zd_zseg_target_size(&p, 100 * MIB), 32 * MIB);
}
END_TEST

START_TEST(test_zseg_write_many_segments)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_zstd_info info;
	struct parsed ps;
	size_t len;

	/* 1 MB of text with zero runs, a 1-byte target: thousands of cuts */
	len = make_input(IN_TEXT, 1 * MIB);
	ck_assert_zd_ok(compress_to(path_in, path_z, ZD_LAYOUT_INDEXED, 1, 1,
	                            2, &err), &err);
	describe(path_z, &info);
	ck_assert_uint_gt(info.segments, 1000);
	ck_assert_uint_le(info.index_size, ZD_ZSEG_INDEX_MAX);
	parse_output(&ps);
	ck_assert_uint_lt(ps.idx.nrec, ps.idx.segments);
	ck_assert_uint_eq(ps.idx.content_size, len);
	zd_zseg_index_free(&ps.idx);
	free(ps.z);
	check_decodes(path_z, 2);
	check_decodes(path_z, 8);
	ck_assert_int_eq(zd_test_sh("zstd -q -dc '%s' | cmp -s - '%s'",
	                            path_z, path_in), 0);
}
END_TEST

/* Counts the bytes it is given, which must all be zero. */
static int
count_zeros(void *ctx, const void *buf, size_t len, struct zd_error *err)
{
	const unsigned char *b = buf;

	for (size_t k = 0; k < len; k++)
		if (b[k] != 0)
			return zd_err(err, ZD_E_FORMAT, "not zero");
	*(uint64_t *)ctx += len;
	return 0;
}

/*
 * Over 4 GiB streamed (zeros, fast): the frame header needs an 8-byte
 * content size, longer than the room left for it, so the member moves up
 * after the fact; it must still start where the writer began, and decode.
 */
START_TEST(test_zseg_write_streamed_over_4gib)
{
	const uint64_t total = (UINT64_C(4) << 30) + 3 * MIB;
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_comp_params p;
	struct zd_dec_params dp;
	struct zd_zseg_writer *w;
	struct zd_region r;
	struct zd_sink sink;
	unsigned char *zero = calloc(1, MIB), hdr[ZD_ZSTD_FHDR_MAX];
	struct zd_zstd_fhdr h;
	uint64_t start, size, got = 0;
	int fd = zd_tmpfile(&err);

	ck_assert_ptr_nonnull(zero);
	ck_assert_int_ge(fd, 0);
	ck_assert_zd_ok(zd_write_all(fd, "0123456", 7, &err), &err);
	zseg_params(&p, ZD_LAYOUT_INDEXED, 1, 0, 2);
	w = zd_zseg_writer_new(&p, fd, -1, &err);
	ck_assert_msg(w != NULL, "%s", err.msg);
	for (uint64_t fed = 0; fed < total; fed += MIB)
		ck_assert_zd_ok(zd_zseg_writer_write(w, zero, MIB, &err), &err);
	ck_assert_zd_ok(zd_zseg_writer_finish(w, &start, &size, &err), &err);
	zd_zseg_writer_free(w);
	ck_assert_uint_eq(start, 7);
	ck_assert_uint_eq((uint64_t)lseek(fd, 0, SEEK_CUR), start + size);
	ck_assert_zd_ok(zd_pread_all(fd, hdr, sizeof(hdr), start, &err), &err);
	ck_assert_zd_ok(zd_zstd_fhdr_parse(hdr, sizeof(hdr), &h, &err), &err);
	ck_assert(h.has_content_size);
	ck_assert_uint_eq(h.content_size, total);
	ck_assert_uint_eq(h.header_size, 14);

	dec_params(&dp, 2);
	r.fd = fd;
	r.off = start;
	r.len = size;
	sink.write = count_zeros;
	sink.ctx = &got;
	sink.pwrite = NULL;
	sink.trywrite = NULL;
	/* 4 GiB from a few hundred KiB: over the default cap, refused from
	 * the declared size before anything is written */
	ck_assert_int_eq(zd_zstd_pdecode(&r, &dp, &sink, &err), -1);
	ck_assert_int_eq(err.code, ZD_E_LIMIT);
	ck_assert_uint_eq(got, 0);
	zd_err_clear(&err);
	dp.max_output = ZD_DEC_UNLIMITED;
	ck_assert_zd_ok(zd_zstd_pdecode(&r, &dp, &sink, &err), &err);
	ck_assert_uint_eq(got, total);
	close(fd);
	free(zero);
}
END_TEST

/* ---- stock dpkg-deb reads the indexed layout ---- */

START_TEST(test_zseg_write_dpkg_deb)
{
	struct zd_error err = ZD_ERROR_INIT;
	const char *d = zd_test_tmpdir;

	if (!zd_test_tool("command -v dpkg-deb >/dev/null", "dpkg-deb") ||
	    !zd_test_tool("command -v ar >/dev/null", "ar"))
		return;
	paths();
	ck_assert_int_eq(zd_test_sh(
		"set -e; cd '%s'; mkdir -p pkg/DEBIAN pkg/usr/share; "
		"printf 'Package: zt\\nVersion: 1\\nArchitecture: all\\n"
		"Maintainer: t <t@t>\\nDescription: t\\n' "
		"> pkg/DEBIAN/control; "
		"tar -cf - -C /usr/share doc 2>/dev/null | head -c 8000000 | "
		"tar -xf - -C pkg/usr/share 2>/dev/null || true; "
		"dpkg-deb --root-owner-group -Zzstd -b pkg p.deb >/dev/null; "
		"mkdir x; cd x; ar x ../p.deb; zstd -q -dc data.tar.zst > "
		"../data.tar", d), 0);
	snprintf(path_in, sizeof(path_in), "%s/data.tar", d);
	for (int round = 0; round < 3; round++) {
		uint64_t seg = round == 0 ? 64 * KIB : round == 1 ? 1 : 0;

		ck_assert_zd_ok(compress_to(path_in, path_z, ZD_LAYOUT_INDEXED,
		                            round == 2 ? 19 : 3, seg, 2, &err),
		                &err);
		ck_assert_int_eq(zd_test_sh(
			"set -e; cd '%s/x'; cp '%s' data.tar.zst; "
			"rm -f ../q.deb; "
			"ar rc ../q.deb debian-binary control.tar.* "
			"data.tar.zst; for i in 1 2 3; do "
			"dpkg-deb --fsys-tarfile ../q.deb | "
			"cmp -s - ../data.tar; "
			"done; dpkg-deb -I ../q.deb >/dev/null", d, path_z), 0);
	}
}
END_TEST

static Suite *
zseg_write_suite(void)
{
	Suite *s = suite_create("zseg-write");
	TCase *core = zd_test_tcase(s, "core");
	TCase *limits = zd_test_tcase(s, "limits");

	tcase_add_loop_test(core, test_zseg_write_round_trip, 0,
	                    (int)(sizeof(rt_cases) / sizeof(rt_cases[0])));
	tcase_add_test(core, test_zseg_write_threads_identical);
	tcase_add_test(core, test_zseg_write_frame_ends_fail);
	tcase_add_test(core, test_zseg_write_streamed);
	tcase_add_test(core, test_zseg_write_cut_policy);
	tcase_add_test(core, test_zseg_write_dpkg_deb);
	tcase_add_test(limits, test_zseg_write_many_segments);
	tcase_add_test(limits, test_zseg_write_streamed_over_4gib);
	return s;
}

int
main(void)
{
	return zd_test_main(zseg_write_suite());
}
