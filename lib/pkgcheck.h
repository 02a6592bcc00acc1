/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pkgcheck.h - dpkg-deb's build-time checks of a package tree
 */
#ifndef ZDEB_PKGCHECK_H
#define ZDEB_PKGCHECK_H

#include <stdbool.h>

#include "lib/control.h"
#include "lib/error.h"

/* dpkg's package name rule; on failure err says why. */
int zd_pkgcheck_name(const char *name, struct zd_error *err);
/* dpkg's version syntax rule (epoch, upstream, revision). */
int zd_pkgcheck_version(const char *version, struct zd_error *err);

/*
 * Runs dpkg-deb's checks on DIR/DEBIAN: control parses, required fields
 * (Package, Version, Architecture, Maintainer, Description), package name
 * and version valid, maintainer scripts (preinst, postinst, prerm, postrm,
 * config) are regular files with mode 0555..0775, conffiles well formed
 * (absolute paths, files exist in DIR as regular files, no duplicates, only
 * the "remove-on-upgrade" flag).  ctl receives the parsed control (caller
 * frees).  Returns 0, or -1 with err set to one clear message.
 */
int zd_pkgcheck_tree(const char *dir, struct zd_control *ctl,
                     struct zd_error *err);

#endif
