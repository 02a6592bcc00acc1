#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The package of issue 16: one 4 GiB file of zeros, about 140 KiB
# compressed, which stock dpkg-deb reads and zdeb's dpkg-deb mode refused
# (its decoded size cap).  zdeb dpkg-deb --fsys-tarfile streams all of it
# into a pipe and -x writes the whole file, each in bounded memory (max
# RSS from /usr/bin/time -v).
#
# Run by "make check-slow": it writes 4 GiB to $TMPDIR and moves 8 GiB
# through pipes (about a minute on a busy 2-core machine).  Skips when
# $TMPDIR has less than 5 GiB free.
. "$(dirname "$0")/../integ/lib.sh"
need dpkg-deb python3 zstd ar cmp
[ -x /usr/bin/time ] || skip "/usr/bin/time (package time) missing"
free=$(df -Pk "$T" | awk 'NR == 2 { print $4 }')
[ "$free" -gt $((5 << 20)) ] || skip "less than 5 GiB free in $T"

zeros_deb "$T/z.deb" 4096
size=$(((4096 << 20) + 1536))
echo "# the package: $(stat -c %s "$T/z.deb") bytes" >&2
[ "$(dpkg-deb --fsys-tarfile "$T/z.deb" | wc -c)" -eq $size ] ||
	fail "stock dpkg-deb does not read $size bytes"

# rss_of TIMEFILE: max RSS in KiB, after checking the exit status
rss_of() {
	grep -q 'Exit status: 0' "$1" || fail "$(cat "$T/err" "$1")"
	sed -n 's/.*Maximum resident set size (kbytes): //p' "$1"
}

/usr/bin/time -v -o "$T/time" "$ZDEB" dpkg-deb --fsys-tarfile "$T/z.deb" \
	2>"$T/err" | wc -c >"$T/n"
[ "$(cat "$T/n")" -eq $size ] || fail "--fsys-tarfile: $(cat "$T/n") bytes"
rss=$(rss_of "$T/time")
[ "$rss" -lt 131072 ] || fail "--fsys-tarfile: max RSS $rss KiB"
ok "zdeb dpkg-deb --fsys-tarfile: all $size bytes into a pipe, max RSS $rss KiB"

/usr/bin/time -v -o "$T/time" "$ZDEB" dpkg-deb -x "$T/z.deb" "$T/x" \
	2>"$T/err"
rss=$(rss_of "$T/time")
[ "$(stat -c %s "$T/x/zeros")" -eq $((4096 << 20)) ] ||
	fail "-x: ./zeros has $(stat -c %s "$T/x/zeros") bytes"
cmp -n $((4096 << 20)) "$T/x/zeros" /dev/zero || fail "-x: not zeros"
[ "$rss" -lt 131072 ] || fail "-x: max RSS $rss KiB"
ok "zdeb dpkg-deb -x: the whole 4 GiB file, max RSS $rss KiB"
