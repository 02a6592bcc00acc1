/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd-repo.c - zdeb repo plan and run: a whole apt repository converted
 * package by package, by one process, a local pool or a cluster engine
 *
 * plan writes the job list (lib/deb-repo.h); run does one line of it or
 * all of them.  A job's package is made in DST/.zdeb-repo/tmp/, checked
 * with "zdeb verify --dpkg-deb" and only then renamed to its output path,
 * so an output path holds a whole verified package or nothing, whoever
 * was killed when.  Outputs and results are named by content: several
 * processes, on one machine or many sharing DST, can run any lines at
 * once, and the same line twice, without locks.  finish is in
 * cmd-repo-finish.c; what both read and write is lib/deb-repo.h.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/deb-member.h"
#include "lib/deb-recompress.h"
#include "lib/deb-repo.h"
#include "lib/numparse.h"
#include "src/cmd.h"
#include "src/msg.h"

static const char usage_text[] =
"Usage: zdeb repo plan [OPTIONS] SRC DST\n"
"       zdeb repo run [--index N | --jobs N] [-T N] [--verify-hash] JOBS\n"
"       zdeb repo finish [--sign KEYID] [--partial] [--perf-sample N]\n"
"                        [--perf-runs N] [--project FILE|SIZE] [--json] DST\n"
"\n"
"Convert a whole apt repository to zdeb's layout and measure what it buys.\n"
"\n"
"plan   walks SRC (the packages its dists/*/binary-*/Packages* list, else\n"
"       every *.deb under it) and writes DST/.zdeb-repo/jobs.jsonl, one JSON\n"
"       line per package: its path, size, SHA-256, the conversion, and the\n"
"       output path under DST, named by content.  Options: those of zdeb\n"
"       build (-Z, -z, -S, --layout, --segment-size, --long, --target;\n"
"       default zstd -19 indexed), --suite NAME and --component NAME (where\n"
"       apt finds packages that no Packages index lists; stable, main),\n"
"       --json.\n"
"       A package that already is what is asked is kept as it is; with a\n"
"       --target whose dpkg has no zstd (debian-11) and no -Z, every\n"
"       package that dpkg reads is kept and zstd ones become xz.\n"
"run    does line N of JOBS (--index N, from 0, as a cluster engine's\n"
"       task index), or every line on a pool of N local workers (--jobs N,\n"
"       default one per core): recompress, verify --dpkg-deb, fsync, rename\n"
"       into DST, fsync the directory; then the result (with the output's\n"
"       size and SHA-256), one JSON line per job on stdout.  A job whose\n"
"       output matches its result (size; SHA-256 too with --verify-hash)\n"
"       is skipped; a mismatch is redone, saying so; failed jobs are tried\n"
"       again.  -T: threads per job (default: the cores shared among the\n"
"       workers).  Exit status 0, 1 when a job failed, 2 on other errors.\n"
"finish checks every output against its result (size, SHA-256), makes\n"
"       Packages, Contents and Release with apt-ftparchive in a stage\n"
"       (signed with gpg --local-user KEYID when --sign is given), checks\n"
"       them, and only then moves them under DST/dists; prints the report:\n"
"       bytes before and after per compressor, converted, kept and failed\n"
"       packages, CPU time, tar MB per CPU-second, with --project a\n"
"       projection onto a Packages index or a size for 1, 16 and 256\n"
"       workers, and an install-time estimate from zdeb-perf on N sample\n"
"       packages (--perf-sample, default 3; 0: none).  A job failed, not\n"
"       run or not matching its result, an apt-ftparchive error or\n"
"       warning, or a tool asked for that cannot run: no index written\n"
"       (exit status 1 or 2); --partial indexes the others and lists what\n"
"       it left out.\n";

/* See cmd.h. */
int
cmd_repo_mkdirs(const char *path)
{
	struct zd_error err = ZD_ERROR_INIT;

	if (path == NULL) {
		zd_msg_error("out of memory");
		return -1;
	}
	if (zd_deb_repo_mkdirs(path, &err) < 0) {
		zd_msg_error("%s", err.msg);
		return -1;
	}
	return 0;
}

/* plan ------------------------------------------------------------- */

/* A package some Packages index lists, or a *.deb found by the walk. */
struct entry {
	char *rel;		/* path under SRC */
	char *dist;		/* "SUITE/COMPONENT" */
	char *sha256;		/* from the index, or NULL */
	char *package, *version, *arch;
	uint64_t installed_kib;
};

struct plan {
	const char *src, *dst;	/* absolute */
	struct stat dst_st;
	struct zd_repo_want want;
	const char *default_dist;	/* for the walk */
	struct entry *e;
	size_t n;
	char **indexes;		/* Packages files found */
	size_t n_indexes;
	const char *index_dist;	/* of the index being read */
	bool failed;
};

static int
push_entry(struct plan *pl, const struct entry *e)
{
	struct entry *v = reallocarray(pl->e, pl->n + 1, sizeof(*v));

	if (v == NULL) {
		zd_msg_error("out of memory");
		return -1;
	}
	pl->e = v;
	pl->e[pl->n++] = *e;
	return 0;
}

static void
entry_free(struct entry *e)
{
	free(e->rel);
	free(e->dist);
	free(e->sha256);
	free(e->package);
	free(e->version);
	free(e->arch);
}

static char *
dup_or_null(const char *s)
{
	return s != NULL ? strdup(s) : NULL;
}

static bool
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Directory walk: fn(pl, path relative to root) for every file; dot
 * entries and DST are left out. */
static int
walk(struct plan *pl, const char *root, const char *rel,
     int (*fn)(struct plan *, const char *rel))
{
	char *dir;
	DIR *d;
	struct dirent *de;
	int rc = 0;

	if (asprintf(&dir, "%s%s%s", root, rel[0] ? "/" : "", rel) < 0) {
		zd_msg_error("out of memory");
		return -1;
	}
	d = opendir(dir);
	if (d == NULL) {
		zd_msg_error("cannot open directory '%s': %s", dir,
		             strerror(errno));
		free(dir);
		return -1;
	}
	while (rc == 0 && (de = readdir(d)) != NULL) {
		char *child, *full;
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		if (asprintf(&child, "%s%s%s", rel, rel[0] ? "/" : "",
		             de->d_name) < 0) {
			zd_msg_error("out of memory");
			rc = -1;
			break;
		}
		if (asprintf(&full, "%s/%s", dir, de->d_name) < 0) {
			free(child);
			zd_msg_error("out of memory");
			rc = -1;
			break;
		}
		if (stat(full, &st) == 0 && S_ISDIR(st.st_mode)) {
			if (st.st_dev != pl->dst_st.st_dev ||
			    st.st_ino != pl->dst_st.st_ino)
				rc = walk(pl, root, child, fn);
		} else if (stat(full, &st) == 0 && S_ISREG(st.st_mode)) {
			rc = fn(pl, child);
		}
		free(full);
		free(child);
	}
	closedir(d);
	free(dir);
	return rc;
}

/* Collects dists/.../binary-ARCH/Packages{,.xz,.gz} (not by-hash/). */
static int
find_index(struct plan *pl, const char *rel)
{
	const char *base = strrchr(rel, '/');
	char **v;

	if (base == NULL || strstr(rel, "/by-hash/") != NULL ||
	    (strcmp(base, "/Packages") != 0 &&
	     strcmp(base, "/Packages.xz") != 0 &&
	     strcmp(base, "/Packages.gz") != 0))
		return 0;
	{
		const char *p = base;

		while (p > rel && p[-1] != '/')
			p--;
		if (strncmp(p, "binary-", 7) != 0)
			return 0;
	}
	v = reallocarray(pl->indexes, pl->n_indexes + 1, sizeof(*v));
	if (v == NULL || (v[pl->n_indexes] = strdup(rel)) == NULL) {
		if (v != NULL)
			pl->indexes = v;
		zd_msg_error("out of memory");
		return -1;
	}
	pl->indexes = v;
	pl->n_indexes++;
	return 0;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The directory part of an index path, for choosing one per directory. */
static size_t
dir_len(const char *rel)
{
	return (size_t)(strrchr(rel, '/') - rel);
}

static int
index_stanza(void *ctx, const struct zd_control *st, struct zd_error *err)
{
	struct plan *pl = ctx;
	const char *fn = zd_dpkg_control_get(st, "Filename");
	const char *isz = zd_dpkg_control_get(st, "Installed-Size");
	struct entry e;
	long long kib = 0;

	if (fn == NULL)
		return zd_err(err, ZD_E_FORMAT, "no Filename field");
	memset(&e, 0, sizeof(e));
	if (isz != NULL && zd_parse_ll(isz, 0, LLONG_MAX, "Installed-Size",
	                               &kib, err) < 0)
		return -1;
	e.installed_kib = (uint64_t)kib;
	e.rel = strdup(fn);
	e.dist = strdup(pl->index_dist);
	e.sha256 = dup_or_null(zd_dpkg_control_get(st, "SHA256"));
	e.package = dup_or_null(zd_dpkg_control_get(st, "Package"));
	e.version = dup_or_null(zd_dpkg_control_get(st, "Version"));
	e.arch = dup_or_null(zd_dpkg_control_get(st, "Architecture"));
	if (e.rel == NULL || e.dist == NULL || push_entry(pl, &e) < 0) {
		entry_free(&e);
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	}
	return 0;
}

/* Reads the Packages indexes found, one per directory: plain, else .xz,
 * else .gz. */
static int
read_indexes(struct plan *pl)
{
	struct zd_error err = ZD_ERROR_INIT;

	qsort(pl->indexes, pl->n_indexes, sizeof(*pl->indexes), cmp_str);
	for (size_t i = 0; i < pl->n_indexes; ) {
		const char *best = pl->indexes[i];
		size_t d = dir_len(best), j;
		char *path, *dist;
		const char *bin;
		int rc;

		for (j = i; j < pl->n_indexes &&
		     dir_len(pl->indexes[j]) == d &&
		     strncmp(pl->indexes[j], best, d) == 0; j++) {
			const char *b = pl->indexes[j] + d;

			if (strcmp(b, "/Packages") == 0 ||
			    (strcmp(b, "/Packages.xz") == 0 &&
			     !ends_with(best, "/Packages")))
				best = pl->indexes[j];
		}
		i = j;
		/* dists/SUITE/COMPONENT/binary-ARCH/Packages */
		bin = best + d;
		while (bin > best && bin[-1] != '/')
			bin--;
		if (strncmp(best, "dists/", 6) != 0 || bin - best < 9) {
			zd_msg_warn("'%s': not under dists/SUITE/COMPONENT/: "
			            "left out", best);
			continue;
		}
		dist = strndup(best + 6, (size_t)(bin - 1 - (best + 6)));
		if (dist == NULL || strchr(dist, '/') == NULL ||
		    asprintf(&path, "%s/%s", pl->src, best) < 0) {
			free(dist);
			zd_msg_warn("'%s': not under dists/SUITE/COMPONENT/: "
			            "left out", best);
			continue;
		}
		pl->index_dist = dist;
		rc = zd_deb_repo_packages_read(path, index_stanza, pl, &err);
		free(path);
		free(dist);
		if (rc != 0) {
			zd_msg_error("%s", err.msg);
			return -1;
		}
	}
	return 0;
}

static int
found_deb(struct plan *pl, const char *rel)
{
	struct entry e;

	if (!ends_with(rel, ".deb"))
		return 0;
	memset(&e, 0, sizeof(e));
	e.rel = strdup(rel);
	e.dist = strdup(pl->default_dist);
	if (e.rel == NULL || e.dist == NULL || push_entry(pl, &e) < 0) {
		entry_free(&e);
		zd_msg_error("out of memory");
		return -1;
	}
	return 0;
}

static int
cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	int c = strcmp(x->rel, y->rel);

	return c != 0 ? c : strcmp(x->dist, y->dist);
}

/* Package, Version, Architecture and Installed-Size of the control file
 * into j; a package without them keeps NULLs (its run will fail). */
static void
control_fields(const char *path, const struct zd_deb *deb,
               struct zd_repo_job *j)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_dec_params dp;
	struct zd_control ctl = { NULL, 0 };
	char *text = NULL;
	size_t len;
	const char *isz;
	long long kib;

	zd_cli_dec_params(&dp, 1);
	if (zd_deb_member_read_file(&deb->control, &dp, "control", &text, &len,
	                        &err) <= 0 ||
	    zd_dpkg_control_parse(text, len, "control", &ctl, &err) < 0) {
		zd_msg_warn("'%s': cannot read its control file: %s", path,
		            err.msg[0] ? err.msg : "none");
		free(text);
		return;
	}
	j->package = dup_or_null(zd_dpkg_control_get(&ctl, "Package"));
	j->version = dup_or_null(zd_dpkg_control_get(&ctl, "Version"));
	j->arch = dup_or_null(zd_dpkg_control_get(&ctl, "Architecture"));
	isz = zd_dpkg_control_get(&ctl, "Installed-Size");
	if (isz != NULL && zd_parse_ll(isz, 0, LLONG_MAX, "Installed-Size",
	                               &kib, &err) == 0)
		j->installed_kib = (uint64_t)kib;
	zd_dpkg_control_free(&ctl);
	free(text);
}

/* The job of entries e[0, n) (one file, listed n times). */
static int
make_job(struct plan *pl, struct entry *e, size_t n, struct zd_repo_job *j)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_deb deb = { .fd = -1 };
	char *path;
	uint64_t size;
	bool from_index = e->package != NULL;

	memset(j, 0, sizeof(*j));
	if (asprintf(&path, "%s/%s", pl->src, e->rel) < 0) {
		zd_msg_error("out of memory");
		return -1;
	}
	j->input = path;
	/* An index's SHA-256 spares reading the file here; run checks it
	 * before converting, and records a mismatch as a failure. */
	if (e->sha256 != NULL && strlen(e->sha256) == 64 &&
	    strspn(e->sha256, "0123456789abcdef") == 64) {
		struct stat st;

		if (stat(path, &st) < 0) {
			zd_msg_error("'%s' (listed in a Packages index): %s",
			             path, strerror(errno));
			return -1;
		}
		memcpy(j->sha256, e->sha256, 65);
		size = (uint64_t)st.st_size;
	} else if (zd_deb_repo_sha256_file(path, j->sha256, &size, &err) < 0) {
		zd_msg_error("%s", err.msg);
		return -1;
	}
	j->size = size;
	if (from_index) {
		j->package = e->package;
		j->version = e->version;
		j->arch = e->arch;
		j->installed_kib = e->installed_kib;
		e->package = e->version = e->arch = NULL;
	}
	j->dists = calloc(n, sizeof(*j->dists));
	if (j->dists == NULL) {
		zd_msg_error("out of memory");
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		if (j->n_dists > 0 &&
		    strcmp(e[i].dist, j->dists[j->n_dists - 1]) == 0)
			continue;
		j->dists[j->n_dists++] = e[i].dist;
		e[i].dist = NULL;
	}
	if (zd_deb_open(path, &deb, &err) < 0 ||
	    zd_deb_repo_decide(&deb, &pl->want, j, &err) < 0) {
		/* planned all the same: its run fails and says why */
		zd_msg_warn("%s", err.msg);
		snprintf(j->from, sizeof(j->from), "unreadable");
		j->action = ZD_REPO_CONVERT;
		j->comp = pl->want.comp;
	} else if (!from_index) {
		control_fields(path, &deb, j);
	}
	zd_deb_close(&deb);
	if (zd_deb_repo_set_output(j, pl->dst, e->rel, &err) < 0) {
		zd_msg_error("%s", err.msg);
		return -1;
	}
	return 0;
}

/* Writes the jobs atomically to DST/.zdeb-repo/jobs.jsonl. */
static int
write_jobs(struct plan *pl, struct zd_repo_job *jobs, size_t n,
           char **out_path)
{
	struct zd_error err = ZD_ERROR_INIT;
	char *path = zd_deb_repo_state_path(pl->dst, "jobs.jsonl");
	char *tmp = NULL;
	FILE *f;
	int fd;

	*out_path = path;
	if (path == NULL || asprintf(&tmp, "%s.XXXXXX", path) < 0)
		return -1;
	fd = mkostemp(tmp, O_CLOEXEC);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (f == NULL) {
		zd_msg_error("cannot create '%s': %s", tmp, strerror(errno));
		if (fd >= 0)
			close(fd);
		free(tmp);
		return -1;
	}
	fchmod(fd, 0644);
	for (size_t i = 0; i < n; i++) {
		if (zd_deb_repo_job_write(&jobs[i], f, &err) < 0)
			break;
	}
	if (fclose(f) != 0 || err.msg[0] != '\0' || rename(tmp, path) < 0) {
		zd_msg_error("cannot write '%s': %s", path,
		             err.msg[0] ? err.msg : strerror(errno));
		unlink(tmp);
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
}

static void
print_plan(const char *jobs_path, const struct zd_repo_job *jobs, size_t n,
           bool json)
{
	size_t keep = 0, unread = 0;
	uint64_t bytes = 0;
	char conv[128] = "";

	for (size_t i = 0; i < n; i++) {
		bytes += jobs[i].size;
		keep += jobs[i].action == ZD_REPO_KEEP;
		unread += strcmp(jobs[i].from, "unreadable") == 0;
		if (jobs[i].action == ZD_REPO_CONVERT)
			zd_deb_repo_conversion(&jobs[i], conv, sizeof(conv));
	}
	if (json) {
		printf("{\"jobs\": ");
		zd_msg_json_str(jobs_path);
		printf(", \"packages\": %zu, \"bytes\": %ju, \"convert\": %zu, "
		       "\"keep\": %zu, \"unreadable\": %zu, \"conversion\": ",
		       n, (uintmax_t)bytes, n - keep, keep, unread);
		zd_msg_json_str(conv);
		printf("}\n");
		return;
	}
	printf("%zu packages, %ju bytes: %zu to convert%s%s%s, %zu to keep",
	       n, (uintmax_t)bytes, n - keep, conv[0] ? " (" : "", conv,
	       conv[0] ? ")" : "", keep);
	if (unread > 0)
		printf(", %zu unreadable (their runs will fail)", unread);
	printf("\njobs: %s\n", jobs_path);
}

static const struct option plan_longopts[] = {
	ZD_CLI_COMP_LONGOPTS,
	{ "suite", required_argument, NULL, ZD_OPT_SUITE },
	{ "component", required_argument, NULL, ZD_OPT_COMPONENT },
	{ "json", no_argument, NULL, ZD_OPT_JSON },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* "NAME" is a suite or component name apt and apt-ftparchive take. */
static bool
plain_name(const char *s, bool slash_ok)
{
	return s[0] != '\0' && s[0] != '.' &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	              "0123456789.+-_/") == strlen(s) &&
	       (slash_ok || strchr(s, '/') == NULL) && strstr(s, "..") == NULL;
}

static int
repo_plan(int argc, char **argv)
{
	struct zd_cli_comp raw = { .default_zstd_level = 19 };
	struct plan pl;
	struct zd_repo_job *jobs = NULL;
	const char *suite = "stable", *component = "main";
	char *src = NULL, *dst = NULL, *dist = NULL, *jobs_path = NULL;
	size_t n = 0;
	bool json = false;
	int opt, rc = ZD_EXIT_ERROR;

	memset(&pl, 0, sizeof(pl));
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ZD_CLI_COMP_SHORTOPTS "vh",
	                          plan_longopts, NULL)) != -1) {
		if (zd_cli_comp_option(opt, optarg, &raw))
			continue;
		switch (opt) {
		case ZD_OPT_SUITE: suite = optarg; break;
		case ZD_OPT_COMPONENT: component = optarg; break;
		case ZD_OPT_JSON: json = true; break;
		case 'v': zd_verbose++; break;
		case 'h': fputs(usage_text, stdout); return ZD_EXIT_OK;
		default:
			return zd_msg_usage("repo", "unknown option '%s'",
			                    argv[optind - 1]);
		}
	}
	if (argc - optind != 2)
		return zd_msg_usage("repo", "plan: expected SRC DST");
	if (!plain_name(suite, true) || !plain_name(component, false))
		return zd_msg_usage("repo", "plan: bad suite or component "
		                    "name");
	if (zd_cli_comp_resolve("repo", &raw, &pl.want.comp) < 0)
		return ZD_EXIT_ERROR;
	pl.want.keep_readable = raw.target != NULL && raw.type == NULL &&
	                        !zd_cli_target_reads_zstd(raw.target);
	src = realpath(argv[optind], NULL);
	if (src == NULL) {
		zd_msg_error("'%s': %s", argv[optind], strerror(errno));
		return ZD_EXIT_ERROR;
	}
	if (cmd_repo_mkdirs(argv[optind + 1]) < 0)
		goto out;
	dst = realpath(argv[optind + 1], NULL);
	if (dst == NULL || stat(dst, &pl.dst_st) < 0) {
		zd_msg_error("'%s': %s", argv[optind + 1], strerror(errno));
		goto out;
	}
	if (strcmp(src, dst) == 0 || strchr(dst, '"') != NULL ||
	    (strncmp(dst, src, strlen(src)) == 0 &&
	     dst[strlen(src)] == '/' && strcmp(src, "/") != 0) ||
	    (strncmp(src, dst, strlen(dst)) == 0 &&
	     src[strlen(dst)] == '/')) {
		zd_msg_error("'%s' and '%s': DST must be neither SRC nor "
		             "inside it, nor hold it (nor a '\"')", src, dst);
		goto out;
	}
	pl.src = src;
	pl.dst = dst;
	if (asprintf(&dist, "%s/%s", suite, component) < 0)
		goto out;
	pl.default_dist = dist;
	{
		char *d;
		struct stat st;

		if (asprintf(&d, "%s/dists", src) < 0)
			goto out;
		if (stat(d, &st) == 0 && S_ISDIR(st.st_mode) &&
		    walk(&pl, src, "dists", find_index) < 0) {
			free(d);
			goto out;
		}
		free(d);
	}
	if (pl.n_indexes > 0 ? read_indexes(&pl) < 0 :
	    walk(&pl, src, "", found_deb) < 0)
		goto out;
	if (pl.n == 0) {
		zd_msg_error("'%s': no packages found (no Packages index "
		             "under dists/, no *.deb)", src);
		goto out;
	}
	qsort(pl.e, pl.n, sizeof(*pl.e), cmp_entry);
	jobs = calloc(pl.n, sizeof(*jobs));
	if (jobs == NULL)
		goto out;
	for (size_t i = 0; i < pl.n; ) {
		size_t k = i + 1;

		while (k < pl.n && strcmp(pl.e[k].rel, pl.e[i].rel) == 0)
			k++;
		if (make_job(&pl, &pl.e[i], k - i, &jobs[n]) < 0) {
			zd_deb_repo_job_free(&jobs[n]);
			goto out;
		}
		jobs[n].index = n;
		n++;
		i = k;
	}
	{
		char *state = zd_deb_repo_state_path(dst, "");

		if (state == NULL || cmd_repo_mkdirs(state) < 0) {
			free(state);
			goto out;
		}
		free(state);
	}
	if (write_jobs(&pl, jobs, n, &jobs_path) < 0)
		goto out;
	print_plan(jobs_path, jobs, n, json);
	rc = ZD_EXIT_OK;
out:
	for (size_t i = 0; i < n; i++)
		zd_deb_repo_job_free(&jobs[i]);
	free(jobs);
	for (size_t i = 0; i < pl.n; i++)
		entry_free(&pl.e[i]);
	free(pl.e);
	for (size_t i = 0; i < pl.n_indexes; i++)
		free(pl.indexes[i]);
	free(pl.indexes);
	free(jobs_path);
	free(dist);
	free(src);
	free(dst);
	return rc;
}

/* run -------------------------------------------------------------- */

/* Exit statuses of a pool worker. */
enum { W_DONE = 0, W_FAILED = 1, W_ERROR = 2 };

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* CPU seconds of this process and its reaped children (the stock
 * dpkg-deb that verify runs). */
static double
cpu_s(void)
{
	struct rusage s, c;

	getrusage(RUSAGE_SELF, &s);
	getrusage(RUSAGE_CHILDREN, &c);
	return (double)(s.ru_utime.tv_sec + s.ru_stime.tv_sec +
	                c.ru_utime.tv_sec + c.ru_stime.tv_sec) +
	       (double)(s.ru_utime.tv_usec + s.ru_stime.tv_usec +
	                c.ru_utime.tv_usec + c.ru_stime.tv_usec) / 1e6;
}

/*
 * 1 when j is done: its result says converted or kept and its output
 * matches it (size; SHA-256 too when hash), r filled.  0 when it is to
 * run; *redo then says whether a result said done over an output that
 * does not match (said on stderr).  -1 on an error (printed).
 */
static int
job_done(const struct zd_repo_job *j, bool hash, struct zd_repo_result *r,
         bool *redo)
{
	struct zd_error err = ZD_ERROR_INIT;
	char why[PATH_MAX + 128];
	int rc;

	*redo = false;
	rc = zd_deb_repo_result_load(j, r, &err);
	if (rc < 0) {
		zd_msg_warn("%s: running the job again", err.msg);
		return 0;
	}
	if (rc == 0)
		return 0;
	if (r->verdict == ZD_REPO_FAILED) {
		zd_deb_repo_result_free(r);
		return 0;
	}
	rc = zd_deb_repo_output_check(j, r, hash, why, sizeof(why), &err);
	if (rc < 0) {
		zd_msg_error("%s", err.msg);
		zd_deb_repo_result_free(r);
		return -1;
	}
	if (rc == 0) {
		zd_msg_warn("job %ju: %s: its output does not match its "
		            "result: running it again", (uintmax_t)j->index,
		            why);
		zd_deb_repo_result_free(r);
		*redo = true;
	}
	return rc;
}

/* Records why j failed at stage into r. */
static void
fail(struct zd_repo_result *r, const char *stage, const char *why)
{
	r->verdict = ZD_REPO_FAILED;
	free(r->stage);
	free(r->error);
	r->stage = strdup(stage);
	r->error = strdup(why != NULL ? why : "unknown error");
}

/* Makes j's package at tmp: recompressed, or a copy. */
static int
make_package(const struct zd_repo_job *j, const char *tmp, unsigned threads,
             struct zd_repo_result *r)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_deb deb = { .fd = -1 };
	struct zd_comp_params cp = j->comp;
	struct zd_dec_params dp;
	struct zd_recompress_opts o = { &cp, &dp, NULL, NULL, NULL, true };
	struct zd_recompress_result rr;

	if (j->action == ZD_REPO_KEEP) {
		if (zd_deb_repo_copy_file(j->input, tmp, &err) < 0) {
			fail(r, "convert", err.msg);
			return -1;
		}
		r->verdict = ZD_REPO_KEPT;
		return 0;
	}
	if (zd_deb_open(j->input, &deb, &err) < 0) {
		fail(r, "input", err.msg);
		return -1;
	}
	cp.threads = threads;
	cp.warn = zd_msg_warn_cb;
	zd_cli_dec_params(&dp, threads);
	if (zd_deb_recompress(&deb, tmp, &o, &rr, &err) < 0) {
		zd_err_prefix(&err, "'%s'", j->input);
		fail(r, err.code == ZD_E_IO || err.code == ZD_E_NOMEM ?
		     "convert" : "input", err.msg);
		zd_deb_close(&deb);
		return -1;
	}
	zd_deb_close(&deb);
	r->tar_bytes = rr.tar_bytes[0] + rr.tar_bytes[1];
	r->verdict = ZD_REPO_CONVERTED;
	return 0;
}

/*
 * Runs job j (not done): its package made in tmp/, verified, renamed to
 * its output path; the result saved and left in r.  Returns W_DONE,
 * W_FAILED (recorded), or W_ERROR (printed; nothing recorded).
 */
static int
run_job(const struct zd_repo_job *j, unsigned threads, bool redone,
        struct zd_repo_result *r)
{
	struct zd_error err = ZD_ERROR_INIT;
	double t0 = now_s(), c0 = cpu_s();
	char host[256] = "", sha[65], *tmp = NULL, *dir;
	uint64_t size;
	int rc = W_ERROR;

	memset(r, 0, sizeof(*r));
	gethostname(host, sizeof(host) - 1);
	r->redone = redone;
	r->index = j->index;
	r->in_bytes = j->size;
	r->host = strdup(host);
	dir = zd_deb_repo_state_path(j->dst, "tmp");
	if (cmd_repo_mkdirs(dir) < 0) {
		free(dir);
		goto out;
	}
	free(dir);
	tmp = zd_deb_repo_tmp_path(j, host, (long)getpid());
	if (tmp == NULL) {
		zd_msg_error("out of memory");
		goto out;
	}
	dir = zd_deb_repo_state_path(j->dst, "results");
	if (dir == NULL || cmd_repo_mkdirs(dir) < 0) {
		free(dir);
		goto out;
	}
	free(dir);
	unlink(tmp);
	zd_msg_last_clear();
	if (zd_deb_repo_sha256_file(j->input, sha, &size, &err) < 0) {
		fail(r, "input", err.msg);
	} else if (strcmp(sha, j->sha256) != 0) {
		char why[PATH_MAX + 64];

		snprintf(why, sizeof(why), "'%s' changed since the plan (its "
		         "SHA-256 differs): plan again", j->input);
		fail(r, "input", why);
	} else if (make_package(j, tmp, threads, r) == 0) {
		int v = zd_cli_verify_stock(tmp, threads, true);

		if (v != ZD_EXIT_OK) {
			fail(r, "verify", zd_msg_last());
		} else if (zd_deb_repo_publish(j, tmp, r, &err) < 0) {
			fail(r, "publish", err.msg);
		}
	}
	if (r->verdict == ZD_REPO_FAILED)
		unlink(tmp);
	r->wall_s = now_s() - t0;
	r->cpu_s = cpu_s() - c0;
	if (zd_deb_repo_result_save(j, r, &err) < 0) {
		zd_msg_error("%s", err.msg);
		goto out;
	}
	rc = r->verdict == ZD_REPO_FAILED ? W_FAILED : W_DONE;
out:
	free(tmp);
	return rc;
}

/*
 * Set once a result line could not be written to stdout (a reader that
 * went away, a full disk): the jobs go on, as their results are recorded
 * in DST, but the command then exits with status 2, since what it
 * printed is short.  Only the parent process writes results.
 */
static bool stdout_failed;

/* Prints r, the result of j, as its line on stdout; says once why not. */
static void
print_result(const struct zd_repo_job *j, const struct zd_repo_result *r)
{
	struct zd_error err = ZD_ERROR_INIT;
	int e = 0;

	if (stdout_failed)
		return;
	if (zd_deb_repo_result_write(j, r, stdout, &err) < 0)
		e = err.sys_errno != 0 ? err.sys_errno : EIO;
	else if (fflush(stdout) != 0)
		e = errno != 0 ? errno : EIO;
	if (e != 0) {
		stdout_failed = true;
		zd_msg_error("cannot write the result of job %llu to stdout: "
		             "%s; the remaining results are only in the "
		             "results directory", (unsigned long long)j->index,
		             strerror(e));
	}
}

struct tally {
	size_t converted, kept, skipped, failed;
	size_t redone;	/* of converted and kept: the output there did
			 * not match its result */
};

static void
count(struct tally *t, const struct zd_repo_result *r)
{
	if (!r->skipped && r->verdict != ZD_REPO_FAILED && r->redone)
		t->redone++;
	if (r->skipped)
		t->skipped++;
	else if (r->verdict == ZD_REPO_CONVERTED)
		t->converted++;
	else if (r->verdict == ZD_REPO_KEPT)
		t->kept++;
	else
		t->failed++;
}

/* Is pid a process here that has not ended (a zombie has)? */
static bool
pid_alive(pid_t pid)
{
	char path[64], buf[256], *rp;
	FILE *f;
	size_t n;

	if (kill(pid, 0) < 0 && errno == ESRCH)
		return false;
	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	f = fopen(path, "re");
	if (f == NULL)
		return true;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* "PID (COMM) STATE ...": COMM may hold ')' */
	rp = strrchr(buf, ')');
	return rp == NULL || rp[1] != ' ' ||
	       (rp[2] != 'Z' && rp[2] != 'X');
}

/*
 * Removes from DST/.zdeb-repo/tmp/ what runs on this host killed before
 * they finished left: "KEY-NAME@HOST.PID" (zd_deb_repo_tmp_path) and its
 * ".zdeb-XXXXXX" temporaries, whose PID is no process here.  Other hosts'
 * files are left to their own reruns and to finish.  And from results/
 * the temporaries of results no process holds (zd_outfile_clean_dir).
 */
static void
clean_tmp(const struct zd_repo_job *j)
{
	char *dir = zd_deb_repo_state_path(j->dst, "tmp");
	char host[256] = "";
	DIR *d = dir != NULL ? opendir(dir) : NULL;
	struct dirent *de;
	size_t n = 0;

	gethostname(host, sizeof(host) - 1);
	while (d != NULL && (de = readdir(d)) != NULL) {
		long pid;

		if (!zd_deb_repo_tmp_owner(de->d_name, host, &pid))
			continue;
		if (pid_alive((pid_t)pid))
			continue;
		if (unlinkat(dirfd(d), de->d_name, 0) == 0)
			n++;
	}
	if (d != NULL)
		closedir(d);
	if (n > 0)
		zd_msg_info("removed %zu temporary files of killed runs from "
		            "'%s'", n, dir);
	free(dir);
	/* results being saved by a killed run (no lock held) */
	dir = zd_deb_repo_state_path(j->dst, "results");
	if (dir != NULL && (n = zd_outfile_clean_dir(dir)) > 0)
		zd_msg_info("removed %zu temporary files of killed runs from "
		            "'%s'", n, dir);
	free(dir);
}

/* Runs or skips j in this process; prints its result line. */
static int
run_here(const struct zd_repo_job *j, unsigned threads, bool hash,
         struct tally *t)
{
	struct zd_repo_result r;
	bool redo;
	int rc = job_done(j, hash, &r, &redo);

	if (rc < 0)
		return W_ERROR;
	if (rc > 0) {
		r.skipped = true;
	} else {
		rc = run_job(j, threads, redo, &r);
		if (rc == W_ERROR) {
			zd_deb_repo_result_free(&r);
			return rc;
		}
	}
	print_result(j, &r);
	count(t, &r);
	rc = r.verdict == ZD_REPO_FAILED ? W_FAILED : W_DONE;
	zd_deb_repo_result_free(&r);
	return rc;
}

struct worker {
	pid_t pid;
	size_t job;
};

/* A worker has ended: print the result it saved, or record why there is
 * none (it was killed). */
static int
reap(const struct zd_repo_job *j, int status, struct tally *t)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_repo_result r;
	int rc = zd_deb_repo_result_load(j, &r, &err);

	if (rc < 0)
		zd_msg_error("%s", err.msg);
	if (rc <= 0 || (status != W_DONE && status != W_FAILED)) {
		char why[96];

		if (rc > 0)
			zd_deb_repo_result_free(&r);
		memset(&r, 0, sizeof(r));
		r.index = j->index;
		r.in_bytes = j->size;
		if (status > 128)
			snprintf(why, sizeof(why), "the worker was killed by "
			         "signal %d", status - 128);
		else
			snprintf(why, sizeof(why), "the worker exited with "
			         "status %d", status);
		fail(&r, "worker", why);
		if (zd_deb_repo_result_save(j, &r, &err) < 0)
			zd_msg_error("%s", err.msg);
	}
	print_result(j, &r);
	count(t, &r);
	rc = r.verdict == ZD_REPO_FAILED ? W_FAILED : W_DONE;
	zd_deb_repo_result_free(&r);
	return rc;
}

static int
wait_status(int ws)
{
	if (WIFEXITED(ws))
		return WEXITSTATUS(ws);
	return WIFSIGNALED(ws) ? 128 + WTERMSIG(ws) : 128;
}

/* Every job on a pool of n forked workers. */
static int
run_pool(const struct zd_repo_jobs *jobs, unsigned n, unsigned threads,
         bool hash, struct tally *t)
{
	struct worker *w = calloc(n, sizeof(*w));
	size_t next = 0, busy = 0;
	int rc = W_DONE;

	if (w == NULL) {
		zd_msg_error("out of memory");
		return W_ERROR;
	}
	fflush(stdout);
	while (next < jobs->n || busy > 0) {
		while (busy < n && next < jobs->n) {
			const struct zd_repo_job *j = &jobs->v[next];
			struct zd_repo_result r;
			bool redo;
			int done = job_done(j, hash, &r, &redo);
			size_t slot;
			pid_t pid;

			if (done != 0) {
				if (done > 0) {
					r.skipped = true;
					print_result(j, &r);
					count(t, &r);
					zd_deb_repo_result_free(&r);
				} else {
					rc = W_ERROR;
				}
				next++;
				continue;
			}
			for (slot = 0; w[slot].pid != 0; slot++)
				;
			pid = fork();
			if (pid < 0) {
				zd_msg_error("cannot fork: %s",
				             strerror(errno));
				rc = W_ERROR;
				next = jobs->n;
				break;
			}
			if (pid == 0) {
				struct zd_repo_result cr;
				int c = run_job(j, threads, redo, &cr);

				zd_deb_repo_result_free(&cr);
				fflush(NULL);
				_exit(c);
			}
			w[slot].pid = pid;
			w[slot].job = next++;
			busy++;
		}
		if (busy == 0)
			break;
		{
			int ws, s;
			pid_t pid = wait(&ws);
			size_t slot;

			if (pid < 0) {
				if (errno == EINTR)
					continue;
				zd_msg_error("wait: %s", strerror(errno));
				rc = W_ERROR;
				break;
			}
			for (slot = 0; slot < n && w[slot].pid != pid; slot++)
				;
			if (slot == n)
				continue;
			s = reap(&jobs->v[w[slot].job], wait_status(ws), t);
			if (s > rc)
				rc = s;
			w[slot].pid = 0;
			busy--;
		}
	}
	free(w);
	return rc;
}

static const struct option run_longopts[] = {
	{ "index", required_argument, NULL, ZD_OPT_INDEX },
	{ "jobs", required_argument, NULL, ZD_OPT_JOBS },
	{ "threads", required_argument, NULL, 'T' },
	{ "verify-hash", no_argument, NULL, ZD_OPT_VERIFY_HASH },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int
repo_run(int argc, char **argv)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_repo_jobs jobs;
	struct tally t = { 0, 0, 0, 0, 0 };
	long long index = -1, workers = 0;
	unsigned threads = 0;
	bool hash = false;
	int opt, rc;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "T:vh", run_longopts,
	                          NULL)) != -1) {
		switch (opt) {
		case ZD_OPT_INDEX:
			if (zd_parse_ll(optarg, 0, LLONG_MAX, "index", &index,
			                &err) < 0)
				return zd_msg_usage("repo", "%s", err.msg);
			break;
		case ZD_OPT_JOBS:
			if (zd_parse_ll(optarg, 1, 4096, "worker count",
			                &workers, &err) < 0)
				return zd_msg_usage("repo", "%s", err.msg);
			break;
		case 'T':
			if (zd_cli_parse_threads("repo", optarg, &threads) < 0)
				return ZD_EXIT_ERROR;
			break;
		case ZD_OPT_VERIFY_HASH: hash = true; break;
		case 'v': zd_verbose++; break;
		case 'h': fputs(usage_text, stdout); return ZD_EXIT_OK;
		default:
			return zd_msg_usage("repo", "unknown option '%s'",
			                    argv[optind - 1]);
		}
	}
	if (argc - optind != 1)
		return zd_msg_usage("repo", "run: expected JOBS");
	if (index >= 0 && workers > 0)
		return zd_msg_usage("repo", "run: --index and --jobs exclude "
		                    "each other");
	if (zd_deb_repo_jobs_load(argv[optind], &jobs, &err) < 0) {
		zd_msg_error("%s", err.msg);
		return ZD_EXIT_ERROR;
	}
	if (index >= 0) {
		if ((uint64_t)index >= jobs.n) {
			zd_msg_error("index %lld out of range: '%s' has %zu "
			             "jobs (0 to %zu)", index, argv[optind],
			             jobs.n, jobs.n - 1);
			zd_deb_repo_jobs_free(&jobs);
			return ZD_EXIT_ERROR;
		}
		clean_tmp(&jobs.v[index]);
		rc = run_here(&jobs.v[index], threads ? threads :
		              zd_cli_ncpus(), hash, &t);
	} else {
		unsigned n = workers > 0 ? (unsigned)workers : zd_cli_ncpus();

		if (threads == 0)
			threads = zd_cli_ncpus() / n > 0 ?
			          zd_cli_ncpus() / n : 1;
		if (jobs.n > 0)
			clean_tmp(&jobs.v[0]);
		rc = run_pool(&jobs, n, threads, hash, &t);
		zd_msg_info("%zu jobs: %zu converted, %zu kept, %zu done "
		            "before, %zu redone (output did not match its "
		            "result), %zu failed", jobs.n, t.converted, t.kept,
		            t.skipped, t.redone, t.failed);
	}
	zd_deb_repo_jobs_free(&jobs);
	if (stdout_failed)
		return ZD_EXIT_ERROR;
	return rc == W_DONE ? ZD_EXIT_OK :
	       rc == W_FAILED ? ZD_EXIT_MISMATCH : ZD_EXIT_ERROR;
}

int
cmd_repo(int argc, char **argv)
{
	const char *sub = argc > 1 ? argv[1] : NULL;

	if (sub == NULL)
		return zd_msg_usage("repo", "expected plan, run or finish");
	if (strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0) {
		fputs(usage_text, stdout);
		return ZD_EXIT_OK;
	}
	if (strcmp(sub, "plan") == 0)
		return repo_plan(argc - 1, argv + 1);
	if (strcmp(sub, "run") == 0)
		return repo_run(argc - 1, argv + 1);
	if (strcmp(sub, "finish") == 0)
		return cmd_repo_finish(argc - 1, argv + 1);
	return zd_msg_usage("repo", "unknown subcommand '%s' (plan, run, "
	                    "finish)", sub);
}
