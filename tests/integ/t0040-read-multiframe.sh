#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Members stock dpkg cannot read fully (concatenated zstd frames, pzstd
# output) and the read-only compressors (bzip2, lzma, GNU ar names with
# '/'): zdeb reads every byte.
. "$(dirname "$0")/lib.sh"
need dpkg-deb ar zstd pzstd bzip2 xz

make_tree "$T/pkg"
dpkg-deb -Znone -b "$T/pkg" "$T/plain.deb" >/dev/null
(cd "$T" && ar x plain.deb && mv data.tar orig.tar)
head -c 2000000 /dev/urandom >>"$T/pkg/usr/share/doc/zdeb-test/random.bin"

# assemble NAME DATAFILE - a .deb with control.tar and the given data member
assemble() {
	(cd "$T" && rm -f "$1.deb" && cp "$2" "$3" &&
	 ar rc "$1.deb" debian-binary control.tar "$3" && rm -f "$3")
}

size=$(stat -c %s "$T/orig.tar")
half=$(( (size / 2) / 512 * 512 ))
head -c $half "$T/orig.tar" | zstd -q -3 >"$T/frames.zst"
tail -c +$((half + 1)) "$T/orig.tar" | zstd -q -3 >>"$T/frames.zst"
assemble frames frames.zst data.tar.zst
"$ZDEB" cat-data "$T/frames.deb" >"$T/out.tar" || fail "cat-data frames"
cmp "$T/orig.tar" "$T/out.tar" || fail "concatenated frames: bytes differ"
"$ZDEB" info --json "$T/frames.deb" | grep -q '"layout": "frames", "segments": 2' ||
	fail "info does not see 2 frames: $("$ZDEB" info --json "$T/frames.deb")"
if dpkg-deb --fsys-tarfile "$T/frames.deb" >"$T/stock.tar" 2>/dev/null &&
   cmp -s "$T/orig.tar" "$T/stock.tar"; then
	echo "note: this dpkg-deb reads concatenated zstd frames fully"
fi
ok "concatenated zstd frames are read fully"

pzstd -q -p 2 -3 -B 65536 -c "$T/orig.tar" >"$T/p.zst" 2>/dev/null ||
	pzstd -q -p 2 -3 -c "$T/orig.tar" >"$T/p.zst"
assemble pzstd p.zst data.tar.zst
"$ZDEB" cat-data "$T/pzstd.deb" >"$T/out.tar" || fail "cat-data pzstd"
cmp "$T/orig.tar" "$T/out.tar" || fail "pzstd: bytes differ"
"$ZDEB" info --json "$T/pzstd.deb" | grep -q '"layout": "pzstd"' ||
	fail "info does not see the pzstd layout"
"$ZDEB" extract "$T/pzstd.deb" "$T/px"
dpkg-deb -x "$T/plain.deb" "$T/dx"
manifest "$T/dx" >"$T/want"; manifest "$T/px" >"$T/got"
diff "$T/want" "$T/got" >&2 || fail "pzstd: extracted tree differs"
ok "pzstd members are read and extracted fully"

bzip2 -c "$T/orig.tar" >"$T/d.bz2"
assemble bz d.bz2 data.tar.bz2
"$ZDEB" cat-data "$T/bz.deb" >"$T/out.tar" && cmp "$T/orig.tar" "$T/out.tar" ||
	fail "bzip2 member"
xz --format=lzma -c "$T/orig.tar" >"$T/d.lzma"
assemble lz d.lzma data.tar.lzma
"$ZDEB" cat-data "$T/lz.deb" >"$T/out.tar" && cmp "$T/orig.tar" "$T/out.tar" ||
	fail "lzma member"
dpkg-deb --fsys-tarfile "$T/bz.deb" | cmp - "$T/orig.tar" ||
	fail "stock dpkg-deb disagrees on the bzip2 package"
ok "bzip2 and lzma members (GNU ar names) are read"
