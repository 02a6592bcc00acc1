#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# zdeb build adds DEBIAN/md5sums as dh_md5sums writes it and Installed-Size
# as dpkg-gencontrol computes it, when the tree lacks them, without
# touching the tree; --no-md5sums / --no-installed-size; never in dpkg-deb
# mode.
. "$(dirname "$0")/lib.sh"
need ar tar md5sum

make_tree "$T/pkg"
sed -i '/^Installed-Size:/d' "$T/pkg/DEBIAN/control"
# A name that sorts differently per path and per directory ("a-c" < "a/b").
mkdir -p "$T/pkg/usr/share/a"
echo b >"$T/pkg/usr/share/a/b"
echo c >"$T/pkg/usr/share/a-c"
snapshot() {
	(cd "$T/pkg" && find . -printf '%p %y %m %s %T@ %n\n' | sort &&
	 find . -type f -exec md5sum {} + | sort)
}
snapshot >"$T/before"

expect_status 0 "$ZDEB" build "$T/pkg" "$T/p.deb"
snapshot >"$T/after"
cmp "$T/before" "$T/after" || fail "zdeb build modified the tree"
mkdir "$T/ctl"
"$ZDEB" cat-control "$T/p.deb" | tar -C "$T/ctl" -xf -
"$ZDEB" cat-control "$T/p.deb" | tar -tvf - >"$T/ctl.list"
grep -q ' root/root .* \./md5sums$' "$T/ctl.list" ||
	fail "control.tar lacks ./md5sums: $(cat "$T/ctl.list")"
[ "$(awk '{print $NF}' "$T/ctl.list" | tr '\n' ' ')" = \
  "./ ./conffiles ./control ./md5sums ./postinst " ] ||
	fail "control.tar order: $(cat "$T/ctl.list")"
ok "control.tar gains md5sums in walk order; the tree is untouched"

# The reference: dh_md5sums' pipeline, conffiles removed.
(cd "$T/pkg" && find . -type f ! -regex './DEBIAN/.*' -printf '%P\0' |
	LC_ALL=C sort -z | xargs -r0 md5sum | grep -v '  etc/zdeb-test/conf$') \
	>"$T/md5.ref"
cmp "$T/ctl/md5sums" "$T/md5.ref" ||
	fail "md5sums differ from find|sort|md5sum: $(diff "$T/md5.ref" "$T/ctl/md5sums")"
ok "md5sums == find | sort | md5sum without conffiles"

if command -v dh_md5sums >/dev/null 2>&1; then
	mkdir -p "$T/src/debian"
	printf 'Source: zdeb-test\nBuild-Depends: debhelper-compat (= 13)\n\nPackage: zdeb-test\nArchitecture: all\nDescription: x\n y\n' \
		>"$T/src/debian/control"
	cp -a "$T/pkg" "$T/src/debian/zdeb-test"
	(cd "$T/src" && dh_md5sums -pzdeb-test) >/dev/null 2>&1 ||
		fail "dh_md5sums failed"
	cmp "$T/ctl/md5sums" "$T/src/debian/zdeb-test/DEBIAN/md5sums" ||
		fail "md5sums differ from dh_md5sums'"
	ok "md5sums == dh_md5sums' own"
fi

# Installed-Size: a re-implementation of dpkg-gencontrol's rule, and
# dpkg-gencontrol itself on the tree without DEBIAN/control (it writes
# that file after scanning).
size=$(sed -n 's/^Installed-Size: //p' "$T/ctl/control")
[ -n "$size" ] || fail "no Installed-Size: $(cat "$T/ctl/control")"
ref=$(cd "$T/pkg" && find . ! -path ./DEBIAN/control -printf '%y %s %i %n\n' |
	awk '$1 == "f" || $1 == "l" { if ($4 > 1) { if (seen[$3]++) next }
	                              s += int(($2 + 1023) / 1024); next }
	     { s += 1 } END { print s }')
[ "$size" = "$ref" ] || fail "Installed-Size $size, reference $ref"
grep -B1 '^Installed-Size:' "$T/ctl/control" | head -1 | grep -q '^Maintainer:' ||
	fail "Installed-Size not after Maintainer: $(cat "$T/ctl/control")"
ok "Installed-Size $size == the awk re-implementation, after Maintainer"
if command -v dpkg-gencontrol >/dev/null 2>&1; then
	mkdir -p "$T/gc/debian"
	cp -a "$T/pkg" "$T/gc/tree"
	rm "$T/gc/tree/DEBIAN/control"
	printf 'Source: zdeb-test\n\nPackage: zdeb-test\nArchitecture: all\nDescription: x\n y\n' \
		>"$T/gc/debian/control"
	printf 'zdeb-test (1) unstable; urgency=low\n\n  * x\n\n -- A <a@example.org>  Mon, 01 Jan 2024 00:00:00 +0000\n' \
		>"$T/gc/debian/changelog"
	gc=$(cd "$T/gc" && dpkg-gencontrol -pzdeb-test -P"$T/gc/tree" -O \
		-fdebian/files 2>/dev/null | sed -n 's/^Installed-Size: //p')
	[ "$size" = "$gc" ] || fail "Installed-Size $size, dpkg-gencontrol $gc"
	ok "Installed-Size == dpkg-gencontrol's ($gc)"
fi

# Present in the tree: kept as they are.
echo "Installed-Size: 7" >>"$T/pkg/DEBIAN/control"
echo "00000000000000000000000000000000  x" >"$T/pkg/DEBIAN/md5sums"
expect_status 0 "$ZDEB" build "$T/pkg" "$T/k.deb"
mkdir "$T/k"
"$ZDEB" control "$T/k.deb" "$T/k"
cmp "$T/k/md5sums" "$T/pkg/DEBIAN/md5sums" || fail "own md5sums replaced"
cmp "$T/k/control" "$T/pkg/DEBIAN/control" || fail "own control changed"
rm "$T/pkg/DEBIAN/md5sums"
sed -i '/^Installed-Size:/d' "$T/pkg/DEBIAN/control"
ok "a tree's own md5sums and Installed-Size are kept"

expect_status 0 "$ZDEB" build --no-md5sums --no-installed-size "$T/pkg" \
	"$T/n.deb"
mkdir "$T/n"
"$ZDEB" control "$T/n.deb" "$T/n"
[ ! -e "$T/n/md5sums" ] || fail "--no-md5sums wrote md5sums"
cmp "$T/n/control" "$T/pkg/DEBIAN/control" || fail "--no-installed-size"
ok "--no-md5sums and --no-installed-size"

# dpkg-deb mode never adds them (dpkg-deb -b does not).
"$ZDEB" dpkg-deb -b "$T/pkg" "$T/d.deb" >/dev/null
mkdir "$T/d"
"$ZDEB" control "$T/d.deb" "$T/d"
[ ! -e "$T/d/md5sums" ] || fail "dpkg-deb mode wrote md5sums"
cmp "$T/d/control" "$T/pkg/DEBIAN/control" || fail "dpkg-deb mode changed control"
ok "zdeb dpkg-deb -b adds neither"
