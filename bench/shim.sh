#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/shim.sh [--runs N] [--count N] [--zdeb PATH] [DIR]
#
# What zdeb as dpkg-deb costs or saves on many small real packages: dpkg
# runs dpkg-deb twice per package (--control, then --fsys-tarfile), so its
# start-up counts.  Takes the N smallest .debs of DIR (default
# /var/cache/apt/archives; 200) that have no maintainer scripts (dpkg
# would run them in the scratch root) and unpacks them all with one
# `dpkg --unpack` into a fresh scratch root, with stock dpkg-deb and with
# zdeb found first in PATH as dpkg-deb; prints medians of interleaved
# rounds and the ratio.  Both trees are compared.  Not a test.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
runs=5
count=200
zdeb=${ZDEB:-$top/_build/src/zdeb}
while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=$2; shift 2;;
	--count) count=$2; shift 2;;
	--zdeb) zdeb=$2; shift 2;;
	-h|--help) sed -n '3,12p' "$0"; exit 0;;
	*) break;;
	esac
done
dir=${1:-/var/cache/apt/archives}
[ -x "$zdeb" ] || { echo "zdeb not built: $zdeb (run tools/test or tools/demo)" >&2; exit 2; }
zdeb=$(cd "$(dirname "$zdeb")" && pwd)/$(basename "$zdeb")
W=$(mktemp -d "${TMPDIR:-/var/tmp}/zdeb-shim.XXXXXX")
trap 'rm -rf "$W"' EXIT

# The smallest packages first; those with a maintainer script are skipped.
mkdir "$W/debs"
n=0
while read -r _ deb; do
	if dpkg-deb --ctrl-tarfile "$deb" 2>/dev/null | tar -t 2>/dev/null |
		grep -Eq '(^|/)(preinst|postinst|prerm|postrm|config)$'; then
		continue
	fi
	ln -s "$deb" "$W/debs/$(basename "$deb")"
	n=$((n + 1))
	[ "$n" -lt "$count" ] || break
done < <(find "$dir" -maxdepth 1 -name '*.deb' -printf '%s %p\n' | sort -n)
[ "$n" -gt 0 ] || { echo "no usable .deb in $dir" >&2; exit 2; }
bytes=$(find -L "$W/debs" -name '*.deb' -printf '%s\n' | awk '{s += $1} END {print s}')

mkdir "$W/shim"
ln -s "$zdeb" "$W/shim/dpkg-deb"

# unpack ROOT: every package into a fresh ROOT, with the dpkg-deb of PATH.
unpack() {
	rm -rf "$1"
	mkdir -p "$1/var/lib/dpkg/updates" "$1/var/lib/dpkg/info" \
		"$1/var/lib/dpkg/triggers"
	: >"$1/var/lib/dpkg/status"
	: >"$1/var/lib/dpkg/available"
	dpkg --root="$1" --admindir="$1/var/lib/dpkg" --force-not-root \
		--force-depends --force-unsafe-io --no-triggers \
		--log=/dev/null --unpack "$W"/debs/*.deb >/dev/null
}

# shellcheck source=bench/timing.sh
. "$top/bench/timing.sh"
echo "$n packages of $dir without maintainer scripts, $(awk "BEGIN {printf \"%.1f\", $bytes / 1e6}") MB of .debs; one dpkg --unpack into a scratch root, --force-unsafe-io; $(nproc) cores; median of $runs interleaved rounds"
echo "zdeb $("$zdeb" --version | head -1 | cut -d' ' -f2); dpkg $(dpkg --version | head -1 | sed 's/.*version //; s/ .*//')"
rounds "$runs" "stock=unpack '$W/r1'" "zdeb=PATH='$W/shim':\$PATH unpack '$W/r2'"
(cd "$W/r1" && find . -path ./var/lib/dpkg -prune -o -print | sort) >"$W/t1"
(cd "$W/r2" && find . -path ./var/lib/dpkg -prune -o -print | sort) >"$W/t2"
cmp -s "$W/t1" "$W/t2" || { echo "the two unpacked trees differ" >&2; exit 1; }
printf '%-24s %9s %9s\n' "" "total" "/package"
printf '%-24s %8.3fs %7.2fms\n' "stock dpkg-deb" "${T[stock]}" \
	"$(awk "BEGIN {print ${T[stock]} * 1000 / $n}")"
printf '%-24s %8.3fs %7.2fms\n' "zdeb as dpkg-deb" "${T[zdeb]}" \
	"$(awk "BEGIN {print ${T[zdeb]} * 1000 / $n}")"
echo "ratio (stock / zdeb): $(ratio "${T[stock]}" "${T[zdeb]}")x"
