# SPDX-License-Identifier: GPL-2.0-or-later
# tests/slow/lib.sh - sourced by the slow tests after tests/integ/lib.sh.
# Provides: slow_mirror (the Debian mirror of this host's apt sources),
# slow_probe URL (skip unless reachable), slow_minbase SUITE MIRROR DIR
# (a debootstrap --variant=minbase chroot, from a cache when there is one),
# slow_dpkg_source (Debian 12's dpkg source, cached) and slow_dpkg_at_dir
# (a directory to run dpkg's autotest suite on a given dpkg-deb).

# slow_mirror: "URI SUITE" of the first apt source of this host whose
# suite is its release (not -updates or -security), from
# /etc/apt/sources.list.d/*.sources, else /etc/apt/sources.list;
# ZDEB_MIRROR and ZDEB_SUITE, when set, win.  Skips when there is none.
slow_mirror() {
	codename=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
	suite=${ZDEB_SUITE:-$codename}
	[ -n "$suite" ] || skip "cannot tell the host's codename; set ZDEB_SUITE"
	if [ -n "${ZDEB_MIRROR:-}" ]; then
		echo "$ZDEB_MIRROR $suite"
		return
	fi
	uri=$(for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk -v s="$suite" '
			function end() { if (deb && ok && u != "") { print u; exit } deb = ok = 0; u = "" }
			/^[ \t]*$/ { end(); next }
			/^Types:/ { for (i = 2; i <= NF; i++) if ($i == "deb") deb = 1 }
			/^URIs:/ { u = $2 }
			/^Suites:/ { for (i = 2; i <= NF; i++) if ($i == s) ok = 1 }
			END { end() }' "$f"
	done | head -1)
	if [ -z "$uri" ] && [ -f /etc/apt/sources.list ]; then
		uri=$(awk -v s="$suite" '$1 == "deb" {
			i = 2; if ($2 ~ /^\[/) while ($i !~ /\]$/) i++
			if ($2 ~ /^\[/) i++
			if ($(i + 1) == s) { print $i; exit } }' /etc/apt/sources.list)
	fi
	[ -n "$uri" ] || skip "no apt source for $suite on this host; set ZDEB_MIRROR"
	echo "${uri%/} $suite"
}

# slow_probe URL: skip (77) unless URL can be fetched.
slow_probe() {
	if command -v curl >/dev/null 2>&1; then
		curl -fsS --max-time 20 -o /dev/null "$1" 2>"$T/net" ||
			skip "network: cannot fetch $1: $(cat "$T/net")"
	elif command -v python3 >/dev/null 2>&1; then
		python3 -c 'import sys, urllib.request
urllib.request.urlopen(sys.argv[1], timeout=20).read(1)' "$1" 2>"$T/net" ||
			skip "network: cannot fetch $1: $(tail -1 "$T/net")"
	else
		skip "no curl or python3 to probe $1"
	fi
}

# slow_minbase SUITE MIRROR DIR [INCLUDE]: a minbase chroot in DIR.  A
# tarball of one made less than 7 days ago from the same mirror is
# unpacked instead when ZDEB_SLOW_CACHE (default /var/cache/zdeb-tests)
# holds one; a new one is saved there.  Skips when debootstrap fails.
slow_minbase() {
	cache=${ZDEB_SLOW_CACHE:-/var/cache/zdeb-tests}
	key=$(printf '%s %s %s' "$2" "$4" "$(dpkg --print-architecture)" |
	      sha256sum | cut -c1-12)
	tarball=$cache/minbase-$1-$key.tar
	mkdir -p "$3"
	if [ -f "$tarball" ] && [ -n "$(find "$tarball" -mtime -7)" ] &&
	   tar -C "$3" -xf "$tarball" 2>/dev/null; then
		echo "# minbase $1 from the cache $tarball" >&2
		return
	fi
	echo "# debootstrap --variant=minbase $1 from $2" >&2
	debootstrap --variant=minbase ${4:+--include=$4} "$1" "$3" "$2" \
		>"$T/debootstrap.log" 2>&1 ||
		skip "debootstrap $1 failed (network or mirror): $(tail -3 "$T/debootstrap.log")"
	if mkdir -p "$cache" 2>/dev/null &&
	   tar -C "$3" --numeric-owner -cf "$tarball.$$.tmp" . 2>/dev/null; then
		# Slow tests run two at once: each writes its own, the last
		# rename wins.
		mv "$tarball.$$.tmp" "$tarball"
	else
		rm -f "$tarball.$$.tmp"
	fi
}

# slow_dpkg_source: sets dpkg_tarball to Debian 12's dpkg source tarball
# and cache to its directory, ZDEB_SLOW_CACHE/dpkg-source-bookworm, first
# downloading the source package (about 5 MB) there when it is missing:
# apt-get in a private configuration asking the host's mirror (slow_mirror)
# for bookworm's sources, checked with the Debian archive keyring.  Skips
# without the mirror or the keyring.
slow_dpkg_source() {
	cache=${ZDEB_SLOW_CACHE:-/var/cache/zdeb-tests}/dpkg-source-bookworm
	if ! ls "$cache"/dpkg_*.tar.* >/dev/null 2>&1; then
		m=$(slow_mirror) || exit 77
		uri=${m%% *}
		keyring=/usr/share/keyrings/debian-archive-keyring.gpg
		[ -f "$keyring" ] ||
			skip "no $keyring to check the mirror's signature"
		apt=$T/apt
		mkdir -p "$apt/parts" "$apt/lists/partial" \
		         "$apt/cache/archives/partial" "$T/dl"
		cat >"$apt/parts/dpkg-src.sources" <<EOS
Types: deb-src
URIs: $uri
Suites: bookworm
Components: main
Signed-By: $keyring
EOS
		set -- -o Dir::Etc::SourceList=/dev/null \
		       -o Dir::Etc::SourceParts="$apt/parts" \
		       -o Dir::State::Lists="$apt/lists" \
		       -o Dir::Cache="$apt/cache" \
		       -o APT::Sandbox::User=root -q
		apt-get "$@" update >"$T/apt.log" 2>&1 ||
			skip "cannot read the Debian mirror's source index ($uri): $(tail -n 1 "$T/apt.log")"
		(cd "$T/dl" && apt-get "$@" source --download-only dpkg) \
			>>"$T/apt.log" 2>&1 ||
			skip "cannot download dpkg's source package from $uri: $(tail -n 1 "$T/apt.log")"
		ls "$T/dl"/dpkg_*.dsc >/dev/null 2>&1 ||
			fail "apt-get source left no .dsc: $(ls "$T/dl")"
		mkdir -p "$(dirname "$cache")"
		rm -rf "$cache.$$.new"
		mv "$T/dl" "$cache.$$.new"
		# Slow tests run two at once: when both fetched, the first
		# rename wins (a rename onto a full directory fails).
		[ -d "$cache" ] && ! ls "$cache"/dpkg_*.tar.* >/dev/null 2>&1 &&
			rm -rf "$cache"
		mv -T "$cache.$$.new" "$cache" 2>/dev/null ||
			rm -rf "$cache.$$.new"
	fi
	dpkg_tarball=$(ls "$cache"/dpkg_*.tar.* 2>/dev/null |
	               grep -v '\.asc$' | head -n 1)
	[ -n "$dpkg_tarball" ] || fail "no dpkg source tarball in $cache"
}

# slow_dpkg_at_dir DIR PROG SRC SUITE: a directory DIR to run SUITE, the
# autotest suite built from the dpkg source tree SRC (src/at), on the
# dpkg-deb PROG: atconfig and atlocal as AC_CONFIG_TESTDIR and configure
# would write them, and DIR/bin/dpkg-deb a symlink to PROG (so that zdeb
# sees argv[0] = dpkg-deb) first in PATH.
slow_dpkg_at_dir() {
	d=$1
	mkdir -p "$d/bin"
	ln -s "$2" "$d/bin/dpkg-deb"
	cp "$4" "$d/testsuite"
	cat >"$d/atconfig" <<EOS
at_testdir='src/at'
abs_builddir='$d'
at_srcdir='$3/src/at'
abs_srcdir='$3/src/at'
at_top_srcdir='$3'
abs_top_srcdir='$3'
at_top_build_prefix='$3/'
abs_top_builddir='$3'
AUTOTEST_PATH='$d/bin'
SHELL=\${CONFIG_SHELL-'/bin/sh'}
EOS
	sed -e "s|@SED@|sed|g; s|@PERL@|perl|g; s|@GREP@|grep|g" \
	    -e "s|@EGREP@|grep -E|g; s|@TAR@|tar|g; s|@prefix@|/usr|g" \
	    -e "s|@admindir@|/var/lib/dpkg|g" \
	    -e "s|@abs_top_builddir@/src|$d/bin|g" \
	    -e "s|@abs_top_srcdir@|$3|g; s|@abs_top_builddir@|$3|g" \
	    "$3/src/at/atlocal.in" >"$d/atlocal"
	grep -q "^PATH=\"$d/bin:" "$d/atlocal" ||
		fail "atlocal.in's PATH line changed: $(grep '^PATH' "$d/atlocal")"
}

# slow_zdeb_debs DIR: zdeb's own binary packages (zdeb, zdeb-perf, dh-zdeb,
# zdeb-dpkg), built by "dpkg-buildpackage -b" from a copy of ZDEB_SRCDIR
# in DIR/src, so into DIR; the package's own test run is left out
# (DEB_BUILD_OPTIONS=nocheck: make check has run).  The log is
# $T/build.log.  Skips without debhelper 13, fails when the build fails.
slow_zdeb_debs() {
	: "${ZDEB_SRCDIR:?ZDEB_SRCDIR must point to the source tree}"
	need dpkg-buildpackage dh tar
	dpkg-checkbuilddeps -d 'debhelper-compat (= 13)' /dev/null \
		2>/dev/null || skip "debhelper 13 not installed"
	mkdir -p "$1/src"
	(cd "$ZDEB_SRCDIR" && tar -cf - --exclude=./_build --exclude=./.git \
		--exclude='./debian/build' --exclude='./autom4te.cache' .) |
		tar -xf - -C "$1/src"
	(cd "$1/src" && DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage -us -uc -b) \
		>"$T/build.log" 2>&1 ||
		fail "dpkg-buildpackage: $(tail -20 "$T/build.log")"
}

# slow_installed_ok TREE ROOT: every entry of the package tree TREE is in
# ROOT, with the same type, mode, size, content and link target; the
# difference is in $T/bad otherwise (status 1).
slow_installed_ok() {
	manifest "$1" >"$T/want"
	cut -d' ' -f1 "$T/want" | manifest_paths "$2" >"$T/got"
	diff "$T/want" "$T/got" >"$T/bad"
}

# slow_dpkg_download DIR: this host's dpkg .deb (apt-get download, the
# host's suite, which is the chroots'), printed as a path; status 1 when
# apt cannot get it.
slow_dpkg_download() {
	(cd "$1" && apt-get download dpkg >/dev/null 2>&1) || return 1
	set -- "$1"/dpkg_*.deb
	[ -f "$1" ] || return 1
	echo "$1"
}

# slow_dpkg_clean ROOT: "dpkg --verify dpkg" in the chroot ROOT says
# nothing and /usr/bin/dpkg-deb is a regular file that runs; fails the test
# otherwise.
slow_dpkg_clean() {
	[ -f "$1/usr/bin/dpkg-deb" ] && [ ! -L "$1/usr/bin/dpkg-deb" ] ||
		fail "no regular dpkg-deb: $(ls -l "$1/usr/bin/dpkg-deb"*)"
	chroot "$1" dpkg --verify dpkg >"$T/verify" 2>&1 ||
		fail "dpkg --verify dpkg: $(cat "$T/verify")"
	[ ! -s "$T/verify" ] || fail "dpkg --verify dpkg: $(cat "$T/verify")"
	chroot "$1" dpkg-deb --version >/dev/null || fail "dpkg-deb broken"
}
