/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dpkg-format.h - dpkg's --showformat language (dpkg-deb -W)
 *
 * dpkg 1.21.22's lib/dpkg/pkg-format.c: a format string parsed into
 * nodes, printed for a package of dpkg-pkginfo with dpkg's virtual fields
 * (binary:Package, source:Version, ...).
 */
#ifndef ZDEB_DPKG_FORMAT_H
#define ZDEB_DPKG_FORMAT_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/dpkg-pkginfo.h"
#include "lib/error.h"

struct zd_pkgformat;

/*
 * Parses a --showformat string: "${Field}", "${Field;WIDTH}" (negative:
 * left-aligned, base as strtol(.., 0)), text with the escapes \n \t \r and
 * "\X" for any other X.  Returns the format, or NULL with err set
 * (ZD_E_USAGE) to dpkg's message: "missing closing brace", "invalid
 * character 'C' in field width", "field width is out of range", "may not
 * be empty string"; ZD_E_NOMEM.
 */
struct zd_pkgformat *zd_dpkg_format_parse(const char *fmt,
                                        struct zd_error *err);
void zd_dpkg_format_free(struct zd_pkgformat *f);

/*
 * Renders f for pi (dpkg's pkg_format_print).  Returns a malloc'd string,
 * or NULL with err set: ZD_E_FORMAT with dpkg's message for a Source
 * field whose "(version)" does not parse ("version 'V' has bad syntax:
 * REASON"), ZD_E_NOMEM.
 */
char *zd_dpkg_format_print(const struct zd_pkgformat *f,
                         const struct zd_pkginfo *pi, struct zd_error *err);

#endif
