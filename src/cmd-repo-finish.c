/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd-repo-finish.c - zdeb repo finish: the apt indexes of the converted
 * repository, made by apt-ftparchive, and the report of what it bought
 *
 * Packages and Contents come from "apt-ftparchive generate" reading file
 * lists (one per suite, component and architecture) of exactly the
 * outputs of the current job list, so that outputs of older plans left
 * in DST/pool are not indexed; Release from "apt-ftparchive release",
 * signed by gpg when asked.  The install-time estimate runs zdeb-perf as
 * a command (it is a separate package and program).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/deb-repo.h"
#include "lib/dpkg-pkginfo.h"
#include "lib/fdio.h"
#include "lib/numparse.h"
#include "lib/spawn.h"
#include "src/cmd.h"
#include "src/msg.h"

static const char usage_text[] =
"Usage: zdeb repo finish [--sign KEYID] [--partial] [--perf-sample N]\n"
"                        [--perf-runs N] [--project FILE|SIZE] [--json] DST\n"
"\n"
"Check every output of DST's job list against its result (size and\n"
"SHA-256), index them with apt-ftparchive (Packages, Contents, Release,\n"
"signed with gpg --local-user KEYID when --sign is given), and report\n"
"what the conversion bought.  Indexes are made under temporary names and\n"
"put in place only when every check passed: a failed, missing or\n"
"mismatching job, an apt-ftparchive error or warning, or a tool asked for\n"
"that cannot run, is exit status 1 or 2 with no index written, unless\n"
"--partial (index the rest, list what was left out).  --perf-sample N:\n"
"an install-time estimate from zdeb-perf on N packages (default 3; 0:\n"
"none).  --project: the throughput measured here (tar MB per CPU-second)\n"
"applied to an archive, a Packages index or a size, on 1, 16 and 256\n"
"workers.  See zdeb(1).\n";

/* One job with its result. */
struct item {
	const struct zd_repo_job *job;
	struct zd_repo_result r;
	bool has_result;
	/* done by its result, but its output does not match it (size,
	 * SHA-256, missing): why says how */
	bool mismatch;
	char *why;
};

/* Bytes per "from" compressor, over the packages done. */
struct group {
	char from[24];
	size_t n;
	uint64_t before, after;
	/* the converted ones, for throughput: tar bytes, input bytes and
	 * CPU seconds (recompress and verify) their results recorded */
	size_t conv_n;
	uint64_t conv_tar, conv_in;
	double conv_cpu_s;
};

/* The figures of the install-time estimate. */
struct estimate {
	bool made;
	char why[256];			/* when not made */
	size_t sample;			/* packages */
	char names[256];		/* theirs, ", "-separated */
	uint64_t sample_weight, total_weight;	/* tar bytes */
	char variants[2][16];
	size_t n_variants;
	double s[2][2];			/* [variant][stock, zdeb]: median
					 * elapsed; <0: none */
	double cpu[2][2];		/* median user + sys */
	unsigned runs;
};

struct report {
	const char *dst;
	char *stage;		/* DST/.zdeb-repo/stage */
	struct item *items;
	size_t n;
	size_t converted, kept, failed, not_run, mismatched;
	struct group groups[16];
	size_t n_groups;
	double cpu_s, wall_s;
	char conversion[128];
	char **suites;
	size_t n_suites;
	bool indexed, signed_;
	const char *key;
	size_t tmp_removed;
	struct estimate est;
	const char *project;		/* --project FILE|SIZE, or NULL */
	struct zd_repo_archive archive;	/* what it holds */
};

static struct group *
group_of(struct report *rep, const char *from)
{
	for (size_t i = 0; i < rep->n_groups; i++)
		if (strcmp(rep->groups[i].from, from) == 0)
			return &rep->groups[i];
	if (rep->n_groups == sizeof(rep->groups) / sizeof(*rep->groups))
		return &rep->groups[rep->n_groups - 1];
	snprintf(rep->groups[rep->n_groups].from, 24, "%s", from);
	return &rep->groups[rep->n_groups++];
}

/* Loads every job's result and checks every output said done against
 * it, size and SHA-256: finish trusts no earlier step. */
static int
load_results(struct report *rep, const struct zd_repo_jobs *jobs)
{
	struct zd_error err = ZD_ERROR_INIT;

	rep->items = calloc(jobs->n > 0 ? jobs->n : 1, sizeof(*rep->items));
	if (rep->items == NULL) {
		zd_msg_error("out of memory");
		return -1;
	}
	rep->n = jobs->n;
	for (size_t i = 0; i < jobs->n; i++) {
		struct item *it = &rep->items[i];
		const struct zd_repo_job *j = &jobs->v[i];
		char why[PATH_MAX + 128];
		int rc;

		it->job = j;
		if (j->action == ZD_REPO_CONVERT && rep->conversion[0] == '\0')
			zd_deb_repo_conversion(j, rep->conversion,
			                   sizeof(rep->conversion));
		rc = zd_deb_repo_result_load(j, &it->r, &err);
		if (rc < 0) {
			zd_msg_error("%s", err.msg);
			return -1;
		}
		it->has_result = rc > 0;
		if (!it->has_result) {
			rep->not_run++;
			continue;
		}
		rep->cpu_s += it->r.cpu_s;
		rep->wall_s += it->r.wall_s;
		if (it->r.verdict == ZD_REPO_FAILED) {
			rep->failed++;
			continue;
		}
		rc = zd_deb_repo_output_check(j, &it->r, true, why, sizeof(why),
		                          &err);
		if (rc < 0) {
			zd_msg_error("%s", err.msg);
			return -1;
		}
		if (rc == 0) {
			it->mismatch = true;
			it->why = strdup(why);
			rep->mismatched++;
			zd_msg_error("%s: output does not match its result: %s",
			             j->package != NULL ? j->package : "?",
			             why);
			continue;
		}
		if (it->r.verdict == ZD_REPO_CONVERTED)
			rep->converted++;
		else
			rep->kept++;
		{
			struct group *g = group_of(rep, j->from);

			g->n++;
			g->before += j->size;
			g->after += it->r.out_bytes;
			if (it->r.verdict == ZD_REPO_CONVERTED &&
			    it->r.tar_bytes > 0) {
				g->conv_tar += it->r.tar_bytes;
				g->conv_in += j->size;
				g->conv_cpu_s += it->r.cpu_s;
				g->conv_n++;
			}
		}
	}
	return 0;
}

static bool
item_ok(const struct item *it)
{
	return it->has_result && it->r.verdict != ZD_REPO_FAILED &&
	       !it->mismatch;
}

/* indexes --------------------------------------------------------- */

/* A suite: its components and architectures. */
struct suite {
	char *name;
	char **comps, **archs;
	size_t n_comps, n_archs;
};

static int
add_name(char ***v, size_t *n, const char *name, size_t len)
{
	char **p;

	for (size_t i = 0; i < *n; i++)
		if (strlen((*v)[i]) == len && strncmp((*v)[i], name, len) == 0)
			return 0;
	p = reallocarray(*v, *n + 1, sizeof(*p));
	if (p == NULL || (p[*n] = strndup(name, len)) == NULL) {
		if (p != NULL)
			*v = p;
		zd_msg_error("out of memory");
		return -1;
	}
	*v = p;
	(*n)++;
	return 0;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
suites_free(struct suite *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(s[i].name);
		for (size_t k = 0; k < s[i].n_comps; k++)
			free(s[i].comps[k]);
		for (size_t k = 0; k < s[i].n_archs; k++)
			free(s[i].archs[k]);
		free(s[i].comps);
		free(s[i].archs);
	}
	free(s);
}

/* The suites, components and architectures of the packages done. */
static int
collect_suites(const struct report *rep, struct suite **out, size_t *n_out)
{
	struct suite *s = NULL;
	size_t n = 0;

	for (size_t i = 0; i < rep->n; i++) {
		const struct zd_repo_job *j = rep->items[i].job;

		if (!item_ok(&rep->items[i]))
			continue;
		for (size_t d = 0; d < j->n_dists; d++) {
			const char *slash = strrchr(j->dists[d], '/');
			size_t sl = (size_t)(slash - j->dists[d]), k;

			for (k = 0; k < n; k++)
				if (strlen(s[k].name) == sl &&
				    strncmp(s[k].name, j->dists[d], sl) == 0)
					break;
			if (k == n) {
				struct suite *p = reallocarray(s, n + 1,
				                               sizeof(*p));

				if (p == NULL)
					goto nomem;
				s = p;
				memset(&s[n], 0, sizeof(s[n]));
				s[n].name = strndup(j->dists[d], sl);
				if (s[n++].name == NULL)
					goto nomem;
			}
			if (add_name(&s[k].comps, &s[k].n_comps, slash + 1,
			             strlen(slash + 1)) < 0 ||
			    (j->arch != NULL && strcmp(j->arch, "all") != 0 &&
			     add_name(&s[k].archs, &s[k].n_archs, j->arch,
			              strlen(j->arch)) < 0))
				goto fail;
		}
	}
	for (size_t k = 0; k < n; k++) {
		/* only "all" packages: apt looks for the native arch */
		if (s[k].n_archs == 0) {
			const char *a = zd_dpkg_pkginfo_native_arch();

			if (add_name(&s[k].archs, &s[k].n_archs, a,
			             strlen(a)) < 0)
				goto fail;
		}
		qsort(s[k].comps, s[k].n_comps, sizeof(char *), cmp_str);
		qsort(s[k].archs, s[k].n_archs, sizeof(char *), cmp_str);
	}
	*out = s;
	*n_out = n;
	return 0;
nomem:
	zd_msg_error("out of memory");
fail:
	suites_free(s, n);
	return -1;
}

/* DST/.zdeb-repo/lists/dists/SUITE/COMP/binary-ARCH.list */
static char *
list_path(const char *dst, const char *suite, const char *comp,
          const char *arch)
{
	char *p;

	if (asprintf(&p, "%s/%s/lists/dists/%s/%s/binary-%s.list", dst,
	             ZD_REPO_STATE_DIR, suite, comp, arch) < 0)
		return NULL;
	return p;
}

/* STAGE/dists/SUITE/COMP/binary-ARCH, for apt-ftparchive to write into
 * (STAGE: DST/.zdeb-repo/stage; published to DST/dists when all is
 * checked). */
static int
make_index_dir(const char *dst, const char *suite, const char *comp,
               const char *arch)
{
	char *dir;
	int rc;

	if (asprintf(&dir, "%s/dists/%s/%s/binary-%s", dst, suite, comp,
	             arch) < 0) {
		zd_msg_error("out of memory");
		return -1;
	}
	rc = cmd_repo_mkdirs(dir);
	free(dir);
	return rc;
}

/* Does j list "suite/comp" among its dists? */
static bool
in_dist(const struct zd_repo_job *j, const char *suite, const char *comp)
{
	size_t len = strlen(suite);

	for (size_t d = 0; d < j->n_dists; d++)
		if (strncmp(j->dists[d], suite, len) == 0 &&
		    j->dists[d][len] == '/' &&
		    strcmp(j->dists[d] + len + 1, comp) == 0)
			return true;
	return false;
}

/* The file list of suite, comp and arch: the outputs done that it lists,
 * of arch or "all"; and the directory apt-ftparchive writes into. */
static int
write_list(const struct report *rep, const char *suite, const char *comp,
           const char *arch)
{
	char *path = list_path(rep->dst, suite, comp, arch);
	char *dir = path != NULL ? strdup(path) : NULL;
	FILE *f = NULL;
	int rc = -1;

	if (dir == NULL) {
		zd_msg_error("out of memory");
		goto out;
	}
	*strrchr(dir, '/') = '\0';
	if (cmd_repo_mkdirs(dir) < 0 ||
	    make_index_dir(rep->stage, suite, comp, arch) < 0)
		goto out;
	f = fopen(path, "we");
	if (f == NULL)
		goto fail;
	for (size_t i = 0; i < rep->n; i++) {
		const struct zd_repo_job *j = rep->items[i].job;

		if (item_ok(&rep->items[i]) && j->arch != NULL &&
		    (strcmp(j->arch, "all") == 0 ||
		     strcmp(j->arch, arch) == 0) && in_dist(j, suite, comp))
			fprintf(f, "%s\n", j->output);
	}
	if (fclose(f) != 0) {
		f = NULL;
		goto fail;
	}
	f = NULL;
	rc = 0;
	goto out;
fail:
	zd_msg_error("cannot write '%s': %s", path, strerror(errno));
out:
	if (f != NULL)
		fclose(f);
	free(dir);
	free(path);
	return rc;
}

/* Writes every file list: an output goes into the lists of its suites'
 * components, for its architecture ("all": every one). */
static int
write_lists(const struct report *rep, const struct suite *s, size_t n)
{
	for (size_t k = 0; k < n; k++)
		for (size_t c = 0; c < s[k].n_comps; c++)
			for (size_t a = 0; a < s[k].n_archs; a++)
				if (write_list(rep, s[k].name, s[k].comps[c],
				               s[k].archs[a]) < 0)
					return -1;
	return 0;
}

static void
put_list(FILE *f, char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%s", i > 0 ? " " : "", v[i]);
}

/* The apt-ftparchive generate configuration. */
static char *
write_conf(const struct report *rep, const struct suite *s, size_t n)
{
	char *path = zd_deb_repo_state_path(rep->dst, "apt-ftparchive.conf");
	FILE *f;

	if (path == NULL)
		return NULL;
	f = fopen(path, "we");
	if (f == NULL) {
		zd_msg_error("cannot write '%s': %s", path, strerror(errno));
		free(path);
		return NULL;
	}
	/* the cache directory is emptied before each run: no cached
	 * answer stands for a file that changed since */
	fprintf(f, "// written by zdeb repo finish\n"
	        "Dir { ArchiveDir \"%s\"; CacheDir \"%s/%s/cache\"; };\n"
	        "Default { Packages::Compress \". xz\"; "
	        "Contents::Compress \"gzip\"; FileMode 0644; };\n"
	        "TreeDefault { FileList \"%s/%s/lists/$(DIST)/$(SECTION)/"
	        "binary-$(ARCH).list\"; Packages \"%s/$(DIST)/$(SECTION)/"
	        "binary-$(ARCH)/Packages\"; Contents \"%s/$(DIST)/"
	        "$(SECTION)/Contents-$(ARCH)\"; };\n", rep->dst, rep->dst,
	        ZD_REPO_STATE_DIR, rep->dst, ZD_REPO_STATE_DIR, rep->stage,
	        rep->stage);
	for (size_t k = 0; k < n; k++) {
		fprintf(f, "Tree \"dists/%s\" { Sections \"", s[k].name);
		put_list(f, s[k].comps, s[k].n_comps);
		fprintf(f, "\"; Architectures \"");
		put_list(f, s[k].archs, s[k].n_archs);
		fprintf(f, "\"; };\n");
	}
	if (fclose(f) != 0) {
		zd_msg_error("cannot write '%s': %s", path, strerror(errno));
		free(path);
		return NULL;
	}
	return path;
}

/* Runs argv with its stdout copied to fd and its stderr into errfd.
 * Returns its exit status (127: it cannot be run), or -1 after printing
 * why. */
static int
spawn_to_fd(char *const argv[], int fd, int errfd)
{
	static char buf[1 << 16];
	struct zd_spawn_opts o = { ZD_SPAWN_NULL, ZD_SPAWN_PIPE,
	                           ZD_SPAWN_FD, errfd };
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_spawn sp;
	int rc = 0;

	if (zd_spawn_start(argv, &o, &sp, &err) < 0) {
		zd_msg_error("%s", err.msg);
		return -1;
	}
	for (;;) {
		ssize_t n = read(sp.out_fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n < 0)
				rc = zd_err_errno(&err, ZD_E_IO, "cannot read "
				                  "the output of '%s'", argv[0]);
			break;
		}
		if (rc == 0 && zd_write_all(fd, buf, (size_t)n, &err) < 0)
			rc = -1;	/* read on: the child must not block */
	}
	close(sp.out_fd);
	sp.out_fd = -1;
	{
		struct zd_error werr = ZD_ERROR_INIT;
		int status = zd_spawn_wait(&sp, &werr);

		if (status < 0) {
			zd_msg_error("%s", werr.msg);
			return -1;
		}
		if (rc < 0) {
			zd_msg_error("%s", err.msg);
			return -1;
		}
		return status;
	}
}

/*
 * Prints the "E:" and "W:" lines apt-ftparchive wrote to log from offset
 * off on (it says "E:" and exits 0 when it cannot read a package, and
 * leaves the package out of the index).  Returns how many.
 */
static size_t
apt_complaints(const char *log, off_t off)
{
	FILE *f = fopen(log, "re");
	char *line = NULL;
	size_t cap = 0, n = 0;
	ssize_t len;

	if (f == NULL || fseeko(f, off, SEEK_SET) != 0) {
		if (f != NULL)
			fclose(f);
		zd_msg_error("cannot read '%s': %s", log, strerror(errno));
		return 1;
	}
	while ((len = getline(&line, &cap, f)) >= 0) {
		if (len > 0 && line[len - 1] == '\n')
			line[len - 1] = '\0';
		if (strncmp(line, "E:", 2) == 0 ||
		    strncmp(line, "W:", 2) == 0) {
			zd_msg_error("apt-ftparchive said: %s", line);
			n++;
		}
	}
	free(line);
	fclose(f);
	return n;
}

/*
 * Runs argv with stdout into out (NULL: the log) and stderr into the file
 * log (appended).  0 when it exits 0 and, for apt-ftparchive (apt), says
 * no "E:" or "W:"; else -1 after saying why.
 */
static int
run_logged(char *const argv[], const char *out, const char *log, bool apt)
{
	int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	int ofd = -1, rc;
	struct stat st;
	off_t off;

	if (fd < 0 || fstat(fd, &st) < 0) {
		zd_msg_error("cannot write '%s': %s", log, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	off = st.st_size;
	if (out != NULL) {
		ofd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		           0644);
		if (ofd < 0) {
			zd_msg_error("cannot write '%s': %s", out,
			             strerror(errno));
			close(fd);
			return -1;
		}
	}
	rc = spawn_to_fd(argv, ofd >= 0 ? ofd : fd, fd);
	if (ofd >= 0 && close(ofd) < 0 && rc == 0) {
		zd_msg_error("cannot write '%s': %s", out, strerror(errno));
		rc = -1;
	}
	close(fd);
	if (rc == 127)
		zd_msg_error("cannot run '%s'", argv[0]);
	else if (rc > 0)
		zd_msg_error("'%s' failed (exit status %d); see '%s'",
		             argv[0], rc, log);
	if (rc == 0 && apt && apt_complaints(log, off) > 0) {
		zd_msg_error("'%s %s' complained (above; all in '%s')",
		             argv[0], argv[1], log);
		rc = -1;
	}
	return rc == 0 ? 0 : -1;
}

/* Release of one suite in the stage, then its signatures. */
static int
write_release(const struct report *rep, const struct suite *s)
{
	char *dir = NULL, *tmp = NULL, *rel = NULL, *gpg = NULL, *inrel = NULL;
	char *o_suite = NULL, *o_code = NULL, *o_arch = NULL, *o_comp = NULL;
	char *log = zd_deb_repo_state_path(rep->dst, "apt-ftparchive.log");
	char archs[512] = "", comps[512] = "";
	int rc = -1;

	for (size_t i = 0; i < s->n_archs; i++)
		snprintf(archs + strlen(archs), sizeof(archs) - strlen(archs),
		         "%s%s", i ? " " : "", s->archs[i]);
	for (size_t i = 0; i < s->n_comps; i++)
		snprintf(comps + strlen(comps), sizeof(comps) - strlen(comps),
		         "%s%s", i ? " " : "", s->comps[i]);
	if (log == NULL ||
	    asprintf(&dir, "%s/dists/%s", rep->stage, s->name) < 0 ||
	    asprintf(&tmp, "%s/%s/Release.tmp", rep->dst,
	             ZD_REPO_STATE_DIR) < 0 ||
	    asprintf(&rel, "%s/Release", dir) < 0 ||
	    asprintf(&gpg, "%s/Release.gpg", dir) < 0 ||
	    asprintf(&inrel, "%s/InRelease", dir) < 0 ||
	    asprintf(&o_suite, "APT::FTPArchive::Release::Suite=%s",
	             s->name) < 0 ||
	    asprintf(&o_code, "APT::FTPArchive::Release::Codename=%s",
	             s->name) < 0 ||
	    asprintf(&o_arch, "APT::FTPArchive::Release::Architectures=%s",
	             archs) < 0 ||
	    asprintf(&o_comp, "APT::FTPArchive::Release::Components=%s",
	             comps) < 0) {
		zd_msg_error("out of memory");
		goto out;
	}
	{
		char *argv[] = { (char *)"apt-ftparchive", (char *)"-o",
		                 o_suite, (char *)"-o", o_code, (char *)"-o",
		                 o_arch, (char *)"-o", o_comp,
		                 (char *)"release", dir, NULL };

		if (run_logged(argv, tmp, log, true) < 0)
			goto out;
		if (rename(tmp, rel) < 0) {
			zd_msg_error("cannot rename '%s' to '%s': %s", tmp,
			             rel, strerror(errno));
			goto out;
		}
	}
	if (rep->key != NULL) {
		char *det[] = { (char *)"gpg", (char *)"--batch",
		                (char *)"--yes", (char *)"--local-user",
		                (char *)rep->key, (char *)"--armor",
		                (char *)"--detach-sign", (char *)"--output",
		                gpg, rel, NULL };
		char *clr[] = { (char *)"gpg", (char *)"--batch",
		                (char *)"--yes", (char *)"--local-user",
		                (char *)rep->key, (char *)"--clearsign",
		                (char *)"--output", inrel, rel, NULL };

		if (run_logged(det, NULL, log, false) < 0 ||
		    run_logged(clr, NULL, log, false) < 0)
			goto out;
	}
	rc = 0;
out:
	if (tmp != NULL)
		unlink(tmp);
	free(o_suite);
	free(o_code);
	free(o_arch);
	free(o_comp);
	free(dir);
	free(tmp);
	free(rel);
	free(gpg);
	free(inrel);
	free(log);
	return rc;
}

/* rm -r of path's contents (and path itself when self); errors ignored:
 * what cannot go is found later. */
static void
remove_tree(const char *path, bool self)
{
	DIR *d = opendir(path);
	struct dirent *de;

	while (d != NULL && (de = readdir(d)) != NULL) {
		char *child;
		struct stat st;

		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (asprintf(&child, "%s/%s", path, de->d_name) < 0)
			break;
		if (lstat(child, &st) == 0 && S_ISDIR(st.st_mode))
			remove_tree(child, true);
		else
			unlink(child);
		free(child);
	}
	if (d != NULL)
		closedir(d);
	if (self)
		rmdir(path);
}

static void
say_error(void *ctx, const char *msg)
{
	(void)ctx;
	zd_msg_error("%s", msg);
}

/* Checks the staged Packages index of suite, comp and arch against the
 * outputs write_list put into its list.  0 or -1 (printed). */
static int
check_index(const struct report *rep, const char *suite, const char *comp,
            const char *arch)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_repo_indexed *want = calloc(rep->n + 1, sizeof(*want));
	size_t n = 0;
	char *p = NULL;
	long bad;
	int rc = -1;

	if (want == NULL ||
	    asprintf(&p, "%s/dists/%s/%s/binary-%s/Packages", rep->stage,
	             suite, comp, arch) < 0) {
		p = NULL;
		zd_msg_error("out of memory");
		goto out;
	}
	for (size_t i = 0; i < rep->n; i++) {
		const struct item *it = &rep->items[i];
		const struct zd_repo_job *j = it->job;

		if (item_ok(it) && j->arch != NULL &&
		    (strcmp(j->arch, "all") == 0 ||
		     strcmp(j->arch, arch) == 0) && in_dist(j, suite, comp)) {
			want[n].output = j->output;
			want[n].size = it->r.out_bytes;
			want[n].sha256 = it->r.out_sha256;
			n++;
		}
	}
	bad = zd_deb_repo_index_check(p, want, n, say_error, NULL, &err);
	if (bad < 0)
		zd_msg_error("apt-ftparchive did not write a readable index: "
		             "%s", err.msg);
	else if (bad > 0)
		zd_msg_error("'%s': %ld differences from the results", p, bad);
	else
		rc = 0;
out:
	free(p);
	free(want);
	return rc;
}

/*
 * Checks each staged Packages index: there, one stanza per output its
 * list has, each stanza's Size and SHA256 those of the output's result
 * (which load_results checked against the file).  0 or -1 (printed).
 */
static int
check_packages(const struct report *rep, const struct suite *s, size_t n)
{
	int rc = 0;

	for (size_t k = 0; k < n; k++)
		for (size_t c = 0; c < s[k].n_comps; c++)
			for (size_t a = 0; a < s[k].n_archs; a++)
				if (check_index(rep, s[k].name, s[k].comps[c],
				                s[k].archs[a]) < 0)
					rc = -1;
	return rc;
}

/* fsyncs the file at path (what apt-ftparchive and gpg wrote is not):
 * 0, or -1 (printed). */
static int
sync_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fsync(fd) < 0) {
		zd_msg_error("cannot sync '%s': %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/*
 * Moves the staged files of dists/SUITE into DST/dists/SUITE: the
 * indexes first, then Release and its signatures (a stale signature goes
 * when none was made), each file and directory synced.  0 or -1 (printed).
 */
static int
publish_dir(const char *from, const char *to, bool top, int pass)
{
	struct zd_error err = ZD_ERROR_INIT;
	DIR *d;
	struct dirent *de;
	int rc = 0;

	if (cmd_repo_mkdirs(to) < 0)
		return -1;
	d = opendir(from);
	if (d == NULL) {
		zd_msg_error("cannot open directory '%s': %s", from,
		             strerror(errno));
		return -1;
	}
	while (rc == 0 && (de = readdir(d)) != NULL) {
		char *a = NULL, *b = NULL;
		bool release;
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		release = top && (strcmp(de->d_name, "Release") == 0 ||
		                  strcmp(de->d_name, "Release.gpg") == 0 ||
		                  strcmp(de->d_name, "InRelease") == 0);
		if (asprintf(&a, "%s/%s", from, de->d_name) < 0 ||
		    asprintf(&b, "%s/%s", to, de->d_name) < 0) {
			zd_msg_error("out of memory");
			free(a);
			rc = -1;
			break;
		}
		if (lstat(a, &st) == 0 && S_ISDIR(st.st_mode)) {
			if (pass == 0)
				rc = publish_dir(a, b, false, pass);
		} else if (release == (pass == 1)) {
			rc = sync_file(a);
			if (rc == 0 && rename(a, b) < 0) {
				zd_msg_error("cannot rename '%s' to '%s': %s",
				             a, b, strerror(errno));
				rc = -1;
			}
		}
		free(a);
		free(b);
	}
	closedir(d);
	if (rc == 0) {
		char *probe = NULL;

		if (asprintf(&probe, "%s/.", to) < 0 ||
		    zd_fsync_parent(probe, &err) < 0) {
			zd_msg_error("%s", probe != NULL ? err.msg :
			             "out of memory");
			rc = -1;
		}
		free(probe);
	}
	return rc;
}

static int
publish(const struct report *rep, const struct suite *s, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		char *from = NULL, *to = NULL, *sig = NULL, *inrel = NULL;
		int rc = -1;

		if (asprintf(&from, "%s/dists/%s", rep->stage, s[k].name) < 0 ||
		    asprintf(&to, "%s/dists/%s", rep->dst, s[k].name) < 0 ||
		    asprintf(&sig, "%s/Release.gpg", to) < 0 ||
		    asprintf(&inrel, "%s/InRelease", to) < 0) {
			zd_msg_error("out of memory");
		} else if (publish_dir(from, to, true, 0) == 0) {
			if (rep->key == NULL) {
				unlink(sig);
				unlink(inrel);
			}
			rc = publish_dir(from, to, true, 1);
		}
		free(from);
		free(to);
		free(sig);
		free(inrel);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/*
 * The indexes: made in the stage (DST/.zdeb-repo/stage) with a fresh
 * apt-ftparchive cache, checked (no complaint from apt-ftparchive, each
 * Packages stanza matching its output's result), signed, and only then
 * moved to DST/dists.  On any failure nothing under DST/dists changes.
 */
static int
write_indexes(struct report *rep)
{
	struct suite *s = NULL;
	size_t n = 0;
	char *conf = NULL, *log = NULL;
	int rc = -1;

	if (collect_suites(rep, &s, &n) < 0)
		return -1;
	if (n == 0) {
		zd_msg_error("no package is done: nothing to index");
		goto out;
	}
	{
		char *cache = zd_deb_repo_state_path(rep->dst, "cache");

		if (cache != NULL)
			remove_tree(cache, false);
		if (cmd_repo_mkdirs(cache) < 0) {
			free(cache);
			goto out;
		}
		free(cache);
	}
	remove_tree(rep->stage, false);
	conf = write_conf(rep, s, n);
	log = zd_deb_repo_state_path(rep->dst, "apt-ftparchive.log");
	if (conf == NULL || log == NULL || write_lists(rep, s, n) < 0)
		goto out;
	unlink(log);
	{
		char *argv[] = { (char *)"apt-ftparchive", (char *)"-q",
		                 (char *)"generate", conf, NULL };

		if (run_logged(argv, NULL, log, true) < 0)
			goto out;
	}
	if (check_packages(rep, s, n) < 0)
		goto out;
	for (size_t k = 0; k < n; k++)
		if (write_release(rep, &s[k]) < 0)
			goto out;
	if (publish(rep, s, n) < 0)
		goto out;
	rep->suites = calloc(n, sizeof(char *));
	if (rep->suites == NULL)
		goto out;
	for (size_t k = 0; k < n; k++) {
		rep->suites[k] = s[k].name;
		s[k].name = NULL;
	}
	rep->n_suites = n;
	rep->indexed = true;
	rep->signed_ = rep->key != NULL;
	rc = 0;
out:
	remove_tree(rep->stage, false);
	suites_free(s, n);
	free(conf);
	free(log);
	return rc;
}

/* Removes what killed runs left in tmp/ (finish runs after them all). */
static void
clean_tmp(struct report *rep)
{
	char *cmd = zd_deb_repo_state_path(rep->dst, "tmp");
	char *res = zd_deb_repo_state_path(rep->dst, "results");
	DIR *d = cmd != NULL ? opendir(cmd) : NULL;
	struct dirent *de;

	while (d != NULL && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if (unlinkat(dirfd(d), de->d_name, 0) == 0)
			rep->tmp_removed++;
	}
	if (d != NULL)
		closedir(d);
	/* results a killed run was saving */
	if (res != NULL)
		rep->tmp_removed += zd_outfile_clean_dir(res);
	free(cmd);
	free(res);
}

/* install-time estimate ------------------------------------------- */

/* zdeb-perf's variant for a job's "from" or conversion; NULL: none. */
static const char *
perf_variant(const char *from)
{
	static const char *const known[] = {
		"xz", "gzip", "none", "zstd-single", "zstd-indexed",
		"zstd-pzstd", "zstd-frames",
	};

	for (size_t i = 0; i < sizeof(known) / sizeof(*known); i++)
		if (strcmp(from, known[i]) == 0)
			return known[i];
	return NULL;
}

/* The conversion as a "from" name: "zstd-indexed", "xz". */
static void
conversion_from(const struct zd_repo_job *j, char *buf, size_t size)
{
	if (j->comp.type == ZD_COMP_ZSTD)
		snprintf(buf, size, "zstd-%s",
		         zd_layout_name(j->comp.layout));
	else
		snprintf(buf, size, "%s", zd_codec_get(j->comp.type)->name);
}

/* What the estimate scales by: the tar bytes a package unpacks. */
static uint64_t
weight(const struct item *it)
{
	if (it->r.tar_bytes > 0)
		return it->r.tar_bytes;
	if (it->job->installed_kib > 0)
		return it->job->installed_kib * 1024;
	return it->job->size;
}

static int
cmp_weight(const void *a, const void *b)
{
	uint64_t x = weight(*(const struct item *const *)a);
	uint64_t y = weight(*(const struct item *const *)b);

	return x < y ? -1 : x > y;
}

/* Splits one CSV record (RFC 4180 quoting) of *p into fields[]; moves
 * *p past it.  Returns the field count (fields point into *p's buffer,
 * modified in place). */
static size_t
csv_record(char **p, char **fields, size_t max)
{
	char *s = *p, *w;
	size_t n = 0;

	while (*s != '\0' && n < max) {
		fields[n++] = w = s;
		if (*s == '"') {
			s++;
			for (;;) {
				if (*s == '\0')
					break;
				if (*s == '"' && s[1] == '"') {
					*w++ = '"';
					s += 2;
				} else if (*s == '"') {
					s++;
					break;
				} else {
					*w++ = *s++;
				}
			}
		} else {
			while (*s != '\0' && *s != ',' && *s != '\n' &&
			       *s != '\r')
				*w++ = *s++;
		}
		if (*s == '\r')
			s++;
		if (*s == ',') {
			*w = '\0';
			s++;
			continue;
		}
		if (*s == '\n')
			s++;
		*w = '\0';
		break;
	}
	*p = s;
	return n;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median over the ok runs of variant and backend in the CSV text of
 * the sum of the columns cols (NULL-terminated); -1 when there is none. */
static double
csv_median(const char *text, const char *variant, const char *backend,
           const char *const cols[])
{
	char *buf = strdup(text), *p = buf;
	char *f[32];
	double v[64];
	size_t n, nv = 0;
	int cv = -1, cb = -1, cs = -1, cc[4] = { -1, -1, -1, -1 };

	if (buf == NULL)
		return -1;
	n = csv_record(&p, f, 32);
	for (size_t i = 0; i < n; i++) {
		cv = strcmp(f[i], "variant") == 0 ? (int)i : cv;
		cb = strcmp(f[i], "backend") == 0 ? (int)i : cb;
		cs = strcmp(f[i], "status") == 0 ? (int)i : cs;
		for (size_t k = 0; k < 4 && cols[k] != NULL; k++)
			cc[k] = strcmp(f[i], cols[k]) == 0 ? (int)i : cc[k];
	}
	while (cv >= 0 && cb >= 0 && cs >= 0 && cc[0] >= 0 && *p != '\0' &&
	       nv < 64) {
		double sum = 0;

		n = csv_record(&p, f, 32);
		if (n <= (size_t)cv || n <= (size_t)cb || n <= (size_t)cs ||
		    strcmp(f[cv], variant) != 0 ||
		    strcmp(f[cb], backend) != 0 || strcmp(f[cs], "ok") != 0)
			continue;
		for (size_t k = 0; k < 4 && cols[k] != NULL; k++)
			if (cc[k] >= 0 && (size_t)cc[k] < n)
				sum += strtod(f[cc[k]], NULL);
		v[nv++] = sum;
	}
	free(buf);
	if (nv == 0)
		return -1;
	qsort(v, nv, sizeof(*v), cmp_double);
	return nv % 2 ? v[nv / 2] : (v[nv / 2 - 1] + v[nv / 2]) / 2;
}

static char *
read_text(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t len = 0;
	char chunk[4096];
	size_t n;

	if (f == NULL)
		return NULL;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		char *p = realloc(buf, len + n + 1);

		if (p == NULL) {
			free(buf);
			fclose(f);
			return NULL;
		}
		buf = p;
		memcpy(buf + len, chunk, n);
		len += n;
		buf[len] = '\0';
	}
	fclose(f);
	return buf;
}

/*
 * Runs zdeb-perf install on a sample of the packages converted from the
 * commonest compressor: the original and the converted variant, through
 * the stock dpkg-deb and through zdeb, dpkg --unpack --force-unsafe-io
 * into scratch roots; scales the medians by tar bytes to the repository.
 */
static int
estimate(struct report *rep, unsigned sample, unsigned runs)
{
	struct estimate *e = &rep->est;
	struct group *big = NULL;
	struct item **cand = NULL, **pick = NULL;
	size_t nc = 0, np = 0;
	char *csv = NULL, *log = NULL, *text = NULL, after[24] = "";
	char vlist[64], runs_s[16], self[PATH_MAX];
	const char *perf = getenv("ZDEB_PERF"), *before;
	char **argv = NULL;
	ssize_t sl;
	int rc, ret = 0;

	e->runs = runs;
	if (sample == 0) {
		snprintf(e->why, sizeof(e->why), "not asked for "
		         "(--perf-sample 0)");
		return 0;
	}
	for (size_t i = 0; i < rep->n; i++)
		if (item_ok(&rep->items[i]))
			e->total_weight += weight(&rep->items[i]);
	for (size_t g = 0; g < rep->n_groups; g++)
		if (perf_variant(rep->groups[g].from) != NULL &&
		    (big == NULL || rep->groups[g].before > big->before))
			big = &rep->groups[g];
	cand = calloc(rep->n + 1, sizeof(*cand));
	pick = calloc(sample + 1, sizeof(*pick));
	if (cand == NULL || pick == NULL)
		goto out;
	for (size_t i = 0; big != NULL && i < rep->n; i++) {
		const struct item *it = &rep->items[i];

		if (it->has_result && it->r.verdict == ZD_REPO_CONVERTED &&
		    strcmp(it->job->from, big->from) == 0)
			cand[nc++] = &rep->items[i];
	}
	if (nc == 0) {
		snprintf(e->why, sizeof(e->why), "no package converted from "
		         "a compressor zdeb-perf models");
		goto out;
	}
	before = perf_variant(big->from);
	conversion_from(cand[0]->job, after, sizeof(after));
	if (perf_variant(after) == NULL) {
		snprintf(e->why, sizeof(e->why), "zdeb-perf has no variant "
		         "for the conversion '%s'", after);
		goto out;
	}
	/* spread over the sizes: the smallest, the largest, between */
	qsort(cand, nc, sizeof(*cand), cmp_weight);
	for (size_t k = 0; k < sample && k < nc; k++) {
		size_t i = sample > 1 && nc > 1 ?
		           k * (nc - 1) / ((sample < nc ? sample : nc) - 1) :
		           nc - 1;

		if (np == 0 || pick[np - 1] != cand[i])
			pick[np++] = cand[i];
	}
	snprintf(e->variants[0], sizeof(e->variants[0]), "%s", before);
	e->n_variants = 1;
	if (strcmp(before, after) != 0)
		snprintf(e->variants[e->n_variants++], sizeof(e->variants[0]),
		         "%s", after);
	snprintf(vlist, sizeof(vlist), "%s%s%s", e->variants[0],
	         e->n_variants > 1 ? "," : "",
	         e->n_variants > 1 ? e->variants[1] : "");
	snprintf(runs_s, sizeof(runs_s), "%u", runs);
	csv = zd_deb_repo_state_path(rep->dst, "perf.csv");
	log = zd_deb_repo_state_path(rep->dst, "perf.txt");
	argv = calloc(np + 16, sizeof(*argv));
	if (csv == NULL || log == NULL || argv == NULL)
		goto out;
	{
		size_t a = 0;

		argv[a++] = (char *)(perf != NULL ? perf : "zdeb-perf");
		argv[a++] = (char *)"install";
		argv[a++] = (char *)"--variants";
		argv[a++] = vlist;
		argv[a++] = (char *)"--backends";
		argv[a++] = (char *)"stock,zdeb";
		argv[a++] = (char *)"--modes";
		argv[a++] = (char *)"unsafe-io";
		argv[a++] = (char *)"--runs";
		argv[a++] = runs_s;
		/* an estimate, not a comparison: no quiet gate */
		argv[a++] = (char *)"--allow-loaded";
		argv[a++] = (char *)"--csv";
		argv[a++] = csv;
		for (size_t i = 0; i < np; i++)
			argv[a++] = pick[i]->job->input;
		argv[a] = NULL;
	}
	/* zdeb-perf runs this very zdeb unless told otherwise */
	sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (sl > 0 && getenv("ZDEB") == NULL) {
		self[sl] = '\0';
		setenv("ZDEB", self, 0);
	}
	unlink(csv);
	unlink(log);
	zd_msg_info("install-time estimate: zdeb-perf on %zu sample "
	            "packages (%s)...", np, vlist);
	rc = run_logged(argv, NULL, log, false);
	text = rc == 0 ? read_text(csv) : NULL;
	if (text == NULL) {
		snprintf(e->why, sizeof(e->why), "zdeb-perf did not run "
		         "(%s)", perf != NULL ? perf : "zdeb-perf in PATH; "
		         "install the zdeb-perf package, set ZDEB_PERF, or "
		         "--perf-sample 0");
		zd_msg_error("install-time estimate asked for (--perf-sample "
		             "%u) but %s", sample, e->why);
		ret = -1;
		goto out;
	}
	e->sample = np;
	for (size_t i = 0; i < np; i++) {
		const char *name = pick[i]->job->package != NULL ?
		                   pick[i]->job->package : "?";
		size_t used = strlen(e->names);

		e->sample_weight += weight(pick[i]);
		snprintf(e->names + used, sizeof(e->names) - used, "%s%s",
		         i > 0 ? ", " : "", name);
	}
	for (size_t v = 0; v < e->n_variants; v++) {
		static const char *const wall[] = { "elapsed_s", NULL };
		static const char *const cpu[] = { "user_s", "sys_s", NULL };

		for (int b = 0; b < 2; b++) {
			const char *be = b ? "zdeb" : "stock";

			e->s[v][b] = csv_median(text, e->variants[v], be,
			                        wall);
			e->cpu[v][b] = csv_median(text, e->variants[v], be,
			                          cpu);
		}
	}
	e->made = e->sample_weight > 0;
	if (!e->made)
		snprintf(e->why, sizeof(e->why), "the sample is empty");
out:
	free(text);
	free(argv);
	free(csv);
	free(log);
	free(cand);
	free(pick);
	return ret;
}

/* report ---------------------------------------------------------- */

/* The throughput over every conversion done: tar bytes, input bytes and
 * CPU seconds summed over the groups. */
static void
throughput(const struct report *rep, uint64_t *tar, uint64_t *in,
           double *cpu, size_t *n)
{
	*tar = *in = 0;
	*cpu = 0;
	*n = 0;
	for (size_t g = 0; g < rep->n_groups; g++) {
		*tar += rep->groups[g].conv_tar;
		*in += rep->groups[g].conv_in;
		*cpu += rep->groups[g].conv_cpu_s;
		*n += rep->groups[g].conv_n;
	}
}

/* The projected archive's tar bytes: its Installed-Size, or for a size
 * the tar to .deb ratio measured here. */
static uint64_t
projected_tar(const struct report *rep, uint64_t tar, uint64_t in)
{
	const struct zd_repo_archive *a = &rep->archive;

	if (a->tar_bytes > 0 || in == 0)
		return a->tar_bytes;
	return (uint64_t)((double)a->deb_bytes * (double)tar / (double)in);
}

static const unsigned project_k[] = { 1, 16, 256 };

static void
print_projection_text(const struct report *rep)
{
	const struct zd_repo_archive *a = &rep->archive;
	uint64_t tar, in, ptar;
	double cpu, rate;
	size_t n;

	throughput(rep, &tar, &in, &cpu, &n);
	for (size_t g = 0; g < rep->n_groups; g++) {
		const struct group *gr = &rep->groups[g];

		if (gr->conv_n == 0 || gr->conv_cpu_s <= 0)
			continue;
		printf("throughput: from %s: %.2f MB of tar per CPU-second "
		       "(%zu packages, %.1f MB of tar, %.1f CPU-s of "
		       "recompress and verify)\n", gr->from,
		       (double)gr->conv_tar / 1e6 / gr->conv_cpu_s, gr->conv_n,
		       (double)gr->conv_tar / 1e6, gr->conv_cpu_s);
	}
	if (rep->project == NULL)
		return;
	if (n == 0 || cpu <= 0 || tar == 0) {
		printf("projection: none: no conversion recorded its tar "
		       "bytes and CPU time here\n");
		return;
	}
	rate = (double)tar / cpu;
	ptar = projected_tar(rep, tar, in);
	printf("projection (not a measurement): %s: ", rep->project);
	if (a->packages > 0)
		printf("%ju packages, %.2f GB of .debs, %.2f GB of tar (their "
		       "Installed-Size)", (uintmax_t)a->packages,
		       (double)a->deb_bytes / 1e9, (double)ptar / 1e9);
	else
		printf("%.2f GB of .debs, %.2f GB of tar at the %.2f tar/.deb "
		       "ratio measured here", (double)a->deb_bytes / 1e9,
		       (double)ptar / 1e9, (double)tar / (double)in);
	printf("; at the %.2f MB of tar per CPU-second measured here over "
	       "%zu packages (%.1f MB, %.1f CPU-s): ", rate / 1e6, n,
	       (double)tar / 1e6, cpu);
	for (size_t i = 0; i < sizeof(project_k) / sizeof(*project_k); i++)
		printf("%s%u worker%s %.2f h", i ? ", " : "", project_k[i],
		       project_k[i] == 1 ? "" : "s",
		       zd_deb_repo_project_hours(ptar, rate, project_k[i]));
	printf(" (one core each, the work spread evenly; I/O, transfer "
	       "and stragglers not counted)\n");
}

static void
print_projection_json(const struct report *rep)
{
	uint64_t tar, in, ptar;
	double cpu;
	size_t n;

	throughput(rep, &tar, &in, &cpu, &n);
	printf(", \"throughput\": [");
	for (size_t g = 0, k = 0; g < rep->n_groups; g++) {
		const struct group *gr = &rep->groups[g];

		if (gr->conv_n == 0 || gr->conv_cpu_s <= 0)
			continue;
		printf("%s{\"from\": ", k++ ? ", " : "");
		zd_msg_json_str(gr->from);
		printf(", \"packages\": %zu, \"tar_bytes\": %ju, "
		       "\"cpu_s\": %.3f, \"tar_mb_per_cpu_s\": %.3f}",
		       gr->conv_n, (uintmax_t)gr->conv_tar, gr->conv_cpu_s,
		       (double)gr->conv_tar / 1e6 / gr->conv_cpu_s);
	}
	printf("], \"projection\": ");
	if (rep->project == NULL || n == 0 || cpu <= 0 || tar == 0) {
		printf("null");
		return;
	}
	ptar = projected_tar(rep, tar, in);
	printf("{\"archive\": ");
	zd_msg_json_str(rep->project);
	printf(", \"packages\": %ju, \"deb_bytes\": %ju, \"tar_bytes\": "
	       "%ju, \"tar_mb_per_cpu_s\": %.3f, \"hours\": {",
	       (uintmax_t)rep->archive.packages,
	       (uintmax_t)rep->archive.deb_bytes, (uintmax_t)ptar,
	       (double)tar / cpu / 1e6);
	for (size_t i = 0; i < sizeof(project_k) / sizeof(*project_k); i++)
		printf("%s\"%u\": %.3f", i ? ", " : "", project_k[i],
		       zd_deb_repo_project_hours(ptar, (double)tar / cpu,
		                             project_k[i]));
	printf("}}");
}

static double
scaled(const struct estimate *e, double s)
{
	return s * (double)e->total_weight / (double)e->sample_weight;
}

static void
print_text(const struct report *rep)
{
	const struct estimate *e = &rep->est;
	uint64_t before = 0, after = 0;
	size_t n = 0;

	printf("repository: %s\n", rep->dst);
	printf("packages: %zu: %zu converted (%s), %zu kept, %zu failed, "
	       "%zu not run, %zu not matching their results\n", rep->n,
	       rep->converted, rep->conversion[0] ? rep->conversion : "none",
	       rep->kept, rep->failed, rep->not_run, rep->mismatched);
	printf("%-14s %8s %15s %15s %7s\n", "from", "packages", "bytes before",
	       "bytes after", "after%");
	for (size_t g = 0; g < rep->n_groups; g++) {
		const struct group *gr = &rep->groups[g];

		printf("%-14s %8zu %15ju %15ju %6.1f%%\n", gr->from, gr->n,
		       (uintmax_t)gr->before, (uintmax_t)gr->after,
		       gr->before ? 100.0 * (double)gr->after /
		       (double)gr->before : 0.0);
		before += gr->before;
		after += gr->after;
		n += gr->n;
	}
	printf("%-14s %8zu %15ju %15ju %6.1f%%\n", "total", n,
	       (uintmax_t)before, (uintmax_t)after, before ? 100.0 *
	       (double)after / (double)before : 0.0);
	printf("time: %.1f s CPU, %.1f s wall, summed over the jobs' last "
	       "runs (recompress and verify --dpkg-deb)\n", rep->cpu_s,
	       rep->wall_s);
	for (size_t i = 0; i < rep->n; i++) {
		const struct item *it = &rep->items[i];

		if (it->has_result && it->r.verdict == ZD_REPO_FAILED)
			printf("failed: %s: %s: %s\n", it->job->input,
			       it->r.stage ? it->r.stage : "?",
			       it->r.error ? it->r.error : "?");
		else if (it->mismatch)
			printf("not matching its result: %s: %s\n",
			       it->job->package ? it->job->package : "?",
			       it->why ? it->why : "?");
		else if (!it->has_result)
			printf("not run: %s\n", it->job->input);
	}
	if (rep->indexed && rep->failed + rep->not_run + rep->mismatched > 0)
		printf("left out of the indexes (--partial): %zu packages, "
		       "those above\n", rep->failed + rep->not_run +
		       rep->mismatched);
	print_projection_text(rep);
	if (!e->made) {
		printf("install-time estimate: none: %s\n", e->why);
	} else {
		printf("install-time estimate: dpkg --unpack "
		       "--force-unsafe-io of %zu sample packages (%.1f MB of "
		       "tar), median of %u run%s, scaled to the %.1f MB of "
		       "tar of all packages done (sample: %s):\n", e->sample,
		       (double)e->sample_weight / 1e6, e->runs,
		       e->runs == 1 ? "" : "s",
		       (double)e->total_weight / 1e6, e->names);
		for (size_t v = 0; v < e->n_variants; v++) {
			for (int b = 0; b < 2; b++) {
				if (e->s[v][b] < 0) {
					printf("  %-13s %-5s  failed (see "
					       "perf.txt)\n", e->variants[v],
					       b ? "zdeb" : "stock");
					continue;
				}
				printf("  %-13s %-5s  %7.2f s wall, %7.2f s "
				       "CPU (sample %.2f s, %.2f s)\n",
				       e->variants[v], b ? "zdeb" : "stock",
				       scaled(e, e->s[v][b]),
				       scaled(e, e->cpu[v][b]), e->s[v][b],
				       e->cpu[v][b]);
			}
		}
	}
	if (rep->indexed) {
		printf("indexes: Packages, Contents, Release%s for",
		       rep->signed_ ? " (signed)" : "");
		for (size_t k = 0; k < rep->n_suites; k++)
			printf(" dists/%s", rep->suites[k]);
		printf("\n");
	} else {
		printf("indexes: not written\n");
	}
	if (rep->tmp_removed > 0)
		printf("removed %zu temporary files of interrupted runs\n",
		       rep->tmp_removed);
}

static void
print_json(const struct report *rep)
{
	const struct estimate *e = &rep->est;

	printf("{\"repository\": ");
	zd_msg_json_str(rep->dst);
	printf(", \"packages\": %zu, \"converted\": %zu, \"kept\": %zu, "
	       "\"failed\": %zu, \"not_run\": %zu, \"conversion\": ", rep->n,
	       rep->converted, rep->kept, rep->failed, rep->not_run);
	zd_msg_json_str(rep->conversion);
	printf(", \"by_compressor\": [");
	for (size_t g = 0; g < rep->n_groups; g++) {
		printf("%s{\"from\": ", g ? ", " : "");
		zd_msg_json_str(rep->groups[g].from);
		printf(", \"packages\": %zu, \"bytes_before\": %ju, "
		       "\"bytes_after\": %ju}", rep->groups[g].n,
		       (uintmax_t)rep->groups[g].before,
		       (uintmax_t)rep->groups[g].after);
	}
	printf("], \"cpu_s\": %.3f, \"wall_s\": %.3f", rep->cpu_s,
	       rep->wall_s);
	print_projection_json(rep);
	printf(", \"mismatched\": [");
	for (size_t i = 0, k = 0; i < rep->n; i++) {
		const struct item *it = &rep->items[i];

		if (!it->mismatch)
			continue;
		printf("%s{\"index\": %ju, \"package\": ", k++ ? ", " : "",
		       (uintmax_t)it->job->index);
		zd_msg_json_str(it->job->package ? it->job->package : "");
		printf(", \"why\": ");
		zd_msg_json_str(it->why ? it->why : "");
		printf("}");
	}
	printf("], \"failures\": [");
	for (size_t i = 0, k = 0; i < rep->n; i++) {
		const struct item *it = &rep->items[i];

		if (!it->has_result || it->r.verdict != ZD_REPO_FAILED)
			continue;
		printf("%s{\"index\": %ju, \"input\": ", k++ ? ", " : "",
		       (uintmax_t)it->job->index);
		zd_msg_json_str(it->job->input);
		printf(", \"stage\": ");
		zd_msg_json_str(it->r.stage ? it->r.stage : "");
		printf(", \"error\": ");
		zd_msg_json_str(it->r.error ? it->r.error : "");
		printf("}");
	}
	printf("], \"install_estimate\": ");
	if (!e->made) {
		printf("{\"made\": false, \"why\": ");
		zd_msg_json_str(e->why);
		printf("}");
	} else {
		printf("{\"made\": true, \"sample\": ");
		zd_msg_json_str(e->names);
		printf(", \"sample_packages\": %zu, "
		       "\"sample_tar_bytes\": %ju, \"total_tar_bytes\": %ju, "
		       "\"runs\": %u, \"seconds\": [", e->sample,
		       (uintmax_t)e->sample_weight,
		       (uintmax_t)e->total_weight, e->runs);
		for (size_t v = 0, k = 0; v < e->n_variants; v++) {
			for (int b = 0; b < 2; b++) {
				printf("%s{\"variant\": \"%s\", \"backend\": "
				       "\"%s\", ", k++ ? ", " : "",
				       e->variants[v], b ? "zdeb" : "stock");
				if (e->s[v][b] < 0)
					printf("\"sample_s\": null, "
					       "\"estimate_s\": null, "
					       "\"sample_cpu_s\": null, "
					       "\"estimate_cpu_s\": null}");
				else
					printf("\"sample_s\": %.3f, "
					       "\"estimate_s\": %.3f, "
					       "\"sample_cpu_s\": %.3f, "
					       "\"estimate_cpu_s\": %.3f}",
					       e->s[v][b],
					       scaled(e, e->s[v][b]),
					       e->cpu[v][b],
					       scaled(e, e->cpu[v][b]));
			}
		}
		printf("]}");
	}
	printf(", \"indexed\": %s, \"signed\": %s, \"suites\": [",
	       rep->indexed ? "true" : "false",
	       rep->signed_ ? "true" : "false");
	for (size_t k = 0; k < rep->n_suites; k++) {
		printf("%s", k ? ", " : "");
		zd_msg_json_str(rep->suites[k]);
	}
	printf("], \"tmp_removed\": %zu}\n", rep->tmp_removed);
}

static const struct option finish_longopts[] = {
	{ "sign", required_argument, NULL, ZD_OPT_SIGN },
	{ "partial", no_argument, NULL, ZD_OPT_PARTIAL },
	{ "perf-sample", required_argument, NULL, ZD_OPT_PERF_SAMPLE },
	{ "perf-runs", required_argument, NULL, ZD_OPT_PERF_RUNS },
	{ "json", no_argument, NULL, ZD_OPT_JSON },
	{ "project", required_argument, NULL, ZD_OPT_PROJECT },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int
cmd_repo_finish(int argc, char **argv)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_repo_jobs jobs = { NULL, 0 };
	struct report rep;
	long long sample = 3, runs = 1;
	bool partial = false, json = false;
	char *dst = NULL, *jobs_path = NULL;
	int opt, rc = ZD_EXIT_ERROR;

	memset(&rep, 0, sizeof(rep));
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "vh", finish_longopts,
	                          NULL)) != -1) {
		switch (opt) {
		case ZD_OPT_SIGN: rep.key = optarg; break;
		case ZD_OPT_PARTIAL: partial = true; break;
		case ZD_OPT_PERF_SAMPLE:
			if (zd_parse_ll(optarg, 0, 64, "sample size", &sample,
			                &err) < 0)
				return zd_msg_usage("repo", "%s", err.msg);
			break;
		case ZD_OPT_PERF_RUNS:
			if (zd_parse_ll(optarg, 1, 64, "run count", &runs,
			                &err) < 0)
				return zd_msg_usage("repo", "%s", err.msg);
			break;
		case ZD_OPT_JSON: json = true; break;
		case ZD_OPT_PROJECT: rep.project = optarg; break;
		case 'v': zd_verbose++; break;
		case 'h': fputs(usage_text, stdout); return ZD_EXIT_OK;
		default:
			return zd_msg_usage("repo", "unknown option '%s'",
			                    argv[optind - 1]);
		}
	}
	if (argc - optind != 1)
		return zd_msg_usage("repo", "finish: expected DST");
	dst = realpath(argv[optind], NULL);
	if (dst == NULL) {
		zd_msg_error("'%s': %s", argv[optind], strerror(errno));
		return ZD_EXIT_ERROR;
	}
	rep.dst = dst;
	jobs_path = zd_deb_repo_state_path(dst, "jobs.jsonl");
	if (jobs_path == NULL) {
		zd_msg_error("out of memory");
		goto out;
	}
	if (zd_deb_repo_jobs_load(jobs_path, &jobs, &err) < 0) {
		zd_msg_error("%s", err.msg);
		goto out;
	}
	for (size_t i = 0; i < jobs.n; i++) {
		if (strcmp(jobs.v[i].dst, dst) != 0) {
			zd_msg_error("'%s': job %zu is for '%s', not '%s'",
			             jobs_path, i, jobs.v[i].dst, dst);
			goto out;
		}
	}
	if (rep.project != NULL &&
	    zd_deb_repo_archive_read(rep.project, &rep.archive, &err) < 0) {
		zd_msg_error("--project: %s", err.msg);
		goto out;
	}
	if (asprintf(&rep.stage, "%s/%s/stage", dst, ZD_REPO_STATE_DIR) < 0) {
		rep.stage = NULL;
		zd_msg_error("out of memory");
		goto out;
	}
	if (load_results(&rep, &jobs) < 0)
		goto out;
	clean_tmp(&rep);
	rc = ZD_EXIT_OK;
	if (rep.failed + rep.not_run > 0) {
		zd_msg_error("%zu of %zu jobs failed or not run%s",
		             rep.failed + rep.not_run, rep.n, partial ?
		             ": indexing the others (--partial)" :
		             ": no index written (run them again, or "
		             "--partial to publish the others)");
		rc = ZD_EXIT_MISMATCH;
	}
	if (rep.mismatched > 0) {
		zd_msg_error("%zu of %zu outputs do not match their results%s",
		             rep.mismatched, rep.n, partial ?
		             ": indexing the others (--partial)" :
		             ": no index written (run 'zdeb repo run' again, "
		             "or --partial to publish the others)");
		rc = ZD_EXIT_MISMATCH;
	}
	/* a tool asked for that cannot run fails the whole: before the
	 * indexes, so that none is written then */
	if (estimate(&rep, (unsigned)sample, (unsigned)runs) < 0)
		rc = ZD_EXIT_ERROR;
	else if ((partial || rc == ZD_EXIT_OK) && write_indexes(&rep) < 0)
		rc = ZD_EXIT_ERROR;
	if (json)
		print_json(&rep);
	else
		print_text(&rep);
out:
	for (size_t i = 0; i < rep.n; i++) {
		if (rep.items[i].has_result)
			zd_deb_repo_result_free(&rep.items[i].r);
		free(rep.items[i].why);
	}
	free(rep.items);
	free(rep.stage);
	for (size_t k = 0; k < rep.n_suites; k++)
		free(rep.suites[k]);
	free(rep.suites);
	zd_deb_repo_jobs_free(&jobs);
	free(jobs_path);
	free(dst);
	return rc;
}
