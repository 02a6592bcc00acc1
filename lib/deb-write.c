/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * deb-write.c - a .deb written in place (see deb-write.h)
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/ar.h"
#include "lib/deb-write.h"
#include "lib/fdio.h"

static mode_t
current_umask(void)
{
	mode_t m = umask(022);

	umask(m);
	return m;
}

/* The temporary file: beside the output (lib/fdio.h's zd_outfile), or
 * for a device in TMPDIR. */
static int
open_temp(struct zd_debout *d, struct zd_error *err)
{
	const char *dir = getenv("TMPDIR");
	size_t n;

	if (!d->device) {
		if (zd_outfile_open(&d->out, d->target, 0644, err) < 0)
			return -1;
		d->fd = d->out.fd;
		d->tmp_path = d->out.tmp;
		return 0;
	}
	if (dir == NULL || *dir == '\0')
		dir = "/tmp";
	n = strlen(dir) + 1 + sizeof(".zdeb-XXXXXX");
	d->tmp_path = malloc(n);
	if (d->tmp_path == NULL)
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	snprintf(d->tmp_path, n, "%s/.zdeb-XXXXXX", dir);
	d->fd = mkostemp(d->tmp_path, O_CLOEXEC);
	if (d->fd < 0) {
		zd_err_errno(err, ZD_E_IO, "cannot create '%s'", d->tmp_path);
		free(d->tmp_path);
		d->tmp_path = NULL;
		return -1;
	}
	if (fchmod(d->fd, 0644 & ~current_umask()) < 0)
		return zd_err_errno(err, ZD_E_IO, "cannot chmod '%s'",
		                    d->tmp_path);
	return 0;
}

/*
 * Where the finished file is renamed to: through a symlink to an existing
 * file, as dpkg-deb writes through it (a rename over the link would
 * replace the link, /dev/stdout say); else path itself.
 */
static char *
final_path(const char *path)
{
	struct stat st;

	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
		char *r = realpath(path, NULL);

		if (r != NULL)
			return r;
	}
	return strdup(path);
}

int
zd_deb_write_open(struct zd_debout *d, const char *path, uint64_t mtime,
               bool durable, struct zd_error *err)
{
	static const char version[] = "2.0\n";
	static const struct zd_outfile none = ZD_OUTFILE_INIT;
	struct stat st;

	memset(d, 0, sizeof(*d));
	d->fd = -1;
	d->out = none;
	d->mtime = mtime;
	d->durable = durable;
	d->path = strdup(path);
	d->target = final_path(path);
	if (d->path == NULL || d->target == NULL)
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	d->device = stat(path, &st) == 0 && !S_ISREG(st.st_mode) &&
	            !S_ISDIR(st.st_mode);
	if (open_temp(d, err) < 0)
		return -1;
	if (zd_ar_write_magic(d->fd, err) < 0 ||
	    zd_ar_write_member_buf(d->fd, "debian-binary", mtime, version,
	                           sizeof(version) - 1, err) < 0) {
		zd_err_prefix(err, "cannot write '%s'", d->path);
		return -1;
	}
	return 0;
}

int
zd_deb_write_begin(struct zd_debout *d, struct zd_error *err)
{
	if (zd_ar_begin_member(d->fd, &d->hdr_off, err) < 0) {
		zd_err_prefix(err, "cannot write '%s'", d->path);
		return -1;
	}
	return 0;
}

int
zd_deb_write_end(struct zd_debout *d, const char *name, uint64_t off,
              uint64_t size, struct zd_error *err)
{
	if (off != d->hdr_off + ZD_AR_HDR_LEN)
		return zd_err(err, ZD_E_INTERNAL, "member '%s' of '%s' starts "
		              "at %ju, not right after its header", name,
		              d->path, (uintmax_t)off);
	if (zd_ar_end_member(d->fd, d->hdr_off, name, d->mtime, size,
	                     err) < 0) {
		zd_err_prefix(err, "cannot write '%s'", d->path);
		return -1;
	}
	return 0;
}

/* The finished package into the device (or FIFO) at d->path. */
static int
copy_out(struct zd_debout *d, struct zd_error *err)
{
	struct zd_region r = { d->fd, 0, 0 };
	struct stat st;
	struct zd_sink sink;
	int out, rc;

	if (fstat(d->fd, &st) < 0)
		return zd_err_errno(err, ZD_E_IO, "cannot stat '%s'",
		                    d->tmp_path);
	r.len = (uint64_t)st.st_size;
	out = open(d->path, O_WRONLY | O_CLOEXEC);
	if (out < 0)
		return zd_err_errno(err, ZD_E_IO, "cannot open '%s'", d->path);
	sink.write = zd_sink_fd_write;
	sink.ctx = &out;
	sink.pwrite = NULL;
	sink.trywrite = NULL;
	rc = zd_copy_region(&r, &sink, err);
	if (close(out) < 0 && rc == 0)
		rc = zd_err_errno(err, ZD_E_IO, "cannot write '%s'", d->path);
	if (rc < 0)
		zd_err_prefix(err, "cannot write '%s'", d->path);
	return rc;
}

int
zd_deb_write_commit(struct zd_debout *d, struct zd_error *err)
{
	int fd = d->fd;

	if (d->device) {
		if (copy_out(d, err) < 0)
			return -1;
		unlink(d->tmp_path);
		free(d->tmp_path);
		d->tmp_path = NULL;
		close(fd);
		d->fd = -1;
		return 0;
	}
	if (zd_outfile_commit(&d->out, d->target, d->durable, err) < 0) {
		d->tmp_path = d->out.tmp;
		return -1;
	}
	d->fd = -1;
	d->tmp_path = NULL;
	return 0;
}

void
zd_deb_write_abort(struct zd_debout *d)
{
	int saved = errno;

	if (!d->device) {
		zd_outfile_abort(&d->out);
	} else {
		if (d->fd >= 0)
			close(d->fd);
		if (d->tmp_path != NULL)
			unlink(d->tmp_path);
		free(d->tmp_path);
	}
	free(d->path);
	free(d->target);
	memset(d, 0, sizeof(*d));
	d->fd = -1;
	d->out.fd = -1;
	errno = saved;
}
