/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dpkg-pkginfo.h - dpkg's binary package model: a control stanza as
 * dpkg-deb's parser reads it, and its field writers
 *
 * What dpkg-deb -f prints for a binary package (dpkg 1.21.22:
 * lib/dpkg/parse.c fieldinfos, lib/dpkg/fields.c, lib/dpkg/dump.c): known
 * fields are printed from dpkg's parsed form (a lowercased package name,
 * normalized versions and relations, "yes"/"no" booleans), other fields as
 * written.  Only the binary control stanza of a .deb is modelled (dpkg's
 * "available" view), so status fields print nothing.
 *
 * zd_pkginfo_load() accepts the controls whose dpkg parse is modelled here
 * exactly, and refuses with ZD_E_UNSUPPORTED the ones where dpkg would warn,
 * fail, or apply rules not written here (obsolete fields, source-only
 * relation syntax, ...): the caller then lets the real dpkg-deb print them.
 */
#ifndef ZDEB_DPKG_PKGINFO_H
#define ZDEB_DPKG_PKGINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "lib/dpkg-control.h"
#include "lib/error.h"

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
	/* Normalized relation fields, indexed as in dpkg-pkginfo.c; NULL:
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
 * Writes into f what dpkg-deb -f prints for one requested field: with
 * header ("Name: value\n", or nothing when dpkg omits the field), else the
 * value alone without newline (nothing when absent).  Virtual fields
 * ("binary:Package") are not fields here, as in dpkg-deb -f.
 */
void zd_pkginfo_field(FILE *f, const struct zd_pkginfo *pi, const char *name,
                      bool header);
/* As zd_pkginfo_field for a field of dpkg's table; returns 1 (writing
 * nothing) when name is not one. */
int zd_pkginfo_write_known(FILE *f, const struct zd_pkginfo *pi,
                           const char *name, bool header);
/* The user-defined (or unknown) field name of the stanza, or NULL. */
const struct zd_field *zd_pkginfo_arbitrary(const struct zd_pkginfo *pi,
                                            const char *name);

/* A version as dpkg's parseversion() splits it. */
struct zd_version {
	unsigned epoch;
	char *version;		/* malloc'd: the upstream part */
	const char *revision;	/* inside version's allocation, or "" */
};

/*
 * dpkg's parseversion() (lib/dpkg/parsehelp.c), strict as dpkg-deb's
 * parser is: every problem fails.  Free v with zd_version_free, also after
 * a failure.  Returns 0, or -1 with err set: ZD_E_FORMAT with dpkg's
 * reason as the whole message ("version string is empty", "version string
 * has embedded spaces", "epoch in version is empty", "epoch in version is
 * not number", "epoch in version is negative", "epoch in version is too
 * big", "nothing after colon in version number", "revision number is
 * empty", "version number is empty", "version number does not start with
 * digit", "invalid character in version number", "invalid character in
 * revision number"); ZD_E_NOMEM.
 */
int zd_version_parse(const char *s, struct zd_version *v,
                     struct zd_error *err);
void zd_version_free(struct zd_version *v);
/* dpkg's varbufversion(..., vdew_nonambig) into f. */
void zd_version_print(FILE *f, const struct zd_version *v);

/*
 * dpkg's package name rule (pkg_name_is_illegal): letters, digits and
 * "-+._", starting with a letter or digit (uppercase passes: dpkg
 * lowercases the name).  Returns 0, or -1 with err set (ZD_E_FORMAT) to
 * dpkg's reason: "may not be empty string", "must start with an
 * alphanumeric character", "character 'C' not allowed (only letters,
 * digits and characters '-+._')".
 */
int zd_pkginfo_check_name(const char *name, struct zd_error *err);
/*
 * dpkg's architecture name rule (dpkg_arch_name_is_illegal).  Returns 0,
 * or -1 with err set (ZD_E_FORMAT) to dpkg's reason: "may not be empty
 * string", "must start with an alphanumeric", "character 'C' not allowed
 * (only letters, digits and characters '-')".
 */
int zd_pkginfo_check_arch(const char *name, struct zd_error *err);

/*
 * The native architecture dpkg would have been built for, from the
 * compiler's target macros ("amd64", "arm64", ...); NULL when unknown.
 */
const char *zd_pkginfo_native_arch(void);

#endif
