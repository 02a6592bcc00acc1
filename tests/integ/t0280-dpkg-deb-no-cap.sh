#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# dpkg-deb mode reads what stock dpkg-deb reads: no decoded size cap by
# default, in bounded memory.  A valid package of one 1.25 GiB file of
# zeros (about 50 KiB compressed, over the native commands' default cap of
# 1 GiB + 1024 x compressed size) streams whole through --fsys-tarfile and
# -c, as through stock dpkg-deb; ZDEB_MAX_DECODED sets a cap there.  The
# native commands refuse it unless --max-size lifts their cap.  (The 4 GiB
# package of the issue, with -x, is tests/slow/t9060.)
. "$(dirname "$0")/lib.sh"
need dpkg-deb python3 zstd ar
[ -x /usr/bin/time ] || skip "/usr/bin/time (package time) missing"

zeros_deb "$T/z.deb" 1280
size=$(((1280 << 20) + 1536))
[ "$(stat -c %s "$T/z.deb")" -lt 100000 ] || fail "not a small package"

# stock dpkg-deb, the reference
[ "$(dpkg-deb --fsys-tarfile "$T/z.deb" | wc -c)" -eq $size ] ||
	fail "stock dpkg-deb does not read $size bytes"

/usr/bin/time -v -o "$T/time" "$ZDEB" dpkg-deb --fsys-tarfile "$T/z.deb" \
	2>"$T/err" | wc -c >"$T/n"
[ "$(cat "$T/n")" -eq $size ] ||
	fail "zdeb dpkg-deb --fsys-tarfile: $(cat "$T/n") bytes: $(cat "$T/err")"
grep -q 'Exit status: 0' "$T/time" || fail "$(cat "$T/err" "$T/time")"
rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$T/time")
echo "# --fsys-tarfile: $size bytes, max RSS $rss KiB" >&2
[ "$rss" -lt 131072 ] || fail "max RSS $rss KiB for a streamed member"
ok "dpkg-deb --fsys-tarfile: all $size bytes, as stock, in $rss KiB"

dpkg-deb -c "$T/z.deb" >"$T/want"
"$ZDEB" dpkg-deb -c "$T/z.deb" >"$T/got" || fail "zdeb dpkg-deb -c failed"
cmp "$T/want" "$T/got" || fail "dpkg-deb -c differs from stock"
ok "dpkg-deb -c lists it as stock does"

# ZDEB_MAX_DECODED: a cap in dpkg-deb mode, when asked for
set +e
ZDEB_MAX_DECODED=1G "$ZDEB" dpkg-deb --fsys-tarfile "$T/z.deb" 2>"$T/err" |
	wc -c >"$T/n"
set -e
grep -q "dpkg-deb: error: .*exceeds the limit of 1073741824 bytes" "$T/err" ||
	fail "ZDEB_MAX_DECODED=1G: $(cat "$T/err")"
[ "$(cat "$T/n")" -le 1073741824 ] || fail "ZDEB_MAX_DECODED=1G: $(cat "$T/n") bytes"
expect_status 2 env ZDEB_MAX_DECODED=1G "$ZDEB" dpkg-deb -c "$T/z.deb"
expect_status 2 env ZDEB_MAX_DECODED=lots "$ZDEB" dpkg-deb -c "$T/z.deb"
expect_stderr "dpkg-deb: error: ZDEB_MAX_DECODED 'lots' is not a size"
expect_status 0 env ZDEB_MAX_DECODED=0 "$ZDEB" dpkg-deb -c "$T/z.deb"
ok "ZDEB_MAX_DECODED=1G caps dpkg-deb mode (exit 2), 0 is none, 'lots' an error"

# native commands: the library's default cap, lifted with --max-size 0
{ rc=0; "$ZDEB" cat-data "$T/z.deb" 2>"$T/err" || rc=$?; echo $rc >"$T/rc"; } |
	wc -c >/dev/null
[ "$(cat "$T/rc")" -eq 2 ] &&
	grep -q "decoded data of 'data.tar.zst' exceeds the limit of" "$T/err" ||
	fail "cat-data: exit $(cat "$T/rc"): $(cat "$T/err")"
[ "$("$ZDEB" cat-data --max-size 0 "$T/z.deb" | wc -c)" -eq $size ] ||
	fail "cat-data --max-size 0"
ok "zdeb cat-data refuses it by default, --max-size 0 reads it"
