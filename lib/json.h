/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * json.h - read and write the flat JSON objects of zdeb's line formats
 *
 * The job and result lines of "zdeb repo" are one JSON object per line
 * whose values are strings, numbers, true, false, null or arrays of
 * strings: no nested objects, so that every line reads at a glance and
 * parses with this small reader (RFC 8259 otherwise: \uXXXX escapes,
 * surrogate pairs, whitespace between tokens).  Strings are kept as
 * bytes: the writer escapes only '"', '\\' and control characters, and
 * file names that are not UTF-8 pass through unchanged.
 */
#ifndef ZDEB_JSON_H
#define ZDEB_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/error.h"

enum zd_json_type {
	ZD_JSON_NULL,
	ZD_JSON_BOOL,
	ZD_JSON_NUMBER,
	ZD_JSON_STRING,
	ZD_JSON_ARRAY,		/* of strings */
};

struct zd_json_val {
	char *key;
	enum zd_json_type type;
	char *text;		/* STRING: the value; NUMBER: as written */
	bool boolean;		/* BOOL */
	char **items;		/* ARRAY */
	size_t n_items;
};

struct zd_json_obj {
	struct zd_json_val *vals;	/* in the order written */
	size_t n;
};

/*
 * Parses text[0, len) as one object (surrounding whitespace allowed).
 * Returns 0 with o filled (free with zd_json_obj_free), or -1 with err
 * set and o empty: ZD_E_FORMAT "byte N: MSG" (e.g. "expected ':'",
 * "nested object not supported", "duplicate key 'x'"), ZD_E_NOMEM.
 */
int zd_json_parse(const char *text, size_t len, struct zd_json_obj *o,
                  struct zd_error *err);
void zd_json_obj_free(struct zd_json_obj *o);

/* The value of key, NULL when absent. */
const struct zd_json_val *zd_json_get(const struct zd_json_obj *o,
                                      const char *key);
/* A string value, or NULL when absent or not a string. */
const char *zd_json_str(const struct zd_json_obj *o, const char *key);
/*
 * A number value that is a non-negative integer into *v.  Returns 0, or
 * -1 with err set (ZD_E_FORMAT "'key': missing" or "'key': not an
 * unsigned integer").
 */
int zd_json_u64(const struct zd_json_obj *o, const char *key, uint64_t *v,
                struct zd_error *err);
/* A number value as a double, or dflt when absent or not a number. */
double zd_json_num(const struct zd_json_obj *o, const char *key,
                   double dflt);

/* Writes s to f as a JSON string (quoted, escaped as said above). */
void zd_json_write_str(FILE *f, const char *s);

#endif
