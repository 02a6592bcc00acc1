/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * deb-repo.c - a repository of .debs converted package by package: the
 * job and result lines of "zdeb repo", and the choices behind them
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sha2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/deb-repo.h"
#include "lib/json.h"
#include "lib/fdio.h"
#include "lib/membuf.h"
#include "lib/numparse.h"
#include "lib/zseg-layout.h"

int
zd_deb_repo_from(const struct zd_deb *deb, char from[24], struct zd_error *err)
{
	const struct zd_codec *c = deb->data.codec;
	struct zd_zstd_info info;

	if (c->type != ZD_COMP_ZSTD) {
		snprintf(from, 24, "%s", c->name);
		return 0;
	}
	if (zd_zstd_describe(&deb->data.region, &info, err) < 0)
		return -1;
	snprintf(from, 24, "zstd-%s", zd_layout_name(info.layout));
	return 0;
}

int
zd_deb_repo_decide(const struct zd_deb *deb, const struct zd_repo_want *w,
               struct zd_repo_job *j, struct zd_error *err)
{
	enum zd_comp_type ct = deb->control.codec->type;
	enum zd_comp_type dt = deb->data.codec->type;
	bool keep;

	if (zd_deb_repo_from(deb, j->from, err) < 0)
		return -1;
	if (w->keep_readable) {
		keep = ct != ZD_COMP_ZSTD && dt != ZD_COMP_ZSTD;
	} else {
		char want[24];

		if (w->comp.type == ZD_COMP_ZSTD)
			snprintf(want, sizeof(want), "zstd-%s",
			         zd_layout_name(w->comp.layout));
		else
			snprintf(want, sizeof(want), "%s",
			         zd_codec_get(w->comp.type)->name);
		keep = ct == w->comp.type && strcmp(j->from, want) == 0;
	}
	j->action = keep ? ZD_REPO_KEEP : ZD_REPO_CONVERT;
	memset(&j->comp, 0, sizeof(j->comp));
	if (!keep)
		j->comp = w->comp;
	return 0;
}

void
zd_deb_repo_conversion(const struct zd_repo_job *j, char *buf, size_t size)
{
	const struct zd_comp_params *p = &j->comp;
	int n;

	if (j->action == ZD_REPO_KEEP) {
		snprintf(buf, size, "keep");
		return;
	}
	n = snprintf(buf, size, "%s -%d", zd_codec_get(p->type)->name,
	             p->level);
	if (p->type == ZD_COMP_ZSTD && n >= 0 && (size_t)n < size)
		n += snprintf(buf + n, size - (size_t)n, " %s",
		              zd_layout_name(p->layout));
	if (p->segment_size > 0 && n >= 0 && (size_t)n < size)
		n += snprintf(buf + n, size - (size_t)n, " segment-size=%ju",
		              (uintmax_t)p->segment_size);
	if (p->zstd_long && n >= 0 && (size_t)n < size)
		n += snprintf(buf + n, size - (size_t)n, " long");
	if (p->strategy != ZD_STRATEGY_DEFAULT && n >= 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, " strategy=%s",
		         zd_strategy_name(p->strategy));
}

/* The first ZD_REPO_KEY_LEN hex digits of SHA-256(s). */
static void
short_hash(const char *s, char out[ZD_REPO_KEY_LEN + 1])
{
	char hex[SHA256_DIGEST_STRING_LENGTH];

	SHA256Data((const uint8_t *)s, strlen(s), hex);
	memcpy(out, hex, ZD_REPO_KEY_LEN);
	out[ZD_REPO_KEY_LEN] = '\0';
}

/* True when path is relative and has no "." or ".." component. */
static bool
path_is_inside(const char *path)
{
	const char *p = path;

	if (*p == '/' || *p == '\0')
		return false;
	while (*p != '\0') {
		size_t n = strcspn(p, "/");

		if (n == 0 || (n == 1 && p[0] == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		p += n;
		if (*p == '/')
			p++;
	}
	return true;
}

int
zd_deb_repo_set_output(struct zd_repo_job *j, const char *dst, const char *rel,
                   struct zd_error *err)
{
	char conv[128], seed[256], key[ZD_REPO_KEY_LEN + 1];
	const char *base = strrchr(rel, '/');
	int dirlen;

	if (!path_is_inside(rel))
		return zd_err(err, ZD_E_USAGE, "'%s': not a plain path under "
		              "the source", rel);
	if (strncmp(rel, "pool/", 5) == 0)
		rel += 5;
	base = strrchr(rel, '/');
	dirlen = base != NULL ? (int)(base - rel) : 0;
	base = base != NULL ? base + 1 : rel;
	zd_deb_repo_conversion(j, conv, sizeof(conv));
	snprintf(seed, sizeof(seed), "%s %s", j->sha256, conv);
	short_hash(seed, key);
	free(j->dst);
	free(j->output);
	j->output = NULL;
	j->dst = strdup(dst);
	if (j->dst == NULL ||
	    asprintf(&j->output, "pool/%.*s%s%s/%s", dirlen, rel,
	             dirlen > 0 ? "/" : "", key, base) < 0) {
		j->output = NULL;
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	}
	return 0;
}

static void
put_key(FILE *f, const char *key, bool first)
{
	fputs(first ? "{" : ", ", f);
	zd_json_write_str(f, key);
	fputs(": ", f);
}

static void
put_str(FILE *f, const char *key, const char *val)
{
	put_key(f, key, false);
	if (val != NULL)
		zd_json_write_str(f, val);
	else
		fputs("null", f);
}

static void
put_u64(FILE *f, const char *key, uint64_t v)
{
	put_key(f, key, false);
	fprintf(f, "%ju", (uintmax_t)v);
}

static int
end_line(FILE *f, struct zd_error *err)
{
	fputs("}\n", f);
	if (ferror(f))
		return zd_err(err, ZD_E_IO, "cannot write a line");
	return 0;
}

int
zd_deb_repo_job_write(const struct zd_repo_job *j, FILE *f,
                      struct zd_error *err)
{
	put_key(f, "index", true);
	fprintf(f, "%ju", (uintmax_t)j->index);
	put_str(f, "package", j->package);
	put_str(f, "version", j->version);
	put_str(f, "architecture", j->arch);
	put_u64(f, "installed_size_kib", j->installed_kib);
	put_str(f, "input", j->input);
	put_u64(f, "size", j->size);
	put_str(f, "sha256", j->sha256);
	put_str(f, "from", j->from);
	put_str(f, "action", j->action == ZD_REPO_KEEP ? "keep" : "convert");
	if (j->action == ZD_REPO_CONVERT) {
		const struct zd_comp_params *p = &j->comp;

		put_str(f, "to", zd_codec_get(p->type)->name);
		put_key(f, "level", false);
		fprintf(f, "%d", p->level);
		put_str(f, "layout", p->type == ZD_COMP_ZSTD ?
		        zd_layout_name(p->layout) : NULL);
		put_u64(f, "segment_size", p->segment_size);
		put_key(f, "long", false);
		fputs(p->zstd_long ? "true" : "false", f);
		if (p->strategy != ZD_STRATEGY_DEFAULT)
			put_str(f, "strategy", zd_strategy_name(p->strategy));
	}
	put_str(f, "dst", j->dst);
	put_str(f, "output", j->output);
	put_key(f, "dists", false);
	fputs("[", f);
	for (size_t i = 0; i < j->n_dists; i++) {
		if (i > 0)
			fputs(", ", f);
		zd_json_write_str(f, j->dists[i]);
	}
	fputs("]", f);
	return end_line(f, err);
}

/* A string field into *out (strdup'd); null or absent gives NULL when
 * null_ok. */
static int
get_str(const struct zd_json_obj *o, const char *key, bool null_ok,
        char **out, struct zd_error *err)
{
	const struct zd_json_val *v = zd_json_get(o, key);

	*out = NULL;
	if (null_ok && (v == NULL || v->type == ZD_JSON_NULL))
		return 0;
	if (v == NULL || v->type != ZD_JSON_STRING)
		return zd_err(err, ZD_E_FORMAT, "'%s': missing or not a "
		              "string", key);
	*out = strdup(v->text);
	if (*out == NULL)
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	return 0;
}

static int
parse_conversion(const struct zd_json_obj *o, struct zd_repo_job *j,
                 struct zd_error *err)
{
	struct zd_comp_params *p = &j->comp;
	const struct zd_codec *c;
	const char *to = zd_json_str(o, "to");
	const char *layout = zd_json_str(o, "layout");
	const struct zd_json_val *lv = zd_json_get(o, "level");
	const struct zd_json_val *lg = zd_json_get(o, "long");

	c = to != NULL ? zd_codec_find_by_name(to) : NULL;
	if (c == NULL || c->compress == NULL)
		return zd_err(err, ZD_E_FORMAT, "'to': not a compressor zdeb "
		              "writes");
	memset(p, 0, sizeof(*p));
	p->type = c->type;
	p->threads = 1;
	if (lv == NULL || lv->type != ZD_JSON_NUMBER ||
	    zd_codec_parse_level(c->type, lv->text, &p->level, err) < 0)
		return zd_err(err, ZD_E_FORMAT, "'level': missing or not a "
		              "level of %s", c->name);
	p->layout = ZD_LAYOUT_INDEXED;
	if (c->type == ZD_COMP_ZSTD) {
		if (layout == NULL || zd_layout_parse(layout, &p->layout) < 0)
			return zd_err(err, ZD_E_FORMAT, "'layout': missing or "
			              "unknown");
	}
	if (zd_json_get(o, "segment_size") != NULL &&
	    zd_json_u64(o, "segment_size", &p->segment_size, err) < 0)
		return -1;
	p->zstd_long = lg != NULL && lg->type == ZD_JSON_BOOL && lg->boolean;
	p->strategy = ZD_STRATEGY_DEFAULT;
	if (zd_json_str(o, "strategy") != NULL &&
	    zd_codec_parse_strategy(c->type, zd_json_str(o, "strategy"),
	                            &p->strategy, err) < 0)
		return zd_err(err, ZD_E_FORMAT, "'strategy': not one of %s",
		              c->name);
	return zd_comp_params_check(p, err);
}

int
zd_deb_repo_job_parse(const char *line, size_t len, struct zd_repo_job *j,
                  struct zd_error *err)
{
	struct zd_json_obj o;
	const struct zd_json_val *d;
	const char *s;
	int rc = -1;

	memset(j, 0, sizeof(*j));
	if (zd_json_parse(line, len, &o, err) < 0)
		return -1;
	if (zd_json_u64(&o, "index", &j->index, err) < 0 ||
	    get_str(&o, "input", false, &j->input, err) < 0 ||
	    zd_json_u64(&o, "size", &j->size, err) < 0 ||
	    get_str(&o, "package", true, &j->package, err) < 0 ||
	    get_str(&o, "version", true, &j->version, err) < 0 ||
	    get_str(&o, "architecture", true, &j->arch, err) < 0 ||
	    get_str(&o, "dst", false, &j->dst, err) < 0 ||
	    get_str(&o, "output", false, &j->output, err) < 0)
		goto out;
	if (zd_json_get(&o, "installed_size_kib") != NULL &&
	    zd_json_u64(&o, "installed_size_kib", &j->installed_kib,
	                err) < 0)
		goto out;
	s = zd_json_str(&o, "sha256");
	if (s == NULL || strlen(s) != 64 ||
	    strspn(s, "0123456789abcdef") != 64) {
		zd_err(err, ZD_E_FORMAT, "'sha256': not 64 hex digits");
		goto out;
	}
	memcpy(j->sha256, s, 65);
	s = zd_json_str(&o, "from");
	snprintf(j->from, sizeof(j->from), "%s", s != NULL ? s : "");
	s = zd_json_str(&o, "action");
	if (s != NULL && strcmp(s, "keep") == 0) {
		j->action = ZD_REPO_KEEP;
	} else if (s != NULL && strcmp(s, "convert") == 0) {
		j->action = ZD_REPO_CONVERT;
		if (parse_conversion(&o, j, err) < 0)
			goto out;
	} else {
		zd_err(err, ZD_E_FORMAT, "'action': not \"keep\" or "
		       "\"convert\"");
		goto out;
	}
	if (j->dst[0] != '/' || !path_is_inside(j->output)) {
		zd_err(err, ZD_E_FORMAT, "'output': not a plain path under an "
		       "absolute 'dst'");
		goto out;
	}
	d = zd_json_get(&o, "dists");
	if (d != NULL && d->type == ZD_JSON_ARRAY && d->n_items > 0) {
		j->dists = calloc(d->n_items, sizeof(*j->dists));
		if (j->dists == NULL) {
			zd_err(err, ZD_E_NOMEM, "out of memory");
			goto out;
		}
		for (; j->n_dists < d->n_items; j->n_dists++) {
			j->dists[j->n_dists] = strdup(d->items[j->n_dists]);
			if (j->dists[j->n_dists] == NULL) {
				zd_err(err, ZD_E_NOMEM, "out of memory");
				goto out;
			}
		}
	}
	rc = 0;
out:
	zd_json_obj_free(&o);
	if (rc < 0)
		zd_deb_repo_job_free(j);
	return rc;
}

void
zd_deb_repo_job_free(struct zd_repo_job *j)
{
	free(j->input);
	free(j->package);
	free(j->version);
	free(j->arch);
	free(j->dst);
	free(j->output);
	for (size_t i = 0; i < j->n_dists; i++)
		free(j->dists[i]);
	free(j->dists);
	memset(j, 0, sizeof(*j));
}

int
zd_deb_repo_sha256_file(const char *path, char hex[65], uint64_t *size,
                    struct zd_error *err)
{
	static const size_t bufsize = 1 << 16;
	SHA2_CTX ctx;
	unsigned char *buf = malloc(bufsize);
	uint64_t total = 0;
	int fd = -1, rc = -1;

	if (buf == NULL)
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		zd_err_errno(err, ZD_E_IO, "cannot open '%s'", path);
		goto out;
	}
	SHA256Init(&ctx);
	for (;;) {
		ssize_t n = zd_read_full(fd, buf, bufsize, err);

		if (n < 0) {
			zd_err_prefix(err, "'%s'", path);
			goto out;
		}
		SHA256Update(&ctx, buf, (size_t)n);
		total += (uint64_t)n;
		if ((size_t)n < bufsize)
			break;
	}
	SHA256End(&ctx, hex);
	if (size != NULL)
		*size = total;
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return rc;
}

static const char *const verdict_names[] = {
	[ZD_REPO_CONVERTED] = "converted",
	[ZD_REPO_KEPT] = "kept",
	[ZD_REPO_FAILED] = "failed",
};

const char *
zd_deb_repo_verdict_name(enum zd_repo_verdict v)
{
	return verdict_names[v];
}

char *
zd_deb_repo_result_path(const struct zd_repo_job *j)
{
	char h[ZD_REPO_KEY_LEN + 1];
	char *path;

	short_hash(j->output, h);
	if (asprintf(&path, "%s/%s/results/%s.json", j->dst,
	             ZD_REPO_STATE_DIR, h) < 0)
		return NULL;
	return path;
}

int
zd_deb_repo_result_write(const struct zd_repo_job *j,
                     const struct zd_repo_result *r, FILE *f,
                     struct zd_error *err)
{
	char conv[128];

	zd_deb_repo_conversion(j, conv, sizeof(conv));
	put_key(f, "index", true);
	fprintf(f, "%ju", (uintmax_t)j->index);
	put_str(f, "package", j->package);
	put_str(f, "input", j->input);
	put_str(f, "output", j->output);
	put_str(f, "from", j->from);
	put_str(f, "conversion", conv);
	put_str(f, "verdict", zd_deb_repo_verdict_name(r->verdict));
	put_key(f, "skipped", false);
	fputs(r->skipped ? "true" : "false", f);
	put_str(f, "stage", r->stage);
	put_str(f, "error", r->error);
	put_u64(f, "in_bytes", r->in_bytes);
	put_u64(f, "out_bytes", r->out_bytes);
	put_str(f, "out_sha256", r->out_sha256[0] != '\0' ? r->out_sha256 :
	        NULL);
	put_key(f, "redone", false);
	fputs(r->redone ? "true" : "false", f);
	put_u64(f, "tar_bytes", r->tar_bytes);
	put_key(f, "wall_s", false);
	fprintf(f, "%.3f", r->wall_s);
	put_key(f, "cpu_s", false);
	fprintf(f, "%.3f", r->cpu_s);
	put_str(f, "host", r->host);
	return end_line(f, err);
}

int
zd_deb_repo_result_save(const struct zd_repo_job *j,
                    const struct zd_repo_result *r, struct zd_error *err)
{
	char *path = zd_deb_repo_result_path(j), *line = NULL;
	size_t len = 0;
	struct zd_outfile o = ZD_OUTFILE_INIT;
	FILE *f = NULL;
	int rc = -1;

	if (path == NULL) {
		zd_err(err, ZD_E_NOMEM, "out of memory");
		goto out;
	}
	f = open_memstream(&line, &len);
	if (f == NULL) {
		zd_err(err, ZD_E_NOMEM, "out of memory");
		goto out;
	}
	if (zd_deb_repo_result_write(j, r, f, err) < 0 || fclose(f) != 0) {
		f = NULL;
		zd_err(err, ZD_E_NOMEM, "out of memory");
		goto out;
	}
	f = NULL;
	if (zd_outfile_open(&o, path, 0644, err) < 0 ||
	    zd_write_all(o.fd, line, len, err) < 0 ||
	    zd_outfile_commit(&o, path, true, err) < 0) {
		if (err->msg[0] != '\0' && strstr(err->msg, path) == NULL)
			zd_err_prefix(err, "'%s'", path);
		goto out;
	}
	rc = 0;
out:
	if (f != NULL)
		fclose(f);
	zd_outfile_abort(&o);
	free(line);
	free(path);
	return rc;
}

static int
verdict_parse(const char *s, enum zd_repo_verdict *v)
{
	for (size_t i = 0; i < sizeof(verdict_names) / sizeof(*verdict_names);
	     i++) {
		if (s != NULL && strcmp(s, verdict_names[i]) == 0) {
			*v = (enum zd_repo_verdict)i;
			return 0;
		}
	}
	return -1;
}

int
zd_deb_repo_result_load(const struct zd_repo_job *j, struct zd_repo_result *r,
                    struct zd_error *err)
{
	char *path = zd_deb_repo_result_path(j);
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	struct zd_json_obj o = { NULL, 0 };
	const struct zd_json_val *sk;
	FILE *f;
	int rc = -1;

	memset(r, 0, sizeof(*r));
	if (path == NULL)
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	f = fopen(path, "re");
	if (f == NULL) {
		rc = errno == ENOENT ? 0 :
		     zd_err_errno(err, ZD_E_IO, "cannot open '%s'", path);
		free(path);
		return rc;
	}
	n = getline(&line, &cap, f);
	if (n < 0) {
		zd_err(err, ZD_E_FORMAT, "'%s': empty", path);
		goto out;
	}
	if (zd_json_parse(line, (size_t)n, &o, err) < 0 ||
	    zd_json_u64(&o, "index", &r->index, err) < 0 ||
	    zd_json_u64(&o, "in_bytes", &r->in_bytes, err) < 0 ||
	    zd_json_u64(&o, "out_bytes", &r->out_bytes, err) < 0 ||
	    zd_json_u64(&o, "tar_bytes", &r->tar_bytes, err) < 0 ||
	    get_str(&o, "stage", true, &r->stage, err) < 0 ||
	    get_str(&o, "error", true, &r->error, err) < 0 ||
	    get_str(&o, "host", true, &r->host, err) < 0) {
		zd_err_prefix(err, "'%s'", path);
		goto out;
	}
	{
		const char *h = zd_json_str(&o, "out_sha256");
		const struct zd_json_val *rd = zd_json_get(&o, "redone");

		if (h != NULL && strlen(h) == 64 &&
		    strspn(h, "0123456789abcdef") == 64)
			memcpy(r->out_sha256, h, 65);
		r->redone = rd != NULL && rd->type == ZD_JSON_BOOL &&
		            rd->boolean;
	}
	if (verdict_parse(zd_json_str(&o, "verdict"), &r->verdict) < 0) {
		zd_err(err, ZD_E_FORMAT, "'%s': 'verdict': unknown", path);
		goto out;
	}
	sk = zd_json_get(&o, "skipped");
	r->skipped = sk != NULL && sk->type == ZD_JSON_BOOL && sk->boolean;
	r->wall_s = zd_json_num(&o, "wall_s", 0);
	r->cpu_s = zd_json_num(&o, "cpu_s", 0);
	rc = 1;
out:
	if (rc < 0)
		zd_deb_repo_result_free(r);
	zd_json_obj_free(&o);
	free(line);
	fclose(f);
	free(path);
	return rc;
}

void
zd_deb_repo_result_free(struct zd_repo_result *r)
{
	free(r->stage);
	free(r->error);
	free(r->host);
	memset(r, 0, sizeof(*r));
}

int
zd_deb_repo_output_check(const struct zd_repo_job *j,
                     const struct zd_repo_result *r, bool hash,
                     char *why, size_t whysize, struct zd_error *err)
{
	char *out = NULL, hex[65];
	struct stat st;
	uint64_t size;
	int rc = 0;

	if (asprintf(&out, "%s/%s", j->dst, j->output) < 0)
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	if (stat(out, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(why, whysize, "'%s': %s", out, errno == ENOENT ?
		         "missing" : "not a regular file");
	} else if ((uint64_t)st.st_size != r->out_bytes) {
		snprintf(why, whysize, "'%s': %ju bytes, its result says %ju",
		         out, (uintmax_t)st.st_size,
		         (uintmax_t)r->out_bytes);
	} else if (!hash) {
		rc = 1;
	} else if (r->out_sha256[0] == '\0') {
		snprintf(why, whysize, "'%s': its result has no SHA-256 (of "
		         "an older zdeb)", out);
	} else if (zd_deb_repo_sha256_file(out, hex, &size, err) < 0) {
		rc = -1;
	} else if (size != r->out_bytes ||
	           strcmp(hex, r->out_sha256) != 0) {
		snprintf(why, whysize, "'%s': SHA-256 %.16s..., its result "
		         "says %.16s...", out, hex, r->out_sha256);
	} else {
		rc = 1;
	}
	free(out);
	return rc;
}

char *
zd_deb_repo_tmp_path(const struct zd_repo_job *j, const char *host, long pid)
{
	const char *slash = strrchr(j->output, '/'), *key;
	char *p;

	if (slash == NULL)
		slash = key = j->output;
	else
		for (key = slash; key > j->output && key[-1] != '/'; key--)
			;
	if (asprintf(&p, "%s/%s/tmp/%.*s-%s@%s.%ld", j->dst,
	             ZD_REPO_STATE_DIR, (int)(slash - key), key,
	             *slash == '/' ? slash + 1 : slash, host, pid) < 0)
		return NULL;
	return p;
}

bool
zd_deb_repo_tmp_owner(const char *name, const char *host, long *pid)
{
	char buf[NAME_MAX + 1], *tag, *dot, *at, *end;
	long v;

	if (strlen(name) >= sizeof(buf) || host[0] == '\0')
		return false;
	memcpy(buf, name, strlen(name) + 1);
	tag = strstr(buf, ZD_OUTFILE_TAG);
	if (tag != NULL)
		*tag = '\0';
	dot = strrchr(buf, '.');
	if (dot == NULL)
		return false;
	errno = 0;
	v = strtol(dot + 1, &end, 10);
	if (*end != '\0' || end == dot + 1 || errno != 0 || v <= 0)
		return false;
	*dot = '\0';
	/* NAME may hold '@', HOST not */
	at = strrchr(buf, '@');
	if (at == NULL || strcmp(at + 1, host) != 0)
		return false;
	*pid = v;
	return true;
}

int
zd_deb_repo_publish(const struct zd_repo_job *j, const char *tmp,
                struct zd_repo_result *r, struct zd_error *err)
{
	char *out = NULL, *slash;
	uint64_t size;
	int rc = -1;

	if (asprintf(&out, "%s/%s", j->dst, j->output) < 0) {
		out = NULL;
		zd_err(err, ZD_E_NOMEM, "out of memory");
		goto out;
	}
	if (zd_deb_repo_sha256_file(tmp, r->out_sha256, &size, err) < 0)
		goto out;
	slash = strrchr(out, '/');
	*slash = '\0';
	if (zd_deb_repo_mkdirs(out, err) < 0)
		goto out;
	*slash = '/';
	if (rename(tmp, out) < 0) {
		zd_err_errno(err, ZD_E_IO, "cannot rename '%s' to '%s'", tmp,
		             out);
		goto out;
	}
	/* the file was synced when made: its name now */
	if (zd_fsync_parent(out, err) < 0)
		goto out;
	r->out_bytes = size;
	rc = 0;
out:
	if (rc < 0)
		r->out_sha256[0] = '\0';
	free(out);
	return rc;
}

int
zd_deb_repo_copy_file(const char *in, const char *out, struct zd_error *err)
{
	static const size_t bufsize = 1 << 16;
	struct zd_outfile o = ZD_OUTFILE_INIT;
	unsigned char *buf = malloc(bufsize);
	int ifd = -1, rc = -1;

	if (buf == NULL)
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	ifd = open(in, O_RDONLY | O_CLOEXEC);
	if (ifd < 0) {
		zd_err_errno(err, ZD_E_IO, "cannot open '%s'", in);
		goto out;
	}
	if (zd_outfile_open(&o, out, 0644, err) < 0)
		goto out;
	for (;;) {
		ssize_t n = zd_read_full(ifd, buf, bufsize, err);

		if (n < 0) {
			zd_err_prefix(err, "cannot read '%s'", in);
			goto out;
		}
		if (n > 0 && zd_write_all(o.fd, buf, (size_t)n, err) < 0) {
			zd_err_prefix(err, "cannot write '%s'", out);
			goto out;
		}
		if ((size_t)n < bufsize)
			break;
	}
	rc = zd_outfile_commit(&o, out, true, err);
out:
	zd_outfile_abort(&o);
	if (ifd >= 0)
		close(ifd);
	free(buf);
	return rc;
}

int
zd_deb_repo_jobs_load(const char *path, struct zd_repo_jobs *jobs,
                  struct zd_error *err)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	ssize_t len;
	int rc = 0;

	memset(jobs, 0, sizeof(*jobs));
	if (f == NULL)
		return zd_err_errno(err, ZD_E_IO, "cannot open '%s'", path);
	while ((len = getline(&line, &cap, f)) >= 0) {
		struct zd_repo_job *v;

		lineno++;
		v = reallocarray(jobs->v, jobs->n + 1, sizeof(*v));
		if (v == NULL) {
			rc = zd_err(err, ZD_E_NOMEM, "out of memory");
			break;
		}
		jobs->v = v;
		if (zd_deb_repo_job_parse(line, (size_t)len, &v[jobs->n],
		                      err) < 0) {
			zd_err_prefix(err, "'%s' line %zu", path, lineno);
			rc = -1;
			break;
		}
		if (v[jobs->n].index != jobs->n) {
			rc = zd_err(err, ZD_E_FORMAT, "'%s' line %zu: index "
			            "%ju, not %zu", path, lineno,
			            (uintmax_t)v[jobs->n].index, jobs->n);
			zd_deb_repo_job_free(&v[jobs->n]);
			break;
		}
		jobs->n++;
	}
	if (rc == 0 && ferror(f))
		rc = zd_err_errno(err, ZD_E_IO, "cannot read '%s'", path);
	free(line);
	fclose(f);
	if (rc < 0)
		zd_deb_repo_jobs_free(jobs);
	return rc;
}

void
zd_deb_repo_jobs_free(struct zd_repo_jobs *jobs)
{
	for (size_t i = 0; i < jobs->n; i++)
		zd_deb_repo_job_free(&jobs->v[i]);
	free(jobs->v);
	memset(jobs, 0, sizeof(*jobs));
}

char *
zd_deb_repo_state_path(const char *dst, const char *name)
{
	char *p;

	if (asprintf(&p, "%s/%s%s%s", dst, ZD_REPO_STATE_DIR,
	             name[0] != '\0' ? "/" : "", name) < 0)
		return NULL;
	return p;
}

int
zd_deb_repo_mkdirs(const char *path, struct zd_error *err)
{
	char buf[PATH_MAX];
	size_t n = strlen(path);

	if (n >= sizeof(buf))
		return zd_err(err, ZD_E_USAGE, "'%s': path too long", path);
	memcpy(buf, path, n + 1);
	for (char *p = buf + 1; ; p++) {
		char c = *p;

		if (c != '/' && c != '\0')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return zd_err_errno(err, ZD_E_IO, "cannot create "
			                    "directory '%s'", buf);
		*p = c;
		if (c == '\0')
			return 0;
	}
}

/* Calls fn with each stanza of text[0, len). */
static int
each_stanza(const char *path, const char *text, size_t len,
            zd_repo_stanza_fn fn, void *ctx, struct zd_error *err)
{
	size_t pos = 0;
	unsigned n = 0;

	while (pos < len) {
		const char *end;
		size_t slen;
		struct zd_control st = { NULL, 0 };
		int rc;

		while (pos < len && text[pos] == '\n')
			pos++;
		if (pos >= len)
			break;
		end = memmem(text + pos, len - pos, "\n\n", 2);
		slen = end != NULL ? (size_t)(end - (text + pos)) + 1 :
		       len - pos;
		n++;
		if (zd_dpkg_control_parse(text + pos, slen, path, &st,
		                          err) < 0) {
			zd_err_prefix(err, "stanza %u", n);
			return -1;
		}
		rc = fn(ctx, &st, err);
		zd_dpkg_control_free(&st);
		if (rc != 0)
			return rc;
		pos += slen;
	}
	return 0;
}

int
zd_deb_repo_packages_read(const char *path, zd_repo_stanza_fn fn, void *ctx,
                      struct zd_error *err)
{
	const char *dot = strrchr(path, '.');
	const struct zd_codec *c = NULL;
	struct zd_membuf b = ZD_MEMBUF_INIT(SIZE_MAX - 1);
	struct zd_sink sink = ZD_SINK_MEMBUF(&b);
	struct zd_dec_params dp = { .threads = 1, .member = path };
	struct zd_region r = { -1, 0, 0 };
	int rc = -1;

	if (dot != NULL && strchr(dot, '/') == NULL)
		c = zd_codec_find_by_ext(dot);
	if (c == NULL)
		c = zd_codec_find_by_ext("");
	r.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r.fd < 0)
		return zd_err_errno(err, ZD_E_IO, "cannot open '%s'", path);
	if (zd_fd_size(r.fd, &r.len, err) < 0 ||
	    zd_decompress(c, &r, &dp, &sink, err) < 0) {
		zd_err_prefix(err, "'%s'", path);
		goto out;
	}
	rc = each_stanza(path, b.buf != NULL ? b.buf : "", b.len, fn, ctx,
	                 err);
out:
	close(r.fd);
	free(b.buf);
	return rc;
}

struct index_check {
	const char *path;
	struct zd_repo_indexed *want;
	size_t n;
	zd_repo_say_fn say;
	void *ctx;
	long bad;
};

static int
cmp_indexed(const void *a, const void *b)
{
	return strcmp(((const struct zd_repo_indexed *)a)->output,
	              ((const struct zd_repo_indexed *)b)->output);
}

static void
say(struct index_check *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void
say(struct index_check *c, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	c->bad++;
	if (c->say == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	c->say(c->ctx, msg);
}

static int
check_stanza(void *ctx, const struct zd_control *st, struct zd_error *err)
{
	struct index_check *c = ctx;
	struct zd_repo_indexed key, *w;
	const char *fn = zd_dpkg_control_get(st, "Filename");
	const char *size = zd_dpkg_control_get(st, "Size");
	const char *sha = zd_dpkg_control_get(st, "SHA256");

	(void)err;
	key.output = fn != NULL ? fn : "";
	w = bsearch(&key, c->want, c->n, sizeof(*w), cmp_indexed);
	if (w == NULL) {
		say(c, "'%s': '%s' is no output to index", c->path,
		    fn != NULL ? fn : "(no Filename)");
		return 0;
	}
	if (w->seen)
		say(c, "'%s': '%s' listed twice", c->path, fn);
	w->seen = true;
	if (size == NULL || sha == NULL ||
	    strtoull(size, NULL, 10) != w->size ||
	    strcmp(sha, w->sha256) != 0)
		say(c, "'%s': %s: Size %s SHA256 %.16s..., its result says "
		    "%ju and %.16s...", c->path, fn,
		    size != NULL ? size : "none", sha != NULL ? sha : "none",
		    (uintmax_t)w->size, w->sha256);
	return 0;
}

long
zd_deb_repo_index_check(const char *path, struct zd_repo_indexed *want,
                    size_t n, zd_repo_say_fn fn, void *ctx,
                    struct zd_error *err)
{
	struct index_check c = { path, want, n, fn, ctx, 0 };

	if (n > 0)
		qsort(want, n, sizeof(*want), cmp_indexed);
	for (size_t i = 0; i < n; i++)
		want[i].seen = false;
	if (zd_deb_repo_packages_read(path, check_stanza, &c, err) < 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!want[i].seen)
			say(&c, "'%s': '%s' not listed", path,
			    want[i].output);
	return c.bad;
}

static int
archive_stanza(void *ctx, const struct zd_control *st, struct zd_error *err)
{
	struct zd_repo_archive *a = ctx;
	const char *size = zd_dpkg_control_get(st, "Size");
	const char *isz = zd_dpkg_control_get(st, "Installed-Size");
	long long v;

	a->packages++;
	if (size != NULL) {
		if (zd_parse_ll(size, 0, LLONG_MAX, "Size", &v, err) < 0)
			return -1;
		a->deb_bytes += (uint64_t)v;
	}
	if (isz != NULL) {
		if (zd_parse_ll(isz, 0, LLONG_MAX / 1024, "Installed-Size",
		                &v, err) < 0)
			return -1;
		a->tar_bytes += (uint64_t)v * 1024;
	}
	return 0;
}

int
zd_deb_repo_archive_read(const char *arg, struct zd_repo_archive *a,
                     struct zd_error *err)
{
	struct stat st;
	uint64_t size;

	memset(a, 0, sizeof(*a));
	if (stat(arg, &st) == 0 && S_ISREG(st.st_mode))
		return zd_deb_repo_packages_read(arg, archive_stanza, a, err);
	if (zd_parse_size(arg, 1, UINT64_MAX, "archive size", &size,
	                  err) < 0)
		return zd_err(err, ZD_E_USAGE, "'%s': neither a Packages "
		              "index nor a size (as 120G)", arg);
	a->deb_bytes = size;
	return 0;
}

double
zd_deb_repo_project_hours(uint64_t tar_bytes, double rate, unsigned k)
{
	return (double)tar_bytes / rate / (double)k / 3600.0;
}
