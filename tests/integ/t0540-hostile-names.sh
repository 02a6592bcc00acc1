#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Names and link targets one byte longer than GNU tar takes (4096 bytes,
# PATH_MAX with its NUL): refused with the member, the length and the
# limit, exit 2, nothing made for that member, never cut to fit (a
# 4097-byte name used to extract as usr/bin/foobarb).  GNU tar is the
# reference: it refuses the same members and extracts the 4095-byte ones,
# which zdeb extracts to the same tree; stock dpkg-deb -x (GNU tar) fails
# on the same inputs.  Owner and group names of 100 bytes are listed
# whole, as tar -tv and dpkg-deb -c list them.
. "${ZDEB_SRCDIR:-$(dirname "$0")/../..}/tests/integ/lib.sh"
. "$ZDEB_SRCDIR/tests/hostile/lib.sh"
need python3 zstd tar timeout dpkg-deb
gen_hostile names
export TZ=UTC

# case | message
while IFS='|' read -r c m; do
	hostile 2 "$m" '"$ZDEB" extract -T 2 "$H/names-$c.deb" "$W/out"'
	[ "$(cat "$W/out/usr/ok")" = fine ] || fail "$c: the member before is missing"
	[ -z "$(ls "$W/out/usr/bin")" ] ||
		fail "$c: made something of the refused member: $(ls "$W/out/usr/bin")"
	hostile 2 "$m" '"$ZDEB" dpkg-deb -x "$H/names-$c.deb" "$W/out"'
	hostile 2 "$m" '"$ZDEB" dpkg-deb -X "$H/names-$c.deb" "$W/out"'
	hostile 2 "$m" 'cat "$H/names-$c.deb" | "$ZDEB" extract - "$W/out"'
	# the reference: GNU tar, and stock dpkg-deb -x through it
	mkdir -p "$T/gnu"
	set +e
	tar -xf "$H/names-$c.tar" -C "$T/gnu" 2>"$T/tar.err"
	rc=$?
	dpkg-deb -x "$H/names-$c.deb" "$T/stock" 2>/dev/null
	src=$?
	set -e
	[ $rc -eq 2 ] && grep -q 'File name too long' "$T/tar.err" ||
		fail "$c: GNU tar: exit $rc, $(cut -c1-200 "$T/tar.err")"
	[ $src -eq 2 ] || fail "$c: stock dpkg-deb -x exit $src"
	rm -rf "$T/gnu" "$T/stock"
	ok "$c: refused as GNU tar refuses it: $m"
done <<'CASES'
name-4097|member name too long (4097 bytes, the limit is 4095): '././././
name-4096|member name too long (4096 bytes, the limit is 4095)
symlink-4096|member './usr/bin/s': symlink target too long (4096 bytes, the limit is 4095)
hardlink-4096|member './usr/bin/h': hardlink target too long (4096 bytes, the limit is 4095)
CASES

# One byte shorter: extracted, the same tree as GNU tar's.
for c in name-4095 symlink-4095 hardlink-4095; do
	hostile 0 "" '"$ZDEB" extract "$H/names-$c.deb" "$W/out"'
	mkdir -p "$T/gnu"
	tar -xf "$H/names-$c.tar" -C "$T/gnu" || fail "$c: GNU tar refuses it"
	manifest "$T/gnu" >"$T/want"
	manifest "$W/out" >"$T/got"
	diff "$T/want" "$T/got" >&2 || fail "$c: zdeb's tree differs from GNU tar's"
	[ "$(wc -l <"$T/got")" -eq 4 ] || fail "$c: $(cat "$T/got")"
	rm -rf "$T/gnu"
	ok "$c: extracted as GNU tar does"
done

# Listings never cut a name: 100-byte owner and group (pax), 4097-byte
# member name, as GNU tar -tv and stock dpkg-deb -c print them.
for c in owner-100 name-4097; do
	tar -tvf "$H/names-$c.tar" >"$T/want"
	grep -q 'uuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuu/u\|foobarbaz' \
		"$T/want" || fail "$c: not in the sample: $(cat "$T/want")"
	dpkg-deb -c "$H/names-$c.deb" | cmp - "$T/want" ||
		fail "$c: stock dpkg-deb -c differs from tar -tv"
	"$ZDEB" contents "$H/names-$c.deb" | cmp - "$T/want" ||
		fail "$c: zdeb contents differs from tar -tv"
	"$ZDEB" dpkg-deb -c "$H/names-$c.deb" | cmp - "$T/want" ||
		fail "$c: zdeb dpkg-deb -c differs from tar -tv"
done
ok "listings: 100-byte owner and group, 4097-byte names printed whole, as tar -tv"
