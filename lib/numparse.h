/* SPDX-License-Identifier: GPL-2.0-or-later */
/* numparse.h - the one number parser: strtoll with every check */
#ifndef ZDEB_NUMPARSE_H
#define ZDEB_NUMPARSE_H

#include <stdint.h>

#include "lib/error.h"

/*
 * Parses a whole decimal integer (optional sign, no spaces, no suffix) in
 * [min, max].  what names the value in messages ("compression level").
 * Returns 0, or -1 with err set (ZD_E_USAGE): "WHAT 'S' is not an integer"
 * or "WHAT S is out of range (MIN to MAX)".
 */
int zd_parse_ll(const char *s, long long min, long long max, const char *what,
                long long *out, struct zd_error *err);

/*
 * Parses a size with an optional binary suffix K, M, G (KiB, MiB, GiB; "KiB"
 * and "MiB" spellings accepted).  Returns 0, or -1 with err set.
 */
int zd_parse_size(const char *s, uint64_t min, uint64_t max, const char *what,
                  uint64_t *out, struct zd_error *err);

#endif
