/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * deb-build.h - build a .deb from a tree: checks, control.tar, data.tar,
 * compression, ar assembly, written to a temporary name and renamed
 */
#ifndef ZDEB_DEB_BUILD_H
#define ZDEB_DEB_BUILD_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/codec.h"
#include "lib/dpkg-control.h"
#include "lib/dpkg-pkginfo.h"
#include "lib/error.h"

struct zd_build_opts {
	struct zd_comp_params data;	/* data.tar compressor */
	struct zd_comp_params control;	/* control.tar compressor */
	/* Write control.tar in several zstd frames when o->control's
	 * layout asks (frames, pzstd); else it is one frame
	 * (zd_deb_encoder_control_params says why). */
	bool control_frames;
	bool root_owner_group;
	int64_t timestamp;		/* SOURCE_DATE_EPOCH or now */
	/*
	 * Native zdeb build only (never dpkg-deb mode), each only when the
	 * tree lacks it: add DEBIAN/md5sums (lib/dpkg-md5sums.h) and the
	 * Installed-Size field (lib/dpkg-instsize.h) to the control.tar.
	 * The tree on disk is not modified.
	 */
	bool gen_md5sums;
	bool gen_installed_size;
	/* fsync the output's directory after the rename (zd_deb_write_open):
	 * native zdeb build, never dpkg-deb mode */
	bool durable;
	/* Stage reports ("control.tar", "data.tar") with the tar bytes made
	 * so far (tar and compression run together), every 16 MiB and at
	 * the end; NULL for none. */
	void (*progress)(void *ctx, const char *stage, uint64_t bytes);
	void *progress_ctx;
};

/*
 * The output path dpkg-deb would use: dest NULL → "DIR.deb" (trailing "/"
 * and "/." of DIR dropped); dest a directory → "DEST/NAME_VERSION_ARCH.deb"
 * (epoch dropped, needs pi); else dest.  Returns a malloc'd string, or
 * NULL with err set.
 */
char *zd_deb_build_dest_path(const char *dir, const char *dest,
                         const struct zd_pkginfo *pi, struct zd_error *err);

/*
 * Builds dir into out_path (the caller runs zd_dpkg_check_tree first).  The
 * .deb is written to a temporary file beside out_path, fsynced and renamed
 * when complete: on failure nothing is left at out_path, and a file
 * already there is kept.  Returns 0, or -1 with
 * err set.
 */
int zd_deb_build(const char *dir, const char *out_path,
                 const struct zd_build_opts *o, struct zd_error *err);

#endif
