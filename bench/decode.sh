#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/decode.sh [--runs N] [--levels "3 19"] [TREE]
#
# Size and decode speed of zdeb's zstd layouts on one tar of real files
# (default: ~150 MB of /usr/lib/x86_64-linux-gnu and /usr/share/perl,
# compressible like most package payloads), against anchors
# measured in the same run: one plain `zstd --single-thread` frame, pzstd,
# `zstd -d`, `pzstd -d -p2`, stock `dpkg-deb --fsys-tarfile`, `xz -dc -T0`.
# Prints medians and ratios.  Not a test.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
runs=7
levels="3 19"
zdeb=${ZDEB:-$top/_build/src/zdeb}
while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=$2; shift 2;;
	--levels) levels=$2; shift 2;;
	-h|--help) sed -n '3,10p' "$0"; exit 0;;
	*) break;;
	esac
done
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-1700000000}
W=$(mktemp -d "${TMPDIR:-/var/tmp}/zdeb-decode.XXXXXX")
trap 'rm -rf "$W"' EXIT
if [ $# -gt 0 ]; then
	tree=$1
else
	tree=$W/pkg
	mkdir -p "$tree/DEBIAN"
	find /usr/lib/x86_64-linux-gnu /usr/share/perl /usr/share/perl5 -type f -links 1 \
	     -printf '%s %p\n' 2>/dev/null | sort -k2 |
		awk '{ t += $1; sub(/^[0-9]+ /, ""); print; if (t > 150e6) exit }' \
		>"$W/list"
	tar -cf - -T "$W/list" 2>/dev/null | tar -xf - -C "$tree"
	printf 'Package: bench\nVersion: 1\nArchitecture: all\nMaintainer: b <b@example.org>\nDescription: bench\n' \
		>"$tree/DEBIAN/control"
fi

dpkg-deb -Znone -b "$tree" "$W/base.deb" >/dev/null
"$zdeb" cat-data "$W/base.deb" >"$W/data.tar"
mb=$(stat -c %s "$W/data.tar")
echo "input: $(awk "BEGIN {printf \"%.1f\", $mb / 1e6}") MB tar; $(nproc) cores; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); median of $runs runs"

now() { date +%s.%N; }
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
# timeit CMD... -> prints the median seconds; $pre, if set, runs untimed
# before each run (removing an output, so that unlinking the previous one
# is not counted)
timeit() {
	ts=""; i=0
	while [ $i -lt "$runs" ]; do
		[ -z "${pre:-}" ] || sh -c "$pre"
		t0=$(now); sh -c "$*" >/dev/null 2>&1 || { echo "failed: $*" >&2; exit 1; }
		t1=$(now); ts="$ts $(awk "BEGIN {print $t1 - $t0}")"; i=$((i + 1))
	done
	median $ts
}
ratio() { awk "BEGIN {printf \"%.2f\", $1 / $2}"; }
pct() { awk "BEGIN {printf \"%+.2f%%\", ($1 - $2) * 100 / $2}"; }
member() { (cd "$W" && ar p "$1" "$(ar t "$1" | sed -n 3p)") >"$2"; }

xz -T0 -6 -c "$W/data.tar" >"$W/data.tar.xz"
t_xz=$(timeit "xz -dc -T0 '$W/data.tar.xz'")

for L in $levels; do
	echo
	echo "== level $L"
	zstd -q --single-thread -$L -c "$W/data.tar" >"$W/plain.zst"
	pzstd -q -p 2 -$L -c "$W/data.tar" >"$W/p.zst"
	plain=$(stat -c %s "$W/plain.zst")
	pz=$(stat -c %s "$W/p.zst")
	# zstd -l counts skippable frames among its Frames: subtract them
	pzframes=$(zstd -l "$W/p.zst" | awk 'NR == 2 {print $1 - $2}')
	t1b=$(pre="rm -f '$W/i1.deb'"; timeit "'$zdeb' recompress -T1 -z$L '$W/base.deb' '$W/i1.deb'")
	t2b=$(pre="rm -f '$W/i.deb'"; timeit "'$zdeb' recompress -T2 -z$L '$W/base.deb' '$W/i.deb'")
	"$zdeb" recompress -z$L --layout=pzstd "$W/base.deb" "$W/pz.deb" 2>/dev/null
	"$zdeb" recompress -z$L --layout=frames "$W/base.deb" "$W/fr.deb" 2>/dev/null
	"$zdeb" recompress -z$L --layout=single "$W/base.deb" "$W/si.deb"
	member "$W/i.deb" "$W/i.zst"
	isz=$(stat -c %s "$W/i.zst")
	isegs=$("$zdeb" info --json "$W/i.deb" | sed 's/.*"data.tar.zst"[^}]*"segments": \([0-9]*\).*/\1/')
	printf '%-28s %12s %9s %9s\n' "size" bytes "vs plain" segments
	printf '%-28s %12d %9s %9d\n' "zstd --single-thread -$L" "$plain" "" 1
	printf '%-28s %12d %9s %9d\n' "pzstd -p2 -$L" "$pz" "$(pct "$pz" "$plain")" "$pzframes"
	printf '%-28s %12d %9s %9s\n' "zdeb indexed -$L" "$isz" "$(pct "$isz" "$plain")" "$isegs"
	echo "build (recompress) -T1 ${t1b}s, -T2 ${t2b}s: -T2 speed-up $(ratio "$t1b" "$t2b")x"

	t_zstd=$(timeit "zstd -dc '$W/plain.zst'")
	t_pz=$(timeit "pzstd -dc -p2 '$W/p.zst'")
	t_dpkg=$(timeit "dpkg-deb --fsys-tarfile '$W/si.deb'")
	printf '%-34s %8s %10s\n' "decode" "median" "vs zstd -d"
	printf '%-34s %7ss %10s\n' "zstd -d (plain frame)" "$t_zstd" "1.00"
	printf '%-34s %7ss %10s\n' "pzstd -d -p2 (pzstd file)" "$t_pz" "$(ratio "$t_zstd" "$t_pz")"
	printf '%-34s %7ss %10s\n' "dpkg-deb --fsys-tarfile (single)" "$t_dpkg" "$(ratio "$t_zstd" "$t_dpkg")"
	printf '%-34s %7ss %10s\n' "xz -dc -T0 (xz -6)" "$t_xz" "$(ratio "$t_zstd" "$t_xz")"
	for v in "single si" "indexed i" "pzstd pz" "frames fr"; do
		set -- $v
		a=$(timeit "'$zdeb' cat-data -T1 '$W/$2.deb'")
		b=$(timeit "'$zdeb' cat-data -T2 '$W/$2.deb'")
		printf '%-34s %7ss %10s\n' "zdeb cat-data -T1 ($1)" "$a" "$(ratio "$t_zstd" "$a")"
		printf '%-34s %7ss %10s   (-T2/-T1 %sx)\n' "zdeb cat-data -T2 ($1)" "$b" "$(ratio "$t_zstd" "$b")" "$(ratio "$a" "$b")"
	done
done
echo
echo "vs zstd -d: > 1 means faster than zstd -d on the plain frame"
