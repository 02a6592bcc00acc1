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
	bool strict;		/* warnings are errors */
	zd_warn_fn warn;
	void *warn_ctx;
	struct zd_error *err;
	const char *ctlpath;	/* DIR/DEBIAN/control, for messages */
};

/* A problem dpkg-deb only warns about: an error when strict. */
static int __attribute__((format(printf, 2, 3)))
problem(struct check *ck, const char *fmt, ...)
{
	char msg[sizeof(ck->err->msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (ck->strict)
		return zd_err(ck->err, ZD_E_FORMAT, "%s", msg);
	if (ck->warn != NULL)
		ck->warn(ck->warn_ctx, msg);
	return 0;
}

static const struct zd_field *
find_field(const struct zd_control *ctl, const char *name)
{
	for (size_t i = 0; i < ctl->n; i++)
		if (strcasecmp(ctl->fields[i].name, name) == 0)
			return &ctl->fields[i];
	return NULL;
}

/*
 * The per-field checks dpkg runs while parsing, in field order, then
 * pkg_parse_verify() and check_dpkg_control_file().
 */
static int
check_control(struct check *ck, const struct zd_control *ctl)
{
	static const enum zd_field_id rejected[] = {
		ZD_FIELD_STATUS, ZD_FIELD_CONFIG_VERSION,
		ZD_FIELD_TRIGGERS_PENDING, ZD_FIELD_TRIGGERS_AWAITED,
	};
	static const char *const priorities[] = {
		"required", "important", "standard", "optional", "extra",
		"unknown",
	};
	static const char *const ensured[] = { "Description", "Maintainer" };
	const char *path = ck->ctlpath;
	const struct zd_field *f;
	struct zd_error why = ZD_ERROR_INIT;

	for (size_t i = 0; i < ctl->n; i++) {
		const struct zd_field *fi = &ctl->fields[i];

		for (size_t r = 0; r < sizeof(rejected) / sizeof(*rejected);
		     r++)
			if (fi->id == rejected[r])
				return zd_err(ck->err, ZD_E_FORMAT, "'%s' line "
				              "%u: value for '%s' field not "
				              "allowed in this context", path,
				              fi->line,
				              zd_control_field_name(rejected[r]));
		if (fi->id == ZD_FIELD_PACKAGE) {
			if (zd_pkginfo_check_name(fi->value, &why) < 0)
				return zd_err(ck->err, ZD_E_FORMAT, "'%s' line "
				              "%u: invalid package name in "
				              "'Package' field: %s", path,
				              fi->line, why.msg);
		} else if (fi->id == ZD_FIELD_VERSION) {
			struct zd_version v;
			int rc = zd_version_parse(fi->value, &v, &why);

			zd_version_free(&v);
			if (rc < 0 && why.code == ZD_E_NOMEM)
				return zd_err(ck->err, ZD_E_NOMEM, "%s",
				              why.msg);
			if (rc < 0)
				return zd_err(ck->err, ZD_E_FORMAT, "'%s' line "
				              "%u: 'Version' field value '%.250s':"
				              " %s", path, fi->line, fi->value,
				              why.msg);
		} else if (fi->id == ZD_FIELD_ARCHITECTURE &&
		           fi->value[0] != '\0' &&
		           strcmp(fi->value, "all") != 0 &&
		           strcmp(fi->value, "any") != 0 &&
		           zd_pkginfo_check_arch(fi->value, &why) < 0) {
			if (problem(ck, "'%s' line %u: '%s' is not a valid "
			            "architecture name in 'Architecture' "
			            "field: %s", path, fi->line, fi->value,
			            why.msg) < 0)
				return -1;
		}
	}

	if (find_field(ctl, "Package") == NULL)
		return zd_err(ck->err, ZD_E_FORMAT, "'%s': missing 'Package' "
		              "field", path);
	for (size_t i = 0; i < sizeof(ensured) / sizeof(*ensured); i++) {
		f = find_field(ctl, ensured[i]);
		if (f == NULL) {
			if (problem(ck, "'%s': missing '%s' field", path,
			            ensured[i]) < 0)
				return -1;
		} else if (f->value[0] == '\0') {
			if (problem(ck, "'%s' line %u: empty value for '%s' "
			            "field", path, f->line, ensured[i]) < 0)
				return -1;
		}
	}
	if (find_field(ctl, "Version") == NULL)
		return zd_err(ck->err, ZD_E_FORMAT, "'%s': missing 'Version' "
		              "field", path);
	f = find_field(ctl, "Architecture");
	if (f == NULL) {
		if (problem(ck, "'%s': missing 'Architecture' field",
		            path) < 0)
			return -1;
	} else if (f->value[0] == '\0') {
		if (problem(ck, "'%s' line %u: empty value for "
		            "'Architecture' field", path, f->line) < 0)
			return -1;
	} else {
		const struct zd_field *ma = find_field(ctl, "Multi-Arch");

		if (ma != NULL && strcasecmp(ma->value, "same") == 0 &&
		    strcmp(f->value, "all") == 0)
			return zd_err(ck->err, ZD_E_FORMAT, "'%s': package "
			              "has 'Multi-Arch: same' field but is "
			              "architecture 'all'", path);
	}

	/* check_dpkg_control_file(): dpkg lowercased the name, so only '_' and
	 * the like are left to fail here. */
	f = find_field(ctl, "Package");
	for (const char *p = f->value; *p != '\0'; p++) {
		int c = (unsigned char)*p;

		if (c >= 'A' && c <= 'Z')
			continue;
		if (strchr("abcdefghijklmnopqrstuvwxyz0123456789+-.", c) ==
		    NULL)
			return zd_err(ck->err, ZD_E_FORMAT, "package name has "
			              "characters that aren't lowercase "
			              "alphanums or '-+.'");
	}
	f = find_field(ctl, "Architecture");
	if (f == NULL || f->value[0] == '\0')
		return zd_err(ck->err, ZD_E_FORMAT, "package architecture is "
		              "missing or empty");
	f = find_field(ctl, "Priority");
	if (f != NULL && f->value[0] != '\0') {
		bool known = false;

		for (size_t i = 0; i < sizeof(priorities) / sizeof(*priorities);
		     i++)
			if (strcasecmp(f->value, priorities[i]) == 0)
				known = true;
		if (!known && problem(ck, "'%s' contains user-defined Priority "
		                      "value '%s'", path, f->value) < 0)
			return -1;
	}
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
	char **v = realloc(l->v, (l->n + 1) * sizeof(*v));

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

static int
check_tree(struct check *ck, const char *dir, struct zd_control *ctl)
{
	char ctrldir[PATH_MAX];
	char ctlpath[SUBPATH_MAX];
	struct zd_control c = { NULL, 0 };

	ctl->fields = NULL;
	ctl->n = 0;
	if ((size_t)snprintf(ctrldir, sizeof(ctrldir), "%s/DEBIAN", dir) >=
	    sizeof(ctrldir))
		return zd_err(ck->err, ZD_E_USAGE, "path '%s' is too long",
		              dir);
	snprintf(ctlpath, sizeof(ctlpath), "%s/control", ctrldir);
	ck->ctlpath = ctlpath;

	if (zd_control_parse_file(ctlpath, &c, ck->err) < 0)
		return -1;
	if (check_control(ck, &c) < 0 || check_perms(ck, ctrldir) < 0 ||
	    check_conffiles(ck, ctrldir, dir) < 0) {
		zd_control_free(&c);
		return -1;
	}
	*ctl = c;
	return 0;
}

int
zd_pkgcheck_tree(const char *dir, struct zd_control *ctl,
                 struct zd_error *err)
{
	struct check ck = { true, NULL, NULL, err, NULL };

	return check_tree(&ck, dir, ctl);
}

int
zd_pkgcheck_tree_warn(const char *dir, struct zd_control *ctl,
                      zd_warn_fn warn, void *warn_ctx, struct zd_error *err)
{
	struct check ck = { false, warn, warn_ctx, err, NULL };

	return check_tree(&ck, dir, ctl);
}
