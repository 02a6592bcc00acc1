#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Hostile tar members: nothing escapes the target directory, through
# zdeb extract, zdeb dpkg-deb -x/-R and stdin; devices, FIFOs and setuid
# bits (tests/hostile/gen.sh makes the .debs).
. "${ZDEB_SRCDIR:-$(dirname "$0")/../..}/tests/integ/lib.sh"
. "$ZDEB_SRCDIR/tests/hostile/lib.sh"
need python3 zstd timeout
gen_hostile paths

abs=/tmp/zdeb-hostile-absolute
rm -f "$abs"

# case | message
while IFS='|' read -r c m; do
	hostile 2 "$m" '"$ZDEB" extract -T 2 "$H/$c.deb" "$W/out"'
	hostile 2 "$m" '"$ZDEB" dpkg-deb -x "$H/$c.deb" "$W/out"'
	hostile 2 "$m" '"$ZDEB" dpkg-deb -R "$H/$c.deb" "$W/out"'
	[ ! -e "$abs" ] || fail "$c: $abs was created"
	ok "$c: refused: $m"
done <<'CASES'
dotdot|member '../escaped': '..' path component refused
dotdot-mid|member './a/../../escaped': '..' path component refused
absolute|member '/tmp/zdeb-hostile-absolute': absolute path refused
symlink-write|member './l/escaped': path goes through symlink 'l' (refused)
symlink-hardlink|member './h': hardlink target './l/victim' is not a regular file extracted before it
hardlink-outside|member './h': hardlink target '../victim': '..' path component refused
hardlink-later|member './h': hardlink target './usr/later' is not a regular file extracted before it
device|member './dev-null': device node refused
fifo|member './fifo': FIFO refused
CASES

# The same through stdin, from a file and from a pipe.
for c in dotdot symlink-write hardlink-outside; do
	hostile 2 "member '" '"$ZDEB" extract -T 2 - "$W/out" <"$H/$c.deb"'
	hostile 2 "member '" 'cat "$H/$c.deb" | "$ZDEB" extract -T 2 - "$W/out"'
	hostile 2 "member '" 'cat "$H/$c.deb" | "$ZDEB" dpkg-deb -x - "$W/out"'
done
ok "stdin (file and pipe): the same refusals"

# Members before the refused one are complete; nothing half-written.
hostile 2 "FIFO refused" '"$ZDEB" extract "$H/fifo.deb" "$W/out"'
[ "$(cat "$W/out/usr/ok")" = fine ] || fail "fifo: earlier member missing"
ok "members before a refusal are extracted whole"

# Devices and FIFOs when allowed (mknod needs root).
hostile 0 "" '"$ZDEB" extract --allow-devices "$H/fifo.deb" "$W/out"'
[ -p "$W/out/fifo" ] || fail "--allow-devices: no FIFO"
if [ "$(id -u)" = 0 ]; then
	hostile 0 "" '"$ZDEB" extract --allow-devices "$H/device.deb" "$W/out"'
	[ -c "$W/out/dev-null" ] || fail "--allow-devices: no device node"
fi
ok "--allow-devices creates FIFOs (and device nodes as root)"

# setuid/setgid: kept as root (ownership restored), dropped otherwise.
if [ "$(id -u)" = 0 ]; then
	hostile 0 "" '"$ZDEB" extract "$H/setuid.deb" "$W/out"'
	[ "$(stat -c %a "$W/out/usr/suid")" = 4755 ] || fail "root: setuid lost"
	[ "$(stat -c %a "$W/out/usr/sgid")" = 2755 ] || fail "root: setgid lost"
	command -v setpriv >/dev/null 2>&1 || skip "setpriv missing"
	# nobody needs to reach $T, the .deb and $ZDEB.
	chmod 0755 "$T"
	chmod -R a+rX "$H"
	asnobody='setpriv --reuid=65534 --regid=65534 --clear-groups'
	mkdir -p "$T/nobody"
	chmod 0777 "$T/nobody"
	$asnobody test -x "$ZDEB" || skip "nobody cannot run $ZDEB"
	hostile 0 "setuid/setgid bits dropped" \
		"$asnobody \"\$ZDEB\" extract \"\$H/setuid.deb\" \"$T/nobody/out\""
	[ "$(stat -c %a "$T/nobody/out/usr/suid")" = 755 ] ||
		fail "non-root: setuid kept"
	[ "$(stat -c %a "$T/nobody/out/usr/sgid")" = 755 ] ||
		fail "non-root: setgid kept"
	hostile 0 "" \
		"$asnobody \"\$ZDEB\" dpkg-deb -x \"\$H/setuid.deb\" \"$T/nobody/dd\""
	[ "$(stat -c %a "$T/nobody/dd/usr/suid")" = 755 ] ||
		fail "non-root dpkg-deb -x: setuid kept"
	ok "setuid/setgid kept as root, dropped (with a warning) as nobody"
else
	hostile 0 "setuid/setgid bits dropped" \
		'"$ZDEB" extract "$H/setuid.deb" "$W/out"'
	[ "$(stat -c %a "$W/out/usr/suid")" = 755 ] || fail "setuid kept"
	ok "setuid/setgid dropped as non-root"
fi
