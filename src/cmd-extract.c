/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd-extract.c - zdeb extract / zdeb control: unpack a member's tar
 * into a directory while it is decoded
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/deb-member.h"
#include "lib/tar-extract.h"
#include "src/cmd.h"
#include "src/msg.h"

static const char usage_extract[] =
"Usage: zdeb extract [-T N] [-v] [--max-window SIZE] [--max-size SIZE]\n"
"                    [--allow-devices] DEB DIR\n"
"\n"
"Extract the filesystem tree of DEB (- for stdin) into DIR (created if\n"
"missing, not its parents), as dpkg-deb -x does, decoding on N threads\n"
"(default: all cores).  Members that would land outside DIR (.., absolute\n"
"names, through a symlink, hardlinks to files not extracted before) are\n"
"refused; files are written under a temporary name and renamed when\n"
"complete; setuid/setgid bits are dropped unless run as root.\n"
"  -v                  list each member as it is extracted\n"
"  --max-window SIZE   refuse zstd windows above SIZE (default 128M)\n"
"  --max-size SIZE     stop decoding after SIZE bytes (0: no cap; default\n"
"                      1G + 1024 x the compressed size)\n"
"  --allow-devices     create device nodes and FIFOs (refused by default)\n";

static const char usage_control[] =
"Usage: zdeb control [-T N] DEB [DIR]\n"
"\n"
"Extract the control files of DEB (- for stdin) into DIR (default\n"
"./DEBIAN), as dpkg-deb -e does.\n";

static int
ensure_dir(const char *dir, struct zd_error *err)
{
	struct stat st;

	if (mkdir(dir, 0755) == 0)
		return 0;
	if (errno == EEXIST && stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
		return 0;
	return zd_err_errno(err, ZD_E_IO, "cannot create directory '%s'",
	                    dir);
}

/* Decodes member m on a thread and extracts it into dir. */
static int
extract_member(const struct zd_deb_member *m, const struct zd_cli_read *r,
               const char *dir, const struct zd_extract_opts *eo,
               struct zd_error *err)
{
	struct zd_member_stream s;
	struct zd_dec_params p;
	struct zd_error derr = ZD_ERROR_INIT;
	int rc;

	zd_cli_dec_params(&p, r->threads);
	zd_cli_dec_limits(&p, r);
	if (zd_deb_member_stream_start(&s, m, &p, err) < 0)
		return -1;
	rc = zd_tar_extract(s.read_fd, dir, eo, err);
	/* A decoder error explains a tar error: report it first. */
	if (zd_deb_member_stream_finish(&s, false, &derr) < 0) {
		*err = derr;
		return -1;
	}
	if (rc < 0)
		zd_err_prefix(err, "member '%s'", m->name);
	return rc;
}

static int
run(const char *cmd, const char *usage, bool data, int argc, char **argv)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_cli_read r;
	struct zd_extract_opts eo = { 0 };
	struct zd_deb deb = { .fd = -1 };
	const char *dir;
	int rc;

	rc = zd_cli_read_args(cmd, usage, argc, argv, 0, data ? 2 : 1, 2,
	                      &r);
	if (rc != 0)
		return rc > 0 ? ZD_EXIT_OK : ZD_EXIT_ERROR;
	dir = r.nargs > 1 ? r.args[1] : "DEBIAN";
	eo.owner = geteuid() == 0;
	eo.names = zd_cli_tar_locale();
	eo.allow_devices = r.allow_devices;
	eo.warn = zd_msg_warn_cb;
	if (data && zd_verbose)
		eo.on_entry = zd_cli_print_tar_name;
	if (zd_cli_open_deb(r.args[0], &deb) < 0)
		return ZD_EXIT_ERROR;
	if (ensure_dir(dir, &err) < 0 ||
	    extract_member(data ? &deb.data : &deb.control, &r, dir,
	                   &eo, &err) < 0) {
		zd_deb_close(&deb);
		zd_err_prefix(&err, "'%s'", r.args[0]);
		return zd_msg_fail(&err);
	}
	zd_deb_close(&deb);
	return ZD_EXIT_OK;
}

int
cmd_extract(int argc, char **argv)
{
	return run("extract", usage_extract, true, argc, argv);
}

int
cmd_control(int argc, char **argv)
{
	return run("control", usage_control, false, argc, argv);
}
