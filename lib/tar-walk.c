/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tar-walk.c - dpkg-deb's deterministic tree walk, as names fed to tar
 *
 * Each directory is read whole and closed before its children are visited,
 * so the walk holds one directory stream at a time however deep the tree.
 * The name and path buffers grow as needed; nothing is limited to PATH_MAX.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/tar-walk.h"

/* dpkg's BUILDCONTROLDIR, compared with strncmp() on the virtual name. */
#define CONTROLDIR "DEBIAN"

struct strbuf {
	char *s;
	size_t len;
	size_t cap;
};

struct ancestor {
	dev_t dev;
	ino_t ino;
};

struct walk {
	unsigned flags;
	zd_treewalk_fn fn;
	void *ctx;
	struct strbuf name;	/* "./a/b" */
	struct strbuf path;	/* "ROOT/a/b" */
	struct ancestor *up;	/* directories from the root down */
	size_t nup;
	size_t capup;
	char **links;		/* held-back symlink names (data walk) */
	size_t nlinks;
	size_t caplinks;
};

static int
sb_set_len(struct strbuf *b, size_t len, struct zd_error *err)
{
	if (len + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		char *s;

		while (cap < len + 1)
			cap *= 2;
		s = realloc(b->s, cap);
		if (s == NULL)
			return zd_err(err, ZD_E_NOMEM, "out of memory");
		b->s = s;
		b->cap = cap;
	}
	b->len = len;
	b->s[len] = '\0';
	return 0;
}

/* Truncates b to len, then appends "/" and str. */
static int
sb_join(struct strbuf *b, size_t len, const char *str, struct zd_error *err)
{
	size_t n = strlen(str);

	if (sb_set_len(b, len + 1 + n, err) < 0)
		return -1;
	b->s[len] = '/';
	memcpy(b->s + len + 1, str, n + 1);
	return 0;
}

static int
cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
free_names(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* Reads the entries of dir (but "." and ".."), sorted with strcmp(). */
static int
read_sorted(const char *dir, char ***out, size_t *count, struct zd_error *err)
{
	DIR *d;
	char **v = NULL;
	size_t n = 0, cap = 0;
	int saved;

	d = opendir(dir);
	if (d == NULL)
		return zd_err_errno(err, ZD_E_IO, "cannot open directory '%s'",
		                    dir);
	for (;;) {
		struct dirent *e;

		errno = 0;
		e = readdir(d);
		if (e == NULL) {
			if (errno != 0) {
				zd_err_errno(err, ZD_E_IO, "cannot read "
				             "directory '%s'", dir);
				goto fail;
			}
			break;
		}
		if (strcmp(e->d_name, ".") == 0 ||
		    strcmp(e->d_name, "..") == 0)
			continue;
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			char **nv = reallocarray(v, ncap, sizeof(*v));

			if (nv == NULL)
				goto nomem;
			v = nv;
			cap = ncap;
		}
		v[n] = strdup(e->d_name);
		if (v[n] == NULL)
			goto nomem;
		n++;
	}
	closedir(d);
	if (n > 0)
		qsort(v, n, sizeof(*v), cmp_names);
	*out = v;
	*count = n;
	return 0;
nomem:
	zd_err(err, ZD_E_NOMEM, "out of memory");
fail:
	saved = errno;
	closedir(d);
	free_names(v, n);
	errno = saved;
	return -1;
}

static bool
is_control_name(const char *name)
{
	/* name is "./" + dpkg's virtual name */
	return strncmp(name + 2, CONTROLDIR, strlen(CONTROLDIR)) == 0;
}

/* Gives the entry now in w->name / w->path to fn, or holds it back. */
static int
visit(struct walk *w, const struct stat *st, struct zd_error *err)
{
	struct zd_treewalk_entry e = { w->name.s, w->path.s };

	if (w->flags & ZD_TREEWALK_DATA) {
		if (is_control_name(w->name.s))
			return 0;
		if (!(w->flags & ZD_TREEWALK_NOCHECK) &&
		    strchr(w->name.s, '\n') != NULL)
			return zd_err(err, ZD_E_FORMAT, "newline not allowed "
			              "in pathname '%s'", w->name.s);
		if (S_ISLNK(st->st_mode)) {
			if (w->nlinks == w->caplinks) {
				size_t ncap = w->caplinks ? w->caplinks * 2 : 16;
				char **nv = reallocarray(w->links, ncap,
				                         sizeof(*nv));

				if (nv == NULL)
					return zd_err(err, ZD_E_NOMEM,
					              "out of memory");
				w->links = nv;
				w->caplinks = ncap;
			}
			w->links[w->nlinks] = strdup(w->name.s);
			if (w->links[w->nlinks] == NULL)
				return zd_err(err, ZD_E_NOMEM, "out of memory");
			w->nlinks++;
			return 0;
		}
	}
	return w->fn(w->ctx, &e, err);
}

static int
push_ancestor(struct walk *w, const struct stat *st, struct zd_error *err)
{
	if (w->nup == w->capup) {
		size_t ncap = w->capup ? w->capup * 2 : 16;
		struct ancestor *nv = reallocarray(w->up, ncap, sizeof(*nv));

		if (nv == NULL)
			return zd_err(err, ZD_E_NOMEM, "out of memory");
		w->up = nv;
		w->capup = ncap;
	}
	w->up[w->nup].dev = st->st_dev;
	w->up[w->nup].ino = st->st_ino;
	w->nup++;
	return 0;
}

static bool
is_ancestor(const struct walk *w, const struct stat *st)
{
	for (size_t i = 0; i < w->nup; i++)
		if (w->up[i].dev == st->st_dev && w->up[i].ino == st->st_ino)
			return true;
	return false;
}

/* Visits the children of the directory in w->name / w->path. */
static int
walk_dir(struct walk *w, struct zd_error *err)
{
	const size_t namelen = w->name.len, pathlen = w->path.len;
	/* The root's name is "./": its children are "./x", not ".//x". */
	const size_t namebase = namelen == 2 ? 1 : namelen;
	char **names = NULL;
	size_t n = 0;
	int rc = -1;

	if (read_sorted(w->path.s, &names, &n, err) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		struct stat st;

		if (sb_join(&w->name, namebase, names[i], err) < 0 ||
		    sb_join(&w->path, pathlen, names[i], err) < 0)
			goto out;
		if (lstat(w->path.s, &st) < 0) {
			zd_err_errno(err, ZD_E_IO, "cannot stat pathname '%s'",
			             w->path.s);
			goto out;
		}
		if (visit(w, &st, err) < 0)
			goto out;
		if (S_ISDIR(st.st_mode) && !is_ancestor(w, &st)) {
			if (push_ancestor(w, &st, err) < 0 ||
			    walk_dir(w, err) < 0)
				goto out;
			w->nup--;
		}
	}
	rc = 0;
out:
	free_names(names, n);
	w->name.len = namelen;
	w->path.len = pathlen;
	if (w->name.s)
		w->name.s[namelen] = '\0';
	if (w->path.s)
		w->path.s[pathlen] = '\0';
	return rc;
}

static int
give_links(struct walk *w, const char *root, struct zd_error *err)
{
	const size_t rootlen = strlen(root);

	for (size_t i = 0; i < w->nlinks; i++) {
		struct zd_treewalk_entry e;

		if (sb_set_len(&w->path, rootlen, err) < 0)
			return -1;
		memcpy(w->path.s, root, rootlen);
		if (sb_join(&w->path, rootlen, w->links[i] + 2, err) < 0)
			return -1;
		e.name = w->links[i];
		e.path = w->path.s;
		if (w->fn(w->ctx, &e, err) < 0)
			return -1;
	}
	return 0;
}

int
zd_treewalk(const char *root, unsigned flags, zd_treewalk_fn fn, void *ctx,
            struct zd_error *err)
{
	struct walk w;
	struct stat st;
	int rc = -1;

	memset(&w, 0, sizeof(w));
	w.flags = flags;
	w.fn = fn;
	w.ctx = ctx;
	if (lstat(root, &st) < 0)
		return zd_err_errno(err, ZD_E_IO, "cannot stat pathname '%s'",
		                    root);
	if (!S_ISDIR(st.st_mode))
		return zd_err(err, ZD_E_USAGE, "treewalk root '%s' is not a "
		              "directory", root);
	if (sb_set_len(&w.name, 2, err) < 0 ||
	    sb_set_len(&w.path, strlen(root), err) < 0)
		goto out;
	memcpy(w.name.s, "./", 2);
	memcpy(w.path.s, root, w.path.len);
	if (visit(&w, &st, err) < 0 || push_ancestor(&w, &st, err) < 0 ||
	    walk_dir(&w, err) < 0 || give_links(&w, root, err) < 0)
		goto out;
	rc = 0;
out:
	free(w.name.s);
	free(w.path.s);
	free(w.up);
	free_names(w.links, w.nlinks);
	return rc;
}
