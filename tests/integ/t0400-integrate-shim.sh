#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Why 'zdeb integrate' exists: stock dpkg runs dpkg-deb by PATH lookup, and
# with zdeb found first as dpkg-deb it installs packages in every zstd
# layout zdeb writes (indexed, pzstd, concatenated frames) in full, while
# stock dpkg alone fails on the last two.
. "$(dirname "$0")/lib.sh"
need dpkg dpkg-deb

make_tree "$T/pkg"
manifest "$T/pkg" >"$T/want"
# Segments of 64 KiB: the 400 KB tree makes several frames.
for layout in indexed pzstd frames; do
	"$ZDEB" build --layout=$layout --segment-size=64K "$T/pkg" \
		"$T/$layout.deb" 2>"$T/build.err" ||
		fail "zdeb build --layout=$layout: $(cat "$T/build.err")"
done
grep -q "stock dpkg" "$T/build.err" ||
	fail "no warning for the frames layout: $(cat "$T/build.err")"

mkdir "$T/shim"
ln -s "$ZDEB" "$T/shim/dpkg-deb"

# installed ROOT: the manifest of ROOT without dpkg's database equals the
# source tree's.
installed() {
	manifest "$1" | grep -v '^\./var/lib/dpkg' >"$T/got"
	diff "$T/want" "$T/got" >"$T/diff" 2>&1
}

for layout in indexed pzstd frames; do
	root=$T/shim-$layout
	init_dpkg_root "$root"
	PATH=$T/shim:$PATH dpkg_install "$root" "$T/$layout.deb" \
		>"$T/dpkg.log" 2>&1 ||
		fail "$layout: dpkg -i with zdeb as dpkg-deb: $(cat "$T/dpkg.log")"
	installed "$root" || fail "$layout: tree differs: $(cat "$T/diff")"
	[ "$(grep -c . "$T/got")" -eq "$(grep -c . "$T/want")" ] ||
		fail "$layout: file count"
	grep -q '^Status: install ok installed' "$root/var/lib/dpkg/status" ||
		fail "$layout: dpkg status"
	[ -s "$root/var/lib/dpkg/info/zdeb-test.md5sums" ] ||
		fail "$layout: no md5sums registered"
	ok "$layout: dpkg with zdeb as dpkg-deb installs the whole tree"
done

# Stock dpkg: the indexed layout installs, the multi-frame ones do not
# (pzstd: nothing decodes; frames: only the first frame, "tar: Unexpected
# EOF").  A failure, or a success with a tree that differs, both show it.
for layout in indexed pzstd frames; do
	root=$T/stock-$layout
	init_dpkg_root "$root"
	set +e
	dpkg_install "$root" "$T/$layout.deb" >"$T/dpkg.log" 2>&1
	rc=$?
	set -e
	if [ $layout = indexed ]; then
		[ $rc -eq 0 ] || fail "stock dpkg -i of indexed: $(cat "$T/dpkg.log")"
		installed "$root" || fail "indexed: stock tree differs"
		ok "indexed: stock dpkg installs it too"
	elif [ $rc -eq 0 ] && installed "$root"; then
		fail "$layout: stock dpkg installed it in full; the test data" \
		     "is not multi-frame?"
	else
		ok "$layout: stock dpkg fails (exit $rc: $(grep -m1 -E \
		    'error|Unexpected|tar' "$T/dpkg.log" || echo 'tree differs'))"
	fi
done
