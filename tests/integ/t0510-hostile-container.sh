#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Hostile ar containers: bad magic, bad member headers, member order,
# duplicate and missing members, an unsupported format version.  Each is
# refused with a message naming the problem, by every reading command and
# through stdin, before anything is extracted.
. "${ZDEB_SRCDIR:-$(dirname "$0")/../..}/tests/integ/lib.sh"
. "$ZDEB_SRCDIR/tests/hostile/lib.sh"
need python3 zstd xz timeout
gen_hostile container

while IFS='|' read -r c m d; do
	hostile 2 "$m" '"$ZDEB" extract -T 2 "$H/$c.deb" "$W/out"'
	[ -z "$(ls -A "$W/out" 2>/dev/null)" ] || fail "$c: something extracted"
	hostile 2 "$m" '"$ZDEB" cat-data "$H/$c.deb" >/dev/null'
	hostile 2 "$m" '"$ZDEB" verify "$H/$c.deb"'
	hostile 2 "$m" '"$ZDEB" extract - "$W/out" <"$H/$c.deb"'
	hostile 2 "$m" 'cat "$H/$c.deb" | "$ZDEB" contents -'
	# dpkg-deb mode: dpkg-deb's own words (t0210 compares them with
	# the real dpkg-deb).
	hostile 2 "$d" '"$ZDEB" dpkg-deb -x "$H/$c.deb" "$W/out"'
	ok "$c: $m"
done <<'CASES'
ar-magic|not a Debian package (bad ar magic)|is not a Debian format archive
ar-size-nondecimal|corrupt ar member header at offset 72: member 'control.tar.zst': size '12a       ' is not a decimal number|invalid character 'a' in archive
ar-size-beyond|ar member 'control.tar.zst' at offset 72: size 99999999 runs past the end of the file (524 bytes)|unexpected end of file in archive member header
ar-trailer|corrupt ar member header at offset 72: bad header trailer (expected '`\n')|is corrupt - bad archive header magic
ar-truncated-header|truncated ar member header at offset 72 (30 bytes left)|unexpected end of file in archive member header
order|member 'data.tar.zst' before 'control.tar'|has premature member 'data.tar.zst' before 'control.tar'
first-member|not a Debian binary package: first member is 'control.tar.zst', not 'debian-binary' (try dpkg-split?)|is not a Debian binary archive (try dpkg-split?)
dup-control|second control member 'control.tar.xz' at offset 338|contains two control members
missing-data|missing member 'data.tar'|unexpected end of file in archive member header
version-3|format version 3.0 is not supported (only 2.x)|archive is format version 3.0; get a newer dpkg-deb
CASES
