#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/model.sh [--runs N] [--level L] [--cache DIR] [lib|text|kernel...]
#
# zdeb-perf model (see zdeb-perf(1)) on the inputs of issue 27's check:
# lib (the ~150 MB tree of /usr/lib and perl files bench/decode.sh makes),
# text (tools/demo-input.sh's tree) and kernel (the newest
# linux-image-6.1.0-*-amd64 apt knows, fetched once into the cache,
# default /var/tmp/zdeb-segments), each at zstd level L (default 3, as
# decode.sh's table), indexed.  Prints, per input, predicted against
# measured cat-data -T1/-T2 into /dev/null, a file and a pipe into cat,
# and the predictions for 1-64 cores.  Run on a quiet machine.  Not a test.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
runs=7
level=3
cache=/var/tmp/zdeb-segments
perf=${ZDEB_PERF:-$top/_build/src/perf/zdeb-perf}
while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=$2; shift 2;;
	--level) level=$2; shift 2;;
	--cache) cache=$2; shift 2;;
	-h|--help) sed -n '3,12p' "$0"; exit 0;;
	*) break;;
	esac
done
[ $# -gt 0 ] || set -- lib text kernel
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-1700000000}
cpu() { lscpu | sed -n "s/^$1: *//p" | head -1; }
echo "cpu: $(cpu 'Model name'), family $(cpu 'CPU family') model $(cpu Model), $(nproc) cores;" \
	"$(lscpu | grep -E '^L[123][di]? cache' | sed 's/  */ /g' | paste -sd';' -)"
W=$(mktemp -d "${TMPDIR:-/var/tmp}/zdeb-model.XXXXXX")
trap 'rm -rf "$W"' EXIT
control() {
	mkdir -p "$1/DEBIAN"
	printf 'Package: bench\nVersion: 1\nArchitecture: all\nMaintainer: b <b@example.org>\nDescription: bench\n' \
		>"$1/DEBIAN/control"
}
for what in "$@"; do
	case $what in
	lib)
		# the same files as bench/decode.sh's lib tree
		in=$W/lib
		mkdir -p "$in"
		find /usr/lib/x86_64-linux-gnu /usr/share/perl /usr/share/perl5 -type f -links 1 \
		     -printf '%s %p\n' 2>/dev/null | sort -k2 |
			awk '{ t += $1; sub(/^[0-9]+ /, ""); print; if (t > 150e6) exit }' \
			>"$W/list"
		tar -cf - -T "$W/list" 2>/dev/null | tar -xf - -C "$in"
		control "$in";;
	text)
		in=$W/text
		"$top/tools/demo-input.sh" "$in" 2>/dev/null;;
	kernel)
		mkdir -p "$cache"
		pkg=$(apt-cache search --names-only '^linux-image-6\.1\.0-[0-9]+-amd64$' |
			awk '{print $1}' | sort -V | tail -1)
		in=$(find "$cache" -maxdepth 1 -name "${pkg:?no linux-image-6.1}_*.deb" \
			! -name '*.z[0-9]*.deb' | sort | tail -1)
		if [ -z "$in" ]; then
			(cd "$cache" && apt-get download "$pkg" >/dev/null)
			in=$(find "$cache" -maxdepth 1 -name "${pkg}_*.deb" ! -name '*.z[0-9]*.deb' |
			sort | tail -1)
		fi;;
	*)
		in=$what;;
	esac
	echo "== $what (level $level)"
	"$perf" model --runs "$runs" --level "$level" --workdir "$W" "$in"
	echo
done
