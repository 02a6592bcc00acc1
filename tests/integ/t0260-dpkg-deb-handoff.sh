#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# ZDEB_HANDOFF in dpkg-deb mode: what zdeb hands to the real dpkg-deb (here
# an old-format 0.939000 build, a 0.931000 read) runs it silently by default and with
# "allow", runs it and logs one line per hand-off with "count"
# (ZDEB_HANDOFF_LOG, else standard error), and is an error (exit 2, no
# output file) with "never"; an unknown value refuses too.  What zdeb does
# itself is never logged.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dpkg-deb-lib.sh"

make_tree "$T/pkg"
old() { "$T/dpkg-deb" --deb-format=0.939000 -Zgzip -b "$T/pkg" "$T/old.deb"; }

dpkg-deb --deb-format=0.939000 -Zgzip -b "$T/pkg" "$T/stock.deb" >/dev/null
for mode in "" allow; do
	rm -f "$T/old.deb"
	ZDEB_HANDOFF=$mode expect_status 0 old
	cmp "$T/stock.deb" "$T/old.deb" || fail "ZDEB_HANDOFF='$mode': not stock's"
	[ ! -s "$T/stderr" ] || fail "ZDEB_HANDOFF='$mode' printed: $(cat "$T/stderr")"
done
ok "unset and allow: the real dpkg-deb builds the old format, silently"

rm -f "$T/old.deb"
ZDEB_HANDOFF=count ZDEB_HANDOFF_LOG=$T/log expect_status 0 old
cmp "$T/stock.deb" "$T/old.deb" || fail "count: not stock's"
ZDEB_HANDOFF=count ZDEB_HANDOFF_LOG=$T/log expect_status 0 old
[ "$(wc -l <"$T/log")" -eq 2 ] || fail "count: log: $(cat "$T/log")"
grep -q "^zdeb: hand-off to .*dpkg-deb (--deb-format=0.939000): dpkg-deb --deb-format=0.939000 -Zgzip -b $T/pkg $T/old.deb\$" \
	"$T/log" || fail "count: log line: $(cat "$T/log")"
ZDEB_HANDOFF=count expect_status 0 old
grep -q "^zdeb: hand-off to .*(--deb-format=0.939000)" "$T/stderr" ||
	fail "count without a log file: stderr: $(cat "$T/stderr")"
ZDEB_HANDOFF=count ZDEB_HANDOFF_LOG=$T/log2 \
	expect_status 0 "$T/dpkg-deb" -Zgzip -b "$T/pkg" "$T/new.deb"
[ ! -e "$T/log2" ] || fail "a build zdeb does itself was logged: $(cat "$T/log2")"
ok "count: one log line per hand-off, none for what zdeb does itself"

# Reading an old-format package: the reason names its own version line.
{ echo 0.931000; tail -n +2 "$T/stock.deb"; } >"$T/old-0931.deb"
dpkg-deb -c "$T/old-0931.deb" >"$T/stock.out" 2>&1 ||
	fail "stock dpkg-deb cannot list a 0.931000 package: $(cat "$T/stock.out")"
ZDEB_HANDOFF=count ZDEB_HANDOFF_LOG=$T/log3 \
	expect_status 0 "$T/dpkg-deb" -c "$T/old-0931.deb"
cmp "$T/stock.out" "$T/stdout" || fail "-c of 0.931000: not stock's"
grep -q "^zdeb: hand-off to .*dpkg-deb (old-format (0.931000) package): dpkg-deb -c $T/old-0931.deb\$" \
	"$T/log3" || fail "count: log line of -c: $(cat "$T/log3")"
ok "count: reading a 0.931000 package logs its version"

rm -f "$T/old.deb"
ZDEB_HANDOFF=never expect_status 2 old
expect_stderr "dpkg-deb: error: --deb-format=0.939000: not implemented by zdeb, and ZDEB_HANDOFF=never forbids handing it to the real dpkg-deb"
[ ! -e "$T/old.deb" ] || fail "never: a package was written"
ZDEB_HANDOFF=nevre expect_status 2 old
expect_stderr "ZDEB_HANDOFF='nevre' is not allow, count or never"
[ ! -e "$T/old.deb" ] || fail "unknown value: a package was written"
ok "never, and an unknown value: exit 2 with the reason, nothing written"
