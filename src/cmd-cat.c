/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-cat.c - zdeb cat-data / cat-control: a member's tar on stdout */
#include "config.h"

#include <stdio.h>
#include <unistd.h>

#include "lib/deb-member.h"
#include "src/cmd.h"
#include "src/msg.h"

static const char usage_data[] =
"Usage: zdeb cat-data [-T N] [--max-window SIZE] [--max-size SIZE] DEB\n"
"\n"
"Write the uncompressed data.tar of DEB (- for stdin) to stdout, decoded on\n"
"N threads (default: all cores).  --max-window refuses zstd windows above\n"
"SIZE (default 128M); --max-size stops after SIZE decoded bytes (0: no\n"
"cap; default 1G + 1024 x the compressed size).\n";

static const char usage_control[] =
"Usage: zdeb cat-control [-T N] DEB\n"
"\n"
"Write the uncompressed control.tar of DEB (- for stdin) to stdout.\n";

static int
cat_member(const char *cmd, const char *usage, bool data, int argc,
           char **argv)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_cli_read r;
	struct zd_dec_params p;
	struct zd_deb deb = { .fd = -1 };
	struct zd_fd_sink out;
	struct zd_sink sink;
	int rc;

	rc = zd_cli_read_args(cmd, usage, argc, argv, 0, 1, 1, &r);
	if (rc != 0)
		return rc > 0 ? ZD_EXIT_OK : ZD_EXIT_ERROR;
	if (isatty(1)) {
		zd_msg_error("refusing to write a tar archive to a terminal");
		return ZD_EXIT_ERROR;
	}
	if (zd_cli_open_deb(r.args[0], &deb) < 0)
		return ZD_EXIT_ERROR;
	zd_pipe_grow(1);
	zd_sink_fd_init(&sink, &out, 1);
	zd_cli_dec_params(&p, r.threads);
	zd_cli_dec_limits(&p, &r);
	rc = zd_member_decode(data ? &deb.data : &deb.control, &p, &sink,
	                      &err);
	zd_deb_close(&deb);
	if (rc < 0) {
		zd_err_prefix(&err, "'%s'", r.args[0]);
		return zd_msg_fail(&err);
	}
	return ZD_EXIT_OK;
}

int
cmd_cat_data(int argc, char **argv)
{
	return cat_member("cat-data", usage_data, true, argc, argv);
}

int
cmd_cat_control(int argc, char **argv)
{
	return cat_member("cat-control", usage_control, false, argc, argv);
}
