#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# zdeb build --target RELEASE against the stock dpkg of that release, in a
# debootstrap --variant=minbase chroot of it: Debian 11 (dpkg 1.20, no
# zstd at all) installs the --target debian-11 package (xz) and refuses
# zdeb's default zstd one; Ubuntu 22.04 (dpkg 1.21.1 with Ubuntu's zstd
# support) installs the --target ubuntu-22.04 package (zstd, indexed).
# Every file is compared with the source tree.
#
# Run by "make check-slow": it needs root, debootstrap and the mirrors:
# the Debian mirror of this host's apt sources (tests/slow/lib.sh;
# ZDEB_MIRROR overrides) and an Ubuntu mirror, which a Debian host's apt
# sources do not name (ZDEB_UBUNTU_MIRROR; without it Ubuntu 22.04 is left
# out with that reason).  It downloads about 40 MB per release and takes
# 1-3 minutes.  A release whose chroot cannot be made is left out with the
# reason; with none at all the test skips (77).
. "$(dirname "$0")/../integ/lib.sh"
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root (debootstrap, chroot)"
need debootstrap chroot python3
m=$(slow_mirror) || exit 77
DEBIAN_MIRROR=${m% *}
UBUNTU_MIRROR=${ZDEB_UBUNTU_MIRROR:-}

trap 'for r in "$T"/root-*; do umount "$r/proc" 2>/dev/null || true; done
      rm -rf --one-file-system "$T"' EXIT

make_tree "$T/pkg"
manifest "$T/pkg" >"$T/want"

# chroot_for SUITE MIRROR: a minbase chroot in $T/root-SUITE, or a
# message on stdout and status 1 when it cannot be made.
chroot_for() {
	r=$T/root-$1
	python3 -c 'import sys, urllib.request
urllib.request.urlopen(sys.argv[1], timeout=20).read(1)' \
		"$2/dists/$1/Release" 2>"$T/net" ||
		{ echo "cannot fetch $2/dists/$1/Release: $(tail -1 "$T/net")"; return 1; }
	# Ubuntu's archive key is not in Debian's keyring by default.
	gpg=
	if [ "$2" = "$UBUNTU_MIRROR" ]; then
		k=/usr/share/keyrings/ubuntu-archive-keyring.gpg
		if [ -f "$k" ]; then gpg=--keyring=$k; else gpg=--no-check-gpg; fi
	fi
	debootstrap --variant=minbase $gpg "$1" "$r" "$2" \
		>"$T/debootstrap-$1.log" 2>&1 ||
		{ echo "debootstrap $1 failed: $(tail -1 "$T/debootstrap-$1.log")"; return 1; }
	mount -t proc proc "$r/proc"
}

# install_ok SUITE DEB: the chroot's own dpkg installs DEB, every entry of
# the tree is there with its mode and content, and dpkg records it.
install_ok() {
	r=$T/root-$1
	cp "$2" "$r/tmp/t.deb"
	chroot "$r" dpkg -i /tmp/t.deb >"$T/dpkg-$1.log" 2>&1 ||
		fail "$1: dpkg -i: $(tail -5 "$T/dpkg-$1.log")"
	chroot "$r" dpkg-query -W -f='${Status}\n' zdeb-test |
		grep -q 'install ok installed' || fail "$1: not installed"
	# only the tree's own paths: the rest of a chroot holds /proc, FIFOs
	cut -d' ' -f1 "$T/want" | manifest_paths "$r" >"$T/got-$1"
	diff "$T/want" "$T/got-$1" >"$T/diff" ||
		fail "$1: installed tree differs: $(head -5 "$T/diff")"
	chroot "$r" dpkg -r zdeb-test >/dev/null 2>&1 ||
		fail "$1: dpkg -r"
}
done_any=no

if why=$(chroot_for bullseye "$DEBIAN_MIRROR"); then
	done_any=yes
	chroot "$T/root-bullseye" dpkg --version | head -1 >"$T/v"
	expect_status 0 "$ZDEB" build --target debian-11 "$T/pkg" "$T/d11.deb"
	ar t "$T/d11.deb" | grep -qx 'data.tar.xz' ||
		fail "--target debian-11: $(ar t "$T/d11.deb" | tr '\n' ' ')"
	install_ok bullseye "$T/d11.deb"
	ok "Debian 11 ($(cut -d' ' -f7 "$T/v")) installs the --target debian-11 package"
	# Why the target exists: dpkg 1.20 has no zstd.
	expect_status 0 "$ZDEB" build "$T/pkg" "$T/default.deb"
	cp "$T/default.deb" "$T/root-bullseye/tmp/z.deb"
	if chroot "$T/root-bullseye" dpkg -i /tmp/z.deb >"$T/z.log" 2>&1; then
		fail "Debian 11's dpkg installed a zstd package?"
	fi
	grep -q 'zst' "$T/z.log" || fail "refusal without a word on zstd: $(cat "$T/z.log")"
	ok "Debian 11 refuses zdeb's default zstd package ($(grep -m1 zst "$T/z.log"))"
else
	echo "# Debian 11 left out: $why" >&2
fi

if [ -z "$UBUNTU_MIRROR" ]; then
	echo "# Ubuntu 22.04 left out: no Ubuntu mirror (set ZDEB_UBUNTU_MIRROR)" >&2
elif why=$(chroot_for jammy "$UBUNTU_MIRROR"); then
	done_any=yes
	chroot "$T/root-jammy" dpkg --version | head -1 >"$T/v"
	expect_status 0 "$ZDEB" build --target ubuntu-22.04 "$T/pkg" "$T/u22.deb"
	"$ZDEB" info --json "$T/u22.deb" >"$T/info.json"
	grep -q '"layout": *"indexed"' "$T/info.json" ||
		fail "--target ubuntu-22.04: not indexed zstd: $(cat "$T/info.json")"
	install_ok jammy "$T/u22.deb"
	ok "Ubuntu 22.04 ($(cut -d' ' -f7 "$T/v")) installs the --target ubuntu-22.04 package (indexed zstd)"
else
	echo "# Ubuntu 22.04 left out: $why" >&2
fi

[ $done_any = yes ] || skip "no chroot could be made (network or mirror)"
