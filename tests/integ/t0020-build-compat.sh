#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# zdeb build vs stock dpkg-deb -b, for every compressor: the control and
# data tar streams are byte-identical, stock dpkg-deb reads zdeb's .deb,
# and stock dpkg installs it into a scratch root with the same tree.
. "$(dirname "$0")/lib.sh"
need dpkg-deb dpkg ar

make_tree "$T/pkg"
[ "$(id -u)" -eq 0 ] && chown -R 1:1 "$T/pkg/usr/share/doc" 2>/dev/null || true

for comp in zstd xz gzip none; do
	for rog in "" --root-owner-group; do
		tag=$comp${rog:+-rog}
		# Without the md5sums zdeb build adds and dpkg-deb does not
		# (t0430-build-metadata tests those).
		"$ZDEB" build -Z$comp $rog --no-md5sums --no-installed-size \
			"$T/pkg" "$T/zdeb-$tag.deb" ||
			fail "zdeb build -Z$comp $rog"
		dpkg-deb -Z$comp $rog -b "$T/pkg" "$T/dpkg-$tag.deb" >/dev/null ||
			fail "dpkg-deb -b -Z$comp $rog"
		for what in fsys ctrl; do
			dpkg-deb --$what-tarfile "$T/zdeb-$tag.deb" >"$T/z.tar" ||
				fail "stock dpkg-deb --$what-tarfile cannot read zdeb's $tag .deb"
			dpkg-deb --$what-tarfile "$T/dpkg-$tag.deb" >"$T/d.tar"
			cmp "$T/z.tar" "$T/d.tar" ||
				fail "$tag: --$what-tarfile differs from dpkg-deb's"
		done
		ok "$tag: control.tar and data.tar byte-identical to dpkg-deb -b"
	done
	deb=$T/zdeb-$comp-rog.deb
	ar t "$deb" | sed -n 3p | grep -qx "data.tar${comp:+.}$(
		case $comp in zstd) echo zst;; xz) echo xz;; gzip) echo gz;; esac)" ||
		[ "$comp" = none ] || fail "$comp: data member name: $(ar t "$deb")"
	dpkg-deb -I "$deb" >"$T/info" || fail "dpkg-deb -I on zdeb's $comp .deb"
	grep -q "Package: zdeb-test" "$T/info" || fail "dpkg-deb -I output"
	dpkg-deb -c "$deb" >"$T/list" || fail "dpkg-deb -c on zdeb's $comp .deb"
	grep -q './usr/bin/hello$' "$T/list" || fail "dpkg-deb -c output"
	ok "$comp: stock dpkg-deb -I and -c read zdeb's .deb"

	root=$T/root-$comp
	init_dpkg_root "$root"
	dpkg_install "$root" "$deb" >"$T/dpkg.log" 2>&1 ||
		fail "dpkg -i of zdeb's $comp .deb: $(cat "$T/dpkg.log")"
	manifest "$T/pkg" >"$T/want"
	manifest "$root" | grep -v '^\./var/lib/dpkg' >"$T/got"
	diff "$T/want" "$T/got" >&2 || fail "$comp: installed tree differs"
	grep -q '^Status: install ok installed' "$root/var/lib/dpkg/status" ||
		fail "$comp: dpkg status"
	ok "$comp: stock dpkg -i installs zdeb's .deb, tree equal to the source"
done
