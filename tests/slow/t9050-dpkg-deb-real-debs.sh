#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Real Debian packages (apt-get download less sed tzdata): dpkg-deb mode
# gives the system dpkg-deb's -I, -f, -W, -c, --ctrl-tarfile and
# --fsys-tarfile output.  Needs the network: skips when the archive cannot
# be reached.
. "$(dirname "$0")/../integ/lib.sh"
. "$(dirname "$0")/../integ/dpkg-deb-lib.sh"
need apt-get timeout

(cd "$T" && timeout 120 apt-get download less sed tzdata) >"$T/apt.log" 2>&1 ||
	skip "cannot download packages with apt-get: $(tail -n 1 "$T/apt.log")"
set -- "$T"/*.deb
[ -f "$1" ] || skip "apt-get download gave no .deb"

for deb in "$@"; do
	n=$(basename "$deb")
	ddcmp /dev/null -I "$deb"
	ddcmp /dev/null -I "$deb" control md5sums
	ddcmp /dev/null -f "$deb"
	ddcmp /dev/null -f "$deb" Package
	ddcmp /dev/null -f "$deb" Package Version Depends Pre-Depends \
		Provides Breaks Replaces Priority Section Multi-Arch Essential
	ddcmp /dev/null -W "$deb"
	ddcmp /dev/null -W --showformat='${binary:Package};${source:Package};${source:Version};${binary:Summary}\n' "$deb"
	ddcmp /dev/null -c "$deb"
	ddcmp /dev/null --ctrl-tarfile "$deb"
	ddcmp /dev/null --fsys-tarfile "$deb"
	ddcmp "$deb" -I -
	ok "$n: -I, -f, -W, -c, --ctrl-tarfile, --fsys-tarfile"
done
