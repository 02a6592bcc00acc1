#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Member names are printed as GNU tar 1.34 prints them, whatever bytes
# they hold: dpkg-deb -c (tar -tv), -X, -v -x and -v -R (tar -xv) match
# the system dpkg-deb under LC_ALL=C, C.UTF-8 and a Latin-1 locale, for a
# package whose names hold every byte 0x01-0xff, backslashes, newlines,
# tabs, UTF-8 (ca-certificates' Főtánsítvány.crt), invalid UTF-8, and
# symlinks and hardlinks to such names, in a GNU and a pax tar; zdeb
# contents and zdeb extract -v print what tar -tv and tar -xv print.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dpkg-deb-lib.sh"
need tar xz ar
sh "$ZDEB_SRCDIR/tests/latin1-locale.sh" "$T/locale" ||
	fail "cannot make the Latin-1 locale (see tests/latin1-locale.sh)"
export LOCPATH="$T/locale:/usr/lib/locale"

# The tree: one file per byte (but '/'), in the middle of a name and at
# its end, and the names of the issue.
d=$T/data/usr/share/names
mkdir -p "$d" "$T/ctl"
i=1
while [ $i -le 255 ]; do
	if [ $i -ne 47 ]; then
		# $(...) drops a trailing newline: keep the byte with a guard.
		b=$(printf "\\$(printf %03o $i)x")
		b=${b%x}
		: >"$d/b-$(printf %02x $i)-${b}-z"
		: >"$d/e-$(printf %02x $i)-${b}"
	fi
	i=$((i + 1))
done
: >"$d/$(printf 'F\305\221t\303\241ns\303\255tv\303\241ny.crt')"
: >"$d/$(printf 'latin1-\351t\351')"
: >"$d/system-systemd\\x2dcryptsetup.slice"
: >"$d/$(printf 'nel-\302\205-ls-\342\200\250-cut-\342\202')"
: >"$d/$(printf 'tab\there\nnewline\\back')"
ln -s "$(printf 'F\305\221t\303\241ns\303\255tv\303\241ny.crt')" "$d/l-utf8"
ln -s "$(printf 'tab\there\nnewline\\back')" "$d/l-$(printf '\351')"
ln "$d/$(printf 'latin1-\351t\351')" "$d/h-latin1"
ln "$d/system-systemd\\x2dcryptsetup.slice" "$d/$(printf 'h-\t\\')"
cat >"$T/ctl/control" <<'CTL'
Package: names
Version: 1.0
Architecture: all
Maintainer: zdeb tests <tests@example.org>
Description: member names of every byte
CTL
tar -C "$T/ctl" -czf "$T/control.tar.gz" --format=gnu --owner=0 \
    --group=0 ./control
tar -C "$T/data" -cJf "$T/data.tar.xz" --format=gnu --owner=0 --group=0 \
    --sort=name .
echo 2.0 >"$T/debian-binary"
(cd "$T" && ar rc names.deb debian-binary control.tar.gz data.tar.xz)
# A pax tar, whose names are UTF-8 that tar converts to the locale's
# charset when it can (café is caf\351 in Latin-1, for -c and -x alike).
: >"$d/$(printf 'caf\303\251')"
tar -C "$T/data" -cJf "$T/data.tar.xz" --format=pax --owner=0 --group=0 \
    --sort=name --pax-option=delete=atime,delete=ctime .
(cd "$T" && ar rc names-pax.deb debian-binary control.tar.gz data.tar.xz)
# The same tar in zdeb's indexed zstd.
"$ZDEB" recompress -Zzstd "$T/names.deb" "$T/names-zstd.deb" >/dev/null

for loc in C C.UTF-8 en_US.ISO-8859-1; do
	export LC_ALL=$loc
	for deb in "$T/names.deb" "$T/names-zstd.deb" "$T/names-pax.deb"; do
		ddcmp /dev/null -c "$deb"
		ddcmp /dev/null -X "$deb" x
		ok "$loc: -c, -X of $(basename "$deb")"
	done
	# The same lister as -X (tar -xv).
	ddcmp /dev/null -v -x "$T/names.deb" x
	ddcmp /dev/null --verbose --raw-extract "$T/names.deb" x
	ok "$loc: -v -x, -v -R"
	# The issue's three cases, spelled out.
	dpkg-deb -c "$T/names.deb" >"$T/list"
	case $loc in
	C)
		grep -qF 'F\305\221t\303\241ns\303\255tv\303\241ny.crt' \
			"$T/list" || fail "C: no octal escapes in -c"
		;;
	C.UTF-8)
		grep -qF 'latin1-\351t\351' "$T/list" ||
			fail "C.UTF-8: invalid UTF-8 not escaped in -c"
		;;
	esac
	grep -qF 'system-systemd\\x2dcryptsetup.slice' "$T/list" ||
		fail "$loc: backslash not doubled in -c"
	# Native commands against tar itself.
	dpkg-deb --fsys-tarfile "$T/names.deb" >"$T/data.tar"
	tar -tvf "$T/data.tar" >"$T/want"
	"$ZDEB" contents "$T/names-zstd.deb" >"$T/got"
	cmp -s "$T/want" "$T/got" || {
		diff "$T/want" "$T/got" | head >&2
		fail "$loc: zdeb contents differs from tar -tv"
	}
	rm -rf "$T/tx" "$T/zx"
	mkdir "$T/tx"
	tar -C "$T/tx" -xvf "$T/data.tar" >"$T/want"
	"$ZDEB" extract -v "$T/names-zstd.deb" "$T/zx" >"$T/got"
	cmp -s "$T/want" "$T/got" || {
		diff "$T/want" "$T/got" | head >&2
		fail "$loc: zdeb extract -v differs from tar -xv"
	}
	ok "$loc: zdeb contents = tar -tv, zdeb extract -v = tar -xv"
done

# Dates are local: a half-hour zone.
export LC_ALL=C TZ=Asia/Kolkata
ddcmp /dev/null -c "$T/names-zstd.deb"
ok "TZ=$TZ: -c"
