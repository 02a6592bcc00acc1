/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check-zseg.c - the segmented zstd writers and the parallel reader:
 * round trips, foreign decoders, determinism, damaged indexes, corrupt and
 * truncated data, index size, stock dpkg-deb
 */
#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>
#include <zstd.h>

#include "lib/endian.h"
#include "lib/zseg-decode.h"
#include "lib/zseg-index.h"
#include "lib/zseg-layout.h"
#include "lib/zseg-read.h"
#include "lib/zseg-write.h"
#include "lib/zstd-frame.h"
#include "tests/unit/testutil.h"

#define KIB ((uint64_t)1 << 10)
#define MIB ((uint64_t)1 << 20)

enum input_kind { IN_RANDOM, IN_ZEROS, IN_TEXT, IN_TAR, IN_EMPTY, IN_TINY };

static char path_in[4200], path_z[4200], path_out[4200];
static unsigned nwarn;
static char last_warn[1024];

static void
on_warn(void *ctx, const char *msg)
{
	(void)ctx;
	nwarn++;
	snprintf(last_warn, sizeof(last_warn), "%s", msg);
}

static void
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

static size_t
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
	zd_test_write_file(path_in, b, len);
	free(b);
	return len;
}

static void
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

static int
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

static int
decode_to(const char *in, const char *out, unsigned threads,
          uint64_t max_window, uint64_t max_output, struct zd_error *err)
{
	struct zd_dec_params p;
	struct zd_region r;
	struct zd_sink sink;
	int ofd, rc;

	memset(&p, 0, sizeof(p));
	p.threads = threads;
	p.member = "data.tar.zst";
	p.max_window = max_window;
	p.max_output = max_output;
	p.warn = on_warn;
	r.fd = open(in, O_RDONLY);
	ck_assert_int_ge(r.fd, 0);
	r.off = 0;
	ck_assert_zd_ok(zd_fd_size(r.fd, &r.len, err), err);
	ofd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(ofd, 0);
	sink.write = zd_sink_fd_write;
	sink.ctx = &ofd;
	rc = zd_zstd_pdecode(&r, &p, &sink, err);
	close(r.fd);
	close(ofd);
	return rc;
}

static bool
same_files(const char *a, const char *b)
{
	return zd_test_sh("cmp -s '%s' '%s'", a, b) == 0;
}

static void
check_decodes(const char *z, unsigned threads)
{
	struct zd_error err = ZD_ERROR_INIT;

	nwarn = 0;
	ck_assert_zd_ok(decode_to(z, path_out, threads, 0, 0, &err), &err);
	ck_assert_msg(same_files(path_out, path_in), "decoded bytes differ");
	ck_assert_msg(nwarn == 0, "warning: %s", last_warn);
}

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
START_TEST(test_zseg_frame_ends_fail)
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

static void
describe(const char *z, struct zd_zstd_info *info)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_region r;

	r.fd = open(z, O_RDONLY);
	r.off = 0;
	ck_assert_zd_ok(zd_fd_size(r.fd, &r.len, &err), &err);
	ck_assert_zd_ok(zd_zstd_describe(&r, info, &err), &err);
	close(r.fd);
}

/* ---- round trips ---- */

struct rt_case {
	enum input_kind kind;
	size_t len;
	enum zd_zstd_layout layout;
	int level;
	uint64_t seg;
};

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

START_TEST(test_zseg_round_trip)
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
		/* No run of 17 identical bytes: nowhere to cut. */
		if (c->kind == IN_RANDOM)
			ck_assert_uint_eq(info.segments, 1);
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

START_TEST(test_zseg_threads_identical)
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

/* ---- structure: every segment decodes on its own ---- */

struct parsed {
	unsigned char *z;
	size_t zlen;
	struct zd_zstd_frame_info outer, ixf;
	struct zd_zseg_index idx;
};

static void
parse_output(struct parsed *ps)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_region r;

	ps->z = zd_test_read_file(path_z, &ps->zlen);
	r.fd = open(path_z, O_RDONLY);
	r.off = 0;
	r.len = ps->zlen;
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

/* ---- the streaming writer: same bytes as from a file of known size ---- */

/*
 * Feeds path_in to a zd_zseg_writer of unknown input size in uneven chunks,
 * after 100 bytes of something else in the output file, and writes the
 * member it reports to out.
 */
static void
stream_to(const char *out, enum zd_zstd_layout layout, int level,
          uint64_t seg, unsigned threads)
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
	w = zd_zseg_writer_new(&p, fd, -1, &err);
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

START_TEST(test_zseg_streamed)
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
				          inputs[i].seg, t);
				ck_assert_msg(same_files(path_z, streamed),
				              "input %zu, layout %d, -T%u: "
				              "streamed bytes differ", i,
				              (int)layouts[l], t);
			}
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
 * The cut policy, on random bytes (no run of 17 identical bytes) with
 * runs of 20 zero bytes at chosen offsets and a 64 KiB target: the last
 * candidate in [target/2, target] of the segment's start, else the first
 * one after the target; a tail under target/16 stays with the last segment.
 */
static void
check_cuts(size_t len, const uint64_t *want, size_t nwant)
{
	static const size_t runs_at[] = {	/* KiB */
		10, 40, 60, 70, 100, 124, 140, 300,
	};
	struct zd_error err = ZD_ERROR_INIT;
	unsigned char *b = malloc(len);
	struct parsed ps;
	uint64_t upos = 0;

	ck_assert_ptr_nonnull(b);
	zd_test_fill_random(b, len, 12345);
	for (size_t i = 0; i < sizeof(runs_at) / sizeof(runs_at[0]); i++)
		memset(b + runs_at[i] * KIB, 0, 20);
	paths();
	zd_test_write_file(path_in, b, len);
	free(b);
	ck_assert_zd_ok(compress_to(path_in, path_z, ZD_LAYOUT_INDEXED, 1,
	                            64 * KIB, 2, &err), &err);
	parse_output(&ps);
	ck_assert_uint_eq(ps.idx.nrec, nwant + 1);
	for (size_t i = 0; i < nwant; i++) {
		upos += ps.idx.rec[i].usize;
		ck_assert_msg(upos == want[i], "cut %zu at %ju, want %ju", i,
		              (uintmax_t)upos, (uintmax_t)want[i]);
	}
	zd_zseg_index_free(&ps.idx);
	free(ps.z);
}

START_TEST(test_zseg_cut_policy)
{
	/* 60K+20: the last candidate at or before 64K (40K+17 ... 60K+20);
	 * 124K+20: the last before 60K+20 + 64K; then none in [156K+20,
	 * 188K+20], so the first after: 300K+17, inside the run */
	const uint64_t want[] = {
		60 * KIB + 20, 124 * KIB + 20, 300 * KIB + 17,
	};
	struct zd_comp_params p;

	check_cuts(320 * KIB, want, 3);
	/* 3 KiB after the last candidate: under 64K/16, no cut there */
	check_cuts(303 * KIB + 17, want, 2);
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

START_TEST(test_zseg_segments_standalone)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct parsed ps;
	size_t len = make_input(IN_TAR, 8 * MIB), inlen;
	unsigned char *in;
	uint64_t pos, upos = 0;
	struct zd_zseg_piece *walked = NULL;
	size_t nwalked = 0;
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

		/* the segment with its reset pair, B marked last */
		zd_zstd_fhdr_write(f, ps.idx.window_log, false, 0, false);
		memcpy(f + 6, ps.z + pos, rec->csize);
		if (i + 1 < ps.idx.nrec) {
			ck_assert_mem_eq(f + 6 + rec->csize - 20,
			                 zd_zseg_reset, 20);
			f[6 + rec->csize - 10] |= 1;
			/* 17 identical bytes before the cut */
			for (unsigned k = 2; k <= 17; k++)
				ck_assert_uint_eq(in[upos + rec->usize - k],
				                  in[upos + rec->usize - 1]);
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
	/* the content checksum */
	ck_assert_uint_eq(zd_le32(ps.z + ps.outer.size - 4),
	                  (uint32_t)XXH64(in, len, 0));
	/* walking the blocks finds exactly the index's boundaries */
	r.fd = open(path_z, O_RDONLY);
	r.off = 0;
	r.len = ps.zlen;
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
	close(r.fd);
	free(walked);
	zd_zseg_index_free(&ps.idx);
	free(ps.z);
	free(in);
}
END_TEST

/* ---- foreign writers ---- */

START_TEST(test_zseg_foreign)
{
	static const char *const cmds[] = {
		"zstd -q -3 --single-thread -c",
		"zstd -q -3 -T2 -c",
		"zstd -q -1 --no-check --no-content-size -c <",
		"pzstd -q -p2 -3 -c",
		"pzstd -q -p2 -1 -c",
	};
	struct zd_error err = ZD_ERROR_INIT;
	char cat[4300];

	make_input(IN_TAR, 20 * MIB);
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		ck_assert_int_eq(zd_test_sh("%s '%s' > '%s'", cmds[i], path_in,
		                            path_z), 0);
		check_decodes(path_z, 2);
	}
	/* concatenations: pzstd + zstd, then our indexed output */
	snprintf(cat, sizeof(cat), "%s/cat.zst", zd_test_tmpdir);
	ck_assert_int_eq(zd_test_sh("head -c 5000000 '%s' > '%s.a' && "
	                            "tail -c +5000001 '%s' > '%s.b' && "
	                            "pzstd -q -p2 -c '%s.a' > '%s' && "
	                            "zstd -q -c '%s.b' >> '%s'", path_in,
	                            cat, path_in, cat, cat, path_z, cat,
	                            path_z), 0);
	check_decodes(path_z, 2);
	ck_assert_zd_ok(compress_to(path_in, cat, ZD_LAYOUT_INDEXED, 3,
	                            1 * MIB, 2, &err), &err);
	ck_assert_int_eq(zd_test_sh("cp '%s' '%s.2' && cat '%s' >> '%s' && "
	                            "cat '%s' '%s' > '%s.in2' && "
	                            "mv '%s.in2' '%s'", cat, cat, cat, path_z,
	                            path_in, path_in, path_in, path_in,
	                            path_in), 0);
	check_decodes(path_z, 2);
}
END_TEST

/* ---- damaged index: warning, exact output ---- */

static void
write_z(const struct parsed *ps, const unsigned char *z, size_t len)
{
	(void)ps;
	zd_test_write_file(path_z, z, len);
}

START_TEST(test_zseg_index_damaged)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct parsed ps;
	unsigned char *z;
	size_t ix;
	/* payload offsets: magic 8, version 12, window 14, then varints */
	struct {
		size_t off;
		unsigned char xor;
		bool fix_check;
		const char *what;
	} cases[] = {
		{ 0, 0x01, false, "frame magic" },
		{ 8, 0x01, false, "check value" },
		{ 8, 0x01, true, "bad index magic" },
		{ 12, 0x03, true, "version" },
		{ 13, 0x80, true, "flags" },
		{ 14, 0x01, true, "window" },
		{ 15, 0x04, true, "header size" },
		{ 17, 0x01, true, "segment count" },
		{ 19, 0x02, true, "size" },	/* first record csize */
		{ 0, 0, false, "last hash byte" },
	};

	make_input(IN_TEXT, 2 * MIB);
	ck_assert_zd_ok(compress_to(path_in, path_z, ZD_LAYOUT_INDEXED, 3,
	                            128 * KIB, 2, &err), &err);
	parse_output(&ps);
	ix = ps.outer.size;
	z = malloc(ps.zlen);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t at = cases[i].xor != 0 ? ix + cases[i].off :
		            ps.zlen - 5;

		memcpy(z, ps.z, ps.zlen);
		z[at] ^= cases[i].xor != 0 ? cases[i].xor : 0x10;
		if (cases[i].fix_check)
			zd_put_le32(z + ps.zlen - 4,
			            XXH32(z + ix + 8, ps.ixf.size - 12, 0));
		write_z(&ps, z, ps.zlen);
		nwarn = 0;
		ck_assert_zd_ok(decode_to(path_z, path_out, 2, 0, 0, &err),
		                &err);
		ck_assert_msg(same_files(path_out, path_in), "%s: output "
		              "differs", cases[i].what);
		if (cases[i].off == 0 && cases[i].xor != 0) {
			/* no index magic: a plain frame, no warning */
			ck_assert_uint_eq(nwarn, 0);
			continue;
		}
		ck_assert_msg(nwarn == 1, "%s: %u warnings", cases[i].what,
		              nwarn);
		ck_assert_msg(strstr(last_warn, "data.tar.zst: index "
		                     "damaged") != NULL, "%s", last_warn);
		ck_assert_msg(strstr(last_warn, "decoding by walking blocks") !=
		              NULL, "%s", last_warn);
	}
	/* a well-formed index whose hash lies: the segment is refused */
	memcpy(z, ps.z, ps.zlen);
	z[ps.zlen - 5] ^= 0x10;
	zd_put_le32(z + ps.zlen - 4, XXH32(z + ix + 8, ps.ixf.size - 12, 0));
	write_z(&ps, z, ps.zlen);
	ck_assert_int_eq(decode_to(path_z, path_out, 2, 0, 0, &err), -1);
	ck_assert_int_eq(err.code, ZD_E_CHECKSUM);
	ck_assert_msg(strstr(err.msg, "segment") != NULL, "%s", err.msg);
	/* the index dropped: plain frame, still exact */
	write_z(&ps, ps.z, ix);
	check_decodes(path_z, 2);
	free(z);
	zd_zseg_index_free(&ps.idx);
	free(ps.z);
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

	r.fd = open(path_z, O_RDONLY);
	ck_assert_int_ge(r.fd, 0);
	r.off = 0;
	ck_assert_zd_ok(zd_fd_size(r.fd, &r.len, &err), &err);
	rc = zd_zseg_index_at_tail(&r, outer, ixf, &idx, &err);
	ck_assert_msg(rc >= 0, "%s", err.msg);
	if (rc == 1) {
		ck_assert_uint_ge(idx.nrec, 1);
		zd_zseg_index_free(&idx);
	}
	close(r.fd);
	return rc;
}

START_TEST(test_zseg_index_at_tail)
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

/* ---- corrupt and truncated data: always an error ---- */

START_TEST(test_zseg_corrupt_data)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct parsed ps;
	unsigned char *z;
	unsigned fails = 0;

	make_input(IN_TAR, 3 * MIB);
	ck_assert_zd_ok(compress_to(path_in, path_z, ZD_LAYOUT_INDEXED, 3,
	                            128 * KIB, 2, &err), &err);
	parse_output(&ps);
	z = malloc(ps.zlen);
	for (size_t at = 3; at < ps.outer.size; at += ps.outer.size / 97) {
		memcpy(z, ps.z, ps.zlen);
		z[at] ^= 0x5a;
		write_z(&ps, z, ps.zlen);
		for (unsigned t = 1; t <= 2; t++) {
			int rc = decode_to(path_z, path_out, t, 0, 0, &err);

			ck_assert_msg(rc == -1, "corruption at %zu not found",
			              at);
			ck_assert_msg(err.code == ZD_E_CHECKSUM ||
			              err.code == ZD_E_FORMAT ||
			              err.code == ZD_E_UNSUPPORTED ||
			              err.code == ZD_E_LIMIT, "%d: %s",
			              err.code, err.msg);
			fails++;
		}
	}
	ck_assert_uint_gt(fails, 100);
	free(z);
	zd_zseg_index_free(&ps.idx);
	free(ps.z);
}
END_TEST

START_TEST(test_zseg_truncated)
{
	static const enum zd_zstd_layout layouts[] = {
		ZD_LAYOUT_INDEXED, ZD_LAYOUT_FRAMES, ZD_LAYOUT_PZSTD,
	};
	struct zd_error err = ZD_ERROR_INIT;
	unsigned char *z;
	size_t zlen;

	make_input(IN_TEXT, 1 * MIB);
	for (size_t l = 0; l < 3; l++) {
		ck_assert_zd_ok(compress_to(path_in, path_z, layouts[l], 3,
		                            64 * KIB, 2, &err), &err);
		z = zd_test_read_file(path_z, &zlen);
		for (size_t cut = 0; cut < zlen; cut += 1 + zlen / 37) {
			zd_test_write_file(path_z, z, cut);
			ck_assert_int_eq(decode_to(path_z, path_out, 2, 0, 0,
			                           &err), -1);
			ck_assert_int_eq(err.code, ZD_E_FORMAT);
		}
		/* cut inside the frame: the message names member and end */
		zd_test_write_file(path_z, z, zlen / 2);
		ck_assert_int_eq(decode_to(path_z, path_out, 2, 0, 0, &err),
		                 -1);
		ck_assert_msg(strstr(err.msg, "unexpected end of data in "
		                     "'data.tar.zst' at offset") != NULL,
		              "%s", err.msg);
		free(z);
	}
}
END_TEST

/* ---- limits ---- */

START_TEST(test_zseg_many_segments)
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

START_TEST(test_zseg_caps)
{
	struct zd_error err = ZD_ERROR_INIT;

	make_input(IN_TEXT, 3 * MIB);
	ck_assert_zd_ok(compress_to(path_in, path_z, ZD_LAYOUT_INDEXED, 3,
	                            256 * KIB, 2, &err), &err);
	ck_assert_int_eq(decode_to(path_z, path_out, 2, 1 << 20, 0, &err),
	                 -1);
	ck_assert_int_eq(err.code, ZD_E_LIMIT);
	ck_assert_ptr_nonnull(strstr(err.msg, "window"));
	ck_assert_int_eq(decode_to(path_z, path_out, 2, 0, 1 << 20, &err),
	                 -1);
	ck_assert_int_eq(err.code, ZD_E_LIMIT);
	/* a plain frame without content size: the cap holds while streaming */
	ck_assert_int_eq(zd_test_sh("zstd -q --no-content-size -c < '%s' > "
	                            "'%s'", path_in, path_z), 0);
	ck_assert_int_eq(decode_to(path_z, path_out, 2, 0, 1 << 20, &err),
	                 -1);
	ck_assert_int_eq(err.code, ZD_E_LIMIT);
	ck_assert_zd_ok(decode_to(path_z, path_out, 2, 0, 3 * MIB, &err),
	                &err);
}
END_TEST

START_TEST(test_zseg_big_tar)
{
	struct zd_error err = ZD_ERROR_INIT;

	make_input(IN_TAR, 64 * MIB);
	ck_assert_zd_ok(compress_to(path_in, path_z, ZD_LAYOUT_INDEXED, 1, 0,
	                            2, &err), &err);
	check_decodes(path_z, 2);
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
START_TEST(test_zseg_streamed_over_4gib)
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

	memset(&dp, 0, sizeof(dp));
	dp.threads = 2;
	dp.member = "data.tar.zst";
	dp.warn = on_warn;
	r.fd = fd;
	r.off = start;
	r.len = size;
	sink.write = count_zeros;
	sink.ctx = &got;
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

START_TEST(test_zseg_dpkg_deb)
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
zseg_suite(void)
{
	Suite *s = suite_create("zseg");
	TCase *core = zd_test_tcase(s, "core");
	TCase *malformed = zd_test_tcase(s, "malformed");
	TCase *limits = zd_test_tcase(s, "limits");

	tcase_add_loop_test(core, test_zseg_round_trip, 0,
	                    (int)(sizeof(rt_cases) / sizeof(rt_cases[0])));
	tcase_add_test(core, test_zseg_threads_identical);
	tcase_add_test(core, test_zseg_frame_ends_fail);
	tcase_add_test(core, test_zseg_streamed);
	tcase_add_test(core, test_zseg_segments_standalone);
	tcase_add_test(core, test_zseg_cut_policy);
	tcase_add_test(core, test_zseg_foreign);
	tcase_add_test(core, test_zseg_dpkg_deb);
	tcase_add_test(malformed, test_zseg_index_damaged);
	tcase_add_test(malformed, test_zseg_index_at_tail);
	tcase_add_test(malformed, test_zseg_corrupt_data);
	tcase_add_test(malformed, test_zseg_truncated);
	tcase_add_test(limits, test_zseg_many_segments);
	tcase_add_test(limits, test_zseg_caps);
	tcase_add_test(limits, test_zseg_big_tar);
	tcase_add_test(limits, test_zseg_streamed_over_4gib);
	return s;
}

int
main(void)
{
	return zd_test_main(zseg_suite());
}
