/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dd-build.c - dpkg-deb -b: do_build() of src/deb/build.c (dpkg 1.21.22)
 *
 * gzip, xz, none, and zstd with ZDEB_LAYOUT=single (or dpkg) give the bytes
 * dpkg-deb gives; zstd otherwise uses zdeb's indexed layout, which stock
 * dpkg reads as one frame.  dpkg-deb's checks (lib/dpkg-check) give its
 * warnings and errors, worded as it words them.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "lib/deb-build.h"
#include "lib/dpkg-check.h"
#include "src/cmd.h"
#include "src/dd.h"
#include "src/msg.h"

static unsigned
threads(void)
{
	unsigned n = zd_cli_ncpus();

	if (dd_opts.threads_max < 0)
		return n;
	if (dd_opts.threads_max < 1)
		return 1;
	return (unsigned long)dd_opts.threads_max < n ?
	       (unsigned)dd_opts.threads_max : n;
}

static void
comp_params(struct zd_comp_params *p)
{
	const char *layout = getenv("ZDEB_LAYOUT");

	memset(p, 0, sizeof(*p));
	p->type = (enum zd_comp_type)dd_opts.comp_type;
	p->level = dd_opts.level;
	/* libzstd's level 0 is its default, 3. */
	if (p->type == ZD_COMP_ZSTD && p->level == 0)
		p->level = 3;
	p->strategy = dd_opts.strategy == ZD_STRATEGY_NONE ?
	              ZD_STRATEGY_DEFAULT : (enum zd_strategy)dd_opts.strategy;
	p->threads = threads();
	p->layout = ZD_LAYOUT_INDEXED;
	if (layout != NULL && (strcmp(layout, "single") == 0 ||
	                       strcmp(layout, "dpkg") == 0))
		p->layout = ZD_LAYOUT_DPKG;
	p->warn = zd_msg_warn_cb;
	zd_codec_fixup_params(p);
}

static bool
is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* dpkg-deb's parse_timestamp(): SOURCE_DATE_EPOCH, else now. */
static int
timestamp(int64_t *ts)
{
	const char *s = getenv("SOURCE_DATE_EPOCH");
	char *end;
	long long v;

	if (s == NULL) {
		*ts = (int64_t)time(NULL);
		return 0;
	}
	errno = 0;
	v = strtoll(s, &end, 10);
	if (s == end || *end != '\0' || errno != 0)
		return dd_fail("unable to parse timestamp '%.255s': %s", s,
		               strerror(errno));
	*ts = v;
	return 0;
}

int
dd_do_build(char **argv)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_control ctl = { 0 };
	struct zd_pkginfo pi = { 0 };
	struct zd_build_opts o;
	const char *dir, *dest;
	char *out = NULL;
	int rc = ZD_EXIT_ERROR;

	dir = argv[0];
	if (dir == NULL)
		return dd_badusage("--%s needs a <directory> argument",
		                   dd_opts.action);
	dest = argv[1];
	if (dest != NULL && argv[2] != NULL)
		return dd_badusage("--%s takes at most two arguments",
		                   dd_opts.action);
	if (dd_opts.old_deb_format)
		return dd_delegate("--deb-format=0.939000", NULL);

	memset(&o, 0, sizeof(o));
	if (dd_opts.nocheck) {
		if (dest != NULL && is_dir(dest))
			return dd_fail("target is directory - cannot skip "
			               "control file check");
		out = zd_deb_build_dest_path(dir, dest, NULL, &err);
		if (out == NULL)
			return dd_fail("%s", err.msg);
		fflush(stdout);
		fprintf(stderr, "dpkg-deb: warning: not checking contents of "
		        "control area\n");
		printf("dpkg-deb: building an unknown package in '%s'.\n",
		       out);
	} else {
		struct zd_pkgcheck_opts co = {
			.native_arch = zd_dpkg_pkginfo_native_arch(),
			.warn = zd_msg_warn_cb,
		};

		/* dpkg-deb's check_control_area(): its warnings as they come,
		 * its error as it words it. */
		if (zd_dpkg_check_tree(dir, &co, &ctl, &pi, &err) < 0)
			goto fail;
		out = zd_deb_build_dest_path(dir, dest, &pi, &err);
		if (out == NULL)
			goto fail;
		printf("dpkg-deb: building package '%s' in '%s'.\n", pi.name,
		       out);
	}
	if (fflush(stdout) != 0) {
		rc = dd_fail("error writing to '<standard output>': %s",
		             strerror(errno));
		goto out;
	}
	if (timestamp(&o.timestamp) < 0)
		goto out;

	comp_params(&o.data);
	if (dd_opts.uniform) {
		o.control = o.data;
	} else {
		memset(&o.control, 0, sizeof(o.control));
		o.control.type = ZD_COMP_GZIP;
		o.control.level = 9;
		o.control.strategy = ZD_STRATEGY_DEFAULT;
		o.control.threads = 1;
		o.control.warn = zd_msg_warn_cb;
	}
	o.root_owner_group = dd_opts.root_owner_group != 0;
	dd_debug("compressor %s, level %d, threads %u%s",
	         zd_codec_get(o.data.type)->name, o.data.level,
	         o.data.threads, o.data.type == ZD_COMP_ZSTD ?
	         (o.data.layout == ZD_LAYOUT_DPKG ? ", dpkg layout" :
	          ", indexed layout") : "");
	if (zd_deb_build(dir, out, &o, &err) < 0)
		goto fail;
	rc = ZD_EXIT_OK;
	goto out;
fail:
	rc = dd_fail("%s", err.msg);
out:
	free(out);
	zd_dpkg_pkginfo_free(&pi);
	zd_dpkg_control_free(&ctl);
	return rc;
}
