#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# zdeb integrate in a real Debian system: in a debootstrap --variant=minbase
# chroot, apt installs a pzstd-layout .deb only after 'zdeb integrate
# install' (stock dpkg-deb cannot decode it), a reinstall of dpkg keeps
# zdeb in place (the new dpkg-deb goes to the diverted name), and 'zdeb
# integrate remove' leaves 'dpkg --verify dpkg' clean; 'zdeb verify
# --dpkg-deb' there runs the diverted stock binary.
#
# Run by "make check-slow", not "make check": it needs root, debootstrap
# and a reachable Debian mirror (the one of this host's apt sources, see
# tests/slow/lib.sh; ZDEB_MIRROR and ZDEB_SUITE override), downloads
# about 40 MB and takes 1-3 minutes.  It skips (exit 77) with the reason
# when any of that is missing.
. "$(dirname "$0")/../integ/lib.sh"
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root (debootstrap, chroot)"
need debootstrap chroot dpkg-divert
m=$(slow_mirror) || exit 77
set -- $m
MIRROR=$1 SUITE=$2
slow_probe "$MIRROR/dists/$SUITE/Release"

R=$T/chroot
# Never let the cleanup run into a mounted /proc.
trap 'umount "$R/proc" 2>/dev/null; rm -rf --one-file-system "$T"' EXIT

slow_minbase "$SUITE" "$MIRROR" "$R" libarchive13,libxxhash0
mount -t proc proc "$R/proc"

# zdeb inside the chroot: the binary built here, with the system's libs.
install -m 755 "$ZDEB" "$R/usr/local/bin/zdeb"
chroot "$R" /usr/local/bin/zdeb --version >"$T/v" 2>&1 ||
	skip "this zdeb does not run in the $SUITE chroot: $(cat "$T/v")"
orig=$(sha256sum <"$R/usr/bin/dpkg-deb")
ok "minbase $SUITE chroot with zdeb in /usr/local/bin"

make_tree "$T/pkg"
"$ZDEB" build --layout=pzstd --segment-size=64K "$T/pkg" \
	"$R/tmp/zdeb-test.deb" 2>/dev/null

# Stock: apt (through dpkg, through dpkg-deb) cannot install it.
set +e
chroot "$R" apt-get install -y -q /tmp/zdeb-test.deb >"$T/apt.log" 2>&1
rc=$?
set -e
[ $rc -ne 0 ] || fail "stock apt installed the pzstd .deb?"
chroot "$R" dpkg-query -W -f='${Status}\n' zdeb-test 2>/dev/null |
	grep -q 'install ok installed' && fail "stock dpkg marked it installed"
ok "stock apt install of the pzstd .deb fails (exit $rc: $(grep -m1 -E 'tar|error' "$T/apt.log"))"

# Frames packages made to end a frame on a member boundary: a file ending
# at data.tar offset 1 MiB (apt fails, nothing of it installed), and a
# control.tar whose md5sums ends at 4 KiB (one frame: apt installs it
# whole and runs the postinst).
make_mib_tree "$T/mib" zdeb-mib
"$ZDEB" build -Zzstd -z3 --layout=frames --segment-size=1M "$T/mib" \
	"$R/tmp/zdeb-mib.deb" 2>/dev/null
set +e
chroot "$R" apt-get install -y -q /tmp/zdeb-mib.deb >"$T/apt.log" 2>&1
rc=$?
set -e
[ $rc -ne 0 ] || fail "stock apt installed the frames .deb cut at 1 MiB"
chroot "$R" dpkg-query -W -f='${Status}\n' zdeb-mib 2>/dev/null |
	grep -q 'ok installed' && fail "stock dpkg marked zdeb-mib installed"
[ ! -e "$R/usr/share/p/a.txt" ] || fail "a.txt of zdeb-mib left installed"
frames_control "$T/ctl" zdeb-ctl 44
mkdir -p "$T/ctl/usr/share/zdeb-ctl"
echo small >"$T/ctl/usr/share/zdeb-ctl/file"
"$ZDEB" build -Zzstd --layout=frames --segment-size=4K "$T/ctl" \
	"$R/tmp/zdeb-ctl.deb" 2>/dev/null
chroot "$R" apt-get install -y -q /tmp/zdeb-ctl.deb >"$T/apt.log" 2>&1 ||
	fail "stock apt install of zdeb-ctl: $(tail -5 "$T/apt.log")"
[ -e "$R/postinst-zdeb-ctl-ran" ] || fail "zdeb-ctl: the postinst did not run"
chroot "$R" dpkg --verify zdeb-ctl >"$T/verify" 2>&1 &&
	[ -s "$R/var/lib/dpkg/info/zdeb-ctl.md5sums" ] ||
	fail "zdeb-ctl: dpkg --verify or md5sums: $(cat "$T/verify")"
chroot "$R" dpkg --purge zdeb-ctl >/dev/null 2>&1
ok "stock apt: the frames .deb cut at 1 MiB fails (exit $rc), the one with md5sums at 4 KiB installs whole"

expect_status 0 "$ZDEB" integrate install --root "$R" --zdeb /usr/local/bin/zdeb
[ "$(readlink "$R/usr/bin/dpkg-deb")" = /usr/local/bin/zdeb ] ||
	fail "symlink: $(ls -l "$R/usr/bin/dpkg-deb")"
chroot "$R" zdeb integrate status >"$T/status" ||
	fail "status in the chroot: $(cat "$T/status")"
grep -q '^state: active' "$T/status" || fail "status: $(cat "$T/status")"
ok "zdeb integrate install --root; status inside the chroot: active"

# verify --dpkg-deb picks the diverted stock binary, not the symlink to zdeb
"$ZDEB" build "$T/pkg" "$R/tmp/zdeb-indexed.deb"
chroot "$R" zdeb verify --dpkg-deb /tmp/zdeb-indexed.deb >"$T/v" 2>&1 ||
	fail "verify --dpkg-deb of an indexed .deb: $(cat "$T/v")"
set +e
chroot "$R" zdeb verify --dpkg-deb /tmp/zdeb-test.deb >"$T/v" 2>&1
rc=$?
set -e
[ $rc -eq 1 ] && grep -q "'/usr/bin/dpkg-deb.distrib --fsys-tarfile'" "$T/v" ||
	fail "verify --dpkg-deb of the pzstd .deb: exit $rc: $(cat "$T/v")"
ok "zdeb verify --dpkg-deb in the chroot runs dpkg-deb.distrib: indexed ok, pzstd exit 1"

chroot "$R" apt-get install -y -q /tmp/zdeb-test.deb >"$T/apt.log" 2>&1 ||
	fail "apt install with zdeb integrated: $(tail -5 "$T/apt.log")"
chroot "$R" dpkg-query -W -f='${Status}\n' zdeb-test |
	grep -q 'install ok installed' || fail "not installed"
slow_installed_ok "$T/pkg" "$R" || fail "installed files differ: $(cat "$T/bad")"
ok "apt install of the pzstd .deb with zdeb as dpkg-deb: every file, same hashes"

# A reinstall of dpkg: the new dpkg-deb lands on the diverted name.
if dpkgdeb=$(slow_dpkg_download "$T"); then
	cp "$dpkgdeb" "$R/tmp/dpkg.deb"
	chroot "$R" dpkg -i /tmp/dpkg.deb >"$T/dpkg.log" 2>&1 ||
		fail "dpkg -i dpkg.deb: $(tail -5 "$T/dpkg.log")"
	[ "$(readlink "$R/usr/bin/dpkg-deb")" = /usr/local/bin/zdeb ] ||
		fail "dpkg reinstall replaced zdeb's symlink"
	[ -f "$R/usr/bin/dpkg-deb.distrib" ] && [ ! -L "$R/usr/bin/dpkg-deb.distrib" ] ||
		fail "no dpkg-deb.distrib after the reinstall"
	ok "reinstalling dpkg keeps zdeb as dpkg-deb"
else
	echo "# apt-get download dpkg failed: reinstall step not run" >&2
fi

expect_status 0 "$ZDEB" integrate remove --root "$R"
[ -z "$(dpkg-divert --root "$R" --list '*dpkg-deb*')" ] ||
	fail "diversion left"
slow_dpkg_clean "$R"
if [ ! -e "$T/dpkg.log" ]; then
	[ "$(sha256sum <"$R/usr/bin/dpkg-deb")" = "$orig" ] ||
		fail "dpkg-deb not restored byte-identical"
fi
ok "zdeb integrate remove: no diversion, dpkg --verify dpkg clean"
