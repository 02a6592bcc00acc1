#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# dh-zdeb and zdeb-dpkg as Debian uses them, in a debootstrap
# --variant=minbase chroot with debhelper, where apt installs zdeb's own
# freshly built packages:
# - a small source package with "Build-Depends: dh-sequence-zdeb", built
#   by dpkg-buildpackage -b, has indexed zstd members that the stock dpkg
#   installs; the same package without the add-on has dpkg-deb's default
#   (xz); DH_ZDEB_OPTIONS sets the level;
# - zdeb-dpkg refuses a dpkg newer than zdeb knows (nothing diverted);
#   apt installs it, then a pzstd package that stock apt cannot install;
#   "apt-get install --reinstall" of dpkg keeps zdeb as dpkg-deb and puts
#   the new stock binary under the diverted name, and one of zdeb-dpkg
#   keeps the diversion; "apt-get purge
#   zdeb-dpkg" brings the stock dpkg-deb back and "dpkg --verify dpkg" is
#   clean.
#
# Run by "make check-slow": it needs root, debootstrap and a reachable
# Debian mirror (see tests/slow/lib.sh), builds zdeb's packages once
# (about a minute) and, the first time, debootstraps minbase with
# debhelper (about 60 MB; cached in ZDEB_SLOW_CACHE for a week).
. "$(dirname "$0")/../integ/lib.sh"
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root (debootstrap, chroot)"
need debootstrap chroot dpkg-divert
m=$(slow_mirror) || exit 77
set -- $m
MIRROR=$1 SUITE=$2
slow_probe "$MIRROR/dists/$SUITE/Release"

R=$T/chroot
trap 'umount "$R/proc" 2>/dev/null; rm -rf --one-file-system "$T"' EXIT

slow_zdeb_debs "$T/debs"
slow_minbase "$SUITE" "$MIRROR" "$R" debhelper,libarchive13
mount -t proc proc "$R/proc"
mkdir -p "$R/tmp/debs"
cp "$T"/debs/zdeb_*.deb "$T"/debs/dh-zdeb_*.deb "$T"/debs/zdeb-dpkg_*.deb \
	"$R/tmp/debs/"
chroot "$R" sh -c 'apt-get install -y -q /tmp/debs/zdeb_*.deb \
	/tmp/debs/dh-zdeb_*.deb' >"$T/apt.log" 2>&1 ||
	fail "apt install zdeb dh-zdeb: $(tail -5 "$T/apt.log")"
chroot "$R" dpkg-query -W -f='${Status}\n' zdeb dh-zdeb >"$T/st"
[ "$(grep -c 'install ok installed' "$T/st")" -eq 2 ] ||
	fail "zdeb, dh-zdeb: $(cat "$T/st")"
orig=$(sha256sum <"$R/usr/bin/dpkg-deb")
ok "minbase $SUITE with debhelper; apt installs the zdeb and dh-zdeb just built"

# A source package of a few files, with and without the add-on.
mkdir -p "$R/tmp/hello"
seq 1 50000 >"$R/tmp/hello/numbers.txt"
head -c 300000 /dev/urandom >"$R/tmp/hello/random.bin"
printf '#!/bin/sh\necho hello\n' >"$R/tmp/hello/zdeb-hello"
chmod 755 "$R/tmp/hello/zdeb-hello"
(cd "$R/tmp/hello" && mkdir debian &&
printf 'zdeb-hello (1.0) unstable; urgency=medium\n\n  * Test.\n\n -- T <t@example.org>  Thu, 01 Jan 2026 00:00:00 +0000\n' \
	>debian/changelog &&
cat >debian/control <<'EOF' &&
Source: zdeb-hello
Section: misc
Priority: optional
Maintainer: T <t@example.org>
Build-Depends: debhelper-compat (= 13), dh-sequence-zdeb
Rules-Requires-Root: no

Package: zdeb-hello
Architecture: all
Description: zdeb's dh add-on test
 A few files.
EOF
cat >debian/rules <<'EOF' &&
#!/usr/bin/make -f
%:
	dh $@
execute_after_dh_auto_build:
	command -v dpkg-deb >debian/build-dpkg-deb
ifneq ($(HELLO_PARAMS),)
override_dh_builddeb:
	dh_builddeb -- $(HELLO_PARAMS)
endif
EOF
chmod 755 debian/rules &&
printf 'numbers.txt random.bin usr/share/zdeb-hello\nzdeb-hello usr/bin\n' \
	>debian/install &&
mkdir debian/source && echo '3.0 (native)' >debian/source/format)
cp -a "$R/tmp/hello" "$R/tmp/plain"
sed -i 's/, dh-sequence-zdeb$//' "$R/tmp/plain/debian/control"
sed -i 's/^Source: zdeb-hello/Source: zdeb-plain/; s/^Package: zdeb-hello/Package: zdeb-plain/' \
	"$R/tmp/plain/debian/control"
sed -i '1s/^zdeb-hello/zdeb-plain/' "$R/tmp/plain/debian/changelog"
# build DIR [ENV...]: dpkg-buildpackage -b in the chroot, Build-Depends
# checked (dh-sequence-zdeb is dh-zdeb's Provides), build-essential not:
# the package needs no compiler and the chroot has none.
# The package's own make must echo its commands (the override's is looked
# for in the log): "make -s check-slow", as tools/test runs it, exports
# MAKEFLAGS=s, which would reach debian/rules through the chroot.
build() {
	d=$1
	shift
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
	chroot "$R" sh -c "cd /tmp/$d && env $* dpkg-buildpackage \\
		--ignore-builtin-builddeps -us -uc -b" \
		>"$T/$d.log" 2>&1 || fail "dpkg-buildpackage $d: $(tail -15 "$T/$d.log")"
}
build hello
build plain
hello=$(echo "$R"/tmp/zdeb-hello_1.0_all.deb)
plain=$(echo "$R"/tmp/zdeb-plain_1.0_all.deb)
[ -f "$hello" ] && [ -f "$plain" ] || fail "no packages: $(ls "$R/tmp")"
"$ZDEB" info --json "$hello" >"$T/info"
grep -q '"name": "data.tar.zst", [^}]*"layout": "indexed"' "$T/info" &&
	grep -q '"name": "control.tar.zst"' "$T/info" ||
	fail "with the add-on: $(cat "$T/info")"
"$ZDEB" info --json "$plain" >"$T/info"
grep -q '"name": "data.tar.xz"' "$T/info" ||
	fail "without the add-on: $(cat "$T/info")"
! dpkg-deb -c "$hello" | grep -q 'dh-zdeb\|shim' ||
	fail "the add-on left something in the package"
[ "$(cat "$R/tmp/hello/debian/build-dpkg-deb")" = /usr/bin/dpkg-deb ] ||
	fail "the build ran $(cat "$R/tmp/hello/debian/build-dpkg-deb")"
ok "dh-sequence-zdeb: data.tar.zst, indexed (the build itself ran /usr/bin/dpkg-deb); without it: data.tar.xz"

# The level: dpkg-deb's default unless DH_ZDEB_OPTIONS says otherwise.
size3=$("$ZDEB" info --json "$hello" |
	sed -n 's/.*"name": "data.tar.zst", "size": \([0-9]*\).*/\1/p')
mv "$hello" "$T/hello-default.deb"
build hello DH_ZDEB_OPTIONS=-z19
size19=$("$ZDEB" info --json "$hello" |
	sed -n 's/.*"name": "data.tar.zst", "size": \([0-9]*\).*/\1/p')
[ -n "$size3" ] && [ -n "$size19" ] || fail "sizes: '$size3' '$size19'"
[ "$size19" -ne "$size3" ] || fail "-z19 and the default: both $size3 bytes"
cmp -s "$hello" "$T/hello-default.deb" &&
	fail "DH_ZDEB_OPTIONS=-z19 gave the same package as the default"
# Byte for byte what zdeb's dpkg-deb builds from the package tree with
# -Zzstd -z3 (dpkg-deb's default zstd level) and -z19 (the builds in the
# chroot had the same SOURCE_DATE_EPOCH, tests/integ/lib.sh's).
for l in 3 19; do
	"$ZDEB" dpkg-deb --root-owner-group \
		-Zzstd -z$l -b "$R/tmp/hello/debian/zdeb-hello" "$T/z$l.deb" \
		>/dev/null
done
cmp "$T/z3.deb" "$T/hello-default.deb" ||
	fail "the default build is not zdeb dpkg-deb -Zzstd -z3"
cmp "$T/z19.deb" "$hello" ||
	fail "the DH_ZDEB_OPTIONS=-z19 build is not zdeb dpkg-deb -Zzstd -z19"
# override_dh_builddeb: dh_builddeb -- -z19 says the same.
rm "$hello"
build hello HELLO_PARAMS=-z19
cmp "$T/z19.deb" "$hello" ||
	fail "the dh_builddeb -- -z19 build is not zdeb dpkg-deb -Zzstd -z19"
grep -q 'dh_builddeb -- -z19' "$T/hello.log" ||
	fail "the override did not run: $(grep builddeb "$T/hello.log")"
ok "DH_ZDEB_OPTIONS=-z19 and dh_builddeb -- -z19: data.tar.zst $size19 bytes, default $size3; each the same bytes as zdeb dpkg-deb -Zzstd -z19 / -z3"

# Stock dpkg installs the add-on's package.
chroot "$R" apt-get install -y -q "/tmp/zdeb-hello_1.0_all.deb" \
	>"$T/apt.log" 2>&1 || fail "stock apt install: $(tail -5 "$T/apt.log")"
slow_installed_ok "$R/tmp/hello/debian/zdeb-hello" "$R" ||
	fail "installed files: $(cat "$T/bad")"
[ -x "$R/usr/bin/zdeb-hello" ] || fail "zdeb-hello not installed"
chroot "$R" dpkg --verify zdeb-hello >"$T/verify" 2>&1 && [ ! -s "$T/verify" ] ||
	fail "dpkg --verify zdeb-hello: $(cat "$T/verify")"
ok "the stock dpkg installs the add-on's package: every file, dpkg --verify clean"

# zdeb-dpkg refuses a dpkg that zdeb does not answer for: the database
# says 1.22.6 for the time of two installs.  Its Breaks (from the limit
# zdeb integrate checks) stops dpkg first; with --force-breaks the
# preinst's zdeb integrate refuses.
cp -p "$R/var/lib/dpkg/status" "$T/status"
sed -i '/^Package: dpkg$/,/^$/s/^Version: .*/Version: 1.22.6/' \
	"$R/var/lib/dpkg/status"
set +e
chroot "$R" sh -c 'dpkg -i /tmp/debs/zdeb-dpkg_*.deb' >"$T/dpkg.log" 2>&1
rc=$?
chroot "$R" sh -c 'dpkg -i --force-breaks /tmp/debs/zdeb-dpkg_*.deb' \
	>"$T/dpkg2.log" 2>&1
rc2=$?
set -e
cp -p "$T/status" "$R/var/lib/dpkg/status"
[ $rc -ne 0 ] && [ $rc2 -ne 0 ] ||
	fail "zdeb-dpkg installed over dpkg 1.22.6 (exit $rc, $rc2)"
grep -q 'zdeb-dpkg breaks dpkg (>= 1.22~)' "$T/dpkg.log" ||
	fail "no Breaks message: $(cat "$T/dpkg.log")"
grep -q 'version 1.22.6 .*newer than the newest dpkg-deb zdeb knows' \
	"$T/dpkg2.log" || fail "no preinst message: $(cat "$T/dpkg2.log")"
[ -z "$(dpkg-divert --root "$R" --list '*dpkg-deb*')" ] ||
	fail "diversion left: $(dpkg-divert --root "$R" --list)"
[ "$(sha256sum <"$R/usr/bin/dpkg-deb")" = "$orig" ] ||
	fail "dpkg-deb changed by the refused install"
ok "zdeb-dpkg refuses dpkg 1.22.6: Breaks (exit $rc), then the preinst (exit $rc2); nothing diverted"

# A pzstd package: stock apt cannot install it.
make_tree "$T/pkg"
"$ZDEB" build --layout=pzstd --segment-size=64K "$T/pkg" \
	"$R/tmp/zdeb-test.deb" 2>/dev/null
set +e
chroot "$R" apt-get install -y -q /tmp/zdeb-test.deb >"$T/apt.log" 2>&1
rc=$?
set -e
[ $rc -ne 0 ] || fail "stock apt installed the pzstd .deb?"
ok "stock apt install of a pzstd .deb fails (exit $rc)"

chroot "$R" sh -c 'apt-get install -y -q /tmp/debs/zdeb-dpkg_*.deb' \
	>"$T/apt.log" 2>&1 || fail "apt install zdeb-dpkg: $(tail -5 "$T/apt.log")"
[ "$(dpkg-divert --root "$R" --list '*dpkg-deb*')" = \
  "diversion of /usr/bin/dpkg-deb to /usr/bin/dpkg-deb.distrib by zdeb-dpkg" ] ||
	fail "diversion: $(dpkg-divert --root "$R" --list)"
[ "$(chroot "$R" readlink -f /usr/bin/dpkg-deb)" = /usr/bin/zdeb ] ||
	fail "dpkg-deb: $(ls -l "$R/usr/bin/dpkg-deb")"
# The owners' order in dpkg -S is the database's ("dpkg, zdeb-dpkg" or
# "zdeb-dpkg, dpkg"): either holds.
chroot "$R" dpkg -S /usr/bin/dpkg-deb >"$T/owner" 2>&1
grep -q '^diversion by zdeb-dpkg to: /usr/bin/dpkg-deb.distrib$' "$T/owner" &&
	grep -Eq '^([^:]*, )?zdeb-dpkg(, [^:]*)?: /usr/bin/dpkg-deb$' "$T/owner" ||
	fail "dpkg -S: $(cat "$T/owner")"
[ "$(sha256sum <"$R/usr/bin/dpkg-deb.distrib")" = "$orig" ] ||
	fail "dpkg-deb.distrib is not the stock binary"
chroot "$R" zdeb integrate status >"$T/status" ||
	fail "integrate status: $(cat "$T/status")"
grep -q '^state: active' "$T/status" || fail "status: $(cat "$T/status")"
chroot "$R" apt-get install -y -q /tmp/zdeb-test.deb >"$T/apt.log" 2>&1 ||
	fail "apt install of the pzstd .deb: $(tail -5 "$T/apt.log")"
slow_installed_ok "$T/pkg" "$R" || fail "installed files: $(cat "$T/bad")"
ok "apt installs zdeb-dpkg (dpkg-deb is zdeb, the stock one diverted), then the pzstd .deb: every file"

# Reinstalling dpkg: zdeb stays, the new stock binary is the diverted one.
if dpkgdeb=$(slow_dpkg_download "$T"); then
	cp "$dpkgdeb" "$R/tmp/"
	chroot "$R" apt-get install -y -q --reinstall --allow-downgrades \
		"/tmp/$(basename "$dpkgdeb")" >"$T/apt.log" 2>&1 ||
		fail "apt-get install --reinstall dpkg: $(tail -5 "$T/apt.log")"
	[ "$(chroot "$R" readlink -f /usr/bin/dpkg-deb)" = /usr/bin/zdeb ] ||
		fail "the dpkg reinstall replaced zdeb: $(ls -l "$R/usr/bin/dpkg-deb")"
	dpkg-deb --fsys-tarfile "$dpkgdeb" |
		tar -xOf - ./usr/bin/dpkg-deb | sha256sum >"$T/new"
	[ "$(cat "$T/new")" = "$(sha256sum <"$R/usr/bin/dpkg-deb.distrib")" ] ||
		fail "dpkg-deb.distrib is not the reinstalled dpkg's dpkg-deb"
	orig=$(cat "$T/new")
	ok "apt-get install --reinstall dpkg: zdeb stays dpkg-deb, the new stock binary is dpkg-deb.distrib"
else
	echo "# apt-get download dpkg failed: reinstall step not run" >&2
fi

# Reinstalling zdeb-dpkg itself (preinst and postrm "upgrade"): the same.
chroot "$R" sh -c 'apt-get install -y -q --reinstall /tmp/debs/zdeb-dpkg_*.deb' \
	>"$T/apt.log" 2>&1 || fail "reinstall zdeb-dpkg: $(tail -5 "$T/apt.log")"
[ "$(dpkg-divert --root "$R" --list '*dpkg-deb*')" = \
  "diversion of /usr/bin/dpkg-deb to /usr/bin/dpkg-deb.distrib by zdeb-dpkg" ] &&
	[ "$(chroot "$R" readlink -f /usr/bin/dpkg-deb)" = /usr/bin/zdeb ] &&
	[ "$(sha256sum <"$R/usr/bin/dpkg-deb.distrib")" = "$orig" ] ||
	fail "after reinstalling zdeb-dpkg: $(ls -l "$R"/usr/bin/dpkg-deb*)"
ok "apt-get install --reinstall zdeb-dpkg: the diversion and the symlink stay"

chroot "$R" apt-get purge -y -q zdeb-dpkg >"$T/apt.log" 2>&1 ||
	fail "apt-get purge zdeb-dpkg: $(tail -5 "$T/apt.log")"
[ -z "$(dpkg-divert --root "$R" --list '*dpkg-deb*')" ] ||
	fail "diversion left: $(dpkg-divert --root "$R" --list)"
[ ! -e "$R/usr/bin/dpkg-deb.distrib" ] || fail "dpkg-deb.distrib left"
slow_dpkg_clean "$R"
[ "$(sha256sum <"$R/usr/bin/dpkg-deb")" = "$orig" ] ||
	fail "dpkg-deb is not the stock binary after the purge"
ok "apt-get purge zdeb-dpkg: no diversion, the stock dpkg-deb back, dpkg --verify dpkg clean"
