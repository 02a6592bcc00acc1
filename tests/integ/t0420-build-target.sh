#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# zdeb build/recompress --target RELEASE: a compressor the stock dpkg of
# the release installs (Debian 11's dpkg 1.20 has no zstd), a warning when
# an explicit -Z excludes it, the target beating DPKG_DEB_COMPRESSOR_TYPE.
. "$(dirname "$0")/lib.sh"
need ar

make_tree "$T/pkg"

# members DEB: "control.tar.X data.tar.Y"
members() { ar t "$1" | sed -n '2,3p' | tr '\n' ' ' | sed 's/ $//'; }

for t in debian-11:xz any:xz debian-12:zst debian-13:zst \
         ubuntu-22.04:zst ubuntu-24.04:zst; do
	rel=${t%:*} ext=${t#*:}
	expect_status 0 "$ZDEB" build --target=$rel "$T/pkg" "$T/$rel.deb"
	[ ! -s "$T/stderr" ] || fail "$rel: unexpected output: $(cat "$T/stderr")"
	[ "$(members "$T/$rel.deb")" = "control.tar.$ext data.tar.$ext" ] ||
		fail "$rel: members $(members "$T/$rel.deb")"
done
ok "--target picks xz for debian-11 and any, zstd for the others"

expect_status 0 "$ZDEB" build --target debian-11 -Zzstd "$T/pkg" "$T/w.deb"
expect_stderr "warning: -Z zstd: the stock dpkg of target debian-11"
expect_stderr "uses unknown compression for member 'control.tar.zst'"
[ "$(members "$T/w.deb")" = "control.tar.zst data.tar.zst" ] ||
	fail "explicit -Z must win: $(members "$T/w.deb")"
expect_status 0 "$ZDEB" build --target debian-11 -Zgzip "$T/pkg" "$T/g.deb"
[ ! -s "$T/stderr" ] || fail "-Zgzip warned: $(cat "$T/stderr")"
ok "--target debian-11 -Zzstd warns and keeps zstd; -Zgzip is quiet"

expect_status 0 env DPKG_DEB_COMPRESSOR_TYPE=gzip "$ZDEB" build \
	"$T/pkg" "$T/e0.deb"
[ "$(members "$T/e0.deb")" = "control.tar.gz data.tar.gz" ] ||
	fail "DPKG_DEB_COMPRESSOR_TYPE ignored: $(members "$T/e0.deb")"
expect_status 0 env DPKG_DEB_COMPRESSOR_TYPE=zstd "$ZDEB" build \
	--target debian-11 "$T/pkg" "$T/e.deb"
[ "$(members "$T/e.deb")" = "control.tar.xz data.tar.xz" ] ||
	fail "env beat --target: $(members "$T/e.deb")"
ok "--target beats DPKG_DEB_COMPRESSOR_TYPE"

expect_status 2 "$ZDEB" build --target debian-9 "$T/pkg" "$T/x.deb"
expect_stderr "unknown target 'debian-9'"
[ ! -e "$T/x.deb" ] || fail "output written on a usage error"
ok "unknown target: exit 2"

expect_status 0 "$ZDEB" recompress --target debian-11 "$T/debian-12.deb" \
	"$T/re.deb"
[ "$(members "$T/re.deb")" = "control.tar.xz data.tar.xz" ] ||
	fail "recompress: $(members "$T/re.deb")"
"$ZDEB" cat-data "$T/debian-12.deb" >"$T/a.tar"
"$ZDEB" cat-data "$T/re.deb" >"$T/b.tar"
cmp "$T/a.tar" "$T/b.tar" || fail "recompress changed the data tar"
ok "recompress --target debian-11: xz, same tar bytes"

if command -v dpkg-deb >/dev/null 2>&1; then
	dpkg-deb --fsys-tarfile "$T/debian-11.deb" | cmp - "$T/a.tar" ||
		fail "stock dpkg-deb reads the debian-11 .deb differently"
	ok "stock dpkg-deb reads the --target debian-11 .deb"
fi
