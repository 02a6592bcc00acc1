/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tar-header.h - GNU tar 1.34 --format=gnu header blocks, byte for byte
 *
 * A writer only (reading tar goes through libarchive).  The field layout is
 * the GNU "ustar  " header of GNU tar's src/tar.h; the rules for filling
 * it are those of GNU tar 1.34 src/create.c, checked against its output:
 * numbers are octal with leading zeros and a NUL (size - 1 digits), or
 * base-256 (0x80 or 0xff, then two's complement) when they do not fit;
 * the checksum is six octal digits, a NUL and a space; names and link
 * names longer than 100 bytes are preceded by a "././@LongLink" record.
 */
#ifndef ZDEB_TAR_HEADER_H
#define ZDEB_TAR_HEADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ZD_TAR_BLOCK 512
#define ZD_TAR_RECORD 10240	/* GNU tar's default: 20 blocks */
#define ZD_TAR_NAME_SIZE 100

/* Type flags (GNU tar src/tar.h). */
#define ZD_TAR_REG '0'
#define ZD_TAR_LNK '1'
#define ZD_TAR_SYM '2'
#define ZD_TAR_CHR '3'
#define ZD_TAR_BLK '4'
#define ZD_TAR_DIR '5'
#define ZD_TAR_FIFO '6'
#define ZD_TAR_LONGLINK 'K'
#define ZD_TAR_LONGNAME 'L'

struct zd_tarhdr {
	const char *name;	/* full name; only 100 bytes are stored */
	const char *linkname;	/* NULL or full link target */
	uint32_t mode;		/* permission bits (07777) */
	uint64_t uid;
	uint64_t gid;
	uint64_t size;
	int64_t mtime;
	char type;		/* ZD_TAR_* */
	bool has_dev;		/* char or block device */
	uint64_t devmajor;
	uint64_t devminor;
	const char *uname;	/* "" when unknown */
	const char *gname;
};

/*
 * Stores value in a numeric field of size bytes as GNU tar does.  Returns
 * false if it does not fit even in base-256 (the field is then garbage).
 */
bool zd_tar_header_put_num(unsigned char *field, size_t size, bool negative,
                       uint64_t value);

/*
 * Fills blk with the header for h (name and link name cut to 100 bytes:
 * the caller writes the long-name records first, see zd_tar_header_longlink).
 * Returns false if a number does not fit its field.
 */
bool zd_tar_header_encode(const struct zd_tarhdr *h,
                      unsigned char blk[ZD_TAR_BLOCK]);

/*
 * Fills blk with the "././@LongLink" header announcing a name of len bytes
 * (ZD_TAR_LONGNAME) or link target (ZD_TAR_LONGLINK); its data is the
 * string and a NUL, padded to a block.  uname and gname are the names of
 * uid 0 and gid 0 on this system, as GNU tar looks them up.
 */
void zd_tar_header_longlink(char type, size_t len, const char *uname,
                        const char *gname, unsigned char blk[ZD_TAR_BLOCK]);

#endif
