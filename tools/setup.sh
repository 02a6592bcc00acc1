#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tools/setup.sh - shared by tools/demo and tools/test: install missing
# build and test dependencies (from debian/control), then autoreconf,
# configure and make in _build/.  Prints progress on stderr.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

say() { printf 'setup: %s\n' "$*" >&2; }

# as root, with apt's sources read: what installing anything takes
apt_ready() {
	if [ "$(id -u)" -ne 0 ]; then
		say "not root: cannot $1; run as root"
		exit 2
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >&2
}

need_deps() {
	command -v dpkg-checkbuilddeps >/dev/null 2>&1 || return 0
	! dpkg-checkbuilddeps debian/control >/dev/null 2>&1
}

if need_deps; then
	say "installing build dependencies from debian/control"
	apt_ready "install dependencies"
	command -v dpkg-checkbuilddeps >/dev/null 2>&1 ||
		apt-get install -y -q --no-install-recommends dpkg-dev >&2
	apt-get build-dep -y -q ./ >&2
fi

# The compat tests compare zdeb's dpkg-deb mode with the system dpkg-deb,
# which must be the one zdeb answers as (src/stockdeb.h): a machine made
# with Debian 12's dpkg 1.21.22 gets its current point release.
want=$(sed -n 's/^#define ZD_DPKG_DEB_INTERFACE "\(.*\)"$/\1/p' src/stockdeb.h)
have=$(dpkg-query -W -f '${Version}' dpkg 2>/dev/null || echo 0)
if dpkg --compare-versions "$have" lt "$want"; then
	say "dpkg $have is older than $want, which zdeb answers as: upgrading"
	apt_ready "upgrade dpkg"
	apt-get install -y -q --no-install-recommends dpkg dpkg-dev \
		libdpkg-perl >&2
fi

if [ ! -x configure ] || [ configure.ac -nt configure ] ||
   [ Makefile.am -nt Makefile.in ]; then
	say "autoreconf"
	autoreconf -fi >&2
fi
mkdir -p _build
cd _build
if [ ! -f Makefile ] || [ ../configure -nt config.status ]; then
	say "configure"
	../configure -q --enable-werror >&2
fi
say "make"
make -s -j"$(nproc)" >&2
