/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tar-quote.c - member names quoted as GNU tar 1.34 prints them
 *
 * The rules are those of quotearg_buffer_restyled() in gnulib's
 * quotearg.c for escape_quoting_style with no extra quoted characters,
 * as GNU tar 1.34 uses it: printable ASCII other than '@' and '\\' is
 * copied without asking the locale; the seven C control escapes and the
 * backslash get a letter; any other byte starts a character that is
 * copied when the locale calls it printable and escaped in octal, byte
 * by byte, when not.  tests/unit/check-tar-quote.c compares the result
 * with tar's for every byte, every Unicode character and random names
 * in C, C.UTF-8 and a Latin-1 locale.
 */
#include "config.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <wctype.h>

#include "lib/tar-quote.h"

struct qbuf {
	char *buf;
	size_t size;
	size_t len;
};

static void
put(struct qbuf *q, char c)
{
	if (q->len < q->size)
		q->buf[q->len] = c;
	q->len++;
}

static void
put_octal(struct qbuf *q, unsigned char c)
{
	put(q, '\\');
	put(q, (char)('0' + (c >> 6)));
	put(q, (char)('0' + ((c >> 3) & 7)));
	put(q, (char)('0' + (c & 7)));
}

/* The letter of a byte escaped as backslash-letter, or 0. */
static char
letter_escape(unsigned char c)
{
	switch (c) {
	case '\a': return 'a';
	case '\b': return 'b';
	case '\f': return 'f';
	case '\n': return 'n';
	case '\r': return 'r';
	case '\t': return 't';
	case '\v': return 'v';
	case '\\': return '\\';
	default: return 0;
	}
}

/* The printable ASCII quotearg copies without a locale lookup: it lists
 * them all but '@' (and the backslash, handled before). */
static bool
plain_ascii(unsigned char c)
{
	return c >= 0x20 && c < 0x7f && c != '@';
}

/*
 * Length of the character starting at s (n bytes left) in a multibyte
 * locale, as quotearg measures it: 0 when s starts no valid character,
 * n when the character is cut short by the end of the name.  *printable
 * is false for those two and for a character iswprint() refuses.
 */
static size_t
mb_char(const char *s, size_t n, bool *printable)
{
	mbstate_t st;
	size_t m = 0;

	memset(&st, 0, sizeof(st));
	*printable = true;
	do {
		wchar_t w;
		size_t r = mbrtowc(&w, s + m, n - m, &st);

		if (r == 0)
			break;
		if (r == (size_t)-1) {
			*printable = false;
			break;
		}
		if (r == (size_t)-2) {
			*printable = false;
			m = n;
			break;
		}
		if (!iswprint((wint_t)w))
			*printable = false;
		m += r;
	} while (!mbsinit(&st));
	return m;
}

size_t
zd_tar_quote(char *buf, size_t size, const char *name, locale_t loc)
{
	struct qbuf q = { buf, size, 0 };
	size_t n = strlen(name);
	locale_t saved = (locale_t)0;
	bool swapped = false, unibyte = true;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)name[i];
		char letter = letter_escape(c);
		bool printable;
		size_t m;

		if (letter != 0) {
			put(&q, '\\');
			put(&q, letter);
			continue;
		}
		if (plain_ascii(c)) {
			put(&q, (char)c);
			continue;
		}
		if (!swapped) {
			/* uselocale((locale_t)0) only reports the current
			 * one, so restoring it below is always right. */
			saved = uselocale(loc);
			swapped = true;
			unibyte = MB_CUR_MAX == 1;
		}
		if (unibyte) {
			m = 1;
			printable = isprint(c) != 0;
		} else {
			m = mb_char(name + i, n - i, &printable);
		}
		if (m == 0)
			m = 1;
		for (size_t j = 0; j < m; j++) {
			if (printable)
				put(&q, name[i + j]);
			else
				put_octal(&q, (unsigned char)name[i + j]);
		}
		i += m - 1;
	}
	if (swapped)
		uselocale(saved);
	if (size > 0)
		buf[q.len < size ? q.len : size - 1] = '\0';
	return q.len;
}

locale_t
zd_tar_quote_locale(void)
{
	locale_t loc = newlocale(LC_ALL_MASK, "", (locale_t)0);

	if (loc == (locale_t)0)
		loc = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	return loc;
}
