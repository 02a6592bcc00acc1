/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dpkg-instsize.h - Installed-Size as dpkg-gencontrol computes it
 *
 * dpkg 1.21.22 scripts/dpkg-gencontrol.pl scans the package build
 * directory with File::Find (the directory itself and DEBIAN/ included,
 * symlinks not followed): a regular file or symlink adds ceil(size / 1024)
 * (a symlink's size is the length of its target), counted once per inode
 * when it has hardlinks; any other object (directory, device, fifo,
 * socket) adds 1.  The result is in KiB.
 */
#ifndef ZDEB_DPKG_INSTSIZE_H
#define ZDEB_DPKG_INSTSIZE_H

#include <stddef.h>
#include <stdint.h>

#include "lib/error.h"

/*
 * Installed-Size of the tree at dir into *kib, with dpkg-gencontrol's rule
 * over every entry but DEBIAN/control (dh_gencontrol runs before that file
 * is written, and before dh_md5sums).  Returns 0, or -1 with err set:
 * ZD_E_IO naming the entry that cannot be read, ZD_E_NOMEM, ZD_E_LIMIT on
 * overflow, or the walk's errors (zd_treewalk).
 */
int zd_dpkg_instsize_tree(const char *dir, uint64_t *kib, struct zd_error *err);

/*
 * Adds "Installed-Size: KIB" to the control paragraph ctl (len bytes, as
 * read from DEBIAN/control) where dpkg's field order puts it: after the
 * last of Package, Package-Type, Source, Version, Kernel-Version,
 * Built-For-Profiles, Auto-Built-Package, Architecture, Subarchitecture,
 * Installer-Menu-Item, Build-Essential, Essential, Protected, Origin, Bugs,
 * Maintainer present (with its continuation lines), or first when none is.
 * The other bytes are kept as they are.  On success *out is malloc'd
 * (caller frees) with *outlen bytes.  Returns 0, or -1 with err set:
 * ZD_E_FORMAT if ctl does not parse (zd_dpkg_control_parse) or already has an
 * Installed-Size field, ZD_E_NOMEM.
 */
int zd_dpkg_instsize_control_add(const char *ctl, size_t len, uint64_t kib,
                            char **out, size_t *outlen,
                            struct zd_error *err);

#endif
