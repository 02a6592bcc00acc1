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
#include <stdint.h>
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
zd_control_field_name(enum zd_field_id id)
{
	assert(id >= 0 && id < ZD_FIELD__COUNT);
	return field_names[id];
}

enum zd_field_id
zd_control_field_find(const char *name, size_t len)
{
	for (int i = 0; i < ZD_FIELD__COUNT; i++)
		if (strlen(field_names[i]) == len &&
		    strncasecmp(field_names[i], name, len) == 0)
			return (enum zd_field_id)i;
	return ZD_FIELD_USER;
}

void
zd_control_free(struct zd_control *ctl)
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

/* Error with the "cannot parse 'WHAT' line N: " prefix. */
#define PERR(...) \
	do { \
		zd_err(err, ZD_E_FORMAT, __VA_ARGS__); \
		zd_err_prefix(err, "cannot parse '%s' line %u", what, lno); \
		goto fail; \
	} while (0)

static int
add_field(struct zd_control *c, const char *name, size_t nlen,
          const char *value, size_t vlen, unsigned line)
{
	struct zd_field *f;

	f = realloc(c->fields, (c->n + 1) * sizeof(*f));
	if (f == NULL)
		return -1;
	c->fields = f;
	f = &c->fields[c->n];
	f->name = dup_mem(name, nlen);
	f->value = dup_mem(value, vlen);
	f->line = line;
	f->id = zd_control_field_find(name, nlen);
	c->n++;
	if (f->name == NULL || f->value == NULL)
		return -1;
	return 0;
}

int
zd_control_parse(const char *buf, size_t len, const char *what,
                 struct zd_control *ctl, struct zd_error *err)
{
	struct zd_control c = { NULL, 0 };
	const char *p = buf;
	const char *end = buf + len;
	unsigned lno = 1;
	const char *bad;

	bad = memchr(buf, '\0', len);
	if (bad != NULL) {
		for (const char *q = buf; q < bad; q++)
			if (*q == '\n')
				lno++;
		PERR("NUL byte in control data");
	}

	/* Skip adjacent newlines. */
	while (p < end && *p == '\n') {
		p++;
		lno++;
	}
	if (p == end)
		PERR("no package information in '%s'", what);

	/* Loop per field. */
	for (;;) {
		const char *name = p;
		const char *vstart;
		const char *vend;
		unsigned name_line = lno;
		size_t nlen;

		while (p < end && !c_isspace(*p) && *p != ':')
			p++;
		nlen = (size_t)(p - name);
		if (nlen == 0)
			PERR("empty field name");
		if (name[0] == '-')
			PERR("field name '%.*s' cannot start with hyphen",
			     (int)nlen, name);
		/* Blanks before ':'. */
		while (p < end && *p != '\n' && c_isspace(*p))
			p++;
		if (p == end)
			PERR("end of file after field name '%.*s'", (int)nlen,
			     name);
		if (*p == '\n')
			PERR("newline in field name '%.*s'", (int)nlen, name);
		if (*p != ':')
			PERR("field name '%.*s' must be followed by colon",
			     (int)nlen, name);
		p++;
		/* Blanks after ':', before the value or the end of line. */
		while (p < end && *p != '\n' && c_isspace(*p))
			p++;
		if (p == end)
			PERR("end of file before value of field '%.*s' "
			     "(missing final newline)", (int)nlen, name);

		/* The value: this line and its continuation lines. */
		vstart = p;
		for (;;) {
			const char *eol = memchr(p, '\n', (size_t)(end - p));
			bool blank = true;

			if (eol == NULL)
				PERR("end of file during value of field '%.*s' "
				     "(missing final newline)", (int)nlen,
				     name);
			if (p != vstart) {
				/* A continuation line: must not be blank. */
				for (const char *q = p; q < eol; q++)
					if (!c_isspace(*q))
						blank = false;
				if (blank)
					PERR("blank line in value of field "
					     "'%.*s'", (int)nlen, name);
			}
			vend = eol;
			p = eol + 1;
			lno++;
			if (p == end || *p == '\n' || !c_isspace(*p))
				break;
		}
		while (vend > vstart && c_isspace(vend[-1]))
			vend--;

		/* Duplicates, and dpkg's rule for user-defined names. */
		if (zd_control_field_find(name, nlen) == ZD_FIELD_USER &&
		    nlen < 2) {
			lno = name_line;
			PERR("user-defined field name '%.*s' too short",
			     (int)nlen, name);
		}
		for (size_t i = 0; i < c.n; i++) {
			enum zd_field_id id;

			if (strlen(c.fields[i].name) != nlen ||
			    strncasecmp(c.fields[i].name, name, nlen) != 0)
				continue;
			lno = name_line;
			id = c.fields[i].id;
			if (id != ZD_FIELD_USER)
				PERR("duplicate value for '%s' field",
				     zd_control_field_name(id));
			PERR("duplicate value for user-defined field '%.*s'",
			     (int)nlen, name);
		}
		if (add_field(&c, name, nlen, vstart, (size_t)(vend - vstart),
		              name_line) < 0) {
			zd_err(err, ZD_E_NOMEM, "out of memory");
			goto fail;
		}

		if (p == end || *p == '\n')
			break;
	}

	/* Only blank lines may follow: dpkg-deb wants a single stanza. */
	while (p < end && *p == '\n') {
		p++;
		lno++;
	}
	if (p != end)
		PERR("several package info entries found, only one allowed");

	*ctl = c;
	return 0;
fail:
	zd_control_free(&c);
	ctl->fields = NULL;
	ctl->n = 0;
	return -1;
}

int
zd_control_parse_file(const char *path, struct zd_control *ctl,
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
	rc = zd_control_parse(buf, len, path, ctl, err);
out:
	free(buf);
	close(fd);
	return rc;
}

const char *
zd_control_get(const struct zd_control *ctl, const char *name)
{
	for (size_t i = 0; i < ctl->n; i++)
		if (strcasecmp(ctl->fields[i].name, name) == 0)
			return ctl->fields[i].value;
	return NULL;
}
