#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/layout.sh [--levels "1 3 9 19"] [--shapes "bin text locale compressed
#                  mix"] [--mb N] [--keep DIR]
#
# Sizes of zdeb's zstd layouts against zstd and pzstd, over input shapes x
# levels: one plain `zstd --single-thread` frame (the reference), `zstd
# -T2` (what dpkg-deb -Zzstd writes), `pzstd -p2`, and zdeb's indexed
# (default), pzstd and frames layouts, with the overhead against the plain
# frame and the segment or frame counts.  Each shape is a package of about
# N MB (default 40) made from this machine's files:
#   bin         shared libraries, /usr/lib/x86_64-linux-gnu (or the
#               multiarch directory there is)
#   text        what tools/demo-input.sh copies first: /usr/share/doc,
#               perl5, perl, man
#   locale      /usr/share/locale, /usr/share/zoneinfo, /usr/share/i18n
#   compressed  already compressed files (.gz .xz .bz2 .zst .jar .zip .png
#               .jpg .woff .svgz), /usr/share first, then /usr/lib
#   mix         a quarter of each of the above
# Sizes are deterministic: no timing, any load.  Not a test.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
levels="1 3 9 19"
shapes="bin text locale compressed mix"
mb=40
keep=
zdeb=${ZDEB:-$top/_build/src/zdeb}
while [ $# -gt 0 ]; do
	case $1 in
	--levels) levels=$2; shift 2;;
	--shapes) shapes=$2; shift 2;;
	--mb) mb=$2; shift 2;;
	--keep) keep=$2; shift 2;;
	-h|--help) sed -n '3,/^# Sizes are/p' "$0"; exit 0;;
	*) echo "unknown option: $1" >&2; exit 2;;
	esac
done
[ -x "$zdeb" ] || { echo "zdeb not built: $zdeb" >&2; exit 2; }
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-1700000000}
export LC_ALL=C
W=$(mktemp -d "${TMPDIR:-/var/tmp}/zdeb-layout.XXXXXX")
trap 'rm -rf "$W"' EXIT
lim=$((mb * 1000000))

# pick LIMIT DIR...: regular files (one link) under DIRs, sorted by path,
# until LIMIT bytes
pick() {
	local l=$1
	shift
	find "$@" -type f -links 1 -printf '%s %p\n' 2>/dev/null | sort -k2 |
		awk -v lim="$l" '{ t += $1; sub(/^[0-9]+ /, ""); print;
		                   if (t > lim) exit }'
}
compressed_files() {
	local d
	for d in /usr/share /usr/lib; do
		find "$d" -type f -links 1 \( -name '*.gz' -o -name '*.xz' \
		     -o -name '*.bz2' -o -name '*.zst' -o -name '*.jar' \
		     -o -name '*.zip' -o -name '*.png' -o -name '*.jpg' \
		     -o -name '*.woff' -o -name '*.woff2' -o -name '*.svgz' \) \
		     -printf '%s %p\n' 2>/dev/null | sort -k2
	done | awk -v lim="$1" '{ t += $1; sub(/^[0-9]+ /, ""); print;
	                          if (t > lim) exit }'
}
libdir=/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null ||
                  echo x86_64-linux-gnu)
shape_list() {
	case $1 in
	bin) pick "$2" "$libdir" ;;
	text) pick "$2" /usr/share/doc /usr/share/perl5 /usr/share/perl \
	           /usr/share/man ;;
	locale) pick "$2" /usr/share/locale /usr/share/zoneinfo \
	             /usr/share/i18n ;;
	compressed) compressed_files "$2" ;;
	esac
}

# make_deb SHAPE: $W/SHAPE.deb, its data.tar uncompressed
make_deb() {
	local s=$1 tree=$W/tree-$1 q
	rm -rf "$tree"
	case $s in
	mix)
		q=$((lim / 4))
		{ shape_list bin $q; shape_list locale $q
		  shape_list compressed $q; shape_list text $q; } |
			sort -u >"$W/list" ;;
	*)
		shape_list "$s" "$lim" >"$W/list" ;;
	esac
	mkdir -p "$tree/DEBIAN"
	tar -cf - -T "$W/list" 2>/dev/null | tar -xf - -C "$tree"
	printf 'Package: bench-%s\nVersion: 1\nArchitecture: all\nMaintainer: b <b@example.org>\nDescription: bench\n' \
		"$s" >"$tree/DEBIAN/control"
	dpkg-deb --root-owner-group -Znone -b "$tree" "$W/$s.deb" >/dev/null
	rm -rf "$tree"
	"$zdeb" cat-data "$W/$s.deb" >"$W/$s.tar"
}

# member DEB: the data member's bytes, segments and window log
member() {
	"$zdeb" info --json "$1" |
		sed 's/.*"name": "data\.tar\.zst", "size": \([0-9]*\),.*"segments": \([0-9]*\),.*"window_log": \([0-9]*\).*/\1 \2 \3/'
}
# zstd_frames FILE: zstd frames, skippable ones not counted
zstd_frames() { zstd -l "$1" | awk 'NR == 2 {print $1 - $2}'; }
pct() { awk "BEGIN {printf \"%+.2f %%\", ($1 - $2) * 100 / $2}"; }
row() { printf '%-24s %13s %10s %9s %7s\n' "$@"; }

echo "$("$zdeb" --version | head -1 | cut -d' ' -f1-2), $(zstd --version | sed 's/.*v\([0-9.]*\).*/zstd \1/'), $(pzstd --version 2>&1 | sed 's/.*version: *\([0-9.]*[0-9]\).*/pzstd \1/'); sizes only (the CPU does not matter)"
declare -A SUM
for s in $shapes; do
	make_deb "$s"
	tb=$(stat -c %s "$W/$s.tar")
	echo
	echo "== $s: $(awk "BEGIN {printf \"%.1f\", $tb / 1e6}") MB tar"
	for L in $levels; do
		t=$W/$s.tar
		one=$(zstd -q --single-thread -$L -c "$t" | wc -c)
		t2=$(zstd -q -T2 -$L -c "$t" | wc -c)
		pzstd -q -p 2 -$L -c "$t" >"$W/p.zst"
		pz=$(stat -c %s "$W/p.zst")
		pzn=$(zstd_frames "$W/p.zst")
		echo
		row "level $L" bytes "vs one" segments window
		row "zstd --single-thread" "$one" "" 1 ""
		row "zstd -T2" "$t2" "$(pct "$t2" "$one")" 1 ""
		row "pzstd -p2" "$pz" "$(pct "$pz" "$one")" "$pzn" ""
		for lay in indexed pzstd frames; do
			"$zdeb" recompress -z$L --layout=$lay "$W/$s.deb" \
				"$W/out.deb" 2>/dev/null
			set -- $(member "$W/out.deb")
			row "zdeb $lay" "$1" "$(pct "$1" "$one")" "$2" "2^$3"
			[ $lay != indexed ] || SUM[$s.$L]="$(pct "$1" "$one") ($2) / $(pct "$pz" "$one") ($pzn)"
			if [ -n "$keep" ] && [ $lay = indexed ]; then
				mkdir -p "$keep"
				cp "$W/out.deb" "$keep/$s-$L.deb"
			fi
		done
	done
	rm -f "$W/$s.deb" "$W/$s.tar"
done

echo
echo "zdeb indexed (segments) / pzstd -p2 (frames), against one zstd --single-thread frame:"
printf '| shape |'
for L in $levels; do printf ' level %s |' "$L"; done
echo
printf '|---|'
for L in $levels; do printf -- '---|'; done
echo
for s in $shapes; do
	printf '| %s |' "$s"
	for L in $levels; do printf ' %s |' "${SUM[$s.$L]}"; done
	echo
done
