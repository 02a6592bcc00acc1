/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check-tar-build.c - control.tar and data.tar against dpkg-deb's, byte by
 * byte, and the GNU tar header encoder
 *
 * The comparison tests build a tree full of corner cases, run the system
 * dpkg-deb -b on it and cmp its --fsys-tarfile / --ctrl-tarfile with ours.
 * Without dpkg-deb they pass vacuously and say so; without root the
 * owner and device entries are left out.
 */
#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "lib/tar-build.h"
#include "lib/tar-header.h"
#include "tests/unit/testutil.h"

/* The tree: every kind of entry and name dpkg-deb and GNU tar treat
 * specially.  $T is the root; $ROOT is 1 when we may chown and mknod. */
static const char tree_script[] =
	"set -e; cd \"$T\"\n"
	"mkdir -p DEBIAN etc usr/bin usr/share/doc/p empty a/b/c/d "
	"usr/DEBIAN DEBIAN.d sticky setgid\n"
	"printf 'Package: p\\nVersion: 1\\nArchitecture: all\\n"
	"Maintainer: X <x@example.org>\\nDescription: t\\n' > DEBIAN/control\n"
	"echo /etc/p.conf > DEBIAN/conffiles; chmod 0600 DEBIAN/conffiles\n"
	"printf '#!/bin/sh\\n' > DEBIAN/postinst; chmod 0755 DEBIAN/postinst\n"
	"echo c > etc/p.conf; echo x > DEBIAN.txt; echo y > DEBIAN.d/f\n"
	"echo z > usr/DEBIAN/keep\n"
	"printf '#!/bin/sh\\n' > usr/bin/foo; chmod 0755 usr/bin/foo\n"
	": > usr/share/doc/p/empty\n"
	"echo s > usr/share/secret; chmod 0600 usr/share/secret\n"
	"echo u > usr/bin/suid; chmod 04755 usr/bin/suid\n"
	"echo g > usr/bin/sgid; chmod 02711 usr/bin/sgid\n"
	"chmod 01777 sticky; chmod 02755 setgid\n"
	"echo t > usr/z-target; ln -s z-target usr/a-link\n"
	"ln -s /nonexistent/dangling usr/dangling; ln -s share usr/dirlink\n"
	"echo h > usr/h1; ln usr/h1 usr/h2; ln usr/h1 a/h3\n"
	"ln -s z-target usr/s1; ln usr/s1 usr/s2\n"
	"L=$(printf 'l%.0s' $(seq 1 120))\n"
	"mkdir -p long/$L; echo l > long/$L/$L\n"
	"ln -s ../long/$L/$L usr/longtarget; ln long/$L/$L usr/hl-to-long\n"
	"ln usr/h1 long/$L/hlong\n"
	"for n in 97 98 99; do echo $n > $(printf 'n%.0s' $(seq 1 $n)); done\n"
	"mkdir $(printf 'd%.0s' $(seq 1 97)) $(printf 'e%.0s' $(seq 1 98))\n"
	"echo s > 'with space'; mkfifo fifo\n"
	"touch -d @100 usr/bin/foo; touch -d @-1000 usr/share/secret\n"
	"touch -h -d @2000000000 usr/a-link; touch -d @1700000000.5 usr/h1\n"
	"touch -d @9000000000 etc/p.conf; touch -d @1500000000 a/b/c\n"
	"if [ \"$ROOT\" = 1 ]; then\n"
	"  mknod null c 1 3; mknod blk b 7 200\n"
	"  echo o > own-daemon; chown 1:1 own-daemon\n"
	"  echo o > own-unknown; chown 4242:4242 own-unknown\n"
	"  echo o > own-huge; chown 3000000:3000001 own-huge\n"
	"  ln -s x own-link; chown -h 1:4242 own-link\n"
	"fi\n";

static bool
have_dpkg_deb(void)
{
	return zd_test_tool("dpkg-deb --version >/dev/null 2>&1", "dpkg-deb");
}

static void
make_tree(const char *t)
{
	char path[4200];
	unsigned char *big;
	const size_t bigsize = 1572867;	/* > 1 MiB, not a block multiple */
	struct sockaddr_un sa;
	int s;

	/* The script has quotes of its own: pass it through the env. */
	setenv("S", tree_script, 1);
	ck_assert_int_eq(zd_test_sh("mkdir -p '%s' && T='%s' ROOT=%d "
	                            "sh -c 'eval \"$S\"'", t, t,
	                            geteuid() == 0), 0);
	big = malloc(bigsize);
	ck_assert_ptr_nonnull(big);
	zd_test_fill_random(big, bigsize, 7);
	snprintf(path, sizeof(path), "%s/usr/share/big", t);
	zd_test_write_file(path, big, bigsize);
	free(big);
	ck_assert_int_eq(zd_test_sh("touch -d @4000000000 '%s'", path), 0);

	/* GNU tar skips sockets ("socket ignored"); so must we. */
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/sock", t) <
	    (int)sizeof(sa.sun_path)) {
		s = socket(AF_UNIX, SOCK_STREAM, 0);
		ck_assert_int_ge(s, 0);
		ck_assert_int_eq(bind(s, (struct sockaddr *)&sa, sizeof(sa)),
		                 0);
		close(s);
	}
}

static void
assert_same_file(const char *ref, const char *ours)
{
	size_t nr, no, i;
	unsigned char *r = zd_test_read_file(ref, &nr);
	unsigned char *o = zd_test_read_file(ours, &no);

	for (i = 0; i < nr && i < no; i++)
		if (r[i] != o[i])
			break;
	ck_assert_msg(nr == no && i == nr, "%s differs from %s at byte %zu "
	              "(block %zu; sizes %zu, %zu)", ours, ref, i, i / 512,
	              nr, no);
	free(r);
	free(o);
}

static void
count_warning(void *ctx, const char *msg)
{
	(void)msg;
	(*(unsigned *)ctx)++;
}

/* With no sink, the size alone, from the entries' metadata: the size the
 * build wrote, and no warning (the socket's comes with the build). */
static void
check_measured(const char *tree, bool control, const struct zd_tar_opts *o,
               uint64_t built)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_tar_opts q = *o;
	unsigned warnings = 0;
	uint64_t size = 0;

	q.warn = count_warning;
	q.warn_ctx = &warnings;
	if (control)
		ck_assert_zd_ok(zd_tar_build_control(tree, &q, NULL, &size,
		                                     &err), &err);
	else
		ck_assert_zd_ok(zd_tar_build_data(tree, &q, NULL, &size, &err),
		                &err);
	ck_assert_uint_eq(size, built);
	ck_assert_uint_eq(warnings, 0);
}

static void
build_ours(const char *tree, const char *out, bool control,
           const struct zd_tar_opts *o)
{
	struct zd_error err = ZD_ERROR_INIT;
	uint64_t size = 0;
	int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	struct zd_sink sink = ZD_SINK_FD(&fd);

	ck_assert_int_ge(fd, 0);
	if (control)
		ck_assert_zd_ok(zd_tar_build_control(tree, o, &sink, &size,
		                                     &err), &err);
	else
		ck_assert_zd_ok(zd_tar_build_data(tree, o, &sink, &size, &err),
		                &err);
	ck_assert_int_eq(close(fd), 0);
	ck_assert_uint_eq(size % ZD_TAR_RECORD, 0);
	check_measured(tree, control, o, size);
}

static const struct {
	bool root_owner_group;
	int64_t sde;
} cases[] = {
	{ true, 1600000000 },		/* clamps some mtimes, not others */
	{ false, 1600000000 },		/* owner names from the system */
	{ true, 100000000000 },		/* far future: base-256 mtimes kept */
	{ false, 1 },			/* far past: everything clamped */
	{ true, -5 },			/* negative: base-256 0xff */
};

START_TEST(test_tarbuild_matches_dpkg_deb)
{
	const bool rog = cases[_i].root_owner_group;
	const int64_t sde = cases[_i].sde;
	const struct zd_tar_opts o = {
		.clamp = true,
		.clamp_mtime = sde,
		.root_owner_group = rog,
	};
	char tree[4200], deb[4200], ref[4200], ours[4200];

	if (!have_dpkg_deb())
		return;
	snprintf(tree, sizeof(tree), "%s/tree", zd_test_tmpdir);
	snprintf(deb, sizeof(deb), "%s/p.deb", zd_test_tmpdir);
	make_tree(tree);
	ck_assert_int_eq(zd_test_sh("SOURCE_DATE_EPOCH=%jd dpkg-deb %s "
	                            "-Znone -b '%s' '%s' >/dev/null 2>&1",
	                            (intmax_t)sde,
	                            rog ? "--root-owner-group" : "", tree,
	                            deb), 0);

	snprintf(ref, sizeof(ref), "%s/data.ref", zd_test_tmpdir);
	snprintf(ours, sizeof(ours), "%s/data.our", zd_test_tmpdir);
	ck_assert_int_eq(zd_test_sh("dpkg-deb --fsys-tarfile '%s' > '%s'",
	                            deb, ref), 0);
	build_ours(tree, ours, false, &o);
	assert_same_file(ref, ours);

	snprintf(ref, sizeof(ref), "%s/control.ref", zd_test_tmpdir);
	snprintf(ours, sizeof(ours), "%s/control.our", zd_test_tmpdir);
	ck_assert_int_eq(zd_test_sh("dpkg-deb --ctrl-tarfile '%s' > '%s'",
	                            deb, ref), 0);
	build_ours(tree, ours, true, &o);
	assert_same_file(ref, ours);
}
END_TEST

/*
 * dpkg-deb refuses most odd control modes, so the --mode u+rw,go=rX
 * corner cases (set-id and sticky bits, directories, no x at all) are
 * checked against GNU tar run as dpkg-deb runs it.
 */
START_TEST(test_tarbuild_control_modes)
{
	static const char *const modes[] = {
		"0000", "2644", "1644", "4600", "0100", "0010", "0001",
		"7777", "2755", "0640",
	};
	const struct zd_tar_opts o = { .clamp = true, .clamp_mtime = 1 };
	char ctrl[4200], ref[4200], ours[4200];

	if (!zd_test_tool("tar --version 2>/dev/null | grep -q 'GNU tar'",
	                  "GNU tar"))
		return;
	snprintf(ctrl, sizeof(ctrl), "%s/DEBIAN", zd_test_tmpdir);
	ck_assert_int_eq(zd_test_sh("mkdir -p '%s/sub' '%s/d4000' "
	                            "'%s/d6755' '%s/d0000' && cd '%s' && "
	                            "chmod 2700 sub && chmod 4000 d4000 && "
	                            "chmod 6755 d6755 && chmod 0 d0000 && "
	                            "ln -s f0000 lnk && mkfifo ff", ctrl,
	                            ctrl, ctrl, ctrl, ctrl), 0);
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		ck_assert_int_eq(zd_test_sh("cd '%s' && echo %s > f%s && "
		                            "chmod %s f%s", ctrl, modes[i],
		                            modes[i], modes[i], modes[i]), 0);
	snprintf(ref, sizeof(ref), "%s/control.ref", zd_test_tmpdir);
	snprintf(ours, sizeof(ours), "%s/control.our", zd_test_tmpdir);
	ck_assert_int_eq(zd_test_sh("cd '%s' && { printf './\\0'; find . "
	                            "-mindepth 1 | LC_ALL=C sort | "
	                            "tr '\\n' '\\0'; } | tar -cf - "
	                            "--format=gnu --mtime @1 --clamp-mtime "
	                            "--mode u+rw,go=rX --owner root:0 "
	                            "--group root:0 --null --no-unquote "
	                            "--no-recursion -T - > '%s'", ctrl, ref),
	                 0);
	build_ours(zd_test_tmpdir, ours, true, &o);
	assert_same_file(ref, ours);
}
END_TEST

START_TEST(test_tarbuild_deterministic)
{
	const struct zd_tar_opts o = {
		.clamp = true, .clamp_mtime = 1600000000,
		.root_owner_group = true,
	};
	char tree[4200], one[4200], two[4200];

	snprintf(tree, sizeof(tree), "%s/tree", zd_test_tmpdir);
	snprintf(one, sizeof(one), "%s/one.tar", zd_test_tmpdir);
	snprintf(two, sizeof(two), "%s/two.tar", zd_test_tmpdir);
	make_tree(tree);
	build_ours(tree, one, false, &o);
	build_ours(tree, two, false, &o);
	assert_same_file(one, two);
}
END_TEST

START_TEST(test_tarbuild_missing_dir)
{
	const struct zd_tar_opts o = { .clamp = true };
	struct zd_error err = ZD_ERROR_INIT;
	char dir[4200];
	int fd = open("/dev/null", O_WRONLY);
	struct zd_sink sink = ZD_SINK_FD(&fd);

	snprintf(dir, sizeof(dir), "%s/no-such-dir", zd_test_tmpdir);
	ck_assert_int_eq(zd_tar_build_data(dir, &o, &sink, NULL, &err), -1);
	ck_assert_int_eq(err.code, ZD_E_IO);
	ck_assert_msg(strstr(err.msg, dir) != NULL, "%s", err.msg);

	/* control.tar needs dir/DEBIAN, and names it */
	zd_err_clear(&err);
	ck_assert_int_eq(zd_tar_build_control(zd_test_tmpdir, &o, &sink, NULL,
	                                     &err), -1);
	ck_assert_int_eq(err.code, ZD_E_IO);
	ck_assert_msg(strstr(err.msg, "/DEBIAN'") != NULL, "%s", err.msg);
	close(fd);
}
END_TEST

START_TEST(test_tarbuild_not_a_dir)
{
	const struct zd_tar_opts o = { .clamp = true };
	struct zd_error err = ZD_ERROR_INIT;
	char file[4200];
	int fd = open("/dev/null", O_WRONLY);
	struct zd_sink sink = ZD_SINK_FD(&fd);

	snprintf(file, sizeof(file), "%s/file", zd_test_tmpdir);
	zd_test_write_file(file, "x", 1);
	ck_assert_int_eq(zd_tar_build_data(file, &o, &sink, NULL, &err), -1);
	ck_assert_int_eq(err.code, ZD_E_USAGE);
	ck_assert_msg(strstr(err.msg, "is not a directory") != NULL &&
	              strstr(err.msg, file) != NULL, "%s", err.msg);
	close(fd);
}
END_TEST

/* dpkg-deb: "newline not allowed in pathname", unless --nocheck. */
START_TEST(test_tarbuild_newline)
{
	struct zd_tar_opts o = { .clamp = true };
	struct zd_error err = ZD_ERROR_INIT;
	char path[4200];
	int fd = open("/dev/null", O_WRONLY);
	struct zd_sink sink = ZD_SINK_FD(&fd);

	snprintf(path, sizeof(path), "%s/a\nb", zd_test_tmpdir);
	zd_test_write_file(path, "x", 1);
	ck_assert_int_eq(zd_tar_build_data(zd_test_tmpdir, &o, &sink, NULL,
	                                   &err), -1);
	ck_assert_int_eq(err.code, ZD_E_FORMAT);
	ck_assert_str_eq(err.msg, "newline not allowed in pathname './a\nb'");
	o.nocheck = true;
	ck_assert_zd_ok(zd_tar_build_data(zd_test_tmpdir, &o, &sink, NULL,
	                                  &err), &err);
	close(fd);
}
END_TEST

START_TEST(test_tarhdr_numbers)
{
	unsigned char f[12];
	static const unsigned char size9g[12] = {
		0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x40, 0, 0, 0,
	};
	static const unsigned char minus1000[12] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xfc, 0x18,
	};
	static const unsigned char uid3m[8] = {
		0x80, 0, 0, 0, 0, 0x2d, 0xc6, 0xc0,
	};

	ck_assert(zd_tar_header_put_num(f, 8, false, 0644));
	ck_assert_mem_eq(f, "0000644", 8);
	ck_assert(zd_tar_header_put_num(f, 12, false, UINT64_C(077777777777)));
	ck_assert_mem_eq(f, "77777777777", 12);
	ck_assert(zd_tar_header_put_num(f, 12, false, UINT64_C(9) << 30));
	ck_assert_mem_eq(f, size9g, 12);
	ck_assert(zd_tar_header_put_num(f, 12, true, (uint64_t)(int64_t)-1000));
	ck_assert_mem_eq(f, minus1000, 12);
	ck_assert(zd_tar_header_put_num(f, 8, false, 2097151));
	ck_assert_mem_eq(f, "7777777", 8);
	ck_assert(zd_tar_header_put_num(f, 8, false, 3000000));
	ck_assert_mem_eq(f, uid3m, 8);
	ck_assert(!zd_tar_header_put_num(f, 8, false, UINT64_C(1) << 56));
}
END_TEST

static Suite *
tarbuild_suite(void)
{
	Suite *s = suite_create("tarbuild");
	TCase *core = zd_test_tcase(s, "core");
	TCase *malformed = zd_test_tcase(s, "malformed");
	TCase *limits = zd_test_tcase_plain(s, "limits");
	const int ncases = (int)(sizeof(cases) / sizeof(cases[0]));

	tcase_add_loop_test(core, test_tarbuild_matches_dpkg_deb, 0, ncases);
	tcase_add_test(core, test_tarbuild_control_modes);
	tcase_add_test(core, test_tarbuild_deterministic);
	tcase_add_test(malformed, test_tarbuild_missing_dir);
	tcase_add_test(malformed, test_tarbuild_not_a_dir);
	tcase_add_test(malformed, test_tarbuild_newline);
	tcase_add_test(limits, test_tarhdr_numbers);
	return s;
}

int
main(void)
{
	return zd_test_main(tarbuild_suite());
}
