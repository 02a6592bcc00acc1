/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-contents.c - zdeb contents: the data.tar listing of dpkg-deb -c */
#include "config.h"

#include <stdio.h>

#include "lib/deb-member.h"
#include "lib/tar-list.h"
#include "src/cmd.h"
#include "src/msg.h"

static const char usage_text[] =
"Usage: zdeb contents [-T N] [--max-window SIZE] [--max-size SIZE] DEB\n"
"\n"
"List the files of DEB (- for stdin) as dpkg-deb -c does (tar -tv format,\n"
"dates in local time).\n";

int
cmd_contents(int argc, char **argv)
{
	struct zd_error err = ZD_ERROR_INIT, derr = ZD_ERROR_INIT;
	struct zd_cli_read r;
	struct zd_dec_params p;
	struct zd_member_stream s;
	struct zd_deb deb = { .fd = -1 };
	int rc;

	rc = zd_cli_read_args("contents", usage_text, argc, argv, 0, 1, 1,
	                      &r);
	if (rc != 0)
		return rc > 0 ? ZD_EXIT_OK : ZD_EXIT_ERROR;
	if (zd_cli_open_deb(r.args[0], &deb) < 0)
		return ZD_EXIT_ERROR;
	zd_cli_dec_params(&p, r.threads);
	zd_cli_dec_limits(&p, &r);
	if (zd_deb_member_stream_start(&s, &deb.data, &p, &err) < 0)
		goto fail;
	rc = zd_tar_list(s.read_fd, stdout, zd_cli_tar_locale(), &err);
	if (zd_deb_member_stream_finish(&s, false, &derr) < 0) {
		err = derr;
		goto fail;
	}
	if (rc < 0 || fflush(stdout) != 0)
		goto fail;
	zd_deb_close(&deb);
	return ZD_EXIT_OK;
fail:
	zd_deb_close(&deb);
	zd_err_prefix(&err, "'%s'", r.args[0]);
	return zd_msg_fail(&err);
}
