#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# zdeb repo plan, run, finish on a scratch repository of packages made here
# (dpkg-deb xz, gzip and none, zdeb's own indexed and pzstd, a damaged one,
# a file that is no package): the job lines, content-addressed outputs the
# stock dpkg-deb reads as the inputs, failures recorded without a file, a
# finish that refuses to index them, a plan again that skips finished
# work, apt-ftparchive indexes signed with a throwaway key that apt
# accepts, a download and a stock dpkg install from them, --target
# debian-11 (kept xz, zstd made xz), a source with dists/*/Packages.xz,
# and the zdeb-perf install-time estimate.
. "$(dirname "$0")/lib.sh"
need dpkg dpkg-deb apt-ftparchive apt-get gpg python3 ar

ARCH=$(dpkg --print-architecture)
S=$T/src
mkdir -p "$S/sub"
# pkg NAME ARCH: a tree in $T/tree-NAME
pkg() {
	make_tree "$T/tree-$1" "$1"
	sed -i "s/^Architecture: .*/Architecture: $2/" "$T/tree-$1/DEBIAN/control"
}
pkg repo-xz all
dpkg-deb --root-owner-group -Zxz -b "$T/tree-repo-xz" "$S/repo-xz_1.2-3_all.deb" >/dev/null
pkg repo-gz "$ARCH"
dpkg-deb --root-owner-group -Zgzip -b "$T/tree-repo-gz" "$S/sub/repo-gz_1.2-3_$ARCH.deb" >/dev/null
pkg repo-none "$ARCH"
dpkg-deb --root-owner-group -Znone -b "$T/tree-repo-none" "$S/repo-none_1.2-3_$ARCH.deb" >/dev/null
pkg repo-idx "$ARCH"
"$ZDEB" build "$T/tree-repo-idx" "$S/repo-idx_1.2-3_$ARCH.deb"
pkg repo-pz "$ARCH"
"$ZDEB" build --layout pzstd --segment-size 64K "$T/tree-repo-pz" \
	"$S/repo-pz_1.2-3_$ARCH.deb" 2>/dev/null
pkg repo-bad "$ARCH"
dpkg-deb --root-owner-group -Zxz -b "$T/tree-repo-bad" "$S/repo-bad_1.2-3_$ARCH.deb" >/dev/null
n=$(stat -c %s "$S/repo-bad_1.2-3_$ARCH.deb")
printf 'XXXXXXXX' | dd of="$S/repo-bad_1.2-3_$ARCH.deb" bs=1 \
	seek=$((n - 100000)) conv=notrunc 2>/dev/null
echo "not a package" >"$S/junk.deb"
good="repo-xz repo-gz repo-none repo-idx repo-pz"

D=$T/dst
expect_status 0 "$ZDEB" repo plan "$S" "$D"
grep -q '^7 packages, [0-9]* bytes: 6 to convert (zstd -19 indexed), 1 to keep, 1 unreadable' "$T/stdout" ||
	fail "plan summary: $(cat "$T/stdout")"
expect_stderr "junk.deb"
J=$D/.zdeb-repo/jobs.jsonl
python3 - "$J" "$S" "$D" <<'PY' || fail "job lines"
import json, re, sys
jobs = [json.loads(l) for l in open(sys.argv[1])]
assert len(jobs) == 7, len(jobs)
by = {j["input"].rsplit("/", 1)[1].split("_")[0]: j for j in jobs}
for i, j in enumerate(jobs):
    assert j["index"] == i
    assert j["input"].startswith(sys.argv[2] + "/"), j
    assert j["dst"] == sys.argv[3]
    assert re.fullmatch(r"pool/(sub/)?[0-9a-f]{16}/[^/]+\.deb", j["output"]), j
    assert re.fullmatch(r"[0-9a-f]{64}", j["sha256"])
    assert j["dists"] == ["stable/main"]
assert by["repo-idx"]["action"] == "keep" and by["repo-idx"]["from"] == "zstd-indexed"
for p in ("repo-xz", "repo-gz", "repo-none", "repo-pz", "repo-bad"):
    assert by[p]["action"] == "convert" and by[p]["to"] == "zstd", by[p]
    assert by[p]["level"] == 19 and by[p]["layout"] == "indexed"
assert by["repo-xz"]["from"] == "xz" and by["repo-pz"]["from"] == "zstd-pzstd"
assert by["repo-gz"]["output"].startswith("pool/sub/")
assert by["repo-xz"]["package"] == "repo-xz" and by["repo-xz"]["architecture"] == "all"
assert by["repo-xz"]["version"] == "1:1.2-3" and by["repo-xz"]["installed_size_kib"] == 100
assert by["junk.deb"]["from"] == "unreadable"
PY
ok "plan: one job line per package, outputs named by content, indexed zdeb package kept"

expect_status 1 "$ZDEB" repo run --jobs 2 "$J"
[ "$(wc -l <"$T/stdout")" -eq 7 ] || fail "result lines: $(cat "$T/stdout")"
cp "$T/stdout" "$T/run1"
python3 - "$T/run1" <<'PY' || fail "result lines"
import json, sys
rs = {r["input"].rsplit("/", 1)[1].split("_")[0]: r
      for r in map(json.loads, open(sys.argv[1]))}
for p in ("repo-xz", "repo-gz", "repo-none", "repo-pz"):
    assert rs[p]["verdict"] == "converted" and not rs[p]["skipped"], rs[p]
    assert rs[p]["out_bytes"] > 0 and rs[p]["tar_bytes"] > 0 and rs[p]["cpu_s"] >= 0
assert rs["repo-idx"]["verdict"] == "kept", rs["repo-idx"]
assert rs["repo-bad"]["verdict"] == "failed" and rs["repo-bad"]["stage"] == "input", rs["repo-bad"]
assert "data.tar.xz" in rs["repo-bad"]["error"], rs["repo-bad"]
assert rs["junk.deb"]["verdict"] == "failed" and rs["junk.deb"]["stage"] == "input"
assert "not a Debian package" in rs["junk.deb"]["error"], rs["junk.deb"]
PY
# out JOBS NAME: the output path of the job whose input is NAME_*
out() { python3 -c 'import json, sys
for l in open(sys.argv[1]):
    j = json.loads(l)
    if j["input"].rsplit("/", 1)[1].split("_")[0] == sys.argv[2]:
        print(j["dst"] + "/" + j["output"])' "$1" "$2"; }
for p in $good; do
	o=$(out "$J" $p)
	[ -f "$o" ] || fail "$p: no output $o"
	i=$(find "$S" -name "${p}_*")
	# zdeb reads every input (stock dpkg-deb not the pzstd one)
	"$ZDEB" cat-data "$i" >"$T/in.tar"
	dpkg-deb --fsys-tarfile "$o" | cmp - "$T/in.tar" || fail "$p: other data.tar"
	"$ZDEB" cat-control "$i" >"$T/in.tar"
	dpkg-deb --ctrl-tarfile "$o" | cmp - "$T/in.tar" || fail "$p: other control.tar"
done
[ "$(ar t "$(out "$J" repo-xz)" | sed -n 3p)" = data.tar.zst ] || fail "xz not converted"
cmp "$(out "$J" repo-idx)" "$S/repo-idx_1.2-3_$ARCH.deb" || fail "kept package differs"
[ ! -e "$(out "$J" repo-bad)" ] && [ ! -e "$(out "$J" junk.deb)" ] || fail "a failed job left an output"
[ -z "$(ls -A "$D/.zdeb-repo/tmp")" ] || fail "tmp not empty: $(ls "$D/.zdeb-repo/tmp")"
ok "run --jobs 2: converted ones read by stock dpkg-deb as the inputs, failures recorded, no file"

expect_status 1 "$ZDEB" repo finish --perf-sample 0 "$D"
expect_stderr "2 of 7 jobs failed or not run: no index written"
grep -q "^failed: $S/junk.deb: input: " "$T/stdout" || fail "report: $(cat "$T/stdout")"
[ ! -e "$D/dists" ] || fail "finish indexed a repository with failures"
ok "finish with failed jobs: report, exit 1, no index"

# The damaged package: --index runs it again, and it fails again.
bad=$(python3 -c 'import json, sys
print([j["index"] for j in map(json.loads, open(sys.argv[1])) if "repo-bad" in j["input"]][0])' "$J")
expect_status 1 "$ZDEB" repo run --index "$bad" "$J"
grep -q '"verdict": "failed"' "$T/stdout" || fail "--index $bad: $(cat "$T/stdout")"
expect_status 2 "$ZDEB" repo run --index 7 "$J"
expect_stderr "index 7 out of range"

# Drop them from the source: the new plan's finished jobs are skipped.
rm "$S/junk.deb" "$S/repo-bad_1.2-3_$ARCH.deb"
expect_status 0 "$ZDEB" repo plan "$S" "$D"
expect_status 0 "$ZDEB" repo run "$J"
[ "$(grep -c '"skipped": true' "$T/stdout")" -eq 5 ] ||
	fail "rerun did work again: $(cat "$T/stdout")"
ok "plan again without them: every job is found done, nothing redone"

# Signed indexes, with a throwaway key, that apt takes.
export GNUPGHOME="$T/gnupg"
mkdir -m 700 "$GNUPGHOME"
trap 'gpgconf --kill gpg-agent 2>/dev/null || true; rm -rf "$T"' EXIT
gpg --batch --passphrase '' --quick-gen-key 'zdeb test <test@example.org>' \
	ed25519 sign never 2>/dev/null || skip "gpg cannot make a key"
key=$(gpg --list-keys --with-colons 2>/dev/null | awk -F: '/^fpr/ { print $10; exit }')
gpg --export "$key" >"$T/key.gpg" 2>/dev/null
expect_status 0 "$ZDEB" repo finish --sign "$key" --perf-sample 0 "$D"
for f in Release InRelease Release.gpg main/binary-$ARCH/Packages \
         main/binary-$ARCH/Packages.xz main/Contents-$ARCH.gz; do
	[ -s "$D/dists/stable/$f" ] || fail "no dists/stable/$f"
done
gpg --verify "$D/dists/stable/Release.gpg" "$D/dists/stable/Release" 2>/dev/null ||
	fail "Release.gpg does not verify"
grep -q "^packages: 5: 4 converted (zstd -19 indexed), 1 kept, 0 failed, 0 not run" "$T/stdout" ||
	fail "report: $(cat "$T/stdout")"
zcat "$D/dists/stable/main/Contents-$ARCH.gz" | grep -Eq '^usr/bin/hello[[:space:]]+.*repo-xz' ||
	fail "Contents: $(zcat "$D/dists/stable/main/Contents-$ARCH.gz" | head -3)"
ok "finish --sign: Packages, Contents, Release, InRelease, Release.gpg"

A=$T/apt
mkdir -p "$A/etc/apt/sources.list.d" "$A/etc/apt/preferences.d" \
	"$A/var/lib/apt/lists/partial" "$A/var/cache/apt/archives/partial" \
	"$A/var/lib/dpkg"
: >"$A/var/lib/dpkg/status"
echo "deb [signed-by=$T/key.gpg] file:$D stable main" >"$A/etc/apt/sources.list"
apt_() {
	"$@" -o Dir="$A" -o Dir::State::status="$A/var/lib/dpkg/status" \
	     -o Debug::NoLocking=1 -o APT::Sandbox::User=root \
	     -o APT::Architecture="$ARCH"
}
apt_ apt-get update >"$T/apt.log" 2>&1 || fail "apt-get update: $(cat "$T/apt.log")"
grep -qi 'not signed\|NO_PUBKEY\|insecure' "$T/apt.log" && fail "apt: $(cat "$T/apt.log")"
for p in $good; do
	apt_ apt-cache show "$p" >/dev/null 2>&1 || fail "apt does not know $p"
done
mkdir "$T/dl"
(cd "$T/dl" && apt_ apt-get download $good >"$T/dl.log" 2>&1) ||
	fail "apt-get download: $(cat "$T/dl.log")"
for p in $good; do
	d=$(ls "$T/dl/${p}_"*.deb)
	cmp "$d" "$(out "$J" "$p")" || fail "$p: apt fetched other bytes"
	init_dpkg_root "$T/root-$p"
	dpkg_install "$T/root-$p" "$d" >"$T/dpkg.log" 2>&1 ||
		fail "stock dpkg -i $p: $(cat "$T/dpkg.log")"
	manifest "$T/tree-$p" >"$T/want"
	cut -d' ' -f1 "$T/want" | manifest_paths "$T/root-$p" >"$T/got"
	diff "$T/want" "$T/got" >/dev/null || fail "$p: installed tree differs"
done
ok "apt (signed-by the throwaway key) updates, downloads the converted packages; stock dpkg installs them"

# --target debian-11: xz, gzip and none kept as they are, zstd made xz.
D11=$T/dst11
expect_status 0 "$ZDEB" repo plan --target debian-11 "$S" "$D11"
grep -q '^5 packages, [0-9]* bytes: 2 to convert (xz -6), 3 to keep' "$T/stdout" ||
	fail "plan --target debian-11: $(cat "$T/stdout")"
expect_status 0 "$ZDEB" repo run --jobs 2 "$D11/.zdeb-repo/jobs.jsonl"
J11=$D11/.zdeb-repo/jobs.jsonl
for p in repo-xz repo-gz repo-none; do
	o=$(out "$J11" $p)
	cmp "$o" "$(find "$S" -name "${p}_*")" || fail "--target debian-11 changed $p"
done
for p in repo-idx repo-pz; do
	o=$(out "$J11" $p)
	[ "$(ar t "$o" | sed -n '2,3p' | tr '\n' ' ')" = "control.tar.xz data.tar.xz " ] ||
		fail "$p for debian-11: $(ar t "$o")"
done
ok "plan --target debian-11: packages its dpkg reads kept, zstd ones made xz"

# A source with dists/SUITE/COMPONENT/binary-ARCH/Packages.xz: its
# suites and components are kept, files it does not list are not planned.
S2=$T/src2
mkdir -p "$S2/pool/main/r" "$S2/dists/trixie/main/binary-$ARCH" \
	"$S2/dists/trixie/contrib/binary-$ARCH"
cp "$S"/repo-xz_*.deb "$S"/repo-none_*.deb "$S2/pool/main/r/"
cp "$S"/repo-idx_*.deb "$S2/pool/main/r/unlisted.deb"
(cd "$S2" && apt-ftparchive packages pool/main/r 2>/dev/null |
	awk 'BEGIN { RS = ""; ORS = "\n\n" } !/unlisted/') >"$T/Packages"
xz -c "$T/Packages" >"$S2/dists/trixie/main/binary-$ARCH/Packages.xz"
(cd "$S2" && apt-ftparchive packages pool/main/r 2>/dev/null |
	awk 'BEGIN { RS = ""; ORS = "\n\n" } /Package: repo-xz/') \
	>"$S2/dists/trixie/contrib/binary-$ARCH/Packages"
D2=$T/dst2
expect_status 0 "$ZDEB" repo plan "$S2" "$D2"
grep -q '^2 packages' "$T/stdout" || fail "plan from Packages: $(cat "$T/stdout")"
python3 - "$D2/.zdeb-repo/jobs.jsonl" <<'PY' || fail "dists of the jobs"
import json, sys
d = {j["package"]: j for j in map(json.loads, open(sys.argv[1]))}
assert d["repo-xz"]["dists"] == ["trixie/contrib", "trixie/main"], d["repo-xz"]
assert d["repo-none"]["dists"] == ["trixie/main"], d["repo-none"]
assert d["repo-xz"]["output"].startswith("pool/main/r/"), d["repo-xz"]
PY
expect_status 0 "$ZDEB" repo run "$D2/.zdeb-repo/jobs.jsonl"
expect_status 0 "$ZDEB" repo finish --perf-sample 0 "$D2"
grep -q '^Package: repo-xz' "$D2/dists/trixie/contrib/binary-$ARCH/Packages" &&
	! grep -q 'repo-none' "$D2/dists/trixie/contrib/binary-$ARCH/Packages" &&
	[ "$(grep -c '^Package:' "$D2/dists/trixie/main/binary-$ARCH/Packages")" -eq 2 ] ||
	fail "indexes of the dists source"
grep -q '^Components: contrib main$' "$D2/dists/trixie/Release" || fail "Release: $(cat "$D2/dists/trixie/Release")"
ok "a source with dists/*/Packages.xz: its suite and components, unlisted files left out"

# An index whose SHA-256 is not the file's: plan takes it (reading no
# file), run checks it and records the failure.
sed -i '/^Package: repo-none/,/^$/ s/^SHA256: .*/SHA256: '"$(printf 'f%.0s' $(seq 64))"'/' "$T/Packages"
xz -c "$T/Packages" >"$S2/dists/trixie/main/binary-$ARCH/Packages.xz"
expect_status 0 "$ZDEB" repo plan "$S2" "$T/dst3"
expect_status 1 "$ZDEB" repo run "$T/dst3/.zdeb-repo/jobs.jsonl"
grep -q '"stage": "input", "error": "[^"]*repo-none[^"]* changed since the plan' "$T/stdout" ||
	fail "SHA-256 mismatch: $(cat "$T/stdout")"
ok "a Packages entry whose SHA-256 is not the file's: the job fails at its input"

# The install-time estimate from zdeb-perf on a sample.
PERF=${ZDEB_BUILDDIR:-$(dirname "$ZDEB")/..}/src/perf/zdeb-perf
if [ -x "$PERF" ] && command -v eatmydata >/dev/null; then
	expect_status 0 env ZDEB_PERF="$PERF" "$ZDEB" repo finish --json \
		--perf-sample 2 "$D"
	python3 - "$T/stdout" "${ZDEB_ASAN:-0}" <<'PY' || fail "estimate: $(cat "$T/stdout")"
import json, sys
r = json.load(open(sys.argv[1]))
e = r["install_estimate"]
# the sample: packages converted from the compressor with the most bytes
# (one package each here, so one package)
big = max((g for g in r["by_compressor"] if g["from"] != "zstd-indexed"),
          key=lambda g: g["bytes_before"])["from"]
assert e["made"] and e["sample_packages"] == 1, e
assert {(s["variant"], s["backend"]) for s in e["seconds"]} == {
    (big, "stock"), (big, "zdeb"), ("zstd-indexed", "stock"),
    ("zstd-indexed", "zdeb")}, e
assert e["total_tar_bytes"] > e["sample_tar_bytes"], e
for s in e["seconds"]:
    # under ASan zdeb-perf's preloaded timer breaks zdeb as dpkg-deb: the
    # runs fail and the report says so (null), as for any failed run
    if s["backend"] == "zdeb" and sys.argv[2] == "1" and s["sample_s"] is None:
        continue
    assert s["sample_s"] > 0 and s["estimate_s"] >= s["sample_s"], s
    assert s["sample_cpu_s"] > 0 and s["estimate_cpu_s"] >= s["sample_cpu_s"], s
assert r["converted"] == 4 and r["kept"] == 1 and r["failed"] == 0
assert r["indexed"] and not r["signed"]
PY
	[ ! -e "$D/dists/stable/InRelease" ] || fail "stale InRelease kept"
	ok "finish --perf-sample 2: zdeb-perf times the sample, scaled to the repository"
else
	echo "# zdeb-perf not built or no eatmydata: estimate not checked" >&2
fi
