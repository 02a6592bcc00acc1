/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dd.h - shared state of the dpkg-deb front end (dd-main.c, dd-*.c)
 *
 * Messages and exit codes are dpkg-deb 1.21.23's: "dpkg-deb: error: MSG"
 * and status 2 for every error; usage errors add dpkg-deb's two "Type ...
 * --help" lines.
 */
#ifndef ZDEB_DD_H
#define ZDEB_DD_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/deb.h"

/* The options of dpkg-deb's main.c, as parsed. */
struct dd_opts {
	int debug;
	int verbose;
	int nocheck;
	int root_owner_group;
	int uniform;			/* --[no-]uniform-compression */
	bool old_deb_format;		/* --deb-format=0.939000 */
	const char *showformat;
	int comp_type;			/* enum zd_comp_type */
	int level;			/* -1: the compressor's default */
	int strategy;			/* enum zd_strategy */
	long threads_max;		/* -1: all cores */
	/* ZDEB_DPKG_DEB_THREADS: decoder threads for a tar written into a
	 * pipe; 0 (unset, "auto"): all cores but one for zstd */
	unsigned pipe_threads;
	/* decoded size cap from ZDEB_MAX_DECODED; ZD_DEC_UNLIMITED when
	 * unset or 0: stock dpkg-deb has none, so neither does zdeb here */
	uint64_t max_decoded;
	const char *action;		/* long name of the action */
	/* The command line as given, for delegation. */
	int argc;
	char **argv;
};

extern struct dd_opts dd_opts;

/* "dpkg-deb: error: MSG\n\nType dpkg-deb --help ..."; returns 2. */
int dd_badusage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "dpkg-deb: error: MSG\n"; returns 2. */
int dd_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "dpkg-deb: MSG\n" on stderr (dpkg's notice()). */
void dd_notice(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "dpkg-deb: debug: MSG\n" on stderr with -D. */
void dd_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Hands the command to the real dpkg-deb (dd-handoff.c): runs it with the
 * original command line, telling why with -D, and logs the hand-off under
 * ZDEB_HANDOFF=count.  When deb is not NULL and was read from stdin, its
 * spooled copy is given as stdin.  Returns only when it cannot or may not
 * (ZDEB_HANDOFF=never) run one: then the error is printed and 2 returned.
 */
int dd_delegate(const char *why, const struct zd_deb *deb);

/*
 * Opens a .deb as dpkg-deb does, printing dpkg-deb's message on failure.
 * An old-format package is delegated.  Returns 0, or an exit status
 * (deb closed) that the caller returns.
 */
int dd_open(const char *path, unsigned flags, struct zd_deb *deb);

/* Size dpkg-deb reports for path ("-": fstat of stdin, 0 for a pipe). */
long long dd_archive_size(const char *path, const struct zd_deb *deb);

/* The actions; argv is the NULL-terminated list of non-option arguments. */
int dd_do_build(char **argv);
int dd_do_contents(char **argv);
int dd_do_control(char **argv);
int dd_do_info(char **argv);
int dd_do_field(char **argv);
int dd_do_show(char **argv);
int dd_do_extract(char **argv);
int dd_do_vextract(char **argv);
int dd_do_raw_extract(char **argv);
int dd_do_ctrl_tarfile(char **argv);
int dd_do_fsys_tarfile(char **argv);

/*
 * Extracts the control member of deb into a new temporary directory (as
 * dpkg-deb's info_prepare()); *dir receives its malloc'd path.  Returns 0
 * or an exit status after printing the error.
 */
int dd_extract_control_tmp(const char *path, struct zd_deb *deb, char **dir);
/* Removes a directory tree made by dd_extract_control_tmp and frees dir. */
void dd_remove_tmp(char *dir);
/* Decodes member m of deb into dir (created as tar -x does). */
int dd_extract_member(const char *path, const struct zd_deb_member *m,
                      const char *dir, bool list, bool create_new);

#endif
