/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ar.c - the !<arch> container: member headers, padding (knows no .deb)
 *
 * The writer reproduces dpkg-deb's headers byte for byte (lib/dpkg/ar.c,
 * 1.21.22): uid and gid 0, mode 100644, name padded with spaces and no
 * GNU '/' terminator, odd members padded with '\n'.  The reader treats the
 * header as untrusted input and checks every field.
 */
#include "config.h"

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/ar.h"
#include "lib/fdio.h"

/* Field widths of the member header (ar(5)); they add up to 60. */
enum {
	AR_NAME_W = 16,
	AR_MTIME_W = 12,
	AR_UID_W = 6,
	AR_GID_W = 6,
	AR_MODE_W = 8,
	AR_SIZE_W = 10,
	AR_FMAG_W = 2,
};

static_assert(AR_NAME_W + AR_MTIME_W + AR_UID_W + AR_GID_W + AR_MODE_W +
              AR_SIZE_W + AR_FMAG_W == ZD_AR_HDR_LEN, "ar header size");
static_assert(sizeof(ZD_AR_MAGIC) - 1 == ZD_AR_MAGIC_LEN, "ar magic size");

#define AR_FMAG "`\n"

int
zd_ar_write_magic(int fd, struct zd_error *err)
{
	return zd_write_all(fd, ZD_AR_MAGIC, ZD_AR_MAGIC_LEN, err);
}

/* The 60 header bytes, as dpkg-deb formats them. */
static int
format_header(char hdr[ZD_AR_HDR_LEN + 1], const char *name, uint64_t mtime,
              uint64_t size, struct zd_error *err)
{
	size_t len = strlen(name);
	int n;

	if (len == 0 || len > ZD_AR_NAME_MAX)
		return zd_err(err, ZD_E_USAGE, "ar member name '%s' length "
		              "must be 1 to %d bytes", name, ZD_AR_NAME_MAX);
	if (size > ZD_AR_SIZE_MAX)
		return zd_err(err, ZD_E_LIMIT, "ar member '%s': size %" PRIu64
		              " too large", name, size);
	if (mtime > ZD_AR_MTIME_MAX)
		return zd_err(err, ZD_E_LIMIT, "ar member '%s': time %" PRIu64
		              " too large", name, mtime);
	n = snprintf(hdr, ZD_AR_HDR_LEN + 1, "%-16s%-12" PRIu64 "%-6lu%-6lu"
	             "%-8lo%-10" PRIu64 "`\n", name, mtime, 0UL, 0UL,
	             0100644UL, size);
	assert(n == ZD_AR_HDR_LEN);
	return 0;
}

int
zd_ar_write_header(int fd, const char *name, uint64_t mtime, uint64_t size,
                   struct zd_error *err)
{
	char hdr[ZD_AR_HDR_LEN + 1];

	if (format_header(hdr, name, mtime, size, err) < 0)
		return -1;
	return zd_write_all(fd, hdr, ZD_AR_HDR_LEN, err);
}

static int
write_padding(int fd, uint64_t size, struct zd_error *err)
{
	if (size & 1)
		return zd_write_all(fd, "\n", 1, err);
	return 0;
}

int
zd_ar_write_member_buf(int fd, const char *name, uint64_t mtime,
                       const void *buf, uint64_t size, struct zd_error *err)
{
	if (size > SIZE_MAX)
		return zd_err(err, ZD_E_LIMIT, "ar member '%s': size %" PRIu64
		              " too large", name, size);
	if (zd_ar_write_header(fd, name, mtime, size, err) < 0)
		return -1;
	if (zd_write_all(fd, buf, (size_t)size, err) < 0)
		return -1;
	return write_padding(fd, size, err);
}

int
zd_ar_begin_member(int fd, uint64_t *hdr_off, struct zd_error *err)
{
	char blank[ZD_AR_HDR_LEN];
	off_t here = lseek(fd, 0, SEEK_CUR);

	if (here < 0)
		return zd_err_errno(err, ZD_E_IO, "cannot seek");
	*hdr_off = (uint64_t)here;
	memset(blank, ' ', sizeof(blank));
	return zd_write_all(fd, blank, sizeof(blank), err);
}

int
zd_ar_end_member(int fd, uint64_t hdr_off, const char *name, uint64_t mtime,
                 uint64_t size, struct zd_error *err)
{
	char hdr[ZD_AR_HDR_LEN + 1];
	off_t here = lseek(fd, 0, SEEK_CUR);

	if (here < 0)
		return zd_err_errno(err, ZD_E_IO, "cannot seek");
	if ((uint64_t)here != hdr_off + ZD_AR_HDR_LEN + size)
		return zd_err(err, ZD_E_INTERNAL, "ar member '%s' ends at "
		              "%jd, not %ju", name, (intmax_t)here,
		              (uintmax_t)(hdr_off + ZD_AR_HDR_LEN + size));
	if (format_header(hdr, name, mtime, size, err) < 0)
		return -1;
	if (zd_pwrite_all(fd, hdr, ZD_AR_HDR_LEN, hdr_off, err) < 0) {
		zd_err_prefix(err, "ar member '%s'", name);
		return -1;
	}
	return write_padding(fd, size, err);
}

int
zd_ar_check_magic(int fd, struct zd_error *err)
{
	char magic[ZD_AR_MAGIC_LEN];
	ssize_t n;

	do
		n = pread(fd, magic, sizeof(magic), 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return zd_err_errno(err, ZD_E_IO, "cannot read ar magic");
	if ((size_t)n < sizeof(magic))
		return zd_err(err, ZD_E_FORMAT, "not an ar archive (file too "
		              "short)");
	if (memcmp(magic, ZD_AR_MAGIC, ZD_AR_MAGIC_LEN) != 0)
		return zd_err(err, ZD_E_FORMAT, "not an ar archive (bad "
		              "magic)");
	return 0;
}

/* Copies a field for messages, with non-printable bytes shown as '?'. */
static void
field_str(char *dst, const unsigned char *src, size_t len)
{
	for (size_t i = 0; i < len; i++)
		dst[i] = src[i] >= 0x20 && src[i] < 0x7f ? (char)src[i] : '?';
	dst[len] = '\0';
}

/*
 * Parses spaces, digits in base, spaces.  An all-space field is 0 when
 * blank_ok, an error otherwise.  Returns 0, or -1 on a bad field.
 */
static int
parse_num(const unsigned char *f, size_t len, unsigned base, bool blank_ok,
          uint64_t max, uint64_t *out)
{
	size_t i = 0;
	uint64_t v = 0;
	bool digits = false;

	while (i < len && f[i] == ' ')
		i++;
	for (; i < len && f[i] >= '0' && f[i] < '0' + base; i++) {
		if (__builtin_mul_overflow(v, (uint64_t)base, &v) ||
		    __builtin_add_overflow(v, (uint64_t)(f[i] - '0'), &v))
			return -1;
		digits = true;
	}
	while (i < len && f[i] == ' ')
		i++;
	if (i != len || (!digits && !blank_ok) || v > max)
		return -1;
	*out = v;
	return 0;
}

int
zd_ar_parse_header(const unsigned char hdr[ZD_AR_HDR_LEN], uint64_t hdr_off,
                   struct zd_ar_member *m, struct zd_error *err)
{
	static const struct {
		const char *what;
		size_t off, len;
		unsigned base;
		bool blank_ok;
		uint64_t max;
	} fields[] = {
		{ "time", 16, AR_MTIME_W, 10, true, UINT64_MAX },
		{ "uid", 28, AR_UID_W, 10, true, UINT32_MAX },
		{ "gid", 34, AR_GID_W, 10, true, UINT32_MAX },
		{ "mode", 40, AR_MODE_W, 8, true, UINT32_MAX },
		{ "size", 48, AR_SIZE_W, 10, false, UINT64_MAX },
	};
	uint64_t vals[5];
	char shown[AR_NAME_W + 1];
	struct zd_ar_member tmp;
	int i;

	field_str(shown, hdr, AR_NAME_W);
	for (i = AR_NAME_W - 1; i >= 0 && shown[i] == ' '; i--)
		shown[i] = '\0';
	if (memcmp(hdr + ZD_AR_HDR_LEN - AR_FMAG_W, AR_FMAG, AR_FMAG_W) != 0)
		return zd_err(err, ZD_E_FORMAT, "corrupt ar member header at "
		              "offset %" PRIu64 ": bad header trailer (expected "
		              "'`\\n')", hdr_off);
	if (memchr(hdr, '\0', AR_NAME_W) != NULL)
		return zd_err(err, ZD_E_FORMAT, "corrupt ar member header at "
		              "offset %" PRIu64 ": NUL byte in member name '%s'",
		              hdr_off, shown);
	for (size_t f = 0; f < sizeof(fields) / sizeof(fields[0]); f++) {
		char val[AR_MTIME_W + 1];

		if (parse_num(hdr + fields[f].off, fields[f].len,
		              fields[f].base, fields[f].blank_ok,
		              fields[f].max, &vals[f]) == 0)
			continue;
		field_str(val, hdr + fields[f].off, fields[f].len);
		return zd_err(err, ZD_E_FORMAT, "corrupt ar member header at "
		              "offset %" PRIu64 ": member '%s': %s '%s' is not "
		              "%s", hdr_off, shown, fields[f].what, val,
		              fields[f].base == 8 ? "an octal number" :
		              "a decimal number");
	}

	memset(&tmp, 0, sizeof(tmp));
	memcpy(tmp.name, hdr, AR_NAME_W);
	tmp.name[AR_NAME_W] = '\0';
	/* Trailing spaces, then the optional GNU '/' terminator. */
	for (i = AR_NAME_W - 1; i >= 0 && tmp.name[i] == ' '; i--)
		tmp.name[i] = '\0';
	if (i >= 0 && tmp.name[i] == '/')
		tmp.name[i] = '\0';
	tmp.mtime = vals[0];
	tmp.uid = (unsigned)vals[1];
	tmp.gid = (unsigned)vals[2];
	tmp.mode = (unsigned)vals[3];
	tmp.size = vals[4];
	tmp.hdr_off = hdr_off;
	if (__builtin_add_overflow(hdr_off, (uint64_t)ZD_AR_HDR_LEN,
	                           &tmp.data_off))
		return zd_err(err, ZD_E_FORMAT, "corrupt ar member header at "
		              "offset %" PRIu64 ": offset overflow", hdr_off);
	*m = tmp;
	return 0;
}

int
zd_ar_next(int fd, uint64_t file_size, uint64_t *off, struct zd_ar_member *m,
           struct zd_error *err)
{
	unsigned char hdr[ZD_AR_HDR_LEN];
	struct zd_ar_member tmp;
	uint64_t end;

	if (*off == file_size)
		return 0;
	if (*off > file_size || file_size - *off < ZD_AR_HDR_LEN)
		return zd_err(err, ZD_E_FORMAT, "truncated ar member header "
		              "at offset %" PRIu64 " (%" PRIu64 " bytes left)",
		              *off, *off > file_size ? 0 : file_size - *off);
	if (zd_pread_all(fd, hdr, sizeof(hdr), *off, err) < 0)
		return -1;
	if (zd_ar_parse_header(hdr, *off, &tmp, err) < 0)
		return -1;
	if (__builtin_add_overflow(tmp.data_off, tmp.size, &end) ||
	    end > file_size)
		return zd_err(err, ZD_E_FORMAT, "ar member '%s' at offset "
		              "%" PRIu64 ": size %" PRIu64 " runs past the end "
		              "of the file (%" PRIu64 " bytes)", tmp.name,
		              tmp.hdr_off, tmp.size, file_size);
	/* The padding byte; tolerated missing at the very end. */
	if ((tmp.size & 1) && end < file_size)
		end++;
	*off = end;
	*m = tmp;
	return 1;
}
