/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tar-libarchive.c - libarchive, loaded the first time a tar is read
 */
#include "config.h"

#define ZD_ARCHIVE_LAZY_IMPL
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

#include "lib/tar-libarchive.h"

struct zd_archive_fns zd_archive_fns;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static struct zd_error load_err = ZD_ERROR_INIT;
static int load_rc = -1;

/* glibc keeps dlerror()'s message per thread: no lock is needed. */
int
zd_tar_libarchive_load(const char *soname, struct zd_archive_fns *fns,
                struct zd_error *err)
{
	/* RTLD_LAZY: the functions used are looked up below anyway; binding
	 * the rest of the library's at load took 1.5 ms against 1.35. */
	void *h = dlopen(soname, RTLD_LAZY | RTLD_LOCAL);
	const char *missing = NULL;

	if (h == NULL)
		return zd_err(err, ZD_E_IO, "cannot load libarchive (%s): %s",
		              soname, dlerror());
	/* ISO C has no conversion from void * to a function pointer;
	 * POSIX guarantees dlsym()'s bytes are one, hence the memcpy. */
#define ZD_ARCHIVE_SYM(f) \
	do { \
		void *p = dlsym(h, #f); \
		if (p == NULL && missing == NULL) \
			missing = #f; \
		memcpy(&fns->fn_##f, &p, sizeof(p)); \
	} while (0);
	ZD_ARCHIVE_FUNCS(ZD_ARCHIVE_SYM)
#undef ZD_ARCHIVE_SYM
	if (missing != NULL) {
		dlclose(h);
		memset(fns, 0, sizeof(*fns));
		return zd_err(err, ZD_E_IO, "cannot load libarchive (%s): no "
		              "symbol %s", soname, missing);
	}
	return 0;	/* h stays open for the life of the process */
}

static void
load_default(void)
{
	load_rc = zd_tar_libarchive_load(ZD_ARCHIVE_SONAME, &zd_archive_fns,
	                          &load_err);
}

struct archive *
zd_tar_libarchive_tar_reader(struct zd_error *err)
{
	struct archive *a;

	pthread_once(&load_once, load_default);
	if (load_rc < 0) {
		if (err != NULL)
			*err = load_err;
		return NULL;
	}
	a = zd_archive_fns.fn_archive_read_new();
	if (a == NULL) {
		zd_err(err, ZD_E_NOMEM, "out of memory");
		return NULL;
	}
	zd_archive_fns.fn_archive_read_support_format_tar(a);
	zd_archive_fns.fn_archive_read_support_format_gnutar(a);
	return a;
}

struct archive *
zd_tar_libarchive_tar_open_fd(int fd, struct zd_error *err)
{
	struct archive *a = zd_tar_libarchive_tar_reader(err);

	if (a == NULL)
		return NULL;
	if (zd_archive_fns.fn_archive_read_open_fd(a, fd, 1 << 16) !=
	    ARCHIVE_OK) {
		zd_tar_libarchive_fail(a, "cannot read tar stream", NULL, err);
		zd_archive_fns.fn_archive_read_free(a);
		return NULL;
	}
	return a;
}

int
zd_tar_libarchive_fail(struct archive *a, const char *what, const char *name,
                struct zd_error *err)
{
	const char *msg = zd_archive_fns.fn_archive_error_string(a);

	if (msg == NULL)
		msg = "unknown error";
	if (name != NULL)
		return zd_err(err, ZD_E_FORMAT, "%s member '%s': %s", what,
		              name, msg);
	return zd_err(err, ZD_E_FORMAT, "%s: %s", what, msg);
}
