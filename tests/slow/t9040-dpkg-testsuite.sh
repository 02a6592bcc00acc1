#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# dpkg's own test suite, run against zdeb as dpkg-deb: Debian 12's dpkg
# source package (fetched with apt in a private configuration, cached),
# its autotest suite (src/at) built with autom4te, every group that runs
# dpkg-deb (keywords dpkg-deb and deb-split: options, the 0.93x and 2.x
# formats, conffiles, extraction cleanup, fields, dpkg-split's format) run
# three times: with the stock dpkg-deb, with zdeb counting its hand-offs
# to the real dpkg-deb (ZDEB_HANDOFF=count), and with zdeb forbidden to
# hand off (ZDEB_HANDOFF=never).  Fails when zdeb fails a group stock
# passes, when zdeb hands off anything but the old 0.93x format, or when
# without hand-offs any group but the 0.93x one fails.  Prints the group
# counts and the hand-offs.
#
# Run by "make check-slow": it needs apt-get, autom4te (autoconf), gzip,
# xz, zstd, bzip2 and the Debian mirror of this host's apt sources
# (slow_mirror; ZDEB_MIRROR overrides); the source (about 5 MB) is kept in
# ZDEB_SLOW_CACHE (default /var/cache/zdeb-tests) for the next run.
# Without the mirror and the cache, it skips (77).
. "$(dirname "$0")/../integ/lib.sh"
. "$(dirname "$0")/lib.sh"

need apt-get autom4te tar xz gzip zstd bzip2 lzma perl

slow_dpkg_source
tarball=$dpkg_tarball
mkdir "$T/src"
tar -xf "$tarball" -C "$T/src"
src=$(ls -d "$T/src"/dpkg-*)
[ -f "$src/src/at/testsuite.at" ] || fail "no src/at/testsuite.at in $tarball"
ok "dpkg's source: $(basename "$tarball") (cached in $cache)"

(cd "$src/src/at" && autom4te --language=autotest -I . -o "$T/testsuite" \
	testsuite.at) || fail "autom4te could not build dpkg's test suite"
: >"$src/config.log"
ok "dpkg's autotest suite built"

# run NAME: runs the groups in $T/NAME; "N NAME" lines of the groups that
# passed go to $T/NAME.ok, of those that failed to $T/NAME.failed.
run() {
	d=$T/$1
	(cd "$d" && ./testsuite -k dpkg-deb -k deb-split) >"$d.out" 2>&1 || true
	grep -q "^[^ ]*testsuite.at:[0-9]*: $d/bin/dpkg-deb --version" \
		"$d/testsuite.log" ||
		fail "$1: the suite did not test $d/bin/dpkg-deb: $(grep -A2 'Tested programs' "$d/testsuite.log")"
	sed -n 's/^ *\([0-9]*\): \(.*[^ ]\)  *ok$/\1 \2/p' "$d.out" >"$d.ok"
	sed -n 's/^ *\([0-9]*\): \(.*[^ ]\)  *FAILED.*/\1 \2/p' "$d.out" \
		>"$d.failed"
	sed -n 's/^ *\([0-9]*\): \(.*[^ ]\)  *skipped.*/\1 \2/p' "$d.out" \
		>"$d.skipped"
}

# counts NAME: "P passed, F failed, S skipped" of run NAME.
counts() {
	echo "$(wc -l <"$T/$1.ok") passed, $(wc -l <"$T/$1.failed") failed," \
	     "$(wc -l <"$T/$1.skipped") skipped"
}

# The real dpkg-deb: diverted aside when zdeb is integrated.
stockbin=/usr/bin/dpkg-deb
[ -x /usr/bin/dpkg-deb.distrib ] && stockbin=/usr/bin/dpkg-deb.distrib
[ -x "$stockbin" ] || skip "no stock dpkg-deb"
[ "$(realpath "$stockbin")" != "$(realpath "$ZDEB")" ] ||
	fail "$stockbin is zdeb, not the stock dpkg-deb"
# group_log NAME NUM: the failed check of group NUM in run NAME.
group_log() {
	for g in "$T/$1"/testsuite.dir/*/; do
		case ${g%/} in
		*/"$2"|*/0"$2"|*/00"$2")
			sed -n '/^--- /,$p' "$g/testsuite.log" | head -n 30 ;;
		esac
	done
}

slow_dpkg_at_dir "$T/stock" "$stockbin" "$src" "$T/testsuite"
run stock
nstock=$(wc -l <"$T/stock.ok")
ngroups=$((nstock + $(wc -l <"$T/stock.failed") + $(wc -l <"$T/stock.skipped")))
[ "$ngroups" -ge 7 ] || fail "only $ngroups groups with keywords dpkg-deb, deb-split: $(cat "$T/stock.out")"
echo "# stock dpkg-deb ($("$stockbin" --version | head -n 1)): $ngroups groups: $(counts stock)"
[ -s "$T/stock.failed" ] && echo "# stock fails: $(cut -d' ' -f2- "$T/stock.failed" | tr '\n' ';')"

slow_dpkg_at_dir "$T/zdeb" "$ZDEB" "$src" "$T/testsuite"
: >"$T/handoff.log"
ZDEB_HANDOFF=count ZDEB_HANDOFF_LOG=$T/handoff.log run zdeb
nzdeb=$(wc -l <"$T/zdeb.ok")
nhand=$(wc -l <"$T/handoff.log")
echo "# zdeb as dpkg-deb, ZDEB_HANDOFF=count: $ngroups groups: $(counts zdeb); $nhand hand-offs to the real dpkg-deb:"
sed -e "s|$T/zdeb/||g" -e 's/^zdeb: hand-off to [^ ]* /#   /' \
	"$T/handoff.log"
while read -r num name; do
	grep -q "^$num " "$T/zdeb.ok" ||
		fail "zdeb fails group $num ($name), which stock passes: $(group_log zdeb "$num")"
done <"$T/stock.ok"
grep -v "(old-format (0\.93[0-9]*) package)\|(--deb-format=0\.939000)" \
	"$T/handoff.log" >"$T/other" &&
	fail "hand-offs of more than the 0.93x format: $(cat "$T/other")"
ok "zdeb passes every group stock passes ($nzdeb of $ngroups); $nhand hand-offs, all of the 0.93x format"

slow_dpkg_at_dir "$T/never" "$ZDEB" "$src" "$T/testsuite"
ZDEB_HANDOFF=never run never
nnever=$(wc -l <"$T/never.ok")
echo "# zdeb as dpkg-deb, ZDEB_HANDOFF=never: $ngroups groups: $(counts never)"
while read -r num name; do
	grep -q "^$num " "$T/never.ok" && continue
	case $name in
	*"format 0.93x"*)
		echo "#   fails, as allowed: group $num ($name): zdeb hands the 0.93x format to the real dpkg-deb" ;;
	*) fail "without hand-offs zdeb fails group $num ($name): $(group_log never "$num")" ;;
	esac
done <"$T/stock.ok"
ok "without hand-offs every group stock passes passes but the 0.93x format's ($nnever of $ngroups)"
