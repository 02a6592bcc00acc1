#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t0320-perf-fs.sh - zdeb-perf install's scratch file systems: --fs ext4
# (a fresh image per run, its mkfs and mount recorded), --fs tmpfs, --fs
# DIR (the page cache dropped before each hot run); and that no mount, no
# loop device and no work directory is left behind: after a good run, a
# failed one, and when interrupted by SIGINT (Ctrl-C) or SIGTERM; and
# that after a SIGKILL, when no cleanup runs, no loop device stays attached
# once the mount it leaves is gone (or when it was killed before mounting).
. "${ZDEB_SRCDIR:-$(dirname "$0")/../..}/tests/integ/lib.sh"

need dpkg dpkg-deb python3 tar mount umount losetup mkfs.ext4 findmnt
PERF=${ZDEB_PERF:-${ZDEB_BUILDDIR:-$(dirname "$ZDEB")/..}/src/perf/zdeb-perf}
[ -x "$PERF" ] || skip "zdeb-perf not built ($PERF)"
[ "$(id -u)" -eq 0 ] || skip "--fs ext4 and tmpfs need root"
[ -w /proc/sys/vm/drop_caches ] || skip "cannot drop caches"

# nothing_left WHAT: no mount and no loop device under $T, and $T/tmp
# (zdeb-perf's TMPDIR) empty.
nothing_left() {
	if grep -qF " $T/" /proc/self/mountinfo; then
		fail "$1: left mounted: $(grep -F " $T/" /proc/self/mountinfo)"
	fi
	if losetup -a | grep -qF "$T/"; then
		fail "$1: loop device left: $(losetup -a | grep -F "$T/")"
	fi
	[ -z "$(ls -A "$T/tmp")" ] || fail "$1: left in TMPDIR: $(ls -A "$T/tmp")"
}

mkdir "$T/tmp"
make_tree "$T/tree" perf-fs
# one FS [ARGS]: a short run on file system FS, JSON in $T/FS.json.
one() {
	fs=$1; shift
	TMPDIR=$T/tmp expect_status 0 "$PERF" install --allow-loaded --runs 2 \
		--fs "$fs" --variants none --backends stock --modes unsafe-io \
		--json "$T/$(basename "$fs").json" "$@" "$T/tree"
}

one ext4
python3 - "$T/ext4.json" <<'PY' || fail "ext4: $(cat "$T/stdout")"
import json, sys
m = json.load(open(sys.argv[1]))["machine"]
fs = m["fs"]
assert fs["kind"] == "ext4" and m["filesystem"] == "ext4", m
assert fs["mkfs"].startswith("mkfs.ext4 ") and "IMAGE" in fs["mkfs"], fs
assert fs["loop"] == ("mount -o loop (autoclear; buffered: direct "
                      "I/O off)"), fs
assert fs["image_bytes"] >= 64 << 20, fs
assert m["mount_source"].startswith("/dev/loop"), m
assert m["mount_options"].startswith("rw"), m
PY
grep -q 'scratch: a fresh ext4 per run (mkfs.ext4 ' "$T/stdout" ||
	fail "table lacks the scratch line: $(cat "$T/stdout")"
nothing_left "--fs ext4"
ok "--fs ext4: a fresh ext4 image per run, mkfs and mount recorded"

one tmpfs
python3 - "$T/tmpfs.json" <<'PY' || fail "tmpfs: $(cat "$T/stdout")"
import json, sys
m = json.load(open(sys.argv[1]))["machine"]
assert m["fs"]["kind"] == "tmpfs" and m["filesystem"] == "tmpfs", m
assert all(r["status"] == "ok" for r in
           json.load(open(sys.argv[1]))["runs"])
PY
nothing_left "--fs tmpfs"
ok "--fs tmpfs: a fresh tmpfs per run"

mkdir "$T/dir"
one "$T/dir"
python3 - "$T/dir.json" "$T/dir" <<'PY' || fail "dir: $(cat "$T/stdout")"
import json, sys
m = json.load(open(sys.argv[1]))["machine"]
assert m["fs"]["kind"] == "dir", m
assert "drop caches" in m["fs"]["before_hot_runs"], m["fs"]
assert m["scratch"] == sys.argv[2], m["scratch"]
PY
[ -z "$(ls -A "$T/dir")" ] || fail "--fs DIR: left in DIR: $(ls -A "$T/dir")"
nothing_left "--fs DIR"
ok "--fs DIR: caches dropped before hot runs, the root removed after"

TMPDIR=$T/tmp expect_status 2 "$PERF" install --fs "$T/nonexistent" \
	--variants none "$T/tree"
expect_stderr "not a directory"
nothing_left "--fs on a missing directory"
# A failure after the runs: the JSON file cannot be written.
TMPDIR=$T/tmp expect_status 2 "$PERF" install --allow-loaded --runs 1 \
	--variants none --backends stock --modes unsafe-io \
	--json "$T/nonexistent/r.json" "$T/tree"
expect_stderr "zdeb-perf: error: No such file or directory '$T/nonexistent/r.json'"
nothing_left "a failed run"
ok "a failing run leaves nothing mounted, and says why"

# Interrupted while a run is mounted: SIGINT as from Ctrl-C (a background
# job starts with SIGINT ignored, so it is restored first) and SIGTERM.
for sig in INT TERM; do
	TMPDIR=$T/tmp python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execv(sys.argv[1], sys.argv[1:])' "$PERF" install --allow-loaded \
		--runs 200 \
		--variants none --backends stock --modes unsafe-io "$T/tree" \
		>"$T/sig.out" 2>"$T/sig.err" &
	pid=$!
	n=0
	until grep -qF " $T/tmp/" /proc/self/mountinfo; do
		n=$((n + 1))
		[ $n -lt 600 ] || { kill -KILL $pid; fail "SIG$sig: never mounted"; }
		sleep 0.1
	done
	kill -"$sig" $pid
	set +e
	wait $pid
	st=$?
	set -e
	case $sig in INT) want=130 ;; TERM) want=143 ;; esac
	[ $st -eq $want ] || fail "SIG$sig: exit $st, expected $want: $(cat "$T/sig.err")"
	grep -q 'zdeb-perf: interrupted' "$T/sig.err" ||
		fail "SIG$sig: no message: $(cat "$T/sig.err")"
	nothing_left "SIG$sig"
	ok "SIG$sig during a run: exit $want, nothing left mounted"
done

# Killed by SIGKILL, no cleanup runs: what a SIGKILL cannot help leaving
# is the mount (and the work directory), but the loop device must not
# outlive the mount (mount -o loop attaches it with the autoclear flag,
# so the kernel detaches it when the file system goes) nor be left
# attached when the mount was never made.
# no_loop_left WHAT: unmounts what the killed zdeb-perf left under
# $T/tmp (retried while the dpkg it started still holds it), then no loop
# device may stay on an image there; $T/tmp emptied for the next case.
no_loop_left() {
	for m in $(awk -v p="$T/tmp/" 'index($5, p) == 1 { print $5 }' \
			/proc/self/mountinfo); do
		n=0
		until umount "$m" 2>/dev/null; do
			n=$((n + 1))
			[ $n -lt 100 ] || fail "$1: cannot unmount $m"
			sleep 0.1
		done
	done
	n=0
	while losetup -a | grep -qF "$T/tmp/"; do
		n=$((n + 1))
		if [ $n -ge 50 ]; then
			left=$(losetup -a | grep -F "$T/tmp/")
			for d in $(losetup -a | grep -F "$T/tmp/" | cut -d: -f1); do
				losetup -d "$d" || :
			done
			fail "$1: loop device left attached: $left"
		fi
		sleep 0.1
	done
	rm -rf "$T/tmp"/*
}

# SIGKILL while a run is mounted.
TMPDIR=$T/tmp "$PERF" install --allow-loaded --runs 200 --variants none \
	--backends stock --modes unsafe-io "$T/tree" >"$T/kill.out" 2>&1 &
pid=$!
n=0
until grep -qF " $T/tmp/" /proc/self/mountinfo; do
	n=$((n + 1))
	[ $n -lt 600 ] || { kill -KILL $pid; fail "SIGKILL: never mounted"; }
	sleep 0.1
done
kill -KILL $pid
wait $pid || :
no_loop_left "SIGKILL during a run"
ok "SIGKILL during a run: once its mount is gone no loop device is left"

# SIGKILL after the image is made, before it is mounted: a mount(8) in
# front of the real one kills zdeb-perf (its parent) when asked to mount
# the ext4.
mkdir "$T/shim"
realmount=$(command -v mount)
cat >"$T/shim/mount" <<SH
#!/bin/sh
case " \$* " in *" ext4 "*) kill -KILL \$PPID; exit 1 ;; esac
exec $realmount "\$@"
SH
chmod +x "$T/shim/mount"
set +e
PATH=$T/shim:$PATH TMPDIR=$T/tmp "$PERF" install --allow-loaded --runs 1 \
	--variants none --backends stock --modes unsafe-io "$T/tree" \
	>"$T/kill.out" 2>&1
st=$?
set -e
[ $st -eq 137 ] ||
	fail "SIGKILL before the mount: exit $st: $(cat "$T/kill.out")"
no_loop_left "SIGKILL before the mount"
ok "SIGKILL between mkfs and mount: no loop device left"
