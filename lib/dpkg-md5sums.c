/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dpkg-md5sums.c - DEBIAN/md5sums as dh_md5sums writes it (see
 * dpkg-md5sums.h)
 */
#include "config.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <md5.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/dpkg-md5sums.h"
#include "lib/fdio.h"
#include "lib/tar-walk.h"

static_assert(MD5_DIGEST_STRING_LENGTH == ZD_MD5_HEX_SIZE,
              "MD5End() writes ZD_MD5_HEX_SIZE bytes");

int
zd_dpkg_md5sums_file(const char *path, char hex[ZD_MD5_HEX_SIZE],
                struct zd_error *err)
{
	unsigned char buf[65536];
	MD5_CTX ctx;
	int fd;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return zd_err_errno(err, ZD_E_IO, "cannot open '%s'", path);
	MD5Init(&ctx);
	for (;;) {
		ssize_t n = zd_read_full(fd, buf, sizeof(buf), err);

		if (n < 0) {
			int saved = errno;

			close(fd);
			errno = saved;
			zd_err_prefix(err, "cannot read '%s'", path);
			return -1;
		}
		MD5Update(&ctx, buf, (size_t)n);
		if ((size_t)n < sizeof(buf))
			break;
	}
	close(fd);
	MD5End(&ctx, hex);	/* lowercase hex, as md5sum prints */
	return 0;
}

/* Names relative to the root ("usr/bin/foo") and their paths on disk. */
struct collect {
	char **names;
	char **paths;
	size_t n, cap;
	char **conffiles;	/* sorted, without the leading '/' */
	size_t nconf;
};

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool
is_conffile(const struct collect *c, const char *name)
{
	return c->nconf > 0 &&
	       bsearch(&name, c->conffiles, c->nconf, sizeof(char *),
	               cmp_str) != NULL;
}

static int
entry(void *ctx, const struct zd_treewalk_entry *e, struct zd_error *err)
{
	struct collect *c = ctx;
	struct stat st;
	const char *name;

	if (strncmp(e->name, "./", 2) != 0 || e->name[2] == '\0')
		return 0;
	name = e->name + 2;
	if (lstat(e->path, &st) < 0)
		return zd_err_errno(err, ZD_E_IO, "cannot stat '%s'", e->path);
	if (!S_ISREG(st.st_mode) || is_conffile(c, name))
		return 0;
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 64;
		char **nn = reallocarray(c->names, cap, sizeof(*nn));

		if (nn == NULL)
			return zd_err(err, ZD_E_NOMEM, "out of memory");
		c->names = nn;
		nn = reallocarray(c->paths, cap, sizeof(*nn));
		if (nn == NULL)
			return zd_err(err, ZD_E_NOMEM, "out of memory");
		c->paths = nn;
		c->cap = cap;
	}
	c->names[c->n] = strdup(e->path);
	if (c->names[c->n] == NULL)
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	/* names[i] points into paths[i]: the part after "DIR/". */
	c->paths[c->n] = c->names[c->n];
	c->names[c->n] += strlen(e->path) - strlen(name);
	c->n++;
	return 0;
}

/* Reads DIR/DEBIAN/conffiles as dh_md5sums does, if it exists. */
static int
read_conffiles(const char *dir, struct collect *c, struct zd_error *err)
{
	char *path = NULL, *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *f;
	int rc = -1;

	if (asprintf(&path, "%s/DEBIAN/conffiles", dir) < 0)
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	f = fopen(path, "re");
	if (f == NULL) {
		if (errno == ENOENT) {
			free(path);
			return 0;
		}
		zd_err_errno(err, ZD_E_IO, "cannot open '%s'", path);
		free(path);
		return -1;
	}
	while ((n = getline(&line, &cap, f)) >= 0) {
		const char *p = line;
		char **nc;

		if (n > 0 && line[n - 1] == '\n')
			line[n - 1] = '\0';
		if (*p != '/')
			continue;
		while (*p == '/')
			p++;
		if (*p == '\0')
			continue;
		nc = reallocarray(c->conffiles, c->nconf + 1, sizeof(*nc));
		if (nc == NULL) {
			zd_err(err, ZD_E_NOMEM, "out of memory");
			goto out;
		}
		c->conffiles = nc;
		c->conffiles[c->nconf] = strdup(p);
		if (c->conffiles[c->nconf] == NULL) {
			zd_err(err, ZD_E_NOMEM, "out of memory");
			goto out;
		}
		c->nconf++;
	}
	if (ferror(f)) {
		zd_err_errno(err, ZD_E_IO, "cannot read '%s'", path);
		goto out;
	}
	if (c->nconf > 0)
		qsort(c->conffiles, c->nconf, sizeof(char *), cmp_str);
	rc = 0;
out:
	free(line);
	fclose(f);
	free(path);
	return rc;
}

/* Sorts names (and their paths with them) by name. */
static int
cmp_index(const void *a, const void *b, void *ctx)
{
	char *const *names = ctx;

	return strcmp(names[*(const size_t *)a], names[*(const size_t *)b]);
}

int
zd_dpkg_md5sums_tree(const char *dir, char **text, size_t *len,
                struct zd_error *err)
{
	struct collect c = { 0 };
	size_t *order = NULL;
	char *buf = NULL;
	size_t size = 0, used = 0;
	int rc = -1;

	*text = NULL;
	*len = 0;
	if (read_conffiles(dir, &c, err) < 0 ||
	    zd_treewalk(dir, ZD_TREEWALK_DATA, entry, &c, err) < 0)
		goto out;
	if (c.n == 0) {
		rc = 0;
		goto out;
	}
	order = malloc(c.n * sizeof(*order));
	if (order == NULL) {
		zd_err(err, ZD_E_NOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < c.n; i++)
		order[i] = i;
	qsort_r(order, c.n, sizeof(*order), cmp_index, c.names);
	for (size_t k = 0; k < c.n; k++) {
		const size_t i = order[k];
		char hex[ZD_MD5_HEX_SIZE];
		size_t need;

		if (zd_dpkg_md5sums_file(c.paths[i], hex, err) < 0)
			goto out;
		/* "HEX  NAME\n" */
		if (__builtin_add_overflow(strlen(c.names[i]), 36, &need) ||
		    __builtin_add_overflow(need, used, &need)) {
			zd_err(err, ZD_E_LIMIT, "md5sums too large");
			goto out;
		}
		if (need > size) {
			size_t nsize = size ? size : 4096;
			char *nb;

			while (nsize < need)
				nsize *= 2;
			nb = realloc(buf, nsize);
			if (nb == NULL) {
				zd_err(err, ZD_E_NOMEM, "out of memory");
				goto out;
			}
			buf = nb;
			size = nsize;
		}
		used += (size_t)sprintf(buf + used, "%s  %s\n", hex,
		                        c.names[i]);
	}
	*text = buf;
	*len = used;
	buf = NULL;
	rc = 0;
out:
	free(buf);
	free(order);
	for (size_t i = 0; i < c.n; i++)
		free(c.paths[i]);
	free(c.paths);
	free(c.names);
	for (size_t i = 0; i < c.nconf; i++)
		free(c.conffiles[i]);
	free(c.conffiles);
	return rc;
}
