/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dpkg-format.h - dpkg's --showformat language and its control-field writers
 *
 * What dpkg-deb -W and -f print for a binary package (dpkg 1.21.22:
 * lib/dpkg/pkg-format.c, lib/dpkg/dump.c, lib/dpkg/parse.c fieldinfos):
 * known fields are printed from dpkg's parsed form (a lowercased package
 * name, normalized versions and relations, "yes"/"no" booleans), other
 * fields as written.  Only the binary control stanza of a .deb is modelled
 * (dpkg's "available" view), so status fields print nothing.
 *
 * zd_pkginfo_load() accepts the controls whose dpkg parse is modelled here
 * exactly, and refuses with ZD_E_UNSUPPORTED the ones where dpkg would warn,
 * fail, or apply rules not written here (obsolete fields, source-only
 * relation syntax, ...): the caller then lets the real dpkg-deb print them.
 */
#ifndef ZDEB_DPKG_FORMAT_H
#define ZDEB_DPKG_FORMAT_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/dpkg-control.h"
#include "lib/error.h"

struct zd_pkgformat;

/*
 * Parses a --showformat string: "${Field}", "${Field;WIDTH}" (negative:
 * left-aligned, base as strtol(.., 0)), text with the escapes \n \t \r and
 * "\X" for any other X.  Returns the format, or NULL with err set
 * (ZD_E_USAGE) to dpkg's message: "missing closing brace", "invalid
 * character 'C' in field width", "field width is out of range", "may not
 * be empty string"; ZD_E_NOMEM.
 */
struct zd_pkgformat *zd_pkgformat_parse(const char *fmt,
                                        struct zd_error *err);
void zd_pkgformat_free(struct zd_pkgformat *f);

/* A binary package as dpkg-deb's parser sees it. */
struct zd_pkginfo {
	const struct zd_control *ctl;	/* borrowed */
	char *name;			/* lowercased Package */
	char *version;			/* normalized Version */
	const char *arch;		/* Architecture as written */
	bool arch_foreign;		/* not native, not "all" */
	int multiarch;			/* 0 no, 1 same, 2 allowed, 3 foreign */
	bool essential, protected_;
	char *priority;			/* canonical or as written; NULL */
	/* Normalized relation fields, indexed as in dpkg-format.c; NULL:
	 * absent. */
	char *deps[9];
};

/*
 * Builds pi from a parsed control stanza.  native_arch is dpkg's build
 * architecture ("amd64"), which decides binary:Package's ":ARCH" suffix.
 * Returns 0, or -1 with err set: ZD_E_UNSUPPORTED (with a reason) when dpkg
 * would print a warning or error for this stanza, or parse it with rules
 * this module does not model; ZD_E_NOMEM.  Free with zd_pkginfo_free.
 */
int zd_pkginfo_load(const struct zd_control *ctl, const char *native_arch,
                    struct zd_pkginfo *pi, struct zd_error *err);
void zd_pkginfo_free(struct zd_pkginfo *pi);

/*
 * Renders f for pi (dpkg's pkg_format_print).  Returns a malloc'd string,
 * or NULL with err set (ZD_E_NOMEM, or ZD_E_UNSUPPORTED for a
 * source:Version this module cannot normalize).
 */
char *zd_pkgformat_print(const struct zd_pkgformat *f,
                         const struct zd_pkginfo *pi, struct zd_error *err);

/*
 * What dpkg-deb -f prints for one requested field: with header
 * ("Name: value\n", or "" when dpkg omits the field), else the value alone
 * without newline ("" when absent).  Virtual fields ("binary:Package") are
 * not fields here, as in dpkg-deb -f.  Returns a malloc'd string, or NULL
 * with err set (ZD_E_NOMEM).
 */
char *zd_pkgformat_field(const struct zd_pkginfo *pi, const char *name,
                         bool header, struct zd_error *err);

/*
 * The native architecture dpkg would have been built for, from the
 * compiler's target macros ("amd64", "arm64", ...); NULL when unknown.
 */
const char *zd_pkgformat_native_arch(void);

#endif
