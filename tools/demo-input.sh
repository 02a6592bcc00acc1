#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tools/demo-input.sh DIR - make the default demo/bench package tree: a
# copy of documentation, perl modules, man pages and locales found on every
# Debian system, 50-200 MB, with a DEBIAN/control.
set -eu
dest=$1
rm -rf "$dest"
mkdir -p "$dest/DEBIAN"
total=0
for src in /usr/share/doc /usr/share/perl5 /usr/share/perl /usr/share/man \
           /usr/share/locale /usr/share/i18n /usr/share/zoneinfo; do
	[ -d "$src" ] || continue
	size=$(du -sb "$src" | cut -f1)
	[ $((total + size)) -le 200000000 ] || continue
	mkdir -p "$dest$(dirname "$src")"
	cp -a "$src" "$dest$src"
	total=$((total + size))
	[ $total -lt 100000000 ] || break
done
cat >"$dest/DEBIAN/control" <<CTL
Package: zdeb-demo
Version: 1.0
Architecture: all
Maintainer: zdeb <zdeb@localhost>
Description: zdeb demo package
 Documentation and perl modules copied from this system.
CTL
echo "demo input: $dest, $((total / 1000000)) MB" >&2
