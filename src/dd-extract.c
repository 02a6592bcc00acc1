/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dd-extract.c - dpkg-deb -c, -x, -X, -R, -e, --ctrl-tarfile,
 * --fsys-tarfile: dpkg-deb's extracthalf() on zdeb's parallel decoders
 *
 * The argument checks and messages are those of src/deb/extract.c and
 * src/deb/info.c (dpkg 1.21.22).
 */
#include "config.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/deb-member.h"
#include "lib/tar-extract.h"
#include "lib/tar-list.h"
#include "src/cmd.h"
#include "src/dd.h"
#include "src/msg.h"

int
dd_open(const char *path, unsigned flags, struct zd_deb *deb)
{
	struct zd_error err = ZD_ERROR_INIT;
	char why[64];

	memset(deb, 0, sizeof(*deb));
	deb->fd = -1;
	if (zd_deb_open_flags(path, flags, deb, &err) == 0)
		return 0;
	if (deb->old_format) {
		/* Only a regular file on stdin can be read again. */
		if (strcmp(path, "-") == 0)
			lseek(0, 0, SEEK_SET);
		snprintf(why, sizeof(why), "old-format (%s) package",
		         deb->format);
		return dd_delegate(why, NULL);
	}
	if (deb->dpkg_msg[0] != '\0')
		return dd_fail("%s", deb->dpkg_msg);
	/* dpkg-deb's read of the magic fails on a directory. */
	if (err.code == ZD_E_IO && err.sys_errno == EISDIR)
		return dd_fail("error reading archive magic version number "
		               "from file %s: %s", path, strerror(EISDIR));
	return dd_fail("%s", err.msg);
}

long long
dd_archive_size(const char *path, const struct zd_deb *deb)
{
	struct stat st;

	if (strcmp(path, "-") != 0)
		return (long long)deb->file_size;
	/* dpkg-deb fstat()s stdin: a pipe has size 0. */
	if (fstat(0, &st) == 0 && S_ISREG(st.st_mode))
		return (long long)st.st_size;
	return 0;
}

/* --threads-max (or DPKG_DEB_THREADS_MAX) caps the decoder's threads too;
 * 0: all cores. */
static unsigned
dd_decode_threads(void)
{
	if (dd_opts.threads_max <= 0)
		return 0;
	return dd_opts.threads_max < 1024 ? (unsigned)dd_opts.threads_max : 1024;
}

/*
 * Decoder threads for member m written to stdout.  Into a pipe the reader
 * is another process, dpkg as a rule, whose own work (md5, writing files)
 * needs a core.  One zstd thread already outruns dpkg, so zstd decodes on
 * all cores but one; xz, whose decoder is what dpkg waits for, on all.
 * Measured on 2 cores (zdeb-perf install, 239 MB of tar, dpkg --unpack):
 * indexed zstd 0.63 s with one decoder thread, 0.73 s with two; xz 3.03 s
 * with one, 1.97-2.07 s with two; zdeb-perf model predicts the same for
 * 2-64 cores (zdeb(1), PERFORMANCE).  ZDEB_DPKG_DEB_THREADS sets the count
 * into a pipe, for every compressor; --threads-max caps it.
 */
static unsigned
dd_pipe_threads(bool piped, const struct zd_deb_member *m)
{
	unsigned n, cap = dd_decode_threads();

	if (!piped)
		n = cap;
	else if (dd_opts.pipe_threads > 0)
		n = cap > 0 && cap < dd_opts.pipe_threads ? cap :
		    dd_opts.pipe_threads;
	else if (dd_opts.threads_max > 0 || m->codec == NULL ||
	         m->codec->type != ZD_COMP_ZSTD)
		n = cap;
	else
		n = zd_cli_ncpus() > 1 ? zd_cli_ncpus() - 1 : 1;
	dd_debug("%s: decoder threads %u%s%s", m->name,
	         n > 0 ? n : zd_cli_ncpus(), piped ? " into a pipe" : "",
	         piped && dd_opts.pipe_threads > 0 ?
	         " (ZDEB_DPKG_DEB_THREADS)" : "");
	return n;
}

int
dd_extract_member(const char *path, const struct zd_deb_member *m,
                  const char *dir, bool list, bool create_new)
{
	struct zd_error err = ZD_ERROR_INIT, derr = ZD_ERROR_INIT;
	struct zd_extract_opts eo = { 0 };
	struct zd_member_stream s;
	struct zd_dec_params p;
	int rc;

	/* tar's mkdir(dir, 0777) in extracthalf(). */
	if (mkdir(dir, 0777) != 0) {
		int e = errno;

		/* dpkg-deb's tar child fails, then dpkg-deb itself. */
		if (e != EEXIST || create_new) {
			fflush(stdout);
			if (e != EEXIST)
				fprintf(stderr, "dpkg-deb (subprocess): failed "
				        "to create directory: %s\n",
				        strerror(e));
			else
				fprintf(stderr, "dpkg-deb (subprocess): "
				        "unexpected pre-existing pathname %s: "
				        "%s\n", dir, strerror(e));
			return dd_fail("tar subprocess returned error exit "
			               "status 2");
		}
	}
	eo.owner = geteuid() == 0;
	eo.names = zd_cli_tar_locale();
	if (list)
		eo.on_entry = zd_cli_print_tar_name;
	zd_cli_dec_params(&p, dd_decode_threads());
	p.max_output = dd_opts.max_decoded;
	p.member = m->name;
	if (zd_deb_member_stream_start(&s, m, &p, &err) < 0)
		goto fail;
	rc = zd_tar_extract(s.read_fd, dir, &eo, &err);
	if (zd_deb_member_stream_finish(&s, false, &derr) < 0) {
		err = derr;
		goto fail;
	}
	if (rc < 0)
		goto fail;
	if (fflush(stdout) != 0)
		return dd_fail("error writing to '<standard output>': %s",
		               strerror(errno));
	return 0;
fail:
	zd_err_prefix(&err, "'%s'", path);
	return dd_fail("%s", err.msg);
}

static int
rm_entry(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(p);
	return 0;
}

void
dd_remove_tmp(char *dir)
{
	if (dir == NULL)
		return;
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(dir);
}

int
dd_extract_control_tmp(const char *path, struct zd_deb *deb, char **dir)
{
	const char *tmp = getenv("TMPDIR");
	char *d;
	int rc;

	if (tmp == NULL || *tmp == '\0')
		tmp = "/tmp";
	if (asprintf(&d, "%s/dpkg-deb.XXXXXX", tmp) < 0)
		return dd_fail("out of memory");
	if (mkdtemp(d) == NULL) {
		free(d);
		return dd_fail("unable to create temporary directory: %s",
		               strerror(errno));
	}
	rc = dd_extract_member(path, &deb->control, d, false, false);
	if (rc != 0) {
		dd_remove_tmp(d);
		return rc;
	}
	*dir = d;
	return 0;
}

/* Writes member m of the .deb at path to stdout. */
static int
passthrough(char **argv, bool data)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_dec_params p;
	struct zd_deb deb;
	const struct zd_deb_member *m;
	struct zd_fd_sink out;
	struct zd_sink sink;
	int rc;

	if (argv[0] == NULL)
		return dd_badusage("--%s needs a .deb filename argument",
		                   dd_opts.action);
	if (argv[1] != NULL)
		return dd_badusage("--%s takes only one argument (.deb "
		                   "filename)", dd_opts.action);
	rc = dd_open(argv[0], data ? 0 : ZD_DEB_CONTROL_ONLY, &deb);
	if (rc != 0)
		return rc;
	m = data ? &deb.data : &deb.control;
	zd_sink_fd_init(&sink, &out, 1);
	zd_cli_dec_params(&p, dd_pipe_threads(zd_pipe_grow(1) > 0, m));
	p.max_output = dd_opts.max_decoded;
	rc = zd_deb_member_decode(m, &p, &sink, &err);
	zd_deb_close(&deb);
	if (rc < 0) {
		zd_err_prefix(&err, "'%s'", argv[0]);
		return dd_fail("%s", err.msg);
	}
	return ZD_EXIT_OK;
}

int
dd_do_ctrl_tarfile(char **argv)
{
	return passthrough(argv, false);
}

int
dd_do_fsys_tarfile(char **argv)
{
	return passthrough(argv, true);
}

int
dd_do_contents(char **argv)
{
	struct zd_error err = ZD_ERROR_INIT, derr = ZD_ERROR_INIT;
	struct zd_dec_params p;
	struct zd_member_stream s;
	struct zd_deb deb;
	int rc;

	if (argv[0] == NULL || argv[1] != NULL)
		return dd_badusage("--%s takes exactly one argument",
		                   dd_opts.action);
	rc = dd_open(argv[0], 0, &deb);
	if (rc != 0)
		return rc;
	zd_cli_dec_params(&p, dd_decode_threads());
	p.max_output = dd_opts.max_decoded;
	p.member = deb.data.name;
	if (zd_deb_member_stream_start(&s, &deb.data, &p, &err) < 0)
		goto fail;
	rc = zd_tar_list(s.read_fd, stdout, zd_cli_tar_locale(), &err);
	if (zd_deb_member_stream_finish(&s, false, &derr) < 0) {
		err = derr;
		goto fail;
	}
	if (rc < 0)
		goto fail;
	zd_deb_close(&deb);
	if (fflush(stdout) != 0)
		return dd_fail("error writing to '<standard output>': %s",
		               strerror(errno));
	return ZD_EXIT_OK;
fail:
	zd_deb_close(&deb);
	zd_err_prefix(&err, "'%s'", argv[0]);
	return dd_fail("%s", err.msg);
}

int
dd_do_control(char **argv)
{
	struct zd_deb deb;
	const char *dir;
	int rc;

	if (argv[0] == NULL)
		return dd_badusage("--%s needs a .deb filename argument",
		                   dd_opts.action);
	dir = argv[1];
	if (dir == NULL)
		dir = "DEBIAN";
	else if (argv[2] != NULL)
		return dd_badusage("--%s takes at most two arguments (.deb and "
		                   "directory)", dd_opts.action);
	rc = dd_open(argv[0], ZD_DEB_CONTROL_ONLY, &deb);
	if (rc != 0)
		return rc;
	rc = dd_extract_member(argv[0], &deb.control, dir, false, false);
	zd_deb_close(&deb);
	return rc;
}

/* The argument checks of do_extract() and do_raw_extract(). */
static int
extract_args(char **argv, bool raw)
{
	if (argv[0] == NULL)
		return dd_badusage("--%s needs .deb filename and directory "
		                   "arguments", dd_opts.action);
	if (raw && strcmp(argv[0], "-") == 0)
		return dd_badusage("--%s does not support (yet) reading the "
		                   ".deb from standard input", dd_opts.action);
	if (argv[1] == NULL)
		return dd_badusage("--%s needs a target directory.\n"
		                   "Perhaps you should be using dpkg --install ?",
		                   dd_opts.action);
	if (argv[2] != NULL)
		return dd_badusage("--%s takes at most two arguments (.deb and "
		                   "directory)", dd_opts.action);
	return 0;
}

/*
 * -x and -X, and the first half of -R: the filesystem tree of argv[0]
 * into argv[1].  *deb is left for the caller to close (also on failure).
 */
static int
extract_tree(char **argv, bool raw, struct zd_deb *deb)
{
	int rc = extract_args(argv, raw);

	memset(deb, 0, sizeof(*deb));
	deb->fd = -1;
	if (rc == 0)
		rc = dd_open(argv[0], 0, deb);
	if (rc == 0)
		rc = dd_extract_member(argv[0], &deb->data, argv[1],
		                       dd_opts.verbose != 0, false);
	return rc;
}

int
dd_do_extract(char **argv)
{
	struct zd_deb deb;
	int rc = extract_tree(argv, false, &deb);

	zd_deb_close(&deb);
	return rc;
}

int
dd_do_vextract(char **argv)
{
	dd_opts.verbose = 1;
	return dd_do_extract(argv);
}

int
dd_do_raw_extract(char **argv)
{
	struct zd_deb deb;
	char *cdir;
	int rc = extract_tree(argv, true, &deb);

	if (rc == 0) {
		if (asprintf(&cdir, "%s/DEBIAN", argv[1]) < 0) {
			zd_deb_close(&deb);
			return dd_fail("out of memory");
		}
		rc = dd_extract_member(argv[0], &deb.control, cdir, false,
		                       true);
		free(cdir);
	}
	zd_deb_close(&deb);
	return rc;
}
