#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t0310-perf-levels.sh - zdeb-perf levels on a small input: every level row
# of every compressor, CSV and JSON schema, and a plot.
. "${ZDEB_SRCDIR:-$(dirname "$0")/../..}/tests/integ/lib.sh"

need python3 gzip xz zstd
PERF=${ZDEB_PERF:-${ZDEB_BUILDDIR:-$(dirname "$ZDEB")/..}/src/perf/zdeb-perf}
[ -x "$PERF" ] || skip "zdeb-perf not built ($PERF)"

plot=
command -v gnuplot >/dev/null 2>&1 && plot="--plot $T/l.png"
# shellcheck disable=SC2086
expect_status 0 "$PERF" levels --size 0.1 --runs 1 --shapes text \
	--csv "$T/l.csv" --json "$T/l.json" $plot
grep -q 'speedup-vs-6' "$T/stdout" || fail "no gzip/xz table: $(cat "$T/stdout")"
grep -q 'speedup-vs-3' "$T/stdout" || fail "no zstd table"
ok "levels prints tables"

python3 - "$T/l.csv" "$T/l.json" <<'PY' || fail "levels schema check failed"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
want = {"gzip": [str(i) for i in range(1, 10)],
        "xz": [str(i) for i in range(10)] + ["6e", "9e"],
        "zstd": [str(i) for i in range(-5, 0)] + [str(i) for i in range(1, 23)]}
for c, lv in want.items():
    for shape in ("text",):
        got = [r["level"] for r in rows
               if r["compressor"] == c and r["shape"] == shape]
        assert got == lv, (c, shape, got)
for r in rows:
    for k in ("comp_ms", "decomp_ms", "size_bytes", "speedup_vs_default",
              "size_vs_default", "decomp_mb_s"):
        assert float(r[k]) > 0, (k, r)
d = json.load(open(sys.argv[2]))
assert set(d) == {"machine", "rows"} and len(d["rows"]) == len(rows)
PY
ok "every level row, CSV and JSON schema"

if [ -n "$plot" ]; then
	[ -s "$T/l.png" ] || fail "--plot wrote nothing"
	ok "--plot writes a PNG"
fi

printf 'hello\n' >"$T/user.txt"
expect_status 0 "$PERF" levels --compressors gzip --runs 1 "$T/user.txt"
grep -q 'gzip on user.txt' "$T/stdout" || fail "user file not used"
ok "user files are inputs"
