/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd-verify.c - zdeb verify: decode every member, checking the zstd
 * index against the frame, every segment hash and every checksum, and
 * the files against DEBIAN/md5sums when the package has one
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/md5check.h"
#include "lib/memberdec.h"
#include "src/cmd.h"
#include "src/msg.h"

static const char usage_text[] =
"Usage: zdeb verify [-T N] [--max-window SIZE] [--max-size SIZE] DEB\n"
"\n"
"Decode the control and data members of DEB, checking the zstd index\n"
"against the frame, every segment hash, the frame checksums and the\n"
"decoded sizes, and the MD5 of every file against DEBIAN/md5sums when the\n"
"package has one.  Exit status 0 when everything matches, 1 on a mismatch\n"
"(a damaged index counts), 2 on other errors.\n";

struct verify_state {
	unsigned warnings;
	unsigned char *buf;	/* control.tar, kept for md5sums */
	size_t len, cap;
	bool keep;
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

	if (v->keep) {
		if (v->len + len > v->cap) {
			size_t cap = v->cap ? v->cap : 65536;
			unsigned char *p;

			while (cap < v->len + len)
				cap *= 2;
			p = realloc(v->buf, cap);
			if (p == NULL)
				return zd_err(err, ZD_E_NOMEM, "out of memory");
			v->buf = p;
			v->cap = cap;
		}
		memcpy(v->buf + v->len, buf, len);
	}
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
member_params(struct zd_dec_params *p, const struct zd_deb_member *m,
              const struct zd_cli_read *r, struct verify_state *v)
{
	zd_cli_dec_params(p, r->threads);
	zd_cli_dec_limits(p, r, m);
	p->warn = count_warning;
	p->warn_ctx = v;
}

static int
verify_member(const char *path, const struct zd_deb_member *m,
              const struct zd_cli_read *r, struct verify_state *v)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_dec_params p;
	struct zd_sink sink = { collect_write, v };
	unsigned before = v->warnings;

	member_params(&p, m, r, v);
	v->len = 0;
	if (zd_member_decode(m, &p, &sink, &err) < 0)
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

	member_params(&p, m, r, v);
	if (zd_member_stream_start(&s, m, &p, &err) < 0)
		return decode_error(path, &err);
	rc = zd_md5check_tar(s.read_fd, sums, sums_len, count_warning, v,
	                     &res, &err);
	/* A decoder error explains a tar error: report it first. */
	if (zd_member_stream_finish(&s, false, &derr) < 0)
		return decode_error(path, &derr);
	if (rc < 0)
		return decode_error(path, &err);
	if (zd_verbose)
		zd_msg_info("%s: %s: %u files checked against md5sums, %u "
		            "mismatched", path, m->name, res.checked,
		            res.mismatched);
	return v->warnings > before ? ZD_EXIT_MISMATCH : ZD_EXIT_OK;
}

int
cmd_verify(int argc, char **argv)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_cli_read r;
	struct zd_deb deb = { .fd = -1 };
	struct verify_state v;
	char *sums = NULL;
	size_t sums_len = 0;
	int rc, rc2, found;

	rc = zd_cli_read_args("verify", usage_text, argc, argv, false, 1, 1,
	                      &r);
	if (rc != 0)
		return rc > 0 ? ZD_EXIT_OK : ZD_EXIT_ERROR;
	if (zd_cli_open_deb(r.args[0], &deb) < 0)
		return ZD_EXIT_ERROR;
	memset(&v, 0, sizeof(v));
	v.keep = true;
	rc = verify_member(r.args[0], &deb.control, &r, &v);
	v.keep = false;
	found = rc == ZD_EXIT_OK ?
	        zd_md5check_find(v.buf, v.len, &sums, &sums_len, &err) : 0;
	if (found < 0)
		rc = decode_error(r.args[0], &err);
	if (found > 0)
		rc2 = verify_data_md5(r.args[0], &deb.data, sums, sums_len, &r,
		                      &v);
	else
		rc2 = verify_member(r.args[0], &deb.data, &r, &v);
	free(sums);
	free(v.buf);
	zd_deb_close(&deb);
	if (rc2 > rc)
		rc = rc2;
	if (rc == ZD_EXIT_OK)
		printf("%s: ok%s\n", r.args[0],
		       found > 0 ? " (files match md5sums)" : "");
	return rc;
}
