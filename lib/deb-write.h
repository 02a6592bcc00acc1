/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * deb-write.h - a .deb written in place
 *
 * The archive goes to a temporary file beside the output path: the ar
 * magic and debian-binary first, then each member's bytes straight into
 * the file right after a blank ar header, which is filled in once the
 * member's size is known.  Nothing is copied afterwards.  The file is
 * renamed to the output path when complete; on failure it is removed, so
 * nothing is left at the output path.  An output path that exists and is
 * not a regular file or a directory (/dev/null, a FIFO) is never replaced:
 * the package is made in TMPDIR (else /tmp) and copied into it at the end,
 * as dpkg-deb writes into it.  A symlink to a file is written through
 * (the file is replaced, the link kept), as dpkg-deb does.
 */
#ifndef ZDEB_DEB_WRITE_H
#define ZDEB_DEB_WRITE_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/error.h"
#include "lib/fdio.h"

struct zd_debout {
	int fd;			/* the temporary file: members go here */
	char *path;		/* the output path */
	char *target;		/* what is renamed to: path, or through
				 * its symlink the file it points to */
	char *tmp_path;		/* "PATH.zdeb-XXXXXX"; NULL once renamed
				 * (out.tmp unless device) */
	struct zd_outfile out;	/* the temporary, unless device */
	bool durable;		/* fsync the directory after the rename */
	uint64_t mtime;		/* of every ar member */
	uint64_t hdr_off;	/* the header of the member begun */
	bool device;		/* path is a device or FIFO: copy into it */
};

/*
 * Creates the temporary file beside path (mode 0644 less the umask, as
 * dpkg-deb) and writes the ar magic and debian-binary ("2.0\n").  The
 * file is fsynced before its rename, as dpkg-deb fsyncs its output;
 * durable (native zdeb, never dpkg-deb mode) fsyncs the directory after
 * it too, so that the output is on disk once committed.  Temporaries a
 * killed writer left beside path are removed (zd_outfile_open).  d is
 * then zd_deb_write_abort()'s to free, even on failure.  Returns 0, or -1
 * with err set.
 */
int zd_deb_write_open(struct zd_debout *d, const char *path, uint64_t mtime,
                   bool durable, struct zd_error *err);
/* Starts a member: its bytes go to d->fd from its current offset on. */
int zd_deb_write_begin(struct zd_debout *d, struct zd_error *err);
/*
 * Ends the member begun: its bytes are d->fd[off, off + size), which must
 * start right after its header and end at d->fd's offset (else
 * ZD_E_INTERNAL); fills in the header, pads.
 */
int zd_deb_write_end(struct zd_debout *d, const char *name, uint64_t off,
                  uint64_t size, struct zd_error *err);
/* fsyncs the file, renames it to the output path and closes it, then
 * when durable fsyncs the directory (or copies it into the device and
 * removes it). */
int zd_deb_write_commit(struct zd_debout *d, struct zd_error *err);
/* Removes the temporary file unless committed, and frees d. */
void zd_deb_write_abort(struct zd_debout *d);

#endif
