/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tar-extract.c - unpack a tar stream (libarchive reads, we write)
 *
 * libarchive parses the tar stream; the file system is written here with
 * *at() calls relative to directory descriptors, so that nothing lands
 * outside DIR whatever the archive holds:
 *
 *  - a name or link target longer than PATH_MAX allows is refused whole,
 *    never cut (GNU tar: "File name too long");
 *  - names go through safepath (relative, no "..", normalized);
 *  - a member's parent is opened one component at a time from DIR with
 *    O_NOFOLLOW | O_DIRECTORY, so a symlink planted by an earlier member
 *    (or found in DIR) is never walked through: the member is refused;
 *  - a regular file is written to a temporary name (O_CREAT | O_EXCL |
 *    O_NOFOLLOW) in that parent, its owner, mode and mtime set through
 *    the descriptor, then renamed into place: an interrupted or failed
 *    extraction leaves no truncated file under the member's name;
 *  - a hardlink must name a regular file extracted earlier from the same
 *    stream (tracked in a set), and is made with linkat() without
 *    following;
 *  - symlinks are created as they are (their target may point anywhere:
 *    they are never followed here), device nodes and FIFOs only when the
 *    caller allows them;
 *  - setuid and setgid bits of regular files are kept only when ownership
 *    is restored (root); otherwise they are dropped, with a warning;
 *  - directory modes, owners and mtimes are applied at the end, deepest
 *    first (tar --delay-directory-restore), so a read-only directory can
 *    still be filled and its mtime is not changed by its children.
 *
 * Why not libarchive's archive_write_disk, against the house style's
 * "use the library": its ARCHIVE_EXTRACT_SAFE_WRITES (libarchive >= 3.4.2)
 * gives the temporary name and rename above, but its symlink guard
 * (ARCHIVE_EXTRACT_SECURE_SYMLINKS) checks a name with lstat() along the
 * path before creating it by that path from the working directory, which
 * it changes on the way: a check and a use, where this file creates
 * everything relative to descriptors it opened without following links,
 * and a process-wide chdir() inside a library that others call from
 * threads.  And dpkg-deb -x is GNU tar, whose answers this file gives: a
 * hard link only to a regular file of the same stream, directories
 * restored last, set-id bits dropped unless owners are, names refused
 * (never cut) at the limits, each refusal naming the member (zd_error).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <search.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "lib/fdio.h"
#include "lib/tar-extract.h"
#include "lib/tar-libarchive.h"
#include "lib/tar-safepath.h"

/*
 * The names of the regular files extracted so far (hardlink targets), in
 * a tsearch(3) tree of struct nameent.
 */
struct nameset {
	void *root;
};

struct nameent {
	char *name;
	bool regular;
};

static int
nameent_cmp(const void *a, const void *b)
{
	return strcmp(((const struct nameent *)a)->name,
	              ((const struct nameent *)b)->name);
}

static struct nameent *
set_find(const struct nameset *s, const char *name)
{
	struct nameent key = { .name = (char *)name };
	void *const *node = tfind(&key, &s->root, nameent_cmp);

	return node != NULL ? *(struct nameent *const *)node : NULL;
}

static bool
set_is_regular(const struct nameset *s, const char *name)
{
	const struct nameent *ent = set_find(s, name);

	return ent != NULL && ent->regular;
}

/* Records whether name is now a regular file. */
static int
set_mark(struct nameset *s, const char *name, bool regular,
         struct zd_error *err)
{
	struct nameent *ent = set_find(s, name);

	if (ent == NULL && !regular)
		return 0;
	if (ent == NULL) {
		ent = malloc(sizeof(*ent));
		if (ent != NULL)
			ent->name = strdup(name);
		if (ent == NULL || ent->name == NULL ||
		    tsearch(ent, &s->root, nameent_cmp) == NULL) {
			if (ent != NULL)
				free(ent->name);
			free(ent);
			return zd_err(err, ZD_E_NOMEM, "out of memory");
		}
	}
	ent->regular = regular;
	return 0;
}

static void
nameent_free(void *p)
{
	struct nameent *ent = p;

	free(ent->name);
	free(ent);
}

static void
set_free(struct nameset *s)
{
	tdestroy(s->root, nameent_free);
	s->root = NULL;
}

/* A directory's metadata, applied after every member is extracted. */
struct dirfix {
	char *path;		/* normalized; "" is DIR itself */
	size_t order;		/* member order: the last one wins */
	mode_t mode;
	uid_t uid;
	gid_t gid;
	struct timespec mtime;
	bool has_mtime;
};

/*
 * An id cache for uname/gname lookups (tar prefers names to numbers).  A
 * name of 32 bytes or more is not looked up at all, the number is used:
 * GNU tar 1.34 maps only what fits the 32-byte ustar field, never a
 * longer pax uname (checked with nss_wrapper), so nothing is cut here.
 */
struct idcache {
	char name[32];
	unsigned id;
	bool found;
};

#define IDCACHE_N 32

struct xctx {
	const struct zd_extract_opts *o;
	int root;			/* DIR */
	char *cache_path;		/* parent opened last, or NULL */
	int cache_fd;
	struct nameset files;
	struct dirfix *fix;
	size_t nfix, capfix;
	struct idcache users[IDCACHE_N], groups[IDCACHE_N];
	unsigned nusers, ngroups;
	long pid;			/* in temporary names */
	unsigned tmp_counter;
	char tmp[64];			/* temporary name being written */
	int tmp_dir;			/* its directory, or -1 */
};

static int
lookup_id(struct idcache *c, unsigned *n, const char *name, bool user,
          unsigned fallback)
{
	unsigned id = fallback;
	bool found = false;

	if (name == NULL || *name == '\0' || strlen(name) >= sizeof(c->name))
		return (int)fallback;
	for (unsigned i = 0; i < *n; i++)
		if (strcmp(c[i].name, name) == 0)
			return c[i].found ? (int)c[i].id : (int)fallback;
	if (user) {
		struct passwd pw, *res = NULL;
		char buf[4096];

		if (getpwnam_r(name, &pw, buf, sizeof(buf), &res) == 0 &&
		    res != NULL) {
			id = (unsigned)pw.pw_uid;
			found = true;
		}
	} else {
		struct group gr, *res = NULL;
		char buf[8192];

		if (getgrnam_r(name, &gr, buf, sizeof(buf), &res) == 0 &&
		    res != NULL) {
			id = (unsigned)gr.gr_gid;
			found = true;
		}
	}
	if (*n < IDCACHE_N) {
		snprintf(c[*n].name, sizeof(c[*n].name), "%s", name);
		c[*n].id = id;
		c[*n].found = found;
		(*n)++;
	}
	return (int)(found ? id : fallback);
}

static uid_t
entry_uid(struct xctx *x, struct archive_entry *e)
{
	return (uid_t)lookup_id(x->users, &x->nusers,
	                        archive_entry_uname(e), true,
	                        (unsigned)archive_entry_uid(e));
}

static gid_t
entry_gid(struct xctx *x, struct archive_entry *e)
{
	return (gid_t)lookup_id(x->groups, &x->ngroups,
	                        archive_entry_gname(e), false,
	                        (unsigned)archive_entry_gid(e));
}

static void
entry_times(struct archive_entry *e, struct timespec ts[2])
{
	ts[0].tv_sec = 0;
	ts[0].tv_nsec = UTIME_OMIT;
	if (archive_entry_mtime_is_set(e)) {
		ts[1].tv_sec = archive_entry_mtime(e);
		ts[1].tv_nsec = archive_entry_mtime_nsec(e);
	} else {
		ts[1].tv_sec = 0;
		ts[1].tv_nsec = UTIME_OMIT;
	}
}

/*
 * Opens the directory rel (normalized; "" is DIR) below DIR, one
 * component at a time, never following a symlink; creates missing
 * components (mode 0777 minus the umask, as tar) when create.  Returns a
 * new descriptor, or -1 with err set naming member.
 */
static int
open_dir(struct xctx *x, const char *rel, bool create, const char *member,
         struct zd_error *err)
{
	char comp[256];
	const char *p = rel;
	int cur = dup(x->root);

	if (cur < 0)
		return zd_err_errno(err, ZD_E_IO, "cannot open the target "
		                    "directory");
	while (*p != '\0') {
		size_t len = strcspn(p, "/");
		int plen = (int)(p - rel + len);	/* rel up to comp */
		int fd, e;
		struct stat st;

		/* safepath bounds components to 255 bytes. */
		memcpy(comp, p, len);
		comp[len] = '\0';
		fd = openat(cur, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		            O_CLOEXEC);
		if (fd < 0 && errno == ENOENT && create) {
			if (mkdirat(cur, comp, 0777) < 0 && errno != EEXIST) {
				e = errno;
				close(cur);
				errno = e;
				return zd_err_errno(err, ZD_E_IO, "member "
				                    "'%s': cannot create "
				                    "directory '%.*s'", member,
				                    plen, rel);
			}
			fd = openat(cur, comp, O_RDONLY | O_DIRECTORY |
			            O_NOFOLLOW | O_CLOEXEC);
		}
		if (fd < 0) {
			e = errno;
			if ((e == ELOOP || e == ENOTDIR) &&
			    fstatat(cur, comp, &st, AT_SYMLINK_NOFOLLOW) == 0) {
				close(cur);
				if (S_ISLNK(st.st_mode))
					return zd_err(err, ZD_E_FORMAT,
					              "member '%s': path goes "
					              "through symlink '%.*s' "
					              "(refused)", member, plen,
					              rel);
				return zd_err(err, ZD_E_FORMAT, "member '%s': "
				              "'%.*s' is not a directory",
				              member, plen, rel);
			}
			close(cur);
			errno = e;
			return zd_err_errno(err, ZD_E_IO, "member '%s': cannot "
			                    "open directory '%.*s'", member,
			                    plen, rel);
		}
		close(cur);
		cur = fd;
		p += len;
		if (*p == '/')
			p++;
	}
	return cur;
}

/* open_dir(create) for a member's parent, keeping the last one open. */
static int
parent_fd(struct xctx *x, const char *rel, const char *member,
          struct zd_error *err)
{
	int fd;

	if (x->cache_path != NULL && strcmp(x->cache_path, rel) == 0)
		return x->cache_fd;
	fd = open_dir(x, rel, true, member, err);
	if (fd < 0)
		return -1;
	if (x->cache_path != NULL) {
		close(x->cache_fd);
		free(x->cache_path);
	}
	x->cache_path = strdup(rel);
	if (x->cache_path == NULL) {
		close(fd);
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	}
	x->cache_fd = fd;
	return fd;
}

/*
 * Makes room for a new non-directory at leaf: removes what is there unless
 * it is a directory.  Returns 0 (also when nothing was there) or -1.
 */
static int
clear_leaf(int pfd, const char *leaf, const char *member,
           struct zd_error *err)
{
	struct stat st;

	if (fstatat(pfd, leaf, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 :
		       zd_err_errno(err, ZD_E_IO, "member '%s': cannot stat",
		                    member);
	if (S_ISDIR(st.st_mode))
		return zd_err(err, ZD_E_FORMAT, "member '%s': would replace "
		              "a directory", member);
	if (unlinkat(pfd, leaf, 0) < 0 && errno != ENOENT)
		return zd_err_errno(err, ZD_E_IO, "member '%s': cannot remove "
		                    "the existing file", member);
	return 0;
}

/* Removes the temporary file being written, if any; keeps errno. */
static void
drop_tmp(struct xctx *x)
{
	int saved = errno;

	if (x->tmp_dir >= 0)
		unlinkat(x->tmp_dir, x->tmp, 0);
	x->tmp_dir = -1;
	errno = saved;
}

static int
write_regular(struct xctx *x, struct archive *in, struct archive_entry *e,
              int pfd, const char *leaf, const char *member,
              struct zd_error *err)
{
	mode_t mode = archive_entry_perm(e) & 07777;
	struct timespec ts[2];
	la_int64_t end = 0;
	int fd = -1, r;

	for (int tries = 0; ; tries++) {
		snprintf(x->tmp, sizeof(x->tmp), ".zdeb-tmp.%ld.%u",
		         x->pid, x->tmp_counter++);
		fd = openat(pfd, x->tmp, O_WRONLY | O_CREAT | O_EXCL |
		            O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0 || errno != EEXIST || tries > 100)
			break;
	}
	if (fd < 0)
		return zd_err_errno(err, ZD_E_IO, "member '%s': cannot create "
		                    "a temporary file", member);
	x->tmp_dir = pfd;
	for (;;) {
		const void *buf;
		size_t len;
		la_int64_t off;

		r = archive_read_data_block(in, &buf, &len, &off);
		if (r == ARCHIVE_EOF)
			break;
		if (r != ARCHIVE_OK && r != ARCHIVE_WARN) {
			zd_tar_libarchive_fail(in, "cannot read data of",
			                       member, err);
			goto fail;
		}
		if (off < 0) {
			zd_err(err, ZD_E_FORMAT, "member '%s': bad data "
			       "offset", member);
			goto fail;
		}
		/* pwrite at the offset: sparse members leave holes. */
		if (zd_pwrite_all(fd, buf, len, (uint64_t)off, err) < 0) {
			zd_err_prefix(err, "member '%s'", member);
			goto fail;
		}
		if (off + (la_int64_t)len > end)
			end = off + (la_int64_t)len;
	}
	if (archive_entry_size_is_set(e) && archive_entry_size(e) > end &&
	    ftruncate(fd, (off_t)archive_entry_size(e)) < 0) {
		zd_err_errno(err, ZD_E_IO, "member '%s': cannot write", member);
		goto fail;
	}
	if (x->o->owner &&
	    fchown(fd, entry_uid(x, e), entry_gid(x, e)) < 0) {
		zd_err_errno(err, ZD_E_IO, "member '%s': cannot set owner",
		             member);
		goto fail;
	}
	if (!x->o->owner && (mode & (S_ISUID | S_ISGID)) != 0) {
		mode &= ~(mode_t)(S_ISUID | S_ISGID);
		zd_warnf(x->o->warn, x->o->warn_ctx, "member '%s': setuid/"
		         "setgid bits dropped (ownership is not restored)",
		         member);
	}
	if (fchmod(fd, mode) < 0) {
		zd_err_errno(err, ZD_E_IO, "member '%s': cannot set mode",
		             member);
		goto fail;
	}
	entry_times(e, ts);
	if (futimens(fd, ts) < 0) {
		zd_err_errno(err, ZD_E_IO, "member '%s': cannot set times",
		             member);
		goto fail;
	}
	r = close(fd);
	fd = -1;
	if (r < 0) {
		zd_err_errno(err, ZD_E_IO, "member '%s': cannot write", member);
		goto fail;
	}
	if (renameat(pfd, x->tmp, pfd, leaf) < 0) {
		if (errno == EISDIR || errno == ENOTEMPTY || errno == EEXIST)
			zd_err(err, ZD_E_FORMAT, "member '%s': would replace "
			       "a directory", member);
		else
			zd_err_errno(err, ZD_E_IO, "member '%s': cannot "
			             "rename into place", member);
		goto fail;
	}
	x->tmp_dir = -1;
	return 0;
fail:
	if (fd >= 0) {
		int saved = errno;

		close(fd);
		errno = saved;
	}
	drop_tmp(x);
	return -1;
}

static int
make_hardlink(struct xctx *x, struct archive_entry *e, int pfd,
              const char *leaf, const char *norm, const char *member,
              struct zd_error *err)
{
	char target[ZD_SAFEPATH_MAX];
	const char *tdir, *tleaf;
	struct zd_error terr = ZD_ERROR_INIT;
	int tfd, rc;

	if (zd_tar_safepath_normalize(archive_entry_hardlink(e), target,
	                          sizeof(target), &terr) < 0) {
		const char *why = strstr(terr.msg, "': ");

		return zd_err(err, terr.code, "member '%s': hardlink target "
		              "'%s': %s", member, archive_entry_hardlink(e),
		              why != NULL ? why + 3 : terr.msg);
	}
	if (!set_is_regular(&x->files, target))
		return zd_err(err, ZD_E_FORMAT, "member '%s': hardlink target "
		              "'%s' is not a regular file extracted before it",
		              member, archive_entry_hardlink(e));
	/* A link to itself: it is there already (clear_leaf would
	 * remove it first). */
	if (strcmp(target, norm) == 0)
		return 0;
	tleaf = zd_tar_safepath_split(target, &tdir);
	tfd = open_dir(x, tdir, false, member, err);
	if (tfd < 0)
		return -1;
	rc = clear_leaf(pfd, leaf, member, err);
	if (rc == 0 && linkat(tfd, tleaf, pfd, leaf, 0) < 0)
		rc = zd_err_errno(err, ZD_E_IO, "member '%s': cannot link to "
		                  "'%s'", member, archive_entry_hardlink(e));
	close(tfd);
	return rc;
}

/*
 * Owner (when restoring it), mode (unless a symlink) and times of a leaf
 * just created in pfd, in that order, as tar sets them.
 */
static int
set_leaf_attrs(struct xctx *x, struct archive_entry *e, int pfd,
               const char *leaf, const char *member, bool set_mode,
               struct zd_error *err)
{
	struct timespec ts[2];

	if (x->o->owner && fchownat(pfd, leaf, entry_uid(x, e),
	                            entry_gid(x, e), AT_SYMLINK_NOFOLLOW) < 0)
		return zd_err_errno(err, ZD_E_IO, "member '%s': cannot set "
		                    "owner", member);
	if (set_mode &&
	    fchmodat(pfd, leaf, archive_entry_perm(e) & 0777, 0) < 0)
		return zd_err_errno(err, ZD_E_IO, "member '%s': cannot set "
		                    "mode", member);
	entry_times(e, ts);
	if (utimensat(pfd, leaf, ts, AT_SYMLINK_NOFOLLOW) < 0)
		return zd_err_errno(err, ZD_E_IO, "member '%s': cannot set "
		                    "times", member);
	return 0;
}

static int
make_symlink(struct xctx *x, struct archive_entry *e, int pfd,
             const char *leaf, const char *member, struct zd_error *err)
{
	const char *target = archive_entry_symlink(e);

	if (target == NULL || *target == '\0')
		return zd_err(err, ZD_E_FORMAT, "member '%s': symlink with an "
		              "empty target", member);
	if (clear_leaf(pfd, leaf, member, err) < 0)
		return -1;
	if (symlinkat(target, pfd, leaf) < 0)
		return zd_err_errno(err, ZD_E_IO, "member '%s': cannot create "
		                    "symlink", member);
	return set_leaf_attrs(x, e, pfd, leaf, member, false, err);
}

static int
make_special(struct xctx *x, struct archive_entry *e, int pfd,
             const char *leaf, const char *member, struct zd_error *err)
{
	mode_t type = archive_entry_filetype(e);
	int r;

	if (clear_leaf(pfd, leaf, member, err) < 0)
		return -1;
	if (type == AE_IFIFO)
		r = mkfifoat(pfd, leaf, 0600);
	else
		r = mknodat(pfd, leaf, (type == AE_IFCHR ? S_IFCHR : S_IFBLK) |
		            0600, makedev(archive_entry_rdevmajor(e),
		                          archive_entry_rdevminor(e)));
	if (r < 0)
		return zd_err_errno(err, ZD_E_IO, "member '%s': cannot create "
		                    "%s", member, type == AE_IFIFO ? "FIFO" :
		                    "device node");
	return set_leaf_attrs(x, e, pfd, leaf, member, true, err);
}

static int
add_dirfix(struct xctx *x, struct archive_entry *e, const char *norm,
           struct zd_error *err)
{
	struct dirfix *f;
	struct timespec ts[2];

	if (x->nfix == x->capfix) {
		size_t cap = x->capfix ? 2 * x->capfix : 64;

		f = reallocarray(x->fix, cap, sizeof(*f));
		if (f == NULL)
			return zd_err(err, ZD_E_NOMEM, "out of memory");
		x->fix = f;
		x->capfix = cap;
	}
	f = &x->fix[x->nfix];
	f->path = strdup(norm);
	if (f->path == NULL)
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	f->order = x->nfix++;
	f->mode = archive_entry_perm(e) & 07777;
	if (x->o->owner) {
		f->uid = entry_uid(x, e);
		f->gid = entry_gid(x, e);
	}
	entry_times(e, ts);
	f->mtime = ts[1];
	f->has_mtime = ts[1].tv_nsec != UTIME_OMIT;
	return 0;
}

static int
make_dir(struct xctx *x, struct archive_entry *e, int pfd, const char *leaf,
         const char *norm, const char *member, struct zd_error *err)
{
	struct stat st;

	if (mkdirat(pfd, leaf, 0700) < 0) {
		if (errno != EEXIST)
			return zd_err_errno(err, ZD_E_IO, "member '%s': cannot "
			                    "create directory", member);
		if (fstatat(pfd, leaf, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return zd_err_errno(err, ZD_E_IO, "member '%s': cannot "
			                    "stat", member);
		if (!S_ISDIR(st.st_mode)) {
			/* A file or a symlink: replaced, never followed. */
			if (clear_leaf(pfd, leaf, member, err) < 0)
				return -1;
			if (mkdirat(pfd, leaf, 0700) < 0)
				return zd_err_errno(err, ZD_E_IO, "member "
				                    "'%s': cannot create "
				                    "directory", member);
		}
	}
	return add_dirfix(x, e, norm, err);
}

/* Deepest first; for one path, in member order (the last one wins). */
static int
dirfix_cmp(const void *a, const void *b)
{
	const struct dirfix *fa = a, *fb = b;
	int c = strcmp(fb->path, fa->path);

	if (c != 0)
		return c;
	return fa->order < fb->order ? -1 : fa->order > fb->order;
}

static int
apply_dirfixes(struct xctx *x, struct zd_error *err)
{
	if (x->nfix == 0)
		return 0;	/* qsort's base may not be NULL */
	qsort(x->fix, x->nfix, sizeof(*x->fix), dirfix_cmp);
	for (size_t i = 0; i < x->nfix; i++) {
		const struct dirfix *f = &x->fix[i];
		const char *shown = *f->path ? f->path : ".";
		struct timespec ts[2];
		int fd = open_dir(x, f->path, false, shown, err);

		if (fd < 0)
			return -1;
		if (x->o->owner && fchown(fd, f->uid, f->gid) < 0) {
			close(fd);
			return zd_err_errno(err, ZD_E_IO, "member '%s': cannot "
			                    "set owner", shown);
		}
		if (fchmod(fd, f->mode) < 0) {
			close(fd);
			return zd_err_errno(err, ZD_E_IO, "member '%s': cannot "
			                    "set mode", shown);
		}
		ts[0].tv_sec = 0;
		ts[0].tv_nsec = UTIME_OMIT;
		ts[1] = f->mtime;
		if (f->has_mtime && futimens(fd, ts) < 0) {
			close(fd);
			return zd_err_errno(err, ZD_E_IO, "member '%s': cannot "
			                    "set times", shown);
		}
		close(fd);
	}
	return 0;
}

static const char *
type_refused(mode_t type, const struct zd_extract_opts *o)
{
	switch (type) {
	case AE_IFREG:
	case AE_IFDIR:
	case AE_IFLNK:
		return NULL;
	case AE_IFCHR:
	case AE_IFBLK:
		return o->allow_devices ? NULL : "device node refused";
	case AE_IFIFO:
		return o->allow_devices ? NULL : "FIFO refused";
	default:
		return "unsupported file type";
	}
}

static int
extract_entry(struct xctx *x, struct archive *in, struct archive_entry *e,
              const char *member, struct zd_error *err)
{
	char norm[ZD_SAFEPATH_MAX], split[ZD_SAFEPATH_MAX];
	mode_t type = archive_entry_filetype(e);
	bool hardlink = archive_entry_hardlink(e) != NULL;
	const char *why = hardlink ? NULL : type_refused(type, x->o);
	const char *dir, *leaf;
	int pfd;

	if (zd_tar_safepath_normalize(member, norm, sizeof(norm), err) < 0)
		return -1;
	if (why != NULL)
		return zd_err(err, ZD_E_FORMAT, "member '%s': %s", member,
		              why);
	if (norm[0] == '\0') {
		/* "./": DIR itself. */
		if (hardlink || type != AE_IFDIR)
			return zd_err(err, ZD_E_FORMAT, "member '%s': names "
			              "the target directory but is not a "
			              "directory", member);
		return add_dirfix(x, e, norm, err);
	}
	memcpy(split, norm, sizeof(split));
	leaf = zd_tar_safepath_split(split, &dir);
	pfd = parent_fd(x, dir, member, err);
	if (pfd < 0)
		return -1;
	if (hardlink) {
		if (make_hardlink(x, e, pfd, leaf, norm, member, err) < 0)
			return -1;
		return set_mark(&x->files, norm, true, err);
	}
	switch (type) {
	case AE_IFREG:
		if (write_regular(x, in, e, pfd, leaf, member, err) < 0)
			return -1;
		return set_mark(&x->files, norm, true, err);
	case AE_IFDIR:
		if (set_mark(&x->files, norm, false, err) < 0)
			return -1;
		return make_dir(x, e, pfd, leaf, norm, member, err);
	case AE_IFLNK:
		if (set_mark(&x->files, norm, false, err) < 0)
			return -1;
		return make_symlink(x, e, pfd, leaf, member, err);
	default:
		if (set_mark(&x->files, norm, false, err) < 0)
			return -1;
		return make_special(x, e, pfd, leaf, member, err);
	}
}

/*
 * A name or link target the kernel would refuse (PATH_MAX, the NUL
 * included), as GNU tar's "File name too long" does: refused whole, before
 * anything of the member is made, never cut to fit.
 */
static int
check_lengths(struct archive_entry *e, const char *path, struct zd_error *err)
{
	const char *hard = archive_entry_hardlink(e);
	const char *target = hard != NULL ? hard : archive_entry_symlink(e);
	size_t n = strlen(path);

	if (n >= ZD_SAFEPATH_MAX)
		return zd_err(err, ZD_E_LIMIT, "member name too long (%zu "
		              "bytes, the limit is %d): '%.300s...'", n,
		              ZD_SAFEPATH_MAX - 1, path);
	if (target != NULL && strlen(target) >= ZD_SAFEPATH_MAX)
		return zd_err(err, ZD_E_LIMIT, "member '%.300s': %s target too "
		              "long (%zu bytes, the limit is %d)", path,
		              hard != NULL ? "hardlink" : "symlink",
		              strlen(target), ZD_SAFEPATH_MAX - 1);
	return 0;
}

int
zd_tar_extract(int tar_fd, const char *dir, const struct zd_extract_opts *o,
               struct zd_error *err)
{
	struct archive *in = NULL;
	struct archive_entry *e;
	struct xctx x;
	locale_t saved;
	int rc = -1, r;

	memset(&x, 0, sizeof(x));
	x.o = o;
	x.cache_fd = -1;
	x.tmp_dir = -1;
	x.pid = (long)getpid();
	x.root = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (x.root < 0)
		return zd_err_errno(err, ZD_E_IO, "cannot open directory '%s'",
		                    dir);
	saved = uselocale(o->names);
	in = zd_tar_libarchive_tar_open_fd(tar_fd, err);
	if (in == NULL)
		goto out;
	for (;;) {
		const char *path;

		r = archive_read_next_header(in, &e);
		if (r == ARCHIVE_EOF)
			break;
		if (r != ARCHIVE_OK && r != ARCHIVE_WARN) {
			zd_tar_libarchive_fail(in, "cannot read tar stream",
			                       NULL, err);
			goto out;
		}
		path = archive_entry_pathname(e);
		if (path == NULL) {
			zd_err(err, ZD_E_FORMAT, "member with an unreadable "
			       "name");
			goto out;
		}
		if (check_lengths(e, path, err) < 0)
			goto out;
		if (o->on_entry != NULL)
			o->on_entry(o->ctx, path);
		if (extract_entry(&x, in, e, path, err) < 0)
			goto out;
	}
	if (apply_dirfixes(&x, err) < 0)
		goto out;
	rc = 0;
out:
	drop_tmp(&x);
	if (in != NULL)
		archive_read_free(in);
	uselocale(saved);
	if (x.cache_path != NULL) {
		close(x.cache_fd);
		free(x.cache_path);
	}
	for (size_t i = 0; i < x.nfix; i++)
		free(x.fix[i].path);
	free(x.fix);
	set_free(&x.files);
	close(x.root);
	return rc;
}
