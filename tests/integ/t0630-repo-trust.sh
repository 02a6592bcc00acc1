#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# zdeb repo trusts no earlier step (issue 25's scenario on 8 packages
# made here): after a run, one output cut to zero bytes (what a power loss
# leaves) and one deleted; finish then exits 1 naming both and leaves the
# indexes of the finish before byte-identical (apt-ftparchive's cache of
# that finish does not answer for the changed file); the rerun redoes
# exactly those two and says why; finish indexes 8 of 8, every stanza's
# Size and SHA256 those of its file.  Then: --partial indexes the rest
# and lists what it left out; a file that matches its result but is no
# package makes apt-ftparchive complain, which fails finish; a zdeb-perf
# asked for that cannot run fails it before any index; --verify-hash
# finds a same-size change; --project gives hours for 1, 16 and 256
# workers from the throughput the results recorded.
. "$(dirname "$0")/lib.sh"
need dpkg dpkg-deb apt-ftparchive python3

S=$T/src
mkdir -p "$S"
names="at bash-doc cpio dash ed file gzip hostname"
for p in $names; do
	d=$T/tree-$p
	mkdir -p "$d/DEBIAN" "$d/usr/share/$p"
	printf 'Package: %s\nVersion: 1\nArchitecture: all\nMaintainer: t <t@example.org>\nInstalled-Size: 200\nDescription: t\n' \
		"$p" >"$d/DEBIAN/control"
	seq 1 $((20000 + ${#p} * 1000)) >"$d/usr/share/$p/numbers"
	dpkg-deb --root-owner-group -Zxz -b "$d" "$S/${p}_1_all.deb" >/dev/null
done

D=$T/dst
J=$D/.zdeb-repo/jobs.jsonl
expect_status 0 "$ZDEB" repo plan -z 3 "$S" "$D"
expect_status 0 "$ZDEB" repo run --jobs 2 -T 1 "$J"
expect_status 0 "$ZDEB" repo finish --perf-sample 0 "$D"
grep -q '^packages: 8: 8 converted' "$T/stdout" || fail "finish: $(cat "$T/stdout")"
python3 - "$J" <<'PY' || fail "a result without size and SHA-256"
import hashlib, json, os, sys
for l in open(sys.argv[1]):
    j = json.loads(l)
    o = os.path.join(j["dst"], j["output"])
    res = [json.loads(open(os.path.join(j["dst"], ".zdeb-repo/results", f)).read())
           for f in os.listdir(os.path.join(j["dst"], ".zdeb-repo/results"))]
    r = [x for x in res if x["output"] == j["output"]][0]
    assert r["out_bytes"] == os.path.getsize(o), o
    assert r["out_sha256"] == hashlib.sha256(open(o, "rb").read()).hexdigest(), o
PY
ok "run: each result records its output's size and SHA-256"

# out NAME: the output path of package NAME
out() {
	python3 - "$J" "$1" <<'PY'
import json, os, sys
for l in open(sys.argv[1]):
    j = json.loads(l)
    if j["package"] == sys.argv[2]:
        print(os.path.join(j["dst"], j["output"]))
PY
}
# dists_sum: one checksum over every file under DST/dists
dists_sum() {
	(cd "$D/dists" && find . -type f | sort | xargs sha256sum | sha256sum)
}
# stanzas_match: every stanza of the Packages index (of the native arch:
# the packages are all "all") has the Size and SHA256 of its file; prints
# how many stanzas
ARCH=$(dpkg --print-architecture)
stanzas_match() {
	python3 - "$D" "$ARCH" <<'PY'
import hashlib, os, sys
d = sys.argv[1]
text = open(os.path.join(d, "dists/stable/main/binary-%s/Packages" % sys.argv[2])).read()
n = 0
for st in text.strip().split("\n\n"):
    f = dict(l.split(": ", 1) for l in st.split("\n") if ": " in l and not l.startswith(" "))
    p = os.path.join(d, f["Filename"])
    b = open(p, "rb").read()
    assert int(f["Size"]) == len(b), (p, f["Size"], len(b))
    assert f["SHA256"] == hashlib.sha256(b).hexdigest(), p
    n += 1
print(n)
PY
}
[ "$(stanzas_match)" -eq 8 ] || fail "first finish: not 8 matching stanzas"
before=$(dists_sum)

doc=$(out bash-doc)
at=$(out at)
: >"$doc"
rm "$at"
expect_status 1 "$ZDEB" repo finish --perf-sample 0 "$D"
expect_stderr "bash-doc: output does not match its result: '$doc': 0 bytes, its result says"
expect_stderr "at: output does not match its result: '$at': missing"
expect_stderr "2 of 8 outputs do not match their results: no index written"
grep -q "^not matching its result: bash-doc: " "$T/stdout" || fail "report: $(cat "$T/stdout")"
[ "$(dists_sum)" = "$before" ] || fail "finish changed the indexes"
ok "finish with a zero-length and a missing output: exit 1, both named, indexes unchanged"

expect_status 0 "$ZDEB" repo run --jobs 2 -T 1 "$J"
expect_stderr "8 jobs: 2 converted, 0 kept, 6 done before, 2 redone (output did not match its result), 0 failed"
expect_stderr "'$doc': 0 bytes, its result says"
expect_stderr "'$at': missing"
[ "$(grep -c '"redone": true' "$T/stdout")" -eq 2 ] || fail "result lines: $(cat "$T/stdout")"
expect_status 0 "$ZDEB" repo finish --perf-sample 0 "$D"
grep -q '^packages: 8: 8 converted' "$T/stdout" || fail "finish: $(cat "$T/stdout")"
[ "$(stanzas_match)" -eq 8 ] || fail "finish after the rerun: not 8 matching stanzas"
ok "the rerun redoes both, saying why; finish indexes 8 of 8, each stanza's Size and SHA256 its file's"

# --partial: the rest indexed, the left-out one listed
cp "$doc" "$T/doc.keep"
: >"$doc"
expect_status 1 "$ZDEB" repo finish --partial --perf-sample 0 "$D"
expect_stderr "bash-doc: output does not match its result"
[ "$(stanzas_match)" -eq 7 ] || fail "--partial: not 7 matching stanzas"
grep -q "^not matching its result: bash-doc: " "$T/stdout" &&
	grep -q "^left out of the indexes (--partial): 1 packages" "$T/stdout" ||
	fail "--partial report: $(cat "$T/stdout")"
cp "$T/doc.keep" "$doc"
expect_status 0 "$ZDEB" repo finish --perf-sample 0 "$D"
[ "$(stanzas_match)" -eq 8 ] || fail "back to 8"
ok "--partial indexes the 7 others and lists the one it left out"

# --verify-hash: a change of the same size
before=$(dists_sum)
python3 - "$doc" <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
b[-1] ^= 0xff
open(p, "wb").write(b)
PY
expect_status 0 "$ZDEB" repo run --jobs 2 -T 1 "$J"
expect_stderr "0 converted, 0 kept, 8 done before, 0 redone"
expect_status 1 "$ZDEB" repo finish --perf-sample 0 "$D"
expect_stderr "bash-doc: output does not match its result: '$doc': SHA-256"
[ "$(dists_sum)" = "$before" ] || fail "finish changed the indexes"
expect_status 0 "$ZDEB" repo run --verify-hash --jobs 2 -T 1 "$J"
expect_stderr "1 converted, 0 kept, 7 done before, 1 redone"
expect_status 0 "$ZDEB" repo finish --perf-sample 0 "$D"
[ "$(stanzas_match)" -eq 8 ] || fail "after --verify-hash"
ok "a same-size change: run takes it for done, finish refuses it, run --verify-hash redoes it"

# A file that matches its result but is no package: apt-ftparchive says
# E: (and exits 0), finish fails and writes nothing.
before=$(dists_sum)
cp "$doc" "$T/doc.keep"
head -c 5000 /dev/urandom >"$doc"
python3 - "$D" "$doc" <<'PY'
import hashlib, json, os, sys
d, doc = sys.argv[1], sys.argv[2]
b = open(doc, "rb").read()
rd = os.path.join(d, ".zdeb-repo/results")
for f in os.listdir(rd):
    r = json.loads(open(os.path.join(rd, f)).read())
    if os.path.join(d, r["output"]) == doc:
        r["out_bytes"] = len(b)
        r["out_sha256"] = hashlib.sha256(b).hexdigest()
        open(os.path.join(rd, f), "w").write(json.dumps(r) + "\n")
PY
expect_status 2 "$ZDEB" repo finish --perf-sample 0 "$D"
expect_stderr "apt-ftparchive said: E:"
[ "$(dists_sum)" = "$before" ] || fail "finish changed the indexes"
ok "apt-ftparchive's E: on a non-package: finish exits 2, indexes unchanged"
cp "$T/doc.keep" "$doc"
expect_status 0 "$ZDEB" repo run --verify-hash --jobs 2 -T 1 "$J"
expect_stderr "1 redone"

# zdeb-perf asked for and not there
cp "$D/dists/stable/main/binary-$ARCH/Packages" "$T/Packages"
rm -rf "$D/dists/stable/main"
expect_status 2 env ZDEB_PERF=/nonexistent/zdeb-perf "$ZDEB" repo finish --perf-sample 1 "$D"
expect_stderr "cannot run '/nonexistent/zdeb-perf'"
expect_stderr "install-time estimate asked for (--perf-sample 1) but zdeb-perf did not run"
[ ! -e "$D/dists/stable/main" ] || fail "an index was written"
ok "a zdeb-perf asked for that cannot run: exit 2, no index written"

# --project: a Packages index and a size
expect_status 0 "$ZDEB" repo finish --perf-sample 0 --project "$T/Packages" "$D"
[ "$(stanzas_match)" -eq 8 ] || fail "after the projection"
grep -q "^throughput: from xz: [0-9.]* MB of tar per CPU-second (8 packages" "$T/stdout" &&
	grep -q "^projection (not a measurement): .*Packages: 8 packages, .*: 1 worker [0-9.]* h, 16 workers [0-9.]* h, 256 workers [0-9.]* h" "$T/stdout" ||
	fail "report: $(cat "$T/stdout")"
expect_status 0 "$ZDEB" repo finish --perf-sample 0 --project 100G --json "$D"
python3 - "$T/stdout" <<'PY' || fail "json projection: $(cat "$T/stdout")"
import json, sys
r = json.loads(open(sys.argv[1]).read())
p = r["projection"]
assert p["deb_bytes"] == 100 << 30, p
t = r["throughput"][0]
rate = p["tar_mb_per_cpu_s"] * 1e6
h1 = p["tar_bytes"] / rate / 3600
assert abs(p["hours"]["1"] - h1) < 1e-3 * h1 + 1e-3, (p, h1)
assert abs(p["hours"]["16"] * 16 - p["hours"]["1"]) < 1e-2 * h1 + 1e-2, p
assert abs(p["hours"]["256"] * 256 - p["hours"]["1"]) < 1e-2 * h1 + 1e-2, p
assert t["from"] == "xz" and t["packages"] == 8, t
PY
expect_status 2 "$ZDEB" repo finish --perf-sample 0 --project no-such-thing "$D"
expect_stderr "neither a Packages index nor a size"
ok "--project FILE|SIZE: tar MB per CPU-second by compressor, hours for 1, 16 and 256 workers"

# A reader of the result lines that goes away: the jobs go on (their
# results are in DST), the error is said once, with its errno, and the
# status is 2, not 0: what stdout got is short.
rm -rf "$D/.zdeb-repo/results" "$D/pool"
status=$( ( "$ZDEB" repo run --jobs 2 -T 1 "$J" 2>"$T/pipe.err"; echo $? >"$T/st" ) |
	head -c 10 >/dev/null; cat "$T/st")
[ "$status" -eq 2 ] ||
	fail "repo run into a closed pipe exited $status: $(cat "$T/pipe.err")"
[ "$(grep -c 'cannot write the result of job' "$T/pipe.err")" -eq 1 ] &&
	grep -q 'Broken pipe' "$T/pipe.err" &&
	! grep -q 'Success' "$T/pipe.err" ||
	fail "repo run into a closed pipe said: $(cat "$T/pipe.err")"
expect_status 0 "$ZDEB" repo run --jobs 2 -T 1 "$J"
grep -q '8 done before' "$T/stderr" ||
	fail "the jobs did not all finish behind the closed pipe: $(cat "$T/stderr")"
ok "run into a reader that went away: said once with its errno, status 2, the jobs done"
