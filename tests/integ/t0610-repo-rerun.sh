#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# zdeb repo run killed and run again, and run by several processes at once
# on one DST: a run killed with SIGKILL (workers too) mid-way leaves no
# file at any output path but whole verified packages, and the rerun does
# only the jobs without a result; two processes taking alternate indices,
# the same index twice at once, and a pool beside them, all end with one
# good output per job and nothing else.
. "$(dirname "$0")/lib.sh"
need dpkg-deb python3 setsid

S=$T/src
mkdir -p "$S"
# Eight packages of text that zstd -19 takes a while over.
for i in 1 2 3 4 5 6 7 8; do
	d=$T/tree$i
	mkdir -p "$d/DEBIAN" "$d/usr/share/rr$i"
	printf 'Package: rr%s\nVersion: 1\nArchitecture: all\nMaintainer: t <t@example.org>\nDescription: t\n' \
		"$i" >"$d/DEBIAN/control"
	seq $((i * 1000)) $((i * 1000 + 250000)) >"$d/usr/share/rr$i/numbers"
	dpkg-deb --root-owner-group -Zgzip -b "$d" "$S/rr${i}_1_all.deb" >/dev/null
done

# check_dst JOBS: each output path holds a package the stock dpkg-deb
# reads as its input, or nothing; prints how many are there.
check_dst() {
	python3 - "$1" <<'PY'
import json, os, subprocess, sys
n = 0
for l in open(sys.argv[1]):
    j = json.loads(l)
    o = os.path.join(j["dst"], j["output"])
    if not os.path.exists(o):
        continue
    a = subprocess.run(["dpkg-deb", "--fsys-tarfile", o], capture_output=True)
    b = subprocess.run(["dpkg-deb", "--fsys-tarfile", j["input"]], capture_output=True)
    assert a.returncode == 0 and a.stdout == b.stdout, o
    n += 1
print(n)
PY
}

D=$T/dst
expect_status 0 "$ZDEB" repo plan "$S" "$D"
J=$D/.zdeb-repo/jobs.jsonl
# One worker, one thread: kill everything once two results are saved.
setsid "$ZDEB" repo run --jobs 1 -T 1 "$J" >"$T/run1" 2>&1 &
pid=$!
tries=0
until [ "$(ls "$D/.zdeb-repo/results" 2>/dev/null | grep -c '\.json$')" -ge 2 ]; do
	tries=$((tries + 1))
	[ $tries -lt 600 ] || { kill -9 -- -$pid; fail "no results after 60 s"; }
	sleep 0.1
done
kill -9 -- -$pid
wait $pid 2>/dev/null || true
done1=$(ls "$D/.zdeb-repo/results" | grep -c '\.json$')
[ "$done1" -lt 8 ] || fail "the run ended before the kill: make the packages bigger"
there=$(check_dst "$J") || fail "an output is not a whole package"
[ "$there" -eq "$done1" ] || fail "$there outputs but $done1 results"
left=$(ls -A "$D/.zdeb-repo/tmp" | wc -l)
ok "run killed with SIGKILL after $done1 of 8 jobs: outputs whole, one per result ($left temporary files)"

expect_status 0 "$ZDEB" repo run --jobs 2 "$J"
[ "$(grep -c '"skipped": true' "$T/stdout")" -eq "$done1" ] &&
	[ "$(grep -c '"skipped": false' "$T/stdout")" -eq $((8 - done1)) ] ||
	fail "rerun: $(cat "$T/stdout")"
[ "$(check_dst "$J")" -eq 8 ] || fail "not every output after the rerun"
[ "$left" -eq 0 ] || grep -q "removed $left temporary files of killed runs" "$T/stderr" ||
	fail "rerun: $(cat "$T/stderr")"
[ -z "$(ls -A "$D/.zdeb-repo/tmp")" ] || fail "tmp left: $(ls "$D/.zdeb-repo/tmp")"
expect_status 0 "$ZDEB" repo finish --perf-sample 0 "$D"
grep -q '^packages: 8: 8 converted' "$T/stdout" || fail "finish: $(cat "$T/stdout")"
ok "the rerun does only the $((8 - done1)) missing jobs and clears what the kill left in tmp/"

# Several processes on one DST at once.
D2=$T/dst2
expect_status 0 "$ZDEB" repo plan "$S" "$D2"
J2=$D2/.zdeb-repo/jobs.jsonl
( for i in 0 2 4 6; do "$ZDEB" repo run -T 1 --index $i "$J2" || echo "even $i $?"; done ) \
	>"$T/even" 2>"$T/even.err" &
a=$!
( for i in 1 3 5 7; do "$ZDEB" repo run -T 1 --index $i "$J2" || echo "odd $i $?"; done ) \
	>"$T/odd" 2>"$T/odd.err" &
b=$!
"$ZDEB" repo run -T 1 --index 0 "$J2" >"$T/same" 2>&1 &
c=$!
"$ZDEB" repo run --jobs 2 -T 1 "$J2" >"$T/pool" 2>&1 &
d=$!
wait $a $b $c $d || fail "a process failed: $(cat "$T/even" "$T/odd" "$T/same" "$T/pool")"
grep -qv '^{' "$T/even" "$T/odd" && fail "a job failed: $(cat "$T/even" "$T/odd")"
[ "$(check_dst "$J2")" -eq 8 ] || fail "not every output"
[ "$(find "$D2/pool" -type f | wc -l)" -eq 8 ] || fail "other files in pool: $(find "$D2/pool" -type f)"
[ -z "$(ls -A "$D2/.zdeb-repo/tmp")" ] || fail "tmp left: $(ls "$D2/.zdeb-repo/tmp")"
[ "$(ls "$D2/.zdeb-repo/results" | grep -vc '\.json$')" -eq 0 ] || fail "stray result files"
python3 - "$T/even" "$T/odd" "$T/same" "$T/pool" <<'PY' || fail "result lines"
import json, sys
lines = [json.loads(l) for f in sys.argv[1:] for l in open(f) if l.startswith("{")]
assert all(r["verdict"] == "converted" for r in lines), lines
assert {r["index"] for r in lines} == set(range(8))
PY
for i in 1 2 3 4 5 6 7 8; do
	cmp "$(find "$D/pool" -name "rr${i}_*")" "$(find "$D2/pool" -name "rr${i}_*")" ||
		fail "rr$i: other bytes than the first DST's"
done
ok "two engines, the same index twice and a pool at once on one DST: one good output per job, as in the first DST"
