/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dpkg-pkginfo.h - dpkg's binary package model: a control stanza as
 * dpkg-deb's parser reads it, and its field writers
 *
 * dpkg 1.21.22's parse of a binary control file (lib/dpkg/parse.c
 * parsedb() with pdb_parse_binary, the field parsers of lib/dpkg/fields.c,
 * pkg_parse_verify) with every warning and error it gives, in its order and
 * wording ("parsing file 'F' near line N package 'P':\n MSG"), and the
 * writers of lib/dpkg/dump.c that dpkg-deb -f uses: a lowercased package
 * name, normalized versions and relations, "yes"/"no" booleans, the
 * obsolete fields mapped to their modern ones, user-defined fields as
 * written.  Only the "available" view of a package is modelled (what a .deb
 * holds), so status fields print nothing.
 */
#ifndef ZDEB_DPKG_PKGINFO_H
#define ZDEB_DPKG_PKGINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "lib/dpkg-control.h"
#include "lib/error.h"

/* A version as dpkg's parseversion() splits it. */
struct zd_version {
	unsigned epoch;
	char *version;		/* malloc'd upstream part, or NULL: none */
	char *revision;		/* malloc'd, or NULL: "" */
};

/*
 * dpkg's parseversion() (lib/dpkg/parsehelp.c), strict as dpkg-deb's
 * parser is: every problem fails.  Free v with zd_dpkg_version_free, also after
 * a failure.  Returns 0, or -1 with err set: ZD_E_FORMAT with dpkg's
 * reason as the whole message ("version string is empty", "version string
 * has embedded spaces", "epoch in version is empty", "epoch in version is
 * not number", "epoch in version is negative", "epoch in version is too
 * big", "nothing after colon in version number", "revision number is
 * empty", "version number is empty", "version number does not start with
 * digit", "invalid character in version number", "invalid character in
 * revision number"); ZD_E_NOMEM.
 */
int zd_dpkg_version_parse(const char *s, struct zd_version *v,
                     struct zd_error *err);
void zd_dpkg_version_free(struct zd_version *v);
/* dpkg's varbufversion() into f: the epoch when it is not 0 or a colon
 * would make the rest ambiguous (vdew_nonambig), unless never_epoch. */
void zd_dpkg_version_print(FILE *f, const struct zd_version *v,
                           bool never_epoch);

/*
 * dpkg's package name rule (pkg_name_is_illegal): letters, digits and
 * "-+._", starting with a letter or digit (uppercase passes: dpkg
 * lowercases the name).  Returns 0, or -1 with err set (ZD_E_FORMAT) to
 * dpkg's reason: "may not be empty string", "must start with an
 * alphanumeric character", "character 'C' not allowed (only letters,
 * digits and characters '-+._')".
 */
int zd_dpkg_pkginfo_check_name(const char *name, struct zd_error *err);
/*
 * dpkg's architecture name rule (dpkg_arch_name_is_illegal).  Returns 0,
 * or -1 with err set (ZD_E_FORMAT) to dpkg's reason: "may not be empty
 * string", "must start with an alphanumeric", "character 'C' not allowed
 * (only letters, digits and characters '-')".
 */
int zd_dpkg_pkginfo_check_arch(const char *name, struct zd_error *err);

/* dpkg's architecture types (lib/dpkg/arch.h). */
enum zd_arch_type {
	ZD_ARCH_NONE,		/* no Architecture field */
	ZD_ARCH_EMPTY,		/* an empty one */
	ZD_ARCH_ILLEGAL,	/* a name dpkg_arch_name_is_illegal() refuses */
	ZD_ARCH_WILDCARD,	/* "any" */
	ZD_ARCH_ALL,		/* "all" */
	ZD_ARCH_NATIVE,		/* the architecture dpkg was built for */
	ZD_ARCH_UNKNOWN,	/* any other valid name: foreign to dpkg-deb */
};

struct zd_arch {
	const char *name;	/* "" for NONE and EMPTY */
	enum zd_arch_type type;
};

enum zd_multiarch {
	ZD_MULTIARCH_NO, ZD_MULTIARCH_SAME, ZD_MULTIARCH_ALLOWED,
	ZD_MULTIARCH_FOREIGN,
};

enum zd_priority {
	ZD_PRIO_REQUIRED, ZD_PRIO_IMPORTANT, ZD_PRIO_STANDARD,
	ZD_PRIO_OPTIONAL, ZD_PRIO_EXTRA,
	ZD_PRIO_UNKNOWN,	/* none: printed as nothing */
	ZD_PRIO_OTHER,		/* user-defined: otherpriority */
};

/* dpkg's enum dpkg_relation: bits. */
enum {
	ZD_REL_NONE = 0, ZD_REL_EQ = 1, ZD_REL_LT = 2, ZD_REL_GT = 4,
	ZD_REL_LE = ZD_REL_LT | ZD_REL_EQ, ZD_REL_GE = ZD_REL_GT | ZD_REL_EQ,
};

/* One alternative of a relation ("foo:any (>= 1.0)"). */
struct zd_dep_alt {
	char *name;		/* lowercased, as dpkg's package sets */
	char *arch;		/* an explicit ":ARCH" as written, or NULL */
	int rel;		/* ZD_REL_* */
	struct zd_version version;
};

/* One entry of a relation field: alternatives joined by '|'. */
struct zd_dep {
	enum zd_field_id field;	/* ZD_FIELD_DEPENDS ...; Recommended and
				 * Optional give RECOMMENDS, SUGGESTS */
	struct zd_dep_alt *alt;
	size_t n;
};

/* A binary package as dpkg-deb's parser leaves it. */
struct zd_pkginfo {
	const struct zd_control *ctl;	/* borrowed: the stanza */
	char *name;			/* lowercased Package */
	struct zd_version version;
	struct zd_arch arch;
	enum zd_multiarch multiarch;
	bool essential, is_protected;
	enum zd_priority priority;
	const char *otherpriority;	/* ZD_PRIO_OTHER's word */
	/* Non-empty values as written (borrowed from ctl), else NULL;
	 * description is "" when the field is missing, as dpkg leaves it. */
	const char *section, *installed_size, *origin, *maintainer, *bugs,
	           *source, *description;
	struct zd_dep *deps;		/* in field order */
	size_t ndeps;
	size_t narchives;		/* words in Filename, Size, ... */
	unsigned warnings;		/* warnings the parse gave */
	char *native_arch;		/* for the name's ":ARCH" qualifier */
};

struct zd_pkginfo_opts {
	/* The file, as dpkg names it in messages ("DIR/DEBIAN/control"). */
	const char *file;
	/* dpkg's build architecture (zd_dpkg_pkginfo_native_arch()), or
	 * NULL. */
	const char *native_arch;
	/* dpkg's warnings, their whole text ("parsing file 'F' near line N
	 * package 'P':\n obsolete 'Class' field used"); may be NULL. */
	zd_warn_fn warn;
	void *warn_ctx;
	/* A warning is an error, with the same text (zdeb build). */
	bool strict;
};

/*
 * Parses the control stanza in buf as dpkg-deb does (parsedb() with
 * pdb_parse_binary), into ctl (the fields as written) and pi (dpkg's
 * model, pointing into ctl).  Warnings go to o->warn as dpkg gives them.
 * Free with zd_dpkg_pkginfo_free and zd_dpkg_control_free, also after a
 * failure.  Returns 0, or -1 with err set: ZD_E_FORMAT with dpkg's whole
 * message (cut to the size of err->msg), e.g. "parsing file 'F' near
 * line 3 package 'q':\n boolean (yes/no) 'Essential' field: has invalid
 * value 'maybe'", or "no package information in 'F'"; ZD_E_NOMEM.
 */
int zd_dpkg_pkginfo_parse(const char *buf, size_t len,
                     const struct zd_pkginfo_opts *o, struct zd_control *ctl,
                     struct zd_pkginfo *pi, struct zd_error *err);
/*
 * zd_dpkg_pkginfo_parse on the file o->file, read as dpkg's parsedb_load()
 * reads it.  Returns 0, or -1 with err set as zd_dpkg_pkginfo_parse, or ZD_E_IO
 * with dpkg's message: "failed to open package info file 'F' for reading:
 * ERR", "can't stat package info file 'F': ERR", "reading package info
 * file 'F': ERR".
 */
int zd_dpkg_pkginfo_parse_file(const struct zd_pkginfo_opts *o,
                          struct zd_control *ctl, struct zd_pkginfo *pi,
                          struct zd_error *err);
void zd_dpkg_pkginfo_free(struct zd_pkginfo *pi);

/*
 * Writes into f dpkg's name of the package: the name, with ":ARCH" when
 * dpkg would (pnaw_nonambig: Multi-Arch: same, or an architecture other
 * than the native one and "all").
 */
void zd_dpkg_pkginfo_print_name(FILE *f, const struct zd_pkginfo *pi);

/*
 * Writes into f what dpkg-deb -f prints for one requested field: with
 * header ("Name: value\n", or nothing when dpkg omits the field), else the
 * value alone without newline (nothing when absent).  Virtual fields
 * ("binary:Package") are not fields here, as in dpkg-deb -f.
 */
void zd_dpkg_pkginfo_field(FILE *f, const struct zd_pkginfo *pi,
                           const char *name, bool header);
/* As zd_dpkg_pkginfo_field for a field of dpkg's table; returns 1 (writing
 * nothing) when name is not one. */
int zd_dpkg_pkginfo_write_known(FILE *f, const struct zd_pkginfo *pi,
                           const char *name, bool header);
/* The user-defined field name of the stanza, or NULL. */
const struct zd_field *zd_dpkg_pkginfo_arbitrary(const struct zd_pkginfo *pi,
                                            const char *name);

/*
 * The native architecture dpkg would have been built for, from the
 * compiler's target macros ("amd64", "arm64", ...); NULL when unknown.
 */
const char *zd_dpkg_pkginfo_native_arch(void);

#endif
