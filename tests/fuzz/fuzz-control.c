/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-control.c - the control file parsers: deb822 (zd_dpkg_control_parse) and
 * dpkg's field parsers on top (zd_dpkg_pkginfo_parse), then every field writer
 * and the --showformat printer on what parsed
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/dpkg-format.h"
#include "lib/dpkg-pkginfo.h"
#include "tests/fuzz/fuzz.h"

static void
count(void *ctx, const char *msg)
{
	size_t *n = ctx;

	*n += strlen(msg) > 0;
}

/* Writes every dpkg field and the virtual ones of pi somewhere. */
static void
write_all(const struct zd_pkginfo *pi)
{
	static const char fmt[] = "${binary:Package}|${source:Version}|"
	                          "${source:Upstream-Version}|${source:Package}"
	                          "|${binary:Synopsis}|${Depends;-12}|${X-A}";
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_pkgformat *f = zd_dpkg_format_parse(fmt, &err);
	FILE *null = fopen("/dev/null", "w");
	char *s;

	if (null != NULL) {
		for (int id = 0; id < ZD_FIELD__COUNT; id++) {
			zd_dpkg_pkginfo_field(null, pi,
			                      zd_dpkg_control_field_name(id),
			                      true);
			zd_dpkg_pkginfo_field(null, pi,
			                      zd_dpkg_control_field_name(id),
			                      false);
		}
		zd_dpkg_pkginfo_field(null, pi, "X-A", true);
		fclose(null);
	}
	if (f == NULL)
		abort();
	s = zd_dpkg_format_print(f, pi, &err);
	free(s);
	zd_dpkg_format_free(f);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_control ctl;
	struct zd_pkginfo pi;
	size_t warnings = 0;
	struct zd_pkginfo_opts o = {
		.file = "fuzz", .native_arch = "amd64",
		.warn = count, .warn_ctx = &warnings,
	};
	/* A copy without slack, so that reads past size are caught. */
	char *buf = malloc(size ? size : 1);

	if (buf == NULL)
		return 0;
	memcpy(buf, data, size);
	if (zd_dpkg_control_parse(buf, size, "fuzz", &ctl, &err) == 0) {
		for (size_t i = 0; i < ctl.n; i++)
			if (zd_dpkg_control_get(&ctl, ctl.fields[i].name) ==
			    NULL)
				abort();
		(void)zd_dpkg_control_get(&ctl, "Package");
		zd_dpkg_control_free(&ctl);
	}
	if (zd_dpkg_pkginfo_parse(buf, size, &o, &ctl, &pi, &err) == 0) {
		if (pi.name == NULL || pi.version.version == NULL ||
		    pi.warnings != warnings)
			abort();
		write_all(&pi);
	}
	zd_dpkg_pkginfo_free(&pi);
	zd_dpkg_control_free(&ctl);
	free(buf);
	return 0;
}
