#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t0350-perf-apt-usage.sh - zdeb-perf apt's bad usage: an unknown set,
# source, backend or mode, a baseline that is not one of the run's
# configurations, --runs 0 and an --fs that is not ext4 or tmpfs each
# exit 2 with a message naming what is wrong, before any download or
# chroot, and leave nothing in TMPDIR.  (The whole command, which needs
# the mirror, is tests/slow/t9090-perf-apt.sh.)
. "${ZDEB_SRCDIR:-$(dirname "$0")/../..}/tests/integ/lib.sh"

need python3
PERF=${ZDEB_PERF:-${ZDEB_BUILDDIR:-$(dirname "$ZDEB")/..}/src/perf/zdeb-perf}
[ -x "$PERF" ] || skip "zdeb-perf not built ($PERF)"
mkdir "$T/tmp"

# bad ARGS... -- MESSAGE: exit 2, MESSAGE on stderr, TMPDIR left empty
bad() {
	msg=$1
	shift
	TMPDIR=$T/tmp expect_status 2 "$PERF" apt "$@"
	grep -q "^zdeb-perf: error: .*$msg" "$T/stderr" ||
		fail "apt $*: no '$msg' in: $(cat "$T/stderr")"
	[ -z "$(ls -A "$T/tmp")" ] || fail "apt $*: left $(ls -A "$T/tmp")"
}
bad "unknown set 'nosuch'" --set nosuch
bad "unknown source 'ubuntu'" --sources debian,ubuntu jq
bad "unknown backend 'dpkg'" --backends dpkg jq
bad "unknown mode 'unsafe-io'" --modes unsafe-io jq
bad "--runs must be at least 1" --runs 0 jq
bad "--fs must be ext4 or tmpfs" --fs "$T" jq
ok "unknown set, source, backend and mode, --runs 0, --fs DIR: exit 2, named, nothing left"

if [ "$(id -u)" -eq 0 ]; then
	bad "--baseline 'zdeb/zdeb/plain': not SOURCE/BACKEND/MODE" \
		--sources debian --baseline zdeb/zdeb/plain jq
	ok "a --baseline not among the configurations: exit 2"
else
	bad "needs root" jq
	ok "not root: exit 2, says it needs root"
fi
