/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check-zseg-layout.c - which layout a zstd member has, from its frame
 * headers and index alone: ours and foreign writers' output, an indexed
 * member whose index is damaged (counted by walking its blocks)
 */
#include "config.h"

#include <check.h>
#include <stdlib.h>

#include "lib/zseg-layout.h"
#include "tests/unit/testutil.h"
#include "tests/unit/zseg-fixture.h"

enum writer { OURS, ZSTD, ZSTD_NO_SIZE, ZSTD_TWICE, PZSTD };

struct layout_case {
	const char *what;
	enum writer writer;
	enum zd_zstd_layout ours;	/* the layout OURS writes */
	enum zd_zstd_layout want;
	uint64_t segments;		/* 0: more than one */
	bool content_size;		/* declared in every frame */
};

static const struct layout_case cases[] = {
	{ "zdeb indexed", OURS, ZD_LAYOUT_INDEXED, ZD_LAYOUT_INDEXED, 0,
	  true },
	{ "zdeb frames", OURS, ZD_LAYOUT_FRAMES, ZD_LAYOUT_FRAMES, 0, true },
	{ "zdeb pzstd", OURS, ZD_LAYOUT_PZSTD, ZD_LAYOUT_PZSTD, 0, false },
	{ "zstd", ZSTD, 0, ZD_LAYOUT_SINGLE, 1, true },
	{ "zstd, no content size", ZSTD_NO_SIZE, 0, ZD_LAYOUT_SINGLE, 1,
	  false },
	{ "two zstd frames", ZSTD_TWICE, 0, ZD_LAYOUT_FRAMES, 2, true },
	{ "pzstd", PZSTD, 0, ZD_LAYOUT_PZSTD, 0, false },
};

/* path_in written to path_z by c's writer. */
static void
write_z(const struct layout_case *c)
{
	struct zd_error err = ZD_ERROR_INIT;
	const char *i = path_in, *z = path_z;

	switch (c->writer) {
	case OURS:
		ck_assert_zd_ok(compress_to(i, z, c->ours, 1, 256 * KIB, 2,
		                            &err), &err);
		return;
	case ZSTD:
		ck_assert_int_eq(zd_test_sh("zstd -q -3 --single-thread -c "
		                            "'%s' > '%s'", i, z), 0);
		return;
	case ZSTD_NO_SIZE:
		ck_assert_int_eq(zd_test_sh("zstd -q --no-content-size -c "
		                            "< '%s' > '%s'", i, z), 0);
		return;
	case ZSTD_TWICE:
		ck_assert_int_eq(zd_test_sh("zstd -q -c '%s' > '%s' && "
		                            "zstd -q -c '%s' >> '%s'", i, z, i,
		                            z), 0);
		return;
	case PZSTD:
		ck_assert_int_eq(zd_test_sh("pzstd -q -p2 -1 -c '%s' > '%s'",
		                            i, z), 0);
		return;
	}
}

START_TEST(test_zseg_layout_describe)
{
	const struct layout_case *c = &cases[_i];
	struct zd_zstd_info info;
	size_t len = make_input(IN_TAR, 3 * MIB);

	write_z(c);
	describe(path_z, &info);
	ck_assert_msg(info.layout == c->want, "%s: layout %d", c->what,
	              (int)info.layout);
	if (c->segments != 0)
		ck_assert_uint_eq(info.segments, c->segments);
	else
		ck_assert_uint_gt(info.segments, 1);
	if (c->writer == ZSTD_TWICE)
		ck_assert_int_eq(info.content_size, 2 * (int64_t)len);
	else if (c->content_size)
		ck_assert_int_eq(info.content_size, (int64_t)len);
	else
		ck_assert_int_eq(info.content_size, -1);
	if (c->want == ZD_LAYOUT_INDEXED) {
		ck_assert_uint_gt(info.index_size, 0);
		ck_assert_uint_le(info.index_size, ZD_ZSEG_INDEX_MAX);
	} else {
		ck_assert_uint_eq(info.index_size, 0);
	}
	ck_assert_uint_ge(info.window_log, 10);
	ck_assert_uint_le(info.window_log, 27);
}
END_TEST

/* The index's check value broken: still indexed, segments counted by
 * walking the blocks, the same number. */
START_TEST(test_zseg_layout_damaged_index)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_zstd_info info, whole;
	struct parsed ps;

	make_input(IN_TAR, 3 * MIB);
	ck_assert_zd_ok(compress_to(path_in, path_z, ZD_LAYOUT_INDEXED, 1,
	                            256 * KIB, 2, &err), &err);
	describe(path_z, &whole);
	parse_output(&ps);
	ps.z[ps.zlen - 1] ^= 0x40;
	zd_test_write_file(path_z, ps.z, ps.zlen);
	describe(path_z, &info);
	ck_assert_int_eq(info.layout, ZD_LAYOUT_INDEXED);
	ck_assert_uint_eq(info.segments, whole.segments);
	ck_assert_uint_eq(info.segments, ps.idx.segments);
	zd_zseg_index_free(&ps.idx);
	free(ps.z);
}
END_TEST

static Suite *
zseg_layout_suite(void)
{
	Suite *s = suite_create("zseg-layout");
	TCase *core = zd_test_tcase(s, "core");
	TCase *malformed = zd_test_tcase(s, "malformed");

	tcase_add_loop_test(core, test_zseg_layout_describe, 0,
	                    (int)(sizeof(cases) / sizeof(cases[0])));
	tcase_add_test(malformed, test_zseg_layout_damaged_index);
	return s;
}

int
main(void)
{
	return zd_test_main(zseg_layout_suite());
}
