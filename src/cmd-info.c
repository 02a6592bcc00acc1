/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-info.c - zdeb info: members, compressors, zstd layouts */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "lib/zseg-layout.h"
#include "src/cmd.h"
#include "src/msg.h"

static const char usage_text[] =
"Usage: zdeb info [--json] DEB\n"
"\n"
"Show the members of DEB (- for stdin): size, compressor, and for zstd the\n"
"layout (indexed, pzstd, frames, single), the segment or frame count, the\n"
"window and the uncompressed size when the frame header declares it.\n"
"  --json   one JSON object, for scripts\n";

struct member_info {
	const char *name;
	uint64_t size;
	const char *compressor;	/* NULL for debian-binary */
	const char *layout;
	uint64_t segments;
	int window_log;		/* -1: not zstd */
	int64_t uncompressed;	/* -1: unknown */
};

static int
describe(const struct zd_deb_member *m, struct member_info *mi,
         struct zd_error *err)
{
	struct zd_zstd_info zi;

	mi->name = m->name;
	mi->size = m->region.len;
	mi->compressor = m->codec->name;
	mi->segments = 1;
	mi->window_log = -1;
	mi->uncompressed = m->codec->type == ZD_COMP_NONE ?
	                   (int64_t)m->region.len : -1;
	mi->layout = m->codec->type == ZD_COMP_NONE ? "none" : "single";
	if (m->codec->type != ZD_COMP_ZSTD)
		return 0;
	if (zd_zstd_describe(&m->region, &zi, err) < 0) {
		zd_err_prefix(err, "member '%s'", m->name);
		return -1;
	}
	mi->layout = zd_layout_name(zi.layout);
	mi->segments = zi.segments;
	mi->window_log = (int)zi.window_log;
	mi->uncompressed = zi.content_size;
	return 0;
}

static void
print_json(const char *path, const struct zd_deb *deb,
           const struct member_info *mi, int n)
{
	printf("{\"file\": ");
	zd_msg_json_str(path);
	printf(", \"size\": %" PRIu64 ", \"format\": ", deb->file_size);
	zd_msg_json_str(deb->format);
	printf(", \"members\": [");
	for (int i = 0; i < n; i++) {
		printf("%s{\"name\": ", i ? ", " : "");
		zd_msg_json_str(mi[i].name);
		printf(", \"size\": %" PRIu64, mi[i].size);
		if (mi[i].compressor != NULL) {
			printf(", \"compressor\": \"%s\", \"layout\": \"%s\", "
			       "\"segments\": %" PRIu64, mi[i].compressor,
			       mi[i].layout, mi[i].segments);
			if (mi[i].uncompressed >= 0)
				printf(", \"uncompressed_size\": %" PRId64,
				       mi[i].uncompressed);
			if (mi[i].window_log >= 0)
				printf(", \"window_log\": %d",
				       mi[i].window_log);
		}
		putchar('}');
	}
	printf("]}\n");
}

static void
print_text(const char *path, const struct zd_deb *deb,
           const struct member_info *mi, int n)
{
	printf("%s: Debian package, format %s, %" PRIu64 " bytes\n", path,
	       deb->format, deb->file_size);
	printf("  %-16s %12s  %-10s %-8s %8s  %-6s %14s\n", "member", "size",
	       "compressor", "layout", "segments", "window", "uncompressed");
	for (int i = 0; i < n; i++) {
		char win[16] = "-", unc[32] = "-";

		if (mi[i].window_log >= 0)
			snprintf(win, sizeof(win), "2^%d", mi[i].window_log);
		if (mi[i].uncompressed >= 0)
			snprintf(unc, sizeof(unc), "%" PRId64,
			         mi[i].uncompressed);
		if (mi[i].compressor == NULL)
			printf("  %-16s %12" PRIu64 "\n", mi[i].name,
			       mi[i].size);
		else
			printf("  %-16s %12" PRIu64 "  %-10s %-8s %8" PRIu64
			       "  %-6s %14s\n", mi[i].name, mi[i].size,
			       mi[i].compressor, mi[i].layout,
			       mi[i].segments, win, unc);
	}
}

int
cmd_info(int argc, char **argv)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_cli_read r;
	struct zd_deb deb = { .fd = -1 };
	struct member_info mi[3];
	int rc;

	rc = zd_cli_read_args("info", usage_text, argc, argv, ZD_CLI_JSON, 1, 1,
	                      &r);
	if (rc != 0)
		return rc > 0 ? ZD_EXIT_OK : ZD_EXIT_ERROR;
	if (zd_cli_open_deb(r.args[0], &deb) < 0)
		return ZD_EXIT_ERROR;
	memset(mi, 0, sizeof(mi));
	mi[0].name = "debian-binary";
	mi[0].size = deb.members[0].size;
	if (describe(&deb.control, &mi[1], &err) < 0 ||
	    describe(&deb.data, &mi[2], &err) < 0) {
		zd_deb_close(&deb);
		zd_err_prefix(&err, "'%s'", r.args[0]);
		return zd_msg_fail(&err);
	}
	if (r.json)
		print_json(r.args[0], &deb, mi, 3);
	else
		print_text(r.args[0], &deb, mi, 3);
	zd_deb_close(&deb);
	return ZD_EXIT_OK;
}
