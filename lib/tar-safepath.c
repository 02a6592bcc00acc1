/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tar-safepath.c - tar member name rules: relative, no "..", normalized
 *
 * Pure string functions: tar-extract.c applies them before touching the file
 * system, and then resolves the parent one component at a time without
 * following symlinks (libarchive's archive_write_disk_posix.c,
 * cleanup_pathname() and check_symlinks(), make the same two steps).
 */
#include "config.h"

#include <string.h>

#include "lib/tar-safepath.h"

#define NAME_MAX_LEN 255	/* NAME_MAX on Linux */

int
zd_tar_safepath_check(const char *name, struct zd_error *err)
{
	const char *p = name;

	if (name == NULL || *name == '\0')
		return zd_err(err, ZD_E_FORMAT, "member with an empty name");
	if (*name == '/')
		return zd_err(err, ZD_E_FORMAT, "member '%s': absolute path "
		              "refused", name);
	while (*p != '\0') {
		size_t len = strcspn(p, "/");

		if (len == 2 && p[0] == '.' && p[1] == '.')
			return zd_err(err, ZD_E_FORMAT, "member '%s': '..' "
			              "path component refused", name);
		p += len;
		while (*p == '/')
			p++;
	}
	return 0;
}

int
zd_tar_safepath_normalize(const char *name, char *out, size_t size,
                      struct zd_error *err)
{
	const char *p = name;
	size_t n = 0;

	if (zd_tar_safepath_check(name, err) < 0)
		return -1;
	if (size == 0)
		return zd_err(err, ZD_E_LIMIT, "member '%s': path too long",
		              name);
	while (*p != '\0') {
		size_t len = strcspn(p, "/");

		if (len > NAME_MAX_LEN)
			return zd_err(err, ZD_E_LIMIT, "member '%.300s': path "
			              "component too long", name);
		if (len > 0 && !(len == 1 && p[0] == '.')) {
			size_t need = len + (n > 0);

			if (need >= size - n)
				return zd_err(err, ZD_E_LIMIT, "member "
				              "'%.300s': path too long", name);
			if (n > 0)
				out[n++] = '/';
			memcpy(out + n, p, len);
			n += len;
		}
		p += len;
		while (*p == '/')
			p++;
	}
	out[n] = '\0';
	return 0;
}

char *
zd_tar_safepath_split(char *path, const char **dir)
{
	char *slash = strrchr(path, '/');

	if (slash == NULL) {
		*dir = "";
		return path;
	}
	*slash = '\0';
	*dir = path;
	return slash + 1;
}
