#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Reproducibility: the same tree gives the same .deb bytes twice and for
# any thread count, for every compressor and zstd layout.
. "$(dirname "$0")/lib.sh"

make_tree "$T/pkg"
seq 1 300000 >"$T/pkg/usr/share/doc/zdeb-test/more.txt"
for v in "-Zzstd" "-Zzstd -z3 --segment-size=64K" "-Zzstd --layout=single" \
         "-Zzstd --layout=frames --segment-size=64K" \
         "-Zzstd --layout=pzstd -z1" "-Zxz" "-Zxz -z1" "-Zgzip" "-Znone"; do
	sums=""
	for t in 1 2 8 1; do
		"$ZDEB" build $v -T $t "$T/pkg" "$T/out.deb" 2>/dev/null ||
			fail "build $v -T $t"
		sums="$sums $(sha256sum <"$T/out.deb" | cut -c1-16)"
	done
	set -- $sums
	[ "$1" = "$2" ] && [ "$2" = "$3" ] && [ "$3" = "$4" ] ||
		fail "$v: bytes depend on threads or run:$sums"
	ok "$v: identical bytes for -T1, -T2, -T8 and a rerun"
done

# A copy of the tree elsewhere (other path, other inode numbers, other
# atimes) gives the same bytes.
cp -a "$T/pkg" "$T/copy"
"$ZDEB" build "$T/pkg" "$T/a.deb"
"$ZDEB" build "$T/copy" "$T/b.deb"
cmp "$T/a.deb" "$T/b.deb" || fail "a copy of the tree gives other bytes"
ok "a copied tree gives identical bytes"
