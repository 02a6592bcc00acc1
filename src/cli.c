/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli.c - option helpers shared by the commands */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/deb-encoder.h"
#include "lib/numparse.h"
#include "lib/tar-quote.h"
#include "src/cmd.h"
#include "src/msg.h"

unsigned
zd_cli_ncpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : (unsigned)n;
}

int
zd_cli_parse_threads(const char *cmd, const char *s, unsigned *threads)
{
	struct zd_error err = ZD_ERROR_INIT;
	long long v;

	if (zd_parse_ll(s, 0, 4096, "thread count", &v, &err) < 0) {
		zd_msg_usage(cmd, "%s", err.msg);
		return -1;
	}
	*threads = v == 0 ? zd_cli_ncpus() : (unsigned)v;
	return 0;
}

void
zd_cli_dec_params(struct zd_dec_params *p, unsigned threads)
{
	memset(p, 0, sizeof(*p));
	p->threads = threads ? threads : zd_cli_ncpus();
	p->warn = zd_msg_warn_cb;
}

int
zd_cli_parse_max_size(const char *cmd, const char *s, uint64_t *max)
{
	struct zd_error err = ZD_ERROR_INIT;

	if (zd_parse_size(s, 0, UINT64_MAX, "size", max, &err) < 0) {
		zd_msg_usage(cmd, "%s", err.msg);
		return -1;
	}
	if (*max == 0)
		*max = ZD_DEC_UNLIMITED;
	return 0;
}

void
zd_cli_dec_limits(struct zd_dec_params *p, const struct zd_cli_read *r)
{
	p->max_window = r->max_window;
	/* without --max-size, 0: the library's default cap */
	p->max_output = r->max_size_set ? r->max_size : 0;
}

int
zd_cli_open_deb(const char *path, struct zd_deb *deb)
{
	struct zd_error err = ZD_ERROR_INIT;

	if (zd_deb_open(path, deb, &err) < 0) {
		zd_msg_fail(&err);
		return -1;
	}
	return 0;
}

bool
zd_cli_want_help(int argc, char **argv, const char *usage)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		if (strcmp(argv[i], "--help") == 0 ||
		    strcmp(argv[i], "-h") == 0) {
			fputs(usage, stdout);
			return true;
		}
	}
	return false;
}

static int
parse_layout(const char *cmd, const char *s, enum zd_zstd_layout *l)
{
	if (zd_layout_parse(s, l) == 0)
		return 0;
	zd_msg_usage(cmd, "unknown zstd layout '%s' (valid: indexed, single, "
	             "frames, pzstd, dpkg)", s);
	return -1;
}

/*
 * The releases --target knows: what their stock dpkg reads, and what zdeb
 * then writes.  zstd .debs need dpkg >= 1.21.18 upstream (Debian 12);
 * Ubuntu's dpkg has carried its own zstd support since 18.04 and its
 * archive is zstd since 21.10, so 22.04 (dpkg 1.21.1ubuntu2) reads them.
 * Debian 11 (dpkg 1.20) fails with "uses unknown compression for member
 * 'control.tar.zst'".
 */
struct target {
	const char *name;
	const char *dpkg;		/* for messages */
	bool zstd;			/* stock dpkg reads zstd members */
	enum zd_comp_type pick;
};

static const struct target targets[] = {
	{ "debian-11", "1.20", false, ZD_COMP_XZ },
	{ "debian-12", "1.21.23", true, ZD_COMP_ZSTD },
	{ "debian-13", "1.22", true, ZD_COMP_ZSTD },
	{ "ubuntu-22.04", "1.21.1ubuntu2", true, ZD_COMP_ZSTD },
	{ "ubuntu-24.04", "1.22.6", true, ZD_COMP_ZSTD },
	{ "any", "any", false, ZD_COMP_XZ },
};

static const struct target *
find_target(const char *cmd, const char *name)
{
	for (size_t i = 0; i < sizeof(targets) / sizeof(*targets); i++)
		if (strcmp(name, targets[i].name) == 0)
			return &targets[i];
	zd_msg_usage(cmd, "unknown target '%s' (valid: debian-11, debian-12, "
	             "debian-13, ubuntu-22.04, ubuntu-24.04, any)", name);
	return NULL;
}

bool
zd_cli_target_reads_zstd(const char *name)
{
	for (size_t i = 0; i < sizeof(targets) / sizeof(*targets); i++)
		if (strcmp(name, targets[i].name) == 0)
			return targets[i].zstd;
	return false;
}

bool
zd_cli_comp_option(int opt, const char *arg, struct zd_cli_comp *raw)
{
	switch (opt) {
	case 'Z': raw->type = arg; return true;
	case 'z': raw->level = arg; return true;
	case 'S': raw->strategy = arg; return true;
	case 'T': raw->threads = arg; return true;
	case ZD_OPT_LAYOUT: raw->layout = arg; return true;
	case ZD_OPT_CONTROL_LAYOUT: raw->control_layout = arg; return true;
	case ZD_OPT_SEGMENT: raw->segment = arg; return true;
	case ZD_OPT_LONG: raw->zstd_long = true; return true;
	case ZD_OPT_TARGET: raw->target = arg; return true;
	default: return false;
	}
}

static const char *
pick(const char *cli, const char *env)
{
	const char *e;

	if (cli != NULL)
		return cli;
	e = getenv(env);
	return e != NULL && *e != '\0' ? e : NULL;
}

int
zd_cli_comp_resolve(const char *cmd, const struct zd_cli_comp *raw,
                    struct zd_comp_params *p)
{
	struct zd_error err = ZD_ERROR_INIT;
	const struct zd_codec *c;
	const struct target *t = NULL;
	const char *type = pick(raw->type, "DPKG_DEB_COMPRESSOR_TYPE");
	const char *level = pick(raw->level, "DPKG_DEB_COMPRESSOR_LEVEL");
	const char *threads = pick(raw->threads, "DPKG_DEB_THREADS_MAX");

	memset(p, 0, sizeof(*p));
	if (raw->target != NULL) {
		t = find_target(cmd, raw->target);
		if (t == NULL)
			return -1;
		if (raw->type == NULL)
			type = zd_codec_get(t->pick)->name;
	}
	c = zd_codec_find_by_name(type ? type : "zstd");
	if (c == NULL || c->compress == NULL) {
		zd_msg_usage(cmd, "unknown compressor '%s' (valid: gzip, xz, "
		             "zstd, none)", type);
		return -1;
	}
	if (t != NULL && c->type == ZD_COMP_ZSTD && !t->zstd)
		zd_msg_warn("-Z zstd: the stock dpkg of target %s (dpkg %s) "
		            "cannot install zstd packages (\"uses unknown "
		            "compression for member 'control.tar.zst'\"); "
		            "--target %s alone picks %s", t->name, t->dpkg,
		            t->name, zd_codec_get(t->pick)->name);
	p->type = c->type;
	p->level = c->type == ZD_COMP_ZSTD ? raw->default_zstd_level :
	           c->default_level;
	if (level != NULL &&
	    zd_codec_parse_level(c->type, level, &p->level, &err) < 0) {
		zd_msg_usage(cmd, "%s", err.msg);
		return -1;
	}
	p->strategy = ZD_STRATEGY_DEFAULT;
	if (raw->strategy != NULL &&
	    zd_codec_parse_strategy(c->type, raw->strategy, &p->strategy,
	                            &err) < 0) {
		zd_msg_usage(cmd, "%s", err.msg);
		return -1;
	}
	p->threads = zd_cli_ncpus();
	if (threads != NULL && zd_cli_parse_threads(cmd, threads,
	                                            &p->threads) < 0)
		return -1;
	p->layout = ZD_LAYOUT_INDEXED;
	if (raw->layout != NULL) {
		if (c->type != ZD_COMP_ZSTD) {
			zd_msg_usage(cmd, "--layout is only valid with zstd");
			return -1;
		}
		if (parse_layout(cmd, raw->layout, &p->layout) < 0)
			return -1;
	}
	if (raw->segment != NULL) {
		if (c->type != ZD_COMP_ZSTD) {
			zd_msg_usage(cmd, "--segment-size is only valid with "
			             "zstd");
			return -1;
		}
		if (zd_parse_size(raw->segment, 1024, UINT64_C(1) << 32,
		                  "segment size", &p->segment_size,
		                  &err) < 0) {
			zd_msg_usage(cmd, "%s", err.msg);
			return -1;
		}
	}
	p->zstd_long = raw->zstd_long;
	p->warn = zd_msg_warn_cb;
	zd_codec_fixup_params(p);	/* gzip -z0 is none, as dpkg-deb */
	return 0;
}

int
zd_cli_control_resolve(const char *cmd, const struct zd_cli_comp *raw,
                       const struct zd_comp_params *data,
                       struct zd_comp_params *ctl)
{
	if (raw->control_layout == NULL) {
		zd_deb_encoder_control_params(data, ctl);
		return 0;
	}
	if (data->type != ZD_COMP_ZSTD) {
		zd_msg_usage(cmd, "--control-layout is only valid with zstd");
		return -1;
	}
	*ctl = *data;
	if (parse_layout(cmd, raw->control_layout, &ctl->layout) < 0)
		return -1;
	return 1;
}

int
zd_cli_read_args(const char *cmd, const char *usage, int argc, char **argv,
                 unsigned allow, int min_args, int max_args,
                 struct zd_cli_read *r)
{
	static const struct option longopts[] = {
		{ "threads", required_argument, NULL, 'T' },
		{ "json", no_argument, NULL, ZD_OPT_JSON },
		{ "max-window", required_argument, NULL, ZD_OPT_MAX_WINDOW },
		{ "max-size", required_argument, NULL, ZD_OPT_MAX_SIZE },
		{ "allow-devices", no_argument, NULL, ZD_OPT_ALLOW_DEVICES },
		{ "dpkg-deb", optional_argument, NULL, ZD_OPT_DPKG_DEB },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct zd_error err = ZD_ERROR_INIT;
	int opt;

	memset(r, 0, sizeof(*r));
	r->threads = zd_cli_ncpus();
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+T:vh", longopts, NULL)) !=
	       -1) {
		switch (opt) {
		case 'T':
			if (zd_cli_parse_threads(cmd, optarg, &r->threads) < 0)
				return -1;
			break;
		case ZD_OPT_JSON:
			if (!(allow & ZD_CLI_JSON))
				goto bad;
			r->json = true;
			break;
		case ZD_OPT_MAX_WINDOW:
			/* zstd's --memory: the decoder refuses larger. */
			if (zd_parse_size(optarg, 1024, UINT64_C(1) << 41,
			                  "window size", &r->max_window,
			                  &err) < 0) {
				zd_msg_usage(cmd, "%s", err.msg);
				return -1;
			}
			break;
		case ZD_OPT_MAX_SIZE:
			if (zd_cli_parse_max_size(cmd, optarg,
			                          &r->max_size) < 0)
				return -1;
			r->max_size_set = true;
			break;
		case ZD_OPT_ALLOW_DEVICES:
			r->allow_devices = true;
			break;
		case ZD_OPT_DPKG_DEB:
			if (!(allow & ZD_CLI_DPKG_DEB))
				goto bad;
			r->dpkg_deb = true;
			r->dpkg_deb_prog = optarg;
			break;
		case 'v':
			zd_verbose++;
			break;
		case 'h':
			fputs(usage, stdout);
			return 1;
		default:
			goto bad;
		}
	}
	r->args = argv + optind;
	r->nargs = argc - optind;
	if (r->nargs < min_args)
		return zd_msg_usage(cmd, "missing argument"), -1;
	if (r->nargs > max_args)
		return zd_msg_usage(cmd, "too many arguments"), -1;
	return 0;
bad:
	zd_msg_usage(cmd, "unknown option '%s'", argv[optind - 1]);
	return -1;
}

locale_t
zd_cli_tar_locale(void)
{
	static locale_t loc;

	if (loc == (locale_t)0)
		loc = zd_tar_quote_locale();
	return loc;
}

void
zd_cli_print_tar_name(void *ctx, const char *name)
{
	size_t len = strlen(name);
	char *q = malloc(ZD_TAR_QUOTE_MAX(len));

	(void)ctx;
	if (q == NULL) {
		/* tar's quotearg dies the same way (xalloc_die). */
		zd_msg_error("out of memory");
		exit(ZD_EXIT_ERROR);
	}
	zd_tar_quote(q, ZD_TAR_QUOTE_MAX(len), name, zd_cli_tar_locale());
	printf("%s\n", q);
	free(q);
}
