/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * deb.h - the .deb layout: debian-binary, control.tar.*, data.tar.*
 *
 * Opening a .deb locates its members and the codec of each; the caller then
 * decodes them through memberdec.  A .deb read from stdin ("-") is spooled
 * to an unlinked temporary file first, so every member is a pread()-able
 * region (the parallel decoders need random access).
 */
#ifndef ZDEB_DEB_H
#define ZDEB_DEB_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/ar.h"
#include "lib/codec.h"
#include "lib/error.h"
#include "lib/fdio.h"

struct zd_deb_member {
	char name[17];			/* "control.tar.zst" */
	struct zd_region region;	/* compressed bytes in the file */
	const struct zd_codec *codec;	/* from the name's extension */
	uint64_t hdr_off;		/* ar header offset */
};

struct zd_deb {
	int fd;
	bool own_fd;
	uint64_t file_size;
	char format[16];		/* "2.0" or "0.939000" */
	bool old_format;
	char version_line[64];		/* debian-binary's contents */
	struct zd_deb_member control;
	struct zd_deb_member data;
	struct zd_ar_member members[16];	/* all members, in order */
	unsigned n_members;
};

/*
 * Opens path ("-" for stdin) and locates the members.  Checks: ar magic,
 * debian-binary first with major version 2, control.tar.* before
 * data.tar.*, no duplicates, members starting with '_' skipped (as dpkg),
 * compressor known.  Returns 0, or -1 with err set naming the file and
 * member.  The old 0.939000 format is reported as ZD_E_UNSUPPORTED.
 */
int zd_deb_open(const char *path, struct zd_deb *deb, struct zd_error *err);
/* Closes what zd_deb_open opened; safe on a zeroed struct. */
void zd_deb_close(struct zd_deb *deb);

#endif
