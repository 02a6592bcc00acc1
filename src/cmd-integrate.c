/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd-integrate.c - zdeb integrate: put zdeb's dpkg-deb in place of the
 * system one with a dpkg diversion, take it out again, or say what is active
 *
 * dpkg runs "dpkg-deb --control" and "dpkg-deb --fsys-tarfile" by PATH
 * lookup, and apt runs dpkg with a fixed PATH, so the place to be is
 * /usr/bin/dpkg-deb.  A diversion owned by the package name "zdeb" renames
 * the real binary to /usr/bin/dpkg-deb.distrib (where dpkg's own upgrades
 * then unpack it too) and a symlink to zdeb takes the name; zdeb's front end
 * (src/dd-main.c) runs the .distrib binary for what it does not implement.
 * Every change goes through dpkg-divert, so dpkg knows about it.
 *
 * The zdeb-dpkg package does the same from its maintainer scripts, with
 * --package=zdeb-dpkg (debian/zdeb-dpkg.preinst, .postrm): one home for
 * the diverted name, the version check and the order of the steps.  Its
 * preinst must leave a working dpkg-deb behind, as install does: dpkg
 * runs "dpkg-deb --fsys-tarfile" for the package after the preinst and
 * before it unpacks the package's own /usr/bin/dpkg-deb symlink.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/spawn.h"
#include "src/cmd.h"
#include "src/msg.h"
#include "src/stockdeb.h"

#define DPKG_DEB "/usr/bin/dpkg-deb"
/* The owner of a local integration, and the package that diverts. */
#define DIVERT_PACKAGE "zdeb"
#define DIVERT_DEB_PACKAGE "zdeb-dpkg"

static const char usage_text[] =
"Usage: zdeb integrate [OPTIONS] install|remove|status\n"
"\n"
"Make zdeb the system's dpkg-deb, so that dpkg and apt install every zstd\n"
"layout (pzstd, concatenated frames) and decode zstd on all cores:\n"
"  install   divert /usr/bin/dpkg-deb to /usr/bin/dpkg-deb.distrib\n"
"            (dpkg-divert --rename --package zdeb) and put a symlink to\n"
"            zdeb in its place\n"
"  remove    remove the symlink and the diversion (the real dpkg-deb returns)\n"
"  status    show the diversion, /usr/bin/dpkg-deb and the versions\n"
"\n"
"Options:\n"
"      --root=DIR   work on the system installed in DIR (dpkg-divert --root)\n"
"      --zdeb=PATH  symlink target, as seen inside DIR (default: this zdeb)\n"
"      --package=NAME  owner of the diversion (default zdeb; the\n"
"                   zdeb-dpkg package's scripts give zdeb-dpkg, which\n"
"                   takes over a diversion of zdeb)\n"
"  -f, --force      install even when dpkg-deb is newer than zdeb knows\n"
"                   (newer than " "1.21.x), or its version is unknown; remove\n"
"                   even when dpkg-deb.distrib is missing\n"
"  -h, --help       show this help\n"
"\n"
"Exit status: 0 done (status: consistent), 1 status found an inconsistent\n"
"state, 2 error.\n";

static const struct option longopts[] = {
	{ "root", required_argument, NULL, 'r' },
	{ "zdeb", required_argument, NULL, 'Z' },
	{ "package", required_argument, NULL, 'p' },
	{ "force", no_argument, NULL, 'f' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct integ {
	const char *root;	/* NULL: "/" */
	const char *zdeb;	/* --zdeb */
	const char *package;	/* --package: the diversion's owner */
	bool force;
	char link[PATH_MAX];	/* ROOT/usr/bin/dpkg-deb */
	char distrib[PATH_MAX];	/* ROOT/usr/bin/dpkg-deb.distrib */
};

/* ROOT + path into buf; false (after printing) if it does not fit. */
static bool
root_path(const struct integ *in, const char *path, char *buf, size_t size)
{
	int n;

	n = snprintf(buf, size, "%s%s", in->root != NULL ? in->root : "",
	             path);
	if (n < 0 || (size_t)n >= size) {
		zd_msg_error("path too long: '%s%s'",
		             in->root != NULL ? in->root : "", path);
		return false;
	}
	return true;
}

/*
 * Runs argv[0] (PATH lookup) with argv.  With out, stdout is captured into
 * out (NUL-terminated, trailing newlines dropped, the rest discarded) and
 * stderr goes to /dev/null; else both are inherited.  Returns the exit
 * status, 127 if the program could not be run, -1 (after printing) if no
 * process could be made.
 */
static int
run(char *const argv[], char *out, size_t outsize)
{
	static const struct zd_spawn_opts inherit = {
		ZD_SPAWN_INHERIT, ZD_SPAWN_INHERIT, ZD_SPAWN_INHERIT, -1
	};
	struct zd_error err = ZD_ERROR_INIT;
	int rc;

	fflush(stdout);
	fflush(stderr);
	rc = out != NULL ? zd_spawn_capture(argv, out, outsize, &err) :
	     zd_spawn_run(argv, &inherit, &err);
	if (rc < 0)
		zd_msg_error("%s", err.msg);
	return rc;
}

/* Runs dpkg-divert [--root ROOT] ARGS... (at most 8). */
static int
dpkg_divert(const struct integ *in, char *out, size_t outsize, ...)
{
	char *argv[16];
	size_t n = 0;
	va_list ap;
	char *a;

	argv[n++] = (char *)"dpkg-divert";
	if (in->root != NULL) {
		argv[n++] = (char *)"--root";
		argv[n++] = (char *)in->root;
	}
	va_start(ap, outsize);
	while ((a = va_arg(ap, char *)) != NULL && n < 15)
		argv[n++] = a;
	va_end(ap);
	argv[n] = NULL;
	return run(argv, out, outsize);
}

/*
 * The package diverting /usr/bin/dpkg-deb into owner ("" none, "LOCAL" a
 * local diversion) and where to (divert_to, "" none).  Returns 0, or -1
 * after printing the error.
 */
static int
diversion(const struct integ *in, char *owner, size_t osize,
          char *divert_to, size_t dsize)
{
	int rc;

	rc = dpkg_divert(in, owner, osize, "--listpackage", DPKG_DEB, NULL);
	if (rc == 127) {
		zd_msg_error("cannot run dpkg-divert: is dpkg installed?");
		return -1;
	}
	if (rc != 0) {
		zd_msg_error("dpkg-divert --listpackage '%s' failed (exit "
		             "status %d)", DPKG_DEB, rc);
		return -1;
	}
	divert_to[0] = '\0';
	if (owner[0] == '\0')
		return 0;
	rc = dpkg_divert(in, divert_to, dsize, "--truename", DPKG_DEB, NULL);
	if (rc != 0) {
		zd_msg_error("dpkg-divert --truename '%s' failed (exit status "
		             "%d)", DPKG_DEB, rc);
		return -1;
	}
	return 0;
}

/* The path of this zdeb (or --zdeb) into buf; false after printing. */
static bool
zdeb_path(const struct integ *in, char *buf, size_t size)
{
	if (in->zdeb != NULL) {
		if (in->zdeb[0] != '/') {
			zd_msg_usage("integrate", "--zdeb needs an absolute "
			             "path, not '%s'", in->zdeb);
			return false;
		}
		if (strlen(in->zdeb) >= size) {
			zd_msg_error("path too long: '%s'", in->zdeb);
			return false;
		}
		strcpy(buf, in->zdeb);
		return true;
	}
	if (size < PATH_MAX || realpath("/proc/self/exe", buf) == NULL) {
		zd_msg_error("cannot find the path of zdeb (/proc/self/exe): "
		             "%s; give it with --zdeb", strerror(errno));
		return false;
	}
	return true;
}

/*
 * Reads the symlink at path into buf.  Returns 1 for a symlink, 0 when
 * path is something else (kind says what), -1 when it does not exist.
 */
static int
read_link(const char *path, char *buf, size_t size, const char **kind)
{
	struct stat st;
	ssize_t n;

	*kind = "missing";
	buf[0] = '\0';
	if (lstat(path, &st) < 0)
		return -1;
	if (!S_ISLNK(st.st_mode)) {
		*kind = S_ISREG(st.st_mode) ? "a regular file" :
		        S_ISDIR(st.st_mode) ? "a directory" : "a special file";
		return 0;
	}
	n = readlink(path, buf, size - 1);
	if (n < 0)
		n = 0;
	buf[n] = '\0';
	*kind = "a symlink";
	return 1;
}

/* Version of the dpkg-deb binary at path ("" when unknown). */
static void
binary_version(const char *path, char *ver, size_t size)
{
	char out[512];
	char *argv[] = { (char *)path, (char *)"--version", NULL };
	const char *p, *end;

	ver[0] = '\0';
	if (access(path, X_OK) != 0 || run(argv, out, sizeof(out)) != 0)
		return;
	/* "Debian 'dpkg-deb' package archive backend version 1.21.22
	 * (amd64)." */
	p = strstr(out, " version ");
	if (p == NULL)
		return;
	p += strlen(" version ");
	end = p + strcspn(p, " \n");
	if (end > p && end[-1] == '.')
		end--;
	snprintf(ver, size, "%.*s", (int)(end - p), p);
}

/* Version of the dpkg package in ROOT's database ("" when unknown). */
static void
package_version(const struct integ *in, char *ver, size_t size)
{
	char admindir[PATH_MAX + 16];
	char *argv[] = { (char *)"dpkg-query", admindir, (char *)"-W",
	                 (char *)"-f=${Version}", (char *)"dpkg", NULL };

	ver[0] = '\0';
	snprintf(admindir, sizeof(admindir), "--admindir=%s/var/lib/dpkg",
	         in->root != NULL ? in->root : "");
	if (run(argv, ver, size) != 0)
		ver[0] = '\0';
}

/*
 * The version of the real dpkg-deb: dpkg's package version in ROOT's
 * database, else what the binary at real says.  *how says which.
 */
static void
real_version(const struct integ *in, const char *real, char *ver,
             size_t size, const char **how)
{
	package_version(in, ver, size);
	*how = "dpkg-query";
	if (ver[0] != '\0')
		return;
	binary_version(real, ver, size);
	*how = "dpkg-deb --version";
}

/*
 * True when ver's [epoch:]MAJOR.MINOR is newer than the newest interface
 * zdeb knows; *known false when ver does not parse.
 */
static bool
version_too_new(const char *ver, bool *known)
{
	const char *p = strchr(ver, ':');
	unsigned long major, minor;
	char *end;

	p = p != NULL ? p + 1 : ver;
	*known = false;
	if (*p < '0' || *p > '9')
		return false;
	errno = 0;
	major = strtoul(p, &end, 10);
	if (errno != 0 || *end != '.' || end[1] < '0' || end[1] > '9')
		return false;
	minor = strtoul(end + 1, &end, 10);
	if (errno != 0)
		return false;
	*known = true;
	if (major != ZD_DPKG_DEB_NEWEST_MAJOR)
		return major > ZD_DPKG_DEB_NEWEST_MAJOR;
	return minor > ZD_DPKG_DEB_NEWEST_MINOR;
}

/* Makes path a symlink to target, replacing a symlink there. */
static int
put_symlink(const char *target, const char *path)
{
	char tmp[PATH_MAX];
	int n;

	n = snprintf(tmp, sizeof(tmp), "%s.zdeb-new", path);
	if (n < 0 || (size_t)n >= sizeof(tmp)) {
		zd_msg_error("path too long: '%s'", path);
		return -1;
	}
	unlink(tmp);
	if (symlink(target, tmp) < 0) {
		zd_msg_error("cannot create symlink '%s': %s", tmp,
		             strerror(errno));
		return -1;
	}
	if (rename(tmp, path) < 0) {
		zd_msg_error("cannot rename '%s' to '%s': %s", tmp, path,
		             strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

/*
 * True when the symlink at in->link, whose target is cur, leads to self:
 * the package's symlink is relative ("zdeb"), the local one absolute.
 */
static bool
links_to_self(const struct integ *in, const char *cur, const char *self)
{
	char real[PATH_MAX];

	if (strcmp(cur, self) == 0)
		return true;
	return in->root == NULL && realpath(in->link, real) != NULL &&
	       strcmp(real, self) == 0;
}

static int do_remove(struct integ *in);

static int
do_install(struct integ *in)
{
	char owner[256], to[PATH_MAX], self[PATH_MAX], cur[PATH_MAX];
	char ver[128], inroot[PATH_MAX * 2];
	const char *kind, *how;
	bool known;
	int rc;

	if (!zdeb_path(in, self, sizeof(self)) ||
	    diversion(in, owner, sizeof(owner), to, sizeof(to)) < 0)
		return ZD_EXIT_ERROR;
	if (owner[0] != '\0' && strcmp(owner, DIVERT_DEB_PACKAGE) == 0 &&
	    strcmp(in->package, DIVERT_PACKAGE) == 0) {
		zd_msg_info("already integrated by the %s package: '%s' is "
		            "zdeb, the real dpkg-deb is '%s'", owner, DPKG_DEB,
		            to);
		return ZD_EXIT_OK;
	}
	if (owner[0] != '\0' && strcmp(owner, DIVERT_PACKAGE) == 0 &&
	    strcmp(in->package, DIVERT_PACKAGE) != 0) {
		/* The package takes over a local integration: undone
		 * first, so that the steps below see the real dpkg-deb. */
		struct integ local = *in;

		zd_msg_info("'%s' is diverted by zdeb: moving the diversion "
		            "to '%s'", DPKG_DEB, in->package);
		local.package = DIVERT_PACKAGE;
		if (do_remove(&local) != ZD_EXIT_OK ||
		    diversion(in, owner, sizeof(owner), to, sizeof(to)) < 0)
			return ZD_EXIT_ERROR;
	}
	if (owner[0] != '\0' && strcmp(owner, in->package) != 0) {
		zd_msg_error("'%s' is already diverted to '%s' by '%s': not "
		             "integrating", DPKG_DEB, to, owner);
		return ZD_EXIT_ERROR;
	}
	if (owner[0] != '\0') {
		rc = read_link(in->link, cur, sizeof(cur), &kind);
		if (rc == 1 && links_to_self(in, cur, self)) {
			zd_msg_info("already integrated: '%s' is zdeb (%s), "
			            "the real dpkg-deb is '%s'", DPKG_DEB,
			            self, to);
			return ZD_EXIT_OK;
		}
		if (rc == 0) {
			zd_msg_error("'%s' is diverted by zdeb but is %s, not "
			             "a symlink to zdeb: not touching it; "
			             "check it and run 'zdeb integrate remove'",
			             in->link, kind);
			return ZD_EXIT_ERROR;
		}
		if (put_symlink(self, in->link) < 0)
			return ZD_EXIT_ERROR;
		zd_msg_info("repaired: '%s' now points to '%s'", in->link,
		            self);
		return ZD_EXIT_OK;
	}

	/* Not diverted yet: the real dpkg-deb must be where dpkg put it. */
	rc = read_link(in->link, cur, sizeof(cur), &kind);
	if (rc != 0) {
		zd_msg_error("'%s' is %s, not the real dpkg-deb: not "
		             "integrating", in->link, rc < 0 ? "missing" :
		             "a symlink");
		return ZD_EXIT_ERROR;
	}
	if (access(in->distrib, F_OK) == 0) {
		zd_msg_error("'%s' exists but no diversion does: move it away "
		             "first", in->distrib);
		return ZD_EXIT_ERROR;
	}
	real_version(in, in->link, ver, sizeof(ver), &how);
	if (version_too_new(ver, &known)) {
		if (!in->force) {
			zd_msg_error("the system dpkg-deb is version %s (from "
			             "%s), newer than the newest dpkg-deb zdeb "
			             "knows (%d.%d.x; it mirrors %s): its "
			             "options or output may differ from "
			             "zdeb's; not integrating (--force "
			             "overrides)", ver, how,
			             ZD_DPKG_DEB_NEWEST_MAJOR,
			             ZD_DPKG_DEB_NEWEST_MINOR,
			             ZD_DPKG_DEB_INTERFACE);
			return ZD_EXIT_ERROR;
		}
		zd_msg_warn("dpkg-deb %s is newer than zdeb knows (%d.%d.x); "
		            "integrating anyway (--force)", ver,
		            ZD_DPKG_DEB_NEWEST_MAJOR, ZD_DPKG_DEB_NEWEST_MINOR);
	} else if (!known) {
		if (!in->force) {
			zd_msg_error("cannot tell the version of the system "
			             "dpkg-deb ('%s'): not integrating "
			             "(--force overrides)", in->link);
			return ZD_EXIT_ERROR;
		}
		zd_msg_warn("unknown dpkg-deb version; integrating anyway "
		            "(--force)");
	}
	if (in->root != NULL) {
		snprintf(inroot, sizeof(inroot), "%s%s", in->root, self);
		if (access(inroot, X_OK) != 0)
			zd_msg_warn("'%s' is not inside '%s': the symlink "
			            "will not work when that system runs "
			            "(use --zdeb)", self, in->root);
	}

	rc = dpkg_divert(in, NULL, 0, "--rename", "--add", "--package",
	                 in->package, "--divert", ZD_DPKG_DEB_DIVERTED,
	                 DPKG_DEB, NULL);
	if (rc != 0) {
		zd_msg_error("dpkg-divert --add failed (exit status %d): "
		             "nothing changed", rc);
		return ZD_EXIT_ERROR;
	}
	if (put_symlink(self, in->link) < 0) {
		zd_msg_info("undoing the diversion");
		dpkg_divert(in, NULL, 0, "--rename", "--remove", "--package",
		            in->package, "--divert", ZD_DPKG_DEB_DIVERTED,
		            DPKG_DEB, NULL);
		return ZD_EXIT_ERROR;
	}
	zd_msg_info("'%s' is now zdeb (%s); the real dpkg-deb %s is '%s'",
	            DPKG_DEB, self, ver[0] != '\0' ? ver : "(unknown)",
	            ZD_DPKG_DEB_DIVERTED);
	return ZD_EXIT_OK;
}

static int
do_remove(struct integ *in)
{
	char owner[256], to[PATH_MAX], cur[PATH_MAX];
	const char *kind;
	int rc, linked;

	if (diversion(in, owner, sizeof(owner), to, sizeof(to)) < 0)
		return ZD_EXIT_ERROR;
	if (owner[0] == '\0') {
		zd_msg_info("not integrated: '%s' is not diverted", DPKG_DEB);
		return ZD_EXIT_OK;
	}
	if (strcmp(owner, in->package) != 0) {
		if (strcmp(owner, DIVERT_DEB_PACKAGE) == 0)
			zd_msg_error("'%s' is diverted by the %s package: "
			             "remove that package instead (apt-get "
			             "remove %s)", DPKG_DEB, owner, owner);
		else
			zd_msg_error("'%s' is diverted by '%s', not by %s: "
			             "not touching it", DPKG_DEB, owner,
			             in->package);
		return ZD_EXIT_ERROR;
	}
	if (strcmp(to, ZD_DPKG_DEB_DIVERTED) != 0) {
		zd_msg_error("zdeb's diversion of '%s' goes to '%s', not '%s': "
		             "remove it with dpkg-divert", DPKG_DEB, to,
		             ZD_DPKG_DEB_DIVERTED);
		return ZD_EXIT_ERROR;
	}
	if (access(in->distrib, F_OK) != 0 && !in->force) {
		zd_msg_error("'%s' is missing: removing the diversion would "
		             "leave no dpkg-deb; reinstall dpkg first "
		             "(--force removes it anyway)", in->distrib);
		return ZD_EXIT_ERROR;
	}
	linked = read_link(in->link, cur, sizeof(cur), &kind);
	if (linked == 0) {
		zd_msg_error("'%s' is %s, not zdeb's symlink: not removing the "
		             "diversion", in->link, kind);
		return ZD_EXIT_ERROR;
	}
	if (linked == 1 && unlink(in->link) < 0) {
		zd_msg_error("cannot remove '%s': %s", in->link,
		             strerror(errno));
		return ZD_EXIT_ERROR;
	}
	rc = dpkg_divert(in, NULL, 0, "--rename", "--remove", "--package",
	                 in->package, "--divert", ZD_DPKG_DEB_DIVERTED,
	                 DPKG_DEB, NULL);
	if (rc != 0) {
		zd_msg_error("dpkg-divert --remove failed (exit status %d)",
		             rc);
		if (linked == 1 && put_symlink(cur, in->link) == 0)
			zd_msg_info("restored '%s' -> '%s'", in->link, cur);
		return ZD_EXIT_ERROR;
	}
	zd_msg_info("'%s' is the real dpkg-deb again", DPKG_DEB);
	return ZD_EXIT_OK;
}

static int
do_status(struct integ *in)
{
	char owner[256], to[PATH_MAX], cur[PATH_MAX], self[PATH_MAX];
	char ver[128], pver[128];
	const char *kind, *how, *problem = NULL;
	bool known, diverted;
	int linked;

	if (diversion(in, owner, sizeof(owner), to, sizeof(to)) < 0)
		return ZD_EXIT_ERROR;
	diverted = strcmp(owner, DIVERT_PACKAGE) == 0 ||
	           strcmp(owner, DIVERT_DEB_PACKAGE) == 0;
	if (owner[0] == '\0')
		printf("diversion: none\n");
	else
		printf("diversion: %s -> %s by %s\n", DPKG_DEB, to, owner);
	linked = read_link(in->link, cur, sizeof(cur), &kind);
	if (linked == 1)
		printf("%s: symlink to %s\n", DPKG_DEB, cur);
	else
		printf("%s: %s\n", DPKG_DEB, kind);
	printf("zdeb: %s (dpkg-deb interface %s, integrates with dpkg-deb "
	       "up to %d.%d.x)\n", PACKAGE_VERSION, ZD_DPKG_DEB_INTERFACE,
	       ZD_DPKG_DEB_NEWEST_MAJOR, ZD_DPKG_DEB_NEWEST_MINOR);
	real_version(in, diverted ? in->distrib : in->link, ver,
	             sizeof(ver), &how);
	binary_version(diverted ? in->distrib : in->link, pver,
	               sizeof(pver));
	printf("real dpkg-deb: %s, version %s\n",
	       diverted ? ZD_DPKG_DEB_DIVERTED : DPKG_DEB,
	       pver[0] != '\0' ? pver : "unknown");
	if (strcmp(how, "dpkg-query") == 0)
		printf("dpkg package: %s\n", ver);
	if (diverted) {
		if (linked != 1)
			problem = "diverted, but /usr/bin/dpkg-deb is not a "
			          "symlink to zdeb";
		else if (access(in->distrib, X_OK) != 0)
			problem = "diverted, but /usr/bin/dpkg-deb.distrib is "
			          "missing";
		else if (strcmp(to, ZD_DPKG_DEB_DIVERTED) != 0)
			problem = "diverted to an unexpected name";
	} else if (linked == 1 && zdeb_path(in, self, sizeof(self)) &&
	           links_to_self(in, cur, self)) {
		problem = "/usr/bin/dpkg-deb is zdeb but not diverted";
	}
	if (problem != NULL) {
		printf("state: inconsistent (%s)\n", problem);
		return ZD_EXIT_MISMATCH;
	}
	if (diverted && version_too_new(ver, &known))
		printf("warning: dpkg-deb %s is newer than zdeb knows\n", ver);
	printf("state: %s\n", diverted ? "active (dpkg and apt run zdeb as "
	       "dpkg-deb)" : owner[0] != '\0' ? "inactive (diverted by "
	       "another package)" : "inactive");
	return ZD_EXIT_OK;
}

int
cmd_integrate(int argc, char **argv)
{
	struct integ in = { .package = DIVERT_PACKAGE };
	const char *action;
	int opt;

	/* Options may come before or after the action (getopt permutes). */
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "fh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'r': in.root = optarg; break;
		case 'Z': in.zdeb = optarg; break;
		case 'p': in.package = optarg; break;
		case 'f': in.force = true; break;
		case 'h': fputs(usage_text, stdout); return ZD_EXIT_OK;
		default:
			return zd_msg_usage("integrate", "unknown option '%s'",
			                    argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return zd_msg_usage("integrate", "missing action (install, "
		                    "remove or status)");
	if (argc - optind > 1)
		return zd_msg_usage("integrate", "too many arguments");
	action = argv[optind];
	if (in.package[0] == '\0' || in.package[0] == '-')
		return zd_msg_usage("integrate", "--package needs a package "
		                    "name, not '%s'", in.package);
	if (in.root != NULL) {
		struct stat st;

		if (in.root[0] != '/')
			return zd_msg_usage("integrate", "--root needs an "
			                    "absolute path, not '%s'", in.root);
		if (stat(in.root, &st) < 0 || !S_ISDIR(st.st_mode)) {
			zd_msg_error("root directory '%s' does not exist",
			             in.root);
			return ZD_EXIT_ERROR;
		}
		if (strcmp(in.root, "/") == 0)
			in.root = NULL;
	}
	if (!root_path(&in, DPKG_DEB, in.link, sizeof(in.link)) ||
	    !root_path(&in, ZD_DPKG_DEB_DIVERTED, in.distrib,
	               sizeof(in.distrib)))
		return ZD_EXIT_ERROR;
	if (strcmp(action, "install") == 0)
		return do_install(&in);
	if (strcmp(action, "remove") == 0)
		return do_remove(&in);
	if (strcmp(action, "status") == 0)
		return do_status(&in);
	return zd_msg_usage("integrate", "unknown action '%s' (valid: "
	                    "install, remove, status)", action);
}
