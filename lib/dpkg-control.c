/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dpkg-control.c - deb822 control paragraphs: parse, look up, keep the order
 *
 * A transcription of the rules of dpkg's parse_stanza() (lib/dpkg/parse.c,
 * 1.21.22) as dpkg-deb runs it (strict, one stanza), working line by line
 * on a buffer.  Messages carry dpkg's wording after our own prefix.
 */
#include "config.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "lib/c-ctype.h"
#include "lib/dpkg-control.h"
#include "lib/fdio.h"

/* The largest control file we read (dpkg has no limit; this is a sanity
 * cap against reading a huge file by mistake). */
#define CONTROL_MAX (64u << 20)

static const char *const field_names[ZD_FIELD__COUNT] = {
	[ZD_FIELD_PACKAGE] = "Package",
	[ZD_FIELD_ESSENTIAL] = "Essential",
	[ZD_FIELD_PROTECTED] = "Protected",
	[ZD_FIELD_STATUS] = "Status",
	[ZD_FIELD_PRIORITY] = "Priority",
	[ZD_FIELD_SECTION] = "Section",
	[ZD_FIELD_INSTALLED_SIZE] = "Installed-Size",
	[ZD_FIELD_ORIGIN] = "Origin",
	[ZD_FIELD_MAINTAINER] = "Maintainer",
	[ZD_FIELD_BUGS] = "Bugs",
	[ZD_FIELD_ARCHITECTURE] = "Architecture",
	[ZD_FIELD_MULTI_ARCH] = "Multi-Arch",
	[ZD_FIELD_SOURCE] = "Source",
	[ZD_FIELD_VERSION] = "Version",
	[ZD_FIELD_CONFIG_VERSION] = "Config-Version",
	[ZD_FIELD_REPLACES] = "Replaces",
	[ZD_FIELD_PROVIDES] = "Provides",
	[ZD_FIELD_DEPENDS] = "Depends",
	[ZD_FIELD_PRE_DEPENDS] = "Pre-Depends",
	[ZD_FIELD_RECOMMENDS] = "Recommends",
	[ZD_FIELD_SUGGESTS] = "Suggests",
	[ZD_FIELD_BREAKS] = "Breaks",
	[ZD_FIELD_CONFLICTS] = "Conflicts",
	[ZD_FIELD_ENHANCES] = "Enhances",
	[ZD_FIELD_CONFFILES] = "Conffiles",
	[ZD_FIELD_FILENAME] = "Filename",
	[ZD_FIELD_SIZE] = "Size",
	[ZD_FIELD_MD5SUM] = "MD5sum",
	[ZD_FIELD_MSDOS_FILENAME] = "MSDOS-Filename",
	[ZD_FIELD_DESCRIPTION] = "Description",
	[ZD_FIELD_TRIGGERS_PENDING] = "Triggers-Pending",
	[ZD_FIELD_TRIGGERS_AWAITED] = "Triggers-Awaited",
	[ZD_FIELD_RECOMMENDED] = "Recommended",
	[ZD_FIELD_OPTIONAL] = "Optional",
	[ZD_FIELD_CLASS] = "Class",
	[ZD_FIELD_REVISION] = "Revision",
	[ZD_FIELD_PACKAGE_REVISION] = "Package-Revision",
	[ZD_FIELD_PACKAGE_REVISION_] = "Package_Revision",
};

const char *
zd_dpkg_control_field_name(enum zd_field_id id)
{
	assert(id >= 0 && id < ZD_FIELD__COUNT);
	return field_names[id];
}

enum zd_field_id
zd_dpkg_control_field_find(const char *name, size_t len)
{
	for (int i = 0; i < ZD_FIELD__COUNT; i++)
		if (strlen(field_names[i]) == len &&
		    strncasecmp(field_names[i], name, len) == 0)
			return (enum zd_field_id)i;
	return ZD_FIELD_USER;
}

void
zd_dpkg_control_free(struct zd_control *ctl)
{
	if (ctl == NULL)
		return;
	for (size_t i = 0; i < ctl->n; i++) {
		free(ctl->fields[i].name);
		free(ctl->fields[i].value);
	}
	free(ctl->fields);
	ctl->fields = NULL;
	ctl->n = 0;
}

static char *
dup_mem(const char *p, size_t len)
{
	char *s = malloc(len + 1);

	if (s == NULL)
		return NULL;
	memcpy(s, p, len);
	s[len] = '\0';
	return s;
}

/* dpkg's MSDOS_EOF_CHAR: ^Z ends a line, or the file, as a newline does. */
#define MSDOS_EOF 032

/* dpkg's parsedb_state, as much of it as parse_stanza() uses. */
struct reader {
	const unsigned char *p;		/* dataptr */
	const unsigned char *end;	/* endptr */
	int lno;
};

static bool
at_eof(const struct reader *r)
{
	return r->p >= r->end;
}

static int
getc_(struct reader *r)
{
	return *r->p++;
}

/* Sets err to dpkg's message and returns -1. */
static int __attribute__((format(printf, 2, 3)))
perr(struct zd_error *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	err->code = ZD_E_FORMAT;
	err->sys_errno = 0;
	return -1;
}

static int
add_field(struct zd_control *c, const char *name, size_t nlen,
          const char *value, size_t vlen, unsigned line, int lno)
{
	struct zd_field *f;

	f = reallocarray(c->fields, c->n + 1, sizeof(*f));
	if (f == NULL)
		return -1;
	c->fields = f;
	f = &c->fields[c->n];
	f->name = dup_mem(name, nlen);
	f->value = dup_mem(value, vlen);
	f->line = line;
	f->lno = lno;
	f->id = zd_dpkg_control_field_find(name, nlen);
	c->n++;
	if (f->name == NULL || f->value == NULL)
		return -1;
	return 0;
}

/*
 * dpkg's pkg_parse_field() up to the call of the field's parser: the
 * duplicate checks (against the stanza's fields, from first on) and the
 * name-length check, then the field is kept.
 */
static int
take_field(struct zd_control *c, size_t first, const char *name, size_t nlen,
           const char *value, size_t vlen, unsigned line, int lno,
           const struct zd_control_cb *cb, struct zd_error *err)
{
	enum zd_field_id id = zd_dpkg_control_field_find(name, nlen);

	for (size_t i = first; i < c->n; i++) {
		if (id != ZD_FIELD_USER && c->fields[i].id == id)
			return perr(err, "duplicate value for '%s' field",
			            zd_dpkg_control_field_name(id));
	}
	if (id == ZD_FIELD_USER && nlen < 2)
		return perr(err, "user-defined field name '%.*s' too short",
		            (int)nlen, name);
	for (size_t i = first; i < c->n && id == ZD_FIELD_USER; i++) {
		const char *seen = c->fields[i].name;

		/* A NUL in a name ends it for strlen(), as in dpkg. */
		if (c->fields[i].id == ZD_FIELD_USER &&
		    strncasecmp(seen, name, nlen) == 0 && strlen(seen) == nlen)
			return perr(err, "duplicate value for user-defined "
			            "field '%.*s'", (int)nlen, name);
	}
	if (add_field(c, name, nlen, value, vlen, line, lno) < 0)
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	if (cb != NULL && cb->field != NULL)
		return cb->field(cb->ctx, c, err);
	return 0;
}

/*
 * dpkg's parse_stanza(), with its quirks: the line count is the number of
 * newlines read so far, a name cut by the end of the file loses its last
 * character, a last line without a newline may be dropped.  The fields are
 * added to c.  Returns 1 when a stanza was read, 0 at the end of the data,
 * -1 on error.
 */
static int
parse_stanza(struct reader *r, struct zd_control *c,
             const struct zd_control_cb *cb, struct zd_error *err)
{
	size_t first = c->n;
	int ch = 0;

	/* Skip adjacent new lines. */
	while (!at_eof(r)) {
		ch = getc_(r);
		if (ch != '\n' && ch != MSDOS_EOF)
			break;
		r->lno++;
	}
	if (at_eof(r))
		return 0;
	/* Only now does dpkg's package begin to fill. */
	if (cb != NULL && cb->stanza != NULL)
		cb->stanza(cb->ctx);

	/* Loop per field. */
	for (;;) {
		const char *fieldstart, *valuestart;
		size_t fieldlen, valuelen;
		unsigned line = (unsigned)r->lno + 1;
		bool blank_line;

		/* The field name. */
		fieldstart = (const char *)r->p - 1;
		while (!at_eof(r) && !c_isspace(ch) && ch != ':' &&
		       ch != MSDOS_EOF)
			ch = getc_(r);
		fieldlen = (size_t)((const char *)r->p - fieldstart - 1);
		if (fieldlen == 0)
			return perr(err, "empty field name");
		if (fieldstart[0] == '-')
			return perr(err, "field name '%.*s' cannot start with "
			            "hyphen", (int)fieldlen, fieldstart);

		/* Spaces before the ':'. */
		while (!at_eof(r) && ch != '\n' && c_isspace(ch))
			ch = getc_(r);
		if (at_eof(r))
			return perr(err, "end of file after field name '%.*s'",
			            (int)fieldlen, fieldstart);
		if (ch == '\n')
			return perr(err, "newline in field name '%.*s'",
			            (int)fieldlen, fieldstart);
		if (ch == MSDOS_EOF)
			return perr(err, "MSDOS end of file (^Z) in field name "
			            "'%.*s'", (int)fieldlen, fieldstart);
		if (ch != ':')
			return perr(err, "field name '%.*s' must be followed "
			            "by colon", (int)fieldlen, fieldstart);

		/* Spaces after the ':', before the value and the end of line. */
		while (!at_eof(r)) {
			ch = getc_(r);
			if (ch == '\n' || !c_isspace(ch))
				break;
		}
		if (at_eof(r))
			return perr(err, "end of file before value of field "
			            "'%.*s' (missing final newline)",
			            (int)fieldlen, fieldstart);
		if (ch == MSDOS_EOF)
			return perr(err, "MSDOS end of file (^Z) in value of "
			            "field '%.*s' (missing newline?)",
			            (int)fieldlen, fieldstart);

		/* The value, continuation lines included. */
		blank_line = false;
		valuestart = (const char *)r->p - 1;
		for (;;) {
			if (ch == '\n' || ch == MSDOS_EOF) {
				if (blank_line)
					return perr(err, "blank line in value "
					            "of field '%.*s'",
					            (int)fieldlen, fieldstart);
				r->lno++;
				if (at_eof(r))
					break;
				ch = getc_(r);
				/* A second newline, or a new field. */
				if (at_eof(r) || ch == '\n' || !c_isspace(ch))
					break;
				r->p--;
				blank_line = true;
			} else if (blank_line && !c_isspace(ch)) {
				blank_line = false;
			}
			if (at_eof(r))
				return perr(err, "end of file during value of "
				            "field '%.*s' (missing final "
				            "newline)", (int)fieldlen,
				            fieldstart);
			ch = getc_(r);
		}
		valuelen = (size_t)((const char *)r->p - valuestart - 1);
		while (valuelen > 0 &&
		       c_isspace((unsigned char)valuestart[valuelen - 1]))
			valuelen--;

		if (take_field(c, first, fieldstart, fieldlen, valuestart,
		               valuelen, line, r->lno, cb, err) < 0)
			return -1;

		if (at_eof(r) || ch == '\n' || ch == MSDOS_EOF)
			break;
	}
	if (ch == '\n')
		r->lno++;
	return 1;
}

int
zd_dpkg_control_parse_dpkg(const char *buf, size_t len, struct zd_control *ctl,
                      const struct zd_control_cb *cb, int *lno,
                      struct zd_error *err)
{
	struct reader r = {
		(const unsigned char *)buf, (const unsigned char *)buf + len, 0
	};
	int rc;

	ctl->fields = NULL;
	ctl->n = 0;
	rc = parse_stanza(&r, ctl, cb, err);
	if (rc > 0 && cb != NULL && cb->done != NULL &&
	    cb->done(cb->ctx, ctl, r.lno, err) < 0)
		rc = -1;
	if (rc > 0 && !at_eof(&r)) {
		/* dpkg-deb wants one stanza, but reads the next one before
		 * it says so.  Its fields join ctl, which the callbacks may
		 * point into until the caller frees it. */
		rc = parse_stanza(&r, ctl, cb, err);
		if (rc > 0)
			rc = perr(err, "several package info entries found, "
			          "only one allowed");
		else if (rc == 0)
			rc = 1;
	}
	*lno = r.lno;
	if (rc < 0)
		return -1;
	return rc > 0 ? 0 : 1;
}

int
zd_dpkg_control_parse(const char *buf, size_t len, const char *what,
                 struct zd_control *ctl, struct zd_error *err)
{
	int lno;
	int rc = zd_dpkg_control_parse_dpkg(buf, len, ctl, NULL, &lno, err);

	if (rc > 0) {
		zd_dpkg_control_free(ctl);
		return zd_err(err, ZD_E_FORMAT, "no package information in "
		              "'%s'", what);
	}
	if (rc < 0) {
		zd_dpkg_control_free(ctl);
		if (err->code == ZD_E_FORMAT)
			zd_err_prefix(err, "cannot parse '%s' near line %d",
			              what, lno);
		return -1;
	}
	return 0;
}

int
zd_dpkg_control_parse_file(const char *path, struct zd_control *ctl,
                      struct zd_error *err)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int fd;
	int rc = -1;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return zd_err_errno(err, ZD_E_IO, "cannot open '%s'", path);
	for (;;) {
		ssize_t n;

		if (len == cap) {
			char *nb;

			if (cap >= CONTROL_MAX) {
				zd_err(err, ZD_E_LIMIT, "'%s' is larger than "
				       "%u bytes", path, CONTROL_MAX);
				goto out;
			}
			cap = cap ? cap * 2 : 4096;
			nb = realloc(buf, cap);
			if (nb == NULL) {
				zd_err(err, ZD_E_NOMEM, "out of memory");
				goto out;
			}
			buf = nb;
		}
		n = zd_read_full(fd, buf + len, cap - len, err);
		if (n < 0) {
			zd_err_prefix(err, "cannot read '%s'", path);
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	rc = zd_dpkg_control_parse(buf, len, path, ctl, err);
out:
	free(buf);
	close(fd);
	return rc;
}

const char *
zd_dpkg_control_get(const struct zd_control *ctl, const char *name)
{
	for (size_t i = 0; i < ctl->n; i++)
		if (strcasecmp(ctl->fields[i].name, name) == 0)
			return ctl->fields[i].value;
	return NULL;
}
