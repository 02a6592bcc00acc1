/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check-tar-quote.c - member-name quoting against GNU tar's own
 *
 * The oracle test writes a tar of names (every byte 0x01-0xff, every
 * Unicode character, invalid and truncated UTF-8, random bytes), lists it
 * with `tar -tf` under C, C.UTF-8 and a Latin-1 locale, and compares each
 * line with zd_tar_quote() in the same locale.
 */
#include "config.h"

#include <check.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/tar-header.h"
#include "lib/tar-quote.h"
#include "tests/unit/testutil.h"

#define LATIN1 "en_US.ISO-8859-1"

static char *
quote(const char *name, locale_t loc)
{
	static char buf[4096];
	size_t n = zd_tar_quote(buf, sizeof(buf), name, loc);

	ck_assert_uint_lt(n, sizeof(buf));
	return buf;
}

static locale_t
need_locale(const char *name)
{
	locale_t loc = newlocale(LC_ALL_MASK, name, (locale_t)0);

	ck_assert_msg(loc != (locale_t)0, "no locale %s", name);
	return loc;
}

/*
 * Makes the Latin-1 locale in the test's directory (tests/latin1-locale.sh)
 * and points LOCPATH at it, for this process and the tar it runs.
 */
static void
setup_latin1(void)
{
	const char *src = getenv("ZDEB_SRCDIR");
	char locpath[4200];

	ck_assert_msg(src != NULL, "ZDEB_SRCDIR is not set (run by make "
	              "check)");
	ck_assert_msg(zd_test_sh("sh '%s/tests/latin1-locale.sh' '%s/locale'",
	                         src, zd_test_tmpdir) == 0,
	              "cannot make the %s locale", LATIN1);
	snprintf(locpath, sizeof(locpath), "%s/locale:/usr/lib/locale",
	         zd_test_tmpdir);
	setenv("LOCPATH", locpath, 1);
}

START_TEST(test_tar_quote_escapes)
{
	locale_t c = need_locale("C");

	ck_assert_str_eq(quote("plain ./-_+,:=~#%^&*()[]{}<>|;'\"`$!?", c),
	                 "plain ./-_+,:=~#%^&*()[]{}<>|;'\"`$!?");
	ck_assert_str_eq(quote("system-systemd\\x2dcryptsetup.slice", c),
	                 "system-systemd\\\\x2dcryptsetup.slice");
	ck_assert_str_eq(quote("\a\b\f\n\r\t\v", c),
	                 "\\a\\b\\f\\n\\r\\t\\v");
	ck_assert_str_eq(quote("\001\037\033\177@", c),
	                 "\\001\\037\\033\\177@");
	ck_assert_str_eq(quote("F\305\221t.crt", c), "F\\305\\221t.crt");
	freelocale(c);
}
END_TEST

START_TEST(test_tar_quote_utf8)
{
	locale_t u = need_locale("C.UTF-8");

	/* Printable characters stay, unprintable ones are escaped byte by
	 * byte (U+0085 NEL, U+2028), as is a byte that starts nothing; a
	 * character cut short at the end is escaped whole. */
	ck_assert_str_eq(quote("F\305\221t\303\241ns.crt", u),
	                 "F\305\221t\303\241ns.crt");
	ck_assert_str_eq(quote("a\302\205b\342\200\250c", u),
	                 "a\\302\\205b\\342\\200\\250c");
	ck_assert_str_eq(quote("latin1-\351t\351", u),
	                 "latin1-\\351t\\351");
	ck_assert_str_eq(quote("cut\342\202", u), "cut\\342\\202");
	ck_assert_str_eq(quote("over\300\200long", u),
	                 "over\\300\\200long");
	freelocale(u);
}
END_TEST

START_TEST(test_tar_quote_current_locale)
{
	locale_t u = need_locale("C.UTF-8");
	locale_t c = need_locale("C");
	locale_t old = uselocale(u);

	ck_assert_str_eq(quote("\303\251", (locale_t)0), "\303\251");
	uselocale(c);
	ck_assert_str_eq(quote("\303\251", (locale_t)0), "\\303\\251");
	/* The caller's locale is left as it was. */
	ck_assert_ptr_eq(uselocale((locale_t)0), c);
	ck_assert_str_eq(quote("\303\251", u), "\303\251");
	ck_assert_ptr_eq(uselocale((locale_t)0), c);
	uselocale(old);
	freelocale(u);
	freelocale(c);
}
END_TEST

START_TEST(test_tar_quote_cut)
{
	locale_t c = need_locale("C");
	char buf[6];

	memset(buf, 'x', sizeof(buf));
	ck_assert_uint_eq(zd_tar_quote(buf, 0, "a\nb", c), 4);
	ck_assert_int_eq(buf[0], 'x');
	ck_assert_uint_eq(zd_tar_quote(buf, 4, "a\nb", c), 4);
	ck_assert_str_eq(buf, "a\\n");
	ck_assert_uint_eq(zd_tar_quote(buf, 5, "a\nb", c), 4);
	ck_assert_str_eq(buf, "a\\nb");
	ck_assert_uint_eq(zd_tar_quote(buf, sizeof(buf), "\377", c), 4);
	ck_assert_str_eq(buf, "\\377");
	ck_assert_uint_eq(zd_tar_quote(buf, sizeof(buf), "", c), 0);
	ck_assert_str_eq(buf, "");
	freelocale(c);
}
END_TEST

/* The names of the oracle test, one after the other, each NUL-ended. */
struct names {
	char *buf;
	size_t len, cap;
	size_t count;
};

static void
name_add(struct names *n, const char *s, size_t len)
{
	if (n->len + len + 1 > n->cap) {
		n->cap = (n->len + len + 1) * 2;
		n->buf = realloc(n->buf, n->cap);
		ck_assert_ptr_nonnull(n->buf);
	}
	memcpy(n->buf + n->len, s, len);
	n->buf[n->len + len] = '\0';
	n->len += len + 1;
	n->count++;
}

static size_t
utf8_put(char *p, uint32_t c)
{
	if (c < 0x80) {
		p[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		p[0] = (char)(0xc0 | c >> 6);
		p[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		p[0] = (char)(0xe0 | c >> 12);
		p[1] = (char)(0x80 | (c >> 6 & 0x3f));
		p[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	p[0] = (char)(0xf0 | c >> 18);
	p[1] = (char)(0x80 | (c >> 12 & 0x3f));
	p[2] = (char)(0x80 | (c >> 6 & 0x3f));
	p[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

static void
make_names(struct names *n)
{
	char s[2048];
	size_t l;
	uint64_t r = 0x9e3779b97f4a7c15u;

	/* Every byte, in the middle and at the end. */
	for (int b = 1; b < 256; b++) {
		l = (size_t)snprintf(s, sizeof(s), "q/b-%02x-%c-z", b, b);
		name_add(n, s, l);
		l = (size_t)snprintf(s, sizeof(s), "q/e-%02x-%c", b, b);
		name_add(n, s, l);
	}
	/* Every Unicode scalar value and the surrogates, 256 a name. */
	for (uint32_t c = 0x80; c < 0x110000; c += 256) {
		l = (size_t)snprintf(s, sizeof(s), "q/u-%06x-", c);
		for (uint32_t k = c; k < c + 256 && k < 0x110000; k++)
			l += utf8_put(s + l, k);
		s[l++] = '-';
		name_add(n, s, l);
	}
	/* Every byte from 0x80 before every continuation byte and a few
	 * others, a name per first byte; then cut short at the end. */
	for (int a = 0x80; a < 0x100; a++) {
		static const int next[] = { 0x41, 0x5c, 0xc0, 0xc3, 0xe2,
		                            0xf0, 0xff };

		l = (size_t)snprintf(s, sizeof(s), "q/p-%02x-", a);
		for (int b = 0x80; b < 0xc0; b++) {
			s[l++] = (char)a;
			s[l++] = (char)b;
			s[l++] = '-';
		}
		for (size_t k = 0; k < sizeof(next) / sizeof(next[0]); k++) {
			s[l++] = (char)a;
			s[l++] = (char)next[k];
			s[l++] = '-';
		}
		name_add(n, s, l);
		for (int b = 0x80; b < 0xc0; b += 0x3f) {
			l = (size_t)snprintf(s, sizeof(s), "q/t-%c%c", a, b);
			name_add(n, s, l);
			s[l++] = (char)b;
			name_add(n, s, l);
		}
	}
	/* Random names over the bytes that matter. */
	for (int i = 0; i < 20000; i++) {
		int len;

		l = (size_t)snprintf(s, sizeof(s), "q/r-%d-", i);
		r = r * 6364136223846793005u + 1442695040888963407u;
		len = 1 + (int)(r >> 60);
		for (int k = 0; k < len; k++) {
			unsigned v;

			r = r * 6364136223846793005u + 1442695040888963407u;
			v = (unsigned)(r >> 33);
			switch (v % 8) {
			case 0: case 1: case 2:
				s[l++] = (char)(0x80 + (v >> 3) % 0x80);
				break;
			case 3:
				s[l++] = (char)(0xc2 + (v >> 3) % 0x33);
				break;
			case 4:
				s[l++] = (char)(1 + (v >> 3) % 0x1f);
				break;
			case 5:
				s[l++] = '\\';
				break;
			default:
				s[l++] = (char)(0x20 + (v >> 3) % 0x5f);
			}
		}
		if (s[l - 1] == '/')
			s[l++] = 'z';
		name_add(n, s, l);
	}
}

/* Writes the names as empty regular files, a GNU long-name record before
 * those that do not fit the header. */
static void
write_tar(const struct names *n, const char *path)
{
	FILE *f = fopen(path, "w");
	unsigned char blk[ZD_TAR_BLOCK];
	const char *s = n->buf;

	ck_assert_ptr_nonnull(f);
	for (size_t i = 0; i < n->count; i++) {
		struct zd_tarhdr h = {
			.name = s, .mode = 0644, .type = ZD_TAR_REG,
			.uname = "root", .gname = "root",
		};
		size_t len = strlen(s);
		size_t pad = (ZD_TAR_BLOCK - (len + 1) % ZD_TAR_BLOCK) %
		             ZD_TAR_BLOCK;

		if (len > ZD_TAR_NAME_SIZE) {
			zd_tar_header_longlink(ZD_TAR_LONGNAME, len, "root",
			                   "root", blk);
			ck_assert_uint_eq(fwrite(blk, 1, sizeof(blk), f),
			                  sizeof(blk));
			ck_assert_uint_eq(fwrite(s, 1, len + 1, f), len + 1);
			memset(blk, 0, sizeof(blk));
			ck_assert_uint_eq(fwrite(blk, 1, pad, f), pad);
		}
		ck_assert(zd_tar_header_encode(&h, blk));
		ck_assert_uint_eq(fwrite(blk, 1, sizeof(blk), f), sizeof(blk));
		s += len + 1;
	}
	memset(blk, 0, sizeof(blk));
	for (int i = 0; i < 2; i++)
		ck_assert_uint_eq(fwrite(blk, 1, sizeof(blk), f), sizeof(blk));
	ck_assert_int_eq(fclose(f), 0);
}

static const char *const oracle_locales[] = { "C", "C.UTF-8", LATIN1 };

START_TEST(test_tar_quote_matches_tar)
{
	const char *lname = oracle_locales[_i];
	struct names n = { 0 };
	char *want, *line, *q = NULL;
	const char *s;
	size_t qcap = 0, mismatches = 0;
	locale_t loc;

	if (strcmp(lname, LATIN1) == 0)
		setup_latin1();
	loc = need_locale(lname);
	make_names(&n);
	write_tar(&n, zd_test_path("names.tar"));
	ck_assert_int_eq(zd_test_sh("cd '%s' && LC_ALL='%s' tar -tf names.tar "
	                            ">want.txt", zd_test_tmpdir, lname), 0);
	want = zd_test_read_text(zd_test_path("want.txt"));
	line = want;
	s = n.buf;
	for (size_t i = 0; i < n.count; i++) {
		char *nl = strchr(line, '\n');
		size_t len = strlen(s), got;

		ck_assert_msg(nl != NULL, "%s: tar listed %zu names, not %zu",
		              lname, i, n.count);
		*nl = '\0';
		if (qcap < ZD_TAR_QUOTE_MAX(len)) {
			qcap = ZD_TAR_QUOTE_MAX(len);
			q = realloc(q, qcap);
			ck_assert_ptr_nonnull(q);
		}
		got = zd_tar_quote(q, qcap, s, loc);
		ck_assert_uint_lt(got, ZD_TAR_QUOTE_MAX(len));
		if (strcmp(q, line) != 0 && mismatches++ < 5)
			fprintf(stderr, "%s: tar '%s', zdeb '%s'\n", lname,
			        line, q);
		line = nl + 1;
		s += len + 1;
	}
	ck_assert_str_eq(line, "");
	ck_assert_msg(mismatches == 0, "%s: %zu of %zu names quoted unlike "
	              "tar", lname, mismatches, n.count);
	free(q);
	free(want);
	free(n.buf);
	freelocale(loc);
}
END_TEST

static Suite *
tar_quote_suite(void)
{
	Suite *s = suite_create("tar-quote");
	TCase *core = zd_test_tcase(s, "core");

	tcase_add_test(core, test_tar_quote_escapes);
	tcase_add_test(core, test_tar_quote_utf8);
	tcase_add_test(core, test_tar_quote_current_locale);
	tcase_add_test(core, test_tar_quote_cut);
	tcase_add_loop_test(core, test_tar_quote_matches_tar, 0,
	                    sizeof(oracle_locales) /
	                    sizeof(oracle_locales[0]));
	return s;
}

int
main(void)
{
	return zd_test_main(tar_quote_suite());
}
