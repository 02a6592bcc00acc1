/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * control.h - deb822 control paragraphs: parse, look up, keep the order
 */
#ifndef ZDEB_CONTROL_H
#define ZDEB_CONTROL_H

#include <stddef.h>

#include "lib/error.h"

struct zd_field {
	char *name;	/* as written ("Package") */
	char *value;	/* first line and continuation lines joined with
	                   '\n', leading space of the first line removed,
	                   continuation lines kept verbatim (" text") */
};

struct zd_control {
	struct zd_field *fields;
	size_t n;
};

/*
 * Parses one paragraph (the first) of buf.  what names the source in
 * messages ("DEBIAN/control").  Rejects: a line that is not "Name: value"
 * or a continuation, a continuation before any field, a duplicate field
 * (case-insensitive), an empty field name, NUL bytes.  Returns 0, or -1
 * with err set (ZD_E_FORMAT, naming the line number).
 */
int zd_control_parse(const char *buf, size_t len, const char *what,
                     struct zd_control *ctl, struct zd_error *err);
/* Reads and parses a file. */
int zd_control_parse_file(const char *path, struct zd_control *ctl,
                          struct zd_error *err);
/* Case-insensitive lookup; NULL when absent. */
const char *zd_control_get(const struct zd_control *ctl, const char *name);
void zd_control_free(struct zd_control *ctl);

#endif
