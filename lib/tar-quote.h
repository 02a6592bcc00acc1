/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tar-quote.h - member names quoted as GNU tar 1.34 prints them
 *
 * GNU tar prints every member name in its listings (tar -t, tar -tv,
 * tar -xv, hence dpkg-deb -c, -X and -v -x) through gnulib's quotearg in
 * the "escape" style, the default its configure picks.  A name comes out
 * unchanged except that:
 *   - a backslash is doubled, and \a \b \f \n \r \t \v are written as
 *     those two-character escapes;
 *   - bytes that are not printable in the LC_CTYPE locale are written as
 *     a backslash and three octal digits.  In a single-byte locale (C,
 *     Latin-1) a byte is printable when isprint() says so; in a multibyte
 *     one (C.UTF-8) the name is decoded with mbrtowc() and a character is
 *     printable when iswprint() says so: every byte of an unprintable
 *     character is escaped, as is each byte that starts no valid
 *     character, and a character cut short at the end of the name is
 *     escaped whole.
 * So `LC_ALL=C tar -tv` prints "F\305\221t.crt" where C.UTF-8 prints
 * "Főt.crt", and "a\x2d" is printed "a\\x2d" in every locale.
 */
#ifndef ZDEB_TAR_QUOTE_H
#define ZDEB_TAR_QUOTE_H

#include <locale.h>
#include <stddef.h>

/* Room a quoted name of len bytes may need, its NUL included. */
#define ZD_TAR_QUOTE_MAX(len) (4 * (len) + 1)

/*
 * Writes name quoted as GNU tar 1.34 prints it to buf, at most size bytes
 * with the terminating NUL (nothing when size is 0), and returns the
 * length of the whole quoted name without its NUL, as snprintf() does: the
 * output was cut when that is >= size.  loc decides what is printable:
 * pass the locale tar would run in (see zd_tar_quote_locale), or
 * (locale_t)0 for the calling thread's current one.  Never fails.
 */
size_t zd_tar_quote(char *buf, size_t size, const char *name, locale_t loc);

/*
 * The locale GNU tar runs in when started with this process's
 * environment: tar calls setlocale(LC_ALL, ""), so LC_ALL, then LC_CTYPE
 * (and the other LC_* variables), then LANG decide, and when any of them
 * names a locale that cannot be loaded tar stays in "C".  Returns a new
 * locale object for zd_tar_quote (release it with freelocale()), or
 * (locale_t)0 if even "C" cannot be had (out of memory).
 */
locale_t zd_tar_quote_locale(void);

#endif
