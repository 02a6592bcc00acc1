# SPDX-License-Identifier: GPL-2.0-or-later
# tests/slow/lib.sh - sourced by the slow tests after tests/integ/lib.sh.
# Provides: slow_mirror (the Debian mirror of this host's apt sources),
# slow_probe URL (skip unless reachable), slow_minbase SUITE MIRROR DIR
# (a debootstrap --variant=minbase chroot, from a cache when there is one).

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
