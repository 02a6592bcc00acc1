#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Packages in the multi-frame layouts (frames, pzstd) under the stock
# tools, which read only the first zstd frame of a member: on trees made
# so that a frame would end on a tar member boundary (a file ending at
# offset 1 MiB, a control.tar whose md5sums ends at 4 KiB, trees of small
# files where most 512-byte blocks are headers) with segments of 4K, 64K
# and 1M, stock dpkg --unpack / dpkg -i, dpkg-deb -x and
# dpkg-deb --fsys-tarfile | tar either get the whole tree or fail with a
# non-zero status, never a part of it with status 0.  control.tar is one
# frame unless --control-layout asks; the warning comes only with frames.
. "$(dirname "$0")/lib.sh"
need dpkg dpkg-deb tar python3

# offsets TAR: "name header-offset end-of-data" for each member.
offsets() {
	python3 -c 'import sys, tarfile
for m in tarfile.open(sys.argv[1]):
    print(m.name, m.offset, m.offset_data + m.size)' "$1"
}

# stock_checks DEB TREE WHAT: the stock readers get all of TREE or fail.
stock_checks() {
	deb=$1 tree=$2 what=$3
	manifest "$tree" >"$T/want"
	# dpkg-deb --fsys-tarfile | tar -t: every member, or tar fails
	(cd "$tree" && find . ! -path './DEBIAN*' | LC_ALL=C sort) >"$T/names"
	set +e
	dpkg-deb --fsys-tarfile "$deb" 2>"$T/dd.err" >"$T/stock.tar"
	ddrc=$?
	tar -tf "$T/stock.tar" >"$T/list" 2>"$T/tar.err"
	trc=$?
	set -e
	if [ $ddrc -eq 0 ] && [ $trc -eq 0 ]; then
		sed 's|/$||' "$T/list" | LC_ALL=C sort >"$T/got.names"
		sed 's|^\./$|.|' "$T/names" | diff - "$T/got.names" >&2 ||
			fail "$what: dpkg-deb --fsys-tarfile | tar -t lists part of the tree with status 0"
	fi
	# dpkg-deb -x
	rm -rf "$T/x"
	set +e
	dpkg-deb -x "$deb" "$T/x" 2>"$T/x.err"
	xrc=$?
	set -e
	if [ $xrc -eq 0 ]; then
		manifest "$T/x" >"$T/got"
		diff "$T/want" "$T/got" >&2 ||
			fail "$what: stock dpkg-deb -x extracted part of the tree with status 0"
	fi
	# dpkg -i into a scratch root: installed whole (postinst run) or failed
	R=$T/root
	rm -rf "$R"
	init_dpkg_root "$R"
	set +e
	dpkg_install "$R" "$deb" >"$T/dpkg.out" 2>&1
	irc=$?
	set -e
	pkg=$(dpkg-deb -f "$deb" Package 2>/dev/null || echo '?')
	if [ $irc -eq 0 ]; then
		cut -d' ' -f1 "$T/want" | manifest_paths "$R" >"$T/got"
		diff "$T/want" "$T/got" >&2 ||
			fail "$what: stock dpkg -i installed part of the tree with status 0"
		[ -e "$R/postinst-$pkg-ran" ] ||
			fail "$what: stock dpkg -i exit 0 but the postinst did not run"
		[ -s "$R/var/lib/dpkg/info/$pkg.md5sums" ] ||
			fail "$what: stock dpkg -i exit 0 without the md5sums"
		stock_full=$((stock_full + 1))
	else
		grep -q . "$T/dpkg.out" || fail "$what: dpkg failed silently"
		stock_failed=$((stock_failed + 1))
	fi
}
stock_full=0 stock_failed=0

# 1. A file that ends at tar offset 1 MiB (make_mib_tree).
P=$T/mib
make_mib_tree "$P" mib
"$ZDEB" build -Zzstd -z3 --layout=frames --segment-size=1M "$P" \
	"$T/mib.deb" 2>"$T/build.err" || fail "build: $(cat "$T/build.err")"
"$ZDEB" cat-data "$T/mib.deb" >"$T/mib.tar"
offsets "$T/mib.tar" | grep -qx './usr/share/p/a.txt 2048 1048576' ||
	fail "a.txt does not end at 1 MiB: $(offsets "$T/mib.tar")"
"$ZDEB" info --json "$T/mib.deb" | grep -q '"data.tar.zst".*"layout": "frames", "segments": 2' ||
	fail "not 2 frames: $("$ZDEB" info --json "$T/mib.deb")"
stock_checks "$T/mib.deb" "$P" "a.txt ending at 1 MiB"
[ $stock_failed -eq 1 ] || fail "a.txt ending at 1 MiB: stock dpkg installed it?"
grep -q 'stock dpkg reads only the first one, so it fails to install' \
	"$T/build.err" || fail "no warning: $(cat "$T/build.err")"
[ "$(grep -c warning "$T/build.err")" -eq 1 ] ||
	fail "one warning expected (data only): $(cat "$T/build.err")"
ok "a file ending at 1 MiB, frames of 1M: stock dpkg, dpkg-deb -x and tar fail, nothing partial"

# 2. control.tar with md5sums ending at 4 KiB (a member header there):
#    one frame by default, so dpkg runs the postinst; with
#    --control-layout=frames the frame ends inside a file's data.
P=$T/ctl
frames_control "$P" ctl 44
mkdir -p "$P/usr/share/ctl"
echo small >"$P/usr/share/ctl/file"
"$ZDEB" build -Zzstd --layout=frames --segment-size=4K "$P" "$T/ctl.deb" \
	2>"$T/build.err" || fail "build: $(cat "$T/build.err")"
"$ZDEB" cat-control "$T/ctl.deb" >"$T/ctl.tar"
offsets "$T/ctl.tar" | grep -q '^\./postinst 4096 ' ||
	fail "postinst's header is not at 4096: $(offsets "$T/ctl.tar")"
"$ZDEB" info --json "$T/ctl.deb" | grep -q '"control.tar.zst".*"layout": "single", "segments": 1' ||
	fail "control.tar not one frame: $("$ZDEB" info --json "$T/ctl.deb")"
[ ! -s "$T/build.err" ] || fail "warning for one-frame members: $(cat "$T/build.err")"
dpkg-deb --ctrl-tarfile "$T/ctl.deb" | cmp - "$T/ctl.tar" ||
	fail "stock --ctrl-tarfile does not read the whole control.tar"
stock_full=0 stock_failed=0
stock_checks "$T/ctl.deb" "$P" "control.tar with md5sums at 4 KiB"
[ $stock_full -eq 1 ] || fail "control in one frame: stock dpkg did not install it"
"$ZDEB" build -Zzstd --layout=frames --control-layout=frames \
	--segment-size=4K "$P" "$T/ctlf.deb" 2>"$T/build.err"
"$ZDEB" info --json "$T/ctlf.deb" | grep -q '"control.tar.zst".*"layout": "frames", "segments": [2-9]' ||
	fail "--control-layout=frames: $("$ZDEB" info --json "$T/ctlf.deb")"
grep -q 'stock dpkg reads only the first one' "$T/build.err" ||
	fail "no warning for the control.tar frames: $(cat "$T/build.err")"
stock_full=0 stock_failed=0
stock_checks "$T/ctlf.deb" "$P" "control.tar in frames of 4K"
[ $stock_failed -eq 1 ] || fail "control.tar in frames: stock dpkg installed it?"
ok "control.tar with md5sums at 4 KiB: one frame (installed, postinst run), or with --control-layout=frames refused"

# 3. Trees of small files (most blocks are headers), frames and pzstd,
#    segments of 4K, 64K and 1M: never a partial install.
make_small_tree() {
	frames_control "$1" "$2"
	python3 - "$1" "$3" <<'PY'
import os, random, sys
root, seed = sys.argv[1], int(sys.argv[2])
r = random.Random(seed)
for d in range(12):
    p = os.path.join(root, "usr/share/small/d%02d" % d)
    os.makedirs(p)
    for f in range(r.randint(10, 40)):
        n = r.choice([0, 1, 7, 100, 511, 512, 513, 1024, 3000])
        with open(os.path.join(p, "f%03d" % f), "wb") as fh:
            fh.write(bytes(r.randrange(97, 123) for _ in range(n)))
    for l in range(r.randint(0, 3)):
        os.symlink("f000", os.path.join(p, "l%d" % l))
PY
}
n=0 stock_full=0 stock_failed=0
for seed in 1 2; do
	P=$T/small$seed
	make_small_tree "$P" "small$seed" $seed
	for layout in frames pzstd; do
		for seg in 4K 64K 1M; do
			"$ZDEB" build -Zzstd -z3 --layout=$layout \
				--segment-size=$seg "$P" "$T/s.deb" 2>/dev/null
			stock_checks "$T/s.deb" "$P" "seed $seed $layout $seg"
			n=$((n + 1))
		done
	done
done
echo "# small trees: $stock_failed refused, $stock_full installed whole" >&2
[ $stock_failed -gt 0 ] || fail "no small-tree package was in several frames"
ok "$n small-file packages (frames, pzstd; 4K, 64K, 1M): installed whole or refused"

# 4. pzstd: stock reads the whole one-frame control.tar, and its first
#    data frame is a zstd frame, not pzstd's skippable header.
P=$T/small1
"$ZDEB" build -Zzstd --layout=pzstd --segment-size=4K "$P" "$T/p.deb" \
	2>"$T/build.err"
"$ZDEB" cat-control "$T/p.deb" >"$T/p-ctl.tar"
dpkg-deb --ctrl-tarfile "$T/p.deb" | cmp - "$T/p-ctl.tar" ||
	fail "pzstd: stock --ctrl-tarfile does not read the control.tar"
set +e
dpkg-deb --fsys-tarfile "$T/p.deb" >"$T/p.tar" 2>/dev/null
set -e
[ -s "$T/p.tar" ] || fail "pzstd: stock --fsys-tarfile reads an empty data.tar"
"$ZDEB" info --json "$T/p.deb" | grep -q '"data.tar.zst".*"layout": "pzstd"' ||
	fail "pzstd: $("$ZDEB" info --json "$T/p.deb")"
if command -v pzstd >/dev/null 2>&1; then
	(cd "$T" && rm -f data.tar.zst && ar x p.deb data.tar.zst)
	pzstd -q -dc "$T/data.tar.zst" | cmp - "$("$ZDEB" cat-data "$T/p.deb" >"$T/pz.tar" && echo "$T/pz.tar")" ||
		fail "pzstd -d does not read the pzstd member"
fi
ok "pzstd: control.tar read whole by stock, data.tar not read as empty, pzstd -d reads it"

# 5. The warning only when a member has several frames.
P=$T/tiny
frames_control "$P" tiny
mkdir -p "$P/usr/share/tiny"
echo tiny >"$P/usr/share/tiny/x"
for layout in frames pzstd; do
	"$ZDEB" build --layout=$layout "$P" "$T/tiny.deb" 2>"$T/build.err"
	[ ! -s "$T/build.err" ] ||
		fail "$layout, one frame: warns: $(cat "$T/build.err")"
	"$ZDEB" recompress --layout=$layout "$T/tiny.deb" "$T/tiny2.deb" \
		2>"$T/build.err"
	[ ! -s "$T/build.err" ] ||
		fail "recompress $layout, one frame: warns: $(cat "$T/build.err")"
done
"$ZDEB" recompress --layout=frames --segment-size=1M "$T/mib.deb" \
	"$T/mib2.deb" 2>"$T/build.err"
grep -q 'stock dpkg reads only the first one' "$T/build.err" ||
	fail "recompress in frames: no warning: $(cat "$T/build.err")"
"$ZDEB" info --json "$T/mib2.deb" | grep -q '"control.tar.zst".*"layout": "single"' ||
	fail "recompress: control.tar not one frame"
ok "the frames warning comes only for members of several frames (build, recompress)"
