#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t0340-perf-model.sh - zdeb cat-data --segment-times and zdeb-perf model
# on a small package: one line per segment whose sizes add up to the tar,
# a refusal for a member without an index, and the model's whole report
# (predicted against measured for -T1/-T2, a row per core count, the
# dpkg-deb mode table) with one run of each measurement.
. "${ZDEB_SRCDIR:-$(dirname "$0")/../..}/tests/integ/lib.sh"

need python3 dpkg strace
PERF=${ZDEB_PERF:-${ZDEB_BUILDDIR:-$(dirname "$ZDEB")/..}/src/perf/zdeb-perf}
[ -x "$PERF" ] || skip "zdeb-perf not built ($PERF)"

mkdir -p "$T/p/DEBIAN" "$T/p/usr/share/t"
printf 'Package: t\nVersion: 1\nArchitecture: all\n%s\nDescription: t\n' \
	'Maintainer: t <t@example.org>' >"$T/p/DEBIAN/control"
i=0
while [ $i -lt 24 ]; do
	seq $((i * 40000)) $((i * 40000 + 39000)) | head -c 262144 \
		>"$T/p/usr/share/t/f$i"
	i=$((i + 1))
done
"$ZDEB" build -z3 --segment-size=1M "$T/p" "$T/t.deb" >/dev/null
segs=$("$ZDEB" info "$T/t.deb" | awk '$1 == "data.tar.zst" {print $5}')
[ "$segs" -ge 4 ] || fail "only $segs segments"

expect_status 0 "$ZDEB" cat-data --segment-times "$T/t.deb"
[ "$(wc -l <"$T/stdout")" -eq $((2 * segs + 2)) ] ||
	fail "$(wc -l <"$T/stdout") lines for $segs segments, the stream, in place and the pages"
sum=$(awk '$1 ~ /^[0-9]+$/ { s += $2 } END { print s }' "$T/stdout")
[ "$sum" -eq "$("$ZDEB" cat-data "$T/t.deb" | wc -c)" ] ||
	fail "segment sizes add up to $sum, not the tar's size"
awk 'NR <= '"$segs"' && (NF != 5 || $1 != NR - 1 || $4 < 0 || $5 < 0) { exit 1 }
     NR == '"$((segs + 1))"' && (NF != 3 || $1 != "stream" || $2 <= 0 || $3 <= 0) { exit 1 }
     NR > '"$((segs + 1))"' && NR <= '"$((2 * segs + 1))"' &&
         (NF != 4 || $1 != "inplace" ||
          $2 != NR - '"$((segs + 2))"' || $3 <= 0 || $4 <= 0) { exit 1 }
     NR == '"$((2 * segs + 2))"' && (NF != 6 || $1 != "pages" || $2 <= 0 ||
         $3 < $2 || $4 <= 0 || $5 < 0 || ($6 != 0 && $6 != 1)) { exit 1 }' \
	"$T/stdout" || fail "bad line: $(cat "$T/stdout")"
max=$(awk '$1 ~ /^[0-9]+$/ && $2 > m { m = $2 } END { print m }' "$T/stdout")
[ "$(awk '$1 == "pages" { print $2 }' "$T/stdout")" -eq "$max" ] ||
	fail "the pages line's buffer is not the largest segment's ($max)"
ok "--segment-times: $segs lines, sizes adding up to the tar, the stream's, $segs in place, the buffer's pages"

# =copy: the same lines, then one copy line into a pipe's size and one
# into the tar's, each of all the tar's bytes
expect_status 0 "$ZDEB" cat-data --segment-times=copy "$T/t.deb"
[ "$(wc -l <"$T/stdout")" -eq $((2 * segs + 4)) ] ||
	fail "$(wc -l <"$T/stdout") lines with the copy lines for $segs segments"
tar=$("$ZDEB" cat-data "$T/t.deb" | wc -c)
pipe=$(python3 -c 'import fcntl, os
r, w = os.pipe()
for n in (1 << 20, 256 << 10):
    try:
        print(fcntl.fcntl(w, 1031, n)); break
    except OSError:
        pass
else:
    print(fcntl.fcntl(w, 1032))')
awk -v tar="$tar" -v pipe="$pipe" '$1 == "copy" { n++
	if (NF != 7 || $4 != tar || $5 <= 0 || $6 <= 0 || $7 <= 0) exit 1
	if ($2 == "pipe" && $3 == pipe) p++
	else if ($2 == "file" && $3 == tar) f++
	else exit 1 }
	END { exit !(n == 2 && p == 1 && f == 1) }' "$T/stdout" ||
	fail "bad copy lines (tar $tar, pipe $pipe): $(grep '^copy' "$T/stdout")"
ok "--segment-times=copy: a pipe's ($pipe bytes) and a file's copy of all $tar bytes"


# one segment of 40 MiB of zeros: too large for its compressed bytes to
# have its pages made at once, so no buffer for the pages line
mkdir -p "$T/z/DEBIAN" "$T/z/usr/share/z"
cp "$T/p/DEBIAN/control" "$T/z/DEBIAN/control"
head -c 40M /dev/zero >"$T/z/usr/share/z/zeros"
"$ZDEB" build -z3 --segment-size=64M "$T/z" "$T/z.deb" >/dev/null
expect_status 0 timeout 60 "$ZDEB" cat-data --segment-times "$T/z.deb"
[ "$(awk '$1 == "pages" { print $2, $3, $4 }' "$T/stdout")" = "0 0 0.000000" ] ||
	fail "pages line of a segment made lazily: $(cat "$T/stdout")"
grep -q '^inplace 0 ' "$T/stdout" || fail "no inplace line: $(cat "$T/stdout")"
ok "--segment-times: no buffer made ahead for a segment whose pages come lazily"

# a segment of several MiB: the pages line's buffer has all its pages
# made (MADV_POPULATE_WRITE, as the queue makes them ahead of a worker's
# bytes), not only the first MiB, so that its cost is of all it maps.
# Only buffers of 4 KiB pages are made ahead (where the host takes free
# pages back, pages line HUGE 0); one of huge pages is made whole at
# once, so there this passes either way.  Before Linux 5.14 the pages
# are touched instead, which strace cannot count: not checked then.
mkdir -p "$T/m/DEBIAN" "$T/m/usr/share/m"
cp "$T/p/DEBIAN/control" "$T/m/DEBIAN/control"
seq 1 900000 >"$T/m/usr/share/m/numbers"
"$ZDEB" build -z3 --segment-size=64M "$T/m" "$T/m.deb" >/dev/null
# LeakSanitizer cannot run under ptrace (make check-asan)
ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" \
strace -f -e trace=madvise -o "$T/trace" \
	"$ZDEB" cat-data --segment-times "$T/m.deb" >"$T/stdout" ||
	fail "cat-data --segment-times under strace"
made=$(sed -n 's/.*madvise(0x[0-9a-f]*, \([0-9]*\), MADV_POPULATE_WRITE) = 0$/\1/p' \
	"$T/trace" | awk '{ s += $1 } END { print s + 0 }')
mapped=$(awk '$1 == "pages" { print $3 }' "$T/stdout")
[ "${mapped:-0}" -gt $((2 << 20)) ] ||
	fail "no buffer of more than 2 MiB: $(cat "$T/stdout")"
if [ "$made" -eq 0 ] && grep -q 'MADV_POPULATE_WRITE) = -1 EINVAL' "$T/trace"; then
	echo "# not checked: no MADV_POPULATE_WRITE on this kernel ($(uname -r))"
else
	[ "$made" -ge "$mapped" ] ||
		fail "pages made for $made of the buffer's $mapped bytes"
	ok "--segment-times: the pages line's buffer made whole ($made bytes)"
fi

"$ZDEB" build -z3 --layout=single "$T/p" "$T/s.deb" >/dev/null
expect_status 2 "$ZDEB" cat-data --segment-times "$T/s.deb"
expect_stderr "has no segment index"
ok "--segment-times refuses a single frame"

expect_status 0 "$PERF" model --predict-only --runs 1 --cores 1,2,64 \
	"$T/t.deb"
python3 - "$T/stdout" <<'PY' || fail "predict-only: $(cat "$T/stdout")"
import sys
x = [float(v) for v in open(sys.argv[1]).read().split()]
assert len(x) == 3 and x[0] == 1.0 and 1.0 < x[1] <= x[2], x
PY
ok "--predict-only: 1x on one core, more on two, as much or more on 64"

expect_status 0 "$PERF" model --predict-only --interval --runs 3 \
	--cores 1,2,64 "$T/t.deb"
python3 - "$T/stdout" <<'PY' || fail "--interval: $(cat "$T/stdout")"
import re, sys
toks = open(sys.argv[1]).read().split()
assert len(toks) == 3, toks
for t in toks:
    m = re.fullmatch(r"([0-9.]+)\[([0-9.]+)-([0-9.]+)\]", t)
    assert m, t
    x, lo, hi = map(float, m.groups())
    # a percentile bootstrap need not hold its point in general; from 3
    # runs it does: the draw of all three (22 % of draws) is the point
    assert lo <= x <= hi, t
assert toks[0] == "1.0[1.0-1.0]", toks
PY
ok "--predict-only --interval: each speed-up inside its interval"

expect_status 2 "$PERF" model --interval --runs 1 "$T/t.deb"
expect_stderr "only with --predict-only"
ok "--interval without --predict-only is refused"

expect_status 0 "$PERF" model --runs 1 --cores 1,2,16 --sink-mib 8 \
	--workdir "$T" "$T/t.deb"
for s in null file pipe; do
	for n in 1 2; do
		grep -Eq "^$s +$n +[0-9.]+s +[0-9.]+s +[-+][0-9.]+%  .* 1$" \
			"$T/stdout" || fail "no $s T=$n check: $(cat "$T/stdout")"
	done
done
[ "$(grep -Ec '^ +(1|2|16) \|' "$T/stdout")" -eq 3 ] ||
	fail "not one row per core count: $(cat "$T/stdout")"
grep -q '^dpkg-deb mode into dpkg' "$T/stdout" || fail "no dpkg-deb table"
grep -Eq "^a copy's cost to -T1's decoder beyond the copy .*: file [0-9.]+ ns/B, pipe [0-9.]+ ns/B " \
	"$T/stdout" || fail "no measured eviction: $(cat "$T/stdout")"
grep -q '^sink dpkg .*fixed cost' "$T/stdout" || fail "no dpkg sink"
# the model's own count of CPUs (os.cpu_count(), not nproc's affinity
# or OMP_NUM_THREADS) decides whether it measures -T2
if [ "$(python3 -c 'import os; print(os.cpu_count() or 1)')" -ge 2 ]; then
	grep -Eq '^sink pipe  two threads or more: reader [0-9.]+ ns/B under cat-data -T2 .* [0-9]+ % read apart, so writer [0-9.]+ ns/B$' \
		"$T/stdout" || fail "no -T2 pipe sink: $(cat "$T/stdout")"
	[ "$(sed -n 's/^sink pipe  two threads .*: reader \([0-9.]*\) ns.*/\1/p' "$T/stdout")" != 0.00 ] ||
		fail "cat took no CPU under -T2: $(grep '^sink pipe' "$T/stdout")"
fi
ok "model: predicted against measured for -T1/-T2, the measured eviction, the -T2 pipe's reader, rows for 1, 2, 16 cores"
