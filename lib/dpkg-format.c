/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dpkg-format.c - dpkg's --showformat language and its control-field writers
 *
 * The format parser is dpkg's pkg_format_parse() (lib/dpkg/pkg-format.c,
 * 1.21.22), the writers are its w_*() functions (lib/dpkg/dump.c) applied to
 * the "available" half of a package parsed with pdb_parse_binary.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/c-ctype.h"
#include "lib/dpkg-check.h"
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
zd_pkgformat_free(struct zd_pkgformat *f)
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
zd_pkgformat_parse(const char *fmt, struct zd_error *err)
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
			p = realloc(f->nodes, cap * sizeof(*p));
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
	zd_pkgformat_free(f);
	return NULL;
}

/* --- dpkg's fields ------------------------------------------------- */

enum kind {
	K_NAME, K_BOOL, K_NOTHING, K_PRIORITY, K_SECTION, K_CHAR, K_ARCH,
	K_MULTIARCH, K_VERSION, K_DEP, K_ARCHIVES, K_OBSOLETE, K_STATUSONLY,
};

enum {
	DEP_REPLACES, DEP_PROVIDES, DEP_DEPENDS, DEP_PREDEPENDS,
	DEP_RECOMMENDS, DEP_SUGGESTS, DEP_BREAKS, DEP_CONFLICTS,
	DEP_ENHANCES,
};

struct fieldinfo {
	const char *name;
	enum kind kind;
	int arg;
};

/* dpkg's fieldinfos[], in its order. */
static const struct fieldinfo fieldinfos[] = {
	{ "Package", K_NAME, 0 },
	{ "Essential", K_BOOL, 0 },
	{ "Protected", K_BOOL, 1 },
	{ "Status", K_STATUSONLY, 0 },
	{ "Priority", K_PRIORITY, 0 },
	{ "Section", K_SECTION, 0 },
	{ "Installed-Size", K_CHAR, 0 },
	{ "Origin", K_CHAR, 0 },
	{ "Maintainer", K_CHAR, 0 },
	{ "Bugs", K_CHAR, 0 },
	{ "Architecture", K_ARCH, 0 },
	{ "Multi-Arch", K_MULTIARCH, 0 },
	{ "Source", K_CHAR, 0 },
	{ "Version", K_VERSION, 0 },
	{ "Config-Version", K_STATUSONLY, 0 },
	{ "Replaces", K_DEP, 0 },
	{ "Provides", K_DEP, 1 },
	{ "Depends", K_DEP, 2 },
	{ "Pre-Depends", K_DEP, 3 },
	{ "Recommends", K_DEP, 4 },
	{ "Suggests", K_DEP, 5 },
	{ "Breaks", K_DEP, 6 },
	{ "Conflicts", K_DEP, 7 },
	{ "Enhances", K_DEP, 8 },
	{ "Conffiles", K_STATUSONLY, 0 },
	{ "Filename", K_ARCHIVES, 0 },
	{ "Size", K_ARCHIVES, 0 },
	{ "MD5sum", K_ARCHIVES, 0 },
	{ "MSDOS-Filename", K_ARCHIVES, 0 },
	{ "Description", K_CHAR, 0 },
	{ "Triggers-Pending", K_STATUSONLY, 0 },
	{ "Triggers-Awaited", K_STATUSONLY, 0 },
	{ "Recommended", K_OBSOLETE, 0 },
	{ "Optional", K_OBSOLETE, 0 },
	{ "Class", K_OBSOLETE, 0 },
	{ "Revision", K_OBSOLETE, 0 },
	{ "Package-Revision", K_OBSOLETE, 0 },
	{ "Package_Revision", K_OBSOLETE, 0 },
};

#define N_FIELDINFOS (sizeof(fieldinfos) / sizeof(fieldinfos[0]))
_Static_assert(DEP_ENHANCES + 1 ==
               sizeof(((struct zd_pkginfo *)0)->deps) / sizeof(char *),
               "one slot per relation field");

static const struct fieldinfo *
find_field(const char *name)
{
	for (size_t i = 0; i < N_FIELDINFOS; i++)
		if (strcasecmp(name, fieldinfos[i].name) == 0)
			return &fieldinfos[i];
	return NULL;
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

/* The parts of a version, as dpkg's parseversion() splits it. */
struct version {
	unsigned long epoch;
	char *upstream;		/* malloc'd */
	const char *revision;	/* inside upstream's allocation, or "" */
};

static int
split_version(const char *s, struct version *v, struct zd_error *err)
{
	struct zd_error verr = ZD_ERROR_INIT;
	const char *colon;
	char *dash;

	if (zd_pkgcheck_version(s, &verr) < 0)
		return zd_err(err, ZD_E_UNSUPPORTED, "%s", verr.msg);
	while (c_isspace((unsigned char)*s))
		s++;
	v->epoch = 0;
	colon = strchr(s, ':');
	if (colon != NULL) {
		v->epoch = strtoul(s, NULL, 10);
		s = colon + 1;
	}
	v->upstream = strdup(s);
	if (v->upstream == NULL)
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	for (size_t l = strlen(v->upstream);
	     l > 0 && c_isspace((unsigned char)v->upstream[l - 1]); l--)
		v->upstream[l - 1] = '\0';
	dash = strrchr(v->upstream, '-');
	v->revision = "";
	if (dash != NULL) {
		*dash = '\0';
		v->revision = dash + 1;
	}
	return 0;
}

/* dpkg's varbufversion(..., vdew_nonambig). */
static void
put_version(FILE *f, const struct version *v)
{
	if (v->epoch > 0)
		fprintf(f, "%lu:", v->epoch);
	fputs(v->upstream, f);
	if (*v->revision != '\0')
		fprintf(f, "-%s", v->revision);
}

static char *
normalize_version(const char *s, struct zd_error *err)
{
	struct version v;
	struct membuf b;

	if (split_version(s, &v, err) < 0)
		return NULL;
	if (mb_open(&b, err) < 0) {
		free(v.upstream);
		return NULL;
	}
	put_version(b.f, &v);
	free(v.upstream);
	return mb_close(&b, err);
}

/* dpkg_arch_name_is_illegal() == NULL. */
static bool
arch_name_ok(const char *p, size_t len)
{
	if (len == 0 || !c_isalnum((unsigned char)p[0]))
		return false;
	for (size_t i = 1; i < len; i++)
		if (!c_isalnum((unsigned char)p[i]) && p[i] != '-')
			return false;
	return true;
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
	struct membuf b;
	bool first_entry = true;

	if (mb_open(&b, err) < 0)
		return NULL;
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
			if (zd_pkgcheck_name(tmp, &nerr) < 0 ||
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
				if (!arch_name_ok(start, (size_t)(s - start))) {
					unsupported(err, field,
					            "bad architecture qualifier");
					goto fail;
				}
				fprintf(b.f, ":%.*s", (int)(s - start), start);
			}
			while (c_isspace((unsigned char)*s))
				s++;
			if (*s == '(') {
				const char *op;
				struct version v;

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
				if (*s != ')' || split_version(tmp, &v,
				                               err) < 0) {
					free(tmp);
					unsupported(err, field, "version");
					goto fail;
				}
				free(tmp);
				s++;
				fprintf(b.f, " (%.*s ", *op == '=' ? 1 : 2, op);
				put_version(b.f, &v);
				fputc(')', b.f);
				free(v.upstream);
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
	return mb_close(&b, err);
fail:
	fclose(b.f);
	free(b.p);
	return NULL;
}

const char *
zd_pkgformat_native_arch(void)
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
		const struct fieldinfo *fi = find_field(fl->name);
		const char *v = fl->value;
		int k;

		if (fi == NULL)
			continue;
		if (*v == '\0')
			return load_unsupported(pi, err,
			                        fi->name, "empty value");
		switch (fi->kind) {
		case K_NAME:
			if (zd_pkgcheck_name(v, &nerr) < 0)
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
			if (!arch_name_ok(v, strlen(v)) ||
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

char *
zd_pkgformat_field(const struct zd_pkginfo *pi, const char *name,
                   bool header, struct zd_error *err)
{
	const struct fieldinfo *fi = find_field(name);
	struct membuf b;

	if (mb_open(&b, err) < 0)
		return NULL;
	if (fi != NULL) {
		write_field(b.f, pi, fi, header);
	} else {
		for (size_t i = 0; i < pi->ctl->n; i++) {
			const struct zd_field *fl = &pi->ctl->fields[i];

			if (strcasecmp(fl->name, name) != 0)
				continue;
			if (header)
				fprintf(b.f, "%s: %s\n", fl->name, fl->value);
			else
				fputs(fl->value, b.f);
			break;
		}
	}
	return mb_close(&b, err);
}

/* The virtual fields of dpkg's virtinfos[] that a .deb can give. */
static int
write_virtual(FILE *f, const struct zd_pkginfo *pi, const char *name,
              struct zd_error *err)
{
	const char *src = zd_control_get(pi->ctl, "Source");

	if (strcasecmp(name, "binary:Package") == 0) {
		fputs(pi->name, f);
		if (pi->multiarch == 1 || pi->arch_foreign)
			fprintf(f, ":%s", pi->arch);
	} else if (strcasecmp(name, "binary:Synopsis") == 0 ||
	           strcasecmp(name, "binary:Summary") == 0) {
		const char *d = zd_control_get(pi->ctl, "Description");

		fprintf(f, "%.*s", (int)strcspn(d, "\n"), d);
	} else if (strcasecmp(name, "db:Status-Abbrev") == 0 ||
	           strcasecmp(name, "db:Status-Want") == 0 ||
	           strcasecmp(name, "db:Status-Status") == 0 ||
	           strcasecmp(name, "db:Status-Eflag") == 0 ||
	           strcasecmp(name, "db-fsys:Files") == 0 ||
	           strcasecmp(name, "db-fsys:Last-Modified") == 0) {
		/* Nothing for a package that is not installed. */
	} else if (strcasecmp(name, "source:Package") == 0) {
		const char *s = src != NULL ? src : pi->name;

		fprintf(f, "%.*s", (int)strcspn(s, " "), s);
	} else if (strcasecmp(name, "source:Version") == 0 ||
	           strcasecmp(name, "source:Upstream-Version") == 0) {
		bool upstream = strcasecmp(name, "source:Version") != 0;
		const char *paren = src != NULL ? strchr(src, '(') : NULL;
		struct version v;
		char *tmp;

		tmp = paren != NULL ?
		      strndup(paren + 1, strcspn(paren + 1, ")")) :
		      strdup(pi->version);
		if (tmp == NULL)
			return zd_err(err, ZD_E_NOMEM, "out of memory");
		if (split_version(tmp, &v, err) < 0) {
			free(tmp);
			return -1;
		}
		free(tmp);
		if (upstream)
			fputs(v.upstream, f);
		else
			put_version(f, &v);
		free(v.upstream);
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
	const struct fieldinfo *fi;
	int rc;

	if (!node->field) {
		fputs(node->data, f);
		return 0;
	}
	fi = find_field(node->data);
	if (fi != NULL) {
		write_field(f, pi, fi, false);
		return 0;
	}
	rc = write_virtual(f, pi, node->data, err);
	if (rc <= 0)
		return rc;
	for (size_t j = 0; j < pi->ctl->n; j++) {
		if (strcasecmp(pi->ctl->fields[j].name, node->data) == 0) {
			fputs(pi->ctl->fields[j].value, f);
			return 0;
		}
	}
	return 1;
}

char *
zd_pkgformat_print(const struct zd_pkgformat *f, const struct zd_pkginfo *pi,
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
