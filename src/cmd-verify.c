/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd-verify.c - zdeb verify: decode every member, checking the zstd
 * index against the frame, every segment hash and every checksum
 */
#include "config.h"

#include <stdio.h>

#include "lib/memberdec.h"
#include "src/cmd.h"
#include "src/msg.h"

static const char usage_text[] =
"Usage: zdeb verify [-T N] [--max-window SIZE] [--max-size SIZE] DEB\n"
"\n"
"Decode the control and data members of DEB, checking the zstd index\n"
"against the frame, every segment hash, the frame checksums and the\n"
"decoded sizes.  Exit status 0 when everything matches, 1 on a mismatch\n"
"(a damaged index counts), 2 on other errors.\n";

struct verify_state {
	unsigned warnings;
	uint64_t bytes;
};

static void
count_warning(void *ctx, const char *msg)
{
	struct verify_state *v = ctx;

	v->warnings++;
	zd_msg_warn("%s", msg);
}

static int
null_write(void *ctx, const void *buf, size_t len, struct zd_error *err)
{
	struct verify_state *v = ctx;

	(void)buf;
	(void)err;
	v->bytes += len;
	return 0;
}

static int
verify_member(const char *path, const struct zd_deb_member *m,
              const struct zd_cli_read *r, struct verify_state *v)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_dec_params p;
	struct zd_sink sink = { null_write, v };
	unsigned before = v->warnings;

	zd_cli_dec_params(&p, r->threads);
	zd_cli_dec_limits(&p, r, m);
	p.warn = count_warning;
	p.warn_ctx = v;
	v->bytes = 0;
	if (zd_member_decode(m, &p, &sink, &err) < 0) {
		zd_err_prefix(&err, "'%s'", path);
		zd_msg_error("%s", err.msg);
		return err.code == ZD_E_CHECKSUM || err.code == ZD_E_FORMAT ?
		       ZD_EXIT_MISMATCH : ZD_EXIT_ERROR;
	}
	if (zd_verbose)
		zd_msg_info("%s: %s: ok, %ju bytes", path, m->name,
		            (uintmax_t)v->bytes);
	return v->warnings > before ? ZD_EXIT_MISMATCH : ZD_EXIT_OK;
}

int
cmd_verify(int argc, char **argv)
{
	struct zd_cli_read r;
	struct zd_deb deb = { .fd = -1 };
	struct verify_state v = { 0, 0 };
	int rc, rc2;

	rc = zd_cli_read_args("verify", usage_text, argc, argv, false, 1, 1,
	                      &r);
	if (rc != 0)
		return rc > 0 ? ZD_EXIT_OK : ZD_EXIT_ERROR;
	if (zd_cli_open_deb(r.args[0], &deb) < 0)
		return ZD_EXIT_ERROR;
	rc = verify_member(r.args[0], &deb.control, &r, &v);
	rc2 = verify_member(r.args[0], &deb.data, &r, &v);
	zd_deb_close(&deb);
	if (rc2 > rc)
		rc = rc2;
	if (rc == ZD_EXIT_OK)
		printf("%s: ok\n", r.args[0]);
	return rc;
}
