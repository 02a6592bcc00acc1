#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/segments.sh [--cache DIR] [--targets "32 16 8 4"] [--level 19]
#                   [--cores "4 8 16 32 64"] [--runs 21] [PACKAGE...]
#
# Segment target against size and predicted decode speed-up, for the
# packages of Ubuntu's 2018 table (default: linux-image-6.1.0-*-amd64, the
# newest of them apt knows, firefox-esr, libreoffice-core), each fetched
# with apt-get download into the cache (default /var/tmp/zdeb-segments).
# Per package: the data tar's size, one plain `zstd -LEVEL --single-thread`
# frame (measured once and kept in the cache: it is the slow part), then
# for each target (MiB) `zdeb recompress --segment-size` at LEVEL on all
# cores (the bytes do not depend on the thread count), the data member's
# size and its overhead over the one frame, the segment count, and
# `zdeb-perf model --predict-only --interval` (per-segment decode times
# measured on one core, the medians of --runs decodes of every segment,
# sink /dev/null) at each core count, with its 95 % interval (a bootstrap
# over the runs: with 5, a quiet machine's kernel row at 16 cores read
# 12.9 and 12.4 alone, 10.0 here between recompressions).  A target of 0
# is zdeb's default policy.  Sizes and counts are exact anywhere; the speed-ups
# depend on the machine and its load (printed).  Not a test.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cache=/var/tmp/zdeb-segments
targets="0 32 16 8 4"
level=19
cores="4 8 16 32 64"
runs=21
zdeb=${ZDEB:-$top/_build/src/zdeb}
perf=${ZDEB_PERF:-$top/_build/src/perf/zdeb-perf}
while [ $# -gt 0 ]; do
	case $1 in
	--cache) cache=$2; shift 2;;
	--targets) targets=$2; shift 2;;
	--level) level=$2; shift 2;;
	--cores) cores=$2; shift 2;;
	--runs) runs=$2; shift 2;;
	-h|--help) sed -n '3,21p' "$0"; exit 0;;
	*) break;;
	esac
done
mkdir -p "$cache"
if [ $# -eq 0 ]; then
	kernel=$(apt-cache search --names-only '^linux-image-6\.1\.0-[0-9]+-amd64$' |
		awk '{print $1}' | sort -V | tail -1)
	set -- "${kernel:?no linux-image-6.1 package known to apt}" \
		firefox-esr libreoffice-core
fi
echo "level $level; cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) (speed-ups are only meaningful under 0.5)"
printf '%-28s %8s %7s %12s %9s %5s' package tar_MiB target member_bytes overhead segs
for n in $cores; do printf ' %15s' "x$n"; done
echo
for pkg in "$@"; do
	deb=$(find "$cache" -maxdepth 1 -name "${pkg}_*.deb" ! -name '*.z[0-9]*.deb' |
			sort | tail -1)
	if [ -z "$deb" ]; then
		(cd "$cache" && apt-get download "$pkg" >/dev/null 2>&1) ||
			{ echo "$pkg: apt-get download failed" >&2; exit 1; }
		deb=$(find "$cache" -maxdepth 1 -name "${pkg}_*.deb" ! -name '*.z[0-9]*.deb' |
			sort | tail -1)
	fi
	base=${deb%.deb}
	[ -s "$base.tar" ] || "$zdeb" cat-data "$deb" >"$base.tar"
	tarb=$(stat -c %s "$base.tar")
	if [ ! -s "$base.z$level.size" ]; then
		zstd -q -"$level" --single-thread -c "$base.tar" | wc -c \
			>"$base.z$level.size.tmp"
		mv "$base.z$level.size.tmp" "$base.z$level.size"
	fi
	one=$(cat "$base.z$level.size")
	for t in $targets; do
		out=$base.z$level.t$t.deb
		seg=
		[ "$t" = 0 ] || seg=--segment-size=${t}M
		[ -s "$out" ] || { "$zdeb" recompress -z"$level" $seg "$deb" \
			"$out.tmp" >/dev/null && mv "$out.tmp" "$out"; }
		info=$("$zdeb" info "$out" | awk '$1 ~ /^data\.tar/ {print $2, $5}')
		msz=${info% *}
		nseg=${info#* }
		printf '%-28s %8.1f %7s %12s %8.2f%% %5s' "${pkg:0:28}" \
			"$(awk "BEGIN {print $tarb / 1048576}")" \
			"$([ "$t" = 0 ] && echo default || echo "${t}M")" "$msz" \
			"$(awk "BEGIN {print ($msz - $one) * 100 / $one}")" "$nseg"
		for x in $("$perf" model --predict-only --interval --runs "$runs" \
			--cores "$(echo $cores | tr ' ' ,)" "$out"); do
			printf ' %15s' "$x"
		done
		echo
	done
	printf '%-28s %8s %7s %12s %9s\n' "" "" "1 frame" "$one" "0.00%"
done
