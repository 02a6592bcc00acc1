#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t0330-perf-drift.sh - zdeb-perf install's control configuration: it runs
# first and last in every round, the table prints each round's first and
# last time, a round whose control drifts more than --drift-threshold has
# every run flagged (table and JSON), --control picks the control,
# --overhead times it once more per round without the tracer, and --nice
# runs dpkg at another priority.
. "${ZDEB_SRCDIR:-$(dirname "$0")/../..}/tests/integ/lib.sh"

need dpkg dpkg-deb python3 tar mount
PERF=${ZDEB_PERF:-${ZDEB_BUILDDIR:-$(dirname "$ZDEB")/..}/src/perf/zdeb-perf}
[ -x "$PERF" ] || skip "zdeb-perf not built ($PERF)"
[ "$(id -u)" -eq 0 ] || skip "--fs tmpfs needs root"

make_tree "$T/tree" perf-drift
# run THRESHOLD [ARGS]: 3 rounds of two configurations.
run() {
	th=$1; shift
	expect_status 0 "$PERF" install --runs 3 --fs tmpfs --variants xz,none \
		--backends stock --modes unsafe-io --drift-threshold "$th" \
		--workdir "$T/work" --json "$T/r$th.json" "$@" "$T/tree"
}

# Threshold 0: every round whose control's two times differ (by 0.05 % or
# more: the drift is kept to 0.1 %) is flagged; on runs of a few
# milliseconds at least one round of three does.
run 0 --overhead
python3 - "$T/r0.json" "$T/stdout" <<'PY' || fail "threshold 0: $(cat "$T/stdout")"
import json, sys
d = json.load(open(sys.argv[1]))
table = open(sys.argv[2]).read()
c = d["control"]
assert (c["variant"], c["backend"], c["mode"], c["cache"]) == \
    ("xz", "stock", "unsafe-io", "hot"), c
assert c["threshold_pct"] == 0, c
rounds = c["rounds"]
assert [r["round"] for r in rounds] == [1, 2, 3], rounds
for r in rounds:
    assert r["first_s"] > 0 and r["last_s"] > 0, r
    assert r["flagged"] == (r["drift_pct"] != 0), r
    assert isinstance(r["load1"], (int, float)), r
flag = {r["round"]: r["flagged"] for r in rounds}
assert any(flag.values()), rounds
runs = d["runs"]
assert len(runs) == 6, len(runs)        # control-last runs are not runs
for r in runs:
    assert r["drift_flag"] == flag[r["run"]], r
first = [r["elapsed_s"] for r in runs if r["variant"] == "xz"]
assert first == [r["first_s"] for r in rounds], (first, rounds)
assert "control xz/stock/unsafe-io/hot, first and last in each round" \
    in table, table
n = sum(flag.values())
assert "control drift above 0 %% in %d of 3 round(s)" % n in table, table
rows = [ln for ln in table.splitlines() if ln.startswith(("xz ", "none "))]
assert len(rows) == 2 and all("]!" in ln for ln in rows), rows
ov = d["overhead"]
assert [o["round"] for o in ov] == [1, 2, 3], ov
assert all(o[k] > 0 for o in ov for k in ("traced_s", "untraced_s",
                                          "traced_cpu_s",
                                          "untraced_cpu_s")), ov
assert "tracer overhead (control, median of 3 rounds)" in table, table
PY
ok "threshold 0: drifting rounds flagged in the JSON and the table; --overhead"

# A threshold no drift reaches: nothing flagged; --control picks none.
run 100000 --control none/stock/unsafe-io
python3 - "$T/r100000.json" "$T/stdout" <<'PY' || fail "threshold 1e5: $(cat "$T/stdout")"
import json, sys
d = json.load(open(sys.argv[1]))
table = open(sys.argv[2]).read()
assert d["control"]["variant"] == "none", d["control"]
assert not any(r["flagged"] for r in d["control"]["rounds"])
assert not any(r["drift_flag"] for r in d["runs"])
assert "]!" not in table, table
assert d["overhead"] == [], d["overhead"]
assert "control none/stock/unsafe-io/hot" in table, table
PY
ok "a threshold above every drift flags nothing; --control chooses"

expect_status 2 "$PERF" install --fs tmpfs --control gzip/stock/default \
	--variants none --workdir "$T/work" "$T/tree"
expect_stderr "--control 'gzip/stock/default': not VARIANT/BACKEND/MODE"
ok "a --control outside the run is an error"

# --nice: dpkg and its children (here a PATH eatmydata that notes its own
# nice value) run at the nice value asked for.
mkdir "$T/bin"
cat >"$T/bin/eatmydata" <<EOF
#!/bin/sh
ps -o ni= -p \$\$ >>"$T/nice.txt"
cat /proc/self/autogroup >>"$T/autogroup.txt" 2>/dev/null || :
exec "\$@"
EOF
chmod +x "$T/bin/eatmydata"
PATH=$T/bin:$PATH expect_status 0 "$PERF" install --runs 1 --fs tmpfs \
	--variants none --backends stock --modes eatmydata --nice -7 \
	--workdir "$T/work" --json "$T/nice.json" "$T/tree"
[ "$(tr -d ' ' <"$T/nice.txt" | sort -u)" = -7 ] ||
	fail "--nice -7: dpkg ran at $(cat "$T/nice.txt")"
[ "$(wc -l <"$T/nice.txt")" -eq 2 ] || fail "runs: $(cat "$T/nice.txt")"
# With autogroup scheduling dpkg's session has the nice value too.
if [ "$(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null)" = 1 ]; then
	[ "$(grep -c ' nice -7$' "$T/autogroup.txt")" -eq 2 ] ||
		fail "--nice -7: dpkg's autogroup: $(cat "$T/autogroup.txt")"
fi
grep -q '"nice": -7' "$T/nice.json" || fail "nice not in the JSON"
grep -q 'dpkg at nice -7' "$T/stdout" || fail "nice not in the table"
ok "--nice -7: dpkg runs at nice -7, recorded in the table and JSON"
