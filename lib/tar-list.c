/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tar-list.c - list a tar stream as GNU tar 1.34's `tar -tv` does
 *
 * libarchive parses; the mode string, the owner/size column that widens as
 * it goes, the date and the name quoting are GNU tar's (src/list.c), since
 * dpkg-deb -c prints what tar prints.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "lib/tar-libarchive.h"
#include "lib/tar-list.h"

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

/* GNU tar's default "escape" quoting of names. */
static void
put_quoted(FILE *out, const char *s)
{
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		switch (c) {
		case '\\': fputs("\\\\", out); break;
		case '\a': fputs("\\a", out); break;
		case '\b': fputs("\\b", out); break;
		case '\f': fputs("\\f", out); break;
		case '\n': fputs("\\n", out); break;
		case '\r': fputs("\\r", out); break;
		case '\t': fputs("\\t", out); break;
		case '\v': fputs("\\v", out); break;
		default:
			if (c < 0x20 || c == 0x7f)
				fprintf(out, "\\%03o", c);
			else
				fputc(c, out);
		}
	}
}

static void
list_entry(FILE *out, struct archive_entry *e, int *ugswidth)
{
	char modes[11], user[64], group[64], size[64], date[64];
	const char *un = archive_entry_uname(e);
	const char *gn = archive_entry_gname(e);
	mode_t t = archive_entry_filetype(e);
	time_t mt = archive_entry_mtime(e);
	struct tm tm;
	int pad, sizelen;

	mode_string(e, modes);
	if (un != NULL && *un != '\0')
		snprintf(user, sizeof(user), "%s", un);
	else
		snprintf(user, sizeof(user), "%jd",
		         (intmax_t)archive_entry_uid(e));
	if (gn != NULL && *gn != '\0')
		snprintf(group, sizeof(group), "%s", gn);
	else
		snprintf(group, sizeof(group), "%jd",
		         (intmax_t)archive_entry_gid(e));
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
	if (pad > *ugswidth)
		*ugswidth = pad;
	fprintf(out, "%s %s/%s %*s %-16s ", modes, user, group,
	        *ugswidth - pad + sizelen, size, date);
	put_quoted(out, archive_entry_pathname(e));
	if (archive_entry_hardlink(e) != NULL) {
		fputs(" link to ", out);
		put_quoted(out, archive_entry_hardlink(e));
	} else if (t == AE_IFLNK) {
		fputs(" -> ", out);
		put_quoted(out, archive_entry_symlink(e));
	}
	fputc('\n', out);
}

int
zd_list_tar(int tar_fd, FILE *out, struct zd_error *err)
{
	struct archive *in = zd_archive_tar_open_fd(tar_fd, err);
	struct archive_entry *e;
	int ugswidth = 19;	/* GNU tar list.c */
	int rc = -1, r;

	if (in == NULL)
		return -1;
	for (;;) {
		r = archive_read_next_header(in, &e);
		if (r == ARCHIVE_EOF)
			break;
		if (r != ARCHIVE_OK && r != ARCHIVE_WARN) {
			zd_archive_fail(in, "cannot read tar stream", NULL,
			                err);
			goto out;
		}
		list_entry(out, e, &ugswidth);
		if (archive_read_data_skip(in) != ARCHIVE_OK) {
			zd_archive_fail(in, "cannot read data of",
			                archive_entry_pathname(e), err);
			goto out;
		}
	}
	rc = 0;
out:
	archive_read_free(in);
	return rc;
}
