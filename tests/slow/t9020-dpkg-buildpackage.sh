#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# zdeb's own Debian packaging: dpkg-buildpackage -b on a copy of the source
# tree gives zdeb, zdeb-perf, dh-zdeb and zdeb-dpkg, their files split as
# debian/*.install and zdeb-dpkg.links say, zstd members in the indexed
# layout that the stock dpkg-deb reads (zdeb verify --dpkg-deb: zdeb's own
# dh add-on built them), zdeb-perf depending on python3 and zdeb itself
# not, dh-zdeb providing dh-sequence-zdeb, zdeb-dpkg pre-depending on zdeb
# with its maintainer scripts and breaking the dpkg versions zdeb integrate
# refuses.  The package's own test run is left out
# (DEB_BUILD_OPTIONS=nocheck): make check has just run.
#
# Run by "make check-slow": it builds the whole tree again (about a minute).
. "$(dirname "$0")/../integ/lib.sh"
. "$(dirname "$0")/lib.sh"

slow_zdeb_debs "$T"
for p in zdeb zdeb-perf dh-zdeb zdeb-dpkg; do
	set -- "$T/${p}"_*.deb
	[ -f "$1" ] || fail "no $p package: $(ls "$T")"
	eval "deb_$(echo "$p" | tr - _)=\$1"
done
z=$deb_zdeb p=$deb_zdeb_perf
ok "dpkg-buildpackage -b: $(cd "$T" && echo zdeb_*.deb zdeb-perf_*.deb dh-zdeb_*.deb zdeb-dpkg_*.deb)"

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

dpkg-deb -c "$deb_dh_zdeb" | awk '{print $6}' | grep -v '/$' | sort >"$T/dfiles"
for f in ./usr/share/perl5/Debian/Debhelper/Sequence/zdeb.pm \
	./usr/share/dh-zdeb/bin/dh_builddeb \
	./usr/share/dh-zdeb/builddeb/dpkg-deb \
	./usr/share/man/man7/dh-zdeb.7.gz; do
	grep -qx "$f" "$T/dfiles" || fail "dh-zdeb lacks $f: $(cat "$T/dfiles")"
done
dpkg-deb -f "$deb_dh_zdeb" Provides | grep -qx 'dh-sequence-zdeb' ||
	fail "dh-zdeb Provides: $(dpkg-deb -f "$deb_dh_zdeb" Provides)"
dpkg-deb -f "$deb_dh_zdeb" Architecture | grep -qx all || fail "dh-zdeb not all"
grep -q 'zdeb.pm\|dh-zdeb' "$T/zfiles" && fail "zdeb holds dh-zdeb files"
dpkg-deb -c "$deb_zdeb_dpkg" >"$T/dpfiles"
grep -q ' \./usr/bin/dpkg-deb -> zdeb$' "$T/dpfiles" ||
	fail "zdeb-dpkg lacks the dpkg-deb symlink: $(cat "$T/dpfiles")"
dpkg-deb -f "$deb_zdeb_dpkg" Pre-Depends | grep -q '^zdeb (>= ' ||
	fail "zdeb-dpkg Pre-Depends: $(dpkg-deb -f "$deb_zdeb_dpkg" Pre-Depends)"
minor=$(sed -n 's/^#define ZD_DPKG_DEB_NEWEST_MINOR //p' \
	"$ZDEB_SRCDIR/src/stockdeb.h")
dpkg-deb -f "$deb_zdeb_dpkg" Breaks | grep -qx "dpkg (>= 1\.$((minor + 1))~)" ||
	fail "zdeb-dpkg Breaks: $(dpkg-deb -f "$deb_zdeb_dpkg" Breaks)"
dpkg-deb -e "$deb_zdeb_dpkg" "$T/dpctl"
grep -q 'zdeb integrate install --package=zdeb-dpkg' "$T/dpctl/preinst" &&
	grep -q 'zdeb integrate remove --package=zdeb-dpkg' "$T/dpctl/postrm" ||
	fail "zdeb-dpkg maintainer scripts: $(ls "$T/dpctl")"
ok "dh-zdeb provides dh-sequence-zdeb with its add-on; zdeb-dpkg ships the symlink and runs zdeb integrate"

for d in "$z" "$p" "$deb_dh_zdeb" "$deb_zdeb_dpkg"; do
	"$ZDEB" info --json "$d" >"$T/info"
	grep -q '"name": "data.tar.zst", [^}]*"layout": "indexed"' "$T/info" ||
		fail "$(basename "$d"): $(cat "$T/info")"
	expect_status 0 "$ZDEB" verify --dpkg-deb "$d"
done
ok "all four packages: indexed zstd members that the stock dpkg-deb reads"
