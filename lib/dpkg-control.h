/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dpkg-control.h - deb822 control paragraphs: parse, look up, keep the order
 *
 * The parser follows dpkg's parse_stanza() (lib/dpkg/parse.c, 1.21.22) with
 * dpkg-deb's flags (pdb_parse_binary: strict, single stanza), and keeps each
 * value as the raw bytes dpkg keeps, so that the CLI can print them back
 * byte-identical to dpkg-deb -f.
 */
#ifndef ZDEB_DPKG_CONTROL_H
#define ZDEB_DPKG_CONTROL_H

#include <stddef.h>

#include "lib/error.h"

/*
 * dpkg's own fields, in the order of its fieldinfos[] (lib/dpkg/parse.c,
 * 1.21.22), the last six being the obsolete ones it maps to modern fields.
 * Other names are user-defined fields (ZD_FIELD_USER).
 */
enum zd_field_id {
	ZD_FIELD_USER = -1,
	ZD_FIELD_PACKAGE,
	ZD_FIELD_ESSENTIAL,
	ZD_FIELD_PROTECTED,
	ZD_FIELD_STATUS,
	ZD_FIELD_PRIORITY,
	ZD_FIELD_SECTION,
	ZD_FIELD_INSTALLED_SIZE,
	ZD_FIELD_ORIGIN,
	ZD_FIELD_MAINTAINER,
	ZD_FIELD_BUGS,
	ZD_FIELD_ARCHITECTURE,
	ZD_FIELD_MULTI_ARCH,
	ZD_FIELD_SOURCE,
	ZD_FIELD_VERSION,
	ZD_FIELD_CONFIG_VERSION,
	ZD_FIELD_REPLACES,
	ZD_FIELD_PROVIDES,
	ZD_FIELD_DEPENDS,
	ZD_FIELD_PRE_DEPENDS,
	ZD_FIELD_RECOMMENDS,
	ZD_FIELD_SUGGESTS,
	ZD_FIELD_BREAKS,
	ZD_FIELD_CONFLICTS,
	ZD_FIELD_ENHANCES,
	ZD_FIELD_CONFFILES,
	ZD_FIELD_FILENAME,
	ZD_FIELD_SIZE,
	ZD_FIELD_MD5SUM,
	ZD_FIELD_MSDOS_FILENAME,
	ZD_FIELD_DESCRIPTION,
	ZD_FIELD_TRIGGERS_PENDING,
	ZD_FIELD_TRIGGERS_AWAITED,
	ZD_FIELD_RECOMMENDED,
	ZD_FIELD_OPTIONAL,
	ZD_FIELD_CLASS,
	ZD_FIELD_REVISION,
	ZD_FIELD_PACKAGE_REVISION,	/* "Package-Revision" */
	ZD_FIELD_PACKAGE_REVISION_,	/* "Package_Revision" */
	ZD_FIELD__COUNT
};

/* The canonical spelling of a dpkg field ("Multi-Arch"). */
const char *zd_dpkg_control_field_name(enum zd_field_id id);
/* The dpkg field named name[0, len), compared case-insensitively as dpkg
 * does, or ZD_FIELD_USER. */
enum zd_field_id zd_dpkg_control_field_find(const char *name, size_t len);

struct zd_field {
	char *name;	/* as written ("Package") */
	enum zd_field_id id;	/* which dpkg field, or ZD_FIELD_USER */
	/*
	 * As dpkg stores it: the bytes from the first non-blank character
	 * after the ':' (or the newline ending the first line, when that
	 * line has no value, so "Description:\n text" gives "\n text") up
	 * to the end of the last continuation line, with trailing
	 * whitespace (spaces, tabs, '\r', '\n') trimmed.  Continuation
	 * lines are kept verbatim, leading space included, joined by '\n'.
	 */
	char *value;
	unsigned line;	/* 1-based line number of the field name */
	/* dpkg's line count when it hands the field on (the line the value
	 * ends on): its "near line N". */
	int lno;
};

struct zd_control {
	struct zd_field *fields;	/* in file order */
	size_t n;
};

/* What zd_dpkg_control_parse_dpkg calls as it goes, as dpkg's parser does. */
struct zd_control_cb {
	/* A stanza begins, before its first field (dpkg starts a blank
	 * package); may be NULL. */
	void (*stanza)(void *ctx);
	/* ctl->fields[ctl->n - 1] was read and passed the duplicate checks;
	 * returns 0, or -1 with err set to stop.  May be NULL. */
	int (*field)(void *ctx, const struct zd_control *ctl,
	             struct zd_error *err);
	/* The first stanza ended, lno lines in; returns 0, or -1 with err
	 * set to stop.  May be NULL. */
	int (*done)(void *ctx, const struct zd_control *ctl, int lno,
	            struct zd_error *err);
	void *ctx;
};

/*
 * dpkg's parse_stanza() as dpkg-deb's parsedb() runs it (lib/dpkg/parse.c,
 * 1.21.22: strict, one stanza wanted), with its quirks: '\r' is
 * whitespace, ^Z (032) ends a line, a NUL byte ends a name or value as a C
 * string, a name cut by the end of the file loses its last character.  A
 * second stanza is read (cb called on it) before it is refused.
 *
 * Returns 0 with ctl filled (free with zd_dpkg_control_free) and *lno dpkg's
 * line count after the stanza; 1 when buf holds no stanza (dpkg's "no
 * package information"); -1 with err set and *lno where dpkg stopped:
 * ZD_E_FORMAT with dpkg's message alone ("field name 'X' must be followed
 * by colon", "duplicate value for 'Package' field", ...), the error of a
 * callback, ZD_E_NOMEM.  On -1 ctl holds the fields read so far (of the
 * second stanza too).
 */
int zd_dpkg_control_parse_dpkg(const char *buf, size_t len,
                               struct zd_control *ctl,
                               const struct zd_control_cb *cb, int *lno,
                               struct zd_error *err);

/*
 * zd_dpkg_control_parse_dpkg without callbacks, for zdeb's own commands: what
 * names the source in messages ("DEBIAN/control").  dpkg's rules, in
 * short: a field name is the text up to whitespace or ':', may not be
 * empty or start with '-', may be followed by blanks before the ':';
 * user-defined names need 2 characters; a line starting with space or tab
 * continues the value (a whitespace-only continuation line is an error);
 * '#' lines are NOT comments (dpkg 1.21 rejects them); a missing final
 * newline is an error (or drops a last one-character line, as in dpkg);
 * a second paragraph is an error; duplicates are compared
 * case-insensitively; '\r' counts as whitespace, so a CRLF file parses
 * with the '\r' trimmed from the end of each value.
 *
 * On success ctl owns malloc'd copies (free with zd_dpkg_control_free).
 * Returns 0, or -1 with err set and ctl left empty: ZD_E_FORMAT with
 * "cannot parse 'WHAT' near line N: MSG" (N and MSG dpkg's, as
 * zd_dpkg_control_parse_dpkg), or "no package information in 'WHAT'";
 * ZD_E_NOMEM.
 */
int zd_dpkg_control_parse(const char *buf, size_t len, const char *what,
                     struct zd_control *ctl, struct zd_error *err);
/*
 * Reads and parses a file (what = path).  Returns 0, or -1 with err set:
 * ZD_E_IO "cannot read 'PATH': ...", or as zd_dpkg_control_parse.
 */
int zd_dpkg_control_parse_file(const char *path, struct zd_control *ctl,
                          struct zd_error *err);
/* Case-insensitive lookup; NULL when absent. */
const char *zd_dpkg_control_get(const struct zd_control *ctl, const char *name);
/* Frees the fields and zeroes ctl; safe on a zeroed struct. */
void zd_dpkg_control_free(struct zd_control *ctl);

#endif
