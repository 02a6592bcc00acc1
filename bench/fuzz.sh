#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/fuzz.sh SECONDS [HARNESS...] - runs each libFuzzer harness for
# SECONDS (ar control index pdecode deb by default) and prints, per
# harness, the executions and the crashes found.
#
# BUILDDIR (default: _build under the top) must be configured; the
# harnesses are built there with "make fuzz" (clang) when missing, and the
# seed corpora generated with tests/fuzz/gen-corpus.sh.  The corpora grow
# in BUILDDIR/tests/fuzz/corpus-*/, crash inputs land in
# BUILDDIR/tests/fuzz/crashes-*/ (save them as .hex under
# tests/fuzz/regress/ with "xxd -p", see tests/fuzz/README).
# FUZZ_JOBS=2 runs two harnesses at a time.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:?usage: bench/fuzz.sh SECONDS [HARNESS...]}
shift
harnesses=${*:-ar control index pdecode deb}
bld=$(cd "${BUILDDIR:-$top/_build}" && pwd)
fz=$bld/tests/fuzz
jobs=${FUZZ_JOBS:-1}

need_build=no
for h in $harnesses; do
	[ -x "$fz/fuzz-$h" ] || need_build=yes
done
if [ $need_build = yes ]; then
	make -C "$bld" -s fuzz
fi
if [ ! -d "$fz/corpus-ar" ]; then
	[ -x "$bld/src/zdeb" ] || make -C "$bld" -s src/zdeb
	"$top/tests/fuzz/gen-corpus.sh" "$bld/src/zdeb" "$fz" >/dev/null 2>&1
fi

run_one() {
	h=$1
	mkdir -p "$fz/corpus-$h" "$fz/crashes-$h"
	before=$(ls "$fz/crashes-$h" | wc -l)
	"$fz/fuzz-$h" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$fz/crashes-$h/" \
		"$fz/corpus-$h" >"$fz/fuzz-$h.log" 2>&1 || true
	after=$(ls "$fz/crashes-$h" | wc -l)
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' \
	       "$fz/fuzz-$h.log" | tail -n 1)
	[ -n "$runs" ] || runs=$(sed -n 's/^#\([0-9]*\).*/\1/p' \
	                         "$fz/fuzz-$h.log" | tail -n 1)
	printf '%-8s %5ss %12s executions %3d new crashes %s\n' "$h" "$secs" \
	       "${runs:-?}" $((after - before)) \
	       "$(grep -m1 -o 'SUMMARY: .*' "$fz/fuzz-$h.log" || true)"
}

set -- $harnesses
while [ $# -gt 0 ]; do
	pids=
	i=0
	while [ $i -lt "$jobs" ] && [ $# -gt 0 ]; do
		run_one "$1" &
		pids="$pids $!"
		shift
		i=$((i + 1))
	done
	for p in $pids; do wait "$p"; done
done
