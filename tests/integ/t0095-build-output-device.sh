#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# An output path that is a device or a FIFO is written into, never
# replaced: build, recompress and dpkg-deb -b to a character device (a
# copy of /dev/null), a FIFO and /dev/stdout give the bytes of a regular
# build, and the device is still a device, nothing left in TMPDIR.
# (Renaming the finished package over /dev/null once replaced the
# machine's /dev/null with a regular file.)
. "$(dirname "$0")/lib.sh"
need mkfifo timeout

make_tree "$T/pkg"
mkdir "$T/tmp"
export TMPDIR=$T/tmp
expect_status 0 "$ZDEB" build -z1 "$T/pkg" "$T/want.deb"

no_temp() {
	[ -z "$(ls -A "$T/tmp")" ] || fail "$1: left in TMPDIR: $(ls -A "$T/tmp")"
}

if [ "$(id -u)" -eq 0 ]; then
	mknod -m 666 "$T/null" c 1 3
	expect_status 0 "$ZDEB" build -z1 "$T/pkg" "$T/null"
	[ -c "$T/null" ] || fail "build replaced the device: $(ls -l "$T/null")"
	no_temp build
	expect_status 0 "$ZDEB" recompress -z1 "$T/want.deb" "$T/null"
	[ -c "$T/null" ] || fail "recompress replaced the device"
	no_temp recompress
	expect_status 0 "$ZDEB" dpkg-deb -Zxz -b "$T/pkg" "$T/null"
	[ -c "$T/null" ] || fail "dpkg-deb -b replaced the device"
	no_temp "dpkg-deb -b"
	# a failing build leaves the device and nothing else
	mkdir -p "$T/bad/DEBIAN"
	expect_status 2 "$ZDEB" build "$T/bad" "$T/null"
	[ -c "$T/null" ] || fail "a failed build replaced the device"
	no_temp "failed build"
	ok "build, recompress, dpkg-deb -b into a character device: still a device"
else
	echo "# not root: no device node made" >&2
fi

mkfifo "$T/fifo"
timeout 20 cat "$T/fifo" >"$T/got.deb" &
reader=$!
expect_status 0 timeout 20 "$ZDEB" build -z1 "$T/pkg" "$T/fifo"
wait $reader || fail "the FIFO's reader failed"
[ -p "$T/fifo" ] || fail "build replaced the FIFO"
cmp "$T/want.deb" "$T/got.deb" || fail "the FIFO got other bytes"
no_temp fifo
"$ZDEB" build -z1 "$T/pkg" /dev/stdout | cat >"$T/got.deb"
cmp "$T/want.deb" "$T/got.deb" || fail "/dev/stdout got other bytes"
no_temp stdout
ok "build into a FIFO and into /dev/stdout (a pipe): the bytes of a regular build"

# A symlink to a file is written through, as dpkg-deb does: the link stays
# and the file it points to gets the package.  (Renaming over the link
# would, for /dev/stdout, replace the system's /dev/stdout; a link of our
# own to /proc/self/fd/1 stands in for it here.)
echo old >"$T/real"
ln -s real "$T/link"
expect_status 0 "$ZDEB" build -z1 "$T/pkg" "$T/link"
[ -L "$T/link" ] || fail "the symlink was replaced: $(ls -l "$T/link")"
cmp "$T/want.deb" "$T/real" || fail "the symlink's target did not get the package"
ln -s /proc/self/fd/1 "$T/fd1-link"
"$ZDEB" build -z1 "$T/pkg" "$T/fd1-link" >"$T/got.deb" || fail "build to a /dev/stdout-like link"
[ -L "$T/fd1-link" ] || fail "the /proc/self/fd/1 link was replaced"
cmp "$T/want.deb" "$T/got.deb" || fail "stdout redirected to a file got other bytes"
no_temp symlink
ok "a symlink to a file (and one to /proc/self/fd/1) is written through, never replaced"
