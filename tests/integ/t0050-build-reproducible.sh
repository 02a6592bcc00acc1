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

# Every way to the indexed layout balances its segments over the tar's
# size, so the same tar gives the same data member whichever way it comes:
# zdeb build (the tar measured from the tree first), dpkg-deb mode's -b,
# and zdeb recompress of an uncompressed .deb, of an xz one (the size by
# decoding) and of its own output (the size from the frame header).  The
# tree holds a 3 MiB member with no 17 identical bytes, where the cuts
# are resets with literals (index version 2).
python3 - "$T/pkg/usr/share/doc/zdeb-test/code.bin" <<'PY'
import sys
b = bytearray()
x = 12345
while len(b) < 3 << 20:
    x = (x * 6364136223846793005 + 1442695040888963407) % (1 << 64)
    r = x >> 33
    i = len(b)
    if i % 8 >= 4 and r & 3:
        b.append(r >> 8 & 3 if i % 8 == 4 else 0)
    elif i >= 8 and r & 12 == 0:
        b.append(b[i - 8])
    else:
        b.append(1 + (r >> 8) % 255)
open(sys.argv[1], "wb").write(b)
PY
member() { ar p "$1" data.tar.zst | sha256sum | cut -c1-16; }
opts="-Zzstd -z3 --segment-size=256K"
"$ZDEB" build $opts "$T/pkg" "$T/built.deb" || fail "build $opts"
ZDEB_HANDOFF=never "$ZDEB" dpkg-deb --root-owner-group -Zzstd -z3 -b \
	"$T/pkg" "$T/dd.deb" >/dev/null || fail "dpkg-deb mode -b"
"$ZDEB" build --root-owner-group -Zzstd -z3 "$T/pkg" "$T/ro.deb" ||
	fail "build --root-owner-group"
[ "$(member "$T/dd.deb")" = "$(member "$T/ro.deb")" ] ||
	fail "dpkg-deb mode -b and zdeb build give other data members"
ok "dpkg-deb mode -b: the data member zdeb build makes"
"$ZDEB" build -Znone "$T/pkg" "$T/none.deb" || fail "build -Znone"
"$ZDEB" build -Zxz "$T/pkg" "$T/xz.deb" || fail "build -Zxz"
want=$(member "$T/built.deb")
for src in none xz built; do
	"$ZDEB" recompress $opts "$T/$src.deb" "$T/re-$src.deb" ||
		fail "recompress $src"
	[ "$(member "$T/re-$src.deb")" = "$want" ] ||
		fail "recompress of the $src .deb: another data member"
done
ok "recompress from none, xz and indexed zstd: the data member of build"
# 5 MiB of tar, 256 KiB targets: 32 segments aimed at, fewer where the
# 1.9 MB of seq's digits leave no place near one
segs=$("$ZDEB" info "$T/built.deb" | awk '$1 == "data.tar.zst" {print $5}')
[ "$segs" -ge 6 ] || fail "$segs segments"
ar p "$T/built.deb" data.tar.zst >"$T/data.zst"
python3 - "$T/data.zst" <<'PY' || fail "the index is not version 2"
import sys
z = open(sys.argv[1], "rb").read()
i = z.rfind(b"ZDXI")
sys.exit(0 if i > 0 and z[i + 4] == 2 else 1)
PY
dpkg-deb --fsys-tarfile "$T/none.deb" >"$T/tar.ref" ||
	fail "stock dpkg-deb cannot read the uncompressed .deb"
dpkg-deb --fsys-tarfile "$T/built.deb" >"$T/tar.got" ||
	fail "stock dpkg-deb cannot read the indexed .deb"
cmp -s "$T/tar.got" "$T/tar.ref" || fail "stock dpkg-deb reads another tar"
ok "$segs segments, resets with literals: stock dpkg-deb reads the tar"
