#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# dpkg-deb mode reads .debs as the system dpkg-deb does: -I, -f, -W, -c,
# -x, -X, -R, -e, --ctrl-tarfile, --fsys-tarfile, from a file and from
# stdin, for packages built by stock dpkg-deb (every compressor) and by
# zdeb (indexed zstd); stdout, stderr, status and extracted trees match.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dpkg-deb-lib.sh"

make_tree "$T/pkg"
# A second control file exercising dpkg's field normalization.
make_tree "$T/pkg2" zdeb-fields
cat >"$T/pkg2/DEBIAN/control" <<'CTL'
Package: zdeb-fields
Source: zdeb-src (2:0.9-1)
Version: 0:2.5-1
Architecture: amd64
Multi-Arch: SAME
Essential: Yes
Priority: OPTIONAL
Section: utils
Maintainer: zdeb tests <tests@example.org>
Installed-Size: 12
Depends: libc6 (>=2.36),  Foo-Bar | baz:any (<<  1:3)
Pre-Depends: dpkg (>= 1.15.6~)
Recommends: x
Provides: virt (= 1.0)
Conflicts: old (<< 2)
X-Custom: some value
Description: short summary
 long text.
 .
 more.
CTL
printf '#!/usr/bin/perl -w\nprint 1;\n' >"$T/pkg2/DEBIAN/preinst"
chmod 755 "$T/pkg2/DEBIAN/preinst"
printf 'activate-noawait foo' >"$T/pkg2/DEBIAN/triggers"
rm "$T/pkg2/DEBIAN/postinst"

debs=
for comp in xz gzip zstd none; do
	dpkg-deb -Z$comp -b "$T/pkg" "$T/stock-$comp.deb" >/dev/null
	debs="$debs $T/stock-$comp.deb"
done
dpkg-deb -Zgzip -b "$T/pkg2" "$T/stock-fields.deb" >/dev/null
debs="$debs $T/stock-fields.deb"
"$ZDEB" dpkg-deb -Zzstd -b "$T/pkg" "$T/zdeb-zstd.deb" >/dev/null
"$ZDEB" dpkg-deb -Zzstd -b "$T/pkg2" "$T/zdeb-fields.deb" >/dev/null
debs="$debs $T/zdeb-zstd.deb $T/zdeb-fields.deb"
"$ZDEB" build "$T/pkg" "$T/zdeb-native.deb" >/dev/null
debs="$debs $T/zdeb-native.deb"

for deb in $debs; do
	n=$(basename "$deb")
	ddcmp /dev/null -I "$deb"
	ddcmp /dev/null --info "$deb" control
	ddcmp /dev/null -I "$deb" control conffiles
	ddcmp /dev/null -I "$deb" control nope postinst nope2
	ddcmp /dev/null -I "$deb" nope
	ddcmp /dev/null -f "$deb"
	ddcmp /dev/null -f "$deb" Package
	ddcmp /dev/null -f "$deb" version
	ddcmp /dev/null -f "$deb" Depends
	ddcmp /dev/null -f "$deb" Essential
	ddcmp /dev/null -f "$deb" No-Such-Field
	ddcmp /dev/null -f "$deb" Package Version Depends Pre-Depends \
		Provides Conflicts Essential Multi-Arch Priority Source \
		X-Custom No-Such description Status Conffiles Filename
	ddcmp /dev/null --field "$deb" x-custom binary:Package
	ddcmp /dev/null -W "$deb"
	ddcmp /dev/null --show "$deb"
	ok "$n: -I, -f, -W"
	for fmt in '${Package;-20}|${Version;12}|${Architecture}\n' \
	           '${binary:Package} ${binary:Summary}\t${Nope;8}|${Essential}\n' \
	           '${source:Package} ${source:Version} ${source:Upstream-Version}\n' \
	           '${Depends}\n${Multi-Arch};${Priority};${Protected}\\\n' \
	           '${db:Status-Abbrev}|${Status;5}|${Installed-Size;-3}|${Description;7}' \
	           'no fields at all\r\n' '${Package;0x8}.${Version;-010}.'; do
		ddcmp /dev/null -W --showformat="$fmt" "$deb"
		ddcmp /dev/null --showformat "$fmt" -W "$deb"
	done
	ok "$n: -W --showformat (widths, escapes, virtual and unknown fields)"
	ddcmp /dev/null -c "$deb"
	ddcmp /dev/null --contents "$deb"
	ddcmp /dev/null --ctrl-tarfile "$deb"
	ddcmp /dev/null --fsys-tarfile "$deb"
	ok "$n: -c, --ctrl-tarfile, --fsys-tarfile"
	ddcmp /dev/null -x "$deb" out
	ddcmp /dev/null -X "$deb" out
	ddcmp /dev/null -v --extract "$deb" out
	ddcmp /dev/null -R "$deb" out
	ddcmp /dev/null -e "$deb"
	ddcmp /dev/null --control "$deb" ctl
	ok "$n: -x, -X, -R, -e"
	ddcmp "$deb" -I -
	ddcmp "$deb" -f - Package Depends
	ddcmp "$deb" -W -
	ddcmp "$deb" -c -
	ddcmp "$deb" --fsys-tarfile -
	ddcmp "$deb" -x - out
	ddcmp "$deb" -e - ctl
	ok "$n: '-' reads the .deb from stdin"
done

# A pipe (not a regular file) on stdin: -I reports size 0, as dpkg-deb.
deb=$T/stock-xz.deb
for w in stock zdeb; do
	case $w in
	stock) cat "$deb" | dpkg-deb -I - >"$T/pipe-$w" 2>&1 ;;
	zdeb) cat "$deb" | "$ZDEB" dpkg-deb -I - >"$T/pipe-$w" 2>&1 ;;
	esac
done
cmp "$T/pipe-stock" "$T/pipe-zdeb" || fail "-I from a pipe differs"
cat "$deb" | "$ZDEB" dpkg-deb --fsys-tarfile - >"$T/z.tar"
dpkg-deb --fsys-tarfile "$deb" >"$T/d.tar"
cmp "$T/z.tar" "$T/d.tar" || fail "--fsys-tarfile from a pipe differs"
ok "'-' from a pipe"

# libarchive (and the libxml2, ICU and libstdc++ it pulls in) is loaded only
# by what reads a tar: dpkg runs --fsys-tarfile once per package.
deb=$T/stock-xz.deb
LD_DEBUG=files "$ZDEB" dpkg-deb --fsys-tarfile "$deb" >/dev/null 2>"$T/ld"
grep -q 'file=libzstd' "$T/ld" || fail "LD_DEBUG lists no library loads"
! grep -q 'file=libarchive' "$T/ld" || fail "--fsys-tarfile loads libarchive"
LD_DEBUG=files "$ZDEB" dpkg-deb --control "$deb" "$T/ctl-ld" 2>"$T/ld"
grep -q 'file=libarchive' "$T/ld" || fail "--control without libarchive?"
[ -f "$T/ctl-ld/control" ] || fail "--control extracted no control file"
ok "libarchive is loaded only to read a tar"

# The tar goes out through a 1 MiB pipe: with the default 64 KiB, zdeb and
# its reader (dpkg's tar extractor) take turns instead of running at once.
# The reader asks the size after the first byte, which comes after the
# resize.
pipe_size() {
	python3 -c 'import fcntl, sys
sys.stdin.buffer.read(1)
print(fcntl.fcntl(0, fcntl.F_GETPIPE_SZ))
sys.stdin.buffer.read()'
}
deb=$T/zdeb-native.deb
for cmd in "dpkg-deb --fsys-tarfile" "dpkg-deb --ctrl-tarfile" cat-data \
           cat-control; do
	got=$("$ZDEB" $cmd "$deb" | pipe_size)
	[ "$got" = 1048576 ] || fail "zdeb $cmd writes into a pipe of $got bytes"
done
got=$(dpkg-deb --fsys-tarfile "$deb" | pipe_size)
[ "$got" = 65536 ] || fail "a pipe starts at $got bytes, not 64 KiB"
ok "the tar is written into a 1 MiB pipe"

# Decoder threads for a tar into a pipe: all cores but one, which the
# reader (dpkg) needs, unless DPKG_DEB_THREADS_MAX or --threads-max says.
# Counted in /proc while the decoder waits on the full pipe: a package of
# 32 segments whose 6 MB outgrow the pipe.  One thread decodes
# sequentially (1 task); N threads are N workers and the main thread.
mkdir -p "$T/big/DEBIAN" "$T/big/usr/share/big"
printf 'Package: big\nVersion: 1\nArchitecture: all\nMaintainer: t <t@example.org>\nDescription: t\n' \
	>"$T/big/DEBIAN/control"
for i in $(seq 64); do
	seq $((i * 100000)) $((i * 100000 + 12000)) >"$T/big/usr/share/big/f$i"
done
"$ZDEB" build --segment-size 256K "$T/big" "$T/big.deb" >/dev/null
"$ZDEB" info --json "$T/big.deb" | grep -q '"segments": 32,' ||
	fail "big.deb: not the 32 segments the test needs"
# decoder_tasks DEB [VAR=VALUE...]
decoder_tasks() {
	deb=$1
	shift
	rm -f "$T/fifo"
	mkfifo "$T/fifo"
	env "$@" "$ZDEB" dpkg-deb --fsys-tarfile "$deb" >"$T/fifo" &
	pid=$!
	exec 3<"$T/fifo"
	head -c 1 <&3 >/dev/null
	sleep 0.5
	ls "/proc/$pid/task" | wc -l
	cat <&3 >/dev/null
	exec 3<&-
	wait "$pid" || fail "--fsys-tarfile failed ($*)"
}
n=$(nproc)
want=1
[ "$n" -le 2 ] || want=$(( (n - 1 < 32 ? n - 1 : 32) + 1 ))
got=$(decoder_tasks "$T/big.deb")
[ "$got" = "$want" ] || fail "$n cores: $got tasks decode into a pipe, not $want"
got=$(decoder_tasks "$T/big.deb" DPKG_DEB_THREADS_MAX=2)
[ "$got" = 3 ] || fail "DPKG_DEB_THREADS_MAX=2: $got tasks, not 3"
got=$(decoder_tasks "$T/big.deb" DPKG_DEB_THREADS_MAX=1)
[ "$got" = 1 ] || fail "DPKG_DEB_THREADS_MAX=1: $got tasks, not 1"
"$ZDEB" dpkg-deb --threads-max=2 --fsys-tarfile "$T/big.deb" >"$T/big.tar"
dpkg-deb --fsys-tarfile "$T/big.deb" | cmp - "$T/big.tar" ||
	fail "--threads-max=2: not stock dpkg-deb's tar"
ok "into a pipe, all cores but one decode; --threads-max caps them"

# xz is what dpkg waits for: into a pipe it keeps every core.  A data.tar.xz
# of 24 blocks (xz --block-size), which liblzma decodes on threads.
mkdir "$T/xzm"
cp "$T/big.tar" "$T/xzm/data.tar"
(
	cd "$T/xzm"
	xz -T2 --block-size=256KiB data.tar
	dpkg-deb --ctrl-tarfile "$T/big.deb" | xz >control.tar.xz
	echo 2.0 >debian-binary
	ar qcD "$T/big-xz.deb" debian-binary control.tar.xz data.tar.xz
)
one=$(decoder_tasks "$T/big-xz.deb" DPKG_DEB_THREADS_MAX=1)
got=$(decoder_tasks "$T/big-xz.deb")
[ "$got" -gt "$one" ] ||
	fail "multi-block xz into a pipe: $got tasks, as many as with one thread"
"$ZDEB" dpkg-deb --fsys-tarfile "$T/big-xz.deb" | cmp - "$T/big.tar" ||
	fail "big-xz.deb: not the tar of big.deb"
ok "into a pipe, multi-block xz decodes on every core ($got tasks, $one with one thread)"
