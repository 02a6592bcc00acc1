/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * c-ctype.h - ASCII character classes, whatever the locale
 *
 * dpkg parses control files with its own c_isspace() and friends
 * (lib/dpkg/c-ctype.h), never <ctype.h>, so that a field parses the same
 * under every locale; the dpkg-* modules that mimic it use these.
 */
#ifndef ZDEB_C_CTYPE_H
#define ZDEB_C_CTYPE_H

#include <stdbool.h>

static inline bool
c_isdigit(int c)
{
	return c >= '0' && c <= '9';
}

static inline bool
c_isupper(int c)
{
	return c >= 'A' && c <= 'Z';
}

static inline bool
c_islower(int c)
{
	return c >= 'a' && c <= 'z';
}

static inline bool
c_isalpha(int c)
{
	return c_isupper(c) || c_islower(c);
}

static inline bool
c_isalnum(int c)
{
	return c_isdigit(c) || c_isalpha(c);
}

static inline bool
c_isblank(int c)
{
	return c == ' ' || c == '\t';
}

static inline bool
c_isspace(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' ||
	       c == '\r';
}

static inline int
c_tolower(int c)
{
	return c_isupper(c) ? c + ('a' - 'A') : c;
}

#endif
