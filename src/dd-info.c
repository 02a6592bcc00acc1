/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dd-info.c - dpkg-deb -I, -f, -W: the control member, as src/deb/info.c
 * (dpkg 1.21.22) prints it
 *
 * As dpkg-deb, the control member is extracted to a temporary directory and
 * the files are read from there.  The fields (-f with names, -W) come from
 * lib/dpkg-pkginfo and lib/dpkg-format, which parse the control file with
 * dpkg's warnings and errors.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/dpkg-control.h"
#include "lib/dpkg-format.h"
#include "lib/dpkg-pkginfo.h"
#include "src/dd.h"
#include "src/msg.h"

/* dpkg-deb's INTERPRETER_MAX. */
#define INTERPRETER_MAX 128

static int
out_error(void)
{
	return dd_fail("error writing to '<standard output>': %s",
	               strerror(errno));
}

static int
prepare(char **argv, struct zd_deb *deb, char **dir)
{
	int rc;

	if (argv[0] == NULL)
		return dd_badusage("--%s needs a .deb filename argument",
		                   dd_opts.action);
	rc = dd_open(argv[0], ZD_DEB_CONTROL_ONLY, deb);
	if (rc != 0)
		return rc;
	rc = dd_extract_control_tmp(argv[0], deb, dir);
	if (rc != 0)
		zd_deb_close(deb);
	return rc;
}

/* dpkg-deb's info_spew(): the named control files, raw. */
static int
spew(const char *debar, const char *dir, char *const *names)
{
	int missing = 0;

	for (; *names != NULL; names++) {
		char *path;
		char buf[65536];
		ssize_t n;
		int fd;

		if (asprintf(&path, "%s/%s", dir, *names) < 0)
			return dd_fail("out of memory");
		fd = open(path, O_RDONLY);
		if (fd < 0) {
			int e = errno;

			free(path);
			if (e != ENOENT)
				return dd_fail("open component '%.255s' (in "
				               "%.255s) failed in an unexpected "
				               "way: %s", *names, dir,
				               strerror(e));
			dd_notice("'%.255s' contains no control component "
			          "'%.255s'", debar, *names);
			missing++;
			continue;
		}
		fflush(stdout);
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			if (fwrite(buf, 1, (size_t)n, stdout) != (size_t)n)
				break;
		close(fd);
		if (n < 0 || fflush(stdout) != 0) {
			int rc = dd_fail("cannot extract control file '%s' "
			                 "from '%s': %s", path, debar,
			                 strerror(errno));

			free(path);
			return rc;
		}
		free(path);
	}
	if (missing == 1)
		return dd_fail("%d requested control component is missing",
		               missing);
	if (missing > 1)
		return dd_fail("%d requested control components are missing",
		               missing);
	return 0;
}

static int
select_entry(const struct dirent *de)
{
	return strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
}

/* dpkg-deb's info_list(). */
static int
list(const char *dir)
{
	struct dirent **ents;
	char *path;
	FILE *cc;
	int n, c, bol;

	n = scandir(dir, &ents, select_entry, alphasort);
	if (n < 0)
		return dd_fail("cannot scan directory '%.255s': %s", dir,
		               strerror(errno));
	for (int i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;
		char interp[INTERPRETER_MAX + 1];
		struct stat st;
		int lines = 0;

		if (asprintf(&path, "%s/%s", dir, name) < 0)
			return dd_fail("out of memory");
		if (stat(path, &st) != 0)
			return dd_fail("cannot stat '%.255s' (in '%.255s'): %s",
			               name, dir, strerror(errno));
		if (!S_ISREG(st.st_mode)) {
			printf("     not a plain file          %.255s\n", name);
			free(path);
			free(ents[i]);
			continue;
		}
		cc = fopen(path, "r");
		free(path);
		if (cc == NULL)
			return dd_fail("cannot open '%.255s' (in '%.255s'): %s",
			               name, dir, strerror(errno));
		interp[0] = '\0';
		/* As dpkg: the bytes read to look for "#!" are not counted. */
		if (getc(cc) == '#' && getc(cc) == '!') {
			char *p = interp;
			int il = 2;

			while ((c = getc(cc)) == ' ')
				;
			*p++ = '#';
			*p++ = '!';
			while (il < INTERPRETER_MAX && c != EOF &&
			       !(c == ' ' || c == '\t' || c == '\n' ||
			         c == '\v' || c == '\f' || c == '\r')) {
				*p++ = (char)c;
				il++;
				c = getc(cc);
			}
			*p = '\0';
			if (c == '\n')
				lines++;
		}
		while ((c = getc(cc)) != EOF)
			if (c == '\n')
				lines++;
		if (ferror(cc))
			return dd_fail("failed to read '%.255s' (in '%.255s')",
			               name, dir);
		fclose(cc);
		printf(" %7jd bytes, %5d lines   %c  %-20.127s %.127s\n",
		       (intmax_t)st.st_size, lines,
		       (st.st_mode & S_IXUSR) ? '*' : ' ', name, interp);
		free(ents[i]);
	}
	free(ents);

	if (asprintf(&path, "%s/control", dir) < 0)
		return dd_fail("out of memory");
	cc = fopen(path, "r");
	free(path);
	if (cc == NULL) {
		if (errno != ENOENT)
			return dd_fail("failed to read '%.255s' (in '%.255s')",
			               "control", dir);
		fflush(stdout);
		fprintf(stderr, "dpkg-deb: warning: no 'control' file in "
		        "control archive!\n");
	} else {
		bol = 1;
		while ((c = getc(cc)) != EOF) {
			if (bol)
				putchar(' ');
			putchar(c);
			bol = c == '\n';
		}
		if (!bol)
			putchar('\n');
		fclose(cc);
	}
	if (fflush(stdout) != 0)
		return out_error();
	return 0;
}

int
dd_do_info(char **argv)
{
	struct zd_deb deb;
	char *dir = NULL;
	int rc;

	if (argv[0] != NULL && argv[1] != NULL) {
		rc = prepare(argv, &deb, &dir);
		if (rc != 0)
			return rc;
		rc = spew(argv[0], dir, argv + 1);
	} else {
		if (argv[0] == NULL)
			return dd_badusage("--%s needs a .deb filename "
			                   "argument", dd_opts.action);
		rc = dd_open(argv[0], ZD_DEB_CONTROL_ONLY, &deb);
		if (rc != 0)
			return rc;
		/* Printed before the control member is decoded, as
		 * dpkg-deb does. */
		printf(" new Debian package, version %u.%u.\n"
		       " size %lld bytes: control archive=%llu bytes.\n",
		       deb.major, deb.minor, dd_archive_size(argv[0], &deb),
		       (unsigned long long)deb.control.region.len);
		if (fflush(stdout) != 0) {
			zd_deb_close(&deb);
			return out_error();
		}
		rc = dd_extract_control_tmp(argv[0], &deb, &dir);
		if (rc == 0)
			rc = list(dir);
	}
	zd_deb_close(&deb);
	dd_remove_tmp(dir);
	return rc;
}

/*
 * Parses DIR/control into ctl and pi as dpkg-deb's parsedb() does, its
 * warnings printed.  Returns 0, or an exit status after printing dpkg's
 * error (ctl and pi freed).
 */
static int
load(const char *dir, struct zd_control *ctl, struct zd_pkginfo *pi)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_pkginfo_opts o = {
		.native_arch = zd_dpkg_pkginfo_native_arch(),
		.warn = zd_msg_warn_cb,
	};
	char *path;
	int rc;

	if (asprintf(&path, "%s/control", dir) < 0)
		return dd_fail("out of memory");
	o.file = path;
	rc = zd_dpkg_pkginfo_parse_file(&o, ctl, pi, &err);
	free(path);
	if (rc < 0) {
		zd_dpkg_pkginfo_free(pi);
		zd_dpkg_control_free(ctl);
		return dd_fail("%s", err.msg);
	}
	return 0;
}

int
dd_do_field(char **argv)
{
	struct zd_control ctl = { 0 };
	struct zd_pkginfo pi;
	struct zd_deb deb;
	char *dir = NULL;
	static char control[] = "control";
	char *only_control[] = { control, NULL };
	int rc;

	rc = prepare(argv, &deb, &dir);
	if (rc != 0)
		return rc;
	if (argv[1] == NULL) {
		rc = spew(argv[0], dir, only_control);
		goto out;
	}
	rc = load(dir, &ctl, &pi);
	if (rc != 0)
		goto out;
	for (int i = 1; argv[i] != NULL; i++) {
		bool header = argv[2] != NULL;

		zd_dpkg_pkginfo_field(stdout, &pi, argv[i], header);
		if (!header)
			putchar('\n');
	}
	if (rc == 0 && fflush(stdout) != 0)
		rc = out_error();
	zd_dpkg_pkginfo_free(&pi);
	zd_dpkg_control_free(&ctl);
out:
	zd_deb_close(&deb);
	dd_remove_tmp(dir);
	return rc;
}

int
dd_do_show(char **argv)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_pkgformat *fmt;
	struct zd_control ctl = { 0 };
	struct zd_pkginfo pi;
	struct zd_deb deb;
	char *dir = NULL, *s;
	int rc;

	fmt = zd_dpkg_format_parse(dd_opts.showformat, &err);
	if (fmt == NULL)
		return dd_fail("error in show format: %s", err.msg);
	rc = prepare(argv, &deb, &dir);
	if (rc != 0) {
		zd_dpkg_format_free(fmt);
		return rc;
	}
	rc = load(dir, &ctl, &pi);
	if (rc == 0) {
		s = zd_dpkg_format_print(fmt, &pi, &err);
		if (s == NULL) {
			rc = dd_fail("%s", err.msg);
		} else {
			fputs(s, stdout);
			free(s);
			if (fflush(stdout) != 0)
				rc = out_error();
		}
		zd_dpkg_pkginfo_free(&pi);
		zd_dpkg_control_free(&ctl);
	}
	zd_dpkg_format_free(fmt);
	zd_deb_close(&deb);
	dd_remove_tmp(dir);
	return rc;
}
