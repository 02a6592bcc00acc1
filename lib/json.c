/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * json.c - read and write the flat JSON objects of zdeb's line formats
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json.h"
#include "lib/numparse.h"

struct parser {
	const char *s;
	size_t len, pos;
	struct zd_error *err;
};

static int
fail(struct parser *p, const char *msg)
{
	return zd_err(p->err, ZD_E_FORMAT, "byte %zu: %s", p->pos, msg);
}

static void
skip_ws(struct parser *p)
{
	while (p->pos < p->len && (p->s[p->pos] == ' ' ||
	       p->s[p->pos] == '\t' || p->s[p->pos] == '\n' ||
	       p->s[p->pos] == '\r'))
		p->pos++;
}

static int
expect(struct parser *p, char c)
{
	char msg[32];

	skip_ws(p);
	if (p->pos < p->len && p->s[p->pos] == c) {
		p->pos++;
		return 0;
	}
	snprintf(msg, sizeof(msg), "expected '%c'", c);
	return fail(p, msg);
}

static int
hex4(struct parser *p, unsigned *v)
{
	*v = 0;
	if (p->len - p->pos < 4)
		return fail(p, "short \\u escape");
	for (int i = 0; i < 4; i++) {
		char c = p->s[p->pos++];

		*v <<= 4;
		if (c >= '0' && c <= '9')
			*v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			*v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			*v |= (unsigned)(c - 'A' + 10);
		else
			return fail(p, "bad \\u escape");
	}
	return 0;
}

/* Appends code point cp as UTF-8 to out (room for 4 bytes). */
static size_t
put_utf8(char *out, unsigned cp)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

static int
escape(struct parser *p, char *out, size_t *n)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *hit;
	unsigned cp, lo;
	char c;

	if (p->pos >= p->len)
		return fail(p, "unterminated string");
	c = p->s[p->pos++];
	hit = c != '\0' ? strchr(from, c) : NULL;
	if (hit != NULL && c != 'u') {
		out[(*n)++] = to[hit - from];
		return 0;
	}
	if (c != 'u')
		return fail(p, "bad escape");
	if (hex4(p, &cp) < 0)
		return -1;
	if (cp >= 0xd800 && cp < 0xdc00) {
		if (p->len - p->pos < 2 || p->s[p->pos] != '\\' ||
		    p->s[p->pos + 1] != 'u')
			return fail(p, "lone surrogate");
		p->pos += 2;
		if (hex4(p, &lo) < 0)
			return -1;
		if (lo < 0xdc00 || lo >= 0xe000)
			return fail(p, "bad surrogate pair");
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
	} else if (cp >= 0xdc00 && cp < 0xe000) {
		return fail(p, "lone surrogate");
	}
	if (cp == 0)
		return fail(p, "NUL in string");
	*n += put_utf8(out + *n, cp);
	return 0;
}

/* A string token into *out (malloc'd). */
static int
string(struct parser *p, char **out)
{
	size_t n = 0;
	char *buf;

	if (expect(p, '"') < 0)
		return -1;
	/* escapes never grow: "\uXXXX" is 6 bytes, its UTF-8 at most 4 */
	buf = malloc(p->len - p->pos + 1);
	if (buf == NULL)
		return zd_err(p->err, ZD_E_NOMEM, "out of memory");
	for (;;) {
		char c;

		if (p->pos >= p->len) {
			free(buf);
			return fail(p, "unterminated string");
		}
		c = p->s[p->pos++];
		if (c == '"')
			break;
		if ((unsigned char)c < 0x20) {
			free(buf);
			return fail(p, "control character in string");
		}
		if (c != '\\') {
			buf[n++] = c;
			continue;
		}
		if (escape(p, buf, &n) < 0) {
			free(buf);
			return -1;
		}
	}
	buf[n] = '\0';
	*out = buf;
	return 0;
}

static int
number(struct parser *p, char **out)
{
	size_t start = p->pos;

	while (p->pos < p->len && strchr("+-0123456789.eE", p->s[p->pos]) &&
	       p->s[p->pos] != '\0')
		p->pos++;
	if (p->pos == start)
		return fail(p, "expected a value");
	*out = strndup(p->s + start, p->pos - start);
	if (*out == NULL)
		return zd_err(p->err, ZD_E_NOMEM, "out of memory");
	return 0;
}

static bool
word(struct parser *p, const char *w)
{
	size_t n = strlen(w);

	if (p->len - p->pos >= n && memcmp(p->s + p->pos, w, n) == 0) {
		p->pos += n;
		return true;
	}
	return false;
}

static int
array(struct parser *p, struct zd_json_val *v)
{
	p->pos++;	/* '[' */
	skip_ws(p);
	if (p->pos < p->len && p->s[p->pos] == ']') {
		p->pos++;
		return 0;
	}
	for (;;) {
		char **items;

		items = reallocarray(v->items, v->n_items + 1, sizeof(*items));
		if (items == NULL)
			return zd_err(p->err, ZD_E_NOMEM, "out of memory");
		v->items = items;
		skip_ws(p);
		if (p->pos < p->len && p->s[p->pos] != '"')
			return fail(p, "array items must be strings");
		if (string(p, &v->items[v->n_items]) < 0)
			return -1;
		v->n_items++;
		skip_ws(p);
		if (p->pos < p->len && p->s[p->pos] == ']') {
			p->pos++;
			return 0;
		}
		if (expect(p, ',') < 0)
			return -1;
	}
}

static int
value(struct parser *p, struct zd_json_val *v)
{
	skip_ws(p);
	if (p->pos >= p->len)
		return fail(p, "expected a value");
	switch (p->s[p->pos]) {
	case '"':
		v->type = ZD_JSON_STRING;
		return string(p, &v->text);
	case '[':
		v->type = ZD_JSON_ARRAY;
		return array(p, v);
	case '{':
		return fail(p, "nested object not supported");
	default:
		break;
	}
	if (word(p, "null")) {
		v->type = ZD_JSON_NULL;
		return 0;
	}
	v->type = ZD_JSON_BOOL;
	if (word(p, "true")) {
		v->boolean = true;
		return 0;
	}
	if (word(p, "false"))
		return 0;
	v->type = ZD_JSON_NUMBER;
	return number(p, &v->text);
}

static int
member(struct parser *p, struct zd_json_obj *o)
{
	struct zd_json_val *vals, *v;

	vals = reallocarray(o->vals, o->n + 1, sizeof(*vals));
	if (vals == NULL)
		return zd_err(p->err, ZD_E_NOMEM, "out of memory");
	o->vals = vals;
	v = &o->vals[o->n];
	memset(v, 0, sizeof(*v));
	o->n++;
	skip_ws(p);
	if (string(p, &v->key) < 0)
		return -1;
	for (size_t i = 0; i + 1 < o->n; i++) {
		if (strcmp(o->vals[i].key, v->key) == 0) {
			char msg[64];

			snprintf(msg, sizeof(msg), "duplicate key '%.40s'",
			         v->key);
			return fail(p, msg);
		}
	}
	if (expect(p, ':') < 0)
		return -1;
	return value(p, v);
}

int
zd_json_parse(const char *text, size_t len, struct zd_json_obj *o,
              struct zd_error *err)
{
	struct parser p = { text, len, 0, err };

	memset(o, 0, sizeof(*o));
	if (expect(&p, '{') < 0)
		goto bad;
	skip_ws(&p);
	if (p.pos < p.len && p.s[p.pos] == '}') {
		p.pos++;
	} else {
		for (;;) {
			if (member(&p, o) < 0)
				goto bad;
			skip_ws(&p);
			if (p.pos < p.len && p.s[p.pos] == '}') {
				p.pos++;
				break;
			}
			if (expect(&p, ',') < 0)
				goto bad;
		}
	}
	skip_ws(&p);
	if (p.pos != p.len) {
		fail(&p, "trailing bytes after the object");
		goto bad;
	}
	return 0;
bad:
	zd_json_obj_free(o);
	return -1;
}

void
zd_json_obj_free(struct zd_json_obj *o)
{
	for (size_t i = 0; i < o->n; i++) {
		free(o->vals[i].key);
		free(o->vals[i].text);
		for (size_t j = 0; j < o->vals[i].n_items; j++)
			free(o->vals[i].items[j]);
		free(o->vals[i].items);
	}
	free(o->vals);
	o->vals = NULL;
	o->n = 0;
}

const struct zd_json_val *
zd_json_get(const struct zd_json_obj *o, const char *key)
{
	for (size_t i = 0; i < o->n; i++)
		if (strcmp(o->vals[i].key, key) == 0)
			return &o->vals[i];
	return NULL;
}

const char *
zd_json_str(const struct zd_json_obj *o, const char *key)
{
	const struct zd_json_val *v = zd_json_get(o, key);

	return v != NULL && v->type == ZD_JSON_STRING ? v->text : NULL;
}

int
zd_json_u64(const struct zd_json_obj *o, const char *key, uint64_t *v,
            struct zd_error *err)
{
	const struct zd_json_val *j = zd_json_get(o, key);
	long long ll;

	if (j == NULL)
		return zd_err(err, ZD_E_FORMAT, "'%s': missing", key);
	if (j->type != ZD_JSON_NUMBER ||
	    zd_parse_ll(j->text, 0, LLONG_MAX, key, &ll, err) < 0)
		return zd_err(err, ZD_E_FORMAT, "'%s': not an unsigned "
		              "integer", key);
	*v = (uint64_t)ll;
	return 0;
}

double
zd_json_num(const struct zd_json_obj *o, const char *key, double dflt)
{
	const struct zd_json_val *j = zd_json_get(o, key);
	char *end;
	double d;

	if (j == NULL || j->type != ZD_JSON_NUMBER)
		return dflt;
	errno = 0;
	d = strtod(j->text, &end);
	return errno != 0 || *end != '\0' ? dflt : d;
}

void
zd_json_write_str(FILE *f, const char *s)
{
	putc('"', f);
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			putc(c, f);
	}
	putc('"', f);
}
