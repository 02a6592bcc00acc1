/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * deb.h - the .deb layout: debian-binary, control.tar.*, data.tar.*
 *
 * Opening a .deb locates its members and the codec of each; the caller then
 * decodes them through memberdec.  A .deb read from stdin ("-"), or from
 * any path that is not a regular file (a pipe), is spooled to an unlinked
 * temporary file first, so every member is a pread()-able region (the
 * parallel decoders need random access).
 *
 * The checks are dpkg-deb's (src/deb/extract.c, 1.21.22), made in the same
 * order, so that the first error is the one dpkg-deb reports; each error
 * also comes in dpkg-deb's wording (zd_deb.dpkg_msg) for the compatibility
 * front end.
 */
#ifndef ZDEB_DEB_H
#define ZDEB_DEB_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/ar.h"
#include "lib/codec.h"
#include "lib/error.h"
#include "lib/fdio.h"

#define ZD_DEB_MAX_MEMBERS 16

struct zd_deb_member {
	char name[17];			/* "control.tar.zst"; "" if absent */
	struct zd_region region;	/* compressed bytes in the file */
	const struct zd_codec *codec;	/* from the name's extension */
	uint64_t hdr_off;		/* ar header offset */
};

struct zd_deb {
	int fd;
	bool own_fd;
	uint64_t file_size;
	char format[16];		/* "2.0" (as "%u.%u") or "0.939000" */
	unsigned major, minor;		/* parsed from debian-binary */
	bool old_format;		/* 0.939000: reported, not opened */
	char version_line[64];		/* debian-binary's first line */
	struct zd_deb_member control;
	struct zd_deb_member data;	/* empty with ZD_DEB_CONTROL_ONLY */
	/* The members seen, in order: the first ZD_DEB_MAX_MEMBERS. */
	struct zd_ar_member members[ZD_DEB_MAX_MEMBERS];
	unsigned n_members;
	/*
	 * Members after data.tar.* are not checked (dpkg-deb never reads
	 * them), only walked into members[]; set when that walk met a
	 * malformed header or bytes that are not a member.
	 */
	bool trailing_garbage;
	/*
	 * After a failed open: dpkg-deb's message for the same problem,
	 * without its "dpkg-deb: error: " prefix (e.g. "file 'x.deb' is not
	 * a Debian binary archive (try dpkg-split?)"); "" when dpkg-deb
	 * would not fail (old format).
	 */
	char dpkg_msg[512];
};

/* zd_deb_open_flags(): stop at the control member, as dpkg-deb -I, -e,
 * -f, -W do (the data member is neither looked for nor checked). */
#define ZD_DEB_CONTROL_ONLY 0x1u

/*
 * Opens path ("-" for stdin) and locates the members.  Checks, in
 * dpkg-deb's order: ar magic, debian-binary first, with a newline and a
 * "MAJOR.MINOR" version of major 2; members starting with '_' skipped;
 * then control.tar[.gz|.xz|.zst] (only these four) before
 * data.tar[.EXT] (any known codec, bzip2 and lzma included), any other
 * member before data.tar is an error, no second control member; every
 * header field (zd_ar_parse_header) and each member inside the file.
 * Nothing after data.tar.* is checked (see trailing_garbage).
 *
 * Returns 0, or -1 with err set and deb closed (only format, major, minor,
 * old_format, version_line and dpkg_msg are kept):
 *   ZD_E_FORMAT  "'F': not a Debian package (bad ar magic)",
 *                "'F': not a Debian binary package: first member is 'X',
 *                 not 'debian-binary' (try dpkg-split?)",
 *                "'F': member 'debian-binary' has no newline",
 *                "'F': member 'debian-binary': invalid format version:
 *                 format version has no dot",
 *                "'F': member 'data.tar.xz' before 'control.tar'",
 *                "'F': member 'foo' between 'control.tar.gz' and
 *                 'data.tar'",
 *                "'F': second control member 'control.tar.xz' at offset
 *                 N",
 *                "'F': missing member 'data.tar'",
 *                "'F': unknown compression for member 'data.tar.foo'",
 *                "'F': " + an ar message (zd_ar_parse_header/zd_ar_next);
 *   ZD_E_UNSUPPORTED
 *                "'F': format version 3.0 is not supported (only 2.x)",
 *                "'F': compression 'bzip2' of member 'control.tar.bz2' is
 *                 not allowed for the control member",
 *                "'F': old-format (0.939000) packages are not supported";
 *   ZD_E_IO      open, read or spool failures (sys_errno set).
 */
int zd_deb_open(const char *path, struct zd_deb *deb, struct zd_error *err);
/* zd_deb_open with flags (ZD_DEB_*). */
int zd_deb_open_flags(const char *path, unsigned flags, struct zd_deb *deb,
                      struct zd_error *err);
/* Closes what zd_deb_open opened; safe on a zeroed struct, and twice. */
void zd_deb_close(struct zd_deb *deb);

/*
 * Parses a format version "MAJOR.MINOR", optionally followed by a newline,
 * as dpkg's deb_version_parse() (debian-binary, --deb-format).  Returns
 * NULL and sets *major, *minor, or dpkg's reason, e.g. "format version
 * has no dot", "format version followed by junk" (nothing set).
 */
const char *zd_deb_version_parse(const char *str, unsigned *major,
                                 unsigned *minor);

#endif
