#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Compression level and strategy validation, environment variables.
. "$(dirname "$0")/lib.sh"

make_tree "$T/pkg"

expect_status 2 "$ZDEB" build -z foobar "$T/pkg" "$T/out.deb"
expect_stderr "zdeb: error: compression level 'foobar' is not an integer"
expect_status 2 "$ZDEB" build -Zgzip -z 10 "$T/pkg" "$T/out.deb"
expect_stderr "compression level 10 is out of range for gzip (0 to 9)"
expect_status 2 "$ZDEB" build -Zxz -z -1 "$T/pkg" "$T/out.deb"
expect_stderr "out of range for xz (0 to 9)"
expect_status 2 "$ZDEB" build -Zzstd -z 23 "$T/pkg" "$T/out.deb"
expect_stderr "out of range for zstd"
expect_stderr "ultra"
[ ! -e "$T/out.deb" ] || fail "a failed build left its output"
ok "levels are validated per compressor"

expect_status 2 "$ZDEB" build -Zgzip -S extreme "$T/pkg" "$T/out.deb"
expect_stderr "compression strategy 'extreme' is not valid for gzip"
expect_status 2 "$ZDEB" build -Zxz -S bogus "$T/pkg" "$T/out.deb"
expect_stderr "unknown compression strategy 'bogus'"
expect_status 0 "$ZDEB" build -Zxz -S extreme -z 1 "$T/pkg" "$T/out.deb"
rm -f "$T/out.deb"
ok "strategies are validated per compressor"

expect_status 2 "$ZDEB" build -Zbzip2 "$T/pkg" "$T/out.deb"
expect_stderr "unknown compressor 'bzip2'"
ok "read-only compressors are refused for building"

DPKG_DEB_COMPRESSOR_TYPE=gzip expect_status 0 "$ZDEB" build "$T/pkg" "$T/env.deb"
ar t "$T/env.deb" | grep -qx data.tar.gz || fail "DPKG_DEB_COMPRESSOR_TYPE ignored"
DPKG_DEB_COMPRESSOR_TYPE=gzip expect_status 0 "$ZDEB" build -Zxz "$T/pkg" "$T/cli.deb"
ar t "$T/cli.deb" | grep -qx data.tar.xz || fail "-Z does not win over the environment"
DPKG_DEB_COMPRESSOR_TYPE=gzip DPKG_DEB_COMPRESSOR_LEVEL=12 \
	expect_status 2 "$ZDEB" build "$T/pkg" "$T/bad.deb"
expect_stderr "compression level 12 is out of range for gzip"
DPKG_DEB_COMPRESSOR_TYPE=gzip DPKG_DEB_COMPRESSOR_LEVEL=12 \
	expect_status 0 "$ZDEB" build -z 1 "$T/pkg" "$T/lvl.deb"
DPKG_DEB_THREADS_MAX=1 expect_status 0 "$ZDEB" build -v -Zxz "$T/pkg" "$T/t.deb"
expect_stderr "compressor xz, level 6, threads 1"
DPKG_DEB_THREADS_MAX=1 expect_status 0 "$ZDEB" build -v -T 2 -Zxz "$T/pkg" "$T/t.deb"
expect_stderr "threads 2"
ok "DPKG_DEB_* environment honoured, command line wins"

expect_status 0 "$ZDEB" build -v "$T/pkg" "$T/default.deb"
expect_stderr "compressor zstd, level 19, threads $(nproc), layout indexed, segments of about 32.0 MiB (one below 1 MiB of tar)"
expect_status 0 "$ZDEB" build -v -z3 --segment-size=5M "$T/pkg" "$T/t.deb"
expect_stderr "level 3, threads $(nproc), layout indexed, segments of about 5.0 MiB"
grep -q "one below" "$T/stderr" && fail "-v with --segment-size: $(cat "$T/stderr")"
expect_status 0 "$ZDEB" build -v --layout=single "$T/pkg" "$T/t.deb"
grep -q "segments" "$T/stderr" && fail "-v single layout: $(cat "$T/stderr")"
ar t "$T/default.deb" >"$T/members"
printf 'debian-binary\ncontrol.tar.zst\ndata.tar.zst\n' | cmp - "$T/members" ||
	fail "default members: $(cat "$T/members")"
ok "default is zstd level 19 with members in dpkg order"

# Every zstd level works, negative (fast) and ultra with --long included,
# and stock dpkg-deb reads each result.
for z in -7 1 22; do
	for long in "" --long; do
		"$ZDEB" build -z "$z" $long --no-md5sums "$T/pkg" "$T/z.deb" ||
			fail "build -z $z $long"
		"$ZDEB" cat-data "$T/z.deb" >"$T/z.tar"
		dpkg-deb --fsys-tarfile "$T/z.deb" | cmp - "$T/z.tar" ||
			fail "-z $z $long: stock dpkg-deb reads other bytes"
		wl=$("$ZDEB" info --json "$T/z.deb" | sed 's/.*"window_log": \([0-9]*\)}]}/\1/')
		[ "$wl" -le 27 ] || fail "-z $z $long: window 2^$wl above 2^27"
	done
done
ok "zstd levels -7, 1 and 22 (ultra), with and without --long, read by stock dpkg-deb"
