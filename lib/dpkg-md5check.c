/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dpkg-md5check.c - compare the files of a data.tar with DEBIAN/md5sums, the
 * way `dpkg --verify` would, without unpacking anything
 */
#include "config.h"

#include <md5.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/dpkg-md5check.h"
#include "lib/dpkg-md5sums.h"
#include "lib/tar-find.h"
#include "lib/tar-libarchive.h"

struct sum {
	char *path;		/* without "./" */
	char hex[ZD_MD5_HEX_SIZE];	/* expected, then "" once seen */
	bool seen;
};

struct sumtab {
	struct sum *v;
	size_t n;
};

static int
cmp_sum(const void *a, const void *b)
{
	return strcmp(((const struct sum *)a)->path,
	              ((const struct sum *)b)->path);
}

static void
sumtab_free(struct sumtab *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].path);
	free(t->v);
	t->v = NULL;
	t->n = 0;
}

static bool
is_hex32(const char *s)
{
	for (int i = 0; i < 32; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		      (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

/* Parses "<32 hex>  <path>\n" lines (md5sum's text mode). */
static int
parse_sums(const char *text, size_t len, struct sumtab *t,
           struct zd_error *err)
{
	const char *p = text, *end = text + len;
	size_t cap = 0, line = 0;

	memset(t, 0, sizeof(*t));
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *name;
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);

		line++;
		if (l == 0) {
			p += 1;
			continue;
		}
		if (l < 35 || !is_hex32(p) || p[32] != ' ' ||
		    (p[33] != ' ' && p[33] != '*')) {
			sumtab_free(t);
			return zd_err(err, ZD_E_FORMAT, "md5sums line %zu is "
			              "malformed", line);
		}
		if (t->n == cap) {
			struct sum *v;

			cap = cap ? 2 * cap : 64;
			v = reallocarray(t->v, cap, sizeof(*v));
			if (v == NULL) {
				sumtab_free(t);
				return zd_err(err, ZD_E_NOMEM, "out of memory");
			}
			t->v = v;
		}
		name = p + 34;
		while (name[0] == '.' && name[1] == '/')
			name += 2;
		t->v[t->n].path = strndup(name, (size_t)(p + l - name));
		if (t->v[t->n].path == NULL) {
			sumtab_free(t);
			return zd_err(err, ZD_E_NOMEM, "out of memory");
		}
		memcpy(t->v[t->n].hex, p, 32);
		t->v[t->n].hex[32] = '\0';
		t->v[t->n].seen = false;
		t->n++;
		p += l + (nl != NULL);
	}
	qsort(t->v, t->n, sizeof(*t->v), cmp_sum);
	return 0;
}

static struct sum *
find_sum(struct sumtab *t, const char *path)
{
	struct sum key;

	while (path[0] == '.' && path[1] == '/')
		path += 2;
	key.path = (char *)path;
	return bsearch(&key, t->v, t->n, sizeof(*t->v), cmp_sum);
}

static struct archive *
open_reader(int fd, struct zd_error *err)
{
	struct archive *a = zd_tar_libarchive_tar_reader(err);

	if (a == NULL)
		return NULL;
	if (archive_read_open_fd(a, fd, 1 << 16) != ARCHIVE_OK) {
		zd_err(err, ZD_E_FORMAT, "cannot read the data tar: %s",
		       archive_error_string(a));
		archive_read_free(a);
		return NULL;
	}
	return a;
}

int
zd_dpkg_md5check_find(const void *ctl_tar, size_t ctl_len, char **text,
                 size_t *len, struct zd_error *err)
{
	int rc = zd_tar_find_file(ctl_tar, ctl_len, "md5sums", text, len,
	                          err);

	if (rc < 0)
		zd_err_prefix(err, "control.tar");
	return rc;
}

/* MD5 of the current entry's data. */
static int
digest_entry(struct archive *a, char hex[ZD_MD5_HEX_SIZE], const char *name,
             struct zd_error *err)
{
	const void *buf;
	size_t n;
	la_int64_t off;
	MD5_CTX ctx;
	int r;

	MD5Init(&ctx);
	while ((r = archive_read_data_block(a, &buf, &n, &off)) == ARCHIVE_OK)
		MD5Update(&ctx, buf, n);
	if (r != ARCHIVE_EOF)
		return zd_err(err, ZD_E_FORMAT, "cannot read data of member "
		              "'%s': %s", name, archive_error_string(a));
	MD5End(&ctx, hex);
	return 0;
}

int
zd_dpkg_md5check_tar(int tar_fd, const char *md5sums, size_t len,
                zd_warn_fn warn, void *warn_ctx,
                struct zd_md5check_result *r, struct zd_error *err)
{
	struct sumtab t;
	struct archive *a;
	struct archive_entry *e;
	int rc = -1, st;

	memset(r, 0, sizeof(*r));
	if (parse_sums(md5sums, len, &t, err) < 0)
		return -1;
	a = open_reader(tar_fd, err);
	if (a == NULL) {
		sumtab_free(&t);
		return -1;
	}
	while ((st = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
		const char *name = archive_entry_pathname(e);
		const char *hl = archive_entry_hardlink(e);
		struct sum *s = find_sum(&t, name);
		char hex[ZD_MD5_HEX_SIZE];

		if (hl != NULL) {
			struct sum *target = find_sum(&t, hl);

			if (s == NULL)
				continue;
			/* A hardlink has its target's bytes. */
			if (target == NULL || !target->seen) {
				zd_warnf(warn, warn_ctx, "'%s': cannot check a "
				         "hardlink to an unlisted file", s->path);
				r->mismatched++;
				s->seen = true;
				continue;
			}
			memcpy(hex, target->hex, sizeof(hex));
			if (strcmp(s->hex, hex) != 0) {
				zd_warnf(warn, warn_ctx, "'%s': MD5 mismatch",
				         s->path);
				r->mismatched++;
			}
			r->checked++;
			s->seen = true;
			continue;
		}
		if (archive_entry_filetype(e) != AE_IFREG || s == NULL)
			continue;
		if (digest_entry(a, hex, name, err) < 0)
			goto out;
		r->checked++;
		if (strcmp(s->hex, hex) != 0) {
			zd_warnf(warn, warn_ctx, "'%s': MD5 mismatch (md5sums "
			         "%s, data %s)", s->path, s->hex, hex);
			r->mismatched++;
			memcpy(s->hex, hex, sizeof(hex));
		}
		s->seen = true;
	}
	if (st != ARCHIVE_EOF) {
		zd_err(err, ZD_E_FORMAT, "cannot read the data tar: %s",
		       archive_error_string(a));
		goto out;
	}
	for (size_t i = 0; i < t.n; i++) {
		if (!t.v[i].seen) {
			zd_warnf(warn, warn_ctx, "'%s': listed in md5sums but "
			         "not in the package", t.v[i].path);
			r->mismatched++;
		}
	}
	rc = 0;
out:
	archive_read_free(a);
	sumtab_free(&t);
	return rc;
}
