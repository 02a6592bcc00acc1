#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# zdeb build and recompress are durable writers: into a full file system
# (a small tmpfs: ENOSPC) and under ulimit -f (EFBIG), with a file already
# at the target, they exit 2 with a clear message, the old file stays
# byte-identical and no temporary is left; extract fails the same way
# with exit 2; SIGKILL at random moments never leaves a partial package at
# the target, only a temporary with a recognisable name that the next
# build removes; strace (when there) shows the output fsynced before its
# rename and its directory fsynced after.  Prints how many faults it
# tried and how many held.
. "$(dirname "$0")/lib.sh"
need dpkg-deb mount umount

tried=0 held=0
# held WHAT: one more fault that held
held() { tried=$((tried + 1)); held=$((held + 1)); ok "$1"; }

d=$T/tree
mkdir -p "$d/DEBIAN" "$d/usr/share/t"
printf 'Package: t\nVersion: 1\nArchitecture: all\nMaintainer: t <t@example.org>\nDescription: t\n' \
	>"$d/DEBIAN/control"
# 2 MB that no compressor shrinks, and text that -z 19 takes a while over
head -c 2000000 /dev/urandom >"$d/usr/share/t/random"
seq 1 400000 >"$d/usr/share/t/numbers"
"$ZDEB" build -z 1 "$d" "$T/in.deb" || fail "build of the input"

M=$T/mnt
mkdir -p "$M"
mount -t tmpfs -o size=1m tmpfs "$M" 2>/dev/null || skip "cannot mount a tmpfs (not root?)"
trap 'umount "$M" 2>/dev/null; rm -rf "$T"' EXIT

echo "the package that was here" >"$M/old.deb"
cp "$M/old.deb" "$T/old.ref"
# left DIR: temporaries of zdeb's writers left in DIR
left() { find "$1" -name '*.zdeb-*' | wc -l; }

# ENOSPC
expect_status 2 "$ZDEB" build -z 1 "$d" "$M/old.deb"
expect_stderr "No space left on device"
expect_stderr "old.deb"
cmp -s "$M/old.deb" "$T/old.ref" && [ "$(left "$M")" -eq 0 ] ||
	fail "build ENOSPC: old file changed or temporary left: $(ls -a "$M")"
held "build into a full file system: exit 2, ENOSPC named, old file kept, no temporary"
expect_status 2 "$ZDEB" recompress -Zzstd -z 1 "$T/in.deb" "$M/old.deb"
expect_stderr "No space left on device"
cmp -s "$M/old.deb" "$T/old.ref" && [ "$(left "$M")" -eq 0 ] ||
	fail "recompress ENOSPC: old file changed or temporary left: $(ls -a "$M")"
held "recompress into a full file system: exit 2, ENOSPC named, old file kept, no temporary"
# whole DIR: every file extract left in DIR is whole (as in $T/full)
"$ZDEB" extract "$T/in.deb" "$T/full" || fail "extract of the input"
whole() {
	(cd "$1" && find . -type f) | while read -r f; do
		cmp -s "$1/$f" "$T/full/$f" || echo "$f"
	done
}
expect_status 2 "$ZDEB" extract "$T/in.deb" "$M/x"
expect_stderr "No space left on device"
[ -z "$(whole "$M/x")" ] || fail "extract ENOSPC left a part of $(whole "$M/x")"
held "extract into a full file system: exit 2, ENOSPC named, no file cut short"
rm -rf "$M/x"

# EFBIG: ulimit -f in 512-byte blocks (POSIX sh), 1 MB
cp "$T/old.ref" "$T/old.deb"
expect_status 2 sh -c 'ulimit -f 2048 && exec "$@"' sh "$ZDEB" build -z 1 "$d" "$T/old.deb"
expect_stderr "File too large"
cmp -s "$T/old.deb" "$T/old.ref" && [ "$(left "$T")" -eq 0 ] ||
	fail "build EFBIG: old file changed or temporary left"
held "build under ulimit -f: exit 2, EFBIG named, old file kept, no temporary"
expect_status 2 sh -c 'ulimit -f 2048 && exec "$@"' sh "$ZDEB" recompress -Znone "$T/in.deb" "$T/old.deb"
expect_stderr "File too large"
cmp -s "$T/old.deb" "$T/old.ref" && [ "$(left "$T")" -eq 0 ] ||
	fail "recompress EFBIG: old file changed or temporary left"
held "recompress under ulimit -f: exit 2, EFBIG named, old file kept, no temporary"
expect_status 2 sh -c 'ulimit -f 2048 && exec "$@"' sh "$ZDEB" extract "$T/in.deb" "$T/x"
expect_stderr "File too large"
[ -z "$(whole "$T/x")" ] || fail "extract EFBIG left a part of $(whole "$T/x")"
held "extract under ulimit -f: exit 2, EFBIG named, no file cut short"

# SIGKILL at random moments: the target is the old file or a whole
# package, never a part of one.
kills=0
for i in 1 2 3 4 5 6; do
	ms=$(python3 -c 'import random; print(random.randint(20, 900))' 2>/dev/null ||
		echo $((i * 120)))
	"$ZDEB" build -z 19 -T 1 "$d" "$T/old.deb" 2>/dev/null &
	pid=$!
	sleep "$(printf '0.%03d' "$ms")"
	kill -9 "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	if cmp -s "$T/old.deb" "$T/old.ref"; then
		:
	elif dpkg-deb --fsys-tarfile "$T/old.deb" >/dev/null 2>&1; then
		cp "$T/old.ref" "$T/old.deb"	# it finished: start again
	else
		fail "SIGKILL after $ms ms left a partial package at the target"
	fi
	kills=$((kills + 1))
	tried=$((tried + 1)) held=$((held + 1))
done
n=$(left "$T")
ok "$kills SIGKILLs at random moments: the target was the old file or a whole package each time ($n temporaries left)"
expect_status 0 "$ZDEB" build -z 1 "$d" "$T/old.deb"
[ "$(left "$T")" -eq 0 ] || fail "the next build left $(left "$T") temporaries"
dpkg-deb --fsys-tarfile "$T/old.deb" >/dev/null || fail "the next build's package"
held "the next build removes the temporaries the killed ones left (named TARGET.zdeb-XXXXXX)"

# strace: fsync of the temporary, its rename, fsync of the directory
if command -v strace >/dev/null 2>&1; then
	# LeakSanitizer cannot run under ptrace (make check-asan)
	ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" \
	strace -f -y -e trace=fsync,rename,renameat,renameat2 -o "$T/trace" \
		"$ZDEB" build -z 1 "$d" "$T/s.deb" || fail "build under strace"
	python3 - "$T/trace" "$T" <<'PY' || fail "strace: $(cat "$T/trace")"
import re, sys
t = open(sys.argv[1]).read().splitlines()
d = sys.argv[2]
i = [k for k, l in enumerate(t) if re.search(r'fsync\(\d+<' + re.escape(d) + r'/s\.deb\.zdeb-\w{6}>\)\s+= 0', l)]
r = [k for k, l in enumerate(t) if re.search(r'rename.*"' + re.escape(d) + r'/s\.deb\.zdeb-\w{6}", .*"' + re.escape(d) + r'/s\.deb"\)\s+= 0', l)
     or re.search(r'rename.*s\.deb\.zdeb-\w{6}", .*s\.deb"\)\s+= 0', l)]
s = [k for k, l in enumerate(t) if re.search(r'fsync\(\d+<' + re.escape(d) + r'>\)\s+= 0', l)]
assert i and r and s and i[0] < r[0] < s[-1], (i, r, s)
PY
	held "strace: the temporary fsynced, renamed, then its directory fsynced"
else
	echo "# SKIP strace part: strace is not installed"
fi

echo "# faults tried: $tried, held: $held"
[ "$held" -eq "$tried" ] || fail "$((tried - held)) faults did not hold"
ok "faults tried: $tried, held: $held"
