#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# cat-data and dpkg-deb --fsys-tarfile on several threads write the same
# bytes into every kind of output: a regular file (out of order, at the
# pieces' offsets), one shared with other writers, one opened for
# appending, a pipe, /dev/null.  Into a pipe: a slow reader, one that
# splices the pipe's pages on and reads them long after the pipe drained
# (a writer that reused pages the pipe still held would show here), and
# one that stops early (the error and status of a write).  A damaged frame
# checksum over correct bytes: stock dpkg-deb refuses it, so does zdeb
# verify.
. "$(dirname "$0")/lib.sh"
need dpkg-deb ar grep dd tar head python3

make_tree "$T/pkg"
# a few MB of files, so that the data member has several segments
find /usr/share/doc /usr/share/perl5 -type f -size -200k 2>/dev/null |
	sort | head -n 3000 >"$T/list"
tar -cf - -T "$T/list" 2>/dev/null | tar -xf - -C "$T/pkg" 2>/dev/null || :
"$ZDEB" build -Zzstd -z3 --segment-size=256K "$T/pkg" "$T/p.deb" \
	>/dev/null 2>&1 || fail "build"
"$ZDEB" info --json "$T/p.deb" | grep -q '"data.tar.zst".*"layout": "indexed", "segments": [1-9][0-9]' ||
	fail "expected an indexed member of 10 or more segments: $("$ZDEB" info --json "$T/p.deb")"
dpkg-deb --fsys-tarfile "$T/p.deb" >"$T/ref.tar"

for t in 1 2 3; do
	"$ZDEB" cat-data -T$t "$T/p.deb" >"$T/out.tar"
	cmp "$T/ref.tar" "$T/out.tar" || fail "-T$t into a file"
	{ printf head; "$ZDEB" cat-data -T$t "$T/p.deb"; printf tail; } \
		>"$T/shared"
	{ printf head; cat "$T/ref.tar"; printf tail; } >"$T/want"
	cmp "$T/want" "$T/shared" || fail "-T$t into a file shared with others"
	printf head >"$T/app"
	"$ZDEB" cat-data -T$t "$T/p.deb" >>"$T/app"
	printf head | cat - "$T/ref.tar" | cmp - "$T/app" ||
		fail "-T$t appended to a file"
	"$ZDEB" cat-data -T$t "$T/p.deb" | cat >"$T/piped"
	cmp "$T/ref.tar" "$T/piped" || fail "-T$t into a pipe"
	"$ZDEB" cat-data -T$t "$T/p.deb" >/dev/null || fail "-T$t /dev/null"
	{ printf head; DPKG_DEB_THREADS_MAX=$t "$ZDEB" dpkg-deb \
		--fsys-tarfile "$T/p.deb"; } >"$T/dd"
	printf head | cat - "$T/ref.tar" | cmp - "$T/dd" ||
		fail "dpkg-deb --fsys-tarfile, $t threads, into a shared file"
done
ok "the same bytes into a file, a shared one, an appended one, a pipe"

# -T2 into a pipe: a reader that starts late and reads 4 KiB at a time
"$ZDEB" cat-data -T2 "$T/p.deb" | { sleep 1; dd bs=4k status=none; } \
	>"$T/slow" || fail "-T2 into a slow reader"
cmp "$T/ref.tar" "$T/slow" || fail "-T2 into a slow reader: other bytes"
# a reader that moves the pipe's pages into a pipe of its own (splice:
# no copy) and reads them from there only once that is full, 1 MiB: pages
# handed to the pipe and then written again would show here
cat >"$T/splicer.py" <<'EOF2'
import fcntl, os, select, sys, time
r, w = os.pipe()
fcntl.fcntl(w, fcntl.F_SETPIPE_SZ, 1 << 20)
os.set_blocking(w, False)	# a full pipe of ours: EAGAIN, then read it
with open(sys.argv[1], "wb") as out:
    held = 0
    while True:
        try:
            n = os.splice(0, w, 1 << 16)
        except BlockingIOError:
            n = -1
        if n == 0:
            break
        if n > 0:
            held += n
        elif held > 0:
            time.sleep(0.05)
            while held > 0:
                b = os.read(r, held)
                out.write(b)
                held -= len(b)
        else:
            select.select([0], [], [])
    while held > 0:
        b = os.read(r, held)
        out.write(b)
        held -= len(b)
EOF2
"$ZDEB" cat-data -T2 "$T/p.deb" | python3 "$T/splicer.py" "$T/spliced" ||
	fail "-T2 into a splicing reader"
cmp "$T/ref.tar" "$T/spliced" || fail "-T2 into a splicing reader: other bytes"
# a reader that stops early: the write's error, status 2, on any path
for t in 1 2; do
	{ st=0; "$ZDEB" cat-data -T$t "$T/p.deb" 2>"$T/err" || st=$?
	  echo $st >"$T/st"; } | head -c 300000 >/dev/null
	[ "$(cat "$T/st")" = 2 ] ||
		fail "-T$t into a reader that stopped: status $(cat "$T/st")"
	grep -q "write failed: Broken pipe" "$T/err" ||
		fail "-T$t into a reader that stopped: $(cat "$T/err")"
done
ok "-T2 into a pipe: a slow reader, a splicing one, one that stops (EPIPE)"

# the frame checksum: the 4 bytes before the index frame (magic 5b2a4d18)
mkdir "$T/x"
(cd "$T/x" && ar x ../p.deb)
at=$(LC_ALL=C grep -obUaP '\x5b\x2a\x4d\x18' "$T/x/data.tar.zst" | tail -1 |
     cut -d: -f1)
[ -n "$at" ] || fail "no index frame found"
b=$(dd if="$T/x/data.tar.zst" bs=1 skip=$((at - 2)) count=1 2>/dev/null |
    od -An -tu1 | tr -d ' ')
printf "$(printf '\\%03o' $((b ^ 1)))" |
	dd of="$T/x/data.tar.zst" bs=1 seek=$((at - 2)) conv=notrunc 2>/dev/null
(cd "$T/x" && ar rc ../bad.deb debian-binary control.tar.* data.tar.zst)
if dpkg-deb --fsys-tarfile "$T/bad.deb" >/dev/null 2>&1; then
	fail "stock dpkg-deb read a damaged frame checksum"
fi
expect_status 1 "$ZDEB" verify "$T/bad.deb"
expect_stderr "checksum mismatch"
expect_status 2 "$ZDEB" cat-data -T1 "$T/bad.deb"
expect_stderr "checksum mismatch"
# on several threads each segment is checked against its index hash: the
# bytes are right, and written
"$ZDEB" cat-data -T2 "$T/bad.deb" >"$T/out.tar" || fail "cat-data -T2"
cmp "$T/ref.tar" "$T/out.tar" || fail "-T2, damaged frame checksum"
ok "a damaged frame checksum: verify and one thread refuse it, as dpkg-deb"
