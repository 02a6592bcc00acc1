/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dpkg-pkginfo.c - dpkg's binary package model: a control stanza as
 * dpkg-deb's parser reads it, and its field writers
 *
 * A transcription of dpkg 1.21.22's field parsers (lib/dpkg/fields.c, with
 * pkg_parse_field() and pkg_parse_verify() of lib/dpkg/parse.c and the
 * helpers of lib/dpkg/parsehelp.c), run for dpkg-deb's pdb_parse_binary
 * (record "available", refuse status fields, strict versions), and of the
 * field writers of lib/dpkg/dump.c.  The stanza syntax is dpkg-control's;
 * the fields it reads arrive here one by one, as they do in dpkg, so that
 * the first problem reported is the one dpkg reports.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/c-ctype.h"
#include "lib/dpkg-pkginfo.h"
#include "lib/fdio.h"

/* --- versions, names --------------------------------------------------- */

int
zd_dpkg_version_parse(const char *string, struct zd_version *v,
                 struct zd_error *err)
{
	const char *end, *ptr, *colon;
	char *hyphen;

	v->epoch = 0;
	v->version = NULL;
	v->revision = NULL;
	/* Leading blanks, then the version up to a blank: nothing may follow
	 * but blanks. */
	while (*string != '\0' && c_isblank(*string))
		string++;
	if (*string == '\0')
		return zd_err(err, ZD_E_FORMAT, "version string is empty");
	end = string;
	while (*end != '\0' && !c_isblank(*end))
		end++;
	ptr = end;
	while (*ptr != '\0' && c_isblank(*ptr))
		ptr++;
	if (*ptr != '\0')
		return zd_err(err, ZD_E_FORMAT,
		              "version string has embedded spaces");

	colon = strchr(string, ':');
	if (colon != NULL) {
		char *eepoch;
		long epoch;

		errno = 0;
		epoch = strtol(string, &eepoch, 10);
		if (eepoch == string)
			return zd_err(err, ZD_E_FORMAT,
			              "epoch in version is empty");
		if (eepoch != colon)
			return zd_err(err, ZD_E_FORMAT,
			              "epoch in version is not number");
		if (epoch < 0)
			return zd_err(err, ZD_E_FORMAT,
			              "epoch in version is negative");
		if (epoch > INT_MAX || errno == ERANGE)
			return zd_err(err, ZD_E_FORMAT,
			              "epoch in version is too big");
		if (*++colon == '\0')
			return zd_err(err, ZD_E_FORMAT,
			              "nothing after colon in version number");
		string = colon;
		v->epoch = (unsigned)epoch;
	}
	v->version = strndup(string, (size_t)(end - string));
	if (v->version == NULL)
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	hyphen = strrchr(v->version, '-');
	if (hyphen != NULL) {
		*hyphen++ = '\0';
		v->revision = strdup(hyphen);
		if (v->revision == NULL)
			return zd_err(err, ZD_E_NOMEM, "out of memory");
		if (*hyphen == '\0')
			return zd_err(err, ZD_E_FORMAT,
			              "revision number is empty");
	}
	ptr = v->version;
	if (*ptr == '\0')
		return zd_err(err, ZD_E_FORMAT, "version number is empty");
	if (!c_isdigit(*ptr++))
		return zd_err(err, ZD_E_FORMAT,
		              "version number does not start with digit");
	for (; *ptr != '\0'; ptr++)
		if (!c_isalnum(*ptr) && strchr(".-+~:", *ptr) == NULL)
			return zd_err(err, ZD_E_FORMAT,
			              "invalid character in version number");
	for (ptr = v->revision != NULL ? v->revision : ""; *ptr != '\0'; ptr++)
		if (!c_isalnum(*ptr) && strchr(".+~", *ptr) == NULL)
			return zd_err(err, ZD_E_FORMAT,
			              "invalid character in revision number");
	return 0;
}

void
zd_dpkg_version_free(struct zd_version *v)
{
	free(v->version);
	free(v->revision);
	v->version = NULL;
	v->revision = NULL;
}

void
zd_dpkg_version_print(FILE *f, const struct zd_version *v, bool never_epoch)
{
	const char *rev = v->revision != NULL ? v->revision : "";

	if (!never_epoch &&
	    (v->epoch != 0 ||
	     (v->version != NULL && strchr(v->version, ':') != NULL) ||
	     strchr(rev, ':') != NULL))
		fprintf(f, "%u:", v->epoch);
	if (v->version != NULL)
		fputs(v->version, f);
	if (*rev != '\0')
		fprintf(f, "-%s", rev);
}

/* dpkg_version_is_informative(). */
static bool
version_is_set(const struct zd_version *v)
{
	return v->epoch != 0 || (v->version != NULL && *v->version != '\0') ||
	       (v->revision != NULL && *v->revision != '\0');
}

int
zd_dpkg_pkginfo_check_name(const char *p, struct zd_error *err)
{
	static const char punct_allowed[] = "-+._";
	int c;

	if (*p == '\0')
		return zd_err(err, ZD_E_FORMAT, "may not be empty string");
	if (!c_isalnum(*p))
		return zd_err(err, ZD_E_FORMAT,
		              "must start with an alphanumeric character");
	while ((c = (unsigned char)*p++) != '\0')
		if (!c_isalnum(c) && strchr(punct_allowed, c) == NULL)
			return zd_err(err, ZD_E_FORMAT, "character '%c' not "
			              "allowed (only letters, digits and "
			              "characters '%s')", c, punct_allowed);
	return 0;
}

int
zd_dpkg_pkginfo_check_arch(const char *p, struct zd_error *err)
{
	if (*p == '\0')
		return zd_err(err, ZD_E_FORMAT, "may not be empty string");
	if (!c_isalnum(*p))
		return zd_err(err, ZD_E_FORMAT,
		              "must start with an alphanumeric");
	while (*++p != '\0')
		if (!c_isalnum(*p) && *p != '-')
			return zd_err(err, ZD_E_FORMAT, "character '%c' not "
			              "allowed (only letters, digits and "
			              "characters '%s')", *p, "-");
	return 0;
}

/* --- the parse ----------------------------------------------------------- */

static const char *const multiarch_names[] = {
	[ZD_MULTIARCH_NO] = "no", [ZD_MULTIARCH_SAME] = "same",
	[ZD_MULTIARCH_ALLOWED] = "allowed", [ZD_MULTIARCH_FOREIGN] = "foreign",
};
/*
 * dpkg's priorityinfos[] also names "unknown", but as entry 6 of an array
 * its designated initializers leave a hole at entry 5 (PKG_PRIO_OTHER),
 * where the lookup stops: "Priority: unknown" is a user-defined priority.
 */
static const char *const priority_names[] = {
	[ZD_PRIO_REQUIRED] = "required", [ZD_PRIO_IMPORTANT] = "important",
	[ZD_PRIO_STANDARD] = "standard", [ZD_PRIO_OPTIONAL] = "optional",
	[ZD_PRIO_EXTRA] = "extra",
};
static const char *const boolean_names[] = { "no", "yes" };

/* One run of the parser: dpkg's parsedb_state and the package it fills. */
struct parse {
	const struct zd_pkginfo_opts *o;
	struct zd_pkginfo *pi;
	int lno;		/* where messages say they are */
	bool reported;		/* err holds a message of report() */
};

/* dpkg's dpkg_arch_find(). */
static struct zd_arch
arch_find(const char *name, const char *native)
{
	struct zd_error ignored = ZD_ERROR_INIT;
	struct zd_arch a = { name, ZD_ARCH_UNKNOWN };

	if (*name == '\0')
		a.type = ZD_ARCH_EMPTY;
	else if (native != NULL && strcmp(name, native) == 0)
		a.type = ZD_ARCH_NATIVE;
	else if (strcmp(name, "all") == 0)
		a.type = ZD_ARCH_ALL;
	else if (strcmp(name, "any") == 0)
		a.type = ZD_ARCH_WILDCARD;
	else if (zd_dpkg_pkginfo_check_arch(name, &ignored) < 0)
		a.type = ZD_ARCH_ILLEGAL;
	return a;
}

/* dpkg's pkgbin_name_needs_arch(..., pnaw_nonambig). */
static bool
name_needs_arch(const struct zd_pkginfo *pi)
{
	if (pi->arch.type == ZD_ARCH_NONE || pi->arch.type == ZD_ARCH_EMPTY)
		return false;
	if (pi->multiarch == ZD_MULTIARCH_SAME)
		return true;
	return pi->arch.type != ZD_ARCH_NATIVE && pi->arch.type != ZD_ARCH_ALL;
}

void
zd_dpkg_pkginfo_print_name(FILE *f, const struct zd_pkginfo *pi)
{
	fputs(pi->name != NULL ? pi->name : "", f);
	if (name_needs_arch(pi))
		fprintf(f, ":%s", pi->arch.name);
}

/*
 * dpkg's parse_error(), parse_warn() and parse_problem(): the message with
 * its "parsing file ..." prefix; reason (parse_problem's ": REASON") may be
 * NULL.  A warning goes to the callback (an error when strict) and returns
 * 0; an error returns -1 with err set.
 */
static int __attribute__((format(printf, 5, 6)))
report(struct parse *ps, bool warning, const char *reason,
       struct zd_error *err, const char *fmt, ...)
{
	const struct zd_pkginfo_opts *o = ps->o;
	char *msg = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&msg, &len);
	va_list ap;
	bool bad;

	if (f == NULL)
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	if (ps->pi->name != NULL) {
		fprintf(f, "parsing file '%s' near line %d package '", o->file,
		        ps->lno);
		zd_dpkg_pkginfo_print_name(f, ps->pi);
		fputs("':\n ", f);
	} else {
		fprintf(f, "parsing file '%.255s' near line %d:\n ", o->file,
		        ps->lno);
	}
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	if (reason != NULL)
		fprintf(f, ": %s", reason);
	bad = ferror(f) != 0;
	if (fclose(f) != 0 || bad) {
		free(msg);
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	}
	if (warning && !o->strict) {
		ps->pi->warnings++;
		if (o->warn != NULL)
			o->warn(o->warn_ctx, msg);
		free(msg);
		return 0;
	}
	zd_err(err, ZD_E_FORMAT, "%s", msg);
	free(msg);
	ps->reported = true;
	return -1;
}

#define PERROR(...) report(ps, false, NULL, err, __VA_ARGS__)
#define PWARN(...) report(ps, true, NULL, err, __VA_ARGS__)

/*
 * dpkg's parse_nv(): the index of the name that prefixes *str
 * (case-insensitively), *str moved past it and its spaces; -1 when none
 * does and fallback is set, *str set to NULL.  Otherwise -2 with *why set
 * to dpkg's reason.
 */
static int
parse_nv(const char **str, const char *const *names, size_t n, bool fallback,
         char *why, size_t whysize)
{
	const char *s = *str;

	if (*s == '\0') {
		snprintf(why, whysize, "is missing a value");
		return -2;
	}
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(names[i]);
		const char *end;

		if (strncasecmp(s, names[i], l) != 0)
			continue;
		end = s + l;
		while (c_isspace(*end))
			end++;
		if (*end != '\0') {
			snprintf(why, whysize, "has trailing junk");
			return -2;
		}
		*str = end;
		return (int)i;
	}
	if (fallback) {
		*str = NULL;
		return -1;
	}
	snprintf(why, whysize, "has invalid value '%.50s'", s);
	return -2;
}

/* dpkg's f_name(). */
static int
f_name(struct parse *ps, const char *value, const char *field,
       struct zd_error *err)
{
	struct zd_error why = ZD_ERROR_INIT;

	if (zd_dpkg_pkginfo_check_name(value, &why) < 0)
		return PERROR("invalid package name in '%s' field: %s", field,
		              why.msg);
	free(ps->pi->name);
	ps->pi->name = strdup(value);
	if (ps->pi->name == NULL)
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	for (char *p = ps->pi->name; *p != '\0'; p++)
		*p = (char)c_tolower(*p);
	return 0;
}

/* dpkg's f_boolean(), f_multiarch(), f_priority(). */
static int
f_word(struct parse *ps, enum zd_field_id id, const char *value,
       const char *field, struct zd_error *err)
{
	struct zd_pkginfo *pi = ps->pi;
	const char *str = value;
	char why[128];
	int k;

	if (*value == '\0')
		return 0;
	switch (id) {
	case ZD_FIELD_ESSENTIAL:
	case ZD_FIELD_PROTECTED:
		k = parse_nv(&str, boolean_names, 2, false, why, sizeof(why));
		if (k < 0)
			return PERROR("boolean (yes/no) '%s' field: %s", field,
			              why);
		if (id == ZD_FIELD_ESSENTIAL)
			pi->essential = k == 1;
		else
			pi->is_protected = k == 1;
		return 0;
	case ZD_FIELD_MULTI_ARCH:
		k = parse_nv(&str, multiarch_names, 4, false, why,
		             sizeof(why));
		if (k < 0)
			return PERROR("quadstate (foreign/allowed/same/no) '%s' "
			              "field: %s", field, why);
		pi->multiarch = (enum zd_multiarch)k;
		return 0;
	default:
		k = parse_nv(&str, priority_names, 5, true, why, sizeof(why));
		if (k == -2)
			return PERROR("word in '%s' field: %s", field, why);
		pi->priority = k < 0 ? ZD_PRIO_OTHER : (enum zd_priority)k;
		pi->otherpriority = k < 0 ? value : NULL;
		return 0;
	}
}

/* dpkg's f_version(). */
static int
f_version(struct parse *ps, const char *value, const char *field,
          struct zd_error *err)
{
	struct zd_error why = ZD_ERROR_INIT;

	zd_dpkg_version_free(&ps->pi->version);
	if (zd_dpkg_version_parse(value, &ps->pi->version, &why) == 0)
		return 0;
	if (why.code == ZD_E_NOMEM)
		return zd_err(err, ZD_E_NOMEM, "%s", why.msg);
	return report(ps, false, why.msg, err, "'%s' field value '%.250s'",
	              field, value);
}

/* dpkg's f_obs_revision(), after its warning. */
static int
f_revision(struct parse *ps, const char *value, struct zd_error *err)
{
	struct zd_version *v = &ps->pi->version;
	char *rev;

	if (*value == '\0')
		return 0;
	if (v->revision != NULL && *v->revision != '\0') {
		char *joined;

		if (asprintf(&joined, "%s-%s", v->version != NULL ?
		             v->version : "", v->revision) < 0)
			return zd_err(err, ZD_E_NOMEM, "out of memory");
		free(v->version);
		v->version = joined;
	}
	rev = strdup(value);
	if (rev == NULL)
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	free(v->revision);
	v->revision = rev;
	return 0;
}

/* dpkg's conffvalue_lastword(): the last word of [value, from). */
static int
conff_lastword(struct parse *ps, const char *value, const char *from,
               const char *endent, const char **word, size_t *wordlen,
               const char **new_from, struct zd_error *err)
{
	const char *lastspc;

	if (from <= value + 1)
		goto malformed;
	/* value[-1] is the line's leading space: the scan stops there. */
	for (lastspc = from - 1; *lastspc != ' '; lastspc--)
		;
	if (lastspc <= value + 1 || lastspc >= endent - 1)
		goto malformed;
	*new_from = lastspc;
	*word = lastspc + 1;
	*wordlen = (size_t)(from - *word);
	return 0;
malformed:
	return PERROR("value for '%s' field has malformed line '%.*s'",
	              "Conffiles", (int)(endent - value < 250 ?
	                                 endent - value : 250), value);
}

/* dpkg's f_conffiles(): a binary package keeps none, but dpkg checks. */
static int
f_conffiles(struct parse *ps, const char *value, const char *field,
            struct zd_error *err)
{
	while (*value != '\0') {
		const char *endent, *endfn, *word;
		size_t wordlen;
		int c = (unsigned char)*value++;

		if (c == '\n')
			continue;
		if (c != ' ')
			return PERROR("value for '%s' field has line starting "
			              "with non-space '%c'", field, c);
		for (endent = value; *endent != '\0' && *endent != '\n';
		     endent++)
			;
		if (conff_lastword(ps, value, endent, endent, &word, &wordlen,
		                   &endfn, err) < 0)
			return -1;
		if (wordlen == strlen("remove-on-upgrade") &&
		    memcmp(word, "remove-on-upgrade", wordlen) == 0 &&
		    conff_lastword(ps, value, endfn, endent, &word, &wordlen,
		                   &endfn, err) < 0)
			return -1;
		if (wordlen == strlen("obsolete") &&
		    memcmp(word, "obsolete", wordlen) == 0 &&
		    conff_lastword(ps, value, endfn, endent, &word, &wordlen,
		                   &endfn, err) < 0)
			return -1;
		/* dpkg's path_skip_slash_dotslash(). */
		while (value[0] == '/' || (value[0] == '.' && value[1] == '/'))
			value++;
		if (endfn - value <= 0)
			return PERROR("root or empty directory listed as a "
			              "conffile in '%s' field", field);
		value = endent;
	}
	return 0;
}

/* dpkg's f_archives(): a .deb's are ignored, but dpkg checks they agree. */
static int
f_archives(struct parse *ps, const char *value, const char *field,
           struct zd_error *err)
{
	size_t n = 0;

	if (*value == '\0')
		return PERROR("empty archive details '%s' field", field);
	while (*value != '\0') {
		while (*value != '\0' && !c_isspace(*value))
			value++;
		n++;
		if (ps->pi->narchives != 0 && n > ps->pi->narchives)
			return PERROR("too many values in archive details '%s' "
			              "field (compared to others)", field);
		while (*value != '\0' && c_isspace(*value))
			value++;
	}
	if (ps->pi->narchives == 0)
		ps->pi->narchives = n;
	else if (n < ps->pi->narchives)
		return PERROR("too few values in archive details '%s' field "
		              "(compared to others)", field);
	return 0;
}

static bool
allows_alternatives(enum zd_field_id type)
{
	return type != ZD_FIELD_CONFLICTS && type != ZD_FIELD_BREAKS &&
	       type != ZD_FIELD_PROVIDES && type != ZD_FIELD_REPLACES;
}

static struct zd_dep_alt *
add_alt(struct zd_pkginfo *pi, enum zd_field_id type, bool new_entry)
{
	struct zd_dep *d;
	struct zd_dep_alt *a;

	if (new_entry) {
		d = reallocarray(pi->deps, pi->ndeps + 1, sizeof(*d));
		if (d == NULL)
			return NULL;
		pi->deps = d;
		d = &pi->deps[pi->ndeps++];
		d->field = type;
		d->alt = NULL;
		d->n = 0;
	}
	d = &pi->deps[pi->ndeps - 1];
	a = reallocarray(d->alt, d->n + 1, sizeof(*a));
	if (a == NULL)
		return NULL;
	d->alt = a;
	a = &d->alt[d->n++];
	memset(a, 0, sizeof(*a));
	return a;
}

/* dpkg's version relation of one alternative, p just past the '('. */
static int
parse_relation(struct parse *ps, const char **pp, struct zd_dep_alt *a,
               enum zd_field_id type, const char *field, const char *depname,
               struct zd_error *err)
{
	struct zd_error why = ZD_ERROR_INIT;
	const char *p = *pp, *vstart;
	char *version;
	int c1, c2, rc;

	while (c_isspace(*p))
		p++;
	c1 = (unsigned char)*p;
	if (c1 == '<' || c1 == '>') {
		c2 = (unsigned char)*++p;
		a->rel = c1 == '<' ? ZD_REL_LT : ZD_REL_GT;
		if (c2 == '=') {
			a->rel |= ZD_REL_EQ;
			p++;
		} else if (c2 == c1) {
			p++;
		} else if (c2 == '<' || c2 == '>') {
			return PERROR("'%s' field, reference to '%.255s':\n bad "
			              "version relationship %c%c", field,
			              depname, c1, c2);
		} else {
			if (PWARN("'%s' field, reference to '%.255s':\n '%c' is "
			          "obsolete, use '%c=' or '%c%c' instead",
			          field, depname, c1, c1, c1, c1) < 0)
				return -1;
			a->rel |= ZD_REL_EQ;
		}
	} else if (c1 == '=') {
		a->rel = ZD_REL_EQ;
		p++;
	} else {
		if (PWARN("'%s' field, reference to '%.255s':\n implicit exact "
		          "match on version number, suggest using '=' instead",
		          field, depname) < 0)
			return -1;
		a->rel = ZD_REL_EQ;
	}
	if (a->rel != ZD_REL_EQ && type == ZD_FIELD_PROVIDES &&
	    PWARN("only exact versions may be used for '%s' field", field) < 0)
		return -1;
	if (!c_isspace(*p) && !c_isalnum(*p) &&
	    PWARN("'%s' field, reference to '%.255s':\n version value starts "
	          "with non-alphanumeric, suggest adding a space", field,
	          depname) < 0)
		return -1;
	while (c_isspace(*p))
		p++;
	vstart = p;
	while (*p != '\0' && *p != ')' && *p != '(' && !c_isspace(*p))
		p++;
	version = strndup(vstart, (size_t)(p - vstart));
	if (version == NULL)
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	while (c_isspace(*p))
		p++;
	if (*p == '\0')
		rc = PERROR("'%s' field, reference to '%.255s': version "
		            "unterminated", field, depname);
	else if (*p != ')')
		rc = PERROR("'%s' field, reference to '%.255s': version contains "
		            "'%c' instead of '%c'", field, depname, *p, ')');
	else if (zd_dpkg_version_parse(version, &a->version, &why) == 0)
		rc = 0;
	else if (why.code == ZD_E_NOMEM)
		rc = zd_err(err, ZD_E_NOMEM, "%s", why.msg);
	else
		rc = report(ps, false, why.msg, err, "'%s' field, reference to "
		            "'%.255s': version '%s'", field, depname, version);
	free(version);
	if (rc < 0)
		return -1;
	p++;
	while (c_isspace(*p))
		p++;
	*pp = p;
	return 0;
}

/* dpkg's f_dependency(); type is the modern field, field the name. */
static int
f_dependency(struct parse *ps, const char *value, enum zd_field_id type,
             const char *field, struct zd_error *err)
{
	const char *p = value;

	if (*p == '\0')
		return 0;
	for (;;) {
		bool new_entry = true;

		for (;;) {
			struct zd_error why = ZD_ERROR_INIT;
			const char *start = p;
			struct zd_dep_alt *a;
			char *depname;

			while (*p != '\0' && !c_isspace(*p) && *p != ':' &&
			       *p != '(' && *p != ',' && *p != '|')
				p++;
			if (p == start)
				return PERROR("'%s' field, missing package name, "
				              "or garbage where package name "
				              "expected", field);
			a = add_alt(ps->pi, type, new_entry);
			if (a == NULL)
				return zd_err(err, ZD_E_NOMEM, "out of memory");
			new_entry = false;
			a->name = depname = strndup(start, (size_t)(p - start));
			if (depname == NULL)
				return zd_err(err, ZD_E_NOMEM, "out of memory");
			if (zd_dpkg_pkginfo_check_name(depname, &why) < 0)
				return PERROR("'%s' field, invalid package name "
				              "'%.255s': %s", field, depname,
				              why.msg);
			if (*p == ':') {
				const char *archstart = ++p;

				while (*p != '\0' && !c_isspace(*p) &&
				       *p != '(' && *p != ',' && *p != '|')
					p++;
				if (p == archstart)
					return PERROR("'%s' field, missing "
					              "architecture name, or garbage "
					              "where architecture name "
					              "expected", field);
				a->arch = strndup(archstart,
				                  (size_t)(p - archstart));
				if (a->arch == NULL)
					return zd_err(err, ZD_E_NOMEM,
					              "out of memory");
				if (arch_find(a->arch, NULL).type ==
				    ZD_ARCH_ILLEGAL) {
					zd_dpkg_pkginfo_check_arch(a->arch,
					                           &why);
					return PERROR("'%s' field, reference to "
					              "'%.255s': invalid "
					              "architecture name '%.255s': "
					              "%s", field, depname, a->arch,
					              why.msg);
				}
			}
			while (c_isspace(*p))
				p++;
			if (*p == '(') {
				p++;
				if (parse_relation(ps, &p, a, type, field,
				                   depname, err) < 0)
					return -1;
			}
			/* From here on dpkg knows the name lowercased. */
			for (char *q = depname; *q != '\0'; q++)
				*q = (char)c_tolower(*q);
			if (*p == '\0' || *p == ',')
				break;
			if (*p != '|')
				return PERROR("'%s' field, syntax error after "
				              "reference to package '%.255s'",
				              field, depname);
			if (!allows_alternatives(type))
				return PERROR("alternatives ('|') not allowed "
				              "in '%s' field", field);
			p++;
			while (c_isspace(*p))
				p++;
		}
		if (*p == '\0')
			break;
		p++;
		while (c_isspace(*p))
			p++;
	}
	return 0;
}

/* The modern relation field of an old one. */
static enum zd_field_id
dep_type(enum zd_field_id id)
{
	if (id == ZD_FIELD_RECOMMENDED)
		return ZD_FIELD_RECOMMENDS;
	if (id == ZD_FIELD_OPTIONAL)
		return ZD_FIELD_SUGGESTS;
	return id;
}

/* dpkg's pkg_parse_field() after the duplicate checks: the field's
 * parser, in dpkg's fieldinfos[] order. */
static int
parse_field(void *ctx, const struct zd_control *ctl, struct zd_error *err)
{
	struct parse *ps = ctx;
	struct zd_pkginfo *pi = ps->pi;
	const struct zd_field *fl = &ctl->fields[ctl->n - 1];
	const char *v = fl->value;
	const char *field;

	if (fl->id == ZD_FIELD_USER)
		return 0;
	field = zd_dpkg_control_field_name(fl->id);
	ps->lno = fl->lno;
	switch (fl->id) {
	case ZD_FIELD_PACKAGE:
		return f_name(ps, v, field, err);
	case ZD_FIELD_ESSENTIAL:
	case ZD_FIELD_PROTECTED:
	case ZD_FIELD_MULTI_ARCH:
	case ZD_FIELD_PRIORITY:
		return f_word(ps, fl->id, v, field, err);
	case ZD_FIELD_STATUS:
	case ZD_FIELD_CONFIG_VERSION:
	case ZD_FIELD_TRIGGERS_PENDING:
	case ZD_FIELD_TRIGGERS_AWAITED:
		return PERROR("value for '%s' field not allowed in this "
		              "context", field);
	case ZD_FIELD_SECTION:
		if (*v != '\0')
			pi->section = v;
		return 0;
	case ZD_FIELD_INSTALLED_SIZE:
	case ZD_FIELD_ORIGIN:
	case ZD_FIELD_MAINTAINER:
	case ZD_FIELD_BUGS:
	case ZD_FIELD_SOURCE:
	case ZD_FIELD_DESCRIPTION: {
		const char **slot[] = {
			[ZD_FIELD_INSTALLED_SIZE] = &pi->installed_size,
			[ZD_FIELD_ORIGIN] = &pi->origin,
			[ZD_FIELD_MAINTAINER] = &pi->maintainer,
			[ZD_FIELD_BUGS] = &pi->bugs,
			[ZD_FIELD_SOURCE] = &pi->source,
			[ZD_FIELD_DESCRIPTION] = &pi->description,
		};

		if (*v != '\0')
			*slot[fl->id] = v;
		return 0;
	}
	case ZD_FIELD_ARCHITECTURE: {
		struct zd_error why = ZD_ERROR_INIT;

		pi->arch = arch_find(v, pi->native_arch);
		if (pi->arch.type != ZD_ARCH_ILLEGAL)
			return 0;
		zd_dpkg_pkginfo_check_arch(v, &why);
		return PWARN("'%s' is not a valid architecture name in '%s' "
		             "field: %s", v, field, why.msg);
	}
	case ZD_FIELD_VERSION:
		return f_version(ps, v, field, err);
	case ZD_FIELD_REPLACES:
	case ZD_FIELD_PROVIDES:
	case ZD_FIELD_DEPENDS:
	case ZD_FIELD_PRE_DEPENDS:
	case ZD_FIELD_RECOMMENDS:
	case ZD_FIELD_SUGGESTS:
	case ZD_FIELD_BREAKS:
	case ZD_FIELD_CONFLICTS:
	case ZD_FIELD_ENHANCES:
		return f_dependency(ps, v, fl->id, field, err);
	case ZD_FIELD_CONFFILES:
		return f_conffiles(ps, v, field, err);
	case ZD_FIELD_FILENAME:
	case ZD_FIELD_SIZE:
	case ZD_FIELD_MD5SUM:
	case ZD_FIELD_MSDOS_FILENAME:
		return f_archives(ps, v, field, err);
	case ZD_FIELD_RECOMMENDED:
	case ZD_FIELD_OPTIONAL:
	case ZD_FIELD_CLASS:
	case ZD_FIELD_REVISION:
	case ZD_FIELD_PACKAGE_REVISION:
	case ZD_FIELD_PACKAGE_REVISION_:
		if (PWARN("obsolete '%s' field used", field) < 0)
			return -1;
		if (fl->id == ZD_FIELD_CLASS)
			return f_word(ps, ZD_FIELD_CLASS, v, field, err);
		if (fl->id == ZD_FIELD_RECOMMENDED ||
		    fl->id == ZD_FIELD_OPTIONAL)
			return f_dependency(ps, v, dep_type(fl->id), field,
			                    err);
		return f_revision(ps, v, err);
	case ZD_FIELD_USER:
	case ZD_FIELD__COUNT:
		break;
	}
	return 0;
}

/* What dpkg's parsedb_parse() blanks before each stanza. */
static void
blank(struct zd_pkginfo *pi)
{
	char *native = pi->native_arch;
	const struct zd_control *ctl = pi->ctl;

	pi->native_arch = NULL;
	zd_dpkg_pkginfo_free(pi);
	pi->native_arch = native;
	pi->ctl = ctl;
	pi->priority = ZD_PRIO_UNKNOWN;
}

static void
begin_stanza(void *ctx)
{
	struct parse *ps = ctx;

	blank(ps->pi);
}

/* dpkg's pkg_parse_verify() for a binary package. */
static int
verify(void *ctx, const struct zd_control *ctl, int lno, struct zd_error *err)
{
	struct parse *ps = ctx;
	struct zd_pkginfo *pi = ps->pi;
	static const enum zd_field_id ensured[] = {
		ZD_FIELD_DESCRIPTION, ZD_FIELD_MAINTAINER,
	};

	(void)ctl;
	ps->lno = lno;
	if (pi->name == NULL)
		return PERROR("missing '%s' field", "Package");
	for (size_t i = 0; i < sizeof(ensured) / sizeof(*ensured); i++) {
		const char **v = ensured[i] == ZD_FIELD_DESCRIPTION ?
		                 &pi->description : &pi->maintainer;

		if (*v == NULL) {
			if (PWARN("missing '%s' field",
			          zd_dpkg_control_field_name(ensured[i])) < 0)
				return -1;
			*v = "";
		} else if (**v == '\0' &&
		           PWARN("empty value for '%s' field",
		                 zd_dpkg_control_field_name(ensured[i])) < 0) {
			return -1;
		}
	}
	if (pi->version.version == NULL)
		return PERROR("missing '%s' field", "Version");
	if (*pi->version.version == '\0')
		return PERROR("empty value for '%s' field", "Version");
	if (pi->arch.type == ZD_ARCH_NONE &&
	    PWARN("missing '%s' field", "Architecture") < 0)
		return -1;
	if (pi->arch.type == ZD_ARCH_EMPTY &&
	    PWARN("empty value for '%s' field", "Architecture") < 0)
		return -1;
	if (pi->arch.type == ZD_ARCH_NONE)
		pi->arch.type = ZD_ARCH_EMPTY;
	if (pi->arch.type == ZD_ARCH_EMPTY &&
	    pi->multiarch == ZD_MULTIARCH_SAME)
		return PERROR("package has '%s' field but is missing "
		              "architecture", "Multi-Arch: same");
	if (pi->arch.type == ZD_ARCH_ALL && pi->multiarch == ZD_MULTIARCH_SAME)
		return PERROR("package has '%s' field but is architecture "
		              "'%s'", "Multi-Arch: same", "all");
	return 0;
}

int
zd_dpkg_pkginfo_parse(const char *buf, size_t len,
                      const struct zd_pkginfo_opts *o, struct zd_control *ctl,
                      struct zd_pkginfo *pi, struct zd_error *err)
{
	struct parse ps = { o, pi, 0, false };
	struct zd_control_cb cb = { begin_stanza, parse_field, verify, &ps };
	int rc, lno;

	memset(pi, 0, sizeof(*pi));
	pi->ctl = ctl;
	pi->priority = ZD_PRIO_UNKNOWN;
	if (o->native_arch != NULL) {
		pi->native_arch = strdup(o->native_arch);
		if (pi->native_arch == NULL)
			return zd_err(err, ZD_E_NOMEM, "out of memory");
	}
	rc = zd_dpkg_control_parse_dpkg(buf, len, ctl, &cb, &lno, err);
	if (rc > 0)
		return zd_err(err, ZD_E_FORMAT, "no package information in "
		              "'%.255s'", o->file);
	if (rc < 0 && err->code == ZD_E_FORMAT && !ps.reported) {
		/* dpkg-control's own message: give it dpkg's prefix. */
		char msg[sizeof(err->msg)];

		snprintf(msg, sizeof(msg), "%s", err->msg);
		ps.lno = lno;
		return report(&ps, false, NULL, err, "%s", msg);
	}
	return rc;
}

int
zd_dpkg_pkginfo_parse_file(const struct zd_pkginfo_opts *o,
                           struct zd_control *ctl, struct zd_pkginfo *pi,
                           struct zd_error *err)
{
	struct stat st;
	char *buf = NULL;
	size_t len = 0;
	int fd, rc = -1;

	memset(pi, 0, sizeof(*pi));
	ctl->fields = NULL;
	ctl->n = 0;
	fd = open(o->file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return zd_err_errno(err, ZD_E_IO, "failed to open package info "
		                    "file '%.255s' for reading", o->file);
	if (fstat(fd, &st) < 0) {
		zd_err_errno(err, ZD_E_IO, "can't stat package info file "
		             "'%.255s'", o->file);
		goto out;
	}
	if (S_ISFIFO(st.st_mode)) {
		/* dpkg reads a pipe to its end. */
		for (size_t cap = 0;;) {
			ssize_t n;

			if (len == cap) {
				char *nb = realloc(buf, cap = cap * 2 + 65536);

				if (nb == NULL) {
					zd_err(err, ZD_E_NOMEM, "out of memory");
					goto out;
				}
				buf = nb;
			}
			n = zd_read_full(fd, buf + len, cap - len, err);
			if (n < 0) {
				zd_err_prefix(err, "reading package info file "
				              "'%s'", o->file);
				goto out;
			}
			if (n == 0)
				break;
			len += (size_t)n;
		}
	} else if (st.st_size > 0) {
		ssize_t n;

		buf = malloc((size_t)st.st_size);
		if (buf == NULL) {
			zd_err(err, ZD_E_NOMEM, "out of memory");
			goto out;
		}
		n = read(fd, buf, (size_t)st.st_size);
		if (n < 0) {
			zd_err_errno(err, ZD_E_IO, "reading package info file "
			             "'%.255s'", o->file);
			goto out;
		}
		/* dpkg's fd_read() reads on until st_size bytes or the end. */
		len = (size_t)n;
		while (n > 0 && len < (size_t)st.st_size) {
			n = zd_read_full(fd, buf + len, (size_t)st.st_size - len,
			                 err);
			if (n < 0) {
				zd_err_prefix(err, "reading package info file "
				              "'%.255s'", o->file);
				goto out;
			}
			len += (size_t)n;
		}
	}
	rc = zd_dpkg_pkginfo_parse(buf, len, o, ctl, pi, err);
out:
	free(buf);
	close(fd);
	return rc;
}

void
zd_dpkg_pkginfo_free(struct zd_pkginfo *pi)
{
	free(pi->name);
	zd_dpkg_version_free(&pi->version);
	for (size_t i = 0; i < pi->ndeps; i++) {
		for (size_t j = 0; j < pi->deps[i].n; j++) {
			free(pi->deps[i].alt[j].name);
			free(pi->deps[i].alt[j].arch);
			zd_dpkg_version_free(&pi->deps[i].alt[j].version);
		}
		free(pi->deps[i].alt);
	}
	free(pi->deps);
	free(pi->native_arch);
	memset(pi, 0, sizeof(*pi));
}

/* --- the writers --------------------------------------------------------- */

static const char *const relation_names[] = {
	[ZD_REL_EQ] = "=", [ZD_REL_LT] = "<<", [ZD_REL_LE] = "<=",
	[ZD_REL_GT] = ">>", [ZD_REL_GE] = ">=",
};

/* dpkg's w_dependency(). */
static void
write_deps(FILE *f, const struct zd_pkginfo *pi, enum zd_field_id type,
           bool header)
{
	bool found = false;

	for (size_t i = 0; i < pi->ndeps; i++) {
		const struct zd_dep *d = &pi->deps[i];

		if (d->field != type)
			continue;
		if (found)
			fputs(", ", f);
		else if (header)
			fprintf(f, "%s: ", zd_dpkg_control_field_name(type));
		found = true;
		for (size_t j = 0; j < d->n; j++) {
			const struct zd_dep_alt *a = &d->alt[j];

			fprintf(f, "%s%s", j > 0 ? " | " : "", a->name);
			if (a->arch != NULL)
				fprintf(f, ":%s", a->arch);
			if (a->rel == ZD_REL_NONE)
				continue;
			fprintf(f, " (%s ", relation_names[a->rel]);
			zd_dpkg_version_print(f, &a->version, false);
			fputc(')', f);
		}
	}
	if (header && found)
		fputc('\n', f);
}

/* One writer of dump.c: "Name: value\n" with header, else the value. */
static void
put(FILE *f, enum zd_field_id id, const char *v, bool header)
{
	if (v == NULL || *v == '\0')
		return;
	if (header)
		fprintf(f, "%s: %s\n", zd_dpkg_control_field_name(id), v);
	else
		fputs(v, f);
}

/* dpkg's wcall of fieldinfos[id] for the "available" pkgbin. */
static void
write_field(FILE *f, const struct zd_pkginfo *pi, enum zd_field_id id,
            bool header)
{
	bool b;

	switch (id) {
	case ZD_FIELD_PACKAGE:
		/* w_name prints even an empty name. */
		if (header)
			fprintf(f, "Package: %s\n", pi->name);
		else
			fputs(pi->name, f);
		return;
	case ZD_FIELD_ESSENTIAL:
	case ZD_FIELD_PROTECTED:
		b = id == ZD_FIELD_ESSENTIAL ? pi->essential : pi->is_protected;
		if (header && !b)
			return;
		put(f, id, b ? "yes" : "no", header);
		return;
	case ZD_FIELD_PRIORITY:
		if (pi->priority == ZD_PRIO_UNKNOWN)
			return;
		/* w_priority prints "Priority: " even for an empty word. */
		if (header)
			fputs("Priority: ", f);
		fputs(pi->priority == ZD_PRIO_OTHER ? pi->otherpriority :
		      priority_names[pi->priority], f);
		if (header)
			fputc('\n', f);
		return;
	case ZD_FIELD_SECTION:
		put(f, id, pi->section, header);
		return;
	case ZD_FIELD_INSTALLED_SIZE:
		put(f, id, pi->installed_size, header);
		return;
	case ZD_FIELD_ORIGIN:
		put(f, id, pi->origin, header);
		return;
	case ZD_FIELD_MAINTAINER:
		put(f, id, pi->maintainer, header);
		return;
	case ZD_FIELD_BUGS:
		put(f, id, pi->bugs, header);
		return;
	case ZD_FIELD_SOURCE:
		put(f, id, pi->source, header);
		return;
	case ZD_FIELD_DESCRIPTION:
		put(f, id, pi->description, header);
		return;
	case ZD_FIELD_ARCHITECTURE:
		if (pi->arch.type == ZD_ARCH_NONE ||
		    pi->arch.type == ZD_ARCH_EMPTY)
			return;
		put(f, id, pi->arch.name, header);
		return;
	case ZD_FIELD_MULTI_ARCH:
		if (header && pi->multiarch == ZD_MULTIARCH_NO)
			return;
		put(f, id, multiarch_names[pi->multiarch], header);
		return;
	case ZD_FIELD_VERSION:
		if (!version_is_set(&pi->version))
			return;
		if (header)
			fputs("Version: ", f);
		zd_dpkg_version_print(f, &pi->version, false);
		if (header)
			fputc('\n', f);
		return;
	case ZD_FIELD_REPLACES:
	case ZD_FIELD_PROVIDES:
	case ZD_FIELD_DEPENDS:
	case ZD_FIELD_PRE_DEPENDS:
	case ZD_FIELD_RECOMMENDS:
	case ZD_FIELD_SUGGESTS:
	case ZD_FIELD_BREAKS:
	case ZD_FIELD_CONFLICTS:
	case ZD_FIELD_ENHANCES:
		write_deps(f, pi, id, header);
		return;
	default:
		/* Status fields, conffiles and triggers belong to installed
		 * packages; dpkg-deb ignores the archive fields; the obsolete
		 * ones live on in their modern fields. */
		return;
	}
}

int
zd_dpkg_pkginfo_write_known(FILE *f, const struct zd_pkginfo *pi,
                            const char *name, bool header)
{
	enum zd_field_id id = zd_dpkg_control_field_find(name, strlen(name));

	if (id == ZD_FIELD_USER)
		return 1;
	write_field(f, pi, id, header);
	return 0;
}

const struct zd_field *
zd_dpkg_pkginfo_arbitrary(const struct zd_pkginfo *pi, const char *name)
{
	for (size_t i = 0; i < pi->ctl->n; i++)
		if (pi->ctl->fields[i].id == ZD_FIELD_USER &&
		    strcasecmp(pi->ctl->fields[i].name, name) == 0)
			return &pi->ctl->fields[i];
	return NULL;
}

void
zd_dpkg_pkginfo_field(FILE *f, const struct zd_pkginfo *pi, const char *name,
                 bool header)
{
	const struct zd_field *fl;

	if (zd_dpkg_pkginfo_write_known(f, pi, name, header) == 0)
		return;
	fl = zd_dpkg_pkginfo_arbitrary(pi, name);
	if (fl == NULL)
		return;
	if (header)
		fprintf(f, "%s: %s\n", fl->name, fl->value);
	else
		fputs(fl->value, f);
}

const char *
zd_dpkg_pkginfo_native_arch(void)
{
#if defined(__x86_64__) && defined(__ILP32__)
	return "x32";
#elif defined(__x86_64__)
	return "amd64";
#elif defined(__i386__)
	return "i386";
#elif defined(__aarch64__)
	return "arm64";
#elif defined(__arm__) && defined(__ARM_PCS_VFP)
	return "armhf";
#elif defined(__arm__)
	return "armel";
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return "ppc64el";
#elif defined(__powerpc64__)
	return "ppc64";
#elif defined(__s390x__)
	return "s390x";
#elif defined(__riscv) && __riscv_xlen == 64
	return "riscv64";
#elif defined(__loongarch64)
	return "loong64";
#elif defined(__mips64) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return "mips64el";
#else
	return NULL;
#endif
}
