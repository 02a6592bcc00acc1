#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# zdeb integrate install/status/remove --root on a scratch root holding a
# copy of the system dpkg-deb: the diversion, the symlink, a byte-identical
# restore, the refusals (newer dpkg-deb, foreign diversion, a file that
# is not ours), and --package as the zdeb-dpkg package's scripts use it.
. "$(dirname "$0")/lib.sh"
need dpkg-divert dpkg-query
[ -x /usr/bin/dpkg-deb ] || skip "no /usr/bin/dpkg-deb"

R=$T/root
init_dpkg_root "$R"
mkdir -p "$R/usr/bin"
cp -p /usr/bin/dpkg-deb "$R/usr/bin/dpkg-deb"
sum=$(sha256sum <"$R/usr/bin/dpkg-deb")
self=$(readlink -f "$ZDEB")
line="diversion of /usr/bin/dpkg-deb to /usr/bin/dpkg-deb.distrib by zdeb"

expect_status 0 "$ZDEB" integrate status --root "$R"
grep -qx "state: inactive" "$T/stdout" || fail "status: $(cat "$T/stdout")"
grep -qx "diversion: none" "$T/stdout" || fail "status: $(cat "$T/stdout")"
ok "status before install: inactive"

expect_status 0 "$ZDEB" integrate install --root "$R"
[ "$(dpkg-divert --root "$R" --list)" = "$line" ] ||
	fail "diversions: $(dpkg-divert --root "$R" --list)"
[ -L "$R/usr/bin/dpkg-deb" ] || fail "dpkg-deb is not a symlink"
[ "$(readlink "$R/usr/bin/dpkg-deb")" = "$self" ] ||
	fail "symlink target $(readlink "$R/usr/bin/dpkg-deb"), want $self"
[ "$(sha256sum <"$R/usr/bin/dpkg-deb.distrib")" = "$sum" ] ||
	fail "dpkg-deb.distrib is not the original"
ok "install: diversion by zdeb, symlink to zdeb, original as .distrib"

expect_status 0 "$ZDEB" integrate install --root "$R"
expect_stderr "already integrated"
[ "$(dpkg-divert --root "$R" --list)" = "$line" ] || fail "second install"
ok "install again: nothing changes"

expect_status 0 "$ZDEB" integrate status --root "$R"
grep -q "^state: active" "$T/stdout" || fail "status: $(cat "$T/stdout")"
grep -qx "/usr/bin/dpkg-deb: symlink to $self" "$T/stdout" ||
	fail "status: $(cat "$T/stdout")"
ver=$(dpkg-deb --version | sed -n '1s/.* version \([^ ]*\) .*/\1/p')
grep -qx "real dpkg-deb: /usr/bin/dpkg-deb.distrib, version $ver" \
	"$T/stdout" || fail "status: $(cat "$T/stdout")"
ok "status: active, symlink and versions shown"

expect_status 0 "$ZDEB" integrate remove --root "$R"
[ -z "$(dpkg-divert --root "$R" --list)" ] ||
	fail "diversion left: $(dpkg-divert --root "$R" --list)"
[ ! -L "$R/usr/bin/dpkg-deb" ] && [ ! -e "$R/usr/bin/dpkg-deb.distrib" ] ||
	fail "remove left $(ls -l "$R/usr/bin")"
[ "$(sha256sum <"$R/usr/bin/dpkg-deb")" = "$sum" ] ||
	fail "restored dpkg-deb differs from the original"
cmp /usr/bin/dpkg-deb "$R/usr/bin/dpkg-deb" || fail "not byte-identical"
expect_status 0 "$ZDEB" integrate status --root "$R"
grep -qx "state: inactive" "$T/stdout" || fail "status: $(cat "$T/stdout")"
expect_status 0 "$ZDEB" integrate remove --root "$R"
expect_stderr "not integrated"
ok "remove: no diversion, original restored byte-identical; again: no-op"

# A dpkg-deb newer than zdeb knows: refused, nothing changed; --force.
R2=$T/newer
init_dpkg_root "$R2"
mkdir -p "$R2/usr/bin"
printf '#!/bin/sh\necho "Debian '\''dpkg-deb'\'' package archive backend version 1.22.0 (amd64)."\n' \
	>"$R2/usr/bin/dpkg-deb"
chmod 755 "$R2/usr/bin/dpkg-deb"
expect_status 2 "$ZDEB" integrate install --root "$R2"
expect_stderr "version 1.22.0"
expect_stderr "newer than the newest dpkg-deb zdeb knows"
[ -z "$(dpkg-divert --root "$R2" --list)" ] && [ ! -L "$R2/usr/bin/dpkg-deb" ] ||
	fail "refused install changed the root"
expect_status 0 "$ZDEB" integrate install --force --root "$R2"
expect_stderr "--force"
expect_status 0 "$ZDEB" integrate remove --root "$R2"
ok "dpkg-deb 1.22.0: refused; --force integrates"

# The version from the dpkg database wins (dpkg-query --admindir).
cat >"$R2/var/lib/dpkg/status" <<'ST'
Package: dpkg
Status: install ok installed
Priority: required
Section: admin
Maintainer: x <x@example.org>
Architecture: amd64
Version: 2.0.1
Description: x
ST
sed -i 's/1\.22\.0/1.21.22/' "$R2/usr/bin/dpkg-deb"
expect_status 2 "$ZDEB" integrate install --root "$R2"
expect_stderr "version 2.0.1 (from dpkg-query)"
ok "dpkg 2.0.1 in the root's database: refused"

# Diverted by another package: refused.
R3=$T/other
init_dpkg_root "$R3"
mkdir -p "$R3/usr/bin"
cp /usr/bin/dpkg-deb "$R3/usr/bin/dpkg-deb"
dpkg-divert --root "$R3" --rename --add --package other \
	--divert /usr/bin/dpkg-deb.other /usr/bin/dpkg-deb >/dev/null
expect_status 2 "$ZDEB" integrate install --root "$R3"
expect_stderr "already diverted to '/usr/bin/dpkg-deb.other' by 'other'"
expect_status 2 "$ZDEB" integrate remove --root "$R3"
expect_stderr "not by zdeb"
ok "diversion by another package: install and remove refuse"

# remove refuses when /usr/bin/dpkg-deb is no longer our symlink.
R4=$T/replaced
init_dpkg_root "$R4"
mkdir -p "$R4/usr/bin"
cp /usr/bin/dpkg-deb "$R4/usr/bin/dpkg-deb"
expect_status 0 "$ZDEB" integrate install --root "$R4"
rm "$R4/usr/bin/dpkg-deb"
echo other >"$R4/usr/bin/dpkg-deb"
expect_status 2 "$ZDEB" integrate remove --root "$R4"
expect_stderr "not zdeb's symlink"
expect_status 1 "$ZDEB" integrate status --root "$R4"
grep -q "^state: inconsistent" "$T/stdout" || fail "status: $(cat "$T/stdout")"
ok "remove refuses a dpkg-deb that is not zdeb's; status says inconsistent"

# --package (the zdeb-dpkg package's maintainer scripts): a local
# integration is taken over, plain install and remove then defer to the
# package, status counts it active, and remove --package restores dpkg-deb.
R5=$T/package
init_dpkg_root "$R5"
mkdir -p "$R5/usr/bin"
cp -p /usr/bin/dpkg-deb "$R5/usr/bin/dpkg-deb"
pline="diversion of /usr/bin/dpkg-deb to /usr/bin/dpkg-deb.distrib by zdeb-dpkg"
expect_status 0 "$ZDEB" integrate install --root "$R5"
expect_status 0 "$ZDEB" integrate install --package=zdeb-dpkg --root "$R5"
expect_stderr "moving the diversion to 'zdeb-dpkg'"
[ "$(dpkg-divert --root "$R5" --list)" = "$pline" ] ||
	fail "diversions: $(dpkg-divert --root "$R5" --list)"
[ "$(readlink "$R5/usr/bin/dpkg-deb")" = "$self" ] ||
	fail "symlink: $(ls -l "$R5/usr/bin")"
cmp /usr/bin/dpkg-deb "$R5/usr/bin/dpkg-deb.distrib" ||
	fail "dpkg-deb.distrib is not the original"
expect_status 0 "$ZDEB" integrate install --root "$R5"
expect_stderr "already integrated by the zdeb-dpkg package"
expect_status 2 "$ZDEB" integrate remove --root "$R5"
expect_stderr "apt-get remove zdeb-dpkg"
expect_status 0 "$ZDEB" integrate status --root "$R5"
grep -q "^state: active" "$T/stdout" || fail "status: $(cat "$T/stdout")"
expect_status 0 "$ZDEB" integrate remove --package zdeb-dpkg --root "$R5"
[ -z "$(dpkg-divert --root "$R5" --list)" ] ||
	fail "diversion left: $(dpkg-divert --root "$R5" --list)"
cmp /usr/bin/dpkg-deb "$R5/usr/bin/dpkg-deb" || fail "not restored"
expect_status 2 "$ZDEB" integrate install --package= --root "$R5"
expect_stderr "needs a package name"
ok "--package=zdeb-dpkg takes over a local integration; plain install and remove defer to it"

expect_status 2 "$ZDEB" integrate frobnicate
expect_stderr "unknown action 'frobnicate'"
expect_status 2 "$ZDEB" integrate status --root "$T/nonexistent"
expect_stderr "does not exist"
ok "usage errors exit 2"
