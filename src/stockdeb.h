/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stockdeb.h - zdeb verify --dpkg-deb: does the system's own dpkg-deb
 * read a package's tars byte for byte as zdeb does?
 */
#ifndef ZDEB_STOCKDEB_H
#define ZDEB_STOCKDEB_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The dpkg-deb whose options, output and messages the front end mirrors
 * (its --version text names it), and the newest major.minor whose command
 * line it covers: the front end is 1.21.23 (Debian 12's current point
 * release), whose command line refuses what 1.22 added (--compression=,
 * --no-check, ...), so a 1.22 system's scripts could meet "unknown
 * option" where their dpkg-deb had none.  debian/rules reads the two
 * NEWEST lines for zdeb-dpkg's Breaks.
 */
#define ZD_DPKG_DEB_INTERFACE "1.21.23"
#define ZD_DPKG_DEB_NEWEST_MAJOR 1
#define ZD_DPKG_DEB_NEWEST_MINOR 21

/* Where "zdeb integrate" diverts the system's dpkg-deb to. */
#define ZD_DPKG_DEB_DIVERTED "/usr/bin/dpkg-deb.distrib"

/* True when path is this very program (zdeb under another name: the
 * integration symlink, a PATH shim linking to zdeb). */
bool zd_stockdeb_is_self(const char *path);

/*
 * The stock dpkg-deb into out: given (a path, or a name looked up in
 * PATH), else the binary "zdeb integrate" diverted (/usr/bin/dpkg-deb.distrib)
 * when there is one, else dpkg-deb in PATH.  A program that is zdeb itself
 * (the integration symlink, a PATH shim linking to zdeb) is refused: it
 * would only compare zdeb with zdeb.  Returns 0, or -1 after printing why.
 */
int zd_stockdeb_find(const char *given, char *out, size_t outsize);

/* What one run of the stock dpkg-deb wrote to its stdout. */
struct zd_stockdeb_out {
	uint64_t len;		/* bytes */
	uint64_t hash;		/* their XXH64 */
	int status;		/* exit status, or 128 + signal */
};

/*
 * Runs "prog action deb" (action: --fsys-tarfile, --ctrl-tarfile), its
 * stdin /dev/null and its stderr ours, and hashes what it writes.
 * Returns 0 with *out filled (whatever the exit status), or -1 after
 * printing why it could not be run.
 */
int zd_stockdeb_read(const char *prog, const char *action, const char *deb,
                     struct zd_stockdeb_out *out);

#endif
