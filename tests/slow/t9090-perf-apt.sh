#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# zdeb-perf apt end to end on a tiny set: jq and what apt-get adds for it
# on minbase (libjq1, libonig5) are fetched from the Debian mirror of the
# host's apt sources into a file: repository, converted by zdeb repo, and
# installed by a timed apt-get install into a fresh minbase chroot per
# run, from both repositories, with the stock dpkg-deb and with zdeb
# integrated, under eatmydata, on tmpfs, in 2 paired rounds.  The table
# must list every configuration with its runs and breakdown, the A/A row
# and the comparisons, and say that 2 rounds give no interval; the JSON
# must hold the same, every run ok with at least one traced dpkg run,
# the parts of each breakdown adding up to its wall time; the converted
# repository must hold zstd packages and the zdeb chroot zdeb as
# dpkg-deb.
#
# Run by "make check-slow": needs root, debootstrap (or the cached
# minbase of tests/slow/lib.sh), eatmydata and the mirror; downloads
# under 1 MB beyond the minbase and takes 2-4 minutes.  Skips (77) with
# the reason when any of that is missing.
. "$(dirname "$0")/../integ/lib.sh"
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root (chroot, mount)"
need debootstrap chroot apt-ftparchive eatmydata python3
m=$(slow_mirror) || exit 77
set -- $m
MIRROR=$1 SUITE=$2
slow_probe "$MIRROR/dists/$SUITE/Release"
PERF=${ZDEB_BUILDDIR:-$(dirname "$ZDEB")/..}/src/perf/zdeb-perf
[ -x "$PERF" ] || fail "no zdeb-perf at $PERF"

W=$T/work
# zdeb-perf undoes its mounts itself; the trap only keeps the cleanup
# out of any it could not.
trap 'for d in "$W"/prep-root "$W"/fetch-root "$W"/mnt/zdeb-perf-root; do
	umount "$d/srv/repo" "$d/proc" 2>/dev/null || true; done
	umount "$W/mnt" 2>/dev/null || true
	rm -rf --one-file-system "$T"' EXIT
start=$(date +%s)
set +e
ZDEB_MIRROR=$MIRROR ZDEB_SUITE=$SUITE "$PERF" apt --runs 2 --allow-loaded \
	--modes eatmydata --fs tmpfs --workdir "$W" --json "$T/apt.json" \
	jq >"$T/out" 2>"$T/err"
rc=$?
set -e
if [ $rc -ne 0 ] && grep -q 'debootstrap failed\|apt-get update in the minbase\|apt-get download' "$T/err"; then
	skip "network or mirror: $(tail -2 "$T/err")"
fi
[ $rc -eq 0 ] || fail "zdeb-perf apt exited $rc: $(tail -5 "$T/err")"
echo "# zdeb-perf apt: $(($(date +%s) - start)) s, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
sed 's/^/# /' "$T/out" >&2
ok "zdeb-perf apt --runs 2 jq: exit 0"

grep -q '^zdeb-perf apt: [0-9]* packages (jq requested)' "$T/out" ||
	fail "no header: $(head -2 "$T/out")"
grep -q 'ALLOW-LOADED: [0-9]* of 2 rounds\|every round started quiet' "$T/out" ||
	fail "the header does not say how loaded the rounds were"
for c in debian/stock debian/zdeb zdeb/stock zdeb/zdeb; do
	n=2
	[ $c = debian/stock ] && n=4
	grep -Eq "^$c/eatmydata +$n +[0-9]+\.[0-9]{2}( +[0-9]+\.[0-9]{2}){10}\$" "$T/out" ||
		fail "no row of $n runs with a breakdown for $c/eatmydata: $(cat "$T/out")"
done
grep -q '^A/A debian/stock/eatmydata .*x  95% CI: -  (2 rounds; 6 needed)$' "$T/out" ||
	fail "no A/A row: $(cat "$T/out")"
[ "$(grep -c '^debian/stock/eatmydata -> .*x  95% CI' "$T/out")" -eq 3 ] ||
	fail "not 3 comparisons with the baseline: $(cat "$T/out")"
grep -q '^zdeb/stock/eatmydata -> zdeb/zdeb/eatmydata .*x' "$T/out" ||
	fail "no zdeb against stock on the converted repository"
grep -q '^rounds: 2, stopped by runs$' "$T/out" || fail "no rounds line"
grep -q '^NOT TRUSTWORTHY: the A/A interval is unknown (too few rounds)$' "$T/out" ||
	fail "2 rounds not said to be too few"
ok "table: 4 configurations with their breakdown, the A/A row, 4 comparisons, too few rounds said"

python3 - "$T/apt.json" >"$T/py" 2>&1 <<'PY' || fail "JSON: $(cat "$T/py")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["command"] == "apt" and d["requested"] == ["jq"], d["requested"]
assert "jq" in d["packages"] and len(d["packages"]) >= 2, d["packages"]
assert d["rounds"]["rounds"] == 2, d["rounds"]
assert d["rounds"]["stopped_by"] == "runs", d["rounds"]
assert len(d["gate"]) == 2, d["gate"]
assert d["allow_loaded"] is True
runs = d["runs"]
assert len(runs) == 10, len(runs)
for r in runs:
    assert r["status"] == "ok", r
    assert r["dpkg_runs"] >= 1, r
    assert r["discarded"] is False and "others_pct" in r, r
    b = r["breakdown"]
    s = sum(b.values())
    assert abs(s - r["elapsed_s"]) < 0.01 * r["elapsed_s"] + 0.002, (s, r)
    assert b["decode_s"] > 0 and b["apt_s"] > 0, b
assert sum(1 for r in runs if r["role"] == "aa") == 2
c = d["comparisons"]
assert c[0]["kind"] == "aa" and c[0]["a"] == "debian/stock/eatmydata", c[0]
assert c[0]["b"] == "debian/stock/eatmydata#aa", c[0]
for x in c:
    assert set(x) >= {"a", "b", "ratio", "ci95", "rounds"}, x
    assert x["rounds"] == 2 and x["ratio"] > 0 and x["ci95"] is None, x
assert len(c) == 5, c
assert d["trustworthy"] is False
assert d["repo_bytes"]["zdeb"] > 0 and d["repo_bytes"]["debian"] > 0
PY
ok "JSON: 10 runs ok, each breakdown adds up to its wall time, 5 comparisons with a, b, ratio, ci95, rounds"

n=0
for f in $(find "$W/zdeb/pool" -name '*.deb'); do
	"$ZDEB" info "$f" 2>/dev/null | grep -Eq '^ +data\.tar\.zst +[0-9]+ +zstd +indexed ' ||
		fail "$f: data is not zstd indexed: $("$ZDEB" info "$f" 2>&1)"
	n=$((n + 1))
done
[ $n -eq "$(ls "$W"/debian/*.deb | wc -l)" ] || fail "$n converted packages"
tar -tvf "$W/ready-debian-zdeb.tar" ./usr/bin/dpkg-deb |
	grep -q -- '-> /usr/local/bin/zdeb$' || fail "no zdeb as dpkg-deb in the zdeb chroot"
tar -tvf "$W/ready-debian-stock.tar" ./usr/bin/dpkg-deb | grep -q '^-' ||
	fail "the stock chroot's dpkg-deb is not the stock one"
ok "the converted repository holds $n zstd packages; zdeb is dpkg-deb in the zdeb chroot only"
