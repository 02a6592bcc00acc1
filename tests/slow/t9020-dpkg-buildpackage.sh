#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# zdeb's own Debian packaging, as README says: dpkg-buildpackage -b on a
# copy of the source tree gives zdeb and zdeb-perf, their files split as
# debian/*.install say, zstd members in the indexed layout that the stock
# dpkg-deb reads (zdeb verify --dpkg-deb), zdeb-perf depending on python3
# and zdeb itself not.  The package's own test run is left out
# (DEB_BUILD_OPTIONS=nocheck): make check has just run.
#
# Run by "make check-slow": it builds the whole tree again (about a minute).
. "$(dirname "$0")/../integ/lib.sh"
need dpkg-buildpackage dh tar
: "${ZDEB_SRCDIR:?ZDEB_SRCDIR must point to the source tree}"
dpkg-checkbuilddeps -d 'debhelper-compat (= 13)' /dev/null 2>/dev/null ||
	skip "debhelper 13 not installed"

mkdir "$T/src"
(cd "$ZDEB_SRCDIR" && tar -cf - --exclude=./_build --exclude=./.git \
	--exclude='./debian/build' --exclude='./autom4te.cache' .) |
	tar -xf - -C "$T/src"
(cd "$T/src" && DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage -us -uc -b) \
	>"$T/build.log" 2>&1 || fail "dpkg-buildpackage: $(tail -20 "$T/build.log")"
set -- "$T"/zdeb_*.deb
z=$1
set -- "$T"/zdeb-perf_*.deb
p=$1
[ -f "$z" ] && [ -f "$p" ] || fail "packages: $(ls "$T")"
ok "dpkg-buildpackage -b: $(basename "$z"), $(basename "$p")"

dpkg-deb -c "$z" | awk '{print $6}' | grep -v '/$' | sort >"$T/zfiles"
dpkg-deb -c "$p" | awk '{print $6}' | grep -v '/$' | sort >"$T/pfiles"
grep -qx './usr/bin/zdeb' "$T/zfiles" || fail "zdeb lacks its binary: $(cat "$T/zfiles")"
grep -qx './usr/share/man/man5/zdeb-format.5.gz' "$T/zfiles" || fail "zdeb lacks zdeb-format(5)"
grep -q 'zdeb-perf\|zdeb_perf\|iotrace' "$T/zfiles" && fail "zdeb holds zdeb-perf files: $(cat "$T/zfiles")"
grep -qx './usr/bin/zdeb-perf' "$T/pfiles" || fail "zdeb-perf lacks its script"
grep -q '/zdeb/zdeb-iotrace.so$' "$T/pfiles" || fail "zdeb-perf lacks the tracer"
grep -q '/zdeb/zdeb_perf/cli.py$' "$T/pfiles" || fail "zdeb-perf lacks its package"
dpkg-deb -f "$p" Depends | grep -q 'python3' || fail "zdeb-perf does not depend on python3"
dpkg-deb -f "$z" Depends | grep -q 'python' && fail "zdeb depends on python"
ok "files and dependencies split between zdeb and zdeb-perf"

for d in "$z" "$p"; do
	"$ZDEB" info --json "$d" >"$T/info"
	grep -q '"name": "data.tar.zst", [^}]*"layout": "indexed"' "$T/info" ||
		fail "$(basename "$d"): $(cat "$T/info")"
	expect_status 0 "$ZDEB" verify --dpkg-deb "$d"
done
ok "both packages: indexed zstd members that the stock dpkg-deb reads"
