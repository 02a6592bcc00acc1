/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * deb-build.c - build a .deb: the steps of dpkg-deb's do_build, with the
 * output written to a temporary name and renamed into place
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/ar.h"
#include "lib/deb-build.h"
#include "lib/deb-encoder.h"
#include "lib/deb-write.h"
#include "lib/dpkg-check.h"
#include "lib/dpkg-instsize.h"
#include "lib/dpkg-md5sums.h"
#include "lib/fdio.h"
#include "lib/tar-build.h"

static char *
xasprintf(struct zd_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static char *
xasprintf(struct zd_error *err, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0) {
		zd_err(err, ZD_E_NOMEM, "out of memory");
		return NULL;
	}
	return s;
}

char *
zd_deb_build_dest_path(const char *dir, const char *dest,
                   const struct zd_pkginfo *pi, struct zd_error *err)
{
	struct stat st;
	const char *rev;
	size_t len;

	if (dest == NULL) {
		/* dpkg's path_trim_slash_slashdot(): trailing "/" and "/."
		 * go, but not the first character. */
		len = strlen(dir);
		while (len > 1 && (dir[len - 1] == '/' ||
		                   (dir[len - 2] == '/' && dir[len - 1] == '.')))
			len--;
		return xasprintf(err, "%.*s.deb", (int)len, dir);
	}
	if (stat(dest, &st) < 0 || !S_ISDIR(st.st_mode))
		return xasprintf(err, "%s", dest);
	if (pi == NULL) {
		zd_err(err, ZD_E_USAGE, "target is directory - cannot skip "
		       "control file check");
		return NULL;
	}
	/* dpkg-deb's gen_dest_pathname_from_pkg(): the version without its
	 * epoch (vdew_never). */
	rev = pi->version.revision != NULL ? pi->version.revision : "";
	return xasprintf(err, "%s/%s_%s%s%s_%s.deb", dest, pi->name,
	                 pi->version.version != NULL ? pi->version.version : "",
	                 *rev != '\0' ? "-" : "", rev, pi->arch.name);
}

static void
report(const struct zd_build_opts *o, const char *stage, uint64_t bytes)
{
	if (o->progress != NULL)
		o->progress(o->progress_ctx, stage, bytes);
}

typedef int tarbuild_fn(const char *dir, const struct zd_tar_opts *o,
                        const struct zd_sink *out, uint64_t *size,
                        struct zd_error *err);

/* The encoder's sink, naming the member and the .deb on errors. */
struct fed {
	struct zd_encoder *e;
	const struct zd_build_opts *o;
	const char *what;
	const char *path;	/* the .deb */
};

static void
fed_progress(void *ctx, uint64_t bytes)
{
	struct fed *f = ctx;

	report(f->o, f->what, bytes);
}

static int
fed_write(void *ctx, const void *buf, size_t len, struct zd_error *err)
{
	struct fed *f = ctx;

	if (zd_deb_encoder_write(f->e, buf, len, err) < 0) {
		zd_err_prefix(err, "cannot write %s for '%s'", f->what,
		              f->path);
		return -1;
	}
	return 0;
}

/*
 * Makes one compressed tar member, in place in out: the tar stream goes
 * straight into the encoder, the encoder's output straight into the .deb.
 */
static int
make_member(const char *dir, tarbuild_fn *fn, const struct zd_tar_opts *to,
            const struct zd_comp_params *cp, const char *what,
            const char *name, const struct zd_build_opts *o,
            struct zd_debout *out, struct zd_error *err)
{
	struct fed f = { NULL, o, what, out->path };
	struct zd_sink sink = { fed_write, &f, NULL, NULL };
	uint64_t tar_size, built, in_size, off, size;
	int rc = -1;

	/* the tar's size first, from the tree's metadata: the indexed
	 * layout's cuts are balanced over it (zseg-cut.h) */
	if (fn(dir, to, NULL, &tar_size, err) < 0)
		return -1;
	if (tar_size > INT64_MAX)
		return zd_err(err, ZD_E_LIMIT, "%s too large", what);
	if (zd_deb_write_begin(out, err) < 0)
		return -1;
	f.e = zd_deb_encoder_new(cp, out->fd, (int64_t)tar_size, err);
	if (f.e == NULL) {
		zd_err_prefix(err, "cannot compress %s", what);
		return -1;
	}
	if (o->progress != NULL)
		zd_deb_encoder_on_progress(f.e, fed_progress, &f);
	report(o, what, 0);
	if (fn(dir, to, &sink, &built, err) < 0)
		goto out;
	if (built != tar_size) {
		zd_err(err, ZD_E_IO, "'%s' changed while being archived "
		       "(%s: %ju bytes, %ju before)", dir, what,
		       (uintmax_t)built, (uintmax_t)tar_size);
		goto out;
	}
	if (zd_deb_encoder_finish(f.e, &off, &size, &in_size, err) < 0) {
		zd_err_prefix(err, "cannot write %s for '%s'", what, out->path);
		goto out;
	}
	if (zd_deb_write_end(out, name, off, size, err) < 0)
		goto out;
	report(o, what, in_size);
	rc = 0;
out:
	zd_deb_encoder_free(f.e);
	return rc;
}

static int
member_name(char *buf, size_t size, const char *base,
            const struct zd_comp_params *cp, struct zd_error *err)
{
	const struct zd_codec *c = zd_codec_get(cp->type);

	if (c == NULL || c->compress == NULL)
		return zd_err(err, ZD_E_UNSUPPORTED, "cannot compress with "
		              "this compressor");
	snprintf(buf, size, "%s%s", base, c->ext);
	return 0;
}

/* The control.tar members zdeb build generates (o->gen_*). */
struct gen {
	struct zd_tar_member m[2];	/* sorted: ./control, ./md5sums */
	size_t n;
	char *control;
	char *md5sums;
};

/* Reads a small file whole; *buf malloc'd. */
static int
slurp(const char *path, char **buf, size_t *len, struct stat *st,
      struct zd_error *err)
{
	ssize_t got;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return zd_err_errno(err, ZD_E_IO, "cannot open '%s'", path);
	if (fstat(fd, st) < 0) {
		zd_err_errno(err, ZD_E_IO, "cannot stat '%s'", path);
		goto fail;
	}
	if (st->st_size > 16 * 1024 * 1024) {
		zd_err(err, ZD_E_LIMIT, "'%s' is larger than 16 MiB", path);
		goto fail;
	}
	*buf = malloc((size_t)st->st_size + 1);
	if (*buf == NULL) {
		zd_err(err, ZD_E_NOMEM, "out of memory");
		goto fail;
	}
	got = zd_read_full(fd, *buf, (size_t)st->st_size, err);
	if (got < 0) {
		zd_err_prefix(err, "cannot read '%s'", path);
		free(*buf);
		*buf = NULL;
		goto fail;
	}
	*len = (size_t)got;
	close(fd);
	return 0;
fail:
	close(fd);
	return -1;
}

static int
gen_installed_size(const char *dir, struct gen *g, struct zd_error *err)
{
	struct zd_control ctl = { 0 };
	struct stat st;
	char *path, *text = NULL;
	size_t len = 0, outlen;
	uint64_t kib;
	int rc = -1;

	path = xasprintf(err, "%s/DEBIAN/control", dir);
	if (path == NULL)
		return -1;
	if (slurp(path, &text, &len, &st, err) < 0)
		goto out;
	if (zd_dpkg_control_parse(text, len, "DEBIAN/control", &ctl, err) < 0)
		goto out;
	if (zd_dpkg_control_get(&ctl, "Installed-Size") != NULL) {
		rc = 0;
		goto out;
	}
	if (zd_dpkg_instsize_tree(dir, &kib, err) < 0 ||
	    zd_dpkg_instsize_control_add(text, len, kib, &g->control, &outlen,
	                            err) < 0)
		goto out;
	g->m[g->n++] = (struct zd_tar_member){
		.name = "./control", .data = g->control, .size = outlen,
		.mode = st.st_mode & 07777, .mtime = st.st_mtime,
	};
	rc = 0;
out:
	zd_dpkg_control_free(&ctl);
	free(text);
	free(path);
	return rc;
}

static int
gen_md5sums(const char *dir, int64_t mtime, struct gen *g,
            struct zd_error *err)
{
	struct stat st;
	char *path;
	size_t len;
	int present;

	path = xasprintf(err, "%s/DEBIAN/md5sums", dir);
	if (path == NULL)
		return -1;
	present = lstat(path, &st) == 0;
	free(path);
	if (present)
		return 0;
	if (zd_dpkg_md5sums_tree(dir, &g->md5sums, &len, err) < 0)
		return -1;
	if (len > 0)
		g->m[g->n++] = (struct zd_tar_member){
			.name = "./md5sums", .data = g->md5sums, .size = len,
			.mode = 0644, .mtime = mtime,
		};
	return 0;
}

int
zd_deb_build(const char *dir, const char *out_path,
             const struct zd_build_opts *o, struct zd_error *err)
{
	struct zd_tar_opts to = { 0 };
	struct zd_debout out = { .fd = -1 };
	struct gen g = { .n = 0 };
	struct zd_comp_params ctl = o->control;
	char control_name[ZD_AR_NAME_MAX + 2], data_name[ZD_AR_NAME_MAX + 2];
	int rc = -1;

	if (!o->control_frames)
		zd_deb_encoder_control_params(&o->control, &ctl);
	if (member_name(control_name, sizeof(control_name), "control.tar",
	                &o->control, err) < 0 ||
	    member_name(data_name, sizeof(data_name), "data.tar", &o->data,
	                err) < 0)
		return -1;
	to.clamp = true;
	to.clamp_mtime = o->timestamp;
	to.control_mode = true;
	to.root_owner_group = true;
	if ((o->gen_installed_size && gen_installed_size(dir, &g, err) < 0) ||
	    (o->gen_md5sums && gen_md5sums(dir, o->timestamp, &g, err) < 0))
		goto out;
	if (zd_deb_write_open(&out, out_path,
	                   o->timestamp < 0 ? 0 : (uint64_t)o->timestamp,
	                   o->durable, err) < 0)
		goto out;
	to.extra = g.m;
	to.n_extra = g.n;
	if (make_member(dir, zd_tar_build_control, &to, &ctl,
	                "control.tar", control_name, o, &out, err) < 0)
		goto out;
	to.extra = NULL;
	to.n_extra = 0;
	to.control_mode = false;
	to.root_owner_group = o->root_owner_group;
	if (make_member(dir, zd_tar_build_data, &to, &o->data, "data.tar",
	                data_name, o, &out, err) < 0)
		goto out;
	rc = zd_deb_write_commit(&out, err);
out:
	zd_deb_write_abort(&out);
	free(g.control);
	free(g.md5sums);
	return rc;
}
