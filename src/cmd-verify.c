/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd-verify.c - zdeb verify: decode every member, checking the zstd
 * index against the frame, every segment hash and every checksum, the
 * files against DEBIAN/md5sums when the package has one, and, asked to,
 * the tars against what the stock dpkg-deb reads
 */
#include "config.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "lib/deb-member.h"
#include "lib/dpkg-md5check.h"
#include "lib/membuf.h"
#include "src/cmd.h"
#include "src/msg.h"
#include "src/stockdeb.h"

static const char usage_text[] =
"Usage: zdeb verify [-T N] [--max-window SIZE] [--max-size SIZE]\n"
"                   [--dpkg-deb[=PROG]] [--json] DEB\n"
"\n"
"Decode the control and data members of DEB, checking the zstd index\n"
"against the frame, every segment hash, the frame checksums and the\n"
"decoded sizes, and the MD5 of every file against DEBIAN/md5sums when the\n"
"package has one.  Exit status 0 when everything matches, 1 on a mismatch\n"
"(a damaged index counts), 2 on other errors.\n"
"\n"
"      --dpkg-deb[=PROG]  then run the stock dpkg-deb (PROG, else the one\n"
"                         zdeb integrate diverted, else dpkg-deb in PATH)\n"
"                         with --ctrl-tarfile and --fsys-tarfile: a failure\n"
"                         or other bytes than zdeb's is a mismatch (stock\n"
"                         dpkg could not install the package as zdeb does)\n"
"      --json             print the result as one JSON object (messages\n"
"                         still go to stderr, the exit status is the same)\n";

struct verify_state {
	unsigned warnings;
	struct zd_membuf ctl;	/* control.tar, kept for md5sums */
	size_t len;		/* bytes of the member being decoded */
	bool keep;
	/* for --json */
	struct zd_md5check_result md5;
	bool md5_done;
	char stock_prog[PATH_MAX];	/* "" until found */
	int stock_rc;
	bool stock_done;
};

static void
count_warning(void *ctx, const char *msg)
{
	struct verify_state *v = ctx;

	v->warnings++;
	zd_msg_warn("%s", msg);
}

/* Counts (and, for control.tar, keeps) the decoded bytes. */
static int
collect_write(void *ctx, const void *buf, size_t len, struct zd_error *err)
{
	struct verify_state *v = ctx;

	if (v->keep && zd_membuf_write(&v->ctl, buf, len, err) < 0)
		return -1;
	v->len += len;
	return 0;
}

static int
decode_error(const char *path, struct zd_error *err)
{
	zd_err_prefix(err, "'%s'", path);
	zd_msg_error("%s", err->msg);
	return err->code == ZD_E_CHECKSUM || err->code == ZD_E_FORMAT ?
	       ZD_EXIT_MISMATCH : ZD_EXIT_ERROR;
}

static void
member_params(struct zd_dec_params *p, const struct zd_cli_read *r,
              struct verify_state *v)
{
	zd_cli_dec_params(p, r->threads);
	zd_cli_dec_limits(p, r);
	p->frame_checksum = true;	/* as stock readers do */
	p->warn = count_warning;
	p->warn_ctx = v;
}

static int
verify_member(const char *path, const struct zd_deb_member *m,
              const struct zd_cli_read *r, struct verify_state *v)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_dec_params p;
	struct zd_sink sink = { collect_write, v, NULL, NULL };
	unsigned before = v->warnings;

	member_params(&p, r, v);
	v->len = 0;
	if (zd_deb_member_decode(m, &p, &sink, &err) < 0)
		return decode_error(path, &err);
	if (zd_verbose)
		zd_msg_info("%s: %s: ok, %ju bytes", path, m->name,
		            (uintmax_t)v->len);
	return v->warnings > before ? ZD_EXIT_MISMATCH : ZD_EXIT_OK;
}

/* Decodes data.tar into the md5sums check while it is being read. */
static int
verify_data_md5(const char *path, const struct zd_deb_member *m,
                const char *sums, size_t sums_len,
                const struct zd_cli_read *r, struct verify_state *v)
{
	struct zd_error err = ZD_ERROR_INIT, derr = ZD_ERROR_INIT;
	struct zd_md5check_result res;
	struct zd_member_stream s;
	struct zd_dec_params p;
	unsigned before = v->warnings;
	int rc;

	member_params(&p, r, v);
	if (zd_deb_member_stream_start(&s, m, &p, &err) < 0)
		return decode_error(path, &err);
	rc = zd_dpkg_md5check_tar(s.read_fd, sums, sums_len, count_warning, v,
	                     &res, &err);
	/* A decoder error explains a tar error: report it first. */
	if (zd_deb_member_stream_finish(&s, false, &derr) < 0)
		return decode_error(path, &derr);
	if (rc < 0)
		return decode_error(path, &err);
	v->md5 = res;
	v->md5_done = true;
	if (zd_verbose)
		zd_msg_info("%s: %s: %u files checked against md5sums, %u "
		            "mismatched", path, m->name, res.checked,
		            res.mismatched);
	return v->warnings > before ? ZD_EXIT_MISMATCH : ZD_EXIT_OK;
}

struct hash_sink {
	XXH64_state_t *st;
	uint64_t len;
};

static int
hash_write(void *ctx, const void *buf, size_t len, struct zd_error *err)
{
	struct hash_sink *h = ctx;

	(void)err;
	XXH64_update(h->st, buf, len);
	h->len += len;
	return 0;
}

/*
 * Decodes m with zdeb into *hash (XXH64) and *len.  A second decode, only
 * with --dpkg-deb: the first one's bytes may have gone into the md5sums
 * check, and it costs less than the stock dpkg-deb's single-threaded one.
 */
static int
own_hash(const char *path, const struct zd_deb_member *m,
         const struct zd_cli_read *r, struct verify_state *v,
         uint64_t *hash, uint64_t *len)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct hash_sink h = { XXH64_createState(), 0 };
	struct zd_sink sink = { hash_write, &h, NULL, NULL };
	struct zd_dec_params p;
	int rc = ZD_EXIT_OK;

	if (h.st == NULL) {
		zd_msg_error("out of memory");
		return ZD_EXIT_ERROR;
	}
	XXH64_reset(h.st, 0);
	member_params(&p, r, v);
	if (zd_deb_member_decode(m, &p, &sink, &err) < 0)
		rc = decode_error(path, &err);
	*hash = XXH64_digest(h.st);
	*len = h.len;
	XXH64_freeState(h.st);
	return rc;
}

/* Does "prog action path" write the bytes zdeb decodes from m? */
static int
stock_member(const char *path, const struct zd_deb_member *m,
             const char *action, const char *prog,
             const struct zd_cli_read *r, struct verify_state *v)
{
	struct zd_stockdeb_out so;
	uint64_t hash, len;
	int rc = own_hash(path, m, r, v, &hash, &len);

	if (rc != ZD_EXIT_OK)
		return rc;
	if (zd_stockdeb_read(prog, action, path, &so) < 0)
		return ZD_EXIT_ERROR;
	if (so.status != 0) {
		zd_msg_error("'%s': %s: '%s %s' failed (exit status %d): "
		             "stock dpkg cannot install this package", path,
		             m->name, prog, action, so.status);
		return ZD_EXIT_MISMATCH;
	}
	if (so.len != len || so.hash != hash) {
		zd_msg_error("'%s': %s: '%s %s' writes %ju bytes%s, zdeb "
		             "%ju: stock dpkg would not unpack what zdeb "
		             "does", path, m->name, prog, action,
		             (uintmax_t)so.len, so.len == len ?
		             " (other bytes)" : "", (uintmax_t)len);
		return ZD_EXIT_MISMATCH;
	}
	if (zd_verbose)
		zd_msg_info("%s: %s: '%s %s' writes the same %ju bytes", path,
		            m->name, prog, action, (uintmax_t)len);
	return ZD_EXIT_OK;
}

/* Both tars through the stock dpkg-deb. */
static int
verify_stock(const char *path, const struct zd_deb *deb,
             const struct zd_cli_read *r, struct verify_state *v)
{
	char *prog = v->stock_prog;
	int rc = ZD_EXIT_ERROR;

	v->stock_done = true;
	if (zd_stockdeb_find(r->dpkg_deb_prog, prog,
	                     sizeof(v->stock_prog)) < 0) {
		prog[0] = '\0';
		goto out;
	}
	rc = stock_member(path, &deb->control, "--ctrl-tarfile", prog, r, v);
	if (rc == ZD_EXIT_OK)
		rc = stock_member(path, &deb->data, "--fsys-tarfile", prog, r,
		                  v);
out:
	v->stock_rc = rc;
	return rc;
}

static const char *
result_name(int rc)
{
	return rc == ZD_EXIT_OK ? "ok" :
	       rc == ZD_EXIT_MISMATCH ? "mismatch" : "error";
}

/* --json: rc overall, rcs[] of the control and data members. */
static void
print_json(const char *path, const struct zd_deb *deb, const int rcs[2],
           int rc, const struct verify_state *v)
{
	const struct zd_deb_member *m[2] = { &deb->control, &deb->data };

	printf("{\"file\": ");
	zd_msg_json_str(path);
	printf(", \"result\": \"%s\"", result_name(rc));
	if (deb->fd >= 0) {
		printf(", \"members\": [");
		for (int i = 0; i < 2; i++) {
			printf("%s{\"name\": ", i > 0 ? ", " : "");
			zd_msg_json_str(m[i]->name);
			printf(", \"result\": \"%s\"}", result_name(rcs[i]));
		}
		printf("]");
	}
	if (v->md5_done)
		printf(", \"md5sums\": {\"checked\": %u, \"mismatched\": %u}",
		       v->md5.checked, v->md5.mismatched);
	else
		printf(", \"md5sums\": null");
	if (v->stock_done) {
		printf(", \"stock_dpkg_deb\": {\"program\": ");
		if (v->stock_prog[0] != '\0')
			zd_msg_json_str(v->stock_prog);
		else
			printf("null");
		printf(", \"result\": \"%s\"}", result_name(v->stock_rc));
	} else {
		printf(", \"stock_dpkg_deb\": null");
	}
	printf("}\n");
}

/* Every check of "zdeb verify" on path, as r asks. */
static int
verify_deb(const char *path, const struct zd_cli_read *r)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_deb deb = { .fd = -1 };
	struct verify_state v;
	char *sums = NULL;
	size_t sums_len = 0;
	int rc, rc2, found, rcs[2];

	memset(&v, 0, sizeof(v));
	v.ctl = (struct zd_membuf)ZD_MEMBUF_INIT(SIZE_MAX - 1);
	if (zd_cli_open_deb(path, &deb) < 0) {
		if (r->json)
			print_json(path, &deb, NULL, ZD_EXIT_ERROR, &v);
		return ZD_EXIT_ERROR;
	}
	v.keep = true;
	rc = verify_member(path, &deb.control, r, &v);
	v.keep = false;
	found = rc == ZD_EXIT_OK ?
	        zd_dpkg_md5check_find(v.ctl.buf, v.ctl.len, &sums, &sums_len,
	                         &err) : 0;
	if (found < 0)
		rc = decode_error(path, &err);
	if (found > 0)
		rc2 = verify_data_md5(path, &deb.data, sums, sums_len, r, &v);
	else
		rc2 = verify_member(path, &deb.data, r, &v);
	free(sums);
	free(v.ctl.buf);
	rcs[0] = rc;
	rcs[1] = rc2;
	if (rc2 > rc)
		rc = rc2;
	if (rc == ZD_EXIT_OK && r->dpkg_deb)
		rc = verify_stock(path, &deb, r, &v);
	if (r->json)
		print_json(path, &deb, rcs, rc, &v);
	else if (rc == ZD_EXIT_OK && !r->quiet)
		printf("%s: ok%s%s\n", path,
		       found > 0 ? " (files match md5sums)" : "",
		       r->dpkg_deb ? " (stock dpkg-deb reads the same tars)" :
		       "");
	zd_deb_close(&deb);
	return rc;
}

int
zd_cli_verify_stock(const char *path, unsigned threads, bool quiet)
{
	struct zd_cli_read r;

	memset(&r, 0, sizeof(r));
	r.quiet = quiet;
	r.threads = threads > 0 ? threads : zd_cli_ncpus();
	r.dpkg_deb = true;
	return verify_deb(path, &r);
}

int
cmd_verify(int argc, char **argv)
{
	struct zd_cli_read r;
	int rc;

	rc = zd_cli_read_args("verify", usage_text, argc, argv,
	                      ZD_CLI_JSON | ZD_CLI_DPKG_DEB, 1, 1, &r);
	if (rc != 0)
		return rc > 0 ? ZD_EXIT_OK : ZD_EXIT_ERROR;
	return verify_deb(r.args[0], &r);
}
