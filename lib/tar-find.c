/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tar-find.c - one file of a small tar held in memory (a control.tar)
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "lib/tar-find.h"
#include "lib/tar-libarchive.h"

static int
is_name(const char *path, const char *name)
{
	if (path[0] == '.' && path[1] == '/')
		path += 2;
	return strcmp(path, name) == 0;
}

int
zd_tar_find_file(const void *tar, size_t len, const char *name, char **text,
                 size_t *text_len, struct zd_error *err)
{
	struct archive *a = zd_tar_libarchive_tar_reader(err);
	struct archive_entry *e;
	int rc = 0, r;

	*text = NULL;
	*text_len = 0;
	if (a == NULL)
		return -1;
	if (archive_read_open_memory(a, tar, len) != ARCHIVE_OK) {
		rc = zd_err(err, ZD_E_FORMAT, "%s", archive_error_string(a));
		goto out;
	}
	while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
		la_int64_t size = archive_entry_size(e);
		la_ssize_t got;

		if (!is_name(archive_entry_pathname(e), name))
			continue;
		if (archive_entry_filetype(e) != AE_IFREG || size < 0 ||
		    size > (1 << 28)) {
			rc = zd_err(err, ZD_E_FORMAT, "%s is not a plain file "
			            "of sane size", name);
			goto out;
		}
		*text = malloc((size_t)size + 1);
		if (*text == NULL) {
			rc = zd_err(err, ZD_E_NOMEM, "out of memory");
			goto out;
		}
		got = archive_read_data(a, *text, (size_t)size);
		if (got != size) {
			free(*text);
			*text = NULL;
			rc = zd_err(err, ZD_E_FORMAT, "cannot read %s", name);
			goto out;
		}
		(*text)[size] = '\0';
		*text_len = (size_t)size;
		rc = 1;
		goto out;
	}
	if (r != ARCHIVE_EOF)
		rc = zd_err(err, ZD_E_FORMAT, "%s", archive_error_string(a));
out:
	archive_read_free(a);
	return rc;
}
