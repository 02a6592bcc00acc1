/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dpkg-instsize.c - Installed-Size with dpkg-gencontrol's rule
 * (dpkg-instsize.h)
 */
#include "config.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "lib/dpkg-control.h"
#include "lib/dpkg-instsize.h"
#include "lib/inoset.h"
#include "lib/tar-walk.h"

struct scan {
	uint64_t kib;
	struct zd_inoset seen;	/* inodes with several links, counted */
};

static int
entry(void *ctx, const struct zd_treewalk_entry *e, struct zd_error *err)
{
	struct scan *s = ctx;
	struct stat st;
	uint64_t add;

	if (strcmp(e->name, "./DEBIAN/control") == 0)
		return 0;
	if (lstat(e->path, &st) < 0)
		return zd_err_errno(err, ZD_E_IO, "cannot stat '%s'", e->path);
	if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) {
		if (zd_inoset_find(&s->seen, st.st_dev, st.st_ino, NULL))
			return 0;
		add = ((uint64_t)st.st_size + 1023) / 1024;
		if (st.st_nlink > 1 &&
		    zd_inoset_add(&s->seen, st.st_dev, st.st_ino, NULL,
		                  err) < 0)
			return -1;
	} else {
		add = 1;
	}
	if (__builtin_add_overflow(s->kib, add, &s->kib))
		return zd_err(err, ZD_E_LIMIT, "installed size overflows");
	return 0;
}

int
zd_dpkg_instsize_tree(const char *dir, uint64_t *kib, struct zd_error *err)
{
	struct scan s = { .kib = 0, .seen = ZD_INOSET_INIT };
	int rc;

	rc = zd_treewalk(dir, 0, entry, &s, err);
	if (rc == 0)
		*kib = s.kib;
	zd_inoset_free(&s.seen);
	return rc;
}

/* Fields dpkg orders before Installed-Size (Dpkg::Control::FieldsCore). */
static const char *const before[] = {
	"Package", "Package-Type", "Source", "Version", "Kernel-Version",
	"Built-For-Profiles", "Auto-Built-Package", "Architecture",
	"Subarchitecture", "Installer-Menu-Item", "Build-Essential",
	"Essential", "Protected", "Origin", "Bugs", "Maintainer",
};

static bool
is_before(const char *name)
{
	for (size_t i = 0; i < sizeof(before) / sizeof(*before); i++)
		if (strcasecmp(name, before[i]) == 0)
			return true;
	return false;
}

/* Byte offset of the start of 1-based line n (len if past the end). */
static size_t
line_offset(const char *buf, size_t len, unsigned n)
{
	size_t off = 0;

	while (n > 1 && off < len) {
		const char *nl = memchr(buf + off, '\n', len - off);

		if (nl == NULL)
			return len;
		off = (size_t)(nl - buf) + 1;
		n--;
	}
	return off;
}

int
zd_dpkg_instsize_control_add(const char *ctl, size_t len, uint64_t kib,
                        char **out, size_t *outlen, struct zd_error *err)
{
	struct zd_control c = { 0 };
	char field[48];
	size_t at, flen, last = SIZE_MAX;
	char *buf;
	int n;

	if (zd_dpkg_control_parse(ctl, len, "DEBIAN/control", &c, err) < 0)
		return -1;
	if (zd_dpkg_control_get(&c, "Installed-Size") != NULL) {
		zd_dpkg_control_free(&c);
		return zd_err(err, ZD_E_FORMAT, "control file already has an "
		              "'Installed-Size' field");
	}
	for (size_t i = 0; i < c.n; i++)
		if (is_before(c.fields[i].name))
			last = i;
	if (last == SIZE_MAX) {
		at = c.n > 0 ? line_offset(ctl, len, c.fields[0].line) : 0;
	} else if (last + 1 < c.n) {
		at = line_offset(ctl, len, c.fields[last + 1].line);
	} else {
		/* After the last field: before any trailing blank lines. */
		at = len;
		while (at >= 2 && ctl[at - 1] == '\n' && ctl[at - 2] == '\n')
			at--;
	}
	zd_dpkg_control_free(&c);
	n = snprintf(field, sizeof(field), "Installed-Size: %" PRIu64 "\n",
	             kib);
	flen = (size_t)n;
	buf = malloc(len + flen);
	if (buf == NULL)
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	memcpy(buf, ctl, at);
	memcpy(buf + at, field, flen);
	memcpy(buf + at + flen, ctl + at, len - at);
	*out = buf;
	*outlen = len + flen;
	return 0;
}
