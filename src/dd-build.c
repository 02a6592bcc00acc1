/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dd-build.c - dpkg-deb -b: do_build() of src/deb/build.c (dpkg 1.21.22)
 *
 * gzip, xz, none, and zstd with ZDEB_LAYOUT=single (or dpkg) give the bytes
 * dpkg-deb gives; zstd otherwise uses zdeb's indexed layout, which stock
 * dpkg reads as one frame.  A tree that fails dpkg-deb's checks, or only
 * draws warnings, goes to the real dpkg-deb, so its messages are exact.
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

struct warnings {
	unsigned n;
	char first[512];
};

static void
count_warning(void *ctx, const char *msg)
{
	struct warnings *w = ctx;

	if (w->n++ == 0)
		snprintf(w->first, sizeof(w->first), "%s", msg);
}

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
		return -1;
	*ts = v;
	return 0;
}

int
dd_do_build(char **argv)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_control ctl = { 0 };
	struct zd_build_opts o;
	struct warnings w = { 0 };
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
	if (timestamp(&o.timestamp) < 0)
		return dd_delegate("SOURCE_DATE_EPOCH is not a number", NULL);

	if (dd_opts.nocheck) {
		if (dest != NULL && is_dir(dest))
			return dd_fail("target is directory - cannot skip "
			               "control file check");
		out = zd_build_dest_path(dir, dest, NULL, &err);
		if (out == NULL)
			return dd_fail("%s", err.msg);
		fflush(stdout);
		fprintf(stderr, "dpkg-deb: warning: not checking contents of "
		        "control area\n");
		printf("dpkg-deb: building an unknown package in '%s'.\n",
		       out);
	} else {
		if (zd_pkgcheck_tree_warn(dir, &ctl, count_warning, &w,
		                          &err) < 0) {
			/* The real dpkg-deb words it exactly; else ours. */
			if (dd_have_real())
				return dd_delegate(err.msg, NULL);
			return dd_fail("%s", err.msg);
		}
		if (w.n > 0 && dd_have_real()) {
			zd_control_free(&ctl);
			return dd_delegate(w.first, NULL);
		}
		if (w.n > 0) {
			/* Again, printing them this time. */
			zd_control_free(&ctl);
			if (zd_pkgcheck_tree_warn(dir, &ctl, zd_msg_warn_cb,
			                          NULL, &err) < 0)
				return dd_fail("%s", err.msg);
		}
		out = zd_build_dest_path(dir, dest, &ctl, &err);
		if (out == NULL)
			goto fail;
		printf("dpkg-deb: building package '");
		for (const char *p = zd_control_get(&ctl, "Package");
		     *p != '\0'; p++)
			putchar(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
		printf("' in '%s'.\n", out);
	}
	if (fflush(stdout) != 0) {
		rc = dd_fail("error writing to '<standard output>': %s",
		             strerror(errno));
		goto out;
	}

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
	if (zd_build_deb(dir, out, &o, &err) < 0)
		goto fail;
	rc = ZD_EXIT_OK;
	goto out;
fail:
	rc = dd_fail("%s", err.msg);
out:
	free(out);
	zd_control_free(&ctl);
	return rc;
}
