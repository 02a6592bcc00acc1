/* SPDX-License-Identifier: GPL-2.0-or-later */
/* numparse.c - strtoll with the end-pointer, errno and range checks */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/numparse.h"

int
zd_parse_ll(const char *s, long long min, long long max, const char *what,
            long long *out, struct zd_error *err)
{
	char *end = NULL;
	long long v;

	if (s == NULL || *s == '\0' || isspace((unsigned char)*s))
		return zd_err(err, ZD_E_USAGE, "%s '%s' is not an integer",
		              what, s ? s : "");
	errno = 0;
	v = strtoll(s, &end, 10);
	if (end == s || *end != '\0')
		return zd_err(err, ZD_E_USAGE, "%s '%s' is not an integer",
		              what, s);
	if (errno == ERANGE || v < min || v > max)
		return zd_err(err, ZD_E_USAGE, "%s %s is out of range "
		              "(%lld to %lld)", what, s, min, max);
	*out = v;
	return 0;
}

int
zd_parse_size(const char *s, uint64_t min, uint64_t max, const char *what,
              uint64_t *out, struct zd_error *err)
{
	char *end = NULL;
	unsigned long long v;
	uint64_t mult = 1, r;

	if (s == NULL || !isdigit((unsigned char)*s))
		return zd_err(err, ZD_E_USAGE, "%s '%s' is not a size",
		              what, s ? s : "");
	errno = 0;
	v = strtoull(s, &end, 10);
	if (end == s || errno == ERANGE)
		return zd_err(err, ZD_E_USAGE, "%s '%s' is not a size",
		              what, s);
	if (*end != '\0') {
		switch (*end) {
		case 'k': case 'K': mult = UINT64_C(1) << 10; break;
		case 'm': case 'M': mult = UINT64_C(1) << 20; break;
		case 'g': case 'G': mult = UINT64_C(1) << 30; break;
		default:
			return zd_err(err, ZD_E_USAGE, "%s '%s' is not a size "
			              "(use a number with K, M or G)", what, s);
		}
		end++;
		if (strcmp(end, "") != 0 && strcmp(end, "iB") != 0 &&
		    strcmp(end, "B") != 0)
			return zd_err(err, ZD_E_USAGE, "%s '%s' is not a size "
			              "(use a number with K, M or G)", what, s);
	}
	if (__builtin_mul_overflow((uint64_t)v, mult, &r) || r < min || r > max)
		return zd_err(err, ZD_E_USAGE, "%s %s is out of range "
		              "(%ju to %ju bytes)", what, s, (uintmax_t)min,
		              (uintmax_t)max);
	*out = r;
	return 0;
}
