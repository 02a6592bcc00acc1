/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dpkg-check.c - dpkg-deb's build-time checks of a package tree
 *
 * The order of the checks and the wording of the messages follow dpkg
 * 1.21.22 (see dpkg-check.h), so that the first error reported is the one
 * dpkg-deb -b reports.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/c-ctype.h"
#include "lib/dpkg-check.h"
#include "lib/dpkg-pkginfo.h"
#include "lib/fdio.h"

/* dpkg's MAXCONFFILENAME (src/deb/dpkg-deb.h). */
#define CONFFILE_LINE_MAX 1000
/* Room for a path under the control directory (whose length was checked). */
#define SUBPATH_MAX (PATH_MAX + 64)
/* Sanity cap on the conffiles file we read. */
#define CONFFILES_MAX (16u << 20)

struct check {
	const struct zd_pkgcheck_opts *o;
	unsigned warnings;	/* given so far, the parser's included */
	struct zd_error *err;
};

/* Counts a warning and passes it on. */
static void
count_warning(void *ctx, const char *msg)
{
	struct check *ck = ctx;

	ck->warnings++;
	if (ck->o->warn != NULL)
		ck->o->warn(ck->o->warn_ctx, msg);
}

/* A problem dpkg-deb only warns about: an error when strict. */
static int __attribute__((format(printf, 2, 3)))
problem(struct check *ck, const char *fmt, ...)
{
	char msg[sizeof(ck->err->msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (ck->o->strict)
		return zd_err(ck->err, ZD_E_FORMAT, "%s", msg);
	count_warning(ck, msg);
	return 0;
}

/*
 * dpkg-deb's check_control_file(): the control file parses (with dpkg's
 * warnings), then the name and architecture dpkg-deb wants.
 */
static int
check_control(struct check *ck, const char *ctlpath, struct zd_control *ctl,
              struct zd_pkginfo *pi)
{
	struct zd_pkginfo_opts po = {
		.file = ctlpath, .native_arch = ck->o->native_arch,
		.warn = count_warning, .warn_ctx = ck, .strict = ck->o->strict,
	};

	if (zd_dpkg_pkginfo_parse_file(&po, ctl, pi, ck->err) < 0)
		return -1;
	if (strspn(pi->name, "abcdefghijklmnopqrstuvwxyz0123456789+-.") !=
	    strlen(pi->name))
		return zd_err(ck->err, ZD_E_FORMAT, "package name has characters "
		              "that aren't lowercase alphanums or '-+.'");
	if (pi->arch.type == ZD_ARCH_NONE || pi->arch.type == ZD_ARCH_EMPTY)
		return zd_err(ck->err, ZD_E_FORMAT, "package architecture is "
		              "missing or empty");
	if (pi->priority == ZD_PRIO_OTHER)
		return problem(ck, "'%s' contains user-defined Priority value "
		               "'%s'", ctlpath, pi->otherpriority);
	return 0;
}

/* check_file_perms(). */
static int
check_perms(struct check *ck, const char *ctrldir)
{
	static const char *const scripts[] = {
		"preinst", "postinst", "prerm", "postrm", "config",
	};
	char path[SUBPATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/", ctrldir);
	if (lstat(path, &st) < 0)
		return zd_err_errno(ck->err, ZD_E_IO, "unable to stat control "
		                    "directory");
	if (!S_ISDIR(st.st_mode))
		return zd_err(ck->err, ZD_E_FORMAT, "control directory is not "
		              "a directory");
	if ((st.st_mode & 07757) != 0755)
		return zd_err(ck->err, ZD_E_FORMAT, "control directory has bad "
		              "permissions %03lo (must be >=0755 and <=0775)",
		              (unsigned long)(st.st_mode & 07777));

	for (size_t i = 0; i < sizeof(scripts) / sizeof(*scripts); i++) {
		snprintf(path, sizeof(path), "%s/%s", ctrldir, scripts[i]);
		if (lstat(path, &st) < 0) {
			if (errno == ENOENT)
				continue;
			return zd_err_errno(ck->err, ZD_E_IO, "maintainer "
			                    "script '%s' is not stattable",
			                    scripts[i]);
		}
		if (S_ISLNK(st.st_mode))
			continue;
		if (!S_ISREG(st.st_mode))
			return zd_err(ck->err, ZD_E_FORMAT, "maintainer script "
			              "'%s' is not a plain file or symlink",
			              scripts[i]);
		if ((st.st_mode & 07557) != 0555)
			return zd_err(ck->err, ZD_E_FORMAT, "maintainer script "
			              "'%s' has bad permissions %03lo (must be "
			              ">=0555 and <=0775)", scripts[i],
			              (unsigned long)(st.st_mode & 07777));
	}
	return 0;
}

/* Reads a whole small file; *buf is NULL (and 0 returned) on ENOENT. */
static int
slurp(const char *path, char **buf, size_t *len, struct zd_error *err,
      const char *what)
{
	struct stat st;
	ssize_t n;
	int fd;

	*buf = NULL;
	*len = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		return zd_err_errno(err, ZD_E_IO, "error opening %s", what);
	}
	if (fstat(fd, &st) < 0) {
		zd_err_errno(err, ZD_E_IO, "error reading %s", what);
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > CONFFILES_MAX) {
		close(fd);
		return zd_err(err, ZD_E_FORMAT, "error reading %s: not a "
		              "regular file of at most %u bytes", what,
		              CONFFILES_MAX);
	}
	*buf = malloc((size_t)st.st_size + 1);
	if (*buf == NULL) {
		close(fd);
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	}
	n = zd_read_full(fd, *buf, (size_t)st.st_size, err);
	close(fd);
	if (n < 0) {
		free(*buf);
		*buf = NULL;
		zd_err_prefix(err, "error reading %s", what);
		return -1;
	}
	*len = (size_t)n;
	(*buf)[*len] = '\0';
	return 0;
}

struct name_list {
	char **v;
	size_t n;
};

static bool
name_list_has(const struct name_list *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i], s) == 0)
			return true;
	return false;
}

static int
name_list_add(struct name_list *l, const char *s)
{
	char **v = reallocarray(l->v, l->n + 1, sizeof(*v));

	if (v == NULL)
		return -1;
	l->v = v;
	v[l->n] = strdup(s);
	if (v[l->n] == NULL)
		return -1;
	l->n++;
	return 0;
}

static void
name_list_free(struct name_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
}

/* One conffiles line, as check_conffiles() sees it after fgets(). */
static int
check_conffile_line(struct check *ck, const char *rootdir, char *line,
                    struct name_list *seen)
{
	char *name = line;
	size_t n = strlen(name);
	bool remove_on_upgrade = false;
	char path[PATH_MAX];
	struct stat st;

	if (c_isspace((unsigned char)name[0])) {
		while (c_isspace((unsigned char)name[0]))
			name++;
		if (name[0] == '\0')
			return zd_err(ck->err, ZD_E_FORMAT, "empty and "
			              "whitespace-only lines are not allowed in "
			              "conffiles");
		return zd_err(ck->err, ZD_E_FORMAT, "line with conffile "
		              "filename '%s' has leading white spaces", name);
	}
	if (name[0] != '/') {
		char *flag = name;
		char *flag_end = strchr(flag, ' ');

		if (flag_end != NULL) {
			name = flag_end + 1;
			n -= (size_t)(name - flag);
		}
		if (flag_end == NULL || (name[0] != '\0' && name[0] != '/'))
			return zd_err(ck->err, ZD_E_FORMAT, "conffile name "
			              "'%s' is not an absolute pathname", name);
		*flag_end = '\0';
		if (name[0] == '\0')
			return zd_err(ck->err, ZD_E_FORMAT, "conffile name "
			              "missing after flag '%s'", flag);
		if (strcmp(flag, "remove-on-upgrade") != 0)
			return zd_err(ck->err, ZD_E_FORMAT, "unknown flag '%s' "
			              "for conffile '%s'", flag, name);
		remove_on_upgrade = true;
	}

	if ((size_t)snprintf(path, sizeof(path), "%s%s", rootdir, name) >=
	    sizeof(path))
		return zd_err(ck->err, ZD_E_FORMAT, "conffile '%.250s' path "
		              "is too long", name);
	if (lstat(path, &st) < 0) {
		if (errno != ENOENT)
			return zd_err_errno(ck->err, ZD_E_IO, "conffile "
			                    "'%.250s' is not stattable", name);
		if (n > 1 && c_isspace((unsigned char)name[n - 1]) &&
		    problem(ck, "conffile filename '%s' contains trailing "
		            "white spaces", name) < 0)
			return -1;
		if (!remove_on_upgrade)
			return zd_err(ck->err, ZD_E_FORMAT, "conffile '%.250s' "
			              "does not appear in package", name);
	} else if (remove_on_upgrade) {
		return zd_err(ck->err, ZD_E_FORMAT, "conffile '%s' is present "
		              "but is requested to be removed", name);
	} else if (!S_ISREG(st.st_mode)) {
		if (problem(ck, "conffile '%s' is not a plain file", name) < 0)
			return -1;
	}

	if (name_list_has(seen, name))
		return problem(ck, "conffile name '%s' is duplicated", name);
	if (name_list_add(seen, name) < 0)
		return zd_err(ck->err, ZD_E_NOMEM, "out of memory");
	return 0;
}

/* check_conffiles(): lines are cut as fgets() with dpkg's buffer would. */
static int
check_conffiles(struct check *ck, const char *ctrldir, const char *rootdir)
{
	struct name_list seen = { NULL, 0 };
	char path[SUBPATH_MAX];
	char *buf = NULL;
	size_t len, pos = 0;
	int rc = -1;

	snprintf(path, sizeof(path), "%s/conffiles", ctrldir);
	if (slurp(path, &buf, &len, ck->err, "conffiles file") < 0)
		return -1;
	if (buf == NULL)
		return 0;
	while (pos < len) {
		char line[CONFFILE_LINE_MAX + 1];
		size_t n = 0;

		while (pos < len && n < CONFFILE_LINE_MAX) {
			line[n++] = buf[pos++];
			if (line[n - 1] == '\n')
				break;
		}
		line[n] = '\0';
		/* fgets() hands a NUL-containing line over cut at the NUL. */
		n = strlen(line);
		if (n == 0) {
			zd_err(ck->err, ZD_E_FORMAT, "empty string from fgets "
			       "reading conffiles");
			goto out;
		}
		if (line[n - 1] != '\n') {
			zd_err(ck->err, ZD_E_FORMAT, "conffile name '%s' is too "
			       "long, or missing final newline", line);
			goto out;
		}
		line[n - 1] = '\0';
		if (check_conffile_line(ck, rootdir, line, &seen) < 0)
			goto out;
	}
	rc = 0;
out:
	name_list_free(&seen);
	free(buf);
	return rc;
}

int
zd_dpkg_check_tree(const char *dir, const struct zd_pkgcheck_opts *o,
                 struct zd_control *ctl, struct zd_pkginfo *pi,
                 struct zd_error *err)
{
	struct check ck = { o, 0, err };
	char ctrldir[PATH_MAX];
	char ctlpath[SUBPATH_MAX];

	memset(pi, 0, sizeof(*pi));
	ctl->fields = NULL;
	ctl->n = 0;
	if ((size_t)snprintf(ctrldir, sizeof(ctrldir), "%s/DEBIAN", dir) >=
	    sizeof(ctrldir))
		return zd_err(err, ZD_E_USAGE, "path '%s' is too long", dir);
	snprintf(ctlpath, sizeof(ctlpath), "%s/control", ctrldir);
	if (check_control(&ck, ctlpath, ctl, pi) < 0 ||
	    check_perms(&ck, ctrldir) < 0 ||
	    check_conffiles(&ck, ctrldir, dir) < 0)
		return -1;
	if (ck.warnings > 0)
		zd_warnf(o->warn, o->warn_ctx, "ignoring %u warning%s about the "
		         "control file(s)", ck.warnings,
		         ck.warnings == 1 ? "" : "s");
	return 0;
}
