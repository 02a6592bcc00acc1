/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check-dpkg-check.c - dpkg-deb -b's checks of a package tree */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/dpkg-check.h"
#include "tests/unit/testutil.h"

#define GOOD_CONTROL \
	"Package: hello\nVersion: 1:2.10-3+b1\nArchitecture: amd64\n" \
	"Maintainer: M <m@example.org>\nDescription: greet\n"

/* tmpdir/p: a valid tree; setup then runs the case's shell snippet. */
static void
make_tree(const char *control, const char *sh)
{
	char path[4200];

	ck_assert_int_eq(zd_test_sh("cd '%s' && mkdir -p p/DEBIAN p/etc && "
	                            "chmod 0755 p/DEBIAN && echo x >p/etc/x "
	                            "&& echo y >p/etc/y", zd_test_tmpdir), 0);
	snprintf(path, sizeof(path), "%s/p/DEBIAN/control", zd_test_tmpdir);
	zd_test_write_file(path, control, strlen(control));
	if (sh != NULL)
		ck_assert_int_eq(zd_test_sh("cd '%s/p' && %s", zd_test_tmpdir,
		                            sh), 0);
}

static int
run(struct zd_control *ctl, struct zd_error *err)
{
	char dir[4200];

	snprintf(dir, sizeof(dir), "%s/p", zd_test_tmpdir);
	return zd_pkgcheck_tree(dir, ctl, err);
}

struct warnings {
	int n;
	char last[512];
};

static void
collect(void *ctx, const char *msg)
{
	struct warnings *w = ctx;

	w->n++;
	snprintf(w->last, sizeof(w->last), "%s", msg);
}

/* The first "dpkg-deb: error: " line of dpkg-deb -b on the tree, or NULL
 * when it built the package (or is not installed). */
static char *
dpkg_deb_error(void)
{
	char *out, *e, *nl;

	if (!zd_test_tool("command -v dpkg-deb >/dev/null", "dpkg-deb"))
		return NULL;
	if (zd_test_sh("cd '%s' && dpkg-deb -b p o.deb >/dev/null 2>err",
	               zd_test_tmpdir) == 0)
		return NULL;
	out = zd_test_read_text("err");
	e = strstr(out, "dpkg-deb: error: ");
	ck_assert_ptr_nonnull(e);
	e = strdup(e + 17);
	nl = strchr(e, '\n');
	if (nl != NULL && strncmp(e, "parsing file", 12) != 0)
		*nl = '\0';
	free(out);
	return e;
}

START_TEST(test_pkgcheck_good)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_control ctl;

	make_tree(GOOD_CONTROL, "printf '#!/bin/sh\\n' >DEBIAN/postinst && "
	          "chmod 0755 DEBIAN/postinst && ln -s postinst DEBIAN/prerm "
	          "&& printf '/etc/x\\nremove-on-upgrade /etc/gone\\n' "
	          ">DEBIAN/conffiles && chmod 0775 DEBIAN/postinst");
	ck_assert_int_eq(chdir(zd_test_tmpdir), 0);
	ck_assert_zd_ok(run(&ctl, &err), &err);
	ck_assert_str_eq(zd_control_get(&ctl, "Package"), "hello");
	zd_control_free(&ctl);
	ck_assert_ptr_null(dpkg_deb_error());
}
END_TEST

/*
 * Failing trees: control text, a shell snippet run in the tree, and the
 * message (a suffix of ours), and what dpkg-deb -b says.
 */
static const struct {
	const char *control;
	const char *sh;
	const char *msg;
	const char *dpkg;	/* "=": ours without the prefix; NULL: warns */
} bad[] = {
	{ "Version: 1\nArchitecture: all\nMaintainer: m\nDescription: d\n",
	  NULL, "control': missing 'Package' field", "=" },
	{ "Package: a\nArchitecture: all\nMaintainer: m\nDescription: d\n",
	  NULL, "control': missing 'Version' field", "=" },
	{ "Package: a\nVersion: 1\nMaintainer: m\nDescription: d\n",
	  NULL, "control': missing 'Architecture' field",
	  "package architecture is missing or empty" },
	{ "Package: a\nVersion: 1\nArchitecture: all\nDescription: d\n",
	  NULL, "control': missing 'Maintainer' field", NULL },
	{ "Package: a\nVersion: 1\nArchitecture: all\nMaintainer: m\n",
	  NULL, "control': missing 'Description' field", NULL },
	{ "Package: -a\nVersion: 1\nArchitecture: all\n",
	  NULL, "control' line 1: invalid package name in 'Package' field: "
	  "must start with an alphanumeric character", "=" },
	{ "Package: a_b\nVersion: 1\nArchitecture: all\nMaintainer: m\n"
	  "Description: d\n", NULL, "package name has characters that "
	  "aren't lowercase alphanums or '-+.'", "=" },
	{ "Package: a\nVersion: 1.0 beta\nArchitecture: all\n", NULL,
	  "control' line 2: 'Version' field value '1.0 beta': version string "
	  "has embedded spaces", "=" },
	{ "Package: a\nVersion: x1\nArchitecture: all\n", NULL,
	  "'Version' field value 'x1': version number does not start with "
	  "digit", "=" },
	{ "Package: a\nVersion: 1\nArchitecture: all\nMaintainer: m\n"
	  "Description: d\nStatus: install ok installed\n", NULL,
	  "line 6: value for 'Status' field not allowed in this context",
	  "=" },
	{ GOOD_CONTROL, "printf x >DEBIAN/postinst && chmod 0644 "
	  "DEBIAN/postinst", "maintainer script 'postinst' has bad "
	  "permissions 644 (must be >=0555 and <=0775)", "=" },
	{ GOOD_CONTROL, "printf x >DEBIAN/preinst && chmod 0777 "
	  "DEBIAN/preinst", "maintainer script 'preinst' has bad "
	  "permissions 777 (must be >=0555 and <=0775)", "=" },
	{ GOOD_CONTROL, "mkdir DEBIAN/config", "maintainer script 'config' "
	  "is not a plain file or symlink", "=" },
	{ GOOD_CONTROL, "chmod 0777 DEBIAN", "control directory has bad "
	  "permissions 777 (must be >=0755 and <=0775)", "=" },
	{ GOOD_CONTROL, "printf 'etc/x\\n' >DEBIAN/conffiles",
	  "conffile name 'etc/x' is not an absolute pathname", "=" },
	{ GOOD_CONTROL, "printf '/etc/x\\n/etc/x\\n' >DEBIAN/conffiles",
	  "conffile name '/etc/x' is duplicated", NULL },
	{ GOOD_CONTROL, "printf '/etc/nope\\n' >DEBIAN/conffiles",
	  "conffile '/etc/nope' does not appear in package", "=" },
	{ GOOD_CONTROL, "printf 'bogus /etc/x\\n' >DEBIAN/conffiles",
	  "unknown flag 'bogus' for conffile '/etc/x'", "=" },
	{ GOOD_CONTROL, "printf 'remove-on-upgrade \\n' >DEBIAN/conffiles",
	  "conffile name missing after flag 'remove-on-upgrade'", "=" },
	{ GOOD_CONTROL, "printf 'remove-on-upgrade /etc/x\\n' "
	  ">DEBIAN/conffiles", "conffile '/etc/x' is present but is requested "
	  "to be removed", "=" },
	{ GOOD_CONTROL, "printf '/etc/x' >DEBIAN/conffiles",
	  "conffile name '/etc/x' is too long, or missing final newline",
	  "=" },
	{ GOOD_CONTROL, "printf '/etc/x\\n \\n' >DEBIAN/conffiles",
	  "empty and whitespace-only lines are not allowed in conffiles",
	  "=" },
	{ GOOD_CONTROL, "printf ' /etc/x\\n' >DEBIAN/conffiles",
	  "line with conffile filename '/etc/x' has leading white spaces",
	  "=" },
	{ GOOD_CONTROL, "mkdir etc/d && printf '/etc/d\\n' >DEBIAN/conffiles",
	  "conffile '/etc/d' is not a plain file", NULL },
	{ "Package: a\nVersion: 1\nArchitecture: all\nPackage: b\n", NULL,
	  "line 4: duplicate value for 'Package' field", "=" },
};

START_TEST(test_pkgcheck_bad)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_control ctl = { NULL, 3 };
	size_t ml = strlen(bad[_i].msg), el;
	char *dpkg;

	make_tree(bad[_i].control, bad[_i].sh);
	ck_assert_int_eq(chdir(zd_test_tmpdir), 0);
	ck_assert_int_eq(run(&ctl, &err), -1);
	ck_assert_uint_eq(ctl.n, 0);
	el = strlen(err.msg);
	ck_assert_msg(el >= ml && strcmp(err.msg + el - ml, bad[_i].msg) == 0,
	              "case %d: got '%s'", _i, err.msg);
	dpkg = dpkg_deb_error();
	if (bad[_i].dpkg != NULL) {
		/* Parse-time messages differ in their prefix only. */
		const char *tail = bad[_i].msg;

		if (strcmp(bad[_i].dpkg, "=") != 0)
			tail = bad[_i].dpkg;
		else if (strncmp(tail, "control'", 8) == 0 ||
		         (strncmp(tail, "line ", 5) == 0 &&
		          tail[5] >= '0' && tail[5] <= '9'))
			tail = strstr(tail, ": ") + 2;
		if (zd_test_tool("command -v dpkg-deb >/dev/null", "dpkg-deb"))
			ck_assert_msg(dpkg != NULL && strstr(dpkg, tail),
			              "case %d: dpkg-deb said '%s'", _i,
			              dpkg ? dpkg : "(nothing)");
	} else {
		/* dpkg-deb only warns: the lenient check passes too, after
		 * one warning with our message. */
		struct warnings w = { 0, "" };
		char dir[4200];

		ck_assert_ptr_null(dpkg);
		snprintf(dir, sizeof(dir), "%s/p", zd_test_tmpdir);
		ck_assert_zd_ok(zd_pkgcheck_tree_warn(dir, &ctl, collect, &w,
		                                      &err), &err);
		zd_control_free(&ctl);
		ck_assert_int_ge(w.n, 1);
		ck_assert_msg(strstr(w.last, bad[_i].msg) != NULL ||
		              w.n > 1, "case %d: warned '%s'", _i, w.last);
	}
	free(dpkg);
}
END_TEST

static Suite *
pkgcheck_suite(void)
{
	Suite *s = suite_create("pkgcheck");
	TCase *core = zd_test_tcase(s, "core");
	TCase *malformed = zd_test_tcase(s, "malformed");

	tcase_add_test(core, test_pkgcheck_good);
	tcase_add_loop_test(malformed, test_pkgcheck_bad, 0,
	                    sizeof(bad) / sizeof(bad[0]));
	return s;
}

int
main(void)
{
	return zd_test_main(pkgcheck_suite());
}
