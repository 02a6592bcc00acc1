#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# dpkg-deb -b in dpkg-deb mode: for gzip, xz (the default), none, and zstd
# with ZDEB_LAYOUT=single, the whole .deb is byte-identical to the system
# dpkg-deb's (levels, strategies, --root-owner-group, --threads-max,
# --no-uniform-compression, --nocheck, a directory target), with the same
# stdout and stderr; zstd in zdeb's indexed layout decodes with stock
# dpkg-deb to the same tar; failing checks give dpkg-deb's messages.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dpkg-deb-lib.sh"

make_tree "$T/pkg"
for opts in "" "-Zxz" "-Zgzip" "-Znone" "-Zgzip -z1" "-Zgzip -z0" "-z9" \
            "-Zxz -z0" "-Zxz -Sextreme" "-Zgzip -Sfiltered" "-Zgzip -Srle" \
            "--root-owner-group" "--root-owner-group -Zgzip" \
            "--threads-max=1" "--threads-max=2" "--threads-max 1 -Zxz -z9" \
            "--no-uniform-compression" "--no-uniform-compression -Znone" \
            "--uniform-compression -Zgzip" "--nocheck -Zgzip"; do
	# shellcheck disable=SC2086
	ddcmp /dev/null $opts -b "$T/pkg" out.deb
	# shellcheck disable=SC2086
	ddcmp /dev/null $opts --build "$T/pkg" .
done
ok "gzip, xz, none: the .deb and the output are dpkg-deb's"

DPKG_DEB_COMPRESSOR_TYPE=gzip ddcmp /dev/null -b "$T/pkg" out.deb
DPKG_DEB_COMPRESSOR_TYPE=gzip DPKG_DEB_COMPRESSOR_LEVEL=3 \
	ddcmp /dev/null -b "$T/pkg" out.deb
DPKG_DEB_COMPRESSOR_TYPE=gzip ddcmp /dev/null -Zxz -b "$T/pkg" out.deb
DPKG_DEB_THREADS_MAX=1 ddcmp /dev/null -b "$T/pkg" out.deb
ok "the DPKG_DEB_* environment, and the command line beating it"

export ZDEB_LAYOUT=single
for opts in "-Zzstd" "-Zzstd -z1" "-Zzstd -z19" "-Zzstd -z0" \
            "-Zzstd --threads-max=1" "-Zzstd --threads-max=2" \
            "-Zzstd --root-owner-group"; do
	# shellcheck disable=SC2086
	ddcmp /dev/null $opts -b "$T/pkg" out.deb
done
SOURCE_DATE_EPOCH=1600000000 ddcmp /dev/null -Zzstd -b "$T/pkg" out.deb
ok "zstd with ZDEB_LAYOUT=single: the .deb is dpkg-deb's"
unset ZDEB_LAYOUT

# zstd default layout: indexed, and stock dpkg-deb reads it.
dpkg-deb -Zzstd -b "$T/pkg" "$T/stock.deb" >/dev/null
"$ZDEB" dpkg-deb -Zzstd -b "$T/pkg" "$T/indexed.deb" >"$T/out" ||
	fail "zdeb dpkg-deb -Zzstd -b"
[ "$(cat "$T/out")" = "dpkg-deb: building package 'zdeb-test' in '$T/indexed.deb'." ] ||
	fail "unexpected stdout: $(cat "$T/out")"
dpkg-deb --fsys-tarfile "$T/stock.deb" >"$T/stock.tar"
dpkg-deb --fsys-tarfile "$T/indexed.deb" >"$T/indexed.tar"
cmp "$T/stock.tar" "$T/indexed.tar" || fail "indexed data.tar differs"
dpkg-deb --ctrl-tarfile "$T/stock.deb" >"$T/stock.tar"
dpkg-deb --ctrl-tarfile "$T/indexed.deb" >"$T/indexed.tar"
cmp "$T/stock.tar" "$T/indexed.tar" || fail "indexed control.tar differs"
"$ZDEB" info "$T/indexed.deb" | grep -q indexed || fail "not indexed"
ok "zstd default (indexed layout): stock dpkg-deb extracts the same tars"

# Failing checks and argument errors.
mkdir -p "$T/nocontrol/DEBIAN"
make_tree "$T/badname"
sed -i 's/^Package: .*/Package: Bad_Name/' "$T/badname/DEBIAN/control"
make_tree "$T/nomaint"
sed -i '/^Maintainer/d' "$T/nomaint/DEBIAN/control"
ddcmp /dev/null -b "$T/nocontrol" out.deb
ddcmp /dev/null -b "$T/badname" out.deb
ddcmp /dev/null -b "$T/nomaint" out.deb
ddcmp /dev/null -b "$T/nonexistent" out.deb
ddcmp /dev/null -b
ddcmp /dev/null -b "$T/pkg" a b
ddcmp /dev/null --nocheck -b "$T/pkg" .
ok "check failures, warnings and argument errors"
