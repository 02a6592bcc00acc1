#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/build-extract.sh [--runs N] [--zdeb PATH] [TREE]
#
# Builds TREE (a directory; default: a copy of /usr/share/doc and perl
# files, see tools/demo-input.sh) into a .deb with every compressor, with
# zdeb and with stock dpkg-deb at the same level, extracts each, and prints
# sizes, median times and zdeb/dpkg-deb ratios.  Also checks that stock
# dpkg-deb reads every .deb zdeb wrote, byte-exactly.  Not a test: times
# are for reading, not asserting.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
runs=3
zdeb=${ZDEB:-$top/_build/src/zdeb}
while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=$2; shift 2;;
	--zdeb) zdeb=$2; shift 2;;
	-h|--help) sed -n '3,11p' "$0"; exit 0;;
	*) break;;
	esac
done
[ -x "$zdeb" ] || { echo "zdeb not built: $zdeb (run tools/test or tools/demo)" >&2; exit 2; }
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-1700000000}
W=$(mktemp -d "${TMPDIR:-/var/tmp}/zdeb-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT

if [ $# -gt 0 ]; then
	tree=$1
else
	tree=$W/pkg
	"$top/tools/demo-input.sh" "$tree" >&2
fi
[ -f "$tree/DEBIAN/control" ] || {
	echo "$tree has no DEBIAN/control" >&2; exit 2; }

# shellcheck source=bench/timing.sh
. "$top/bench/timing.sh"
# Extract into RAM when possible, so that disk writeback does not drown
# the difference between the decoders.
X=$(mktemp -d "${ZDEB_BENCH_XDIR:-/dev/shm}/zdeb-bench-x.XXXXXX" 2>/dev/null ||
    mktemp -d "$W/x.XXXXXX")
trap 'rm -rf "$W" "$X"' EXIT

bytes=$(du -sb --exclude=DEBIAN "$tree" | cut -f1)
echo "tree: $tree, $(awk "BEGIN {printf \"%.1f\", $bytes / 1e6}") MB, $(find "$tree" -type f | wc -l) files; $(nproc) cores; median of $runs interleaved rounds"
echo "extraction into $X"
echo "zdeb $("$zdeb" --version | head -1 | cut -d' ' -f2); $(dpkg-deb --version | head -1 | sed 's/.*version //; s/ .*//') dpkg-deb"
printf '%-13s %12s %12s %7s | %8s %8s %6s | %8s %8s %6s | %s\n' \
	variant "zdeb bytes" "dpkg bytes" "size" "build z" "build d" "ratio" \
	"extr z" "extr d" "ratio" "stock reads zdeb's"
for v in "zstd 19" "zstd 3" "xz 6" "gzip 9" "none 0"; do
	set -- $v
	comp=$1; lvl=$2
	# dpkg-deb adds no md5sums or Installed-Size: compare like with like
	# untimed before each build: remove its output, and write back what
	# the run before left dirty, which would otherwise slow down whichever
	# build comes next
	PRE[bz]="rm -f '$W/z.deb'; sync"
	PRE[bd]="rm -f '$W/d.deb'; sync"
	# and before each extraction, remove the previous one
	PRE[ez]="rm -rf '$X/x'"
	PRE[ed]="rm -rf '$X/x'"
	rounds "$runs" \
		"bz='$zdeb' build -Z$comp -z$lvl --no-md5sums --no-installed-size '$tree' '$W/z.deb'" \
		"bd=dpkg-deb -Z$comp -z$lvl -b '$tree' '$W/d.deb'" \
		"ez='$zdeb' extract '$W/z.deb' '$X/x'" \
		"ed=dpkg-deb -x '$W/d.deb' '$X/x'"
	bz=${T[bz]}; bd=${T[bd]}; ez=${T[ez]}; ed=${T[ed]}
	# stock dpkg-deb must read zdeb's .deb and get dpkg-deb's own tar
	dpkg-deb --fsys-tarfile "$W/d.deb" >"$W/dtar"
	if dpkg-deb --fsys-tarfile "$W/z.deb" | cmp -s - "$W/dtar"; then
		reads=yes
	else
		reads=NO
	fi
	rm -f "$W/dtar"
	zs=$(stat -c %s "$W/z.deb"); ds=$(stat -c %s "$W/d.deb")
	printf '%-13s %12d %12d %+6.2f%% | %7.2fs %7.2fs %5.2fx | %7.2fs %7.2fs %5.2fx | %s\n' \
		"$comp -$lvl" "$zs" "$ds" "$(awk "BEGIN {print ($zs - $ds) * 100 / $ds}")" \
		"$bz" "$bd" "$(awk "BEGIN {print $bd / $bz}")" \
		"$ez" "$ed" "$(awk "BEGIN {print $ed / $ez}")" "$reads"
	[ "$reads" = yes ] || exit 1
done
echo "ratio = dpkg-deb time / zdeb time (> 1: zdeb faster); size = zdeb vs dpkg-deb"
