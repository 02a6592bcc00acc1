/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tar-header.c - GNU tar 1.34 --format=gnu header blocks, byte for byte
 *
 * Why not libarchive's "gnutar" writer: its output is not GNU tar's.  For
 * the same input it writes the ././@LongLink record with mode 0000000 (GNU
 * tar: 0000644) and gname "wheel" (GNU tar: the name of gid 0), and it
 * ends the archive after two zero blocks instead of padding to a 10240-byte
 * record.  dpkg-deb runs GNU tar, so only our own encoder can match it.
 */
#include "config.h"

#include <assert.h>
#include <string.h>

#include "lib/tar-header.h"

/* Offsets and sizes of the fields (GNU tar src/tar.h, struct posix_header) */
#define OFF_NAME 0
#define OFF_MODE 100
#define OFF_UID 108
#define OFF_GID 116
#define OFF_SIZE 124
#define OFF_MTIME 136
#define OFF_CHKSUM 148
#define OFF_TYPE 156
#define OFF_LINKNAME 157
#define OFF_MAGIC 257
#define OFF_UNAME 265
#define OFF_GNAME 297
#define OFF_DEVMAJOR 329
#define OFF_DEVMINOR 337

/* OLDGNU_MAGIC: magic "ustar " and version " \0" in one go. */
static const char gnu_magic[8] = "ustar  ";

static_assert(sizeof(gnu_magic) == 8, "GNU magic spans magic and version");
static_assert(OFF_DEVMINOR + 8 == 345, "GNU header layout");

bool
zd_tar_header_put_num(unsigned char *field, size_t size, bool negative,
                  uint64_t value)
{
	const size_t digits = size - 1;

	assert(size >= 2 && size <= 12);
	/* POSIX octal, size - 1 digits and a NUL. */
	if (!negative && (digits * 3 >= 64 || value < (UINT64_C(1) <<
	                                                (digits * 3)))) {
		uint64_t v = value;

		field[digits] = '\0';
		for (size_t i = digits; i-- > 0;) {
			field[i] = (unsigned char)('0' + (v & 7));
			v >>= 3;
		}
		return true;
	}
	/* GNU base-256: 0x80 (or 0xff if negative), size - 1 bytes. */
	{
		const uint64_t mag = negative ? ~value : value;
		uint64_t v = value;

		if (digits * 8 < 64 && mag >= (UINT64_C(1) << (digits * 8)))
			return false;
		field[0] = negative ? 0xff : 0x80;
		for (size_t i = digits; i > 0; i--) {
			field[i] = (unsigned char)(v & 0xff);
			v >>= 8;
			if (negative)
				v |= UINT64_C(0xff) << 56;
		}
		return true;
	}
}

/* tar_copy_str(): at most len bytes, NUL only if the string is shorter. */
static void
copy_str(unsigned char *dst, const char *src, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		dst[i] = (unsigned char)src[i];
		if (src[i] == '\0')
			break;
	}
}

/* string_to_chars(): as copy_str, but the last byte is always NUL. */
static void
copy_str_nul(unsigned char *dst, const char *src, size_t len)
{
	copy_str(dst, src, len);
	dst[len - 1] = '\0';
}

static void
finish(unsigned char blk[ZD_TAR_BLOCK])
{
	unsigned sum = 0;

	memset(blk + OFF_CHKSUM, ' ', 8);
	for (size_t i = 0; i < ZD_TAR_BLOCK; i++)
		sum += blk[i];
	/* Six digits and a NUL; the eighth byte stays a space. */
	zd_tar_header_put_num(blk + OFF_CHKSUM, 7, false, sum);
}

bool
zd_tar_header_encode(const struct zd_tarhdr *h, unsigned char blk[ZD_TAR_BLOCK])
{
	bool ok = true;

	memset(blk, 0, ZD_TAR_BLOCK);
	copy_str(blk + OFF_NAME, h->name, ZD_TAR_NAME_SIZE);
	ok &= zd_tar_header_put_num(blk + OFF_MODE, 8, false, h->mode & 07777);
	ok &= zd_tar_header_put_num(blk + OFF_UID, 8, false, h->uid);
	ok &= zd_tar_header_put_num(blk + OFF_GID, 8, false, h->gid);
	ok &= zd_tar_header_put_num(blk + OFF_SIZE, 12, false, h->size);
	ok &= zd_tar_header_put_num(blk + OFF_MTIME, 12, h->mtime < 0,
	                        (uint64_t)h->mtime);
	/* GNU format leaves both device fields zero for non-devices. */
	if (h->has_dev) {
		ok &= zd_tar_header_put_num(blk + OFF_DEVMAJOR, 8, false,
		                        h->devmajor);
		ok &= zd_tar_header_put_num(blk + OFF_DEVMINOR, 8, false,
		                        h->devminor);
	}
	memcpy(blk + OFF_MAGIC, gnu_magic, sizeof(gnu_magic));
	copy_str_nul(blk + OFF_UNAME, h->uname, 32);
	copy_str_nul(blk + OFF_GNAME, h->gname, 32);
	blk[OFF_TYPE] = (unsigned char)h->type;
	if (h->linkname != NULL)
		copy_str(blk + OFF_LINKNAME, h->linkname, ZD_TAR_NAME_SIZE);
	finish(blk);
	return ok;
}

void
zd_tar_header_longlink(char type, size_t len, const char *uname,
                   const char *gname, unsigned char blk[ZD_TAR_BLOCK])
{
	static const char name[] = "././@LongLink";

	memset(blk, 0, ZD_TAR_BLOCK);
	memcpy(blk + OFF_NAME, name, sizeof(name));
	/* start_private_header(): S_IFREG | 0644 (type bits dropped), 0:0 */
	zd_tar_header_put_num(blk + OFF_MODE, 8, false, 0644);
	zd_tar_header_put_num(blk + OFF_UID, 8, false, 0);
	zd_tar_header_put_num(blk + OFF_GID, 8, false, 0);
	zd_tar_header_put_num(blk + OFF_SIZE, 12, false, (uint64_t)len + 1);
	zd_tar_header_put_num(blk + OFF_MTIME, 12, false, 0);
	memcpy(blk + OFF_MAGIC, gnu_magic, sizeof(gnu_magic));
	copy_str_nul(blk + OFF_UNAME, uname, 32);
	copy_str_nul(blk + OFF_GNAME, gname, 32);
	blk[OFF_TYPE] = (unsigned char)type;
	finish(blk);
}
