/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-build.c - zdeb build: a directory tree to a .deb */
#include "config.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/deb-build.h"
#include "lib/dpkg-check.h"
#include "lib/numparse.h"
#include "lib/zseg-write.h"
#include "src/cmd.h"
#include "src/msg.h"

static const char usage_text[] =
"Usage: zdeb build [OPTIONS] DIR [OUT]\n"
"\n"
"Build the tree DIR (with DIR/DEBIAN/control) into a .deb.  OUT defaults to\n"
"DIR.deb; a directory OUT gives OUT/NAME_VERSION_ARCH.deb.\n"
"\n"
"Options:\n"
"  -Z, --compression=TYPE     gzip, xz, zstd (default) or none\n"
"  -z, --compression-level=N  level (gzip 0-9, xz 0-9, zstd negative to 22;\n"
"                             defaults: gzip 9, xz 6, zstd 19)\n"
"  -S, --compression-strategy=NAME\n"
"                             none; gzip: filtered, huffman, rle, fixed;\n"
"                             xz: extreme\n"
"  -T, --threads=N            compression threads (0 = all cores, default)\n"
"      --layout=LAYOUT        zstd layout: indexed (default), single,\n"
"                             frames, pzstd (the last two need zdeb\n"
"                             integrate to install with stock dpkg)\n"
"      --control-layout=LAYOUT\n"
"                             control.tar's zstd layout (default: as\n"
"                             --layout, but single for frames and pzstd)\n"
"      --segment-size=SIZE    zstd indexed/frames segment target (e.g. 16M)\n"
"      --long                 zstd long-distance matching (window 128 MiB)\n"
"      --target=RELEASE       pick a compressor the stock dpkg of RELEASE\n"
"                             installs: debian-11 (xz), debian-12,\n"
"                             debian-13, ubuntu-22.04, ubuntu-24.04\n"
"                             (zstd), any (xz)\n"
"      --root-owner-group     record every data file as owned by root:root\n"
"      --no-check             skip the control area checks\n"
"      --no-md5sums           do not add DEBIAN/md5sums when it is absent\n"
"      --no-installed-size    do not add Installed-Size when it is absent\n"
"      --verify               then check the result as 'zdeb verify\n"
"                             --dpkg-deb' does (exit 1 when the stock\n"
"                             dpkg-deb does not read the same tars)\n"
"  -v, --verbose              print the effective settings\n"
"  -h, --help                 show this help\n"
"\n"
"Environment: DPKG_DEB_COMPRESSOR_TYPE, DPKG_DEB_COMPRESSOR_LEVEL,\n"
"DPKG_DEB_THREADS_MAX, SOURCE_DATE_EPOCH (the command line wins).\n";

static const struct option longopts[] = {
	ZD_CLI_COMP_LONGOPTS,
	{ "root-owner-group", no_argument, NULL, ZD_OPT_ROOT_OWNER_GROUP },
	{ "no-md5sums", no_argument, NULL, ZD_OPT_NO_MD5SUMS },
	{ "no-installed-size", no_argument, NULL, ZD_OPT_NO_INSTALLED_SIZE },
	{ "no-check", no_argument, NULL, ZD_OPT_NOCHECK },
	{ "nocheck", no_argument, NULL, ZD_OPT_NOCHECK },
	{ "verify", no_argument, NULL, ZD_OPT_VERIFY },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int
build_timestamp(int64_t *ts)
{
	struct zd_error err = ZD_ERROR_INIT;
	const char *sde = getenv("SOURCE_DATE_EPOCH");
	long long v;

	if (sde == NULL) {
		*ts = (int64_t)time(NULL);
		return 0;
	}
	if (zd_parse_ll(sde, INT64_MIN, INT64_MAX, "SOURCE_DATE_EPOCH", &v,
	                &err) < 0) {
		zd_msg_error("%s", err.msg);
		return -1;
	}
	*ts = v;
	return 0;
}

static void
progress_cb(void *ctx, const char *stage, uint64_t bytes)
{
	(void)ctx;
	zd_msg_progress(stage, bytes);
}

static void
print_settings(const struct zd_comp_params *p)
{
	const struct zd_codec *c = zd_codec_get(p->type);
	char seg[80] = "";

	if (p->type == ZD_COMP_ZSTD && p->layout != ZD_LAYOUT_SINGLE)
		snprintf(seg, sizeof(seg), ", segments of about %.1f MiB%s",
		         (double)zd_zseg_target_size(p, UINT64_MAX) / (1 << 20),
		         p->segment_size == 0 && p->layout != ZD_LAYOUT_PZSTD ?
		         " (one below 1 MiB of tar)" : "");
	if (p->type == ZD_COMP_ZSTD)
		zd_msg_info("compressor zstd, level %d, threads %u, layout %s"
		            "%s%s", p->level, p->threads,
		            zd_layout_name(p->layout),
		            p->zstd_long ? ", long" : "", seg);
	else
		zd_msg_info("compressor %s, level %d, threads %u%s%s",
		            c->name, p->level, p->threads,
		            p->strategy > ZD_STRATEGY_NONE ? ", strategy " : "",
		            p->strategy > ZD_STRATEGY_NONE ?
		            zd_strategy_name(p->strategy) : "");
}

int
cmd_build(int argc, char **argv)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_cli_comp raw = { .default_zstd_level = 19 };
	struct zd_build_opts o;
	struct zd_control ctl = { 0 };
	struct zd_pkginfo pi = { 0 };
	/* Strict: what dpkg-deb would only warn about is refused too. */
	struct zd_pkgcheck_opts check = {
		.native_arch = zd_dpkg_pkginfo_native_arch(), .strict = true,
	};
	bool nocheck = false, verify = false;
	char *out = NULL;
	const char *dir, *dest;
	int opt, rc = ZD_EXIT_ERROR;

	memset(&o, 0, sizeof(o));
	o.gen_md5sums = true;
	o.gen_installed_size = true;
	o.durable = true;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+" ZD_CLI_COMP_SHORTOPTS "vh",
	                          longopts, NULL)) != -1) {
		if (zd_cli_comp_option(opt, optarg, &raw))
			continue;
		switch (opt) {
		case ZD_OPT_ROOT_OWNER_GROUP: o.root_owner_group = true; break;
		case ZD_OPT_NOCHECK: nocheck = true; break;
		case ZD_OPT_VERIFY: verify = true; break;
		case ZD_OPT_NO_MD5SUMS: o.gen_md5sums = false; break;
		case ZD_OPT_NO_INSTALLED_SIZE:
			o.gen_installed_size = false;
			break;
		case 'v': zd_verbose++; break;
		case 'h': fputs(usage_text, stdout); return ZD_EXIT_OK;
		default:
			return zd_msg_usage("build", "unknown option '%s'",
			                    argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return zd_msg_usage("build", "missing directory argument");
	if (argc - optind > 2)
		return zd_msg_usage("build", "too many arguments");
	dir = argv[optind];
	dest = optind + 1 < argc ? argv[optind + 1] : NULL;

	if (zd_cli_comp_resolve("build", &raw, &o.data) < 0)
		return ZD_EXIT_ERROR;
	/* uniform compression, as dpkg-deb, but see --control-layout */
	rc = zd_cli_control_resolve("build", &raw, &o.data, &o.control);
	if (rc < 0)
		return ZD_EXIT_ERROR;
	o.control_frames = rc == 1;
	rc = ZD_EXIT_ERROR;
	if (build_timestamp(&o.timestamp) < 0)
		return ZD_EXIT_ERROR;
	if (nocheck) {
		zd_msg_warn("not checking contents of control area");
	} else if (zd_dpkg_check_tree(dir, &check, &ctl, &pi, &err) < 0) {
		/* dpkg's "parsing file ...:\n MSG" on one line. */
		for (char *nl = strchr(err.msg, '\n'); nl != NULL;
		     nl = strchr(nl, '\n'))
			*nl = ' ';
		for (char *p = strstr(err.msg, ":  "); p != NULL;
		     p = strstr(p, ":  "))
			memmove(p + 1, p + 2, strlen(p + 2) + 1);
		goto fail;
	}
	out = zd_deb_build_dest_path(dir, dest, nocheck ? NULL : &pi, &err);
	if (out == NULL)
		goto fail;
	if (zd_verbose) {
		print_settings(&o.data);
		zd_msg_info("building package '%s' in '%s'",
		            nocheck ? "(unchecked)" : pi.name, out);
	}
	if (zd_msg_stderr_is_tty()) {
		o.progress = progress_cb;
	}
	if (zd_deb_build(dir, out, &o, &err) < 0) {
		if (o.progress)
			zd_msg_progress_end();
		goto fail;
	}
	if (o.progress)
		zd_msg_progress_end();
	rc = verify ? zd_cli_verify_stock(out, o.data.threads, false) : ZD_EXIT_OK;
	goto out;
fail:
	zd_msg_fail(&err);
out:
	free(out);
	zd_dpkg_pkginfo_free(&pi);
	zd_dpkg_control_free(&ctl);
	return rc;
}
