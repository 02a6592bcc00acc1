/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * deb-repo.h - a repository of .debs converted package by package: the
 * job and result lines of "zdeb repo", and the choices behind them
 *
 * "zdeb repo plan" writes one job line per package (struct zd_repo_job),
 * "zdeb repo run" one result line per job it runs (struct zd_repo_result),
 * both JSON objects of one line (lib/json.h).  A job's output is named by
 * its content: the package's SHA-256 and the conversion asked for give
 * the key, the key is a directory of the output path, so a rerun, a retry
 * or a new plan finds finished work where it left it and never writes
 * other bytes over it.  The state of a run lives in DST/.zdeb-repo/:
 * jobs.jsonl, results/ (one file per job, named by its output path) and
 * tmp/ (packages being made; never at an output path until verified).
 * An output is durable before its result is written (zd_deb_repo_publish),
 * and the result records the output's size and SHA-256, so that a rerun
 * and finish can check each output against it (zd_deb_repo_output_check)
 * instead of trusting that a file there is the file made.
 */
#ifndef ZDEB_DEB_REPO_H
#define ZDEB_DEB_REPO_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/codec.h"
#include "lib/deb.h"
#include "lib/dpkg-control.h"
#include "lib/error.h"

#define ZD_REPO_STATE_DIR ".zdeb-repo"
#define ZD_REPO_KEY_LEN 16	/* hex digits of the key */

enum zd_repo_action {
	ZD_REPO_CONVERT,	/* recompress as comp says */
	ZD_REPO_KEEP,		/* copy as it is */
};

struct zd_repo_job {
	uint64_t index;			/* 0-based line number */
	char *input;			/* absolute path of the package */
	uint64_t size;			/* its bytes */
	char sha256[65];		/* its SHA-256, hex */
	char *package, *version, *arch;	/* from its control file */
	uint64_t installed_kib;		/* Installed-Size; 0 unknown */
	char from[24];			/* data member: "xz", "zstd-single" */
	enum zd_repo_action action;
	struct zd_comp_params comp;	/* CONVERT: type, level, layout,
					 * segment_size, zstd_long,
					 * strategy */
	char *dst;			/* absolute destination root */
	char *output;			/* the output, relative to dst */
	char **dists;			/* "SUITE/COMPONENT" lists it */
	size_t n_dists;
};

/* What a plan asks for. */
struct zd_repo_want {
	struct zd_comp_params comp;	/* what a conversion writes */
	/*
	 * Keep every package the target's dpkg reads (a --target without
	 * zstd and no -Z: recompressing xz as xz buys nothing); convert the
	 * others (zstd members) to comp.
	 */
	bool keep_readable;
};

/*
 * The data member's compressor as a job's "from": the codec name, for
 * zstd with its layout ("zstd-indexed", "zstd-single", "zstd-frames",
 * "zstd-pzstd").  Returns 0, or -1 with err set (as zd_zstd_describe).
 */
int zd_deb_repo_from(const struct zd_deb *deb, char from[24],
                 struct zd_error *err);

/*
 * Sets j->from, j->action and j->comp for deb: KEEP when w->keep_readable
 * and no member is zstd, or when both members already have w->comp's
 * compressor (for zstd, a data member of its layout); CONVERT to w->comp
 * otherwise.  Returns 0, or -1 with err set (as zd_deb_repo_from).
 */
int zd_deb_repo_decide(const struct zd_deb *deb, const struct zd_repo_want *w,
                   struct zd_repo_job *j, struct zd_error *err);

/* The conversion of j in words: "keep", "zstd -19 indexed", "xz -6",
 * with " segment-size=N", " long" and " strategy=S" when set. */
void zd_deb_repo_conversion(const struct zd_repo_job *j, char *buf,
                        size_t size);

/*
 * Sets j->dst and j->output from rel, the input's path under the source
 * root: "pool/" + rel's directory (less a leading "pool/") + "/KEY/" +
 * rel's file name, where KEY is the first ZD_REPO_KEY_LEN hex digits of
 * SHA-256(j->sha256 + " " + conversion).  Returns 0, or -1 with err set
 * (ZD_E_NOMEM; ZD_E_USAGE when rel has a ".." component or is absolute).
 */
int zd_deb_repo_set_output(struct zd_repo_job *j, const char *dst,
                       const char *rel, struct zd_error *err);

/* Writes j to f as one line ending in '\n'.  Returns 0, or -1 with err
 * set (ZD_E_IO) when f reports an error. */
int zd_deb_repo_job_write(const struct zd_repo_job *j, FILE *f,
                      struct zd_error *err);
/*
 * Parses one job line.  Returns 0 with j filled (free with
 * zd_deb_repo_job_free), or -1 with err set (ZD_E_FORMAT: the JSON error, a
 * missing or malformed field, an output path that leaves dst).
 */
int zd_deb_repo_job_parse(const char *line, size_t len, struct zd_repo_job *j,
                      struct zd_error *err);
void zd_deb_repo_job_free(struct zd_repo_job *j);

/* SHA-256 (hex) and size of the file at path.  Returns 0, or -1 with err
 * set (ZD_E_IO). */
int zd_deb_repo_sha256_file(const char *path, char hex[65], uint64_t *size,
                        struct zd_error *err);

enum zd_repo_verdict {
	ZD_REPO_CONVERTED,
	ZD_REPO_KEPT,
	ZD_REPO_FAILED,
};

struct zd_repo_result {
	uint64_t index;
	enum zd_repo_verdict verdict;
	bool skipped;		/* found done by an earlier run */
	char *stage;		/* FAILED: "input", "convert", "verify",
				 * "publish" or "worker" */
	char *error;		/* FAILED: why */
	uint64_t in_bytes;	/* the input */
	uint64_t out_bytes;	/* the output; 0 when failed */
	char out_sha256[65];	/* its SHA-256, hex; "" when failed (or
				 * a result of before they were kept) */
	bool redone;		/* made again: the output there did not
				 * match its result */
	uint64_t tar_bytes;	/* both tars, when converted */
	double wall_s, cpu_s;	/* of the run that made the output */
	char *host;
};

/* "converted", "kept", "failed". */
const char *zd_deb_repo_verdict_name(enum zd_repo_verdict v);

/*
 * The result file of j: "DST/.zdeb-repo/results/H.json", H the first 16
 * hex digits of SHA-256(j->output).  malloc'd, or NULL (out of memory).
 */
char *zd_deb_repo_result_path(const struct zd_repo_job *j);

/* Writes the result line of j (job fields for the reader, then r's) to
 * f.  Returns 0, or -1 with err set (ZD_E_IO). */
int zd_deb_repo_result_write(const struct zd_repo_job *j,
                         const struct zd_repo_result *r, FILE *f,
                         struct zd_error *err);
/*
 * Saves the result line of j durably (lib/fdio.h's zd_outfile: written,
 * fsynced, renamed, the directory fsynced) to zd_deb_repo_result_path(j).
 * The caller makes the output durable first: a result on disk always
 * speaks of an output on disk.  Returns 0, or -1 with err set (ZD_E_IO).
 */
int zd_deb_repo_result_save(const struct zd_repo_job *j,
                        const struct zd_repo_result *r, struct zd_error *err);
/*
 * Reads the result of j: 1 with r filled (free with zd_deb_repo_result_free),
 * 0 when there is none, -1 with err set (ZD_E_IO, ZD_E_FORMAT).
 */
int zd_deb_repo_result_load(const struct zd_repo_job *j,
                            struct zd_repo_result *r, struct zd_error *err);
void zd_deb_repo_result_free(struct zd_repo_result *r);

/*
 * Checks j's output against r, a result that says converted or kept: it
 * is a regular file of r->out_bytes bytes and, when hash, its SHA-256 is
 * r->out_sha256 (a result without one does not match).  Returns 1 when
 * it matches, 0 when not (why gets "'PATH': MSG", MSG as "0 bytes, its
 * result says 47274" or "missing"), -1 with err set (ZD_E_NOMEM, ZD_E_IO
 * reading it).
 */
int zd_deb_repo_output_check(const struct zd_repo_job *j,
                         const struct zd_repo_result *r, bool hash,
                         char *why, size_t whysize, struct zd_error *err);

/*
 * Where a run makes j's package before it is verified and published:
 * "DST/.zdeb-repo/tmp/KEY-NAME@HOST.PID" (KEY and NAME the output's key
 * directory and file name; a host name has no '@').  malloc'd, or NULL
 * (out of memory).
 */
char *zd_deb_repo_tmp_path(const struct zd_repo_job *j, const char *host,
                       long pid);
/*
 * Whether name, a file in DST/.zdeb-repo/tmp/, is one zd_deb_repo_tmp_path
 * made on host (or a writer's "NAME.zdeb-XXXXXX" temporary of one): then
 * true with *pid its process.
 */
bool zd_deb_repo_tmp_owner(const char *name, const char *host, long *pid);

/*
 * Publishes j's verified package at tmp (fsynced when made, as
 * lib/fdio.h's zd_outfile does): records its size and SHA-256 in r,
 * renames it to its output path (its directories made) and fsyncs that
 * directory, so that the output is on disk before r is saved.  Returns
 * 0, or -1 with err set (ZD_E_IO; ZD_E_NOMEM); r->out_sha256 is then "".
 */
int zd_deb_repo_publish(const struct zd_repo_job *j, const char *tmp,
                    struct zd_repo_result *r, struct zd_error *err);
/* Copies the file in to out durably (zd_outfile: fsynced, renamed, the
 * directory fsynced).  Returns 0, or -1 with err set (ZD_E_IO). */
int zd_deb_repo_copy_file(const char *in, const char *out,
                          struct zd_error *err);

/* A job list read whole: each line parsed. */
struct zd_repo_jobs {
	struct zd_repo_job *v;
	size_t n;
};

/*
 * Reads and parses every line of the job list at path, each line's index
 * its line number from 0.  Returns 0 (free with zd_deb_repo_jobs_free), or -1
 * with err set: ZD_E_IO, ZD_E_NOMEM, ZD_E_FORMAT "'PATH' line N: MSG".
 */
int zd_deb_repo_jobs_load(const char *path, struct zd_repo_jobs *jobs,
                      struct zd_error *err);
void zd_deb_repo_jobs_free(struct zd_repo_jobs *jobs);

/* "DST/.zdeb-repo/NAME" ("DST/.zdeb-repo" for ""), malloc'd; NULL out of
 * memory. */
char *zd_deb_repo_state_path(const char *dst, const char *name);
/* mkdir -p path (mode 0755).  Returns 0, or -1 with err set (ZD_E_IO
 * "cannot create directory 'DIR'", ZD_E_USAGE path too long). */
int zd_deb_repo_mkdirs(const char *path, struct zd_error *err);

/* An output an index must list: its path under DST (the stanza's
 * Filename), size and SHA-256 (hex), as its result records them. */
struct zd_repo_indexed {
	const char *output;
	uint64_t size;
	const char *sha256;
	bool seen;		/* set by zd_deb_repo_index_check */
};
/*
 * Checks the apt Packages index at path against want[0, n) (sorted by
 * output here): each stanza names one of them with its Size and SHA256,
 * and each is named exactly once.  Each difference is said through
 * say(ctx, msg) ("'PATH': F: Size S SHA256 H..., its result says ...",
 * "F is no output to index", "F listed twice", "F not listed").
 * Returns the number of differences, or -1 with err set (as
 * zd_deb_repo_packages_read).
 */
typedef void (*zd_repo_say_fn)(void *ctx, const char *msg);
long zd_deb_repo_index_check(const char *path, struct zd_repo_indexed *want,
                         size_t n, zd_repo_say_fn say, void *ctx,
                         struct zd_error *err);

/*
 * What an archive to convert holds, for a projection: from an apt
 * Packages index (path; ".gz"/".xz" as zd_deb_repo_packages_read), its
 * packages, their Size and their Installed-Size (KiB, the tar bytes
 * they unpack to, near enough); or from a size ("100G", suffixes as
 * zd_parse_size), that size of .debs and no count.
 */
struct zd_repo_archive {
	uint64_t packages;	/* 0 when given as a size */
	uint64_t deb_bytes;	/* Size summed, or the size given */
	uint64_t tar_bytes;	/* Installed-Size * 1024 summed; 0 when
				 * given as a size */
};
/* arg is a file when one is there, else a size.  Returns 0, or -1 with
 * err set (as zd_deb_repo_packages_read; ZD_E_USAGE neither a file nor a
 * size). */
int zd_deb_repo_archive_read(const char *arg, struct zd_repo_archive *a,
                         struct zd_error *err);

/*
 * Hours for tar_bytes of conversion at rate tar bytes per CPU-second on k
 * workers of one core each, the work spread evenly (no I/O, no queueing,
 * no stragglers: a lower bound).  rate > 0, k > 0.
 */
double zd_deb_repo_project_hours(uint64_t tar_bytes, double rate, unsigned k);

/*
 * Reads an apt Packages index (path ends in "Packages", ".gz" or ".xz")
 * and calls fn with each stanza, in order, until fn returns non-zero
 * (which is returned).  Returns 0, or -1 with err set (ZD_E_IO, the
 * decoder's error, ZD_E_FORMAT "'PATH': stanza N: MSG").
 */
typedef int (*zd_repo_stanza_fn)(void *ctx, const struct zd_control *st,
                                 struct zd_error *err);
int zd_deb_repo_packages_read(const char *path, zd_repo_stanza_fn fn, void *ctx,
                          struct zd_error *err);

#endif
