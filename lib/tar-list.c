/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tar-list.c - list a tar stream as GNU tar 1.34's `tar -tv` does
 *
 * libarchive parses; the mode string, the owner/size column that widens as
 * it goes and the date are GNU tar's (src/list.c), the name quoting is
 * tar-quote's, since dpkg-deb -c prints what tar prints.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "lib/tar-libarchive.h"
#include "lib/tar-list.h"
#include "lib/tar-quote.h"

/* GNU tar's mode string (list.c pax_decode_mode + type letter). */
static void
mode_string(struct archive_entry *e, char s[11])
{
	mode_t m = archive_entry_perm(e);
	mode_t t = archive_entry_filetype(e);

	if (archive_entry_hardlink(e) != NULL)
		s[0] = 'h';
	else if (t == AE_IFDIR)
		s[0] = 'd';
	else if (t == AE_IFLNK)
		s[0] = 'l';
	else if (t == AE_IFCHR)
		s[0] = 'c';
	else if (t == AE_IFBLK)
		s[0] = 'b';
	else if (t == AE_IFIFO)
		s[0] = 'p';
	else
		s[0] = '-';
	s[1] = m & S_IRUSR ? 'r' : '-';
	s[2] = m & S_IWUSR ? 'w' : '-';
	s[3] = m & S_ISUID ? (m & S_IXUSR ? 's' : 'S') :
	                     (m & S_IXUSR ? 'x' : '-');
	s[4] = m & S_IRGRP ? 'r' : '-';
	s[5] = m & S_IWGRP ? 'w' : '-';
	s[6] = m & S_ISGID ? (m & S_IXGRP ? 's' : 'S') :
	                     (m & S_IXGRP ? 'x' : '-');
	s[7] = m & S_IROTH ? 'r' : '-';
	s[8] = m & S_IWOTH ? 'w' : '-';
	s[9] = m & S_ISVTX ? (m & S_IXOTH ? 't' : 'T') :
	                     (m & S_IXOTH ? 'x' : '-');
	s[10] = '\0';
}

struct lister {
	FILE *out;
	locale_t names;		/* what tar -tv would run in */
	char *q;		/* the last name quoted */
	size_t qsize;
	int ugswidth;		/* GNU tar list.c: from 19, only widens */
};

/* Writes s quoted as tar does (tar-quote.h); NULL (a name libarchive
 * could not convert) as the empty name. */
static int
put_quoted(struct lister *l, const char *s, struct zd_error *err)
{
	size_t need;

	if (s == NULL)
		s = "";
	need = ZD_TAR_QUOTE_MAX(strlen(s));
	if (need > l->qsize) {
		char *q = realloc(l->q, need);

		if (q == NULL)
			return zd_err(err, ZD_E_NOMEM, "out of memory");
		l->q = q;
		l->qsize = need;
	}
	zd_tar_quote(l->q, l->qsize, s, l->names);
	fputs(l->q, l->out);
	return 0;
}

/* A number for an owner or group without a name, as tar prints it. */
static const char *
id_or_name(const char *name, intmax_t id, char buf[32])
{
	if (name != NULL && *name != '\0')
		return name;
	snprintf(buf, 32, "%jd", id);
	return buf;
}

/* One line of tar -tv (GNU tar list.c simple_print_header): owner and
 * group names are printed as they are, names and link targets quoted. */
static int
list_entry(struct lister *l, struct archive_entry *e, struct zd_error *err)
{
	char modes[11], uid[32], gid[32], size[64], date[64];
	const char *user = id_or_name(archive_entry_uname(e),
	                              (intmax_t)archive_entry_uid(e), uid);
	const char *group = id_or_name(archive_entry_gname(e),
	                               (intmax_t)archive_entry_gid(e), gid);
	mode_t t = archive_entry_filetype(e);
	time_t mt = archive_entry_mtime(e);
	struct tm tm;
	int pad, sizelen;

	mode_string(e, modes);
	if (t == AE_IFCHR || t == AE_IFBLK)
		snprintf(size, sizeof(size), "%ju,%ju",
		         (uintmax_t)archive_entry_rdevmajor(e),
		         (uintmax_t)archive_entry_rdevminor(e));
	else
		snprintf(size, sizeof(size), "%jd",
		         (intmax_t)archive_entry_size(e));
	localtime_r(&mt, &tm);
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M", &tm);
	sizelen = (int)strlen(size);
	pad = (int)(strlen(user) + 1 + strlen(group) + 1) + sizelen;
	if (pad > l->ugswidth)
		l->ugswidth = pad;
	fprintf(l->out, "%s %s/%s %*s %-16s ", modes, user, group,
	        l->ugswidth - pad + sizelen, size, date);
	if (put_quoted(l, archive_entry_pathname(e), err) < 0)
		return -1;
	if (archive_entry_hardlink(e) != NULL) {
		fputs(" link to ", l->out);
		if (put_quoted(l, archive_entry_hardlink(e), err) < 0)
			return -1;
	} else if (t == AE_IFLNK) {
		fputs(" -> ", l->out);
		if (put_quoted(l, archive_entry_symlink(e), err) < 0)
			return -1;
	}
	fputc('\n', l->out);
	return 0;
}

int
zd_tar_list(int tar_fd, FILE *out, locale_t names, struct zd_error *err)
{
	/* libarchive converts pax names (UTF-8) to the current locale's
	 * charset, as tar does: run it in tar's. */
	locale_t saved = uselocale(names);
	struct archive *in = zd_tar_libarchive_tar_open_fd(tar_fd, err);
	struct lister l = { .out = out, .names = names, .ugswidth = 19 };
	struct archive_entry *e;
	int rc = -1, r;

	if (in == NULL) {
		uselocale(saved);
		return -1;
	}
	for (;;) {
		r = archive_read_next_header(in, &e);
		if (r == ARCHIVE_EOF)
			break;
		if (r != ARCHIVE_OK && r != ARCHIVE_WARN) {
			zd_tar_libarchive_fail(in, "cannot read tar stream",
			                       NULL, err);
			goto out;
		}
		if (list_entry(&l, e, err) < 0)
			goto out;
		if (archive_read_data_skip(in) != ARCHIVE_OK) {
			zd_tar_libarchive_fail(in, "cannot read data of",
			                archive_entry_pathname(e), err);
			goto out;
		}
	}
	rc = 0;
out:
	free(l.q);
	archive_read_free(in);
	uselocale(saved);
	return rc;
}
