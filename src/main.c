/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * main.c - the command table and dispatch of the zdeb CLI
 */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "lib/deb.h"
#include "src/cmd.h"
#include "src/msg.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "build", cmd_build, "build a .deb from a directory tree" },
	{ "extract", cmd_extract, "extract the filesystem tree of a .deb" },
	{ "control", cmd_control, "extract the control files of a .deb" },
	{ "cat-data", cmd_cat_data, "write the uncompressed data.tar to "
	  "stdout" },
	{ "cat-control", cmd_cat_control, "write the uncompressed "
	  "control.tar to stdout" },
	{ "contents", cmd_contents, "list the files of a .deb (as "
	  "dpkg-deb -c)" },
	{ "info", cmd_info, "show members, compressors and layouts" },
	{ "verify", cmd_verify, "check every index, hash and checksum" },
	{ "recompress", cmd_recompress, "re-encode the members of a .deb, "
	  "keeping the tar bytes" },
	{ "repo", cmd_repo, "convert a whole apt repository: plan, run, "
	  "finish" },
	{ "integrate", cmd_integrate, "make zdeb the system's dpkg-deb "
	  "(dpkg-divert), undo it, show it" },
	{ "dpkg-deb", cmd_dpkg_deb, "run as dpkg-deb (its options, output "
	  "and messages)" },
};

static void
usage(FILE *out)
{
	fprintf(out, "Usage: zdeb COMMAND [OPTIONS] [ARGS]\n"
	        "       zdeb --help | --version\n\n"
	        "Build and read Debian packages whose zstd data decodes on "
	        "all cores.\n\nCommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-12s %s\n", commands[i].name,
		        commands[i].summary);
	fprintf(out, "\nRun 'zdeb COMMAND --help' for the options of a "
	        "command.  See zdeb(1).\n");
}

static void
version(void)
{
	printf("zdeb %s (libzstd %s, liblzma, libarchive)\n", PACKAGE_VERSION,
	       ZSTD_versionString());
}

int
main(int argc, char **argv)
{
	const char *name;

	/* Writers to a closed pipe get EPIPE, which is reported. */
	signal(SIGPIPE, SIG_IGN);
	name = argc > 0 ? strrchr(argv[0], '/') : NULL;
	name = name != NULL ? name + 1 : argc > 0 ? argv[0] : "";
	if (strcmp(name, "dpkg-deb") == 0) {
		zd_progname = "dpkg-deb";
		return cmd_dpkg_deb(argc, argv);
	}
	/*
	 * Native commands: a file size limit (ulimit -f) is an error to
	 * report (EFBIG) and clean up after, not a signal that kills us
	 * with a temporary left; dpkg-deb mode keeps dpkg-deb's default.
	 */
	if (argc < 2)
		return zd_msg_usage(NULL, "no command given");
	if (strcmp(argv[1], "dpkg-deb") != 0)
		signal(SIGXFSZ, SIG_IGN);
	name = argv[1];
	if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
		usage(stdout);
		return ZD_EXIT_OK;
	}
	if (strcmp(name, "--version") == 0) {
		version();
		return ZD_EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(name, commands[i].name) == 0)
			return commands[i].fn(argc - 1, argv + 1);
	if (name[0] == '-')
		return zd_msg_usage(NULL, "unknown option '%s'", name);
	return zd_msg_usage(NULL, "unknown command '%s'", name);
}
