/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dd-main.c - the dpkg-deb compatible front end: options and dispatch
 *
 * The command line is parsed as dpkg's dpkg_options_parse() does
 * (lib/dpkg/options.c, 1.21.22): options end at the first argument that is
 * not one ("-" is an argument, "--" ends them), short options bundle
 * ("-vDZxz"), a value follows the letter, an '=' or the next argument; a
 * long option is its whole name (no abbreviations), its value after '='
 * or in the next argument; each action is an option, a second one being
 * a conflict.  The compressor and strategy names are the codec
 * registry's (lib/codec.h).  The
 * environment (DPKG_DEB_THREADS_MAX, DPKG_DEB_COMPRESSOR_TYPE, ..._LEVEL)
 * is read first, so the command line wins.  What zdeb does not implement
 * runs the real dpkg-deb (dd_delegate, in dd-handoff.c).
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/codec.h"
#include "lib/dpkg-pkginfo.h"
#include "lib/numparse.h"
#include "src/cmd.h"
#include "src/dd.h"
#include "src/msg.h"
#include "src/stockdeb.h"

struct dd_opts dd_opts;

/* dpkg sets the help text when it starts parsing options: a usage error
 * in the environment before that prints "(null)" in its place. */
static bool help_ready;

static const char help_pointer_text[] =
	"Type dpkg-deb --help for help about manipulating *.deb files;\n"
	"Type dpkg --help for help about installing and deinstalling packages.";

static void
vmsg(const char *kind, const char *fmt, va_list ap)
{
	fflush(stdout);
	if (kind != NULL)
		fprintf(stderr, "dpkg-deb: %s: ", kind);
	else
		fprintf(stderr, "dpkg-deb: ");
	vfprintf(stderr, fmt, ap);
}

int
dd_badusage(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("error", fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n\n%s\n", help_ready ? help_pointer_text : "(null)");
	return ZD_EXIT_ERROR;
}

int
dd_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("error", fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return ZD_EXIT_ERROR;
}

void
dd_notice(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(NULL, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void
dd_debug(const char *fmt, ...)
{
	va_list ap;

	if (!dd_opts.debug)
		return;
	va_start(ap, fmt);
	vmsg("debug", fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* dpkg's parse_compress_type(): badusage on failure. */
static int
parse_comp_type(const char *value, int *type)
{
	const struct zd_codec *c = zd_codec_find_by_name(value);

	if (c == NULL)
		return dd_badusage("unknown compression type '%s'!", value), -1;
	if (c->type == ZD_COMP_LZMA)
		return dd_badusage("obsolete compression type '%s'; use xz "
		                   "instead", value), -1;
	if (c->type == ZD_COMP_BZIP2)
		return dd_badusage("obsolete compression type '%s'; use xz or "
		                   "gzip instead", value), -1;
	*type = c->type;
	return 0;
}

/* strtol with dpkg's env rules: anything invalid is 0. */
static long
parse_env_long(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (s == end || *end != '\0' || errno != 0)
		return 0;
	return v;
}

enum opt_kind {
	O_ACTION,	/* an action: conflicts with another */
	O_FLAG,		/* sets *iv = ival */
	O_VALUE,	/* takes a value: handler */
};

struct opt {
	const char *olong;
	char oshort;
	enum opt_kind kind;
	int (*action)(char **argv);
	int *iv;
	int ival;
	int (*set)(const struct opt *o, const char *value);
};

static int
set_deb_format(const struct opt *o, const char *value)
{
	const char *why;
	unsigned major, minor;

	(void)o;
	why = zd_deb_version_parse(value, &major, &minor);
	if (why != NULL)
		return dd_badusage("invalid deb format version: %s", why), -1;
	if (major == 2 && minor == 0)
		dd_opts.old_deb_format = false;
	else if (major == 0 && minor == 939000)
		dd_opts.old_deb_format = true;
	else
		return dd_badusage("unknown deb format version: %s", value), -1;
	return 0;
}

/* dpkg_options_parse_arg_int(). */
static int
parse_arg_int(const struct opt *o, const char *s, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (s == end || *end != '\0' || v < 0 || v > INT_MAX || errno != 0) {
		if (o->olong != NULL)
			dd_badusage("invalid integer for --%s: '%.250s'",
			            o->olong, s);
		else
			dd_badusage("invalid integer for -%c: '%.250s'",
			            o->oshort, s);
		return -1;
	}
	*out = v;
	return 0;
}

static int
set_threads_max(const struct opt *o, const char *value)
{
	return parse_arg_int(o, value, &dd_opts.threads_max);
}

static int
set_level(const struct opt *o, const char *value)
{
	long v;

	if (parse_arg_int(o, value, &v) < 0)
		return -1;
	dd_opts.level = (int)v;
	return 0;
}

static int
set_type(const struct opt *o, const char *value)
{
	(void)o;
	return parse_comp_type(value, &dd_opts.comp_type);
}

static int
set_strategy(const struct opt *o, const char *value)
{
	enum zd_strategy st;

	(void)o;
	if (!zd_strategy_find_by_name(value, &st))
		return dd_badusage("unknown compression strategy '%s'!",
		                   value), -1;
	dd_opts.strategy = st;
	return 0;
}

static int
set_showformat(const struct opt *o, const char *value)
{
	(void)o;
	dd_opts.showformat = value;
	return 0;
}

static int do_help(char **argv);
static int do_version(char **argv);

/*
 * dpkg-deb 1.21.22's cmdinfos[] (src/deb/main.c), in its order, and
 * nothing more: the long forms of -Z, -z, -S and --no-check that later
 * dpkg-deb versions have are unknown options here, as in 1.21.22 (zdeb
 * build has them).
 */
static const struct opt opts[] = {
	{ "build", 'b', O_ACTION, dd_do_build, NULL, 0, NULL },
	{ "contents", 'c', O_ACTION, dd_do_contents, NULL, 0, NULL },
	{ "control", 'e', O_ACTION, dd_do_control, NULL, 0, NULL },
	{ "info", 'I', O_ACTION, dd_do_info, NULL, 0, NULL },
	{ "field", 'f', O_ACTION, dd_do_field, NULL, 0, NULL },
	{ "extract", 'x', O_ACTION, dd_do_extract, NULL, 0, NULL },
	{ "vextract", 'X', O_ACTION, dd_do_vextract, NULL, 0, NULL },
	{ "raw-extract", 'R', O_ACTION, dd_do_raw_extract, NULL, 0, NULL },
	{ "ctrl-tarfile", 0, O_ACTION, dd_do_ctrl_tarfile, NULL, 0, NULL },
	{ "fsys-tarfile", 0, O_ACTION, dd_do_fsys_tarfile, NULL, 0, NULL },
	{ "show", 'W', O_ACTION, dd_do_show, NULL, 0, NULL },
	{ "help", '?', O_ACTION, do_help, NULL, 0, NULL },
	{ "version", 0, O_ACTION, do_version, NULL, 0, NULL },
	{ "deb-format", 0, O_VALUE, NULL, NULL, 0, set_deb_format },
	{ "debug", 'D', O_FLAG, NULL, &dd_opts.debug, 1, NULL },
	{ "verbose", 'v', O_FLAG, NULL, &dd_opts.verbose, 1, NULL },
	{ "nocheck", 0, O_FLAG, NULL, &dd_opts.nocheck, 1, NULL },
	{ "root-owner-group", 0, O_FLAG, NULL, &dd_opts.root_owner_group, 1,
	  NULL },
	{ "threads-max", 0, O_VALUE, NULL, NULL, 0, set_threads_max },
	{ "uniform-compression", 0, O_FLAG, NULL, &dd_opts.uniform, 1,
	  NULL },
	{ "no-uniform-compression", 0, O_FLAG, NULL, &dd_opts.uniform, 0,
	  NULL },
	{ NULL, 'z', O_VALUE, NULL, NULL, 0, set_level },
	{ NULL, 'Z', O_VALUE, NULL, NULL, 0, set_type },
	{ NULL, 'S', O_VALUE, NULL, NULL, 0, set_strategy },
	{ "showformat", 0, O_VALUE, NULL, NULL, 0, set_showformat },
};

#define N_OPTS (sizeof(opts) / sizeof(opts[0]))

static const struct opt *action;

/* dpkg's option_short(): '\b' for an action without a letter. */
static int
option_short(char c)
{
	return c ? c : '\b';
}

static int
apply(const struct opt *o, const char *value)
{
	switch (o->kind) {
	case O_ACTION:
		if (action != NULL)
			return dd_badusage("conflicting actions -%c (--%s) and "
			                   "-%c (--%s)", option_short(o->oshort),
			                   o->olong,
			                   option_short(action->oshort),
			                   action->olong), -1;
		action = o;
		return 0;
	case O_FLAG:
		*o->iv = o->ival;
		return 0;
	case O_VALUE:
		return o->set(o, value);
	}
	return 0;
}

/* dpkg_options_parse(): returns the index of the first argument, or -1. */
static int
parse_options(int argc, char **argv)
{
	int i = 1;

	while (i < argc && argv[i][0] == '-' && argv[i][1] != '\0') {
		const char *p = argv[i++];
		const char *value;
		const struct opt *o;

		if (strcmp(p, "--") == 0)
			break;
		if (p[1] == '-') {
			size_t k;

			p += 2;
			value = NULL;
			for (k = 0; k < N_OPTS; k++) {
				size_t l;

				o = &opts[k];
				if (o->olong == NULL)
					continue;
				if (strcmp(p, o->olong) == 0)
					break;
				l = strlen(o->olong);
				if (strncmp(p, o->olong, l) == 0 &&
				    p[l] == '=') {
					value = p + l + 1;
					break;
				}
			}
			if (k == N_OPTS)
				return dd_badusage("unknown option --%s", p), -1;
			o = &opts[k];
			if (o->kind == O_VALUE) {
				if (value == NULL) {
					if (i >= argc)
						return dd_badusage(
						        "--%s option takes a "
						        "value", o->olong), -1;
					value = argv[i++];
				}
			} else if (value != NULL) {
				return dd_badusage("--%s option does not take "
				                   "a value", o->olong), -1;
			}
			if (apply(o, value) < 0)
				return -1;
			continue;
		}
		p++;
		while (*p != '\0') {
			size_t k;

			for (k = 0; k < N_OPTS; k++)
				if (opts[k].oshort != 0 &&
				    opts[k].oshort == *p)
					break;
			if (k == N_OPTS)
				return dd_badusage("unknown option -%c", *p), -1;
			o = &opts[k];
			p++;
			value = NULL;
			if (o->kind == O_VALUE) {
				if (*p == '\0') {
					if (i >= argc)
						return dd_badusage(
						        "-%c option takes a "
						        "value", o->oshort), -1;
					value = argv[i++];
				} else {
					value = p;
					p = "";
					if (*value == '=')
						value++;
				}
			} else if (*p == '=') {
				return dd_badusage("-%c option does not take "
				                   "a value", o->oshort), -1;
			}
			if (apply(o, value) < 0)
				return -1;
		}
	}
	return i;
}

static int
do_help(char **argv)
{
	(void)argv;
	fputs(
"Usage: dpkg-deb [<option>...] <command>\n"
"\n"
"Commands:\n"
"  -b|--build <directory> [<deb>]   Build an archive.\n"
"  -c|--contents <deb>              List contents.\n"
"  -I|--info <deb> [<cfile>...]     Show info to stdout.\n"
"  -W|--show <deb>                  Show information on package(s)\n"
"  -f|--field <deb> [<cfield>...]   Show field(s) to stdout.\n"
"  -e|--control <deb> [<directory>] Extract control info.\n"
"  -x|--extract <deb> <directory>   Extract files.\n"
"  -X|--vextract <deb> <directory>  Extract & list files.\n"
"  -R|--raw-extract <deb> <directory>\n"
"                                   Extract control info and files.\n"
"  --ctrl-tarfile <deb>             Output control tarfile.\n"
"  --fsys-tarfile <deb>             Output filesystem tarfile.\n"
"\n"
"  -?, --help                       Show this help message.\n"
"      --version                    Show the version.\n"
"\n"
"<deb> is the filename of a Debian format archive.\n"
"<cfile> is the name of an administrative file component.\n"
"<cfield> is the name of a field in the main 'control' file.\n"
"\n"
"Options:\n"
"  -v, --verbose                    Enable verbose output.\n"
"  -D, --debug                      Enable debugging output.\n"
"      --showformat=<format>        Use alternative format for --show.\n"
"      --deb-format=<format>        Select archive format.\n"
"                                     Allowed values: 0.939000, 2.0 (default).\n"
"      --nocheck                    Suppress control file check (build bad\n"
"                                     packages).\n"
"      --root-owner-group           Forces the owner and groups to root.\n"
"      --threads-max=<threads>      Use at most <threads> with compressor.\n"
"      --[no-]uniform-compression   Use the compression params on all members.\n"
"  -z#                              Set the compression level when building.\n"
"  -Z<type>                         Set the compression type used when building.\n"
"                                     Allowed types: gzip, xz, zstd, none.\n"
"  -S<strategy>                     Set the compression strategy when building.\n"
"                                     Allowed values: none; extreme (xz);\n"
"                                     filtered, huffman, rle, fixed (gzip).\n"
"\n"
"Format syntax:\n"
"  A format is a string that will be output for each package. The format\n"
"  can include the standard escape sequences \\n (newline), \\r (carriage\n"
"  return) or \\\\ (plain backslash). Package information can be included\n"
"  by inserting variable references to package fields using the ${var[;width]}\n"
"  syntax. Fields will be right-aligned unless the width is negative in which\n"
"  case left alignment will be used.\n"
"\n"
"Use 'dpkg' to install and remove packages from your system, or\n"
"'apt' or 'aptitude' for user-friendly package management. Packages\n"
"unpacked using 'dpkg-deb --extract' will be incorrectly installed !\n",
	      stdout);
	if (fflush(stdout) != 0 || ferror(stdout))
		return dd_fail("error writing to '<standard output>': %s",
		               strerror(errno));
	return ZD_EXIT_OK;
}

static int
do_version(char **argv)
{
	const char *arch = zd_dpkg_pkginfo_native_arch();

	(void)argv;
	/*
	 * The text of the dpkg-deb whose interface zdeb implements, which
	 * scripts test for (zdeb --version names zdeb).  Not the real
	 * dpkg-deb's: that may be another version than the one zdeb answers
	 * as.
	 */
	printf("Debian 'dpkg-deb' package archive backend version "
	       ZD_DPKG_DEB_INTERFACE " (%s).\n"
	       "This is free software; see the GNU General Public License "
	       "version 2 or\n"
	       "later for copying conditions. There is NO warranty.\n",
	       arch != NULL ? arch : "unknown");
	if (fflush(stdout) != 0 || ferror(stdout))
		return dd_fail("error writing to '<standard output>': %s",
		               strerror(errno));
	return ZD_EXIT_OK;
}

/* dpkg's compressor_check_params() with its fixups. */
static int
check_comp_params(void)
{
	int min, max = 9;

	/* fixup_gzip_params(), then the compressor's default level. */
	if (dd_opts.comp_type == ZD_COMP_GZIP && dd_opts.level == 0)
		dd_opts.comp_type = ZD_COMP_NONE;
	if (dd_opts.level < 0)
		dd_opts.level = zd_codec_get(dd_opts.comp_type)->default_level;
	if (dd_opts.comp_type == ZD_COMP_ZSTD)
		zd_codec_level_range(ZD_COMP_ZSTD, &min, &max);
	if (dd_opts.level > max)
		return dd_badusage("invalid compressor parameters: %s%d",
		                   "invalid compression level ",
		                   dd_opts.level), -1;
	if (!zd_codec_strategy_valid(dd_opts.comp_type, dd_opts.strategy))
		return dd_badusage("invalid compressor parameters: %s",
		                   "unknown compression strategy"), -1;
	return 0;
}

/* ZDEB_MAX_DECODED: a size with K, M, G... suffixes; 0 is no cap. */
static int
parse_max_decoded(const char *s, uint64_t *cap)
{
	struct zd_error err = ZD_ERROR_INIT;

	if (zd_parse_size(s, 0, UINT64_MAX, "ZDEB_MAX_DECODED", cap,
	                  &err) < 0) {
		dd_fail("%s", err.msg);
		return -1;
	}
	if (*cap == 0)
		*cap = ZD_DEC_UNLIMITED;
	return 0;
}

/* ZDEB_DPKG_DEB_THREADS: "auto" (0), "all" (the cores) or 1-1024. */
static int
parse_pipe_threads(const char *s, unsigned *threads)
{
	struct zd_error err = ZD_ERROR_INIT;
	long long v;

	if (strcmp(s, "auto") == 0) {
		*threads = 0;
		return 0;
	}
	if (strcmp(s, "all") == 0) {
		*threads = zd_cli_ncpus();
		return 0;
	}
	if (zd_parse_ll(s, 1, 1024, "ZDEB_DPKG_DEB_THREADS", &v, &err) < 0) {
		dd_fail("ZDEB_DPKG_DEB_THREADS '%s' is not a thread count "
		        "(1 to 1024, all or auto)", s);
		return -1;
	}
	*threads = (unsigned)v;
	return 0;
}

int
cmd_dpkg_deb(int argc, char **argv)
{
	const char *env;
	int first;

	zd_progname = "dpkg-deb";
	memset(&dd_opts, 0, sizeof(dd_opts));
	dd_opts.uniform = 1;
	dd_opts.showformat = "${Package}\t${Version}\n";
	/* DPKG_DEB_DEFAULT_COMPRESSOR of Debian's dpkg 1.21.22. */
	dd_opts.comp_type = ZD_COMP_XZ;
	dd_opts.level = -1;
	dd_opts.strategy = ZD_STRATEGY_NONE;
	dd_opts.threads_max = -1;
	dd_opts.argc = argc;
	dd_opts.argv = argv;

	env = getenv("DPKG_DEB_THREADS_MAX");
	if (env != NULL && *env != '\0')
		dd_opts.threads_max = parse_env_long(env);
	dd_opts.max_decoded = ZD_DEC_UNLIMITED;
	env = getenv("ZDEB_MAX_DECODED");
	if (env != NULL && *env != '\0' &&
	    parse_max_decoded(env, &dd_opts.max_decoded) < 0)
		return ZD_EXIT_ERROR;
	env = getenv("ZDEB_DPKG_DEB_THREADS");
	if (env != NULL && *env != '\0' &&
	    parse_pipe_threads(env, &dd_opts.pipe_threads) < 0)
		return ZD_EXIT_ERROR;
	env = getenv("DPKG_DEB_COMPRESSOR_TYPE");
	if (env != NULL && *env != '\0' &&
	    parse_comp_type(env, &dd_opts.comp_type) < 0)
		return ZD_EXIT_ERROR;
	env = getenv("DPKG_DEB_COMPRESSOR_LEVEL");
	if (env != NULL && *env != '\0')
		dd_opts.level = (int)parse_env_long(env);

	help_ready = true;
	first = parse_options(argc, argv);
	if (first < 0)
		return ZD_EXIT_ERROR;
	if (action == NULL)
		return dd_badusage("need an action option");
	if (check_comp_params() < 0)
		return ZD_EXIT_ERROR;
	dd_opts.action = action->olong;
	zd_verbose = dd_opts.verbose;
	/* argv is NULL-terminated, as main()'s is. */
	return action->action(argv + first);
}
