/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tar-cut.h - where a compressed frame of a tar stream may end so that a
 * reader stopping there fails instead of taking the cut for the end of
 * the archive
 *
 * Stock dpkg (1.21.18 and later) decodes only the first zstd frame of a
 * member.  What it reads then ends at that frame's end, and the tar
 * readers behind it decide whether the package is complete:
 *
 *  - dpkg's own extractor (lib/dpkg/tarfn.c, dpkg --unpack) reads headers
 *    512 bytes at a time and file data by exact size: an end on the
 *    512-byte grid between members is the end of the archive, with
 *    status 0; so is one at a block boundary inside a GNU long-name
 *    record's data.  Anywhere off the grid it fails ("partially read tar
 *    header", "unexpected end of file or stream").
 *  - GNU tar 1.34 (dpkg-deb -x, --control, and whatever reads
 *    --fsys-tarfile) ends quietly, status 0, on an end anywhere inside a
 *    header block, on the grid or not; it fails ("Unexpected EOF in
 *    archive") inside the data (and padding) of a member.
 *
 * Both fail only at an offset inside the data or padding of a regular
 * file member and off the 512-byte grid, which is what zd_tar_cut_feed()
 * finds.  An input that is not a tar from its first block on (no reader
 * of it is a tar reader) may be cut anywhere off the grid; after the end
 * of the archive, or a header this scanner cannot follow (pax, sparse,
 * or a member whose data GNU tar and dpkg would skip differently), there
 * is no safe cut.
 */
#ifndef ZDEB_TAR_CUT_H
#define ZDEB_TAR_CUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/tar-header.h"

enum zd_tar_cut_state {
	ZD_TAR_CUT_HEADER,	/* gathering a header block */
	ZD_TAR_CUT_DATA,	/* inside a member's data and padding */
	ZD_TAR_CUT_OPAQUE,	/* not a tar: cut anywhere off the grid */
	ZD_TAR_CUT_NONE,	/* end of archive or lost: no cut any more */
};

/* Plain data: zero it (or zd_tar_cut_init) to start a stream. */
struct zd_tar_cut {
	enum zd_tar_cut_state state;
	uint64_t pos;		/* bytes fed */
	unsigned char hdr[ZD_TAR_BLOCK];
	size_t hlen;		/* of hdr gathered */
	uint64_t data_start;	/* DATA: the first data byte's offset */
	uint64_t data_end;	/* DATA: the end of the padding */
	unsigned char type;	/* DATA: the member's type flag */
	unsigned char last;	/* DATA of a long name: its last byte */
	bool long_pending;	/* a long name names the next member */
	bool long_dir;		/* and it ends with '/' */
};

void zd_tar_cut_init(struct zd_tar_cut *c);

/*
 * Feeds the next len bytes of the stream and stops at the first safe cut
 * at or after stream offset from (see above).  Returns how many bytes of
 * buf were consumed: with *found, the cut is just after them (offset
 * c->pos); else all len were, and no safe cut at or after from lies
 * before or at their end.  Bytes after a cut are fed again by the next
 * call.  Never fails: an input it cannot follow only has no safe cut.
 */
size_t zd_tar_cut_feed(struct zd_tar_cut *c, const unsigned char *buf,
                       size_t len, uint64_t from, bool *found);

#endif
