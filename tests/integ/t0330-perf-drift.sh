#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t0330-perf-drift.sh - zdeb-perf install's rounds and what they say: the
# order rotated per round with the baseline twice (the A/A row, which of
# the two alternating), every comparison the median of per-round ratios
# with its 95 % interval (undefined below 6 rounds, the extreme ratios at
# 6) in the table and the JSON, --runs auto stopping at its budget and
# naming what did not converge, the quiet gate discarding and redoing runs
# beside a busy loop (and --allow-loaded keeping them, said in the
# header), --control, --overhead and --nice.
. "${ZDEB_SRCDIR:-$(dirname "$0")/../..}/tests/integ/lib.sh"

need dpkg dpkg-deb python3 tar mount eatmydata
PERF=${ZDEB_PERF:-${ZDEB_BUILDDIR:-$(dirname "$ZDEB")/..}/src/perf/zdeb-perf}
[ -x "$PERF" ] || skip "zdeb-perf not built ($PERF)"
[ "$(id -u)" -eq 0 ] || skip "--fs tmpfs needs root"

busy=
trap '[ -z "$busy" ] || kill $busy 2>/dev/null; rm -rf "$T"' EXIT
make_tree "$T/tree" perf-drift

# The shape of the done-when command, tiny and loaded: 3 rounds.
expect_status 0 "$PERF" install --runs 3 --allow-loaded --fs tmpfs \
	--pairs xz/stock,zstd-indexed/zdeb --modes eatmydata \
	--workdir "$T/work3" --json "$T/r3.json" "$T/tree"
python3 - "$T/r3.json" "$T/stdout" "$T/work3" <<'PY' || fail "3: $(cat "$T/stdout")"
import json, os, statistics, sys
d = json.load(open(sys.argv[1]))
table = open(sys.argv[2]).read()
A = "xz/stock/eatmydata/hot"
B = "zstd-indexed/zdeb/eatmydata/hot"
assert d["baseline"] == {"variant": "xz", "backend": "stock",
                         "mode": "eatmydata", "cache": "hot"}, d["baseline"]
# only the variants of the pairs are made
assert sorted(d["machine"]["variant_bytes"]) == ["xz", "zstd-indexed"], \
    d["machine"]["variant_bytes"]
assert sorted(os.listdir(sys.argv[3] + "/variants")) == [
    "tree.xz.deb", "tree.zstd-indexed.deb"], os.listdir(sys.argv[3])
cmps = d["comparisons"]
assert len(cmps) == 1 and set(cmps[0]) == {"a", "b", "ratio", "ci95",
                                           "rounds"}, cmps
c = cmps[0]
assert (c["a"], c["b"], c["rounds"], c["ci95"]) == (A, B, 3, None), c
aa = d["aa"]
assert set(aa) == {"a", "b", "ratio", "ci95", "rounds", "contains_1"}, aa
assert (aa["a"], aa["b"], aa["rounds"], aa["ci95"], aa["contains_1"]) == \
    (A, A + "#2", 3, None, None), aa
rd = d["rounds"]
assert (rd["rounds"], rd["runs"], rd["stopped_by"]) == (3, 3, "runs"), rd
assert sorted(rd["not_converged"]) == sorted(
    [B + " vs " + A, A + "#2 vs " + A]), rd
# Each round: the baseline, its second run and the other, rotated; the
# baseline's A/A run is its second in odd rounds, its first in even ones.
runs = d["runs"]
seq = [(r["run"], r["variant"], r["role"]) for r in runs]
assert seq == [(1, "xz", "run"), (1, "xz", "aa"), (1, "zstd-indexed", "run"),
               (2, "xz", "run"), (2, "zstd-indexed", "run"), (2, "xz", "aa"),
               (3, "zstd-indexed", "run"), (3, "xz", "run"),
               (3, "xz", "aa")], seq
# The ratio is the median of the per-round ratios of these runs.
el = {(r["run"], r["variant"], r["role"]): r["elapsed_s"] for r in runs}
want = statistics.median(el[(i, "xz", "run")] / el[(i, "zstd-indexed", "run")]
                         for i in (1, 2, 3))
assert abs(c["ratio"] - want) < 1e-9, (c["ratio"], want)
want = statistics.median(el[(i, "xz", "run")] / el[(i, "xz", "aa")]
                         for i in (1, 2, 3))
assert abs(aa["ratio"] - want) < 1e-9, (aa["ratio"], want)
g = d["gate"]
assert g["allow_loaded"] is True and g["max_others_pct"] == 10, g
assert g["max_load"] == round(0.25 * g["cores"], 2), g
assert [x["round"] for x in g["rounds"]] == [1, 2, 3], g["rounds"]
for x in g["rounds"]:
    assert set(x) == {"round", "load1", "busy_cores", "waited_s", "quiet"}
assert len(g["runs"]) == 9, g["runs"]
for x in g["runs"]:
    assert set(x) == {"round", "variant", "backend", "mode", "cache", "role",
                      "load1_before", "load1_after", "steal_pct",
                      "kthreads_pct", "others_pct", "loaded",
                      "discarded"}, x
    assert x["discarded"] is False and x["loaded"] == (x["others_pct"] > 10)
head = table.splitlines()[0]
assert "3 round(s)" in head and "LOADED RUNS KEPT (--allow-loaded: %d of 9 " \
    "runs" % sum(x["loaded"] for x in g["runs"]) in head, head
rows = [ln.split() for ln in table.splitlines()]
assert [A + "#2", "(A/A)", A, "%.2fx" % aa["ratio"], "undefined", "-", "3"] \
    in rows, table
assert [B, A, "%.2fx" % c["ratio"], "undefined", "-", "3"] in rows, table
assert "A/A: interval undefined with 3 paired round(s)" in table, table
PY
ok "--runs 3: rotated rounds, paired ratios, undefined intervals, the gate's records, LOADED in the header"

# --runs auto with a target no run meets: it stops at --max-rounds 6 and
# names what did not converge; at 6 rounds the interval is the extreme
# ratios.  --control none: the baseline; --overhead: once more untraced.
expect_status 0 "$PERF" install --allow-loaded --fs tmpfs --variants xz,none \
	--backends stock --modes unsafe-io --target 0.0001 --max-rounds 6 \
	--control none/stock/unsafe-io --overhead --workdir "$T/work" \
	--json "$T/r6.json" "$T/tree"
python3 - "$T/r6.json" "$T/stdout" <<'PY' || fail "auto: $(cat "$T/stdout")"
import json, sys
d = json.load(open(sys.argv[1]))
table = open(sys.argv[2]).read()
A = "none/stock/unsafe-io/hot"
B = "xz/stock/unsafe-io/hot"
rd = d["rounds"]
assert (rd["rounds"], rd["runs"], rd["stopped_by"]) == (6, "auto",
                                                        "max-rounds"), rd
assert sorted(rd["not_converged"]) == sorted(
    [B + " vs " + A, A + "#2 vs " + A]), rd
runs = [r for r in d["runs"] if r["status"] == "ok"]
el = {(r["run"], r["variant"], r["role"]): r["elapsed_s"] for r in runs}
for c, b, role in ((d["comparisons"][0], "xz", "run"), (d["aa"], "none", "aa")):
    rs = [el[(i, "none", "run")] / el[(i, b, role)] for i in range(1, 7)]
    assert c["rounds"] == 6 and c["ci95"] == [min(rs), max(rs)], (c, rs)
aa = d["aa"]
assert aa["contains_1"] == (aa["ci95"][0] <= 1 <= aa["ci95"][1]), aa
if aa["contains_1"]:
    assert "A/A: its interval contains 1.00" in table, table
else:
    assert "A/A: NOT TRUSTWORTHY" in table, table
assert "stopped by max-rounds); not converged: " in table, table
assert [o["round"] for o in d["overhead"]] == list(range(1, 7)), d["overhead"]
assert "tracer overhead (baseline, median of 6 rounds)" in table, table
assert sum(1 for r in d["runs"] if r["role"] == "untraced") == 6
PY
ok "--runs auto: stops at --max-rounds, names what did not converge; 6 rounds: the extreme ratios; --control, --overhead"

# A busy loop per core beside the runs: the gate waits --quiet-wait, then
# every run (other processes above 10 % of a core) is discarded and run
# again twice; nothing is left to compare.  One loop on two cores was not
# enough: a run lasts ~15 ms, /proc/stat counts in ticks, and once a
# kernel thread's ticks took the loop's share of a run's window.
for i in $(seq "$(nproc)"); do
	sh -c 'while :; do :; done' &
	busy="$busy $!"
done
expect_status 0 "$PERF" install --runs 1 --quiet-wait 2 --fs tmpfs \
	--variants none --backends stock --modes unsafe-io \
	--workdir "$T/work" --json "$T/busy.json" "$T/tree"
# shellcheck disable=SC2086
kill $busy
busy=
python3 - "$T/busy.json" "$T/stdout" <<'PY' || fail "busy: $(cat "$T/stdout")"
import json, sys
d = json.load(open(sys.argv[1]))
table = open(sys.argv[2]).read()
g = d["gate"]
r1 = g["rounds"][0]
assert not r1["quiet"] and r1["waited_s"] >= 2 and r1["busy_cores"] > 0.5, r1
assert len(d["runs"]) == 6, d["runs"]
for r in d["runs"]:
    assert r["loaded"] and r["discarded"] and r["others_pct"] > 10, r
assert d["aa"]["rounds"] == 0 and d["comparisons"] == [], d
assert "LOADED RUNS KEPT" not in table, table
assert "1 of 1 round(s) started not quiet" in table, table
assert "6 discarded and run again (at most 2 times)" in table, table
PY
ok "a busy loop: the gate waits (bounded), discards and redoes loaded runs"

expect_status 2 "$PERF" install --fs tmpfs --control gzip/stock/default \
	--variants none --workdir "$T/work" "$T/tree"
expect_stderr "--control 'gzip/stock/default': not VARIANT/BACKEND/MODE"
expect_status 2 "$PERF" install --fs tmpfs --runs sometimes \
	--variants none --workdir "$T/work" "$T/tree"
expect_stderr "'sometimes' is not auto or a number"
ok "a --control outside the run, a --runs neither auto nor a number: errors"

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
PATH=$T/bin:$PATH expect_status 0 "$PERF" install --allow-loaded --runs 1 \
	--fs tmpfs --variants none --backends stock --modes eatmydata \
	--nice -7 --workdir "$T/work" --json "$T/nice.json" "$T/tree"
[ "$(tr -d ' ' <"$T/nice.txt" | sort -u)" = -7 ] ||
	fail "--nice -7: dpkg ran at $(cat "$T/nice.txt")"
# the baseline and its A/A run, and the decode stage runs do not nice
[ "$(wc -l <"$T/nice.txt")" -eq 2 ] || fail "runs: $(cat "$T/nice.txt")"
# With autogroup scheduling dpkg's session has the nice value too.
if [ "$(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null)" = 1 ]; then
	[ "$(grep -c ' nice -7$' "$T/autogroup.txt")" -eq 2 ] ||
		fail "--nice -7: dpkg's autogroup: $(cat "$T/autogroup.txt")"
fi
grep -q '"nice": -7' "$T/nice.json" || fail "nice not in the JSON"
grep -q 'dpkg at nice -7' "$T/stdout" || fail "nice not in the table"
ok "--nice -7: dpkg runs at nice -7, recorded in the table and JSON"
