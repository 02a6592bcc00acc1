/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check-cli.c - the commands' option, environment and target resolution */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "lib/codec.h"
#include "src/cmd.h"
#include "src/msg.h"
#include "tests/unit/testutil.h"

/* dpkg-deb's variables, which the tests set one at a time. */
static void
clear_env(void)
{
	unsetenv("DPKG_DEB_COMPRESSOR_TYPE");
	unsetenv("DPKG_DEB_COMPRESSOR_LEVEL");
	unsetenv("DPKG_DEB_THREADS_MAX");
	zd_msg_last_clear();
}

static struct zd_cli_comp
raw_native(void)
{
	struct zd_cli_comp raw;

	memset(&raw, 0, sizeof(raw));
	raw.default_zstd_level = 19;
	return raw;
}

/* Resolution fails with a usage message containing want. */
static void
assert_refused(const struct zd_cli_comp *raw, const char *want)
{
	struct zd_comp_params p;

	zd_msg_last_clear();
	ck_assert_int_eq(zd_cli_comp_resolve("build", raw, &p), -1);
	ck_assert_ptr_nonnull(zd_msg_last());
	ck_assert_msg(strstr(zd_msg_last(), want) != NULL, "'%s' lacks '%s'",
	              zd_msg_last(), want);
}

START_TEST(test_cli_comp_defaults)
{
	struct zd_cli_comp raw = raw_native();
	struct zd_comp_params p;

	clear_env();
	ck_assert_int_eq(zd_cli_comp_resolve("build", &raw, &p), 0);
	ck_assert_int_eq(p.type, ZD_COMP_ZSTD);
	ck_assert_int_eq(p.level, 19);
	ck_assert_int_eq(p.layout, ZD_LAYOUT_INDEXED);
	ck_assert_int_eq(p.strategy, ZD_STRATEGY_DEFAULT);
	ck_assert_uint_eq(p.threads, zd_cli_ncpus());
	ck_assert_uint_eq(p.segment_size, 0);
	/* dpkg-deb mode's default zstd level is dpkg-deb's. */
	raw.default_zstd_level = 3;
	ck_assert_int_eq(zd_cli_comp_resolve("build", &raw, &p), 0);
	ck_assert_int_eq(p.level, 3);
	/* Another codec takes its own default, not the zstd one. */
	raw.type = "xz";
	ck_assert_int_eq(zd_cli_comp_resolve("build", &raw, &p), 0);
	ck_assert_int_eq(p.type, ZD_COMP_XZ);
	ck_assert_int_eq(p.level, 6);
	raw.type = "gzip";
	ck_assert_int_eq(zd_cli_comp_resolve("build", &raw, &p), 0);
	ck_assert_int_eq(p.type, ZD_COMP_GZIP);
	ck_assert_int_eq(p.level, 9);
}
END_TEST

START_TEST(test_cli_comp_env)
{
	struct zd_cli_comp raw = raw_native();
	struct zd_comp_params p;

	clear_env();
	/* dpkg-deb 1.21's variables apply when the option is not given. */
	setenv("DPKG_DEB_COMPRESSOR_TYPE", "xz", 1);
	setenv("DPKG_DEB_COMPRESSOR_LEVEL", "2", 1);
	setenv("DPKG_DEB_THREADS_MAX", "3", 1);
	ck_assert_int_eq(zd_cli_comp_resolve("build", &raw, &p), 0);
	ck_assert_int_eq(p.type, ZD_COMP_XZ);
	ck_assert_int_eq(p.level, 2);
	ck_assert_uint_eq(p.threads, 3);
	/* The option wins over the variable. */
	raw.type = "zstd";
	raw.level = "5";
	raw.threads = "1";
	ck_assert_int_eq(zd_cli_comp_resolve("build", &raw, &p), 0);
	ck_assert_int_eq(p.type, ZD_COMP_ZSTD);
	ck_assert_int_eq(p.level, 5);
	ck_assert_uint_eq(p.threads, 1);
	/* An empty variable is unset. */
	raw = raw_native();
	setenv("DPKG_DEB_COMPRESSOR_TYPE", "", 1);
	setenv("DPKG_DEB_COMPRESSOR_LEVEL", "", 1);
	setenv("DPKG_DEB_THREADS_MAX", "", 1);
	ck_assert_int_eq(zd_cli_comp_resolve("build", &raw, &p), 0);
	ck_assert_int_eq(p.type, ZD_COMP_ZSTD);
	ck_assert_int_eq(p.level, 19);
	ck_assert_uint_eq(p.threads, zd_cli_ncpus());
	/* -T0 and a variable of 0 mean every core. */
	setenv("DPKG_DEB_THREADS_MAX", "0", 1);
	ck_assert_int_eq(zd_cli_comp_resolve("build", &raw, &p), 0);
	ck_assert_uint_eq(p.threads, zd_cli_ncpus());
	/* A bad value in the variable is refused as an option's would be. */
	setenv("DPKG_DEB_COMPRESSOR_TYPE", "lz4", 1);
	assert_refused(&raw, "unknown compressor 'lz4'");
	clear_env();
	setenv("DPKG_DEB_COMPRESSOR_LEVEL", "23", 1);
	assert_refused(&raw, "23");
	clear_env();
	setenv("DPKG_DEB_THREADS_MAX", "4097", 1);
	assert_refused(&raw, "thread count");
}
END_TEST

START_TEST(test_cli_comp_target)
{
	struct zd_cli_comp raw = raw_native();
	struct zd_comp_params p;

	clear_env();
	/* A target alone picks what its stock dpkg reads. */
	raw.target = "debian-11";
	ck_assert_int_eq(zd_cli_comp_resolve("build", &raw, &p), 0);
	ck_assert_int_eq(p.type, ZD_COMP_XZ);
	ck_assert_ptr_null(zd_msg_last());
	raw.target = "debian-12";
	ck_assert_int_eq(zd_cli_comp_resolve("build", &raw, &p), 0);
	ck_assert_int_eq(p.type, ZD_COMP_ZSTD);
	raw.target = "ubuntu-22.04";
	ck_assert_int_eq(zd_cli_comp_resolve("build", &raw, &p), 0);
	ck_assert_int_eq(p.type, ZD_COMP_ZSTD);
	raw.target = "any";
	ck_assert_int_eq(zd_cli_comp_resolve("build", &raw, &p), 0);
	ck_assert_int_eq(p.type, ZD_COMP_XZ);
	/* The target's pick beats the environment's compressor... */
	setenv("DPKG_DEB_COMPRESSOR_TYPE", "gzip", 1);
	raw.target = "debian-11";
	ck_assert_int_eq(zd_cli_comp_resolve("build", &raw, &p), 0);
	ck_assert_int_eq(p.type, ZD_COMP_XZ);
	/* ...an explicit -Z beats the target, with a warning when that
	 * target's dpkg cannot read it. */
	raw.type = "zstd";
	zd_msg_last_clear();
	ck_assert_int_eq(zd_cli_comp_resolve("build", &raw, &p), 0);
	ck_assert_int_eq(p.type, ZD_COMP_ZSTD);
	ck_assert_ptr_nonnull(zd_msg_last());
	ck_assert_msg(strstr(zd_msg_last(), "cannot install zstd") != NULL,
	              "%s", zd_msg_last());
	raw.type = "gzip";
	zd_msg_last_clear();
	ck_assert_int_eq(zd_cli_comp_resolve("build", &raw, &p), 0);
	ck_assert_int_eq(p.type, ZD_COMP_GZIP);
	ck_assert_ptr_null(zd_msg_last());
	raw.type = NULL;
	raw.target = "debian-10";
	assert_refused(&raw, "unknown target 'debian-10'");
	ck_assert(zd_cli_target_reads_zstd("debian-12"));
	ck_assert(zd_cli_target_reads_zstd("ubuntu-24.04"));
	ck_assert(!zd_cli_target_reads_zstd("debian-11"));
	ck_assert(!zd_cli_target_reads_zstd("any"));
	ck_assert(!zd_cli_target_reads_zstd("no-such-release"));
}
END_TEST

START_TEST(test_cli_comp_layout)
{
	static const char *const names[] = {
		"indexed", "single", "frames", "pzstd", "dpkg",
	};
	struct zd_cli_comp raw = raw_native();
	struct zd_comp_params p;

	clear_env();
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
		raw.layout = names[i];
		ck_assert_int_eq(zd_cli_comp_resolve("build", &raw, &p), 0);
		ck_assert_str_eq(zd_layout_name(p.layout), names[i]);
	}
	raw.layout = "Indexed";
	assert_refused(&raw, "unknown zstd layout 'Indexed'");
	raw.layout = NULL;
	raw.segment = "4M";
	ck_assert_int_eq(zd_cli_comp_resolve("build", &raw, &p), 0);
	ck_assert_uint_eq(p.segment_size, UINT64_C(4) << 20);
	raw.segment = "1023";
	assert_refused(&raw, "segment size");
	raw.segment = "8G";
	assert_refused(&raw, "segment size");
	/* Both are zstd's alone. */
	raw.segment = NULL;
	raw.type = "xz";
	raw.layout = "pzstd";
	assert_refused(&raw, "--layout is only valid with zstd");
	raw.layout = NULL;
	raw.segment = "1M";
	assert_refused(&raw, "--segment-size is only valid with zstd");
}
END_TEST

START_TEST(test_cli_comp_fixup)
{
	struct zd_cli_comp raw = raw_native();
	struct zd_comp_params p;

	clear_env();
	/* dpkg-deb: gzip at level 0 is no compression. */
	raw.type = "gzip";
	raw.level = "0";
	ck_assert_int_eq(zd_cli_comp_resolve("build", &raw, &p), 0);
	ck_assert_int_eq(p.type, ZD_COMP_NONE);
	raw.type = "zstd";
	raw.level = "23";
	assert_refused(&raw, "level 23 is out of range for zstd");
	raw.level = NULL;
	raw.strategy = "extreme";
	assert_refused(&raw, "extreme");
	raw.type = "xz";
	ck_assert_int_eq(zd_cli_comp_resolve("build", &raw, &p), 0);
	ck_assert_int_eq(p.strategy, ZD_STRATEGY_EXTREME);
}
END_TEST

START_TEST(test_cli_comp_option)
{
	struct zd_cli_comp raw = raw_native();

	ck_assert(zd_cli_comp_option('Z', "xz", &raw));
	ck_assert(zd_cli_comp_option('z', "9", &raw));
	ck_assert(zd_cli_comp_option(ZD_OPT_LAYOUT, "frames", &raw));
	ck_assert(zd_cli_comp_option(ZD_OPT_LONG, NULL, &raw));
	ck_assert(!zd_cli_comp_option('x', "y", &raw));
	ck_assert_str_eq(raw.type, "xz");
	ck_assert_str_eq(raw.level, "9");
	ck_assert_str_eq(raw.layout, "frames");
	ck_assert(raw.zstd_long);
}
END_TEST

START_TEST(test_cli_read_args)
{
	char *argv[] = {
		(char *)"info", (char *)"-T", (char *)"2", (char *)"--json",
		(char *)"--max-size=0", (char *)"a.deb", (char *)"-v", NULL,
	};
	struct zd_cli_read r;
	struct zd_dec_params dp;

	clear_env();
	ck_assert_int_eq(zd_cli_read_args("info", "usage\n", 7, argv,
	                                  ZD_CLI_JSON, 1, 2, &r), 0);
	ck_assert_uint_eq(r.threads, 2);
	ck_assert(r.json);
	ck_assert(r.max_size_set);
	/* --max-size=0 lifts the cap: the library's explicit opt-out, since
	 * its 0 is the default cap */
	ck_assert(r.max_size == ZD_DEC_UNLIMITED);
	zd_cli_dec_limits(&dp, &r);
	ck_assert(dp.max_output == ZD_DEC_UNLIMITED);
	r.max_size_set = false;
	zd_cli_dec_limits(&dp, &r);
	ck_assert_uint_eq(dp.max_output, 0);
	/* Options stop at the first operand, as in POSIX. */
	ck_assert_int_eq(r.nargs, 2);
	ck_assert_str_eq(r.args[0], "a.deb");
	ck_assert_str_eq(r.args[1], "-v");
	ck_assert_int_eq(zd_verbose, 0);
}
END_TEST

START_TEST(test_cli_read_args_refused)
{
	char *json[] = {
		(char *)"cat-data", (char *)"--json", (char *)"a.deb", NULL,
	};
	char *two[] = {
		(char *)"cat-data", (char *)"a.deb", (char *)"b.deb", NULL,
	};
	char *none[] = { (char *)"cat-data", NULL };
	char *threads[] = {
		(char *)"cat-data", (char *)"-T", (char *)"x", (char *)"a",
		NULL,
	};
	char *help[] = {
		(char *)"cat-data", (char *)"--help", (char *)"a.deb", NULL,
	};
	struct zd_cli_read r;

	clear_env();
	ck_assert_int_eq(zd_cli_read_args("cat-data", "u\n", 3, json, 0, 1, 1,
	                                  &r), -1);
	ck_assert_str_eq(zd_msg_last(), "unknown option '--json'");
	ck_assert_int_eq(zd_cli_read_args("cat-data", "u\n", 3, two, 0, 1, 1,
	                                  &r), -1);
	ck_assert_str_eq(zd_msg_last(), "too many arguments");
	ck_assert_int_eq(zd_cli_read_args("cat-data", "u\n", 1, none, 0, 1, 1,
	                                  &r), -1);
	ck_assert_str_eq(zd_msg_last(), "missing argument");
	ck_assert_int_eq(zd_cli_read_args("cat-data", "u\n", 4, threads, 0, 1,
	                                  1, &r), -1);
	ck_assert_msg(strstr(zd_msg_last(), "thread count") != NULL, "%s",
	              zd_msg_last());
	ck_assert_int_eq(zd_cli_read_args("cat-data", "u\n", 3, help, 0, 1, 1,
	                                  &r), 1);
}
END_TEST

START_TEST(test_cli_parse_threads)
{
	unsigned t = 99;

	clear_env();
	ck_assert_int_eq(zd_cli_parse_threads("x", "4096", &t), 0);
	ck_assert_uint_eq(t, 4096);
	ck_assert_int_eq(zd_cli_parse_threads("x", "0", &t), 0);
	ck_assert_uint_eq(t, zd_cli_ncpus());
	ck_assert_int_eq(zd_cli_parse_threads("x", "4097", &t), -1);
	ck_assert_int_eq(zd_cli_parse_threads("x", "-1", &t), -1);
	ck_assert_int_eq(zd_cli_parse_threads("x", "2x", &t), -1);
	ck_assert_int_eq(zd_cli_parse_threads("x", "", &t), -1);
	ck_assert_uint_eq(t, zd_cli_ncpus());
}
END_TEST

static Suite *
cli_suite(void)
{
	Suite *s = suite_create("cli");
	TCase *comp = zd_test_tcase(s, "comp");
	TCase *read = zd_test_tcase(s, "read");

	tcase_add_test(comp, test_cli_comp_defaults);
	tcase_add_test(comp, test_cli_comp_env);
	tcase_add_test(comp, test_cli_comp_target);
	tcase_add_test(comp, test_cli_comp_layout);
	tcase_add_test(comp, test_cli_comp_fixup);
	tcase_add_test(comp, test_cli_comp_option);
	tcase_add_test(read, test_cli_read_args);
	tcase_add_test(read, test_cli_read_args_refused);
	tcase_add_test(read, test_cli_parse_threads);
	return s;
}

int
main(void)
{
	return zd_test_main(cli_suite());
}
