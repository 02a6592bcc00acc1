#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# zdeb repo on a scratch repository of real packages: in a debootstrap
# --variant=minbase chroot of the host's release, apt works out what a few
# tools (python3, curl, file, jq...) need beyond minbase, and
# "apt-get download" fetches those packages (about 50) from the Debian
# mirror of the host's apt sources.  zdeb repo plan, run --jobs 2 and
# finish (signed with a throwaway key, install-time estimate from
# zdeb-perf) convert them to zstd indexed; the repository is then the only
# apt source, as a file: URI, of two copies of the chroot: one with zdeb
# integrated as dpkg-deb, one with the stock dpkg-deb (which reads the
# indexed layout).  In both, apt-get update && apt-get install of the
# tools must succeed, dpkg --verify must be clean and the tools must run.
# Before that, issue 25's scenario: an output cut to zero bytes and one
# deleted make finish fail naming both, the rerun redoes them, and the
# final indexes match every file.  The report is printed (README quotes it); ZDEB_REPO_KEEP=DIR keeps it
# with the job list and results.
#
# Run by "make check-slow": needs root, debootstrap and the mirror;
# downloads about 60 MB (the chroot, cached in ZDEB_SLOW_CACHE, default
# /var/cache/zdeb-tests, for 7 days) and takes 2-5 minutes.  Skips (77)
# with the reason when any of that is missing.
. "$(dirname "$0")/../integ/lib.sh"
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root (debootstrap, chroot)"
need debootstrap chroot apt-ftparchive gpg python3
m=$(slow_mirror) || exit 77
set -- $m
MIRROR=$1 SUITE=$2
slow_probe "$MIRROR/dists/$SUITE/Release"
TOOLS=${ZDEB_REPO_TOOLS:-"python3 curl file jq bc zstd patch tree less gpg rsync"}

R=$T/chroot
R2=$T/chroot-stock
trap 'for r in "$R" "$R2"; do umount "$r/proc" 2>/dev/null || true; done
      gpgconf --kill gpg-agent 2>/dev/null || true
      rm -rf --one-file-system "$T"' EXIT
slow_minbase "$SUITE" "$MIRROR" "$R" libarchive13,libxxhash0
cp /etc/resolv.conf "$R/etc/resolv.conf" 2>/dev/null || true
mount -t proc proc "$R/proc"
chroot "$R" apt-get update -q >"$T/update.log" 2>&1 ||
	skip "apt-get update in the chroot failed: $(tail -3 "$T/update.log")"
# What the tools need beyond minbase, as apt-get would install it.
chroot "$R" apt-get -s -q --no-install-recommends install $TOOLS \
	>"$T/sim.log" 2>&1 || fail "apt-get -s install: $(tail -5 "$T/sim.log")"
pkgs=$(awk '/^Inst / { v = $3; gsub(/[()]/, "", v); print $2 "=" v }' "$T/sim.log")
npkgs=$(echo "$pkgs" | wc -l)
[ "$npkgs" -ge 20 ] || fail "only $npkgs packages to fetch: $(cat "$T/sim.log")"
mkdir -p "$R/tmp/src"
chroot "$R" sh -c "cd /tmp/src && apt-get download -q $(echo $pkgs)" \
	>"$T/download.log" 2>&1 || skip "apt-get download: $(tail -3 "$T/download.log")"
S=$T/src
mv "$R/tmp/src" "$S"
[ "$(ls "$S"/*.deb | wc -l)" -eq "$npkgs" ] || fail "downloaded $(ls "$S" | wc -l) of $npkgs"
umount "$R/proc"
cp -a "$R" "$R2"
ok "$npkgs real packages from the mirror ($(du -sk "$S" | cut -f1) KiB) for: $TOOLS"

# Convert, verify, index, sign, report.
export GNUPGHOME="$T/gnupg"
mkdir -m 700 "$GNUPGHOME"
gpg --batch --passphrase '' --quick-gen-key 'zdeb test <test@example.org>' \
	ed25519 sign never 2>/dev/null || fail "gpg cannot make a key"
key=$(gpg --list-keys --with-colons 2>/dev/null | awk -F: '/^fpr/ { print $10; exit }')
D=$T/repo
expect_status 0 "$ZDEB" repo plan "$S" "$D"
cat "$T/stdout" >&2
start=$(date +%s)
expect_status 0 "$ZDEB" repo run --jobs 2 "$D/.zdeb-repo/jobs.jsonl"
echo "# repo run --jobs 2: $(($(date +%s) - start)) s wall, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
[ "$(grep -c '"verdict": "converted"' "$T/stdout")" -eq "$npkgs" ] ||
	fail "not every package converted: $(grep -v '"converted"' "$T/stdout")"
PERF=${ZDEB_BUILDDIR:-$(dirname "$ZDEB")/..}/src/perf/zdeb-perf
expect_status 0 env ZDEB_PERF="$PERF" "$ZDEB" repo finish --sign "$key" \
	--perf-sample "${ZDEB_PERF_SAMPLE:-4}" --perf-runs "${ZDEB_PERF_RUNS:-1}" "$D"
sed 's/^/# /' "$T/stdout" >&2
# ZDEB_REPO_KEEP=DIR: the job list, results and report kept for reading
if [ -n "${ZDEB_REPO_KEEP:-}" ]; then
	mkdir -p "$ZDEB_REPO_KEEP"
	cp -a "$D/.zdeb-repo/jobs.jsonl" "$D/.zdeb-repo/results" \
		"$D/.zdeb-repo/perf.csv" "$ZDEB_REPO_KEEP/" 2>/dev/null || true
	cp "$T/stdout" "$ZDEB_REPO_KEEP/report.txt"
fi
grep -q "^packages: $npkgs: $npkgs converted (zstd -19 indexed), 0 kept, 0 failed, 0 not run" "$T/stdout" ||
	fail "report: $(cat "$T/stdout")"
ok "repo plan, run --jobs 2, finish --sign: $npkgs converted, none failed"

# Issue 25's scenario on real packages: the two smallest outputs, one cut
# to zero bytes (what a power loss can leave), one deleted.  finish names
# both and changes no index; the rerun redoes just those two; finish then
# lists every package with its file's Size and SHA256 (the installs below
# use this repository).
set -- $(python3 - "$D/.zdeb-repo/jobs.jsonl" <<'PY'
import json, os, sys
js = [json.loads(l) for l in open(sys.argv[1])]
js.sort(key=lambda j: os.path.getsize(os.path.join(j["dst"], j["output"])))
for j in js[:2]:
    print(j["package"], os.path.join(j["dst"], j["output"]))
PY
)
cut_pkg=$1 cut_out=$2 del_pkg=$3 del_out=$4
sums() { (cd "$D/dists" && find . -type f | sort | xargs sha256sum); }
sums >"$T/dists.before"
: >"$cut_out"
rm "$del_out"
expect_status 1 "$ZDEB" repo finish --perf-sample 0 "$D"
expect_stderr "$cut_pkg: output does not match its result: '$cut_out': 0 bytes"
expect_stderr "$del_pkg: output does not match its result: '$del_out': missing"
sums | cmp -s - "$T/dists.before" || fail "finish changed the indexes"
expect_status 0 "$ZDEB" repo run --jobs 2 "$D/.zdeb-repo/jobs.jsonl"
expect_stderr "$npkgs jobs: 2 converted, 0 kept, $((npkgs - 2)) done before, 2 redone (output did not match its result), 0 failed"
expect_status 0 "$ZDEB" repo finish --sign "$key" --perf-sample 0 "$D"
python3 - "$D" "$npkgs" <<'PY' || fail "an index stanza does not match its file"
import glob, hashlib, os, sys
d, want = sys.argv[1], int(sys.argv[2])
names = set()
for idx in glob.glob(os.path.join(d, "dists/*/*/binary-*/Packages")):
    for st in open(idx).read().strip().split("\n\n"):
        f = dict(l.split(": ", 1) for l in st.split("\n")
                 if ": " in l and not l.startswith(" "))
        b = open(os.path.join(d, f["Filename"]), "rb").read()
        assert int(f["Size"]) == len(b), (f["Filename"], f["Size"], len(b))
        assert f["SHA256"] == hashlib.sha256(b).hexdigest(), f["Filename"]
        names.add(f["Filename"])
assert len(names) == want, (len(names), want)
PY
ok "$cut_pkg cut to zero bytes, $del_pkg deleted: finish exits 1 naming both, indexes kept; the rerun redoes the two; finish indexes all $npkgs, each stanza's Size and SHA256 its file's"

# install_from_repo ROOT WHAT: the repository as ROOT's only apt source,
# then apt-get update && apt-get install of the tools.
install_from_repo() {
	mkdir -p "$1/srv" "$1/etc/apt/keyrings"
	cp -a "$D" "$1/srv/repo"
	gpg --export "$key" >"$1/etc/apt/keyrings/zdeb-test.gpg" 2>/dev/null
	rm -f "$1/etc/apt/sources.list.d/"*
	echo "deb [signed-by=/etc/apt/keyrings/zdeb-test.gpg] file:/srv/repo stable main" \
		>"$1/etc/apt/sources.list"
	mount -t proc proc "$1/proc"
	chroot "$1" apt-get update -q >"$T/u.log" 2>&1 ||
		fail "$2: apt-get update: $(tail -5 "$T/u.log")"
	grep -qi 'not signed\|NO_PUBKEY\|insecure' "$T/u.log" && fail "$2: $(cat "$T/u.log")"
	chroot "$1" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends $TOOLS >"$T/i.log" 2>&1 ||
		fail "$2: apt-get install: $(tail -15 "$T/i.log")"
	for p in $TOOLS; do
		chroot "$1" dpkg-query -W -f='${Status}\n' "$p" |
			grep -q 'install ok installed' || fail "$2: $p not installed"
	done
	chroot "$1" dpkg --verify >"$T/verify" 2>&1 ||
		fail "$2: dpkg --verify: $(head "$T/verify")"
	[ ! -s "$T/verify" ] || fail "$2: dpkg --verify: $(head "$T/verify")"
	chroot "$1" sh -c 'python3 -c "import json, sqlite3; print(json.dumps([1]))" &&
		echo "{\"a\": 2}" | jq .a && file /bin/sh && echo "2^10" | bc &&
		curl --version && zstd --version && gpg --version && rsync --version' >"$T/run.log" 2>&1 ||
		fail "$2: the tools do not run: $(cat "$T/run.log")"
	umount "$1/proc"
}

install -m 755 "$ZDEB" "$R/usr/local/bin/zdeb"
expect_status 0 "$ZDEB" integrate install --root "$R" --zdeb /usr/local/bin/zdeb
[ "$(readlink "$R/usr/bin/dpkg-deb")" = /usr/local/bin/zdeb ] ||
	fail "not integrated: $(ls -l "$R/usr/bin/dpkg-deb")"
install_from_repo "$R" "zdeb integrated"
ok "zdeb integrated: apt-get update && install $TOOLS from the file: repository; dpkg --verify clean; they run"

[ ! -L "$R2/usr/bin/dpkg-deb" ] || fail "the stock chroot has zdeb"
install_from_repo "$R2" "stock dpkg-deb"
ok "stock dpkg-deb: the same repository installs the same way (zstd indexed is one frame to it)"
