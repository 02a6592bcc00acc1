#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# dpkg-deb's build checks, one clear message each, nothing left at OUT;
# output path rules.
. "$(dirname "$0")/lib.sh"

bad() {  # bad NAME EXPECTED-MESSAGE SETUP...
	what=$1; msg=$2; shift 2
	rm -rf "$T/b"; make_tree "$T/b"
	( cd "$T/b" && eval "$@" )
	expect_status 2 "$ZDEB" build "$T/b" "$T/out.deb"
	expect_stderr "$msg"
	[ "$(wc -l <"$T/stderr")" -eq 1 ] || fail "$what: more than one line: $(cat "$T/stderr")"
	[ ! -e "$T/out.deb" ] || fail "$what: output left behind"
	ls "$T" | grep -q zdeb- && fail "$what: temporary file left behind"
	ok "$what"
}

bad "missing control" "DEBIAN/control" "rm DEBIAN/control"
bad "missing Package" "Package" "sed -i /^Package/d DEBIAN/control"
bad "missing Maintainer" "Maintainer" "sed -i /^Maintainer/d DEBIAN/control"
bad "missing Description" "Description" "sed -i '/^Description/,\$d' DEBIAN/control"
bad "bad package name" "package name has characters" "sed -i 's/^Package: .*/Package: Zdeb_Test/' DEBIAN/control"
bad "bad version" "version" "sed -i 's/^Version: .*/Version: 1.0-a b/' DEBIAN/control"
bad "unparsable control" "DEBIAN/control" "printf 'garbage line\n' >>DEBIAN/control"
bad "script mode 0644" "postinst" "chmod 0644 DEBIAN/postinst"
bad "script mode 0777" "postinst" "chmod 0777 DEBIAN/postinst"
bad "relative conffile" "etc/zdeb-test/conf" "echo etc/zdeb-test/conf >DEBIAN/conffiles"
bad "missing conffile" "/etc/missing" "echo /etc/missing >>DEBIAN/conffiles"
bad "duplicate conffile" "/etc/zdeb-test/conf" "echo /etc/zdeb-test/conf >>DEBIAN/conffiles"
bad "bad conffile flag" "bogus-flag" "echo 'bogus-flag /etc/zdeb-test/conf' >DEBIAN/conffiles"

rm -rf "$T/b"; make_tree "$T/b"
echo 'remove-on-upgrade /etc/zdeb-test/gone' >>"$T/b/DEBIAN/conffiles"
expect_status 0 "$ZDEB" build "$T/b" "$T/roo.deb"
ok "remove-on-upgrade conffiles need not exist"

expect_status 0 "$ZDEB" build --no-check "$T/b" "$T/nocheck.deb"
expect_stderr "not checking"
ok "--no-check skips the checks with a warning"

# Output path defaults as dpkg-deb
make_tree "$T/p2"
expect_status 0 "$ZDEB" build "$T/p2/"
[ -f "$T/p2.deb" ] || fail "default output DIR.deb"
mkdir "$T/outdir"
expect_status 0 "$ZDEB" build "$T/p2" "$T/outdir"
[ -f "$T/outdir/zdeb-test_1.2-3_all.deb" ] || fail "directory output: $(ls "$T/outdir")"
expect_status 2 "$ZDEB" build --no-check "$T/p2" "$T/outdir"
expect_stderr "target is directory"
ok "output path: DIR.deb, directory gives NAME_VERSION_ARCH.deb (epoch dropped)"

# An unwritable target: nothing half-written left
expect_status 2 "$ZDEB" build "$T/p2" "$T/no/such/dir/out.deb"
expect_stderr "no/such/dir"
ok "unwritable output named"

# The .deb is written in place as it is built: a build or recompress that
# fails half-way removes it, leaving nothing at OUT and no temporary file.
big_tree() {
	rm -rf "$1"; make_tree "$1"
	head -c 3000000 /dev/urandom >"$1/usr/share/doc/zdeb-test/random.bin"
}
no_leftovers() {  # no_leftovers DIR WHAT
	[ -z "$(ls -A "$1")" ] || fail "$2: left behind: $(ls -A "$1")"
}
mkdir "$T/full"
if mount -t tmpfs -o size=1m zdeb-full "$T/full" 2>/dev/null; then
	trap 'umount "$T/full" 2>/dev/null; rm -rf "$T"' EXIT
	big_tree "$T/bt"
	for z in none zstd; do
		expect_status 2 "$ZDEB" build -Z$z "$T/bt" "$T/full/out.deb"
		expect_stderr "out.deb"
		no_leftovers "$T/full" "-Z$z build on a full file system"
	done
	umount "$T/full"
	trap 'rm -rf "$T"' EXIT
	ok "a build that runs out of space leaves nothing (tmpfs of 1 MB)"
else
	echo "# cannot mount a tmpfs here: the out-of-space build is not run"
fi

big_tree "$T/bt"
expect_status 0 "$ZDEB" build -z3 "$T/bt" "$T/good.deb"
# flip one byte in the middle of the data member (the last one)
size=$(stat -c %s "$T/good.deb")
cp "$T/good.deb" "$T/bad.deb"
printf '\377' | dd of="$T/bad.deb" bs=1 seek=$((size - 1000000)) conv=notrunc 2>/dev/null
cmp -s "$T/good.deb" "$T/bad.deb" && fail "the byte was not changed"
mkdir "$T/rc"
expect_status 2 "$ZDEB" recompress -Zxz "$T/bad.deb" "$T/rc/out.deb"
expect_stderr "data.tar.zst"
no_leftovers "$T/rc" "recompress of a damaged .deb"
expect_status 0 "$ZDEB" recompress -Zxz "$T/good.deb" "$T/rc/out.deb"
"$ZDEB" cat-data "$T/good.deb" >"$T/a.tar"
dpkg-deb --fsys-tarfile "$T/rc/out.deb" >"$T/b.tar"
cmp -s "$T/a.tar" "$T/b.tar" || fail "recompressed tar differs"
ok "a recompress that fails half-way leaves nothing; a good one keeps the tar"

# Only zstd's single and dpkg layouts spool the tar to TMPDIR: xz, gzip,
# none and the segmented zstd layouts compress it as it is made, so a
# TMPDIR that cannot be written does not stop them.
make_tree "$T/sp"
for z in xz gzip none zstd; do
	TMPDIR=$T/no-such-dir expect_status 0 "$ZDEB" build -Z$z "$T/sp" "$T/sp-$z.deb"
	dpkg-deb --fsys-tarfile "$T/sp-$z.deb" >"$T/sp.tar" ||
		fail "-Z$z without TMPDIR: stock dpkg-deb cannot read it"
done
TMPDIR=$T/no-such-dir expect_status 2 "$ZDEB" build -Zzstd --layout single "$T/sp" "$T/sp-single.deb"
expect_stderr "cannot create temporary file in '$T/no-such-dir'"
[ ! -e "$T/sp-single.deb" ] || fail "a failed single-layout build left its output"
ok "xz, gzip, none and indexed zstd builds never touch TMPDIR"
