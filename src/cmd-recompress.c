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

#include "lib/ar.h"
#include "lib/deb-encoder.h"
#include "lib/deb-member.h"
#include "lib/deb-write.h"
#include "src/cmd.h"
#include "src/msg.h"

static const char usage_text[] =
"Usage: zdeb recompress [OPTIONS] IN.deb OUT.deb\n"
"\n"
"Decode the control and data members of IN.deb and encode them again with\n"
"the given compressor, keeping the tar bytes (and the ar member mtime).\n"
"Options are those of zdeb build: -Z, -z, -S, -T, --layout,\n"
"--segment-size, --long, --target; defaults zstd -19 indexed.\n";

static const struct option longopts[] = {
	ZD_CLI_COMP_LONGOPTS,
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* The encoder's progress on a terminal; ctx: the stage. */
static void
show_progress(void *ctx, uint64_t bytes)
{
	zd_msg_progress(ctx, bytes);
}

/* Decodes m straight into the encoder, whose output goes straight into
 * out: the tar bytes are kept as they are. */
static int
recode(const struct zd_deb_member *m, const char *base,
       const struct zd_comp_params *cp, struct zd_debout *out,
       struct zd_error *err)
{
	char stage[64];
	bool tty = zd_msg_stderr_is_tty();
	struct zd_dec_params p;
	struct zd_encoder *e;
	struct zd_sink sink;
	char name[ZD_AR_NAME_MAX + 2];
	uint64_t off, size;
	int rc = -1;

	if (zd_debout_begin(out, err) < 0)
		return -1;
	e = zd_encoder_new(cp, out->fd, err);
	if (e == NULL)
		return -1;
	sink.write = zd_encoder_write;
	sink.ctx = e;
	if (tty) {
		snprintf(stage, sizeof(stage), "recompressing %s", base);
		zd_encoder_on_progress(e, show_progress, stage);
		zd_msg_progress(stage, 0);
	}
	zd_cli_dec_params(&p, cp->threads);
	if (zd_member_decode(m, &p, &sink, err) < 0 ||
	    zd_encoder_finish(e, &off, &size, NULL, err) < 0)
		goto out;
	snprintf(name, sizeof(name), "%s%s", base, zd_codec_get(cp->type)->ext);
	rc = zd_debout_end(out, name, off, size, err);
out:
	if (tty)
		zd_msg_progress_end();
	zd_encoder_free(e);
	return rc;
}

int
cmd_recompress(int argc, char **argv)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_cli_comp raw = { .default_zstd_level = 19 };
	struct zd_comp_params cp;
	struct zd_debout out = { .fd = -1 };
	struct zd_deb deb = { .fd = -1 };
	int opt, rc = ZD_EXIT_ERROR;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+" ZD_CLI_COMP_SHORTOPTS "vh",
	                          longopts, NULL)) != -1) {
		if (zd_cli_comp_option(opt, optarg, &raw))
			continue;
		switch (opt) {
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
	if (cp.layout == ZD_LAYOUT_FRAMES || cp.layout == ZD_LAYOUT_PZSTD)
		zd_msg_warn("the %s zstd layout has several frames: stock dpkg "
		            "cannot install the result; 'zdeb integrate' makes "
		            "it installable", zd_cli_layout_name(cp.layout));
	if (zd_cli_open_deb(argv[optind], &deb) < 0)
		return ZD_EXIT_ERROR;
	if (zd_debout_open(&out, argv[optind + 1], deb.members[0].mtime,
	                   &err) < 0 ||
	    recode(&deb.control, "control.tar", &cp, &out, &err) < 0 ||
	    recode(&deb.data, "data.tar", &cp, &out, &err) < 0 ||
	    zd_debout_commit(&out, &err) < 0) {
		zd_err_prefix(&err, "'%s'", argv[optind]);
		zd_msg_fail(&err);
	} else {
		rc = ZD_EXIT_OK;
	}
	zd_debout_abort(&out);
	zd_deb_close(&deb);
	return rc;
}
