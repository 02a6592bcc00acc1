#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# CLI basics: --help, --version, unknown commands and options exit 2.
. "$(dirname "$0")/lib.sh"

expect_status 0 "$ZDEB" --help
grep -q '^Usage: zdeb COMMAND' "$T/stdout" || fail "--help has no usage line"
cp "$T/stdout" "$T/help"
for cmd in build extract control cat-data cat-control contents info verify recompress integrate repo; do
	grep -q "^  $cmd " "$T/help" || fail "--help does not list $cmd"
	expect_status 0 "$ZDEB" "$cmd" --help
	grep -q "^Usage: zdeb $cmd" "$T/stdout" || fail "$cmd --help: no usage"
done
grep -q "^  dpkg-deb " "$T/help" || fail "--help does not list dpkg-deb"
expect_status 0 "$ZDEB" dpkg-deb --help
grep -q "^Usage: dpkg-deb" "$T/stdout" || fail "dpkg-deb --help: no usage"
ok "--help lists and documents every command"

expect_status 0 "$ZDEB" --version
grep -q '^zdeb [0-9]' "$T/stdout" || fail "--version: $(cat "$T/stdout")"
ok "--version"

expect_status 2 "$ZDEB" frobnicate
expect_stderr "zdeb: error: unknown command 'frobnicate'"
expect_stderr "Try 'zdeb --help'"
[ "$(wc -l <"$T/stderr")" -eq 2 ] || fail "unknown command: not one line + pointer"
ok "unknown command"

expect_status 2 "$ZDEB" --frobnicate
expect_stderr "unknown option '--frobnicate'"
expect_status 2 "$ZDEB" build --frobnicate x
expect_stderr "zdeb: error: unknown option '--frobnicate'"
expect_stderr "Try 'zdeb build --help'"
expect_status 2 "$ZDEB"
expect_stderr "no command given"
expect_status 2 "$ZDEB" repo
expect_stderr "expected plan, run or finish"
expect_status 2 "$ZDEB" repo frobnicate
expect_stderr "unknown subcommand 'frobnicate'"
for sub in plan run finish; do
	expect_status 0 "$ZDEB" repo $sub --help
	# finish has its usage text (cmd-repo-finish.c); plan and run share one
	want=plan; [ $sub != finish ] || want=finish
	grep -q "^Usage: zdeb repo $want" "$T/stdout" || fail "repo $sub --help"
	expect_status 2 "$ZDEB" repo $sub --frobnicate
	expect_stderr "Try 'zdeb repo --help'"
done
expect_status 2 "$ZDEB" repo run --index 0 --jobs 2 "$T/jobs"
expect_stderr "--index and --jobs exclude each other"
expect_status 2 "$ZDEB" repo run "$T/nonexistent"
expect_stderr "cannot open '$T/nonexistent'"
ok "unknown options"

expect_status 2 "$ZDEB" extract /nonexistent.deb "$T/x"
expect_stderr "/nonexistent.deb"
[ ! -e "$T/x" ] || fail "extract of a missing file created its target"
ok "missing input file named, nothing created"
