#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Progress: build and recompress say how far they are on stderr when it is
# a terminal (script(1) gives them one), erase the line when done, and say
# nothing when it is not.
. "$(dirname "$0")/lib.sh"
need script

make_tree "$T/pkg"
# about 40 MB of data: more than two progress steps (every 16 MB)
head -c 40000000 /dev/zero >"$T/pkg/usr/share/empty/zeros"
rm -f "$T/pkg/DEBIAN/md5sums"

tty_run() {
	script -qec "$1" /dev/null >"$T/tty" 2>&1 </dev/null ||
		fail "under a terminal: '$1' failed: $(cat "$T/tty")"
}

tty_run "'$ZDEB' build -z1 '$T/pkg' '$T/p.deb'"
[ "$(tr '\r' '\n' <"$T/tty" | grep -c '^zdeb: data.tar ([0-9.]* MB)')" -ge 2 ] ||
	fail "build progress: $(od -c "$T/tty" | head)"
tail -c 4 "$T/tty" | od -An -c | grep -q '\\r 033   \[   K' ||
	fail "build progress line not erased: $(tail -c 40 "$T/tty" | od -c)"
expect_status 0 "$ZDEB" build -z1 "$T/pkg" "$T/q.deb"
[ ! -s "$T/stderr" ] || fail "build wrote to a non-terminal stderr: $(cat "$T/stderr")"
cmp "$T/p.deb" "$T/q.deb" || fail "progress changed the package"
ok "build: progress on a terminal, erased at the end; silent otherwise"

tty_run "'$ZDEB' recompress -Zxz -z0 '$T/p.deb' '$T/r.deb'"
grep -q 'zdeb: recompressing control.tar' "$T/tty" || fail "recompress progress: $(od -c "$T/tty" | head)"
[ "$(tr '\r' '\n' <"$T/tty" | grep -c '^zdeb: recompressing data.tar ([0-9.]* MB)')" -ge 2 ] ||
	fail "recompress progress: $(od -c "$T/tty" | head)"
tail -c 4 "$T/tty" | od -An -c | grep -q '\\r 033   \[   K' ||
	fail "recompress progress line not erased: $(tail -c 40 "$T/tty" | od -c)"
expect_status 0 "$ZDEB" recompress -Zxz -z0 "$T/p.deb" "$T/s.deb"
[ ! -s "$T/stderr" ] || fail "recompress wrote to a non-terminal stderr: $(cat "$T/stderr")"
cmp "$T/r.deb" "$T/s.deb" || fail "progress changed the package"
ok "recompress: progress per member on a terminal, erased; silent otherwise"
