/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check-deb-repo.c - the job and result lines of zdeb repo, the output
 * names, the keep-or-convert choice, Packages indexes */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/deb-repo.h"
#include "tests/unit/testutil.h"

static const char sha[] =
	"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

/* A CONVERT job to zstd -19 indexed of input rel under /src. */
static void
job_init(struct zd_repo_job *j, const char *rel)
{
	memset(j, 0, sizeof(*j));
	j->index = 3;
	ck_assert_int_ge(asprintf(&j->input, "/src/%s", rel), 0);
	j->size = 1234;
	memcpy(j->sha256, sha, sizeof(sha));
	j->package = strdup("hello");
	j->version = strdup("2.10-3");
	j->arch = strdup("amd64");
	j->installed_kib = 280;
	snprintf(j->from, sizeof(j->from), "xz");
	j->action = ZD_REPO_CONVERT;
	j->comp.type = ZD_COMP_ZSTD;
	j->comp.level = 19;
	j->comp.layout = ZD_LAYOUT_INDEXED;
	j->comp.threads = 1;
	j->dists = calloc(2, sizeof(char *));
	j->dists[0] = strdup("bookworm/main");
	j->dists[1] = strdup("bookworm/contrib");
	j->n_dists = 2;
}

START_TEST(test_repo_output_names)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_repo_job a, b;
	char *first;

	job_init(&a, "pool/main/h/hello/hello_2.10-3_amd64.deb");
	ck_assert_zd_ok(zd_deb_repo_set_output(&a, "/dst",
	                "pool/main/h/hello/hello_2.10-3_amd64.deb", &err),
	                &err);
	ck_assert_str_eq(a.dst, "/dst");
	ck_assert_int_eq(strncmp(a.output, "pool/main/h/hello/", 18), 0);
	ck_assert_uint_eq(strspn(a.output + 18, "0123456789abcdef"), 16);
	ck_assert_str_eq(a.output + 34, "/hello_2.10-3_amd64.deb");
	first = strdup(a.output);
	/* the same content and conversion: the same name */
	job_init(&b, "x.deb");
	ck_assert_zd_ok(zd_deb_repo_set_output(&b, "/dst",
	                "pool/main/h/hello/hello_2.10-3_amd64.deb", &err),
	                &err);
	ck_assert_str_eq(b.output, first);
	/* another level: another key */
	b.comp.level = 3;
	ck_assert_zd_ok(zd_deb_repo_set_output(&b, "/dst",
	                "pool/main/h/hello/hello_2.10-3_amd64.deb", &err),
	                &err);
	ck_assert_str_ne(b.output, first);
	/* a bare directory: under pool/ */
	ck_assert_zd_ok(zd_deb_repo_set_output(&b, "/dst", "hello.deb", &err),
	                &err);
	ck_assert_int_eq(strncmp(b.output, "pool/", 5), 0);
	ck_assert_str_eq(b.output + 21, "/hello.deb");
	ck_assert_int_eq(zd_deb_repo_set_output(&b, "/dst", "../x.deb", &err),
	                 -1);
	ck_assert_int_eq(zd_deb_repo_set_output(&b, "/dst", "/x.deb", &err),
	                 -1);
	ck_assert_int_eq(zd_deb_repo_set_output(&b, "/dst", "a//x.deb", &err),
	                 -1);
	free(first);
	zd_deb_repo_job_free(&a);
	zd_deb_repo_job_free(&b);
}
END_TEST

/* Writes j, parses it back, compares. */
static void
roundtrip(struct zd_repo_job *j)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_repo_job k;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_zd_ok(zd_deb_repo_job_write(j, f, &err), &err);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(buf[len - 1], '\n');
	ck_assert_ptr_null(memchr(buf, '\n', len - 1));
	ck_assert_zd_ok(zd_deb_repo_job_parse(buf, len, &k, &err), &err);
	ck_assert_uint_eq(k.index, j->index);
	ck_assert_str_eq(k.input, j->input);
	ck_assert_str_eq(k.sha256, j->sha256);
	ck_assert_str_eq(k.output, j->output);
	ck_assert_str_eq(k.package, j->package);
	ck_assert_uint_eq(k.installed_kib, j->installed_kib);
	ck_assert_int_eq(k.action, j->action);
	ck_assert_uint_eq(k.n_dists, j->n_dists);
	ck_assert_str_eq(k.dists[1], j->dists[1]);
	if (j->action == ZD_REPO_CONVERT) {
		ck_assert_int_eq(k.comp.type, j->comp.type);
		ck_assert_int_eq(k.comp.level, j->comp.level);
		if (j->comp.type == ZD_COMP_ZSTD)
			ck_assert_int_eq(k.comp.layout, j->comp.layout);
		ck_assert_int_eq(k.comp.strategy, j->comp.strategy);
		ck_assert_uint_eq(k.comp.segment_size, j->comp.segment_size);
		ck_assert_int_eq(k.comp.zstd_long, j->comp.zstd_long);
	}
	zd_deb_repo_job_free(&k);
	free(buf);
}

START_TEST(test_repo_job_roundtrip)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_repo_job j;
	char conv[128];

	job_init(&j, "a \"quoted\"\\name\tx.deb");
	ck_assert_zd_ok(zd_deb_repo_set_output(&j, "/dst", "a.deb", &err),
	                &err);
	roundtrip(&j);
	zd_deb_repo_conversion(&j, conv, sizeof(conv));
	ck_assert_str_eq(conv, "zstd -19 indexed");
	j.comp.segment_size = 1 << 20;
	j.comp.zstd_long = true;
	j.comp.layout = ZD_LAYOUT_PZSTD;
	zd_deb_repo_conversion(&j, conv, sizeof(conv));
	ck_assert_str_eq(conv, "zstd -19 pzstd segment-size=1048576 long");
	roundtrip(&j);
	j.comp.type = ZD_COMP_XZ;
	j.comp.level = 6;
	j.comp.segment_size = 0;
	j.comp.zstd_long = false;
	zd_deb_repo_conversion(&j, conv, sizeof(conv));
	ck_assert_str_eq(conv, "xz -6");
	roundtrip(&j);
	j.comp.strategy = ZD_STRATEGY_EXTREME;
	zd_deb_repo_conversion(&j, conv, sizeof(conv));
	ck_assert_str_eq(conv, "xz -6 strategy=extreme");
	roundtrip(&j);
	j.action = ZD_REPO_KEEP;
	zd_deb_repo_conversion(&j, conv, sizeof(conv));
	ck_assert_str_eq(conv, "keep");
	roundtrip(&j);
	zd_deb_repo_job_free(&j);
}
END_TEST

static const struct {
	const char *line;
	const char *msg;
} bad_jobs[] = {
	{ "{\"index\": 0}", "'input': missing" },
	{ "{\"index\": 0, \"input\": \"/a.deb\", \"size\": 1, \"dst\": \"/d\", "
	  "\"output\": \"pool/a.deb\", \"sha256\": \"abc\"}",
	  "'sha256': not 64 hex digits" },
	{ "{\"index\": 0, \"input\": \"/a.deb\", \"size\": 1, \"dst\": \"/d\", "
	  "\"output\": \"pool/a.deb\", \"sha256\": \"%s\", \"action\": "
	  "\"frob\"}", "'action'" },
	{ "{\"index\": 0, \"input\": \"/a.deb\", \"size\": 1, \"dst\": \"/d\", "
	  "\"output\": \"pool/../../etc/x\", \"sha256\": \"%s\", \"action\": "
	  "\"keep\"}", "'output': not a plain path" },
	{ "{\"index\": 0, \"input\": \"/a.deb\", \"size\": 1, \"dst\": \"d\", "
	  "\"output\": \"pool/a.deb\", \"sha256\": \"%s\", \"action\": "
	  "\"keep\"}", "absolute 'dst'" },
	{ "{\"index\": 0, \"input\": \"/a.deb\", \"size\": 1, \"dst\": \"/d\", "
	  "\"output\": \"pool/a.deb\", \"sha256\": \"%s\", \"action\": "
	  "\"convert\", \"to\": \"bzip2\", \"level\": 9}", "'to'" },
	{ "{\"index\": 0, \"input\": \"/a.deb\", \"size\": 1, \"dst\": \"/d\", "
	  "\"output\": \"pool/a.deb\", \"sha256\": \"%s\", \"action\": "
	  "\"convert\", \"to\": \"zstd\", \"level\": 99, \"layout\": "
	  "\"indexed\"}", "'level'" },
	{ "{\"index\": 0, \"input\": \"/a.deb\", \"size\": 1, \"dst\": \"/d\", "
	  "\"output\": \"pool/a.deb\", \"sha256\": \"%s\", \"action\": "
	  "\"convert\", \"to\": \"zstd\", \"level\": 3, \"layout\": "
	  "\"weird\"}", "'layout'" },
	{ "not json", "expected '{'" },
};

START_TEST(test_repo_job_malformed)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_repo_job j;
	char line[1024];
	const char *fmt = bad_jobs[_i].line;
	const char *at = strstr(fmt, "%s");

	/* The line with sha for its "%s", without a non-literal format. */
	if (at == NULL)
		snprintf(line, sizeof(line), "%s", fmt);
	else
		snprintf(line, sizeof(line), "%.*s%s%s", (int)(at - fmt), fmt,
		         sha, at + 2);
	ck_assert_int_eq(zd_deb_repo_job_parse(line, strlen(line), &j, &err),
	                 -1);
	ck_assert_msg(strstr(err.msg, bad_jobs[_i].msg) != NULL, "%s: %s",
	              line, err.msg);
	ck_assert_ptr_null(j.input);
}
END_TEST

START_TEST(test_repo_result_save_load)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_repo_job j;
	char stage[] = "verify", why[] = "'x': data.tar.zst: \"bad\"";
	char host[] = "h";
	struct zd_repo_result r = {
		.index = 3, .verdict = ZD_REPO_FAILED, .stage = stage,
		.error = why, .in_bytes = 10, .wall_s = 1.5, .cpu_s = 2.25,
		.host = host,
	}, s;

	job_init(&j, "a.deb");
	ck_assert_zd_ok(zd_deb_repo_set_output(&j, zd_test_tmpdir, "a.deb",
	                                       &err), &err);
	ck_assert_int_eq(zd_deb_repo_result_load(&j, &s, &err), 0);
	ck_assert_int_eq(zd_test_sh("mkdir -p '%s/.zdeb-repo/results'",
	                            zd_test_tmpdir), 0);
	ck_assert_zd_ok(zd_deb_repo_result_save(&j, &r, &err), &err);
	ck_assert_int_eq(zd_deb_repo_result_load(&j, &s, &err), 1);
	ck_assert_int_eq(s.verdict, ZD_REPO_FAILED);
	ck_assert_str_eq(s.stage, "verify");
	ck_assert_str_eq(s.error, r.error);
	ck_assert_uint_eq(s.in_bytes, 10);
	ck_assert(s.cpu_s == 2.25 && s.wall_s == 1.5);
	zd_deb_repo_result_free(&s);
	/* only the result file, no temporary one left */
	ck_assert_int_eq(zd_test_sh("test $(ls '%s/.zdeb-repo/results' | "
	                            "wc -l) = 1", zd_test_tmpdir), 0);
	ck_assert_int_eq(zd_test_sh("for f in '%s/.zdeb-repo/results/'*.json; "
	                            "do echo garbage >\"$f\"; done",
	                            zd_test_tmpdir), 0);
	ck_assert_int_eq(zd_deb_repo_result_load(&j, &s, &err), -1);
	ck_assert_int_eq(err.code, ZD_E_FORMAT);
	zd_deb_repo_job_free(&j);
}
END_TEST

/* A result says converted with the output's size and SHA-256: the check
 * finds a zero-length file, a missing one, a same-size change (with the
 * hash only), and a result without a hash. */
START_TEST(test_repo_output_check)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_repo_job j;
	struct zd_repo_result r, s;
	char why[512], *out;
	uint64_t size;

	job_init(&j, "pool/main/a/a.deb");
	ck_assert_zd_ok(zd_deb_repo_set_output(&j, zd_test_tmpdir,
	                                   "pool/main/a/a.deb", &err), &err);
	ck_assert_int_ge(asprintf(&out, "%s/%s", j.dst, j.output), 0);
	ck_assert_int_eq(zd_test_sh("mkdir -p \"$(dirname '%s')\" "
	                            "'%s/.zdeb-repo/results' && "
	                            "seq 1 1000 >'%s'", out, zd_test_tmpdir,
	                            out), 0);
	memset(&r, 0, sizeof(r));
	r.verdict = ZD_REPO_CONVERTED;
	r.redone = true;
	ck_assert_zd_ok(zd_deb_repo_sha256_file(out, r.out_sha256, &size, &err),
	                &err);
	r.out_bytes = size;
	ck_assert_int_eq(zd_deb_repo_output_check(&j, &r, true, why,
	                                          sizeof(why), &err), 1);
	/* saved and loaded, the hash and redone come back */
	ck_assert_zd_ok(zd_deb_repo_result_save(&j, &r, &err), &err);
	ck_assert_int_eq(zd_deb_repo_result_load(&j, &s, &err), 1);
	ck_assert_str_eq(s.out_sha256, r.out_sha256);
	ck_assert(s.redone);
	zd_deb_repo_result_free(&s);
	/* same size, one byte changed: only the hash sees it */
	ck_assert_int_eq(zd_test_sh("printf X | dd of='%s' bs=1 seek=5 "
	                            "conv=notrunc 2>/dev/null", out), 0);
	ck_assert_int_eq(zd_deb_repo_output_check(&j, &r, false, why,
	                                          sizeof(why), &err), 1);
	ck_assert_int_eq(zd_deb_repo_output_check(&j, &r, true, why,
	                                          sizeof(why), &err), 0);
	ck_assert_ptr_nonnull(strstr(why, "SHA-256"));
	/* zero bytes */
	ck_assert_int_eq(zd_test_sh(": >'%s'", out), 0);
	ck_assert_int_eq(zd_deb_repo_output_check(&j, &r, false, why,
	                                          sizeof(why), &err), 0);
	ck_assert_msg(strstr(why, "0 bytes, its result says") != NULL, "%s",
	              why);
	/* missing */
	ck_assert_int_eq(unlink(out), 0);
	ck_assert_int_eq(zd_deb_repo_output_check(&j, &r, false, why,
	                                          sizeof(why), &err), 0);
	ck_assert_ptr_nonnull(strstr(why, "missing"));
	/* a result of before hashes were kept matches by size only */
	ck_assert_int_eq(zd_test_sh("seq 1 1000 >'%s'", out), 0);
	r.out_sha256[0] = '\0';
	ck_assert_int_eq(zd_deb_repo_output_check(&j, &r, false, why,
	                                          sizeof(why), &err), 1);
	ck_assert_int_eq(zd_deb_repo_output_check(&j, &r, true, why,
	                                          sizeof(why), &err), 0);
	ck_assert_ptr_nonnull(strstr(why, "no SHA-256"));
	free(out);
	zd_deb_repo_job_free(&j);
}
END_TEST

/* The tmp/ name of a job, and whose it is: this host's with its PID, a
 * writer's temporary of one too; another host's, or no such name, not. */
START_TEST(test_repo_tmp_names)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_repo_job j;
	char *p, *want;
	long pid = 0;

	job_init(&j, "pool/main/h/hello/hello_1_all.deb");
	ck_assert_zd_ok(zd_deb_repo_set_output(&j, "/dst",
	                                   "pool/main/h/hello/hello_1_all.deb",
	                                   &err), &err);
	p = zd_deb_repo_tmp_path(&j, "node1.example", 4242);
	ck_assert_ptr_nonnull(p);
	ck_assert_int_ge(asprintf(&want, "/dst/.zdeb-repo/tmp/%.16s-"
	                          "hello_1_all.deb@node1.example.4242",
	                          strrchr(j.output, '/') - 16), 0);
	ck_assert_str_eq(p, want);
	ck_assert(zd_deb_repo_tmp_owner(strrchr(p, '/') + 1, "node1.example",
	                            &pid));
	ck_assert_int_eq(pid, 4242);
	pid = 0;
	ck_assert(zd_deb_repo_tmp_owner(
		"k-a@b.deb@node1.example.77.zdeb-AbC123",
		"node1.example", &pid));
	ck_assert_int_eq(pid, 77);
	ck_assert(!zd_deb_repo_tmp_owner("k-a.deb@node1.example.77", "example",
	                             &pid));
	ck_assert(!zd_deb_repo_tmp_owner("k-a.deb@node2.77", "node1", &pid));
	ck_assert(!zd_deb_repo_tmp_owner("k-a.deb@node1.x77", "node1", &pid));
	ck_assert(!zd_deb_repo_tmp_owner("k-a.deb.node1.77", "node1", &pid));
	ck_assert(!zd_deb_repo_tmp_owner("k-a.deb@node1.-1", "node1", &pid));
	free(want);
	free(p);
	zd_deb_repo_job_free(&j);
}
END_TEST

/* Publishing: the size and hash recorded, the output renamed into its
 * directory (made), the temporary gone; a missing one fails with the
 * hash cleared. */
START_TEST(test_repo_publish)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_repo_job j;
	struct zd_repo_result r;
	char *tmp, *out, hex[65];
	uint64_t size;

	job_init(&j, "pool/main/a/a.deb");
	ck_assert_zd_ok(zd_deb_repo_set_output(&j, zd_test_tmpdir,
	                                   "pool/main/a/a.deb", &err), &err);
	tmp = zd_deb_repo_tmp_path(&j, "h", 1);
	ck_assert_int_ge(asprintf(&out, "%s/%s", j.dst, j.output), 0);
	ck_assert_int_eq(zd_test_sh("mkdir -p '%s/.zdeb-repo/tmp' && "
	                            "seq 1 500 >'%s.src'", zd_test_tmpdir,
	                            tmp), 0);
	free(j.input);
	ck_assert_int_ge(asprintf(&j.input, "%s.src", tmp), 0);
	ck_assert_zd_ok(zd_deb_repo_copy_file(j.input, tmp, &err), &err);
	memset(&r, 0, sizeof(r));
	ck_assert_zd_ok(zd_deb_repo_publish(&j, tmp, &r, &err), &err);
	ck_assert_int_ne(access(tmp, F_OK), 0);
	ck_assert_zd_ok(zd_deb_repo_sha256_file(out, hex, &size, &err), &err);
	ck_assert_str_eq(r.out_sha256, hex);
	ck_assert_uint_eq(r.out_bytes, size);
	ck_assert_uint_eq(size, 1892);
	memset(&r, 0, sizeof(r));
	ck_assert_int_eq(zd_deb_repo_publish(&j, tmp, &r, &err), -1);
	ck_assert_int_eq(err.code, ZD_E_IO);
	ck_assert_str_eq(r.out_sha256, "");
	ck_assert_int_eq(zd_deb_repo_copy_file("/nonexistent/x", tmp, &err),
	                 -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "cannot open"));
	free(tmp);
	free(out);
	zd_deb_repo_job_free(&j);
}
END_TEST

/* The job list read whole; a line out of order or broken is named. */
START_TEST(test_repo_jobs_load)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_repo_jobs jobs;
	struct zd_repo_job j;
	FILE *f;

	for (int i = 0; i < 2; i++) {
		f = fopen(zd_test_path("jobs.jsonl"), i ? "a" : "w");
		ck_assert_ptr_nonnull(f);
		job_init(&j, "a.deb");
		j.index = (uint64_t)i;
		ck_assert_zd_ok(zd_deb_repo_set_output(&j, "/dst", "a.deb",
		                                       &err), &err);
		ck_assert_zd_ok(zd_deb_repo_job_write(&j, f, &err), &err);
		zd_deb_repo_job_free(&j);
		fclose(f);
	}
	ck_assert_zd_ok(zd_deb_repo_jobs_load(zd_test_path("jobs.jsonl"), &jobs,
	                                  &err), &err);
	ck_assert_uint_eq(jobs.n, 2);
	ck_assert_uint_eq(jobs.v[1].index, 1);
	zd_deb_repo_jobs_free(&jobs);
	ck_assert_int_eq(zd_test_sh("sed -n 2p '%s' >'%s'",
	                            zd_test_path("jobs.jsonl"),
	                            zd_test_path("j2")), 0);
	ck_assert_int_eq(zd_deb_repo_jobs_load(zd_test_path("j2"), &jobs, &err),
	                 -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "line 1: index 1, not 0"));
	ck_assert_int_eq(zd_test_sh("echo '{' >>'%s'",
	                            zd_test_path("jobs.jsonl")), 0);
	ck_assert_int_eq(zd_deb_repo_jobs_load(zd_test_path("jobs.jsonl"),
	                                       &jobs, &err), -1);
	ck_assert_int_eq(err.code, ZD_E_FORMAT);
	ck_assert_ptr_nonnull(strstr(err.msg, "line 3"));
	ck_assert_int_eq(zd_deb_repo_jobs_load(zd_test_path("none"), &jobs,
	                                       &err), -1);
	ck_assert_int_eq(err.code, ZD_E_IO);
}
END_TEST

static void
count_say(void *ctx, const char *msg)
{
	(void)msg;
	(*(int *)ctx)++;
}

/* A Packages index against the outputs it must list: a match, a wrong
 * Size, a wrong SHA256, one listed twice, one not listed, a stranger. */
START_TEST(test_repo_index_check)
{
	struct zd_error err = ZD_ERROR_INIT;
	static const char h1[] = "1111111111111111111111111111111111111111"
	                         "111111111111111111111111";
	static const char h2[] = "2222222222222222222222222222222222222222"
	                         "222222222222222222222222";
	struct zd_repo_indexed want[2] = {
		{ "pool/b.deb", 20, h2, false },
		{ "pool/a.deb", 10, h1, false },
	};
	int said = 0;

	ck_assert_int_eq(zd_test_sh(
		"printf 'Package: a\nFilename: pool/a.deb\nSize: 10\nSHA256: "
		"%s\n\nPackage: b\nFilename: pool/b.deb\nSize: 20\nSHA256: "
		"%s\n' >'%s'", h1, h2, zd_test_path("Packages")), 0);
	ck_assert_int_eq(zd_deb_repo_index_check(zd_test_path("Packages"), want,
	                                         2, count_say, &said, &err), 0);
	ck_assert_int_eq(said, 0);
	ck_assert(want[0].seen && want[1].seen);
	/* b's Size and a's SHA256 wrong */
	ck_assert_int_eq(zd_test_sh(
		"printf 'Filename: pool/a.deb\nSize: 10\nSHA256: %s\n\n"
		"Filename: pool/b.deb\nSize: 0\nSHA256: %s\n' >'%s'", h2, h2,
		zd_test_path("Packages")), 0);
	ck_assert_int_eq(zd_deb_repo_index_check(zd_test_path("Packages"), want,
	                                         2, count_say, &said, &err), 2);
	ck_assert_int_eq(said, 2);
	/* a twice, b missing, c a stranger */
	ck_assert_int_eq(zd_test_sh(
		"printf 'Filename: pool/a.deb\nSize: 10\nSHA256: %s\n\n"
		"Filename: pool/a.deb\nSize: 10\nSHA256: %s\n\n"
		"Filename: pool/c.deb\nSize: 1\nSHA256: %s\n' >'%s'", h1, h1,
		h1, zd_test_path("Packages")), 0);
	ck_assert_int_eq(zd_deb_repo_index_check(zd_test_path("Packages"), want,
	                                         2, NULL, NULL, &err), 3);
	ck_assert_int_eq(zd_deb_repo_index_check(zd_test_path("none"), want, 2,
	                                     NULL, NULL, &err), -1);
	ck_assert_int_eq(err.code, ZD_E_IO);
}
END_TEST

/* An archive for a projection: a Packages index, a size, neither; and
 * the hours on k workers. */
START_TEST(test_repo_archive_project)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_repo_archive a;

	ck_assert_int_eq(zd_test_sh(
		"printf 'Package: a\nSize: 1000\nInstalled-Size: 10\n\n"
		"Package: b\nSize: 500\nInstalled-Size: 4\n' | xz "
		">'%s'", zd_test_path("Packages.xz")), 0);
	ck_assert_zd_ok(zd_deb_repo_archive_read(zd_test_path("Packages.xz"),
	                                         &a, &err), &err);
	ck_assert_uint_eq(a.packages, 2);
	ck_assert_uint_eq(a.deb_bytes, 1500);
	ck_assert_uint_eq(a.tar_bytes, 14 * 1024);
	ck_assert_zd_ok(zd_deb_repo_archive_read("2G", &a, &err), &err);
	ck_assert_uint_eq(a.packages, 0);
	ck_assert_uint_eq(a.deb_bytes, 2ULL << 30);
	ck_assert_int_eq(zd_deb_repo_archive_read("no-such-file", &a, &err),
	                 -1);
	ck_assert_int_eq(err.code, ZD_E_USAGE);
	/* 36 GB of tar at 10 MB per CPU-second: 1 h on 1, 1/16 h on 16 */
	ck_assert(zd_deb_repo_project_hours(36000000000ULL, 1e7, 1) == 1.0);
	ck_assert(zd_deb_repo_project_hours(36000000000ULL, 1e7, 16) ==
	          1.0 / 16);
	ck_assert(zd_deb_repo_project_hours(36000000000ULL, 1e7, 256) ==
	          1.0 / 256);
}
END_TEST

struct seen {
	char names[8][32];
	int n;
};

static int
stanza(void *ctx, const struct zd_control *st, struct zd_error *err)
{
	struct seen *s = ctx;

	(void)err;
	snprintf(s->names[s->n++], 32, "%s",
	         zd_dpkg_control_get(st, "Package"));
	return 0;
}

START_TEST(test_repo_packages_read)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct seen s = { .n = 0 };

	ck_assert_int_eq(zd_test_sh(
		"cd '%s' && printf 'Package: a\\nVersion: 1\\n\\n\\n"
		"Package: b\\nDescription: x\\n y\\n\\nPackage: c\\n' "
		">Packages && xz -k Packages && gzip -k Packages && "
		"printf 'Package: a\\n\\nnot a field\\n' >Bad",
		zd_test_tmpdir), 0);
	ck_assert_zd_ok(zd_deb_repo_packages_read(zd_test_path("Packages"),
	                                      stanza, &s, &err), &err);
	ck_assert_int_eq(s.n, 3);
	ck_assert_str_eq(s.names[2], "c");
	s.n = 0;
	ck_assert_zd_ok(zd_deb_repo_packages_read(zd_test_path("Packages.xz"),
	                                      stanza, &s, &err), &err);
	ck_assert_int_eq(s.n, 3);
	s.n = 0;
	ck_assert_zd_ok(zd_deb_repo_packages_read(zd_test_path("Packages.gz"),
	                                      stanza, &s, &err), &err);
	ck_assert_int_eq(s.n, 3);
	ck_assert_str_eq(s.names[1], "b");
	s.n = 0;
	ck_assert_int_eq(zd_deb_repo_packages_read(zd_test_path("Bad"), stanza,
	                                       &s, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "stanza 2"));
	ck_assert_int_eq(zd_deb_repo_packages_read(zd_test_path("none"), stanza,
	                                       &s, &err), -1);
	ck_assert_int_eq(err.code, ZD_E_IO);
}
END_TEST

/* decide: what is kept, what converted, for which request. */
START_TEST(test_repo_decide)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_repo_want zstd = { .comp = { .type = ZD_COMP_ZSTD,
		.level = 19, .layout = ZD_LAYOUT_INDEXED, .threads = 1 } };
	struct zd_repo_want d11 = { .comp = { .type = ZD_COMP_XZ,
		.level = 6, .threads = 1 }, .keep_readable = true };
	static const struct {
		const char *build;	/* how p.deb is made */
		const char *from;
		int zstd_action, d11_action;
	} cases[] = {
		{ "dpkg-deb -Zxz -b p p.deb", "xz", ZD_REPO_CONVERT,
		  ZD_REPO_KEEP },
		{ "dpkg-deb -Zgzip -b p p.deb", "gzip", ZD_REPO_CONVERT,
		  ZD_REPO_KEEP },
		{ "dpkg-deb -Zzstd -b p p.deb", "zstd-single", ZD_REPO_CONVERT,
		  ZD_REPO_CONVERT },
	};

	ck_assert_int_eq(zd_test_sh(
		"cd '%s' && mkdir -p p/DEBIAN p/usr && printf 'Package: t\\n"
		"Version: 1\\nArchitecture: all\\nMaintainer: t <t@e.org>\\n"
		"Description: t\\n' >p/DEBIAN/control && seq 1 9999 >p/usr/x",
		zd_test_tmpdir), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct zd_deb deb = { .fd = -1 };
		struct zd_repo_job j;

		memset(&j, 0, sizeof(j));
		ck_assert_int_eq(zd_test_sh("cd '%s' && %s >/dev/null",
		                            zd_test_tmpdir, cases[i].build), 0);
		ck_assert_zd_ok(zd_deb_open(zd_test_path("p.deb"), &deb, &err),
		                &err);
		ck_assert_zd_ok(zd_deb_repo_decide(&deb, &zstd, &j, &err),
		                &err);
		ck_assert_str_eq(j.from, cases[i].from);
		ck_assert_int_eq(j.action, cases[i].zstd_action);
		ck_assert_zd_ok(zd_deb_repo_decide(&deb, &d11, &j, &err), &err);
		ck_assert_int_eq(j.action, cases[i].d11_action);
		if (j.action == ZD_REPO_CONVERT)
			ck_assert_int_eq(j.comp.type, ZD_COMP_XZ);
		zd_deb_close(&deb);
	}
}
END_TEST

static Suite *
deb_repo_suite(void)
{
	Suite *s = suite_create("deb-repo");
	TCase *core = zd_test_tcase(s, "core");
	TCase *malformed = zd_test_tcase(s, "malformed");

	tcase_add_test(core, test_repo_output_names);
	tcase_add_test(core, test_repo_job_roundtrip);
	tcase_add_test(core, test_repo_result_save_load);
	tcase_add_test(core, test_repo_packages_read);
	tcase_add_test(core, test_repo_decide);
	tcase_add_test(core, test_repo_output_check);
	tcase_add_test(core, test_repo_jobs_load);
	tcase_add_test(core, test_repo_tmp_names);
	tcase_add_test(core, test_repo_publish);
	tcase_add_test(core, test_repo_index_check);
	tcase_add_test(core, test_repo_archive_project);
	tcase_add_loop_test(malformed, test_repo_job_malformed, 0,
	                    (int)(sizeof(bad_jobs) / sizeof(bad_jobs[0])));
	return s;
}

int
main(void)
{
	return zd_test_main(deb_repo_suite());
}
