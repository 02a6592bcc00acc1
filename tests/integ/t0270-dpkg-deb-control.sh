#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# dpkg's control-file parse, judged against the system dpkg-deb: for each
# warning and error a binary control stanza can draw from dpkg 1.21's
# parser (lib/dpkg/parse.c, fields.c, parsehelp.c) and dpkg-deb's build
# checks (src/deb/build.c), dpkg-deb -b must give the same stdout, stderr,
# exit status and .deb bytes, and the native zdeb build must refuse what
# stock refuses or warns about and build the rest; a package stock builds with --nocheck must
# read the same with -f (every field), -W (the virtual fields) and -I.
# zdeb never hands these to the real dpkg-deb (ZDEB_HANDOFF=never).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dpkg-deb-lib.sh"
# Many cases: zdeb as a dpkg-deb symlink only (t0200 covers "zdeb dpkg-deb").
DDCMP_WAYS=link

fields="Package Version Architecture Multi-Arch Essential Protected Priority
Section Installed-Size Origin Maintainer Bugs Source Description Depends
Pre-Depends Recommends Suggests Breaks Conflicts Enhances Provides Replaces
Conffiles Filename Size MD5sum Status Config-Version Class Revision
Recommended Optional X-A x-b"
fmt='${Package}|${binary:Package}|${Version}|${source:Package}|${Architecture}|${binary:Synopsis}|${Priority}|${Depends}|${Recommends}|${Suggests}|${Essential}|${Multi-Arch}|${X-A}\n'
srcfmt='${source:Version}|${source:Upstream-Version}\n'

# native: zdeb build of $T/c refuses (exit 2, with an error, nothing
# written) what the last stock dpkg-deb -b refused or warned about, and
# builds the rest.
native() {
	want=0
	if [ "$(cat "$T/rc-stock")" -ne 0 ] ||
	   grep -q "^dpkg-deb: warning: " "$T/err-stock"; then
		want=2
	fi
	rm -f "$T/native.deb"
	set +e
	"$ZDEB" build "$T/c" "$T/native.deb" >/dev/null 2>"$T/err-native"
	got=$?
	set -e
	[ "$got" -eq "$want" ] ||
		fail "zdeb build exited $got, expected $want (stock: $(cat "$T/err-stock")): $(cat "$T/err-native")"
	[ "$want" -eq 0 ] && return 0
	grep -q "^zdeb: error: " "$T/err-native" ||
		fail "zdeb build refused with no error: $(cat "$T/err-native")"
	[ ! -e "$T/native.deb" ] || fail "zdeb build refused but wrote a .deb"
}

n=0
# check CONTROL: CONTROL is printf(1) text for DEBIAN/control.
check() {
	n=$((n + 1))
	rm -rf "$T/c"
	mkdir -p "$T/c/DEBIAN" "$T/c/etc"
	echo x >"$T/c/etc/x"
	# shellcheck disable=SC2059
	printf "$1" >"$T/c/DEBIAN/control"
	ddcmp /dev/null -b "$T/c" out.deb
	native
	rm -f "$T/c.deb"
	dpkg-deb --nocheck -b "$T/c" "$T/c.deb" >/dev/null 2>&1 || return 0
	# shellcheck disable=SC2086
	ddcmp /dev/null -f "$T/c.deb" $fields
	ddcmp /dev/null -f "$T/c.deb" Version
	ddcmp /dev/null -W --showformat="$fmt" "$T/c.deb"
	ddcmp /dev/null -W --showformat="$srcfmt" "$T/c.deb"
}

H='Package: q\nVersion: 1.0\nMaintainer: M <m@example.org>\nArchitecture: all\nDescription: d\n'
E='Package: q\nVersion: 1.0\nMaintainer: M <m@example.org>\nDescription: d\n'

# The issue's cases: obsolete fields, refused values, a relation.
check "${H}Recommended: r\nOptional: o\nRevision: 1\nClass: extra\n"
check "Package: q\nPackage-Revision: 2\nVersion: 1.0\nPackage_Revision: 3\nclass: Important\nMaintainer: m\nDescription: d\nArchitecture: all\n"
check "Package: q\nVersion: 1.0\nEssential: maybe\nMulti-Arch: bogus\nMaintainer: M <m@example.org>\nArchitecture: all\nDescription: d\n"
check "${H}Multi-Arch: bogus\n"
check "${H}Depends: foo (>> \n"
check "${H}Conffiles: /etc/x 0123\n"
check "${H}Depends: foo (< 1.0)\n"
ok "the obsolete fields, Essential: maybe, Multi-Arch: bogus, an unterminated relation, a one-line Conffiles, '<'"

# The stanza syntax (parse_stanza) and its line count.
check 'Package foo\n'
check "Package: q\n: b\n"
check " Package: q\n"
check "Package: q\n-Foo: b\n"
check "${H}version: 2\n"
check "${H}X-Foo: a\nx-foo: b\n"
check "${H}X: a\n"
check "Description: a\n b\n  \n c\n"
check "${H}X-Last: a"
check "${H}X-Last: ab"
check "${H}X-Last:"
check "${H}X-Last"
check "${H}X-Last\n"
check "${H}\nPackage: r\n"
check "${H}\nPackage: r\nEssential: maybe\n"
check "\n\n${H}\n\n"
check ""
check "\n\n"
check "# comment\n${H}"
check "Package: q\r\nVersion: 1.0\r\nArchitecture: all\r\nMaintainer: m\r\nDescription: d\r\n more\r\n"
check "Package: q\r\n\r\nVersion: 1\n"
check "${H}X-N: a\0b\n"
check "${H}\032\n"
check "Pack\032age: q\n"
check "${H}X-Z: \032\n"
check "${H}Description: again\n"
ok "stanza syntax: every parse_stanza error, duplicates, several stanzas"

# Each field's parser (fields.c).
check "Package: Q-Upper\nVersion: 1\nMaintainer: m\nDescription: d\nArchitecture: all\n"
check "Package: -q\n"
check "Package: q!\n"
check "Package:\nVersion: 1\n"
check "Package: q_u\nVersion: 1\nMaintainer: m\nDescription: d\nArchitecture: all\n"
for v in "" "1.0 beta" ":1" "a:1" "1a:1" "-1:1" "99999999999:1" "1:" "1.0-" \
         "-1" "a1" "1_0" "1-a_b" "0:1:2" "1:2:3-4:5" "  2.0  " "1.0-1-2"; do
	check "Package: q\nVersion: $v\nMaintainer: m\nDescription: d\nArchitecture: all\n"
done
check "${H}Revision: 4\n"
check "Package: q\nRevision: 4\nVersion: 1.0-2\nMaintainer: m\nDescription: d\nArchitecture: all\n"
check "Package: q\nVersion: 1.0-2\nRevision: 4\nPackage-Revision: 5\nMaintainer: m\nDescription: d\nArchitecture: all\n"
for e in "yes" "No" "YES no" "maybe" "yesterday"; do
	check "${H}Essential: $e\nProtected: $e\n"
done
for m in "same" "Foreign" "allowed x" "no" "sam"; do
	check "${E}Architecture: amd64\nMulti-Arch: $m\n"
done
for p in "optional" "EXTRA" "unknown" "optional x" "optionalx" "high" "opt"; do
	check "${H}Priority: $p\n"
done
check "${H}Class: important\nPriority: standard\n"
check "${H}Status: install ok installed\n"
check "${H}Config-Version: 1\n"
check "${H}Triggers-Pending: t\n"
check "${H}Triggers-Awaited: p\n"
check "${H}Conffiles:\n /etc/x 0123\n /etc/y 4567 obsolete\n /etc/z newconffile remove-on-upgrade\n"
check "${H}Conffiles:\n /etc/x\n"
check "${H}Conffiles:\n / 0123\n"
check "${H}Conffiles:\n // 0123\n"
check "${H}Conffiles:\n ./ 0123 obsolete\n"
check "${H}Filename: a b\nSize: 1 2\nMD5sum: x y\nMSDOS-Filename: p q\n"
check "${H}Filename: a b\nSize: 1\n"
check "${H}Size: 1\nMD5sum: a b\n"
check "${H}Filename:\nSize: 1\n"
check "${H}Section: \nInstalled-Size: 12\nOrigin: o\nBugs: b\nSection: s\n"
ok "Package, Version, Revision, booleans, Multi-Arch, Priority, Class, status fields, Conffiles, archive fields"

# Architecture, and the ':ARCH' dpkg names the package with in messages.
for a in "amd64" "i386" "any" "all" "a_b" "-x" "" "Amd64"; do
	check "${E}Architecture: $a\nDepends: d (< 1)\n"
done
check "${E}Depends: d (< 1)\n"
check "Package: q\nMulti-Arch: same\nVersion: 1\nArchitecture:\n"
check "Package: q\nMulti-Arch: same\nVersion: 1\n"
check "${E}Architecture: i386\nMulti-Arch: same\nDepends: d (< 1)\n"
ok "Architecture: valid, foreign, illegal, missing, empty; Multi-Arch: same"

# Relation fields (f_dependency) and the obsolete ones mapping into them.
for d in "a, b | c" "A (>=1.0), b(<<2) |c:any (= 3)" "a (< 1)" "a (> 1)" \
         "a (1.0)" "a (<> 1)" "a (>< 1)" "a (= 1.0 x)" "a (= 1.0 (x)" \
         "a (= a)" "a (=1:2)" "a (>=~1)" "a (>=)" "a ()" "a (" "a [amd64]" \
         "a <!nocheck>" "a," ", a" "a,,b" "a:" "a:x_y" "a:any (>= 1)" \
         "f!o" "a | " "a|b" "a (= 1) | b:amd64" "a\n b,\n c"; do
	check "${H}Depends: $d\n"
done
for f in Pre-Depends Recommends Suggests Enhances; do
	check "${H}$f: a | b (< 2)\n"
done
for f in Breaks Conflicts Replaces Provides; do
	check "${H}$f: a | b\n"
	check "${H}$f: a (<< 2), b (= 1)\n"
done
check "${H}Recommends: a\nRecommended: b\nSuggests: c\nOptional: d | e\n"
check "${H}Optional: a (< 1)\n"
ok "relation fields: every f_dependency warning and error, obsolete fields merged"

# The checks after the parse (pkg_parse_verify, check_control_file).
check "Version: 1\nArchitecture: all\nMaintainer: m\nDescription: d\n"
check "Package: q\nArchitecture: all\nMaintainer: m\nDescription: d\n"
check "Package: q\nVersion: 1\nMaintainer: m\nDescription: d\n"
check "Package: q\nVersion: 1\nArchitecture: all\nDescription: d\n"
check "Package: q\nMaintainer:\nDescription:\nVersion: 1\nArchitecture: all\n"
check "Package: q\nVersion: 1\nArchitecture: all\nDescription:\n text only\nMaintainer: m\n"
check "Package: q\nVersion: 1\nArchitecture: all\nSource: s (x1)\nMaintainer: m\nDescription: d\n"
check "Package: q\nVersion: 2:1.0-3\nArchitecture: all\nSource: s (1:0.9-1)\nMaintainer: m\nDescription: d\n"
ok "missing and empty fields, user-defined Priority, Source versions"

# Files that are not a control file.
rm -rf "$T/c"; mkdir -p "$T/c/DEBIAN"
ddcmp /dev/null -b "$T/c" out.deb
mkdir "$T/c/DEBIAN/control"
ddcmp /dev/null -b "$T/c" out.deb
ok "no control file, a directory named control"

echo "# $n control files, each built and read by dpkg-deb and zdeb, and built by zdeb build"
