#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t0300-perf-install.sh - zdeb-perf install on a tiny package: JSON and CSV
# schema, breakdowns (every stage, the per-file ones included) that sum to
# elapsed, the tracer's call categories, stock dpkg failures reported as
# failed (not timed), a plot, and nothing left mounted.
. "${ZDEB_SRCDIR:-$(dirname "$0")/../..}/tests/integ/lib.sh"

need dpkg dpkg-deb python3 tar eatmydata
PERF=${ZDEB_PERF:-${ZDEB_BUILDDIR:-$(dirname "$ZDEB")/..}/src/perf/zdeb-perf}
[ -x "$PERF" ] || skip "zdeb-perf not built ($PERF)"

# The default scratch file system (a fresh ext4 image per run) needs root
# and the loop device; without them an existing directory.
fs=ext4
if [ "$(id -u)" -ne 0 ] || ! command -v mkfs.ext4 >/dev/null 2>&1 ||
   ! command -v losetup >/dev/null 2>&1; then
	mkdir "$T/scratch"
	fs=$T/scratch
fi
FS=--fs=$fs

make_tree "$T/tree" perf-test
# A 64 KiB segment makes the tiny frames variant several frames long.
expect_status 0 "$PERF" install --allow-loaded --runs 1 --segment-size 64K \
	"$FS" --variants zstd-indexed,zstd-pzstd,zstd-frames,none \
	--modes unsafe-io,eatmydata --json "$T/r.json" --csv "$T/r.csv" \
	--details "$T/d.json" --workdir "$T/work" "$T/tree"
grep -q '^variant ' "$T/stdout" || fail "no table header: $(cat "$T/stdout")"
ok "install runs and prints a table (--fs $fs)"

python3 - "$T/r.json" "$T/r.csv" "$T/d.json" <<'PY' || fail "schema check failed"
import csv, json, sys
d = json.load(open(sys.argv[1]))
assert set(d) == {"machine", "runs", "baseline", "aa", "comparisons",
                  "rounds", "gate", "overhead"}, d.keys()
m = d["machine"]
for k in ("cores", "cpu_model", "kernel", "filesystem", "mount_options",
          "disk", "dpkg", "zdeb", "libzstd", "liblzma", "cache_modes",
          "backends", "fs", "load_avg_start", "load_avg_end", "loaded"):
    assert k in m, "machine lacks " + k
assert isinstance(m["loaded"], bool)
# loaded: a round started not quiet (the gate's records), not the load at
# the start
assert m["loaded"] == any(not g["quiet"] for g in d["gate"]["rounds"]), \
    (m["loaded"], d["gate"]["rounds"])
keys = ["input", "variant", "backend", "mode", "cache", "run", "role",
        "status", "error", "elapsed_s", "user_s", "sys_s", "cpu_pct",
        "max_rss_kb", "minflt", "majflt", "inblock", "oublock",
        "load1_before", "load1_after", "steal_pct", "kthreads_pct",
        "others_pct", "loaded", "discarded", "breakdown"]
bkeys = ["decode_s", "tar_s", "md5_s", "cpu_s", "wait_s", "write_s",
         "fsync_s", "rename_s", "open_s", "dir_s", "meta_s", "dbwrite_s",
         "db_s", "exec_s", "other_s"]
runs = d["runs"]
assert runs, "no runs"
num = (int, float)
for r in runs:
    assert list(r) == keys, list(r)
    assert r["backend"] in ("stock", "zdeb") and r["status"] in ("ok", "failed")
    assert isinstance(r["error"], str) and isinstance(r["run"], int)
    assert r["role"] in ("run", "aa"), r["role"]
    for k in ("load1_before", "load1_after", "steal_pct", "kthreads_pct",
              "others_pct"):
        assert isinstance(r[k], num) and r[k] >= 0, (k, r[k])
    # --allow-loaded keeps every run
    assert isinstance(r["loaded"], bool) and r["discarded"] is False, r
    if r["status"] == "failed":
        assert r["error"], r
        assert r["breakdown"] is None, "failed run has a breakdown"
        continue
    for k in keys[9:18]:
        assert isinstance(r[k], num) and r[k] >= 0, (k, r[k])
    b = r["breakdown"]
    assert list(b) == bkeys, list(b)
    for k in bkeys:
        assert isinstance(b[k], num) and b[k] >= 0, (k, b[k])
    s = sum(b.values())
    # The parts sum to elapsed (to rounding), unless the stage estimates
    # of tar and md5 (on a package this small, mostly tar's start-up)
    # overshoot: then other_s is 0 and the excess is at most theirs.
    if b["other_s"] > 0:
        assert abs(s - r["elapsed_s"]) <= 1e-5, \
            (r["variant"], r["mode"], s, r["elapsed_s"])
    else:
        assert -1e-5 <= s - r["elapsed_s"] <= \
            b["tar_s"] + b["md5_s"] + 1e-5, \
            (r["variant"], r["mode"], s, r["elapsed_s"], b)
stock = {(r["variant"], r["mode"]): r for r in runs if r["backend"] == "stock"}
for v in ("zstd-pzstd", "zstd-frames"):
    for mode in ("unsafe-io", "eatmydata"):
        r = stock[(v, mode)]
        assert r["status"] == "failed", (v, mode, r)
        assert "tar bytes" in r["error"], r["error"]
for v in ("zstd-indexed", "none"):
    assert stock[(v, "unsafe-io")]["status"] == "ok", stock[(v, "unsafe-io")]
rows = list(csv.DictReader(open(sys.argv[2])))
assert len(rows) == len(runs), (len(rows), len(runs))
assert list(rows[0]) == keys[:-1] + bkeys, list(rows[0])
# The tracer saw each kind of call dpkg makes per file, and the writes
# to its database, in every traced run.
det = json.load(open(sys.argv[3]))["runs"]
assert len(det) == sum(1 for r in runs if r["status"] == "ok"), det
for x in det:
    for c in ("write_reg", "rename", "open", "close", "mkdir", "rmdir",
              "stat", "chmod", "chown", "utime", "dbwrite"):
        assert x["calls"][c]["n"] > 0, (c, x["calls"])
PY
ok "JSON and CSV schema, breakdown sums, tracer categories, stock multi-frame reported failed"

if grep -qF " $T/" /proc/self/mountinfo; then
	fail "left mounted: $(grep -F " $T/" /proc/self/mountinfo)"
fi
if command -v losetup >/dev/null 2>&1 && losetup -a | grep -qF "$T/"; then
	fail "loop device left: $(losetup -a | grep -F "$T/")"
fi
ok "nothing left mounted, no loop device left"

if command -v gnuplot >/dev/null 2>&1; then
	expect_status 0 "$PERF" install --allow-loaded --runs 1 \
		--variants none "$FS" --backends stock --modes unsafe-io \
		--workdir "$T/work" --plot "$T/p.svg" "$T/tree"
	[ -s "$T/p.svg" ] || fail "--plot wrote nothing"
	ok "--plot writes an SVG"
fi

mkdir "$T/tmp"
TMPDIR=$T/tmp expect_status 2 "$PERF" install --variants nope "$FS" "$T/tree"
expect_stderr "unknown variant 'nope'"
[ -z "$(ls "$T/tmp")" ] || fail "work directory left behind: $(ls "$T/tmp")"
ok "unknown variant is an error, and leaves no work directory"

TMPDIR=$T/tmp expect_status 2 "$PERF" install --variants none --plot "$T/p.txt" \
	"$FS" "$T/tree"
expect_stderr "--plot wants a .svg or .png file name"
[ -z "$(ls "$T/tmp")" ] || fail "left behind: $(ls "$T/tmp")"
[ ! -e "$T/p.txt" ] || fail "a plot was written to $T/p.txt"
ok "a --plot name gnuplot cannot write is refused before any run"

TMPDIR=$T/tmp expect_status 2 "$PERF" install --allow-loaded --runs 1 \
	--variants none --backends stock --modes unsafe-io --workdir "$T/work" \
	"$FS" --json "$T/nonexistent/r.json" "$T/tree"
expect_stderr "zdeb-perf: error: No such file or directory '$T/nonexistent/r.json'"
ok "an output file that cannot be written is an error, not a traceback"

expect_status 0 "$PERF" install --allow-loaded --runs 1 --variants xz,none \
	"$FS" --modes unsafe-io --pairs xz/stock,none/zdeb --workdir "$T/work" \
	--json "$T/pairs.json" "$T/tree"
python3 - "$T/pairs.json" <<'PY' || fail "--pairs: $(cat "$T/stdout")"
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
assert sorted((r["variant"], r["backend"], r["role"]) for r in runs) == \
    [("none", "zdeb", "run"), ("xz", "stock", "aa"),
     ("xz", "stock", "run")], runs
PY
expect_status 2 "$PERF" install --variants none --pairs none/other "$FS" \
	--workdir "$T/work" "$T/tree"
expect_stderr "--pairs 'none/other': not VARIANT/BACKEND"
ok "--pairs runs only the pairs asked for"

# zdeb-tN: zdeb with ZDEB_DPKG_DEB_THREADS=N, compared with the other in
# one run; 5000, a count zdeb refuses (1 to 1024), fails the install: the
# variable reaches zdeb as dpkg-deb
expect_status 0 "$PERF" install --allow-loaded --runs 1 --variants zstd-indexed \
	"$FS" --modes unsafe-io \
	--pairs zstd-indexed/zdeb-t1,zstd-indexed/zdeb-t2 \
	--workdir "$T/work" --json "$T/threads.json" "$T/tree"
python3 - "$T/threads.json" <<'PY' || fail "zdeb-tN: $(cat "$T/stdout")"
import json, sys
d = json.load(open(sys.argv[1]))
runs = d["runs"]
assert {r["backend"] for r in runs} == {"zdeb-t1", "zdeb-t2"}, runs
assert all(r["status"] == "ok" for r in runs), runs
b = d["machine"]["backends"]
assert b["zdeb-t1"].endswith("with ZDEB_DPKG_DEB_THREADS=1"), b
assert b["zdeb-t2"].endswith("with ZDEB_DPKG_DEB_THREADS=2"), b
assert [c for c in d["comparisons"]
        if "zdeb-t2" in c["a"] + c["b"] and "zdeb-t1" in c["a"] + c["b"]], \
    d["comparisons"]
PY
grep -q 'zdeb-t2.*zdeb-t1\|zdeb-t1.*zdeb-t2' "$T/stdout" ||
	fail "no zdeb-t2 against zdeb-t1 row: $(cat "$T/stdout")"
"$PERF" install --allow-loaded --runs 1 --variants zstd-indexed "$FS" \
	--modes unsafe-io --backends zdeb-t5000 --workdir "$T/work" \
	--json "$T/t5000.json" "$T/tree" >/dev/null 2>&1
python3 - "$T/t5000.json" <<'PY' || fail "zdeb-t5000 did not fail"
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
assert runs and all(r["status"] == "failed" for r in runs), runs
PY
expect_status 2 "$PERF" install --backends zdeb-t0 "$FS" --workdir "$T/work" \
	"$T/tree"
expect_stderr "unknown backend 'zdeb-t0'"
ok "--pairs .../zdeb-t1,.../zdeb-t2: one run, each with its thread count"
