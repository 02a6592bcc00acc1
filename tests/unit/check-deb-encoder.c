/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check-deb-encoder.c - a member's compressor fed in pieces: the same bytes as
 * zd_compress() makes from a file, for every compressor and layout
 */
#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/codec.h"
#include "lib/deb-encoder.h"
#include "lib/fdio.h"
#include "tests/unit/testutil.h"

static const struct {
	enum zd_comp_type type;
	int level;
	enum zd_zstd_layout layout;
} cases[] = {
	{ ZD_COMP_NONE, 0, ZD_LAYOUT_INDEXED },
	{ ZD_COMP_GZIP, 9, ZD_LAYOUT_INDEXED },
	{ ZD_COMP_XZ, 6, ZD_LAYOUT_INDEXED },
	{ ZD_COMP_ZSTD, 3, ZD_LAYOUT_SINGLE },
	{ ZD_COMP_ZSTD, 3, ZD_LAYOUT_INDEXED },
	{ ZD_COMP_ZSTD, 3, ZD_LAYOUT_FRAMES },
	{ ZD_COMP_ZSTD, 3, ZD_LAYOUT_PZSTD },
};

static void
params(struct zd_comp_params *p, size_t i, unsigned threads)
{
	memset(p, 0, sizeof(*p));
	p->type = cases[i].type;
	p->level = cases[i].level;
	p->layout = cases[i].layout;
	p->threads = threads;
	p->segment_size = 512 << 10;
}

/*
 * Case i fed in uneven pieces to a file of ours after prefix bytes of
 * something else: the bytes zd_compress() makes, exactly where finish says,
 * with the prefix intact and the file's offset right after the member.
 */
static void
check_same_bytes(size_t i, size_t prefix)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_comp_params p;
	struct zd_encoder *e;
	unsigned char *in, *want, *got, head[100];
	size_t len, wlen;
	uint64_t start, size, fed;
	int in_fd, ref_fd, fd;

	ck_assert_uint_le(prefix, sizeof(head));
	ck_assert_int_eq(zd_test_sh("tar -cf - -C /usr/share/doc . "
	                            "2>/dev/null | head -c 3000000 > '%s'",
	                            zd_test_path("in")), 0);
	in = zd_test_read_file(zd_test_path("in"), &len);
	in_fd = open(zd_test_path("in"), O_RDONLY);
	ref_fd = open(zd_test_path("ref"), O_RDWR | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(in_fd, 0);
	ck_assert_int_ge(ref_fd, 0);
	params(&p, i, 1);
	ck_assert_zd_ok(zd_compress(&p, in_fd, len, ref_fd, &err), &err);
	close(ref_fd);
	close(in_fd);
	want = zd_test_read_file(zd_test_path("ref"), &wlen);

	fd = zd_tmpfile(&err);
	ck_assert_int_ge(fd, 0);
	memset(head, 'h', sizeof(head));
	ck_assert_zd_ok(zd_write_all(fd, head, prefix, &err), &err);
	params(&p, i, 2);
	e = zd_deb_encoder_new(&p, fd, (int64_t)len, &err);
	ck_assert_msg(e != NULL, "%s", err.msg);
	zd_test_write_uneven(zd_deb_encoder_write, e, in, len, 100000, 3);
	ck_assert_zd_ok(zd_deb_encoder_finish(e, &start, &size, &fed, &err),
	                &err);
	zd_deb_encoder_free(e);
	ck_assert_uint_eq(fed, len);
	ck_assert_uint_eq(size, wlen);
	ck_assert_uint_eq(start, prefix);
	ck_assert_int_eq(lseek(fd, 0, SEEK_CUR), (off_t)(prefix + size));
	memset(head, 0, sizeof(head));
	ck_assert_zd_ok(zd_pread_all(fd, head, prefix, 0, &err), &err);
	for (size_t k = 0; k < prefix; k++)
		ck_assert_int_eq(head[k], 'h');
	got = malloc(size > 0 ? size : 1);
	ck_assert_ptr_nonnull(got);
	ck_assert_zd_ok(zd_pread_all(fd, got, size, start, &err), &err);
	ck_assert_msg(memcmp(got, want, wlen) == 0, "case %zu: bytes differ",
	              i);
	close(fd);
	free(got);
	free(want);
	free(in);
}

START_TEST(test_encoder_same_bytes)
{
	check_same_bytes((size_t)_i, 0);
}
END_TEST

/* as inside a .deb: after other members */
START_TEST(test_encoder_in_place)
{
	check_same_bytes((size_t)_i, 77);
}
END_TEST

/* Records each progress call's count of bytes fed. */
struct calls {
	uint64_t fed[8];
	size_t n;
};

static void
record_progress(void *ctx, uint64_t fed)
{
	struct calls *c = ctx;

	ck_assert_uint_lt(c->n, 8);
	c->fed[c->n++] = fed;
}

/* 40 MiB fed in 3 MiB pieces: called at the first piece past each 16 MiB
 * since the last call, with the bytes fed so far, and never without. */
START_TEST(test_encoder_progress)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_comp_params p;
	struct zd_encoder *e;
	struct calls c = { { 0 }, 0 };
	size_t piece = 3u << 20;
	unsigned char *buf = calloc(1, piece);
	uint64_t off, size;
	int fd = zd_tmpfile(&err);

	ck_assert_ptr_nonnull(buf);
	ck_assert_int_ge(fd, 0);
	params(&p, 0, 1);	/* no compression: fast */
	e = zd_deb_encoder_new(&p, fd, -1, &err);
	ck_assert_ptr_nonnull(e);
	ck_assert_zd_ok(zd_deb_encoder_write(e, buf, piece, &err), &err);
	zd_deb_encoder_on_progress(e, record_progress, &c);
	for (int i = 1; i < 14; i++)	/* 42 MiB fed in all */
		ck_assert_zd_ok(zd_deb_encoder_write(e, buf, piece, &err),
		                &err);
	ck_assert_zd_ok(zd_deb_encoder_finish(e, &off, &size, NULL, &err),
	                &err);
	ck_assert_uint_eq(c.n, 2);
	ck_assert_uint_eq(c.fed[0], 18u << 20);	/* first >= 16 MiB */
	ck_assert_uint_eq(c.fed[1], 36u << 20);	/* 18 more */
	zd_deb_encoder_free(e);
	free(buf);
	close(fd);
}
END_TEST

static unsigned nwarn;
static char last_warn[512];

static void
on_warn(void *ctx, const char *msg)
{
	(void)ctx;
	nwarn++;
	snprintf(last_warn, sizeof(last_warn), "%s", msg);
}

/* Encodes the tar at path_in in case i's layout with 64 KiB segments;
 * the warnings it gave. */
static unsigned
warnings_for(size_t i, const char *path_in)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_comp_params p;
	struct zd_encoder *e;
	unsigned char *in;
	size_t len;
	uint64_t off, size;
	int fd = zd_tmpfile(&err);

	ck_assert_int_ge(fd, 0);
	in = zd_test_read_file(path_in, &len);
	params(&p, i, 2);
	p.segment_size = 64 << 10;
	p.warn = on_warn;
	nwarn = 0;
	last_warn[0] = '\0';
	e = zd_deb_encoder_new(&p, fd, -1, &err);
	ck_assert_ptr_nonnull(e);
	ck_assert_zd_ok(zd_deb_encoder_write(e, in, len, &err), &err);
	ck_assert_zd_ok(zd_deb_encoder_finish(e, &off, &size, NULL, &err),
	                &err);
	zd_deb_encoder_free(e);
	free(in);
	close(fd);
	return nwarn;
}

/* frames and pzstd warn what stock dpkg does, only when there is more
 * than one frame; no other layout warns */
START_TEST(test_encoder_frames_warning)
{
	ck_assert_int_eq(zd_test_sh("cd /usr/share && find doc -type f | "
	                            "LC_ALL=C sort | head -100 | tar -cf - "
	                            "-T - > '%s' && tar -cf '%s' -C / "
	                            "etc/hostname", zd_test_path("big"),
	                            zd_test_path("small")), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bool frames = cases[i].layout == ZD_LAYOUT_FRAMES ||
		              cases[i].layout == ZD_LAYOUT_PZSTD;

		ck_assert_uint_eq(warnings_for(i, zd_test_path("big")),
		                  cases[i].type == ZD_COMP_ZSTD && frames);
		if (cases[i].type == ZD_COMP_ZSTD && frames)
			ck_assert_msg(strstr(last_warn, "stock dpkg reads "
			                     "only the first one, so it fails "
			                     "to install the package") != NULL,
			              "%s", last_warn);
		ck_assert_uint_eq(warnings_for(i, zd_test_path("small")), 0);
	}
}
END_TEST

/* control.tar is one frame where data.tar's layout has several */
START_TEST(test_encoder_control_params)
{
	struct zd_comp_params p, c;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		params(&p, i, 2);
		zd_deb_encoder_control_params(&p, &c);
		ck_assert_int_eq(c.type, p.type);
		ck_assert_int_eq(c.level, p.level);
		ck_assert_uint_eq(c.threads, p.threads);
		ck_assert_int_eq(c.layout, cases[i].layout == ZD_LAYOUT_FRAMES ||
		                 cases[i].layout == ZD_LAYOUT_PZSTD ?
		                 ZD_LAYOUT_SINGLE : cases[i].layout);
	}
}
END_TEST

START_TEST(test_encoder_bad_params)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_comp_params p;
	uint64_t size;
	int fd = zd_tmpfile(&err);

	ck_assert_int_ge(fd, 0);
	params(&p, 2, 1);
	p.level = 10;		/* xz: 0 to 9 */
	ck_assert_ptr_null(zd_deb_encoder_new(&p, fd, -1, &err));
	ck_assert_int_eq(err.code, ZD_E_USAGE);
	ck_assert_msg(strstr(err.msg, "out of range") != NULL, "%s", err.msg);
	zd_err_clear(&err);
	params(&p, 0, 1);
	p.type = ZD_COMP_BZIP2;	/* read only */
	ck_assert_ptr_null(zd_deb_encoder_new(&p, fd, -1, &err));
	ck_assert_int_eq(err.code, ZD_E_UNSUPPORTED);
	/* nothing written */
	ck_assert_zd_ok(zd_fd_size(fd, &size, &err), &err);
	ck_assert_uint_eq(size, 0);
	close(fd);
}
END_TEST

static Suite *
encoder_suite(void)
{
	Suite *s = suite_create("encoder");
	TCase *core = zd_test_tcase(s, "core");
	TCase *malformed = zd_test_tcase_plain(s, "malformed");

	tcase_add_loop_test(core, test_encoder_same_bytes, 0,
	                    (int)(sizeof(cases) / sizeof(cases[0])));
	tcase_add_loop_test(core, test_encoder_in_place, 0,
	                    (int)(sizeof(cases) / sizeof(cases[0])));
	tcase_add_test(core, test_encoder_progress);
	tcase_add_test(core, test_encoder_frames_warning);
	tcase_add_test(core, test_encoder_control_params);
	tcase_add_test(malformed, test_encoder_bad_params);
	return s;
}

int
main(void)
{
	return zd_test_main(encoder_suite());
}
