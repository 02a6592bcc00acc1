/* SPDX-License-Identifier: GPL-2.0-or-later */
/* repo.h - what the files of "zdeb repo" share */
#ifndef ZDEB_REPO_H
#define ZDEB_REPO_H

#include <stddef.h>

#include "lib/deb-repo.h"

extern const char zd_repo_usage[];

/* The subcommands (argv[0] is the subcommand's name). */
int zd_repo_plan(int argc, char **argv);
int zd_repo_run(int argc, char **argv);
int zd_repo_finish(int argc, char **argv);

/* A job list read whole: each line parsed. */
struct zd_repo_jobs {
	struct zd_repo_job *v;
	size_t n;
};

/*
 * Reads and parses every line of the job list at path.  Prints what is
 * wrong ("'PATH' line N: MSG"); returns 0, or -1.
 */
int zd_repo_jobs_load(const char *path, struct zd_repo_jobs *jobs);
void zd_repo_jobs_free(struct zd_repo_jobs *jobs);
/* "DST/.zdeb-repo/NAME", malloc'd; NULL only out of memory (printed). */
char *zd_repo_state_path(const char *dst, const char *name);
/* mkdir -p; prints the error; returns 0 or -1. */
int zd_repo_mkdirs(const char *path);

#endif
