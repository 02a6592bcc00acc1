/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dpkg-check.h - dpkg-deb's build-time checks of a package tree
 *
 * The checks and their wording are dpkg's (1.21.22): src/deb/build.c
 * check_control_area (check_control_file, check_file_perms,
 * check_conffiles); the control file's parse is dpkg-pkginfo's.
 */
#ifndef ZDEB_DPKG_CHECK_H
#define ZDEB_DPKG_CHECK_H

#include <stdbool.h>

#include "lib/dpkg-control.h"
#include "lib/dpkg-pkginfo.h"
#include "lib/error.h"

struct zd_pkgcheck_opts {
	/* dpkg's build architecture (zd_dpkg_pkginfo_native_arch()), or
	 * NULL. */
	const char *native_arch;
	/* What dpkg-deb only warns about is an error too (zdeb build). */
	bool strict;
	/* The warnings, dpkg's text without "dpkg-deb: warning: "; the
	 * last is "ignoring N warning(s) about the control file(s)". */
	zd_warn_fn warn;
	void *warn_ctx;
};

/*
 * Runs dpkg-deb -b's checks on DIR (check_control_area()), in dpkg's
 * order, stopping at the first error:
 *   - DIR/DEBIAN/control parses as dpkg parses it (zd_dpkg_pkginfo_parse_file:
 *     every warning and error of dpkg's parser, "parsing file
 *     'DIR/DEBIAN/control' near line N package 'P':\n MSG");
 *   - "package name has characters that aren't lowercase alphanums or
 *     '-+.'", "package architecture is missing or empty"; warning:
 *     "'DIR/DEBIAN/control' contains user-defined Priority value 'P'";
 *   - "control directory has bad permissions 777 (must be >=0755 and
 *     <=0775)", "control directory is not a directory";
 *   - maintainer scripts (preinst, postinst, prerm, postrm, config):
 *     symlinks pass; "maintainer script 'postinst' is not a plain file or
 *     symlink", "maintainer script 'postinst' has bad permissions 644 (must
 *     be >=0555 and <=0775)";
 *   - conffiles: "conffile name 'X' is too long, or missing final
 *     newline", "empty and whitespace-only lines are not allowed in
 *     conffiles", "line with conffile filename 'X' has leading white
 *     spaces", "conffile name 'X' is not an absolute pathname", "conffile
 *     name missing after flag 'F'", "unknown flag 'F' for conffile 'X'",
 *     "conffile 'X' does not appear in package", "conffile 'X' is present
 *     but is requested to be removed" (remove-on-upgrade), warnings:
 *     "conffile filename 'X' contains trailing white spaces", "conffile 'X'
 *     is not a plain file", "conffile name 'X' is duplicated";
 *   - when there were warnings, a last one: "ignoring N warnings about the
 *     control file(s)" ("1 warning").
 *
 * ctl and pi receive the parsed control (free both with zd_dpkg_pkginfo_free
 * and zd_dpkg_control_free, also after a failure).  Returns 0, or -1 with err
 * set to dpkg's message: ZD_E_FORMAT for a bad package, ZD_E_IO (sys_errno
 * set) when a file cannot be read, ZD_E_NOMEM.
 */
int zd_dpkg_check_tree(const char *dir, const struct zd_pkgcheck_opts *o,
                     struct zd_control *ctl, struct zd_pkginfo *pi,
                     struct zd_error *err);

#endif
