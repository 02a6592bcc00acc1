/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dpkg-pkginfo.c - dpkg's binary package model: a control stanza as
 * dpkg-deb's parser reads it, and its field writers
 *
 * The fields are those of dpkg's fieldinfos[] (lib/dpkg/parse.c, 1.21.22,
 * named in dpkg-control), the writers are its w_*() functions (lib/dpkg/dump.c) applied to the
 * "available" half of a package parsed with pdb_parse_binary.
 */
#include "config.h"

#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/c-ctype.h"
#include "lib/dpkg-pkginfo.h"

enum kind {
	K_NAME, K_BOOL, K_NOTHING, K_PRIORITY, K_SECTION, K_CHAR, K_ARCH,
	K_MULTIARCH, K_VERSION, K_DEP, K_ARCHIVES, K_OBSOLETE, K_STATUSONLY,
};

enum {
	DEP_REPLACES, DEP_PROVIDES, DEP_DEPENDS, DEP_PREDEPENDS,
	DEP_RECOMMENDS, DEP_SUGGESTS, DEP_BREAKS, DEP_CONFLICTS,
	DEP_ENHANCES,
};

/* How dpkg parses and writes each of its fields (fieldinfos[]). */
struct fieldinfo {
	const char *name;
	enum kind kind;
	int arg;
};

static const struct {
	enum kind kind;
	int arg;
} field_kinds[ZD_FIELD__COUNT] = {
	[ZD_FIELD_PACKAGE] = { K_NAME, 0 },
	[ZD_FIELD_ESSENTIAL] = { K_BOOL, 0 },
	[ZD_FIELD_PROTECTED] = { K_BOOL, 1 },
	[ZD_FIELD_STATUS] = { K_STATUSONLY, 0 },
	[ZD_FIELD_PRIORITY] = { K_PRIORITY, 0 },
	[ZD_FIELD_SECTION] = { K_SECTION, 0 },
	[ZD_FIELD_INSTALLED_SIZE] = { K_CHAR, 0 },
	[ZD_FIELD_ORIGIN] = { K_CHAR, 0 },
	[ZD_FIELD_MAINTAINER] = { K_CHAR, 0 },
	[ZD_FIELD_BUGS] = { K_CHAR, 0 },
	[ZD_FIELD_ARCHITECTURE] = { K_ARCH, 0 },
	[ZD_FIELD_MULTI_ARCH] = { K_MULTIARCH, 0 },
	[ZD_FIELD_SOURCE] = { K_CHAR, 0 },
	[ZD_FIELD_VERSION] = { K_VERSION, 0 },
	[ZD_FIELD_CONFIG_VERSION] = { K_STATUSONLY, 0 },
	[ZD_FIELD_REPLACES] = { K_DEP, DEP_REPLACES },
	[ZD_FIELD_PROVIDES] = { K_DEP, DEP_PROVIDES },
	[ZD_FIELD_DEPENDS] = { K_DEP, DEP_DEPENDS },
	[ZD_FIELD_PRE_DEPENDS] = { K_DEP, DEP_PREDEPENDS },
	[ZD_FIELD_RECOMMENDS] = { K_DEP, DEP_RECOMMENDS },
	[ZD_FIELD_SUGGESTS] = { K_DEP, DEP_SUGGESTS },
	[ZD_FIELD_BREAKS] = { K_DEP, DEP_BREAKS },
	[ZD_FIELD_CONFLICTS] = { K_DEP, DEP_CONFLICTS },
	[ZD_FIELD_ENHANCES] = { K_DEP, DEP_ENHANCES },
	[ZD_FIELD_CONFFILES] = { K_STATUSONLY, 0 },
	[ZD_FIELD_FILENAME] = { K_ARCHIVES, 0 },
	[ZD_FIELD_SIZE] = { K_ARCHIVES, 0 },
	[ZD_FIELD_MD5SUM] = { K_ARCHIVES, 0 },
	[ZD_FIELD_MSDOS_FILENAME] = { K_ARCHIVES, 0 },
	[ZD_FIELD_DESCRIPTION] = { K_CHAR, 0 },
	[ZD_FIELD_TRIGGERS_PENDING] = { K_STATUSONLY, 0 },
	[ZD_FIELD_TRIGGERS_AWAITED] = { K_STATUSONLY, 0 },
	[ZD_FIELD_RECOMMENDED] = { K_OBSOLETE, 0 },
	[ZD_FIELD_OPTIONAL] = { K_OBSOLETE, 0 },
	[ZD_FIELD_CLASS] = { K_OBSOLETE, 0 },
	[ZD_FIELD_REVISION] = { K_OBSOLETE, 0 },
	[ZD_FIELD_PACKAGE_REVISION] = { K_OBSOLETE, 0 },
	[ZD_FIELD_PACKAGE_REVISION_] = { K_OBSOLETE, 0 },
};

static_assert(DEP_ENHANCES + 1 ==
              sizeof(((struct zd_pkginfo *)0)->deps) / sizeof(char *),
              "one slot per relation field");

/* The dpkg field name names, into *fi; false for a user-defined field. */
static bool
find_field(const char *name, struct fieldinfo *fi)
{
	enum zd_field_id id = zd_control_field_find(name, strlen(name));

	if (id == ZD_FIELD_USER)
		return false;
	fi->name = zd_control_field_name(id);
	fi->kind = field_kinds[id].kind;
	fi->arg = field_kinds[id].arg;
	return true;
}

static const char *const multiarch_names[] = {
	"no", "same", "allowed", "foreign",
};
static const char *const priority_names[] = {
	"required", "important", "standard", "optional", "extra", "unknown",
};

/*
 * dpkg's parse_nv() with a full value: the index of the name that prefixes
 * value case-insensitively, or -1 when none does; -2 when one does but
 * junk follows (a dpkg parse error).
 */
static int
parse_nv(const char *value, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(names[i]);

		if (strncasecmp(value, names[i], l) == 0) {
			const char *p = value + l;

			while (c_isspace((unsigned char)*p))
				p++;
			return *p == '\0' ? (int)i : -2;
		}
	}
	return -1;
}

int
zd_version_parse(const char *string, struct zd_version *v,
                 struct zd_error *err)
{
	const char *end, *ptr, *colon;
	char *hyphen;

	v->epoch = 0;
	v->version = NULL;
	v->revision = "";
	/* Leading blanks, then the version up to a blank: nothing may follow
	 * but blanks. */
	while (*string != '\0' && c_isblank((unsigned char)*string))
		string++;
	if (*string == '\0')
		return zd_err(err, ZD_E_FORMAT, "version string is empty");
	end = string;
	while (*end != '\0' && !c_isblank((unsigned char)*end))
		end++;
	ptr = end;
	while (*ptr != '\0' && c_isblank((unsigned char)*ptr))
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
		if (*hyphen == '\0')
			return zd_err(err, ZD_E_FORMAT,
			              "revision number is empty");
		v->revision = hyphen;
	}
	ptr = v->version;
	if (*ptr == '\0')
		return zd_err(err, ZD_E_FORMAT, "version number is empty");
	if (!c_isdigit((unsigned char)*ptr++))
		return zd_err(err, ZD_E_FORMAT,
		              "version number does not start with digit");
	for (; *ptr != '\0'; ptr++)
		if (!c_isalnum((unsigned char)*ptr) &&
		    strchr(".-+~:", *ptr) == NULL)
			return zd_err(err, ZD_E_FORMAT,
			              "invalid character in version number");
	for (ptr = v->revision; *ptr != '\0'; ptr++)
		if (!c_isalnum((unsigned char)*ptr) &&
		    strchr(".+~", *ptr) == NULL)
			return zd_err(err, ZD_E_FORMAT,
			              "invalid character in revision number");
	return 0;
}

void
zd_version_free(struct zd_version *v)
{
	free(v->version);
	v->version = NULL;
}

int
zd_pkginfo_check_name(const char *p, struct zd_error *err)
{
	static const char punct_allowed[] = "-+._";
	int c;

	if (*p == '\0')
		return zd_err(err, ZD_E_FORMAT, "may not be empty string");
	if (!c_isalnum((unsigned char)*p))
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
zd_pkginfo_check_arch(const char *p, struct zd_error *err)
{
	if (*p == '\0')
		return zd_err(err, ZD_E_FORMAT, "may not be empty string");
	if (!c_isalnum((unsigned char)*p))
		return zd_err(err, ZD_E_FORMAT,
		              "must start with an alphanumeric");
	while (*++p != '\0')
		if (!c_isalnum((unsigned char)*p) && *p != '-')
			return zd_err(err, ZD_E_FORMAT, "character '%c' not "
			              "allowed (only letters, digits and "
			              "characters '%s')", *p, "-");
	return 0;
}

void
zd_version_print(FILE *f, const struct zd_version *v)
{
	if (v->epoch > 0)
		fprintf(f, "%u:", v->epoch);
	fputs(v->version, f);
	if (*v->revision != '\0')
		fprintf(f, "-%s", v->revision);
}

static char *
normalize_version(const char *s, struct zd_error *err)
{
	struct zd_version v;
	char *out = NULL;
	size_t len = 0;
	FILE *f;
	bool bad;

	if (zd_version_parse(s, &v, err) < 0) {
		zd_version_free(&v);
		return NULL;
	}
	f = open_memstream(&out, &len);
	if (f != NULL) {
		zd_version_print(f, &v);
		bad = ferror(f) != 0;
		if (fclose(f) != 0 || bad) {
			free(out);
			out = NULL;
		}
	}
	zd_version_free(&v);
	if (out == NULL)
		zd_err(err, ZD_E_NOMEM, "out of memory");
	return out;
}


static int
unsupported(struct zd_error *err, const char *field, const char *why)
{
	return zd_err(err, ZD_E_UNSUPPORTED, "field '%s': %s", field, why);
}

/*
 * A relation field in the subset of dpkg's f_dependency() syntax that binary
 * packages use: "name[:arch] [(op version)]" alternatives joined by '|',
 * entries by ','.  Anything else (architecture or profile restrictions,
 * the obsolete '<' and '>' relations, empty entries) is refused.
 */
static char *
normalize_deps(const char *field, int type, const char *s,
               struct zd_error *err)
{
	struct { FILE *f; char *p; size_t len; } b = { NULL, NULL, 0 };
	bool first_entry = true;
	bool bad;

	b.f = open_memstream(&b.p, &b.len);
	if (b.f == NULL) {
		zd_err(err, ZD_E_NOMEM, "out of memory");
		return NULL;
	}
	for (;;) {
		bool first_alt = true;

		while (c_isspace((unsigned char)*s))
			s++;
		if (!first_entry)
			fputs(", ", b.f);
		first_entry = false;
		for (;;) {
			const char *start;
			char *tmp;
			struct zd_error nerr = ZD_ERROR_INIT;

			while (c_isspace((unsigned char)*s))
				s++;
			start = s;
			while (*s != '\0' && !c_isspace((unsigned char)*s) &&
			       *s != ':' && *s != '(' && *s != ',' &&
			       *s != '|' && *s != '[' && *s != '<')
				s++;
			tmp = strndup(start, (size_t)(s - start));
			if (tmp == NULL) {
				zd_err(err, ZD_E_NOMEM, "out of memory");
				goto fail;
			}
			if (zd_pkginfo_check_name(tmp, &nerr) < 0 ||
			    strchr(tmp, '_') != NULL) {
				free(tmp);
				unsupported(err, field, "bad package name");
				goto fail;
			}
			if (!first_alt)
				fputs(" | ", b.f);
			first_alt = false;
			for (char *p = tmp; *p != '\0'; p++)
				*p = (char)c_tolower((unsigned char)*p);
			fputs(tmp, b.f);
			free(tmp);
			if (*s == ':') {
				start = ++s;
				while (*s != '\0' &&
				       !c_isspace((unsigned char)*s) &&
				       *s != '(' && *s != ',' && *s != '|' &&
				       *s != '[' && *s != '<')
					s++;
				tmp = strndup(start, (size_t)(s - start));
				if (tmp == NULL) {
					zd_err(err, ZD_E_NOMEM,
					       "out of memory");
					goto fail;
				}
				if (zd_pkginfo_check_arch(tmp, &nerr) < 0) {
					free(tmp);
					unsupported(err, field,
					            "bad architecture qualifier");
					goto fail;
				}
				fprintf(b.f, ":%s", tmp);
				free(tmp);
			}
			while (c_isspace((unsigned char)*s))
				s++;
			if (*s == '(') {
				const char *op;
				struct zd_version v = { 0, NULL, "" };

				s++;
				while (c_isspace((unsigned char)*s))
					s++;
				if (strncmp(s, "<<", 2) == 0 ||
				    strncmp(s, "<=", 2) == 0 ||
				    strncmp(s, ">=", 2) == 0 ||
				    strncmp(s, ">>", 2) == 0) {
					op = s;
					s += 2;
				} else if (*s == '=') {
					op = "=";
					s++;
				} else {
					unsupported(err, field, "relation");
					goto fail;
				}
				if (type == DEP_PROVIDES && *op != '=') {
					unsupported(err, field, "relation");
					goto fail;
				}
				while (c_isspace((unsigned char)*s))
					s++;
				start = s;
				while (*s != '\0' && *s != ')' && *s != '(' &&
				       !c_isspace((unsigned char)*s))
					s++;
				tmp = strndup(start, (size_t)(s - start));
				if (tmp == NULL) {
					zd_err(err, ZD_E_NOMEM,
					       "out of memory");
					goto fail;
				}
				while (c_isspace((unsigned char)*s))
					s++;
				if (*s != ')' || zd_version_parse(tmp, &v,
				                               err) < 0) {
					zd_version_free(&v);
					free(tmp);
					unsupported(err, field, "version");
					goto fail;
				}
				free(tmp);
				s++;
				fprintf(b.f, " (%.*s ", *op == '=' ? 1 : 2, op);
				zd_version_print(b.f, &v);
				fputc(')', b.f);
				zd_version_free(&v);
				while (c_isspace((unsigned char)*s))
					s++;
			}
			if (*s == '|') {
				if (type == DEP_PROVIDES ||
				    type == DEP_REPLACES ||
				    type == DEP_BREAKS ||
				    type == DEP_CONFLICTS) {
					unsupported(err, field,
					            "alternatives");
					goto fail;
				}
				s++;
				continue;
			}
			break;
		}
		if (*s == ',') {
			s++;
			continue;
		}
		if (*s != '\0') {
			unsupported(err, field, "syntax");
			goto fail;
		}
		break;
	}
	bad = ferror(b.f) != 0;
	if (fclose(b.f) != 0 || bad) {
		free(b.p);
		zd_err(err, ZD_E_NOMEM, "out of memory");
		return NULL;
	}
	return b.p;
fail:
	fclose(b.f);
	free(b.p);
	return NULL;
}

const char *
zd_pkginfo_native_arch(void)
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

void
zd_pkginfo_free(struct zd_pkginfo *pi)
{
	free(pi->name);
	free(pi->version);
	free(pi->priority);
	for (size_t i = 0; i < sizeof(pi->deps) / sizeof(pi->deps[0]); i++)
		free(pi->deps[i]);
	memset(pi, 0, sizeof(*pi));
}

/* unsupported(), freeing what zd_pkginfo_load() has filled so far. */
static int
load_unsupported(struct zd_pkginfo *pi, struct zd_error *err,
                 const char *field, const char *why)
{
	unsupported(err, field, why);
	zd_pkginfo_free(pi);
	return -1;
}

int
zd_pkginfo_load(const struct zd_control *ctl, const char *native_arch,
                struct zd_pkginfo *pi, struct zd_error *err)
{
	static const char *const required[] = {
		"Package", "Version", "Maintainer", "Description",
		"Architecture",
	};
	struct zd_error nerr = ZD_ERROR_INIT;

	memset(pi, 0, sizeof(*pi));
	pi->ctl = ctl;
	for (size_t i = 0; i < sizeof(required) / sizeof(required[0]); i++)
		if (zd_control_get(ctl, required[i]) == NULL)
			return load_unsupported(pi, err,
			                        required[i], "missing");
	for (size_t i = 0; i < ctl->n; i++) {
		const struct zd_field *fl = &ctl->fields[i];
		struct fieldinfo fis, *fi = &fis;
		const char *v = fl->value;
		int k;

		if (!find_field(fl->name, fi))
			continue;
		if (*v == '\0')
			return load_unsupported(pi, err,
			                        fi->name, "empty value");
		switch (fi->kind) {
		case K_NAME:
			if (zd_pkginfo_check_name(v, &nerr) < 0)
				return load_unsupported(pi, err,
				                        fi->name, nerr.msg);
			pi->name = strdup(v);
			if (pi->name == NULL)
				goto nomem;
			for (char *p = pi->name; *p != '\0'; p++)
				*p = (char)c_tolower((unsigned char)*p);
			break;
		case K_VERSION:
			pi->version = normalize_version(v, err);
			if (pi->version == NULL)
				goto fail;
			break;
		case K_BOOL:
			k = parse_nv(v, (const char *const[]){ "no", "yes" },
			             2);
			if (k < 0)
				return load_unsupported(pi, err,
				                        fi->name, "value");
			if (fi->arg == 0)
				pi->essential = k == 1;
			else
				pi->protected_ = k == 1;
			break;
		case K_MULTIARCH:
			k = parse_nv(v, multiarch_names, 4);
			if (k < 0)
				return load_unsupported(pi, err,
				                        fi->name, "value");
			pi->multiarch = k;
			break;
		case K_PRIORITY:
			k = parse_nv(v, priority_names, 6);
			if (k == -2)
				return load_unsupported(pi, err,
				                        fi->name, "value");
			if (k == 5)
				break;	/* "unknown": printed as nothing */
			pi->priority = strdup(k >= 0 ? priority_names[k] : v);
			if (pi->priority == NULL)
				goto nomem;
			break;
		case K_ARCH:
			if (zd_pkginfo_check_arch(v, &nerr) < 0 ||
			    strstr(v, "any") != NULL)
				return load_unsupported(pi, err,
				                        fi->name, "value");
			pi->arch = v;
			pi->arch_foreign = strcmp(v, "all") != 0 &&
			                   (native_arch == NULL ||
			                    strcmp(v, native_arch) != 0);
			break;
		case K_DEP:
			pi->deps[fi->arg] = normalize_deps(fi->name, fi->arg,
			                                   v, err);
			if (pi->deps[fi->arg] == NULL)
				goto fail;
			break;
		case K_OBSOLETE:
		case K_STATUSONLY:
			return load_unsupported(pi, err,
			                        fi->name, "not modelled");
		case K_NOTHING:
		case K_SECTION:
		case K_CHAR:
		case K_ARCHIVES:
			break;
		}
	}
	if (pi->multiarch == 1 && strcmp(pi->arch, "all") == 0)
		return load_unsupported(pi, err, "Multi-Arch", "same with all");
	if (native_arch == NULL)
		return load_unsupported(pi, err,
		                        "Architecture", "unknown native");
	return 0;
nomem:
	zd_err(err, ZD_E_NOMEM, "out of memory");
fail:
	zd_pkginfo_free(pi);
	return -1;
}

/* dpkg's w_*() writer of fi into b. */
static void
write_field(FILE *f, const struct zd_pkginfo *pi,
            const struct fieldinfo *fi, bool header)
{
	const char *v = NULL;
	const char *hname = fi->name;

	switch (fi->kind) {
	case K_NAME:
		v = pi->name;
		break;
	case K_VERSION:
		v = pi->version;
		break;
	case K_BOOL:
		if (header && !(fi->arg ? pi->protected_ : pi->essential))
			return;
		v = (fi->arg ? pi->protected_ : pi->essential) ? "yes" : "no";
		break;
	case K_MULTIARCH:
		if (header && pi->multiarch == 0)
			return;
		v = multiarch_names[pi->multiarch];
		break;
	case K_PRIORITY:
		v = pi->priority;
		break;
	case K_ARCH:
		v = pi->arch;
		break;
	case K_DEP:
		v = pi->deps[fi->arg];
		break;
	case K_SECTION:
	case K_CHAR:
		v = zd_control_get(pi->ctl, fi->name);
		break;
	case K_NOTHING:
	case K_ARCHIVES:
	case K_OBSOLETE:
	case K_STATUSONLY:
		return;
	}
	if (v == NULL || *v == '\0')
		return;
	if (header)
		fprintf(f, "%s: %s\n", hname, v);
	else
		fputs(v, f);
}

int
zd_pkginfo_write_known(FILE *f, const struct zd_pkginfo *pi, const char *name,
                       bool header)
{
	struct fieldinfo fi;

	if (!find_field(name, &fi))
		return 1;
	write_field(f, pi, &fi, header);
	return 0;
}

const struct zd_field *
zd_pkginfo_arbitrary(const struct zd_pkginfo *pi, const char *name)
{
	for (size_t i = 0; i < pi->ctl->n; i++)
		if (strcasecmp(pi->ctl->fields[i].name, name) == 0)
			return &pi->ctl->fields[i];
	return NULL;
}

void
zd_pkginfo_field(FILE *f, const struct zd_pkginfo *pi, const char *name,
                 bool header)
{
	const struct zd_field *fl;

	if (zd_pkginfo_write_known(f, pi, name, header) == 0)
		return;
	fl = zd_pkginfo_arbitrary(pi, name);
	if (fl == NULL)
		return;
	if (header)
		fprintf(f, "%s: %s\n", fl->name, fl->value);
	else
		fputs(fl->value, f);
}
