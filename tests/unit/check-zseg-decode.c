/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check-zseg-decode.c - the parallel reader: foreign writers, damaged
 * indexes (a warning, exact output), corrupt and truncated data (always
 * an error), caps, out of order into a file, the frame checksum
 */
#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

#include "lib/endian.h"
#include "lib/fdio.h"
#include "lib/zseg-decode.h"
#include "lib/zseg-index.h"
#include "tests/unit/testutil.h"
#include "tests/unit/zseg-fixture.h"

/* ---- foreign writers ---- */

START_TEST(test_zseg_decode_foreign)
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

/* Text (resets: the pair) and machine code (resets with literals). */
static const enum input_kind damaged_kinds[] = { IN_TEXT, IN_CODE };

START_TEST(test_zseg_decode_index_damaged)
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
		{ 12, 0x02, true, "version" },	/* 3: unknown */
		{ 13, 0x80, true, "flags" },
		{ 14, 0x01, true, "window" },
		{ 15, 0x04, true, "header size" },
		{ 17, 0x01, true, "segment count" },
		{ 19, 0x02, true, "size" },	/* first record csize */
		{ 0, 0, false, "last hash byte" },
	};

	make_input(damaged_kinds[_i], 2 * MIB);
	ck_assert_zd_ok(compress_to(path_in, path_z, ZD_LAYOUT_INDEXED, 3,
	                            128 * KIB, 2, &err), &err);
	parse_output(&ps);
	ck_assert_uint_gt(ps.idx.nrec, 8);
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

/* ---- corrupt and truncated data: always an error ---- */

START_TEST(test_zseg_decode_corrupt_data)
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

START_TEST(test_zseg_decode_truncated)
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

START_TEST(test_zseg_decode_caps)
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

START_TEST(test_zseg_decode_big_tar)
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

/* ---- out of order into a file (zd_sink_fd_init) ---- */

/*
 * Decodes path_z into path_out after 7 bytes already there, through an fd
 * sink (out of order where the pieces allow) or, with fail_at, a sink
 * that fails once that many bytes are written out of order.  Returns the
 * decoder's result; *end: the file offset after.
 */
struct failing {
	struct zd_fd_sink f;
	uint64_t left;
};

static int
failing_pwrite(void *ctx, const void *buf, size_t len, uint64_t off,
               struct zd_error *err)
{
	struct failing *s = ctx;

	if (buf != NULL && len > s->left)
		return zd_err(err, ZD_E_IO, "cannot write: disk full");
	if (buf != NULL)
		s->left -= len;
	(void)off;
	return 0;
}

static int
decode_placed(unsigned threads, uint64_t max_output, bool frame_checksum,
              uint64_t fail_at, uint64_t *end, struct zd_error *err)
{
	struct zd_dec_params p;
	struct zd_region r;
	struct failing out;
	struct zd_sink sink;
	int fd, rc;

	dec_params(&p, threads);
	p.max_output = max_output;
	p.frame_checksum = frame_checksum;
	open_region(path_z, &r);
	fd = open(path_out, O_RDWR | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "prefix!", 7), 7);
	zd_sink_fd_init(&sink, &out.f, fd);
	ck_assert_ptr_nonnull(sink.pwrite);
	if (fail_at != 0) {
		out.left = fail_at;
		sink.pwrite = failing_pwrite;
	}
	rc = zd_zstd_pdecode(&r, &p, &sink, err);
	*end = (uint64_t)lseek(fd, 0, SEEK_CUR);
	close(r.fd);
	close(fd);
	return rc;
}

/* A regular file gets each piece where it belongs, from its worker; the
 * file offset ends after them. */
START_TEST(test_zseg_decode_placed)
{
	struct zd_error err = ZD_ERROR_INIT;
	size_t len = make_input(IN_TAR, 8 * MIB);
	uint64_t end;

	ck_assert_zd_ok(compress_to(path_in, path_z, ZD_LAYOUT_INDEXED, 3,
	                            256 * KIB, 2, &err), &err);
	for (unsigned t = 1; t <= 3; t++) {
		ck_assert_zd_ok(decode_placed(t, 0, false, 0, &end, &err),
		                &err);
		ck_assert_uint_eq(end, 7 + len);
		ck_assert_int_eq(zd_test_sh("head -c 7 '%s' | grep -qx "
		                            "'prefix!' && tail -c +8 '%s' | "
		                            "cmp -s - '%s'", path_out, path_out,
		                            path_in), 0);
	}
	/* over the cap: refused before a byte is written */
	ck_assert_int_eq(decode_placed(2, len - 1, false, 0, &end, &err), -1);
	ck_assert_int_eq(err.code, ZD_E_LIMIT);
	ck_assert_uint_eq(end, 7);
	/* the output's error is the decoder's */
	ck_assert_int_eq(decode_placed(2, 0, false, 3 * MIB, &end, &err), -1);
	ck_assert_int_eq(err.code, ZD_E_IO);
	ck_assert_ptr_nonnull(strstr(err.msg, "disk full"));
}
END_TEST

/*
 * A damaged frame checksum over correct bytes: one thread streams the
 * frame and libzstd refuses it, as stock readers do; on several threads
 * every piece is checked against its index hash instead, unless the
 * frame checksum is asked for (zdeb verify).
 */
START_TEST(test_zseg_decode_frame_checksum)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct parsed ps;
	uint64_t end;

	make_input(IN_TAR, 4 * MIB);
	ck_assert_zd_ok(compress_to(path_in, path_z, ZD_LAYOUT_INDEXED, 3,
	                            256 * KIB, 2, &err), &err);
	parse_output(&ps);
	ps.z[ps.outer.size - 2] ^= 0x01;
	zd_test_write_file(path_z, ps.z, ps.zlen);
	check_decodes(path_z, 2);
	ck_assert_zd_ok(decode_placed(2, 0, false, 0, &end, &err), &err);
	ck_assert_int_eq(decode_to(path_z, path_out, 1, 0, 0, &err), -1);
	ck_assert_int_eq(err.code, ZD_E_CHECKSUM);
	for (unsigned t = 1; t <= 2; t++) {
		ck_assert_int_eq(decode_placed(t, 0, true, 0, &end, &err), -1);
		ck_assert_int_eq(err.code, ZD_E_CHECKSUM);
	}
	zd_zseg_index_free(&ps.idx);
	free(ps.z);
}
END_TEST

static Suite *
zseg_decode_suite(void)
{
	Suite *s = suite_create("zseg-decode");
	TCase *core = zd_test_tcase(s, "core");
	TCase *malformed = zd_test_tcase(s, "malformed");
	TCase *limits = zd_test_tcase(s, "limits");

	tcase_add_test(core, test_zseg_decode_foreign);
	tcase_add_test(core, test_zseg_decode_placed);
	tcase_add_test(malformed, test_zseg_decode_frame_checksum);
	tcase_add_loop_test(malformed, test_zseg_decode_index_damaged, 0,
	                    sizeof(damaged_kinds) / sizeof(damaged_kinds[0]));
	tcase_add_test(malformed, test_zseg_decode_corrupt_data);
	tcase_add_test(malformed, test_zseg_decode_truncated);
	tcase_add_test(limits, test_zseg_decode_caps);
	tcase_add_test(limits, test_zseg_decode_big_tar);
	return s;
}

int
main(void)
{
	return zd_test_main(zseg_decode_suite());
}
