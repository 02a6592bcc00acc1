/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check-tar-cut.c - safe frame ends in a tar stream: every offset against
 * the member table, any feeding, GNU tar as the reference, inputs the
 * scanner must give up on
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/tar-cut.h"
#include "lib/tar-header.h"
#include "tests/unit/testutil.h"

#define BLK ZD_TAR_BLOCK
#define MAXTAR (64 * BLK)

/* A tar being made, and the regular files' data ranges in it. */
struct tarbuf {
	unsigned char b[MAXTAR];
	size_t len;
	struct { size_t start, end; } reg[16];	/* end: padding included */
	size_t nreg;
};

static size_t
padded(size_t n)
{
	return (n + BLK - 1) / BLK * BLK;
}

static void
put_data(struct tarbuf *t, const void *data, size_t n)
{
	ck_assert_uint_le(t->len + padded(n), MAXTAR);
	memset(t->b + t->len, 0, padded(n));
	if (n > 0)
		memcpy(t->b + t->len, data, n);
	t->len += padded(n);
}

static void
put_long(struct tarbuf *t, char type, const char *s)
{
	ck_assert_uint_le(t->len + BLK, MAXTAR);
	zd_tar_header_longlink(type, strlen(s) + 1, "root", "root",
	                       t->b + t->len);
	t->len += BLK;
	put_data(t, s, strlen(s) + 1);
}

/* A member: type, name (long ones get a long-name record), link target,
 * size bytes of data (a pattern: never a 512-byte block of zeros). */
static void
member(struct tarbuf *t, char type, const char *name, const char *link,
       size_t size)
{
	struct zd_tarhdr h;
	unsigned char *data = malloc(size + 1);

	ck_assert_ptr_nonnull(data);
	for (size_t i = 0; i < size; i++)
		data[i] = (unsigned char)('a' + i % 23);
	memset(&h, 0, sizeof(h));
	h.name = name;
	h.linkname = link;
	h.mode = type == ZD_TAR_DIR ? 0755 : 0644;
	h.size = size;
	h.mtime = 1700000000;
	h.type = type;
	h.uname = h.gname = "root";
	if (link != NULL && strlen(link) > ZD_TAR_NAME_SIZE)
		put_long(t, ZD_TAR_LONGLINK, link);
	if (strlen(name) > ZD_TAR_NAME_SIZE)
		put_long(t, ZD_TAR_LONGNAME, name);
	ck_assert_uint_le(t->len + BLK, MAXTAR);
	ck_assert(zd_tar_header_encode(&h, t->b + t->len));
	t->len += BLK;
	if (type == ZD_TAR_REG && size > 0) {
		t->reg[t->nreg].start = t->len;
		t->reg[t->nreg].end = t->len + padded(size);
		t->nreg++;
	}
	put_data(t, data, size);
	free(data);
}

static const char long_name[] =
	"./usr/share/doc/a-directory-with-a-rather-long-name-to-push-the-path/"
	"over-one-hundred-bytes-for-gnu-longlink/file";

/* Every kind of member dpkg-deb and zdeb write, and the end of archive
 * padded to GNU tar's 10 KiB record. */
static void
sample_tar(struct tarbuf *t)
{
	memset(t, 0, sizeof(*t));
	member(t, ZD_TAR_DIR, "./", NULL, 0);
	member(t, ZD_TAR_DIR, "./usr/", NULL, 0);
	member(t, ZD_TAR_REG, "./usr/a", NULL, 1500);
	member(t, ZD_TAR_REG, "./usr/empty", NULL, 0);
	member(t, ZD_TAR_REG, "./usr/block", NULL, BLK);
	member(t, ZD_TAR_REG, long_name, NULL, 3);
	member(t, ZD_TAR_SYM, "./usr/s", long_name, 0);
	member(t, ZD_TAR_LNK, "./usr/h", "./usr/a", 0);
	member(t, ZD_TAR_REG, "./usr/one", NULL, 1);
	member(t, ZD_TAR_DIR, "./var/", NULL, 0);
	t->len += 2 * BLK;		/* zeros already */
	t->len = (t->len + ZD_TAR_RECORD - 1) / ZD_TAR_RECORD *
	         ZD_TAR_RECORD;
}

/* The first safe offset >= from by the member table, or SIZE_MAX. */
static size_t
expected_cut(const struct tarbuf *t, size_t from)
{
	for (size_t i = 0; i < t->nreg; i++) {
		size_t q = from > t->reg[i].start ? from : t->reg[i].start + 1;

		if (q % BLK == 0)
			q++;
		if (q < t->reg[i].end)
			return q;
	}
	return SIZE_MAX;
}

/* Feeds t from a fresh scanner in pieces of at most max bytes; the cut at
 * or after from, or SIZE_MAX. */
static size_t
scan_cut(const struct tarbuf *t, size_t from, size_t max, uint64_t seed)
{
	struct zd_tar_cut c;
	size_t off = 0;
	bool found = false;

	zd_tar_cut_init(&c);
	while (off < t->len) {
		size_t n = max;

		if (max > 1) {
			seed = seed * 6364136223846793005u + 1;
			n = 1 + (size_t)(seed >> 33) % max;
		}
		if (n > t->len - off)
			n = t->len - off;
		n = zd_tar_cut_feed(&c, t->b + off, n, from, &found);
		off += n;
		ck_assert_uint_eq(c.pos, off);
		if (found)
			return off;
	}
	return SIZE_MAX;
}

START_TEST(test_tar_cut_every_offset)
{
	struct tarbuf *t = malloc(sizeof(*t));
	size_t n = 0;

	ck_assert_ptr_nonnull(t);
	sample_tar(t);
	ck_assert_uint_eq(t->nreg, 4);
	for (size_t from = 0; from <= t->len; from++) {
		size_t want = expected_cut(t, from);

		ck_assert_msg(scan_cut(t, from, t->len, 0) == want,
		              "from %zu: cut %zu, expected %zu", from,
		              scan_cut(t, from, t->len, 0), want);
		ck_assert_uint_eq(scan_cut(t, from, 700, from), want);
		if (from % 61 == 0)	/* byte by byte */
			ck_assert_uint_eq(scan_cut(t, from, 1, 0), want);
		n += want != SIZE_MAX;
	}
	ck_assert_uint_gt(n, 0);
	free(t);
}
END_TEST

/* Cuts one after the other as the zstd writer takes them: each from the
 * byte after the last, every target; the bytes after a cut fed again. */
START_TEST(test_tar_cut_successive)
{
	static const size_t targets[] = { 1, 100, 512, 1024, 1500 };
	struct tarbuf *t = malloc(sizeof(*t));

	ck_assert_ptr_nonnull(t);
	sample_tar(t);
	for (size_t k = 0; k < sizeof(targets) / sizeof(*targets); k++) {
		struct zd_tar_cut c;
		size_t off = 0, seg = 0, want;
		bool found;

		zd_tar_cut_init(&c);
		while (off < t->len) {
			size_t n = t->len - off > 333 ? 333 : t->len - off;

			n = zd_tar_cut_feed(&c, t->b + off, n,
			                    seg + targets[k], &found);
			off += n;
			if (!found)
				continue;
			want = expected_cut(t, seg + targets[k]);
			ck_assert_uint_eq(off, want);
			seg = off;
		}
		ck_assert_uint_eq(expected_cut(t, seg + targets[k]),
		                  SIZE_MAX);
	}
	free(t);
}
END_TEST

/*
 * The reference: GNU tar fails on the tar cut at every offset the scanner
 * finds (dpkg's extractor fails off the 512-byte grid, which every cut
 * is); and the cuts it leaves out between members are the ones tar takes
 * for a complete archive.
 */
START_TEST(test_tar_cut_gnu_tar)
{
	struct tarbuf *t = malloc(sizeof(*t));
	const char *path = zd_test_path("t.tar");
	size_t quiet = 0, loud = 0;

	ck_assert_ptr_nonnull(t);
	sample_tar(t);
	zd_test_write_file(path, t->b, t->len);
	ck_assert_int_eq(zd_test_sh("tar -tf '%s' >/dev/null", path), 0);
	for (size_t p = 1; p < t->len; p += 97) {
		size_t cut = scan_cut(t, p, t->len, 0);
		int rc;

		if (cut == SIZE_MAX)
			break;
		ck_assert_uint_ne(cut % BLK, 0);
		rc = zd_test_sh("head -c %zu '%s' | tar -tf - >/dev/null "
		                "2>&1", cut, path);
		ck_assert_msg(rc != 0, "GNU tar reads the tar cut at %zu",
		              cut);
		loud++;
	}
	/* between members, and inside a header block: tar says nothing */
	for (size_t p = 2 * BLK; p < 2 * BLK + BLK; p += 101) {
		if (zd_test_sh("head -c %zu '%s' | tar -tf - >/dev/null "
		               "2>&1", p, path) == 0)
			quiet++;
	}
	ck_assert_uint_gt(loud, 20);
	ck_assert_uint_eq(quiet, 6);
	free(t);
}
END_TEST

/* Not a tar from the first block on: anywhere off the grid. */
START_TEST(test_tar_cut_opaque)
{
	unsigned char b[3 * BLK];
	struct zd_tar_cut c;
	bool found;
	size_t n;

	zd_test_fill_random(b, sizeof(b), 7);
	zd_tar_cut_init(&c);
	n = zd_tar_cut_feed(&c, b, sizeof(b), 1024, &found);
	ck_assert(found);
	ck_assert_uint_eq(n, 1025);
	n = zd_tar_cut_feed(&c, b + n, sizeof(b) - n, 1100, &found);
	ck_assert(found);
	ck_assert_uint_eq(c.pos, 1100);
	/* too short to tell: no cut in the first block */
	zd_tar_cut_init(&c);
	n = zd_tar_cut_feed(&c, b, 300, 0, &found);
	ck_assert(!found);
	ck_assert_uint_eq(n, 300);
}
END_TEST

/* Inputs the scanner cannot follow: no cut after the point it lost. */
static void
check_no_cut_after(const struct tarbuf *t, size_t lost_at)
{
	for (size_t from = lost_at; from <= t->len; from += 7)
		ck_assert_uint_eq(scan_cut(t, from, t->len, 0), SIZE_MAX);
}

START_TEST(test_tar_cut_gives_up)
{
	struct tarbuf *t = malloc(sizeof(*t));
	size_t at;

	ck_assert_ptr_nonnull(t);
	/* a pax header: its records may change the next member's size */
	memset(t, 0, sizeof(*t));
	member(t, ZD_TAR_REG, "./a", NULL, 600);
	at = t->len;
	member(t, 'x', "./PaxHeaders/b", NULL, 30);
	member(t, ZD_TAR_REG, "./b", NULL, 2000);
	t->len += 2 * BLK;
	ck_assert_uint_eq(scan_cut(t, 0, t->len, 0), BLK + 1);
	check_no_cut_after(t, at);
	/* a symlink with data: dpkg reads none, GNU tar skips it */
	memset(t, 0, sizeof(*t));
	member(t, ZD_TAR_SYM, "./s", "x", 700);
	member(t, ZD_TAR_REG, "./b", NULL, 2000);
	check_no_cut_after(t, 0);
	/* a regular file named like a directory, with data */
	memset(t, 0, sizeof(*t));
	member(t, ZD_TAR_REG, "./d/", NULL, 700);
	member(t, ZD_TAR_REG, "./b", NULL, 2000);
	check_no_cut_after(t, 0);
	/* the same through a long name */
	memset(t, 0, sizeof(*t));
	member(t, ZD_TAR_REG, "./a", NULL, 1);
	at = t->len;
	member(t, ZD_TAR_REG, "./a-directory-with-a-name-longer-than-one-"
	       "hundred-bytes-so-that-gnu-tar-writes-a-long-name-record-for"
	       "-it/", NULL, 700);
	member(t, ZD_TAR_REG, "./b", NULL, 2000);
	check_no_cut_after(t, at);
	/* a damaged header after a good member; an empty archive */
	memset(t, 0, sizeof(*t));
	member(t, ZD_TAR_REG, "./a", NULL, 1);
	at = t->len;
	member(t, ZD_TAR_REG, "./b", NULL, 2000);
	t->b[at + 148] ^= 1;
	check_no_cut_after(t, at);
	memset(t, 0, sizeof(*t));
	t->len = 4 * BLK;
	check_no_cut_after(t, 0);
	free(t);
}
END_TEST

/* Sizes at the edges of the octal and base-256 fields. */
START_TEST(test_tar_cut_sizes)
{
	struct tarbuf *t = malloc(sizeof(*t));
	struct zd_tar_cut c;
	struct zd_tarhdr h;
	bool found;
	size_t n;

	ck_assert_ptr_nonnull(t);
	memset(&h, 0, sizeof(h));
	h.name = "./big";
	h.type = ZD_TAR_REG;
	h.uname = h.gname = "root";
	h.size = UINT64_C(1) << 40;	/* base-256 */
	memset(t, 0, sizeof(*t));
	ck_assert(zd_tar_header_encode(&h, t->b));
	zd_tar_cut_init(&c);
	n = zd_tar_cut_feed(&c, t->b, 4 * BLK, (UINT64_C(1) << 40) - 5,
	                    &found);
	ck_assert(!found);
	ck_assert_uint_eq(n, 4 * BLK);
	ck_assert_int_eq(c.state, ZD_TAR_CUT_DATA);
	ck_assert_uint_eq(c.data_end, BLK + (UINT64_C(1) << 40));
	/* a size that cannot be padded: not followed */
	h.size = UINT64_MAX - 100;
	ck_assert(zd_tar_header_encode(&h, t->b));
	zd_tar_cut_init(&c);
	zd_tar_cut_feed(&c, t->b, BLK, 0, &found);
	ck_assert_int_eq(c.state, ZD_TAR_CUT_NONE);
	free(t);
}
END_TEST

static Suite *
tar_cut_suite(void)
{
	Suite *s = suite_create("tar-cut");
	TCase *core = zd_test_tcase(s, "core");
	TCase *malformed = zd_test_tcase(s, "malformed");
	TCase *limits = zd_test_tcase(s, "limits");

	tcase_add_test(core, test_tar_cut_every_offset);
	tcase_add_test(core, test_tar_cut_successive);
	tcase_add_test(core, test_tar_cut_gnu_tar);
	tcase_add_test(malformed, test_tar_cut_opaque);
	tcase_add_test(malformed, test_tar_cut_gives_up);
	tcase_add_test(limits, test_tar_cut_sizes);
	return s;
}

int
main(void)
{
	return zd_test_main(tar_cut_suite());
}
