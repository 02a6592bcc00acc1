#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# ZDEB_DPKG_DEB_THREADS, the installers' knob for dpkg-deb mode's decoder
# threads into a pipe (default: all cores but one for zstd): the count is
# what -D reports and what /proc shows while the reader holds the pipe
# full, --threads-max caps it, the tar is stock dpkg-deb's, and bad values
# are refused with exit status 2 and nothing on stdout.
. "$(dirname "$0")/lib.sh"
need dpkg-deb mkfifo

mkdir -p "$T/p/DEBIAN" "$T/p/usr/share/t"
printf 'Package: t\nVersion: 1\nArchitecture: all\n%s\nDescription: t\n' \
	'Maintainer: t <t@example.org>' >"$T/p/DEBIAN/control"
# 40 files of 256 KiB (segments end at file boundaries)
i=0
while [ $i -lt 40 ]; do
	seq $((i * 40000)) $((i * 40000 + 39000)) | head -c 262144 \
		>"$T/p/usr/share/t/f$i"
	i=$((i + 1))
done
"$ZDEB" build -z1 --segment-size=1M "$T/p" "$T/t.deb" >/dev/null
segs=$("$ZDEB" info "$T/t.deb" | awk '$1 == "data.tar.zst" {print $5}')
[ "$segs" -ge 8 ] || fail "only $segs segments"
ncpu=$(nproc)
want=$((ncpu > 1 ? ncpu - 1 : 1))

dbg() {	# dbg ENV... : the -D line of --fsys-tarfile into a pipe
	env "$@" "$ZDEB" dpkg-deb -D --fsys-tarfile "$T/t.deb" 2>"$T/err" |
		cat >"$T/tar"
	cmp -s "$T/tar" "$T/want" || fail "$*: the tar differs from stock"
	sed -n 's/^dpkg-deb: debug: data.tar.zst: decoder threads //p' "$T/err"
}
dpkg-deb --fsys-tarfile "$T/t.deb" >"$T/want"
[ "$(dbg)" = "$want into a pipe" ] ||
	fail "default: '$(dbg)', not $want into a pipe"
[ "$(dbg ZDEB_DPKG_DEB_THREADS=auto)" = "$want into a pipe" ] ||
	fail "auto: '$(dbg ZDEB_DPKG_DEB_THREADS=auto)'"
[ "$(dbg ZDEB_DPKG_DEB_THREADS=5)" = \
  "5 into a pipe (ZDEB_DPKG_DEB_THREADS)" ] ||
	fail "5: '$(dbg ZDEB_DPKG_DEB_THREADS=5)'"
[ "$(dbg ZDEB_DPKG_DEB_THREADS=all)" = \
  "$ncpu into a pipe (ZDEB_DPKG_DEB_THREADS)" ] ||
	fail "all: '$(dbg ZDEB_DPKG_DEB_THREADS=all)'"
[ "$(dbg ZDEB_DPKG_DEB_THREADS=5 DPKG_DEB_THREADS_MAX=3)" = \
  "3 into a pipe (ZDEB_DPKG_DEB_THREADS)" ] ||
	fail "capped: '$(dbg ZDEB_DPKG_DEB_THREADS=5 DPKG_DEB_THREADS_MAX=3)'"
ok "-D: the default ($want), auto, 5, all ($ncpu), the cap; stock's tar"

# Into a FIFO its reader does not read: the workers fill the pipe and the
# queue and wait, all alive; /proc counts them (the calling thread and one
# per worker).
threads_of() {	# threads_of N: zdeb's thread count with the knob at N
	mkfifo "$T/fifo"
	ZDEB_DPKG_DEB_THREADS=$1 "$ZDEB" dpkg-deb --fsys-tarfile "$T/t.deb" \
		>"$T/fifo" &
	pid=$!
	exec 3<"$T/fifo"
	n=0 i=0
	while [ $i -lt 100 ]; do
		n=$(awk '/^Threads:/ {print $2}' "/proc/$pid/status")
		[ "$n" -ge $(($1 + 1)) ] && break
		sleep 0.05
		i=$((i + 1))
	done
	cat <&3 >/dev/null
	exec 3<&-
	wait $pid || fail "dpkg-deb --fsys-tarfile into a FIFO failed"
	rm -f "$T/fifo"
	echo "$n"
}
[ "$(threads_of 3)" -eq 4 ] || fail "knob 3: $(threads_of 3) threads"
[ "$(threads_of 2)" -eq 3 ] || fail "knob 2: $(threads_of 2) threads"
ok "/proc: the calling thread and 3 workers with 3, 2 with 2"

for v in x 0 -1 1025 2.5 ' 3' 3k; do
	set +e
	ZDEB_DPKG_DEB_THREADS=$v "$ZDEB" dpkg-deb --fsys-tarfile "$T/t.deb" \
		>"$T/out" 2>"$T/err"
	rc=$?
	set -e
	[ $rc -eq 2 ] || fail "'$v': exit $rc"
	[ ! -s "$T/out" ] || fail "'$v': wrote to stdout"
	msg="ZDEB_DPKG_DEB_THREADS '$v' is not a thread count"
	grep -qxF "dpkg-deb: error: $msg (1 to 1024, all or auto)" \
		"$T/err" || fail "'$v': $(cat "$T/err")"
done
ok "bad values refused with exit 2, a clear message and no output"
