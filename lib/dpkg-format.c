/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dpkg-format.c - dpkg's --showformat language
 *
 * The format parser is dpkg's pkg_format_parse(), the printer its
 * pkg_format_print() with the virtual fields of virtinfos[]
 * (lib/dpkg/pkg-format.c, 1.21.22); the fields themselves are written by
 * dpkg-pkginfo.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/dpkg-format.h"

/*
 * The writers print into a memory stream (open_memstream(3)); a failed
 * allocation shows as a stream error, reported once when it is closed.
 */
struct membuf {
	FILE *f;
	char *p;
	size_t len;
};

static int
mb_open(struct membuf *m, struct zd_error *err)
{
	m->p = NULL;
	m->len = 0;
	m->f = open_memstream(&m->p, &m->len);
	if (m->f == NULL)
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	return 0;
}

/* Closes the stream; returns its string, or NULL with err set. */
static char *
mb_close(struct membuf *m, struct zd_error *err)
{
	bool bad = ferror(m->f) != 0;

	if (fclose(m->f) != 0 || bad) {
		free(m->p);
		zd_err(err, ZD_E_NOMEM, "out of memory");
		return NULL;
	}
	return m->p;
}

/* --- the format language ------------------------------------------ */

struct fmt_node {
	bool field;
	int width;
	char *data;
};

struct zd_pkgformat {
	struct fmt_node *nodes;
	size_t n;
};

void
zd_dpkg_format_free(struct zd_pkgformat *f)
{
	if (f == NULL)
		return;
	for (size_t i = 0; i < f->n; i++)
		free(f->nodes[i].data);
	free(f->nodes);
	free(f);
}

/* fmt[0, len) is "Field" or "Field;WIDTH"; dpkg's parsefield(). */
static int
parse_field(struct fmt_node *node, const char *fmt, size_t len,
            struct zd_error *err)
{
	const char *ws = memchr(fmt, ';', len);

	if (ws != NULL) {
		char *end;
		long w;

		errno = 0;
		w = strtol(ws + 1, &end, 0);
		if (end[0] != '}')
			return zd_err(err, ZD_E_USAGE,
			              "invalid character '%c' in field width",
			              *end);
		if (w < INT_MIN || w > INT_MAX || errno == ERANGE)
			return zd_err(err, ZD_E_USAGE,
			              "field width is out of range");
		node->width = (int)w;
		len = (size_t)(ws - fmt);
	}
	node->field = true;
	node->data = strndup(fmt, len);
	if (node->data == NULL)
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	return 0;
}

/* dpkg's parsestring(): the escapes \n \t \r, "\X" gives X. */
static int
parse_string(struct fmt_node *node, const char *fmt, size_t len,
             struct zd_error *err)
{
	char *w;

	node->data = w = malloc(len + 1);
	if (w == NULL)
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	for (size_t i = 0; i < len; i++) {
		if (fmt[i] == '\\' && i + 1 < len) {
			i++;
			switch (fmt[i]) {
			case 'n': *w++ = '\n'; break;
			case 't': *w++ = '\t'; break;
			case 'r': *w++ = '\r'; break;
			default: *w++ = fmt[i]; break;
			}
		} else if (fmt[i] == '\\') {
			/* dpkg copies the terminating NUL here: the string
			 * ends at the trailing backslash. */
			break;
		} else {
			*w++ = fmt[i];
		}
	}
	*w = '\0';
	return 0;
}

struct zd_pkgformat *
zd_dpkg_format_parse(const char *fmt, struct zd_error *err)
{
	struct zd_pkgformat *f = calloc(1, sizeof(*f));
	size_t cap = 0;

	if (f == NULL) {
		zd_err(err, ZD_E_NOMEM, "out of memory");
		return NULL;
	}
	while (*fmt != '\0') {
		struct fmt_node *node;
		const char *end;
		int rc;

		if (f->n == cap) {
			struct fmt_node *p;

			cap = cap ? cap * 2 : 8;
			p = reallocarray(f->nodes, cap, sizeof(*p));
			if (p == NULL) {
				zd_err(err, ZD_E_NOMEM, "out of memory");
				goto fail;
			}
			f->nodes = p;
		}
		node = &f->nodes[f->n++];
		memset(node, 0, sizeof(*node));
		if (fmt[0] == '$' && fmt[1] == '{') {
			end = strchr(fmt, '}');
			if (end == NULL) {
				zd_err(err, ZD_E_USAGE, "missing closing brace");
				goto fail;
			}
			rc = parse_field(node, fmt + 2,
			                 (size_t)(end - (fmt + 2)), err);
			fmt = end + 1;
		} else {
			end = fmt;
			do {
				end = strchrnul(end + 1, '$');
			} while (end[0] != '\0' && end[1] != '{');
			rc = parse_string(node, fmt, (size_t)(end - fmt), err);
			fmt = end;
		}
		if (rc < 0)
			goto fail;
	}
	if (f->n == 0) {
		zd_err(err, ZD_E_USAGE, "may not be empty string");
		goto fail;
	}
	return f;
fail:
	zd_dpkg_format_free(f);
	return NULL;
}

/* dpkg's pkg_source_version() into f, or its upstream part. */
static int
write_source_version(FILE *f, const struct zd_pkginfo *pi, bool upstream,
                     struct zd_error *err)
{
	const char *paren = pi->source != NULL ? strchr(pi->source, '(') :
	                    NULL;
	struct zd_error why = ZD_ERROR_INIT;
	struct zd_version v;
	char *tmp;

	if (paren == NULL) {
		if (!upstream)
			zd_dpkg_version_print(f, &pi->version, false);
		else if (pi->version.version != NULL)
			fputs(pi->version.version, f);
		return 0;
	}
	tmp = strndup(paren + 1, strcspn(paren + 1, ")"));
	if (tmp == NULL)
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	if (zd_dpkg_version_parse(tmp, &v, &why) < 0) {
		zd_dpkg_version_free(&v);
		if (why.code == ZD_E_NOMEM)
			zd_err(err, ZD_E_NOMEM, "%s", why.msg);
		else
			zd_err(err, ZD_E_FORMAT, "version '%s' has bad syntax: "
			       "%s", tmp, why.msg);
		free(tmp);
		return -1;
	}
	free(tmp);
	if (!upstream)
		zd_dpkg_version_print(f, &v, false);
	else if (v.version != NULL)
		fputs(v.version, f);
	zd_dpkg_version_free(&v);
	return 0;
}

/* The virtual fields of dpkg's virtinfos[], for a package not installed. */
static int
write_virtual(FILE *f, const struct zd_pkginfo *pi, const char *name,
              struct zd_error *err)
{
	if (strcasecmp(name, "binary:Package") == 0) {
		zd_dpkg_pkginfo_print_name(f, pi);
	} else if (strcasecmp(name, "binary:Synopsis") == 0 ||
	           strcasecmp(name, "binary:Summary") == 0) {
		const char *d = pi->description != NULL ? pi->description :
		                "(no description available)";

		fprintf(f, "%.*s", (int)strcspn(d, "\n"), d);
	} else if (strcasecmp(name, "db:Status-Abbrev") == 0 ||
	           strcasecmp(name, "db:Status-Want") == 0 ||
	           strcasecmp(name, "db:Status-Status") == 0 ||
	           strcasecmp(name, "db:Status-Eflag") == 0 ||
	           strcasecmp(name, "db-fsys:Files") == 0 ||
	           strcasecmp(name, "db-fsys:Last-Modified") == 0) {
		/* Nothing for a package that is not installed. */
	} else if (strcasecmp(name, "source:Package") == 0) {
		const char *s = pi->source != NULL ? pi->source : pi->name;

		fprintf(f, "%.*s", (int)strcspn(s, " "), s);
	} else if (strcasecmp(name, "source:Version") == 0) {
		return write_source_version(f, pi, false, err);
	} else if (strcasecmp(name, "source:Upstream-Version") == 0) {
		return write_source_version(f, pi, true, err);
	} else {
		return 1;
	}
	return 0;
}

/* Renders node (a literal, or a field of pi) into f; 1 when the field is
 * unknown (then dpkg prints nothing for the node, not even its padding). */
static int
render_node(FILE *f, const struct fmt_node *node, const struct zd_pkginfo *pi,
            struct zd_error *err)
{
	const struct zd_field *fl;
	int rc;

	if (!node->field) {
		fputs(node->data, f);
		return 0;
	}
	if (zd_dpkg_pkginfo_write_known(f, pi, node->data, false) == 0)
		return 0;
	rc = write_virtual(f, pi, node->data, err);
	if (rc <= 0)
		return rc;
	fl = zd_dpkg_pkginfo_arbitrary(pi, node->data);
	if (fl != NULL) {
		fputs(fl->value, f);
		return 0;
	}
	return 1;
}

char *
zd_dpkg_format_print(const struct zd_pkgformat *f, const struct zd_pkginfo *pi,
                   struct zd_error *err)
{
	struct membuf out;

	if (mb_open(&out, err) < 0)
		return NULL;
	for (size_t i = 0; i < f->n; i++) {
		const struct fmt_node *node = &f->nodes[i];
		size_t width = node->width < 0 ? -(size_t)node->width :
		               (size_t)node->width;
		struct membuf fb;
		char *s;
		size_t len;
		int rc;

		if (mb_open(&fb, err) < 0)
			goto fail;
		rc = render_node(fb.f, node, pi, err);
		if (rc < 0) {
			fclose(fb.f);
			free(fb.p);
			goto fail;
		}
		s = mb_close(&fb, err);
		if (s == NULL)
			goto fail;
		len = strlen(s);
		/* printf("%*s", width, s), cut to width bytes. */
		if (rc == 0 && width != 0 && len < width) {
			if (node->width > 0)
				for (size_t k = len; k < width; k++)
					fputc(' ', out.f);
			fputs(s, out.f);
			if (node->width < 0)
				for (size_t k = len; k < width; k++)
					fputc(' ', out.f);
		} else if (rc == 0) {
			if (width != 0 && len > width)
				len = width;
			fwrite(s, 1, len, out.f);
		}
		free(s);
	}
	return mb_close(&out, err);
fail:
	fclose(out.f);
	free(out.p);
	return NULL;
}
