/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * deb.c - the .deb layout: debian-binary, control.tar.*, data.tar.*
 *
 * The member walk is dpkg-deb's extracthalf() (src/deb/extract.c, 1.21.22)
 * made on a seekable file: the same checks in the same order, each failure
 * reported in our words (err) and in dpkg-deb's (deb->dpkg_msg).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/deb.h"

#define DEBMAGIC "debian-binary"
#define ADMINMEMBER "control.tar"
#define DATAMEMBER "data.tar"
#define OLDMAGIC "0.93"

/* How much of debian-binary we look at: the version "MAJOR.MINOR\n" of two
 * INT_MAX numbers is at most 22 bytes, so the rest cannot change the
 * outcome except in pathological cases. */
#define DEBMAGIC_READ_MAX 4096

static void __attribute__((format(printf, 2, 3)))
dpkg_msg(struct zd_deb *deb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(deb->dpkg_msg, sizeof(deb->dpkg_msg), fmt, ap);
	va_end(ap);
}

/* Copies stdin (or a pipe) into an unlinked temporary file. */
static int
spool(int in_fd, const char *path, struct zd_error *err)
{
	enum { CHUNK = 1 << 17 };
	unsigned char *buf;
	int fd;

	fd = zd_tmpfile(err);
	if (fd < 0)
		return -1;
	buf = malloc(CHUNK);
	if (buf == NULL) {
		close(fd);
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	}
	for (;;) {
		ssize_t n = zd_read_full(in_fd, buf, CHUNK, err);

		if (n < 0) {
			zd_err_prefix(err, "cannot read '%s'", path);
			goto fail;
		}
		if (n == 0)
			break;
		if (zd_write_all(fd, buf, (size_t)n, err) < 0) {
			zd_err_prefix(err, "cannot spool '%s' to a temporary "
			              "file", path);
			goto fail;
		}
	}
	free(buf);
	return fd;
fail:
	free(buf);
	close(fd);
	return -1;
}

const char *
zd_deb_version_parse(const char *str, unsigned *major, unsigned *minor)
{
	const unsigned divlimit = INT32_MAX / 10;
	const unsigned modlimit = INT32_MAX % 10;
	const char *end, *str_minor;
	unsigned ma = 0, mi = 0;

	for (end = str; *end >= '0' && *end <= '9'; end++) {
		unsigned ord = (unsigned)(*end - '0');

		if (ma > divlimit || (ma == divlimit && ord > modlimit))
			return "format version with too big major component";
		ma = ma * 10 + ord;
	}
	if (end == str)
		return "format version with empty major component";
	if (*end != '.')
		return "format version has no dot";
	for (end = str_minor = end + 1; *end >= '0' && *end <= '9'; end++) {
		unsigned ord = (unsigned)(*end - '0');

		if (mi > divlimit || (mi == divlimit && ord > modlimit))
			return "format version with too big minor component";
		mi = mi * 10 + ord;
	}
	if (end == str_minor)
		return "format version with empty minor component";
	if (*end != '\n' && *end != '\0')
		return "format version followed by junk";
	*major = ma;
	*minor = mi;
	return NULL;
}

/*
 * A member whose compression dpkg-deb does not accept: unknown (codec
 * NULL), or known but not allowed for the control member.
 */
static int
unknown_compression(struct zd_deb *deb, const char *path,
                    const struct zd_ar_member *m, const struct zd_codec *codec,
                    struct zd_error *err)
{
	dpkg_msg(deb, "archive '%s' uses unknown compression for member "
	         "'%s', giving up", path, m->name);
	if (codec == NULL)
		return zd_err(err, ZD_E_FORMAT, "'%s': unknown compression for "
		              "member '%s'", path, m->name);
	return zd_err(err, ZD_E_UNSUPPORTED, "'%s': compression '%s' of member "
	              "'%s' is not allowed for the control member", path,
	              codec->name, m->name);
}

/*
 * Checks a format version line (debian-binary's, or an old-format
 * header's) and sets deb->major/minor.  what names it in messages.
 */
static int
check_version_line(struct zd_deb *deb, const char *line, const char *what,
                   const char *path, struct zd_error *err)
{
	const char *why;

	if (strchr(line, '\n') == NULL) {
		dpkg_msg(deb, "archive has no newlines in header");
		return zd_err(err, ZD_E_FORMAT, "'%s': %s has no newline",
		              path, what);
	}
	why = zd_deb_version_parse(line, &deb->major, &deb->minor);
	if (why != NULL) {
		dpkg_msg(deb, "archive has invalid format version: %s", why);
		return zd_err(err, ZD_E_FORMAT, "'%s': %s: invalid format "
		              "version: %s", path, what, why);
	}
	return 0;
}

/* Keeps the first line of s (NUL-terminated) in dst. */
static void
first_line(char *dst, size_t size, const char *s)
{
	size_t n = strcspn(s, "\n");

	if (n >= size)
		n = size - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
}

/* The old "0.939000\n<ctrllen>\n" format: detected, not supported. */
static int
old_format(const char *path, struct zd_deb *deb, const char *head,
           struct zd_error *err)
{
	first_line(deb->format, sizeof(deb->format), head);
	first_line(deb->version_line, sizeof(deb->version_line), head);
	deb->old_format = true;
	if (check_version_line(deb, head, "old-format header", path,
	                       err) < 0)
		return -1;
	return zd_err(err, ZD_E_UNSUPPORTED, "'%s': old-format (%s) packages "
	              "are not supported", path, deb->format);
}

/*
 * The dpkg-deb message for a header it rejects (only the bad trailer and a
 * bad size character; dpkg ignores the other fields).  Returns false when
 * dpkg would accept the header.
 */
static bool
dpkg_header_msg(struct zd_deb *deb, const char *path,
                const unsigned char hdr[ZD_AR_HDR_LEN])
{
	const unsigned char *s = hdr + 48;
	char name[17];
	int i, len = 10;

	if (memcmp(hdr + 58, "`\n", 2) != 0) {
		dpkg_msg(deb, "file '%.250s' is corrupt - bad archive header "
		         "magic", path);
		return true;
	}
	memcpy(name, hdr, 16);
	name[16] = '\0';
	for (i = 15; i >= 0 && name[i] == ' '; i--)
		name[i] = '\0';
	if (i >= 0 && name[i] == '/')
		name[i] = '\0';
	while (len && *s == ' ')
		s++, len--;
	while (len--) {
		if (*s == ' ')
			break;
		if (*s < '0' || *s > '9') {
			dpkg_msg(deb, "invalid character '%c' in archive "
			         "'%.250s' member '%.16s' size", *s, path,
			         name);
			return true;
		}
		s++;
	}
	return false;
}

/* Checks that member m lies inside the file. */
static int
check_inside(const char *path, struct zd_deb *deb,
             const struct zd_ar_member *m, const char *dpkg_what,
             struct zd_error *err)
{
	uint64_t end;

	if (!__builtin_add_overflow(m->data_off, m->size, &end) &&
	    end <= deb->file_size)
		return 0;
	if (dpkg_what != NULL)
		dpkg_msg(deb, "unexpected end of file in %s in %.255s",
		         dpkg_what, path);
	else
		dpkg_msg(deb, "cannot copy archive member from '%s' to "
		         "decompressor pipe: unexpected end of file or stream",
		         path);
	return zd_err(err, ZD_E_FORMAT, "'%s': ar member '%s' at offset "
	              "%" PRIu64 ": size %" PRIu64 " runs past the end of the "
	              "file (%" PRIu64 " bytes)", path, m->name, m->hdr_off,
	              m->size, deb->file_size);
}

static void
set_member(struct zd_deb_member *dm, const struct zd_deb *deb,
           const struct zd_ar_member *m, const struct zd_codec *codec)
{
	memcpy(dm->name, m->name, sizeof(dm->name));
	dm->region.fd = deb->fd;
	dm->region.off = m->data_off;
	dm->region.len = m->size;
	dm->codec = codec;
	dm->hdr_off = m->hdr_off;
}

static int
read_debian_binary(const char *path, struct zd_deb *deb,
                   const struct zd_ar_member *m, struct zd_error *err)
{
	char buf[DEBMAGIC_READ_MAX + 1];
	size_t n = m->size > DEBMAGIC_READ_MAX ? DEBMAGIC_READ_MAX :
	           (size_t)m->size;

	if (check_inside(path, deb, m, "archive information header member",
	                 err) < 0)
		return -1;
	if (zd_pread_all(deb->fd, buf, n, m->data_off, err) < 0) {
		zd_err_prefix(err, "'%s': cannot read member 'debian-binary'",
		              path);
		dpkg_msg(deb, "error reading archive information header "
		         "member from file %.255s: %s", path, err->msg);
		return -1;
	}
	buf[n] = '\0';
	first_line(deb->version_line, sizeof(deb->version_line), buf);
	if (check_version_line(deb, buf, "member 'debian-binary'", path,
	                       err) < 0)
		return -1;
	snprintf(deb->format, sizeof(deb->format), "%u.%u", deb->major,
	         deb->minor);
	if (deb->major != 2) {
		dpkg_msg(deb, "archive is format version %u.%u; get a newer "
		         "dpkg-deb", deb->major, deb->minor);
		return zd_err(err, ZD_E_UNSUPPORTED, "'%s': format version "
		              "%u.%u is not supported (only 2.x)", path,
		              deb->major, deb->minor);
	}
	return 0;
}

/* Codec of "control.tar.EXT" / "data.tar.EXT"; NULL if unknown. */
static const struct zd_codec *
member_codec(const char *name, const char *prefix)
{
	return zd_codec_find_by_ext(name + strlen(prefix));
}

/* After data.tar: walk the rest into members[], checking nothing. */
static void
walk_trailer(struct zd_deb *deb, uint64_t off)
{
	for (;;) {
		struct zd_error e = ZD_ERROR_INIT;
		struct zd_ar_member m;
		int rc = zd_ar_next(deb->fd, deb->file_size, &off, &m, &e);

		if (rc == 0)
			return;
		if (rc < 0) {
			deb->trailing_garbage = true;
			return;
		}
		if (deb->n_members < ZD_DEB_MAX_MEMBERS)
			deb->members[deb->n_members++] = m;
	}
}

static int
walk(const char *path, unsigned flags, struct zd_deb *deb,
     struct zd_error *err)
{
	bool header_done = false;
	bool have_control = false;
	uint64_t off = ZD_AR_MAGIC_LEN;

	for (;;) {
		unsigned char hdr[ZD_AR_HDR_LEN];
		struct zd_ar_member m;
		const struct zd_codec *codec;

		if (off >= deb->file_size) {
			dpkg_msg(deb, "unexpected end of file in archive member "
			         "header in %.255s", path);
			return zd_err(err, ZD_E_FORMAT, "'%s': missing member "
			              "'%s'", path, !header_done ? DEBMAGIC :
			              !have_control ? ADMINMEMBER : DATAMEMBER);
		}
		if (deb->file_size - off < ZD_AR_HDR_LEN) {
			dpkg_msg(deb, "unexpected end of file in archive member "
			         "header in %.255s", path);
			return zd_err(err, ZD_E_FORMAT, "'%s': truncated ar "
			              "member header at offset %" PRIu64 " (%"
			              PRIu64 " bytes left)", path, off,
			              deb->file_size - off);
		}
		if (zd_pread_all(deb->fd, hdr, sizeof(hdr), off, err) < 0) {
			zd_err_prefix(err, "'%s'", path);
			dpkg_msg(deb, "error reading archive member header from "
			         "file %.255s: %s", path, err->msg);
			return -1;
		}
		if (zd_ar_parse_header(hdr, off, &m, err) < 0) {
			zd_err_prefix(err, "'%s'", path);
			/* A header only we reject fails dpkg-deb later, on a
			 * name it does not expect: say that much. */
			if (!dpkg_header_msg(deb, path, hdr))
				dpkg_msg(deb, "%s", err->msg);
			return -1;
		}
		if (deb->n_members < ZD_DEB_MAX_MEMBERS)
			deb->members[deb->n_members++] = m;
		/* Next header: after the data and the padding byte. */
		if (__builtin_add_overflow(m.data_off, m.size, &off) ||
		    __builtin_add_overflow(off, m.size & 1, &off))
			off = UINT64_MAX;

		if (!header_done) {
			if (strcmp(m.name, DEBMAGIC) != 0) {
				dpkg_msg(deb, "file '%.250s' is not a Debian "
				         "binary archive (try dpkg-split?)",
				         path);
				return zd_err(err, ZD_E_FORMAT, "'%s': not a "
				              "Debian binary package: first "
				              "member is '%s', not '%s' (try "
				              "dpkg-split?)", path, m.name,
				              DEBMAGIC);
			}
			if (read_debian_binary(path, deb, &m, err) < 0)
				return -1;
			header_done = true;
		} else if (m.name[0] == '_') {
			/* Noncritical members: skipped, as dpkg does. */
			if (check_inside(path, deb, &m, "archive member header",
			                 err) < 0)
				return -1;
		} else if (strncmp(m.name, ADMINMEMBER,
		                   strlen(ADMINMEMBER)) == 0) {
			codec = member_codec(m.name, ADMINMEMBER);
			if (codec == NULL) {
				return unknown_compression(deb, path, &m,
				                           NULL, err);
			}
			if (codec->type != ZD_COMP_NONE &&
			    codec->type != ZD_COMP_GZIP &&
			    codec->type != ZD_COMP_XZ &&
			    codec->type != ZD_COMP_ZSTD) {
				return unknown_compression(deb, path, &m,
				                           codec, err);
			}
			if (have_control) {
				dpkg_msg(deb, "archive '%.250s' contains two "
				         "control members, giving up", path);
				return zd_err(err, ZD_E_FORMAT, "'%s': second "
				              "control member '%s' at offset %"
				              PRIu64, path, m.name, m.hdr_off);
			}
			have_control = true;
			set_member(&deb->control, deb, &m, codec);
			if (flags & ZD_DEB_CONTROL_ONLY)
				return check_inside(path, deb, &m, NULL, err);
			/* dpkg-deb seeks past it and then meets the end of
			 * the file where it expects the next header. */
			if (check_inside(path, deb, &m, "archive member "
			                 "header", err) < 0)
				return -1;
		} else if (!have_control) {
			dpkg_msg(deb, "archive '%s' has premature member '%s' "
			         "before '%s', giving up", path, m.name,
			         ADMINMEMBER);
			return zd_err(err, ZD_E_FORMAT, "'%s': member '%s' "
			              "before '%s'", path, m.name,
			              ADMINMEMBER);
		} else if (strncmp(m.name, DATAMEMBER,
		                   strlen(DATAMEMBER)) == 0) {
			codec = member_codec(m.name, DATAMEMBER);
			if (codec == NULL) {
				return unknown_compression(deb, path, &m,
				                           NULL, err);
			}
			if (check_inside(path, deb, &m, NULL, err) < 0)
				return -1;
			set_member(&deb->data, deb, &m, codec);
			if (off <= deb->file_size)
				walk_trailer(deb, off);
			return 0;
		} else {
			dpkg_msg(deb, "archive '%s' has premature member '%s' "
			         "before '%s', giving up", path, m.name,
			         DATAMEMBER);
			return zd_err(err, ZD_E_FORMAT, "'%s': member '%s' "
			              "between '%s' and '%s'", path, m.name,
			              deb->control.name, DATAMEMBER);
		}
	}
}

static int
open_fd(const char *path, struct zd_deb *deb, struct zd_error *err)
{
	struct stat st;
	int fd;

	if (strcmp(path, "-") == 0) {
		fd = spool(STDIN_FILENO, path, err);
		if (fd < 0)
			return -1;
	} else {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			zd_err_errno(err, ZD_E_IO, "cannot open '%s'", path);
			dpkg_msg(deb, "failed to read archive '%.255s': %s",
			         path, strerror(err->sys_errno));
			return -1;
		}
		if (fstat(fd, &st) < 0) {
			zd_err_errno(err, ZD_E_IO, "cannot stat '%s'", path);
			dpkg_msg(deb, "failed to fstat archive: %s",
			         strerror(err->sys_errno));
			close(fd);
			return -1;
		}
		if (!S_ISREG(st.st_mode)) {
			int tmp = spool(fd, path, err);

			close(fd);
			if (tmp < 0)
				return -1;
			fd = tmp;
		}
	}
	deb->fd = fd;
	deb->own_fd = true;
	if (zd_fd_size(fd, &deb->file_size, err) < 0) {
		zd_err_prefix(err, "'%s'", path);
		return -1;
	}
	return 0;
}

int
zd_deb_open_flags(const char *path, unsigned flags, struct zd_deb *deb,
                  struct zd_error *err)
{
	char head[40];	/* dpkg-deb's versionbuf */
	size_t n;

	memset(deb, 0, sizeof(*deb));
	deb->fd = -1;
	if (open_fd(path, deb, err) < 0)
		goto fail;

	n = deb->file_size < sizeof(head) - 1 ? (size_t)deb->file_size :
	    sizeof(head) - 1;
	if (zd_pread_all(deb->fd, head, n, 0, err) < 0) {
		zd_err_prefix(err, "'%s'", path);
		dpkg_msg(deb, "error reading archive magic version number "
		         "from file %.255s: %s", path, err->msg);
		goto fail;
	}
	head[n] = '\0';
	if (n >= ZD_AR_MAGIC_LEN &&
	    memcmp(head, ZD_AR_MAGIC, ZD_AR_MAGIC_LEN) == 0) {
		if (walk(path, flags, deb, err) < 0)
			goto fail;
		deb->dpkg_msg[0] = '\0';
		return 0;
	}
	/* dpkg-deb reads a line of at most 39 bytes: without its newline
	 * the file ended too early. */
	if (memchr(head, '\n', n) == NULL && n < sizeof(head) - 1) {
		dpkg_msg(deb, "unexpected end of file in archive magic version "
		         "number in %.255s", path);
		zd_err(err, ZD_E_FORMAT, "'%s': not a Debian package (%s)",
		       path, n == 0 ? "empty file" : "bad ar magic");
		goto fail;
	}
	if (strncmp(head, OLDMAGIC, strlen(OLDMAGIC)) == 0) {
		old_format(path, deb, head, err);
		goto fail;
	}
	dpkg_msg(deb, "'%.255s' is not a Debian format archive", path);
	zd_err(err, ZD_E_FORMAT, "'%s': not a Debian package (bad ar magic)",
	       path);
fail:
	zd_deb_close(deb);
	return -1;
}

int
zd_deb_open(const char *path, struct zd_deb *deb, struct zd_error *err)
{
	return zd_deb_open_flags(path, 0, deb, err);
}

void
zd_deb_close(struct zd_deb *deb)
{
	int saved = errno;

	if (deb == NULL)
		return;
	if (deb->own_fd && deb->fd >= 0)
		close(deb->fd);
	deb->fd = -1;
	deb->own_fd = false;
	memset(&deb->control, 0, sizeof(deb->control));
	memset(&deb->data, 0, sizeof(deb->data));
	deb->control.region.fd = -1;
	deb->data.region.fd = -1;
	deb->n_members = 0;
	errno = saved;
}
