#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Real Debian packages, fetched with apt-get download from the Debian
# mirror the system's apt sources name: dpkg-deb mode gives the system
# dpkg-deb's -I, -f, -W, -c, -e, -x, -X, --ctrl-tarfile and --fsys-tarfile
# (stdout, stderr, status, files made) under LC_ALL=C, C.UTF-8 and a
# Latin-1 locale, in UTC and in a half-hour time zone.  ca-certificates
# has non-ASCII names (NetLock_..._Főtanúsítvány.crt, which tar prints in
# octal under C), systemd has backslashes in its unit names
# (system-systemd\x2dcryptsetup.slice, printed with two).  The package
# itself is also read from zdeb's indexed zstd (zdeb recompress).
#
# Run by "make check-slow": it downloads about 10 MB; without apt or the
# mirror it skips and says why.
. "$(dirname "$0")/../integ/lib.sh"
. "$(dirname "$0")/../integ/dpkg-deb-lib.sh"
need apt-get timeout
: "${ZDEB_SRCDIR:?ZDEB_SRCDIR must point to the source tree}"

pkgs="ca-certificates systemd less sed tzdata"
mkdir "$T/debs"
(cd "$T/debs" && timeout 300 apt-get download $pkgs) >"$T/apt.log" 2>&1 ||
	skip "cannot download $pkgs with apt-get (no mirror, or no" \
	     "apt-get update?): $(tail -n 1 "$T/apt.log")"
for p in $pkgs; do
	set -- "$T/debs/${p}"_*.deb
	[ -f "$1" ] || skip "apt-get download gave no $p .deb"
done

sh "$ZDEB_SRCDIR/tests/latin1-locale.sh" "$T/locale" ||
	fail "cannot make the Latin-1 locale (see tests/latin1-locale.sh)"
export LOCPATH="$T/locale:/usr/lib/locale"
for z in UTC Asia/Kolkata; do
	[ -f "/usr/share/zoneinfo/$z" ] || fail "no time zone $z (tzdata)"
done

# The names this test is about must be there, or it tests nothing.
LC_ALL=C dpkg-deb -c "$T/debs"/ca-certificates_*.deb >"$T/list"
grep -q 'F\\305\\221tan\\303\\272s\\303\\255tv\\303\\241ny\.crt' \
	"$T/list" || fail "ca-certificates: no Főtanúsítvány.crt in -c"
LC_ALL=C dpkg-deb -c "$T/debs"/systemd_*.deb >"$T/list"
grep -qF 'system-systemd\\x2dcryptsetup.slice' "$T/list" ||
	fail "systemd: no system-systemd\\\\x2dcryptsetup.slice in -c"

"$ZDEB" recompress -Zzstd "$T/debs"/systemd_*.deb "$T/systemd-zstd.deb" \
	>/dev/null
set -- "$T/debs"/*.deb "$T/systemd-zstd.deb"
fmt='${binary:Package};${source:Package};${source:Version};'
fmt=$fmt'${binary:Summary};${Installed-Size;8}\n'
for loc in C C.UTF-8 en_US.ISO-8859-1; do
	for tz in UTC Asia/Kolkata; do
		export LC_ALL=$loc TZ=$tz
		for deb in "$@"; do
			n=$(basename "$deb")
			ddcmp /dev/null -I "$deb"
			ddcmp /dev/null -I "$deb" control md5sums
			ddcmp /dev/null -f "$deb"
			ddcmp /dev/null -f "$deb" Package Version Depends \
				Pre-Depends Provides Breaks Replaces \
				Priority Section Multi-Arch Essential
			ddcmp /dev/null -W "$deb"
			ddcmp /dev/null -W --showformat="$fmt" "$deb"
			ddcmp /dev/null -c "$deb"
			ddcmp /dev/null -X "$deb" x
			ddcmp "$deb" -c -
			ok "$loc $tz: $n: -I, -f, -W, -c, -X"
		done
	done
	# The tar streams and trees do not depend on the time zone.
	for deb in "$@"; do
		n=$(basename "$deb")
		ddcmp /dev/null --ctrl-tarfile "$deb"
		ddcmp /dev/null --fsys-tarfile "$deb"
		ddcmp /dev/null -e "$deb" ctl
		ddcmp /dev/null -x "$deb" x
		ddcmp /dev/null -v -x "$deb" x
		ddcmp "$deb" -I -
		ok "$loc: $n: --ctrl-tarfile, --fsys-tarfile, -e, -x, -v -x"
	done
done
