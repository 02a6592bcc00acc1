/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ar.h - the !<arch> container: member headers, padding (knows no .deb)
 *
 * Writes members exactly as dpkg-deb's lib/dpkg/ar.c does (uid/gid 0, mode
 * 100644, name padded with spaces, no trailing '/'), and reads any common
 * ar member header, checking every field: untrusted input.
 */
#ifndef ZDEB_AR_H
#define ZDEB_AR_H

#include <stdint.h>

#include "lib/error.h"

#define ZD_AR_MAGIC "!<arch>\n"
#define ZD_AR_MAGIC_LEN 8
#define ZD_AR_HDR_LEN 60

struct zd_ar_member {
	char name[17];		/* trailing spaces and one '/' removed */
	uint64_t mtime;
	unsigned uid, gid;
	unsigned mode;
	uint64_t size;		/* data size, without the padding byte */
	uint64_t hdr_off;	/* file offset of the 60-byte header */
	uint64_t data_off;	/* file offset of the first data byte */
};

/* Writes the 8-byte global magic. */
int zd_ar_write_magic(int fd, struct zd_error *err);
/* Largest values dpkg-deb's writer accepts (lib/dpkg/ar.c). */
#define ZD_AR_NAME_MAX 15
#define ZD_AR_SIZE_MAX UINT64_C(9999999999)
#define ZD_AR_MTIME_MAX UINT64_C(999999999999)

/*
 * Writes one 60-byte member header as dpkg-deb does:
 * "%-16s%-12ju0     0     100644  %-10ju`\n".  Returns 0, or -1 with err
 * set: ZD_E_USAGE if name is empty or longer than ZD_AR_NAME_MAX (15, as
 * dpkg), ZD_E_LIMIT if size or mtime does not fit its field, ZD_E_IO.
 */
int zd_ar_write_header(int fd, const char *name, uint64_t mtime,
                       uint64_t size, struct zd_error *err);
/* Writes a whole member: header, size bytes of buf, and the padding byte
 * ('\n') when size is odd. */
int zd_ar_write_member_buf(int fd, const char *name, uint64_t mtime,
                           const void *buf, uint64_t size,
                           struct zd_error *err);

/*
 * A member written in place, for bytes whose count is known only after
 * writing them: begin writes a blank 60-byte header at fd's offset (noted
 * in *hdr_off); the caller writes the data right after it; end checks fd's
 * offset is hdr_off + 60 + size, writes the real header over the blank one
 * (pwrite) and the padding byte.  Errors as zd_ar_write_header(), and
 * ZD_E_INTERNAL when the data does not end where size says.
 */
int zd_ar_begin_member(int fd, uint64_t *hdr_off, struct zd_error *err);
int zd_ar_end_member(int fd, uint64_t hdr_off, const char *name,
                     uint64_t mtime, uint64_t size, struct zd_error *err);

/*
 * Checks the global magic at offset 0 of fd (pread).  Returns 0, or -1 with
 * err set: ZD_E_FORMAT "not an ar archive (bad magic)" or "... (file too
 * short)", ZD_E_IO.
 */
int zd_ar_check_magic(int fd, struct zd_error *err);
/*
 * Parses one 60-byte header buffer found at file offset hdr_off into m.
 * Decimal fields (mtime, uid, gid, size) and the octal mode are digits
 * optionally surrounded by spaces; mtime, uid, gid and mode may be all
 * spaces (0), size may not.  The name may not contain NUL bytes.  Sets
 * m->data_off = hdr_off + 60; does not check the size against a file.
 * Returns 0, or -1 with err set (ZD_E_FORMAT), e.g.
 * "corrupt ar member header at offset 68: member 'x': size '1x' is not a
 * decimal number" or "...: bad header trailer (expected '`\n')".
 */
int zd_ar_parse_header(const unsigned char hdr[ZD_AR_HDR_LEN],
                       uint64_t hdr_off, struct zd_ar_member *m,
                       struct zd_error *err);
/*
 * Reads the member header at *off of a file of file_size bytes (pread),
 * checks that the data lies inside the file, and advances *off past the
 * data and padding.  A missing padding byte after the last member is
 * accepted (dpkg never reads it).  Returns 1 with m filled, 0 at a clean
 * end of archive (*off == file_size), or -1 with err set: ZD_E_FORMAT for
 * "truncated ar member header at offset N (K bytes left)", a bad header,
 * or "ar member 'NAME' at offset N: size S runs past the end of the file
 * (F bytes)"; ZD_E_IO.
 */
int zd_ar_next(int fd, uint64_t file_size, uint64_t *off,
               struct zd_ar_member *m, struct zd_error *err);

#endif
