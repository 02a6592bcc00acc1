/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check-deb-recompress.c - members re-encoded, the tar bytes and ar
 * mtime kept, nothing left behind on failure */
#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/deb-recompress.h"
#include "tests/unit/testutil.h"

/* T/p.deb, built by the stock dpkg-deb (xz, ar mtime 1600000000; a
 * postinst of 16 KiB makes control.tar span frames of 4 KiB), and
 * the tars it reads from it: T/want-ctl.tar, T/want-data.tar. */
static void
make_deb(void)
{
	ck_assert_int_eq(zd_test_sh(
		"cd '%s' && mkdir -p p/DEBIAN p/usr/share/t && "
		"printf 'Package: t\\nVersion: 1\\nArchitecture: all\\n"
		"Maintainer: t <t@example.org>\\nDescription: t\\n' "
		">p/DEBIAN/control && "
		"{ echo '#!/bin/sh'; seq -f '# %%g' 1 2000; } "
		">p/DEBIAN/postinst && chmod 755 p/DEBIAN/postinst && "
		"head -c 1500000 /dev/urandom >p/usr/share/t/blob && "
		"seq 1 100000 >p/usr/share/t/text && "
		"SOURCE_DATE_EPOCH=1600000000 dpkg-deb --root-owner-group "
		"-Zxz -b p p.deb >/dev/null && "
		"dpkg-deb --ctrl-tarfile p.deb >want-ctl.tar && "
		"dpkg-deb --fsys-tarfile p.deb >want-data.tar",
		zd_test_tmpdir), 0);
}

/* Recompresses T/p.deb to T/name with comp on threads; returns the rc,
 * err and r filled. */
static int
recompress(const char *name, enum zd_comp_type type, int level,
           unsigned threads, struct zd_recompress_result *r,
           struct zd_error *err)
{
	struct zd_comp_params cp = {
		.type = type, .level = level, .threads = threads,
		.layout = ZD_LAYOUT_INDEXED,
	};
	struct zd_dec_params dp = { .threads = threads };
	struct zd_recompress_opts o = { &cp, &dp, NULL, NULL, NULL, false };
	struct zd_deb deb = { .fd = -1 };
	int rc;

	if (zd_deb_open(zd_test_path("p.deb"), &deb, err) < 0)
		return -1;
	rc = zd_deb_recompress(&deb, zd_test_path(name), &o, r, err);
	zd_deb_close(&deb);
	return rc;
}

/* The stock dpkg-deb reads the same tars from T/name as from p.deb. */
static void
assert_same_tars(const char *name)
{
	ck_assert_int_eq(zd_test_sh(
		"cd '%s' && dpkg-deb --ctrl-tarfile %s | cmp - want-ctl.tar && "
		"dpkg-deb --fsys-tarfile %s | cmp - want-data.tar",
		zd_test_tmpdir, name, name), 0);
}

START_TEST(test_deb_recompress_zstd)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_recompress_result r;

	make_deb();
	ck_assert_zd_ok(recompress("z.deb", ZD_COMP_ZSTD, 19, 2, &r, &err),
	                &err);
	assert_same_tars("z.deb");
	/* members renamed for the codec, ar mtime of the input */
	ck_assert_int_eq(zd_test_sh(
		"cd '%s' && ar tv z.deb | grep -q ' 2020 control.tar.zst$' && "
		"ar tv z.deb | grep -q ' 2020 data.tar.zst$' && "
		"ar tv z.deb | grep -q ' 2020 debian-binary$'",
		zd_test_tmpdir), 0);
	ck_assert_int_eq(zd_test_sh("test $(stat -c %%s '%s/want-ctl.tar') = "
	                            "%ju", zd_test_tmpdir,
	                            (uintmax_t)r.tar_bytes[0]), 0);
	ck_assert_int_eq(zd_test_sh("test $(stat -c %%s '%s/want-data.tar') = "
	                            "%ju", zd_test_tmpdir,
	                            (uintmax_t)r.tar_bytes[1]), 0);
	ck_assert_int_eq(zd_test_sh("cd '%s' && ar p z.deb data.tar.zst | "
	                            "test $(wc -c) = %ju", zd_test_tmpdir,
	                            (uintmax_t)r.out_bytes[1]), 0);
}
END_TEST

START_TEST(test_deb_recompress_gzip)
{
	struct zd_error err = ZD_ERROR_INIT;

	make_deb();
	ck_assert_zd_ok(recompress("g.deb", ZD_COMP_GZIP, 9, 1, NULL, &err),
	                &err);
	assert_same_tars("g.deb");
	ck_assert_int_eq(zd_test_sh("ar t '%s/g.deb' | grep -qx data.tar.gz",
	                            zd_test_tmpdir), 0);
}
END_TEST

/* The same bytes for any thread count. */
START_TEST(test_deb_recompress_threads)
{
	struct zd_error err = ZD_ERROR_INIT;

	make_deb();
	ck_assert_zd_ok(recompress("t1.deb", ZD_COMP_ZSTD, 3, 1, NULL, &err),
	                &err);
	ck_assert_zd_ok(recompress("t3.deb", ZD_COMP_ZSTD, 3, 3, NULL, &err),
	                &err);
	ck_assert_int_eq(zd_test_sh("cmp '%s/t1.deb' '%s/t3.deb'",
	                            zd_test_tmpdir, zd_test_tmpdir), 0);
}
END_TEST

/* Frames of 4 KiB for data.tar: control.tar is one frame unless asked
 * (stock dpkg reads its first frame only), data.tar has several. */
START_TEST(test_deb_recompress_control_one_frame)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_comp_params cp = {
		.type = ZD_COMP_ZSTD, .level = 3, .threads = 2,
		.layout = ZD_LAYOUT_FRAMES, .segment_size = 4096,
	};
	struct zd_dec_params dp = { .threads = 2 };
	struct zd_recompress_opts o = { &cp, &dp, NULL, NULL, NULL, false };
	struct zd_deb deb = { .fd = -1 };

	make_deb();
	ck_assert_zd_ok(zd_deb_open(zd_test_path("p.deb"), &deb, &err), &err);
	ck_assert_zd_ok(zd_deb_recompress(&deb, zd_test_path("f.deb"), &o,
	                                  NULL, &err), &err);
	o.control = &cp;
	ck_assert_zd_ok(zd_deb_recompress(&deb, zd_test_path("F.deb"), &o,
	                                  NULL, &err), &err);
	zd_deb_close(&deb);
	ck_assert_int_eq(zd_test_sh(
		"cd '%s' && dpkg-deb --ctrl-tarfile f.deb | cmp - want-ctl.tar && "
		"frames() { ar p $1 $2 >m.zst && zstd -lv m.zst 2>/dev/null | "
		"sed -n 's/^# Zstandard Frames: //p'; } && "
		"test \"$(frames f.deb control.tar.zst)\" = 1 && "
		"test \"$(frames f.deb data.tar.zst)\" -gt 1 && "
		"test \"$(frames F.deb control.tar.zst)\" -gt 1",
		zd_test_tmpdir), 0);
}
END_TEST

/* A damaged data member: an error naming it, nothing at the output
 * path, no temporary file beside it. */
START_TEST(test_deb_recompress_damaged)
{
	struct zd_error err = ZD_ERROR_INIT;
	int rc;

	make_deb();
	/* a byte in the middle of data.tar.xz (the last member), flipped:
	 * the blob is random, so setting it to some value would leave it
	 * as it was once in 256 runs */
	ck_assert_int_eq(zd_test_sh(
		"cd '%s' && at=$(($(stat -c %%s p.deb) - 20000)) && "
		"b=$(od -An -tu1 -j $at -N 1 p.deb) && "
		"printf \"\\\\$(printf %%o $((b ^ 255)))\" | "
		"dd of=p.deb bs=1 seek=$at conv=notrunc 2>/dev/null && "
		"test \"$(od -An -tu1 -j $at -N 1 p.deb)\" -eq $((b ^ 255)) && "
		"mkdir o", zd_test_tmpdir), 0);
	rc = recompress("o/x.deb", ZD_COMP_ZSTD, 3, 2, NULL, &err);
	ck_assert_int_eq(rc, -1);
	ck_assert_msg(err.code == ZD_E_FORMAT || err.code == ZD_E_CHECKSUM,
	              "code %d: %s", err.code, err.msg);
	ck_assert_int_eq(zd_test_sh("test -z \"$(ls -A '%s/o')\"",
	                            zd_test_tmpdir), 0);
}
END_TEST

static Suite *
deb_recompress_suite(void)
{
	Suite *s = suite_create("deb-recompress");
	TCase *core = zd_test_tcase(s, "core");
	TCase *malformed = zd_test_tcase(s, "malformed");

	tcase_add_test(core, test_deb_recompress_zstd);
	tcase_add_test(core, test_deb_recompress_gzip);
	tcase_add_test(core, test_deb_recompress_threads);
	tcase_add_test(core, test_deb_recompress_control_one_frame);
	tcase_add_test(malformed, test_deb_recompress_damaged);
	return s;
}

int
main(void)
{
	return zd_test_main(deb_recompress_suite());
}
