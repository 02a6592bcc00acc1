/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dpkg-check.h - dpkg-deb's build-time checks of a package tree
 *
 * The checks and their wording are dpkg's (1.21.22): src/deb/build.c
 * check_dpkg_control_file, check_file_perms, check_conffiles; lib/dpkg/parse.c
 * pkg_parse_verify; the name and version rules are dpkg-pkginfo's.
 */
#ifndef ZDEB_DPKG_CHECK_H
#define ZDEB_DPKG_CHECK_H

#include <stdbool.h>

#include "lib/dpkg-control.h"
#include "lib/error.h"

/*
 * Runs dpkg-deb -b's checks on DIR/DEBIAN, in dpkg's order, stopping at the
 * first error:
 *   - DEBIAN/control parses (zd_control_parse rules);
 *   - no Status, Config-Version, Triggers-Pending, Triggers-Awaited field
 *     ("value for 'Status' field not allowed in this context");
 *   - Package valid ("invalid package name in 'Package' field: REASON"),
 *     Version valid ("'Version' field value 'V': REASON");
 *   - "missing 'Package' field", "missing 'Version' field";
 *     warnings: "missing 'Description' field", "missing 'Maintainer'
 *     field", "empty value for 'X' field", "missing 'Architecture' field",
 *     "'A' is not a valid architecture name in 'Architecture' field: R";
 *   - "package has 'Multi-Arch: same' field but is architecture 'all'";
 *   - "package name has characters that aren't lowercase alphanums or
 *     '-+.'", "package architecture is missing or empty";
 *     warning: "'PATH' contains user-defined Priority value 'P'";
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
 *     is not a plain file", "conffile name 'X' is duplicated".
 * Messages about the control file are prefixed "'DIR/DEBIAN/control': "
 * (with " line N" when dpkg knows the line), messages from the other checks
 * are dpkg's as they are.
 *
 * zd_pkgcheck_tree is strict: what dpkg-deb only warns about is an error
 * too.  zd_pkgcheck_tree_warn behaves as dpkg-deb -b: warnings go to
 * warn(warn_ctx, msg) (warn may be NULL to drop them) and do not fail.
 *
 * ctl receives the parsed control (caller frees with zd_control_free); on
 * failure it is left empty.  Returns 0, or -1 with err set to one message:
 * ZD_E_FORMAT for a bad package, ZD_E_IO (sys_errno set) when a file
 * cannot be read, ZD_E_NOMEM.
 */
int zd_pkgcheck_tree(const char *dir, struct zd_control *ctl,
                     struct zd_error *err);
int zd_pkgcheck_tree_warn(const char *dir, struct zd_control *ctl,
                          zd_warn_fn warn, void *warn_ctx,
                          struct zd_error *err);

#endif
