/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tar-build.c - control.tar and data.tar, byte-identical to dpkg-deb's
 *
 * What GNU tar 1.34 does for each name dpkg-deb feeds it (src/create.c,
 * dump_file0), and so what we do: lstat() the name; a directory gets a
 * trailing '/'; a non-directory whose device and inode were already
 * archived as a regular file or symlink becomes a hard link ('1') to the
 * first name; a socket is skipped with a warning; everything else gets one
 * header, regular files their st_size bytes of data.  The headers come
 * from lib/tar-header.c, not libarchive (see there why).  libarchive's gnutar
 * writer is used nowhere in this module.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "lib/fdio.h"
#include "lib/inoset.h"
#include "lib/tar-build.h"
#include "lib/tar-header.h"
#include "lib/tar-walk.h"

#define OUTBUF_SIZE (16 * ZD_TAR_RECORD)

struct idname {
	bool valid;
	unsigned id;
	char name[64];	/* only 31 bytes reach the header */
};

struct tarbuild {
	const struct zd_tar_opts *o;
	bool control;		/* --mode u+rw,go=rX */
	bool root_owner;	/* --owner root:0 --group root:0 */
	const struct zd_sink *out;	/* NULL: the size only */
	unsigned char *buf;	/* OUTBUF_SIZE */
	size_t used;
	uint64_t total;
	/* inodes archived as a regular file or symlink, with its name */
	struct zd_inoset links;
	struct idname user;	/* last uid looked up */
	struct idname group;
	char root_uname[64];	/* names of uid 0 and gid 0 (LongLink) */
	char root_gname[64];
	char *target;		/* readlink() buffer */
	size_t target_cap;
	const struct zd_tar_member *extra;	/* o->extra, or NULL */
	size_t n_extra;
	size_t next_extra;	/* first one not yet written */
};

static int
flush(struct tarbuild *tb, struct zd_error *err)
{
	if (tb->used == 0 || tb->out == NULL)
		return 0;
	if (tb->out->write(tb->out->ctx, tb->buf, tb->used, err) < 0)
		return -1;	/* the sink says what it could not write */
	tb->used = 0;
	return 0;
}

static int
out(struct tarbuild *tb, const void *p, size_t len, struct zd_error *err)
{
	const unsigned char *s = p;

	if (tb->out == NULL) {
		tb->total += len;
		return 0;
	}
	while (len > 0) {
		size_t n = OUTBUF_SIZE - tb->used;

		if (n > len)
			n = len;
		if (s != NULL) {
			memcpy(tb->buf + tb->used, s, n);
			s += n;
		} else {
			memset(tb->buf + tb->used, 0, n);
		}
		tb->used += n;
		tb->total += n;
		len -= n;
		if (tb->used == OUTBUF_SIZE && flush(tb, err) < 0)
			return -1;
	}
	return 0;
}

static int
out_zero(struct tarbuild *tb, size_t len, struct zd_error *err)
{
	return out(tb, NULL, len, err);
}

/* Zeroes up to the next block boundary. */
static int
out_pad(struct tarbuild *tb, struct zd_error *err)
{
	size_t rem = (size_t)(tb->total % ZD_TAR_BLOCK);

	return rem ? out_zero(tb, ZD_TAR_BLOCK - rem, err) : 0;
}

/* getpwuid()/getgrgid() name, or "" as GNU tar when there is none. */
static void
lookup_name(bool group, unsigned id, char *dst, size_t dstsize)
{
	size_t cap = 4096;
	char *buf = NULL;

	dst[0] = '\0';
	for (;;) {
		char *nbuf = realloc(buf, cap);
		struct passwd pw, *pwp = NULL;
		struct group gr, *grp = NULL;
		const char *name = NULL;
		int rc;

		if (nbuf == NULL)
			break;
		buf = nbuf;
		if (group) {
			rc = getgrgid_r((gid_t)id, &gr, buf, cap, &grp);
			if (rc == 0 && grp != NULL)
				name = grp->gr_name;
		} else {
			rc = getpwuid_r((uid_t)id, &pw, buf, cap, &pwp);
			if (rc == 0 && pwp != NULL)
				name = pwp->pw_name;
		}
		if (rc == ERANGE && cap < (1u << 20)) {
			cap *= 2;
			continue;
		}
		if (name != NULL) {
			strncpy(dst, name, dstsize - 1);
			dst[dstsize - 1] = '\0';
		}
		break;
	}
	free(buf);
}

static const char *
id_name(struct idname *c, bool group, unsigned id)
{
	if (!c->valid || c->id != id) {
		lookup_name(group, id, c->name, sizeof(c->name));
		c->valid = true;
		c->id = id;
	}
	return c->name;
}

/*
 * gnulib mode_adjust() for GNU tar's --mode u+rw,go=rX: "go=" clears the
 * setgid and sticky bits, except that a directory keeps its set-id bits
 * when the change does not name them; X gives execute to directories and
 * to files with any execute bit.
 */
static uint32_t
control_mode(uint32_t mode, bool dir)
{
	const uint32_t keep = dir ? 06000 : 0;

	mode |= 0600;
	return (mode & (~(uint32_t)03077 | keep)) | 044 |
	       (dir || (mode & 0111) ? 011 : 0);
}

static void
fill_common(struct tarbuild *tb, const struct stat *st, struct zd_tarhdr *h)
{
	const struct zd_tar_opts *o = tb->o;

	memset(h, 0, sizeof(*h));
	h->mode = st->st_mode & 07777;
	if (tb->control)
		h->mode = control_mode(h->mode, S_ISDIR(st->st_mode));
	if (tb->root_owner) {
		h->uid = 0;
		h->gid = 0;
		h->uname = "root";
		h->gname = "root";
	} else {
		h->uid = st->st_uid;
		h->gid = st->st_gid;
		h->uname = id_name(&tb->user, false, st->st_uid);
		h->gname = id_name(&tb->group, true, st->st_gid);
	}
	h->mtime = st->st_mtime;
	/* --clamp-mtime compares timespecs; the header keeps seconds. */
	if (o->clamp && h->mtime > o->clamp_mtime)
		h->mtime = o->clamp_mtime;
}

static int
write_longlink(struct tarbuild *tb, char type, const char *str,
               struct zd_error *err)
{
	unsigned char blk[ZD_TAR_BLOCK];
	const size_t len = strlen(str);

	zd_tar_header_longlink(type, len, tb->root_uname, tb->root_gname, blk);
	if (out(tb, blk, sizeof(blk), err) < 0 ||
	    out(tb, str, len + 1, err) < 0)
		return -1;
	return out_pad(tb, err);
}

/* Writes the long-name records h needs, then its header. */
static int
write_header(struct tarbuild *tb, const struct zd_tarhdr *h,
             struct zd_error *err)
{
	unsigned char blk[ZD_TAR_BLOCK];

	if (h->linkname != NULL && strlen(h->linkname) > ZD_TAR_NAME_SIZE &&
	    write_longlink(tb, ZD_TAR_LONGLINK, h->linkname, err) < 0)
		return -1;
	if (strlen(h->name) > ZD_TAR_NAME_SIZE &&
	    write_longlink(tb, ZD_TAR_LONGNAME, h->name, err) < 0)
		return -1;
	if (!zd_tar_header_encode(h, blk))
		return zd_err(err, ZD_E_LIMIT, "value out of range in tar "
		              "header of '%s'", h->name);
	return out(tb, blk, sizeof(blk), err);
}

/* Remembers name for later links; an inode with one link has none. */
static int
link_add(struct tarbuild *tb, const struct stat *st, const char *name,
         struct zd_error *err)
{
	if (st->st_nlink < 2)
		return 0;
	return zd_inoset_add(&tb->links, st->st_dev, st->st_ino, name, err);
}

static int
changed(const char *path, struct zd_error *err)
{
	return zd_err(err, ZD_E_IO, "file '%s' changed as we read it", path);
}

static int
dump_regular(struct tarbuild *tb, const struct zd_treewalk_entry *e,
             struct stat *st, struct zd_error *err)
{
	struct zd_tarhdr h;
	struct stat fin;
	uint64_t left;
	int fd;
	int rc = -1;

	if (tb->out == NULL) {
		/* the size only: the header and st_size bytes, padded */
		fill_common(tb, st, &h);
		h.name = e->name;
		h.type = ZD_TAR_REG;
		h.size = (uint64_t)st->st_size;
		if (write_header(tb, &h, err) < 0 ||
		    out(tb, NULL, (size_t)h.size, err) < 0 ||
		    out_pad(tb, err) < 0)
			return -1;
		return link_add(tb, st, e->name, err);
	}
	fd = open(e->path, O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK |
	          O_CLOEXEC);
	if (fd < 0)
		return zd_err_errno(err, ZD_E_IO, "cannot open '%s'", e->path);
	if (fstat(fd, st) < 0) {
		zd_err_errno(err, ZD_E_IO, "cannot stat '%s'", e->path);
		goto out;
	}
	if (!S_ISREG(st->st_mode)) {
		changed(e->path, err);
		goto out;
	}
	fill_common(tb, st, &h);
	h.name = e->name;
	h.type = ZD_TAR_REG;
	h.size = (uint64_t)st->st_size;
	if (write_header(tb, &h, err) < 0)
		goto out;
	for (left = h.size; left > 0;) {
		size_t n = OUTBUF_SIZE - tb->used;
		ssize_t got;

		if (n > left)
			n = (size_t)left;
		got = zd_read_full(fd, tb->buf + tb->used, n, err);
		if (got < 0) {
			zd_err_prefix(err, "cannot read '%s'", e->path);
			goto out;
		}
		if ((size_t)got != n) {
			zd_err(err, ZD_E_IO, "file '%s' shrank by %ju bytes "
			       "while being read", e->path,
			       (uintmax_t)(left - (uint64_t)got));
			goto out;
		}
		tb->used += n;
		tb->total += n;
		left -= n;
		if (tb->used == OUTBUF_SIZE && flush(tb, err) < 0)
			goto out;
	}
	if (out_pad(tb, err) < 0)
		goto out;
	/* GNU tar fails (and so dpkg-deb) if ctime moved or the file grew. */
	if (fstat(fd, &fin) < 0) {
		zd_err_errno(err, ZD_E_IO, "cannot stat '%s'", e->path);
		goto out;
	}
	if (fin.st_size > st->st_size ||
	    fin.st_ctim.tv_sec != st->st_ctim.tv_sec ||
	    fin.st_ctim.tv_nsec != st->st_ctim.tv_nsec) {
		changed(e->path, err);
		goto out;
	}
	rc = link_add(tb, st, e->name, err);
out:
	if (fd >= 0) {
		int saved = errno;

		close(fd);
		errno = saved;
	}
	return rc;
}

static int
dump_symlink(struct tarbuild *tb, const struct zd_treewalk_entry *e,
             const struct stat *st, struct zd_error *err)
{
	struct zd_tarhdr h;
	size_t cap = (size_t)st->st_size + 1;

	for (;;) {
		ssize_t n;

		if (cap > tb->target_cap) {
			char *p = realloc(tb->target, cap);

			if (p == NULL)
				return zd_err(err, ZD_E_NOMEM, "out of memory");
			tb->target = p;
			tb->target_cap = cap;
		}
		n = readlink(e->path, tb->target, tb->target_cap);
		if (n < 0)
			return zd_err_errno(err, ZD_E_IO, "cannot read symlink "
			                    "'%s'", e->path);
		if ((size_t)n < tb->target_cap) {
			tb->target[n] = '\0';
			break;
		}
		cap = tb->target_cap * 2;
	}
	fill_common(tb, st, &h);
	h.name = e->name;
	h.linkname = tb->target;
	h.type = ZD_TAR_SYM;
	if (write_header(tb, &h, err) < 0)
		return -1;
	return link_add(tb, st, e->name, err);
}

/* Writes a member made in memory (zd_tar_opts.extra). */
static int
dump_extra(struct tarbuild *tb, const struct zd_tar_member *m,
           struct zd_error *err)
{
	struct zd_tarhdr h;
	struct stat st;

	memset(&st, 0, sizeof(st));
	st.st_mode = S_IFREG | (m->mode & 07777);
	st.st_mtime = (time_t)m->mtime;
	fill_common(tb, &st, &h);
	h.name = m->name;
	h.type = ZD_TAR_REG;
	h.size = (uint64_t)m->size;
	if (write_header(tb, &h, err) < 0 ||
	    out(tb, m->data, m->size, err) < 0)
		return -1;
	return out_pad(tb, err);
}

/*
 * Writes the extra members that sort before name, a name directly below
 * the root (NULL: all that are left).  Returns 1 when one of them has that
 * name (the file on disk is then skipped), 0, or -1 on error.
 */
static int
flush_extra(struct tarbuild *tb, const char *name, struct zd_error *err)
{
	while (tb->next_extra < tb->n_extra) {
		const struct zd_tar_member *m = &tb->extra[tb->next_extra];
		const int c = name != NULL ? strcmp(m->name, name) : -1;

		if (c > 0)
			return 0;
		if (dump_extra(tb, m, err) < 0)
			return -1;
		tb->next_extra++;
		if (c == 0)
			return 1;
	}
	return 0;
}

static int
entry(void *ctx, const struct zd_treewalk_entry *e, struct zd_error *err)
{
	struct tarbuild *tb = ctx;
	struct zd_tarhdr h;
	struct stat st;
	const char *linkname;

	if (tb->n_extra > 0 && strncmp(e->name, "./", 2) == 0 &&
	    e->name[2] != '\0' && strchr(e->name + 2, '/') == NULL) {
		const int r = flush_extra(tb, e->name, err);

		if (r != 0)
			return r < 0 ? -1 : 0;
	}
	if (lstat(e->path, &st) < 0)
		return zd_err_errno(err, ZD_E_IO, "cannot stat '%s'", e->path);
	if (S_ISDIR(st.st_mode)) {
		const size_t len = strlen(e->name);
		char *name;
		int rc;

		/* ensure_slash(): exactly one trailing slash. */
		name = malloc(len + 2);
		if (name == NULL)
			return zd_err(err, ZD_E_NOMEM, "out of memory");
		memcpy(name, e->name, len + 1);
		if (len == 0 || name[len - 1] != '/')
			memcpy(name + len, "/", 2);
		fill_common(tb, &st, &h);
		h.name = name;
		h.type = ZD_TAR_DIR;
		rc = write_header(tb, &h, err);
		free(name);
		return rc;
	}
	if (zd_inoset_find(&tb->links, st.st_dev, st.st_ino, &linkname)) {
		fill_common(tb, &st, &h);
		h.name = e->name;
		h.linkname = linkname;
		h.type = ZD_TAR_LNK;
		return write_header(tb, &h, err);
	}
	if (S_ISREG(st.st_mode))
		return dump_regular(tb, e, &st, err);
	if (S_ISLNK(st.st_mode))
		return dump_symlink(tb, e, &st, err);
	if (S_ISSOCK(st.st_mode)) {
		if (tb->out != NULL)
			zd_warnf(tb->o->warn, tb->o->warn_ctx,
			         "%s: socket ignored", e->name);
		return 0;
	}
	fill_common(tb, &st, &h);
	h.name = e->name;
	if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) {
		h.type = S_ISCHR(st.st_mode) ? ZD_TAR_CHR : ZD_TAR_BLK;
		h.has_dev = true;
		h.devmajor = major(st.st_rdev);
		h.devminor = minor(st.st_rdev);
	} else if (S_ISFIFO(st.st_mode)) {
		h.type = ZD_TAR_FIFO;
	} else {
		return zd_err(err, ZD_E_UNSUPPORTED, "'%s': unknown file type",
		              e->path);
	}
	return write_header(tb, &h, err);
}

static int
build(const char *root, unsigned flags, bool control, bool root_owner,
      const struct zd_tar_opts *o, bool extra, const struct zd_sink *out,
      uint64_t *size,
      struct zd_error *err)
{
	struct tarbuild *tb;
	int rc = -1;

	tb = calloc(1, sizeof(*tb));
	if (tb == NULL)
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	tb->buf = malloc(OUTBUF_SIZE);
	if (tb->buf == NULL) {
		zd_err(err, ZD_E_NOMEM, "out of memory");
		goto out;
	}
	tb->o = o;
	tb->control = control;
	tb->root_owner = root_owner;
	tb->out = out;
	lookup_name(false, 0, tb->root_uname, sizeof(tb->root_uname));
	lookup_name(true, 0, tb->root_gname, sizeof(tb->root_gname));
	if (o->nocheck)
		flags |= ZD_TREEWALK_NOCHECK;
	if (extra) {
		tb->extra = o->extra;
		tb->n_extra = o->n_extra;
	}
	if (zd_treewalk(root, flags, entry, tb, err) < 0 ||
	    flush_extra(tb, NULL, err) < 0)
		goto out;
	/* write_eot(): one zero block, then zeros through the record end. */
	if (out_zero(tb, ZD_TAR_BLOCK, err) < 0 ||
	    out_zero(tb, ZD_TAR_RECORD - tb->total % ZD_TAR_RECORD, err) < 0 ||
	    flush(tb, err) < 0)
		goto out;
	if (size != NULL)
		*size = tb->total;
	rc = 0;
out:
	zd_inoset_free(&tb->links);
	free(tb->target);
	free(tb->buf);
	free(tb);
	return rc;
}

int
zd_tar_build_data(const char *dir, const struct zd_tar_opts *o,
                 const struct zd_sink *out, uint64_t *size,
                 struct zd_error *err)
{
	return build(dir, ZD_TREEWALK_DATA, o->control_mode,
	             o->root_owner_group, o, false, out, size, err);
}

int
zd_tar_build_control(const char *dir, const struct zd_tar_opts *o,
                    const struct zd_sink *out, uint64_t *size,
                    struct zd_error *err)
{
	const size_t len = strlen(dir);
	char *ctrl = malloc(len + sizeof("/DEBIAN"));
	int rc;

	if (ctrl == NULL)
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	memcpy(ctrl, dir, len);
	memcpy(ctrl + len, "/DEBIAN", sizeof("/DEBIAN"));
	rc = build(ctrl, 0, true, true, o, true, out, size, err);
	free(ctrl);
	return rc;
}
