/* SPDX-License-Identifier: GPL-2.0-or-later */
/* params.c - the names of the parameters' values */
#include "config.h"

#include <string.h>

#include "lib/params.h"

static const char *const layout_names[] = {
	[ZD_LAYOUT_INDEXED] = "indexed",
	[ZD_LAYOUT_SINGLE] = "single",
	[ZD_LAYOUT_FRAMES] = "frames",
	[ZD_LAYOUT_PZSTD] = "pzstd",
	[ZD_LAYOUT_DPKG] = "dpkg",
};

const char *
zd_layout_name(enum zd_zstd_layout l)
{
	return (size_t)l < sizeof(layout_names) / sizeof(*layout_names) ?
	       layout_names[l] : "unknown";
}

int
zd_layout_parse(const char *s, enum zd_zstd_layout *l)
{
	for (size_t i = 0; i < sizeof(layout_names) / sizeof(*layout_names);
	     i++) {
		if (strcmp(s, layout_names[i]) == 0) {
			*l = (enum zd_zstd_layout)i;
			return 0;
		}
	}
	return -1;
}
