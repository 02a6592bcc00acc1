/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd-recompress.c - zdeb recompress: re-encode the control and data
 * members of a .deb, keeping the tar bytes exactly
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/deb-recompress.h"
#include "src/cmd.h"
#include "src/msg.h"

static const char usage_text[] =
"Usage: zdeb recompress [OPTIONS] IN.deb OUT.deb\n"
"\n"
"Decode the control and data members of IN.deb and encode them again with\n"
"the given compressor, keeping the tar bytes (and the ar member mtime).\n"
"Options are those of zdeb build: -Z, -z, -S, -T, --layout,\n"
"--control-layout, --segment-size, --long, --target; defaults zstd -19\n"
"indexed.  --max-size=SIZE caps what each member may decode to (default\n"
"1 GiB + 1024 x its compressed size; 0: no cap).\n";

static const struct option longopts[] = {
	ZD_CLI_COMP_LONGOPTS,
	{ "max-size", required_argument, NULL, ZD_OPT_MAX_SIZE },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* The progress on a terminal: one line, overwritten member by member. */
static void
show_progress(void *ctx, const char *member, uint64_t fed)
{
	char stage[64];

	(void)ctx;
	snprintf(stage, sizeof(stage), "recompressing %s", member);
	zd_msg_progress(stage, fed);
}

int
cmd_recompress(int argc, char **argv)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_cli_comp raw = { .default_zstd_level = 19 };
	struct zd_comp_params cp, ccp;
	struct zd_dec_params dp;
	struct zd_recompress_opts o = { &cp, &dp, NULL, NULL, &ccp, true };
	struct zd_deb deb = { .fd = -1 };
	bool tty = zd_msg_stderr_is_tty();
	uint64_t max_size = 0;
	int opt, rc = ZD_EXIT_ERROR;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+" ZD_CLI_COMP_SHORTOPTS "vh",
	                          longopts, NULL)) != -1) {
		if (zd_cli_comp_option(opt, optarg, &raw))
			continue;
		switch (opt) {
		case ZD_OPT_MAX_SIZE:
			if (zd_cli_parse_max_size("recompress", optarg,
			                          &max_size) < 0)
				return ZD_EXIT_ERROR;
			break;
		case 'v': zd_verbose++; break;
		case 'h': fputs(usage_text, stdout); return ZD_EXIT_OK;
		default:
			return zd_msg_usage("recompress", "unknown option "
			                    "'%s'", argv[optind - 1]);
		}
	}
	if (argc - optind != 2)
		return zd_msg_usage("recompress", "expected IN.deb OUT.deb");
	if (zd_cli_comp_resolve("recompress", &raw, &cp) < 0)
		return ZD_EXIT_ERROR;
	if (zd_cli_control_resolve("recompress", &raw, &cp, &ccp) < 0)
		return ZD_EXIT_ERROR;
	if (zd_cli_open_deb(argv[optind], &deb) < 0)
		return ZD_EXIT_ERROR;
	zd_cli_dec_params(&dp, cp.threads);
	dp.max_output = max_size;	/* 0: the library's default cap */
	if (tty)
		o.progress = show_progress;
	rc = zd_deb_recompress(&deb, argv[optind + 1], &o, NULL, &err);
	if (tty)
		zd_msg_progress_end();
	if (rc < 0) {
		zd_err_prefix(&err, "'%s'", argv[optind]);
		rc = zd_msg_fail(&err);
	} else {
		rc = ZD_EXIT_OK;
	}
	zd_deb_close(&deb);
	return rc;
}
