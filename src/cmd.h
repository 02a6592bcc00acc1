/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd.h - the zdeb commands and the option helpers they share */
#ifndef ZDEB_CMD_H
#define ZDEB_CMD_H

#include <locale.h>
#include <stdbool.h>
#include <stdint.h>

#include "lib/codec.h"
#include "lib/deb.h"

int cmd_build(int argc, char **argv);
int cmd_extract(int argc, char **argv);
int cmd_control(int argc, char **argv);
int cmd_cat_data(int argc, char **argv);
int cmd_cat_control(int argc, char **argv);
int cmd_contents(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_recompress(int argc, char **argv);
int cmd_integrate(int argc, char **argv);
int cmd_repo(int argc, char **argv);
/* "zdeb repo finish" (argv[0] "finish"), which cmd_repo dispatches to. */
int cmd_repo_finish(int argc, char **argv);
/* mkdir -p path for the repo commands (NULL: out of memory); prints the
 * error.  Returns 0 or -1. */
int cmd_repo_mkdirs(const char *path);
/* The dpkg-deb compatible front end (argv[0] is the program name). */
int cmd_dpkg_deb(int argc, char **argv);

/* Number of online CPUs (>= 1). */
unsigned zd_cli_ncpus(void);
/* Parses -T: 0 means all cores.  Prints the error; returns -1 on error. */
int zd_cli_parse_threads(const char *cmd, const char *s, unsigned *threads);
/* Decoder parameters for the CLI: threads, warnings printed. */
void zd_cli_dec_params(struct zd_dec_params *p, unsigned threads);
/* Opens a .deb, printing the error; returns -1 on error. */
int zd_cli_open_deb(const char *path, struct zd_deb *deb);
/*
 * Handles "--help" for a command: when argv has it, prints usage to stdout
 * and returns true.
 */
bool zd_cli_want_help(int argc, char **argv, const char *usage);

/* Raw compression options as given on the command line (NULL: unset). */
struct zd_cli_comp {
	const char *type;	/* -Z */
	const char *level;	/* -z */
	const char *strategy;	/* -S */
	const char *threads;	/* -T */
	const char *layout;	/* --layout */
	const char *control_layout;	/* --control-layout */
	const char *segment;	/* --segment-size */
	bool zstd_long;		/* --long */
	const char *target;	/* --target (see zd_cli_comp_resolve) */
	int default_zstd_level;	/* 19 native, 3 in dpkg-deb mode */
};

/* getopt_long values of the shared long options. */
enum {
	ZD_OPT_LAYOUT = 0x100,
	ZD_OPT_SEGMENT,
	ZD_OPT_LONG,
	ZD_OPT_ROOT_OWNER_GROUP,
	ZD_OPT_NOCHECK,
	ZD_OPT_JSON,
	ZD_OPT_TARGET,
	ZD_OPT_NO_MD5SUMS,
	ZD_OPT_NO_INSTALLED_SIZE,
	ZD_OPT_MAX_WINDOW,
	ZD_OPT_MAX_SIZE,
	ZD_OPT_ALLOW_DEVICES,
	ZD_OPT_DPKG_DEB,
	ZD_OPT_VERIFY,
	ZD_OPT_INDEX,
	ZD_OPT_JOBS,
	ZD_OPT_SUITE,
	ZD_OPT_COMPONENT,
	ZD_OPT_SIGN,
	ZD_OPT_PARTIAL,
	ZD_OPT_PERF_SAMPLE,
	ZD_OPT_PERF_RUNS,
	ZD_OPT_CONTROL_LAYOUT,
	ZD_OPT_VERIFY_HASH,
	ZD_OPT_PROJECT,
};

/* getopt_long entries of the compression options, shared by build and
 * recompress; ZD_CLI_COMP_SHORTOPTS are their short forms. */
#define ZD_CLI_COMP_SHORTOPTS "Z:z:S:T:"
#define ZD_CLI_COMP_LONGOPTS \
	{ "compression", required_argument, NULL, 'Z' }, \
	{ "compression-level", required_argument, NULL, 'z' }, \
	{ "compression-strategy", required_argument, NULL, 'S' }, \
	{ "threads", required_argument, NULL, 'T' }, \
	{ "threads-max", required_argument, NULL, 'T' }, \
	{ "layout", required_argument, NULL, ZD_OPT_LAYOUT }, \
	{ "control-layout", required_argument, NULL, ZD_OPT_CONTROL_LAYOUT }, \
	{ "segment-size", required_argument, NULL, ZD_OPT_SEGMENT }, \
	{ "long", no_argument, NULL, ZD_OPT_LONG }, \
	{ "target", required_argument, NULL, ZD_OPT_TARGET }

/* Records a compression option in raw; false when opt is not one. */
bool zd_cli_comp_option(int opt, const char *arg, struct zd_cli_comp *raw);

/*
 * Resolves raw options with the DPKG_DEB_COMPRESSOR_TYPE,
 * DPKG_DEB_COMPRESSOR_LEVEL and DPKG_DEB_THREADS_MAX environment (the
 * command line wins) into p.  raw->target (debian-11, debian-12,
 * debian-13, ubuntu-22.04, ubuntu-24.04, any) picks a compressor every
 * stock dpkg of that release reads when -Z is not given (it beats the
 * environment), and makes an explicit -Z it excludes a warning.  Prints
 * the error; returns -1 on error.
 */
int zd_cli_comp_resolve(const char *cmd, const struct zd_cli_comp *raw,
                        struct zd_comp_params *p);
/* True when the stock dpkg of --target name reads zstd members (false
 * for an unknown name: zd_cli_comp_resolve reports it). */
bool zd_cli_target_reads_zstd(const char *name);
/*
 * The control.tar compressor for data's: with --control-layout, data's
 * with that zstd layout (returns 1); without, the library's default,
 * one frame where data's layout has several (zd_deb_encoder_control_params;
 * returns 0).  Prints the error; returns -1 on error.
 */
int zd_cli_control_resolve(const char *cmd, const struct zd_cli_comp *raw,
                           const struct zd_comp_params *data,
                           struct zd_comp_params *ctl);
/* Parsed options of the reading commands. */
struct zd_cli_read {
	unsigned threads;	/* -T, default all cores */
	bool json;		/* --json (info) */
	uint64_t max_window;	/* --max-window; 0: the default, 128 MiB */
	uint64_t max_size;	/* --max-size, if max_size_set (0 given:
				 * ZD_DEC_UNLIMITED) */
	bool max_size_set;
	bool allow_devices;	/* --allow-devices (extract) */
	bool dpkg_deb;		/* --dpkg-deb[=PROG] (verify) */
	bool quiet;		/* verify: no "ok" line (repo run) */
	const char *dpkg_deb_prog;	/* its PROG, or NULL */
	char **args;		/* positional arguments */
	int nargs;
};

/* Options only some commands take (zd_cli_read_args' allow). */
enum {
	ZD_CLI_JSON = 1 << 0,		/* --json */
	ZD_CLI_DPKG_DEB = 1 << 1,	/* --dpkg-deb[=PROG] */
};

/*
 * Parses "-T N", "--json" and "--dpkg-deb[=PROG]" (when allowed),
 * "--max-window SIZE", "--max-size SIZE", "--allow-devices", "--help" and
 * between min_args
 * and max_args positional arguments.  Returns 0, 1 when --help was printed,
 * or -1 after printing a usage error.
 */
int zd_cli_read_args(const char *cmd, const char *usage, int argc,
                     char **argv, unsigned allow, int min_args,
                     int max_args, struct zd_cli_read *r);

/* Parses --max-size: a size, 0 for ZD_DEC_UNLIMITED.  Prints the error;
 * returns -1 on error. */
int zd_cli_parse_max_size(const char *cmd, const char *s, uint64_t *max);
/*
 * Sets the decoder caps of p from --max-window and --max-size in r; without
 * --max-size the library's default cap (zd_dec_max_output), --max-size 0
 * none.
 */
void zd_cli_dec_limits(struct zd_dec_params *p, const struct zd_cli_read *r);

/*
 * "zdeb verify --dpkg-deb path" with threads decoding (0: all cores):
 * prints what it finds (quiet: only what is wrong, on stderr); returns
 * ZD_EXIT_OK, ZD_EXIT_MISMATCH or ZD_EXIT_ERROR.
 */
int zd_cli_verify_stock(const char *path, unsigned threads, bool quiet);

/*
 * The locale GNU tar would quote member names in, from the environment
 * (zd_tar_quote_locale), made on first use and kept.
 */
locale_t zd_cli_tar_locale(void);
/*
 * Prints a member name on stdout as `tar -x -v` does (quoted, then a
 * newline): the zd_extract_opts.on_entry of zdeb extract -v and
 * dpkg-deb -X; ctx is unused.
 */
void zd_cli_print_tar_name(void *ctx, const char *name);

#endif
