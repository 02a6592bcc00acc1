#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The indexed layout is one standard zstd frame: stock dpkg-deb, zstd -d,
# bsdtar and dpkg -i read it byte-exactly (>= 50 MB of real files, many
# small members, a member larger than a segment, many segments), while
# zdeb decodes it in parallel; pzstd -d and zstd -d read the multi-frame
# layouts.  (Input without a run of 17 identical bytes stays one segment:
# tests/unit/check-zseg.c.)
. "$(dirname "$0")/lib.sh"
need dpkg-deb dpkg zstd pzstd bsdtar ar

# A tree of real files from this machine, a little over 50 MB.
mkdir -p "$T/pkg/DEBIAN"
find /usr/share/doc /usr/share/perl /usr/share/man /usr/lib/x86_64-linux-gnu \
     /usr/share/locale -type f -printf '%s %p\n' 2>/dev/null |
	awk '{ t += $1; sub(/^[0-9]+ /, ""); print; if (t > 52000000) exit }' \
	>"$T/list"
tar -cf - -T "$T/list" 2>/dev/null | tar -xf - -C "$T/pkg"
total=$(du -sb "$T/pkg/usr" | cut -f1)
[ "$total" -ge 50000000 ] || skip "fewer than 50 MB of files to copy"
# One member larger than several segments, with no zero bytes in it.
head -c 3000000 /dev/urandom | tr -d '\000' >"$T/pkg/usr/big-random.bin"
printf 'Package: real\nVersion: 1\nArchitecture: all\nMaintainer: t <t@example.org>\nDescription: real files\n' \
	>"$T/pkg/DEBIAN/control"

"$ZDEB" build -z3 --segment-size=1M --no-md5sums "$T/pkg" "$T/i.deb"
segs=$("$ZDEB" info --json "$T/i.deb" | sed 's/.*"data.tar.zst"[^}]*"segments": \([0-9]*\).*/\1/')
[ "$segs" -gt 20 ] || fail "only $segs segments"
"$ZDEB" info --json "$T/i.deb" | grep -q '"name": "data.tar.zst", "size": [0-9]*, "compressor": "zstd", "layout": "indexed"' ||
	fail "not indexed: $("$ZDEB" info --json "$T/i.deb")"
ok "$((total / 1000000)) MB of real files: indexed, $segs segments"

"$ZDEB" cat-data -T2 "$T/i.deb" >"$T/z.tar"
dpkg-deb --fsys-tarfile "$T/i.deb" >"$T/d.tar"
cmp "$T/z.tar" "$T/d.tar" || fail "stock dpkg-deb --fsys-tarfile differs"
(cd "$T" && ar p i.deb data.tar.zst >m.zst)
zstd -q -d -c "$T/m.zst" | cmp - "$T/z.tar" || fail "zstd -d differs"
bsdtar -tf "$T/m.zst" >"$T/bsd.list" || fail "bsdtar cannot read the member"
tar -tf "$T/z.tar" | sed 's,/$,,' >"$T/tar.list"
sed 's,/$,,' "$T/bsd.list" | cmp - "$T/tar.list" || fail "bsdtar listing differs"
"$ZDEB" verify "$T/i.deb" >/dev/null || fail "zdeb verify"
ok "stock dpkg-deb, zstd -d, bsdtar and zdeb verify read the indexed member"

# the big member spans segments and comes back whole
tar -xOf "$T/z.tar" ./usr/big-random.bin | cmp - "$T/pkg/usr/big-random.bin" ||
	fail "big member differs"
ok "a member larger than a segment round-trips"

root=$T/root
init_dpkg_root "$root"
dpkg_install "$root" "$T/i.deb" >"$T/dpkg.log" 2>&1 || fail "dpkg -i: $(tail "$T/dpkg.log")"
[ "$(find "$root/usr" | wc -l)" -eq "$(find "$T/pkg/usr" | wc -l)" ] ||
	fail "installed file count differs"
manifest "$T/pkg" >"$T/want"
manifest "$root" | grep -v '^\./var' >"$T/got"
diff "$T/want" "$T/got" >/dev/null || fail "installed tree differs"
ok "stock dpkg -i installs the indexed package, tree equal to the source"

# multi-frame layouts: the tools that write them read them
"$ZDEB" build -z3 --layout=pzstd --no-md5sums "$T/pkg" "$T/p.deb" 2>/dev/null
(cd "$T" && ar p p.deb data.tar.zst >p.zst)
pzstd -q -d -p 2 -c "$T/p.zst" | cmp - "$T/z.tar" || fail "pzstd -d differs"
"$ZDEB" build -z3 --layout=frames --segment-size=4M --no-md5sums "$T/pkg" "$T/f.deb" 2>/dev/null
(cd "$T" && ar p f.deb data.tar.zst >f.zst)
zstd -q -d -c "$T/f.zst" | cmp - "$T/z.tar" || fail "zstd -d of frames differs"
for d in p f; do
	"$ZDEB" cat-data -T2 "$T/$d.deb" | cmp - "$T/z.tar" || fail "zdeb reads $d"
done
ok "pzstd -d reads the pzstd layout, zstd -d the frames layout, zdeb both"

