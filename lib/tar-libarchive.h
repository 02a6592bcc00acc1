/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tar-libarchive.h - libarchive, loaded the first time a tar is read
 *
 * Linked in, libarchive brings libxml2, ICU and libstdc++ into every start
 * of zdeb: about 1 ms and 140 page faults, paid twice per package when
 * dpkg runs zdeb as dpkg-deb, though only extraction and listing read a
 * tar.  So zdeb does not link it: the first zd_tar_libarchive_tar_reader() call
 * loads it with dlopen() and looks up the functions below; the names used
 * in lib/ resolve to those pointers through the macros at the end.  Include
 * this instead of <archive.h>.  This departs knowingly from the house
 * style's link-time dependencies (PKG_CHECK_MODULES and link): configure
 * still checks libarchive that way, but only to learn its SONAME.
 */
#ifndef ZDEB_TAR_LIBARCHIVE_H
#define ZDEB_TAR_LIBARCHIVE_H

#include <archive.h>
#include <archive_entry.h>

#include "lib/error.h"

/* Every libarchive function zdeb calls. */
#define ZD_ARCHIVE_FUNCS(X) \
	X(archive_entry_filetype) \
	X(archive_entry_gid) \
	X(archive_entry_gname) \
	X(archive_entry_hardlink) \
	X(archive_entry_mtime) \
	X(archive_entry_mtime_is_set) \
	X(archive_entry_mtime_nsec) \
	X(archive_entry_pathname) \
	X(archive_entry_perm) \
	X(archive_entry_rdevmajor) \
	X(archive_entry_rdevminor) \
	X(archive_entry_size) \
	X(archive_entry_size_is_set) \
	X(archive_entry_symlink) \
	X(archive_entry_uid) \
	X(archive_entry_uname) \
	X(archive_error_string) \
	X(archive_read_data) \
	X(archive_read_data_block) \
	X(archive_read_data_skip) \
	X(archive_read_free) \
	X(archive_read_new) \
	X(archive_read_next_header) \
	X(archive_read_open_fd) \
	X(archive_read_open_memory) \
	X(archive_read_support_format_gnutar) \
	X(archive_read_support_format_tar) \
	/* EOL */

#define ZD_ARCHIVE_PTR(f) __typeof__(f) *fn_##f;
struct zd_archive_fns {
	ZD_ARCHIVE_FUNCS(ZD_ARCHIVE_PTR)
};
#undef ZD_ARCHIVE_PTR

/* Filled by the first successful load; read through the macros below. */
extern struct zd_archive_fns zd_archive_fns;

/*
 * Loads the library named soname into *fns.  Returns 0, or -1 with err set
 * (ZD_E_IO: "cannot load libarchive (NAME): WHY").  Thread-safe; used by
 * zd_tar_libarchive_tar_reader() with the SONAME found by configure.
 */
int zd_tar_libarchive_load(const char *soname, struct zd_archive_fns *fns,
                    struct zd_error *err);

/*
 * A new libarchive reader of tar (POSIX and GNU) streams, libarchive
 * loaded first if need be; open it with archive_read_open_*().  NULL with
 * err set (out of memory, or the load's error).
 */
struct archive *zd_tar_libarchive_tar_reader(struct zd_error *err);

/*
 * zd_tar_libarchive_tar_reader() opened on fd (read in 64 KiB blocks).
 * NULL with err set, as zd_tar_libarchive_fail() words it.
 */
struct archive *zd_tar_libarchive_tar_open_fd(int fd, struct zd_error *err);

/*
 * Sets err (ZD_E_FORMAT) from a's last error: "WHAT member 'NAME': WHY",
 * or "WHAT: WHY" when name is NULL.  Returns -1.
 */
int zd_tar_libarchive_fail(struct archive *a, const char *what,
                           const char *name, struct zd_error *err);

#ifndef ZD_ARCHIVE_LAZY_IMPL
#define archive_entry_filetype (*zd_archive_fns.fn_archive_entry_filetype)
#define archive_entry_gid (*zd_archive_fns.fn_archive_entry_gid)
#define archive_entry_gname (*zd_archive_fns.fn_archive_entry_gname)
#define archive_entry_hardlink (*zd_archive_fns.fn_archive_entry_hardlink)
#define archive_entry_mtime (*zd_archive_fns.fn_archive_entry_mtime)
#define archive_entry_mtime_is_set (*zd_archive_fns.fn_archive_entry_mtime_is_set)
#define archive_entry_mtime_nsec (*zd_archive_fns.fn_archive_entry_mtime_nsec)
#define archive_entry_pathname (*zd_archive_fns.fn_archive_entry_pathname)
#define archive_entry_perm (*zd_archive_fns.fn_archive_entry_perm)
#define archive_entry_rdevmajor (*zd_archive_fns.fn_archive_entry_rdevmajor)
#define archive_entry_rdevminor (*zd_archive_fns.fn_archive_entry_rdevminor)
#define archive_entry_size (*zd_archive_fns.fn_archive_entry_size)
#define archive_entry_size_is_set (*zd_archive_fns.fn_archive_entry_size_is_set)
#define archive_entry_symlink (*zd_archive_fns.fn_archive_entry_symlink)
#define archive_entry_uid (*zd_archive_fns.fn_archive_entry_uid)
#define archive_entry_uname (*zd_archive_fns.fn_archive_entry_uname)
#define archive_error_string (*zd_archive_fns.fn_archive_error_string)
#define archive_read_data (*zd_archive_fns.fn_archive_read_data)
#define archive_read_data_block (*zd_archive_fns.fn_archive_read_data_block)
#define archive_read_data_skip (*zd_archive_fns.fn_archive_read_data_skip)
#define archive_read_free (*zd_archive_fns.fn_archive_read_free)
#define archive_read_new (*zd_archive_fns.fn_archive_read_new)
#define archive_read_next_header (*zd_archive_fns.fn_archive_read_next_header)
#define archive_read_open_fd (*zd_archive_fns.fn_archive_read_open_fd)
#define archive_read_open_memory (*zd_archive_fns.fn_archive_read_open_memory)
#define archive_read_support_format_gnutar \
	(*zd_archive_fns.fn_archive_read_support_format_gnutar)
#define archive_read_support_format_tar \
	(*zd_archive_fns.fn_archive_read_support_format_tar)
#endif

#endif
