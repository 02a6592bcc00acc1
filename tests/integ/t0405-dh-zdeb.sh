#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The dh add-on from the source tree (dh/, as zdeb's own debian/rules
# loads it): "dh binary --with zdeb" on a one-file package builds indexed
# zstd with DH_ZDEB's zdeb, the bytes of zdeb dpkg-deb -Zzstd (-z19 with
# DH_ZDEB_OPTIONS), while the build's own dpkg-deb stays the system's; an
# override_dh_builddeb's "-- -Zxz" wins; nothing of the add-on lands in
# the tree or the package.  The chroot test t9070 does it with the
# installed dh-zdeb and dpkg-buildpackage.
. "$(dirname "$0")/lib.sh"
need dh dpkg-deb
: "${ZDEB_SRCDIR:?ZDEB_SRCDIR must point to the source tree}"
dpkg-checkbuilddeps -d 'debhelper-compat (= 13)' /dev/null 2>/dev/null ||
	skip "debhelper 13 not installed"

P=$T/hello
mkdir -p "$P/debian"
seq 1 20000 >"$P/numbers.txt"
printf 'zdeb-hello (1.0) unstable; urgency=medium\n\n  * Test.\n\n -- T <t@example.org>  Thu, 01 Jan 2026 00:00:00 +0000\n' \
	>"$P/debian/changelog"
cat >"$P/debian/control" <<'EOF'
Source: zdeb-hello
Maintainer: T <t@example.org>
Build-Depends: debhelper-compat (= 13)
Rules-Requires-Root: no

Package: zdeb-hello
Architecture: all
Description: zdeb's dh add-on test
 One file.
EOF
cat >"$P/debian/rules" <<'EOF'
#!/usr/bin/make -f
%:
	dh $@ --with zdeb
execute_after_dh_auto_build:
	command -v dpkg-deb >debian/build-dpkg-deb
ifneq ($(HELLO_PARAMS),)
override_dh_builddeb:
	dh_builddeb -- $(HELLO_PARAMS)
endif
EOF
chmod 755 "$P/debian/rules"
echo 'numbers.txt usr/share/zdeb-hello' >"$P/debian/install"
export PERL5LIB="$ZDEB_SRCDIR/dh/perl5" DH_ZDEB="$ZDEB"
# binary [VAR=VALUE...]: debian/rules binary, the .deb moved to $T/out.deb
binary() {
	(cd "$P" && env "$@" ./debian/rules binary) >"$T/build.log" 2>&1 ||
		fail "debian/rules binary $*: $(tail -10 "$T/build.log")"
	mv "$T/zdeb-hello_1.0_all.deb" "$T/out.deb"
}

binary
"$ZDEB" info --json "$T/out.deb" >"$T/info"
grep -q '"name": "control.tar.zst"' "$T/info" &&
	grep -q '"name": "data.tar.zst", [^}]*"layout": "indexed"' "$T/info" ||
	fail "info: $(cat "$T/info")"
"$ZDEB" dpkg-deb --root-owner-group -Zzstd -b "$P/debian/zdeb-hello" \
	"$T/want.deb" >/dev/null
cmp "$T/want.deb" "$T/out.deb" || fail "not zdeb dpkg-deb -Zzstd's bytes"
[ "$(cat "$P/debian/build-dpkg-deb")" = "$(command -v dpkg-deb)" ] ||
	fail "the build ran $(cat "$P/debian/build-dpkg-deb")"
dpkg-deb -c "$T/out.deb" | grep -q 'dh-zdeb\|shim' &&
	fail "the add-on is in the package"
(cd "$P" && find . -name '*shim*' -o -name 'dh-zdeb' | grep .) &&
	fail "the add-on left files in the tree"
ok "dh --with zdeb: indexed zstd, zdeb dpkg-deb -Zzstd's bytes; the build kept /usr/bin/dpkg-deb"

binary DH_ZDEB_OPTIONS=-z19
"$ZDEB" dpkg-deb --root-owner-group -Zzstd -z19 -b "$P/debian/zdeb-hello" \
	"$T/want.deb" >/dev/null
cmp "$T/want.deb" "$T/out.deb" || fail "DH_ZDEB_OPTIONS=-z19: other bytes"
binary HELLO_PARAMS=-Zxz
"$ZDEB" info --json "$T/out.deb" >"$T/info"
grep -q '"name": "data.tar.xz"' "$T/info" || fail "-- -Zxz: $(cat "$T/info")"
dpkg-deb --root-owner-group -Zxz -b "$P/debian/zdeb-hello" "$T/want.deb" \
	>/dev/null
cmp "$T/want.deb" "$T/out.deb" || fail "-- -Zxz: not dpkg-deb -Zxz's bytes"
ok "DH_ZDEB_OPTIONS=-z19 gives -z19's bytes; dh_builddeb -- -Zxz gives dpkg-deb -Zxz's"
