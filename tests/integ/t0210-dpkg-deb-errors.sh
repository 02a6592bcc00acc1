#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# dpkg-deb mode fails as the system dpkg-deb does: usage errors (no action,
# two actions, unknown options, bad values), missing files, files that are
# not .debs, truncated .debs, bad --showformat strings, and control files
# dpkg-deb parses with warnings or errors (zdeb parses them itself: see
# also t0270).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dpkg-deb-lib.sh"

make_tree "$T/pkg"
deb=$T/p.deb
dpkg-deb -b "$T/pkg" "$deb" >/dev/null

ddcmp /dev/null
ddcmp /dev/null -v
# --version is the text of the dpkg-deb zdeb answers as
# (ZD_DPKG_DEB_INTERFACE), answered by zdeb itself (ZDEB_HANDOFF=never).
ddcmp /dev/null --version
ddcmp /dev/null "$deb"
ddcmp /dev/null "$deb" -I
ddcmp /dev/null -c -I "$deb"
ddcmp /dev/null --fsys-tarfile -c "$deb"
ddcmp /dev/null -I --ctrl-tarfile "$deb"
ddcmp /dev/null -x -X "$deb" out
ddcmp /dev/null -y "$deb"
ddcmp /dev/null -cy "$deb"
ddcmp /dev/null --foo "$deb"
ddcmp /dev/null --info=x "$deb"
ddcmp /dev/null -c= "$deb"
ddcmp /dev/null -Z
ddcmp /dev/null --showformat
ddcmp /dev/null --threads-max
ddcmp /dev/null -Zfoo -c "$deb"
ddcmp /dev/null -Zbzip2 -c "$deb"
ddcmp /dev/null -Z lzma -c "$deb"
ddcmp /dev/null -z10 -c "$deb"
ddcmp /dev/null -Zzstd -z23 -c "$deb"
ddcmp /dev/null -Zzstd -z 22 -c "$deb"
ddcmp /dev/null -z-1 -c "$deb"
ddcmp /dev/null -zfoo -c "$deb"
ddcmp /dev/null -Sfoo -c "$deb"
ddcmp /dev/null -Sextreme -Zgzip -c "$deb"
ddcmp /dev/null -Sextreme -c "$deb"
ddcmp /dev/null --threads-max=x -c "$deb"
ddcmp /dev/null --threads-max=-1 -c "$deb"
ddcmp /dev/null --deb-format=3 -c "$deb"
ddcmp /dev/null --deb-format=1.0 -c "$deb"
ddcmp /dev/null -- -c "$deb"
ok "usage errors: no action, conflicting actions, bad options and values"

DPKG_DEB_COMPRESSOR_TYPE=foo ddcmp /dev/null -c "$deb"
DPKG_DEB_COMPRESSOR_TYPE=gzip DPKG_DEB_COMPRESSOR_LEVEL=12 ddcmp /dev/null -c "$deb"
DPKG_DEB_COMPRESSOR_LEVEL=foo DPKG_DEB_THREADS_MAX=bar ddcmp /dev/null -c "$deb"
DPKG_DEB_COMPRESSOR_TYPE=foo ddcmp /dev/null -Zxz -c "$deb"
ok "environment: DPKG_DEB_COMPRESSOR_TYPE, _LEVEL, DPKG_DEB_THREADS_MAX"

for a in -c -I -f -W -e -x -X -R --ctrl-tarfile --fsys-tarfile; do
	ddcmp /dev/null $a
done
ddcmp /dev/null -c "$deb" extra
ddcmp /dev/null --fsys-tarfile "$deb" extra
ddcmp /dev/null -e "$deb" d extra
ddcmp /dev/null -x "$deb"
ddcmp /dev/null -x "$deb" d extra
ddcmp /dev/null -R - d
ok "missing and extra arguments"

: >"$T/empty"
head -c 100 "$deb" >"$T/short"
head -c 3000 "$deb" >"$T/trunc"
printf '!<arch>\nfoo' >"$T/badar"
for f in /nonexistent "$T" /etc/passwd "$T/empty" "$T/short" "$T/badar"; do
	for a in -I -c -f -W -e --fsys-tarfile; do
		ddcmp /dev/null $a "$f"
	done
done
ddcmp /dev/null -I "$T/trunc"
ddcmp /dev/null -f "$T/trunc" Package
ddcmp /etc/passwd -I -
ddcmp "$T/empty" -c -
ok "missing file, directory, not a .deb, truncated"

for fmt in '${Package' '${Package;x}' '${Package;12' '' '${Package;99999999999}'; do
	ddcmp /dev/null -W --showformat="$fmt" "$deb"
done
ok "--showformat errors"

# Control files that dpkg-deb parses with warnings or errors.
make_tree "$T/bad"
echo 'Depends: foo [amd64]' >>"$T/bad/DEBIAN/control"
echo 'Optional: bar' >>"$T/bad/DEBIAN/control"
dpkg-deb --nocheck -b "$T/bad" "$T/bad.deb" >/dev/null 2>&1
ddcmp /dev/null -W "$T/bad.deb"
ddcmp /dev/null -f "$T/bad.deb" Depends Suggests
ddcmp "$T/bad.deb" -f - Package
make_tree "$T/bad2"
sed -i '/^Maintainer/d; s/^Version: .*/Version: 1.0-/' "$T/bad2/DEBIAN/control"
dpkg-deb --nocheck -b "$T/bad2" "$T/bad2.deb" >/dev/null 2>&1
ddcmp /dev/null -W "$T/bad2.deb"
ddcmp /dev/null -I "$T/bad2.deb"
ok "control files dpkg-deb rejects or warns about"
