/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check-dpkg-check.c - dpkg-deb -b's checks of a package tree */
#include "config.h"

#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/dpkg-check.h"
#include "lib/dpkg-pkginfo.h"
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

static void
print_warning(void *ctx, const char *msg)
{
	fprintf(ctx, "dpkg-deb: warning: %s\n", msg);
}

/*
 * The checks on tmpdir/p as dpkg-deb -b runs them from tmpdir: what it
 * would print on stderr ("dpkg-deb: warning: ...", then "dpkg-deb: error:
 * ..." on failure) into out.  Returns the check's result.
 */
static int
run(bool strict, struct zd_control *ctl, struct zd_pkginfo *pi, char *out,
    size_t outsize)
{
	struct zd_error err = ZD_ERROR_INIT;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct zd_pkgcheck_opts o = {
		.native_arch = "amd64", .strict = strict,
		.warn = print_warning, .warn_ctx = f,
	};
	int rc;

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(chdir(zd_test_tmpdir), 0);
	rc = zd_dpkg_check_tree("p", &o, ctl, pi, &err);
	if (rc < 0)
		fprintf(f, "dpkg-deb: error: %s\n", err.msg);
	ck_assert_int_eq(fclose(f), 0);
	snprintf(out, outsize, "%s", text);
	free(text);
	return rc;
}

/* dpkg-deb -b's stderr on tmpdir/p, or NULL when it is not installed (the
 * test then returns: zd_test_tool). */
static char *
dpkg_deb_stderr(int *status)
{
	if (!zd_test_tool("command -v dpkg-deb >/dev/null", "dpkg-deb"))
		return NULL;
	*status = zd_test_sh("cd '%s' && dpkg-deb -b p o.deb >/dev/null "
	                     "2>err", zd_test_tmpdir);
	return zd_test_read_text(zd_test_path("err"));
}

START_TEST(test_pkgcheck_good)
{
	struct zd_control ctl;
	struct zd_pkginfo pi;
	char out[2048];
	int status;
	char *stock;

	make_tree(GOOD_CONTROL, "printf '#!/bin/sh\\n' >DEBIAN/postinst && "
	          "chmod 0755 DEBIAN/postinst && ln -s postinst DEBIAN/prerm "
	          "&& printf '/etc/x\\nremove-on-upgrade /etc/gone\\n' "
	          ">DEBIAN/conffiles && chmod 0775 DEBIAN/postinst");
	ck_assert_int_eq(run(true, &ctl, &pi, out, sizeof(out)), 0);
	ck_assert_str_eq(out, "");
	ck_assert_str_eq(zd_dpkg_control_get(&ctl, "Package"), "hello");
	ck_assert_str_eq(pi.name, "hello");
	zd_dpkg_pkginfo_free(&pi);
	zd_dpkg_control_free(&ctl);
	stock = dpkg_deb_stderr(&status);
	if (stock != NULL) {
		ck_assert_int_eq(status, 0);
		ck_assert_str_eq(stock, "");
	}
	free(stock);
}
END_TEST

/*
 * Trees dpkg-deb -b refuses or warns about: control text, a shell snippet
 * run in the tree, and dpkg-deb's stderr (each case is checked against
 * the installed dpkg-deb too).
 */
#define W "dpkg-deb: warning: "
#define E "dpkg-deb: error: "
#define AT(n) "parsing file 'p/DEBIAN/control' near line " #n
#define PKG(n, p) AT(n) " package '" p "':\n "
static const struct {
	const char *control;
	const char *sh;
	const char *want;
} bad[] = {
	{ "Version: 1\nArchitecture: all\nMaintainer: m\nDescription: d\n",
	  NULL, E AT(5) ":\n missing 'Package' field\n" },
	{ "Package: a\nArchitecture: all\nMaintainer: m\nDescription: d\n",
	  NULL, E PKG(5, "a") "missing 'Version' field\n" },
	{ "Package: a\nVersion: 1\nMaintainer: m\nDescription: d\n",
	  NULL, W PKG(5, "a") "missing 'Architecture' field\n"
	  E "package architecture is missing or empty\n" },
	{ "Package: a\nVersion: 1\nArchitecture: all\nDescription: d\n",
	  NULL, W PKG(5, "a") "missing 'Maintainer' field\n"
	  W "ignoring 1 warning about the control file(s)\n" },
	{ "Package: a\nMaintainer:\nDescription:\nVersion: 1\n"
	  "Architecture: all\n", NULL,
	  W PKG(6, "a") "missing 'Description' field\n"
	  W PKG(6, "a") "missing 'Maintainer' field\n"
	  W "ignoring 2 warnings about the control file(s)\n" },
	{ "Package: -a\nVersion: 1\nArchitecture: all\n", NULL,
	  E AT(1) ":\n invalid package name in 'Package' field: must start "
	  "with an alphanumeric character\n" },
	{ "Package: a_b\nVersion: 1\nArchitecture: all\nMaintainer: m\n"
	  "Description: d\n", NULL, E "package name has characters that "
	  "aren't lowercase alphanums or '-+.'\n" },
	{ "Package: a\nVersion: 1.0 beta\nArchitecture: all\n", NULL,
	  E PKG(2, "a") "'Version' field value '1.0 beta': version string "
	  "has embedded spaces\n" },
	{ "Package: a\nVersion: x1\nArchitecture: all\n", NULL,
	  E PKG(2, "a") "'Version' field value 'x1': version number does "
	  "not start with digit\n" },
	{ "Package: a\nVersion: 1\nArchitecture: all\nMaintainer: m\n"
	  "Description: d\nStatus: install ok installed\n", NULL,
	  E PKG(6, "a") "value for 'Status' field not allowed in this "
	  "context\n" },
	{ "Package: a\nVersion: 1\nArchitecture: all\nPriority: high\n"
	  "Maintainer: m\nDescription: d\n", NULL,
	  W "'p/DEBIAN/control' contains user-defined Priority value "
	  "'high'\n" W "ignoring 1 warning about the control file(s)\n" },
	{ GOOD_CONTROL, "printf x >DEBIAN/postinst && chmod 0644 "
	  "DEBIAN/postinst", E "maintainer script 'postinst' has bad "
	  "permissions 644 (must be >=0555 and <=0775)\n" },
	{ GOOD_CONTROL, "printf x >DEBIAN/preinst && chmod 0777 "
	  "DEBIAN/preinst", E "maintainer script 'preinst' has bad "
	  "permissions 777 (must be >=0555 and <=0775)\n" },
	{ GOOD_CONTROL, "mkdir DEBIAN/config", E "maintainer script 'config' "
	  "is not a plain file or symlink\n" },
	{ GOOD_CONTROL, "chmod 0777 DEBIAN", E "control directory has bad "
	  "permissions 777 (must be >=0755 and <=0775)\n" },
	{ GOOD_CONTROL, "printf 'etc/x\\n' >DEBIAN/conffiles",
	  E "conffile name 'etc/x' is not an absolute pathname\n" },
	{ GOOD_CONTROL, "printf '/etc/x\\n/etc/x\\n' >DEBIAN/conffiles",
	  W "conffile name '/etc/x' is duplicated\n"
	  W "ignoring 1 warning about the control file(s)\n" },
	{ GOOD_CONTROL, "printf '/etc/nope\\n' >DEBIAN/conffiles",
	  E "conffile '/etc/nope' does not appear in package\n" },
	{ GOOD_CONTROL, "printf 'bogus /etc/x\\n' >DEBIAN/conffiles",
	  E "unknown flag 'bogus' for conffile '/etc/x'\n" },
	{ GOOD_CONTROL, "printf 'remove-on-upgrade \\n' >DEBIAN/conffiles",
	  E "conffile name missing after flag 'remove-on-upgrade'\n" },
	{ GOOD_CONTROL, "printf 'remove-on-upgrade /etc/x\\n' "
	  ">DEBIAN/conffiles", E "conffile '/etc/x' is present but is "
	  "requested to be removed\n" },
	{ GOOD_CONTROL, "printf '/etc/x' >DEBIAN/conffiles",
	  E "conffile name '/etc/x' is too long, or missing final newline\n" },
	{ GOOD_CONTROL, "printf '/etc/x\\n \\n' >DEBIAN/conffiles",
	  E "empty and whitespace-only lines are not allowed in conffiles\n" },
	{ GOOD_CONTROL, "printf ' /etc/x\\n' >DEBIAN/conffiles",
	  E "line with conffile filename '/etc/x' has leading white spaces\n" },
	{ GOOD_CONTROL, "mkdir etc/d && printf '/etc/d\\n' >DEBIAN/conffiles",
	  W "conffile '/etc/d' is not a plain file\n"
	  W "ignoring 1 warning about the control file(s)\n" },
	{ "Package: a\nVersion: 1\nArchitecture: all\nPackage: b\n", NULL,
	  E PKG(4, "a") "duplicate value for 'Package' field\n" },
	{ "Package: a\nClass: extra\nVersion: 1\nArchitecture: all\n"
	  "Maintainer: m\nDescription: d\n", NULL,
	  W PKG(2, "a") "obsolete 'Class' field used\n"
	  W "ignoring 1 warning about the control file(s)\n" },
	{ "Package: a\nVersion: 1\nEssential: maybe\nMulti-Arch: bogus\n"
	  "Architecture: all\nMaintainer: m\nDescription: d\n", NULL,
	  E PKG(3, "a") "boolean (yes/no) 'Essential' field: has invalid "
	  "value 'maybe'\n" },
	{ "Package: a\nVersion: 1\nArchitecture: all\nMaintainer: m\n"
	  "Description: d\nDepends: foo (< 1.0)\n", NULL,
	  W PKG(6, "a") "'Depends' field, reference to 'foo':\n '<' is "
	  "obsolete, use '<=' or '<<' instead\n"
	  W "ignoring 1 warning about the control file(s)\n" },
};
#undef W
#undef E

START_TEST(test_pkgcheck_bad)
{
	struct zd_control ctl = { NULL, 3 };
	struct zd_pkginfo pi;
	bool fails = strstr(bad[_i].want, "dpkg-deb: error: ") != NULL;
	char out[2048];
	char *stock;
	int status;

	make_tree(bad[_i].control, bad[_i].sh);
	/* dpkg-deb -b: its warnings, then its error or none. */
	ck_assert_int_eq(run(false, &ctl, &pi, out, sizeof(out)),
	                 (fails ? -1 : 0));
	ck_assert_msg(strcmp(out, bad[_i].want) == 0, "case %d: got\n%s",
	              _i, out);
	zd_dpkg_pkginfo_free(&pi);
	zd_dpkg_control_free(&ctl);
	/* zdeb build: strict, any warning is the error. */
	ck_assert_int_eq(run(true, &ctl, &pi, out, sizeof(out)), -1);
	ck_assert_ptr_nonnull(strstr(out, "dpkg-deb: error: "));
	zd_dpkg_pkginfo_free(&pi);
	zd_dpkg_control_free(&ctl);
	stock = dpkg_deb_stderr(&status);
	if (stock != NULL) {
		ck_assert_msg(strcmp(stock, bad[_i].want) == 0, "case %d: "
		              "dpkg-deb said\n%s", _i, stock);
		ck_assert_int_eq(status, (fails ? 2 : 0));
	}
	free(stock);
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
