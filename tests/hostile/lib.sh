# SPDX-License-Identifier: GPL-2.0-or-later
# tests/hostile/lib.sh - shared by tests/integ/t05*-hostile-*.sh (sourced
# after tests/integ/lib.sh).  Provides:
#   gen_hostile GROUP     makes the cases of GROUP into $H (tests/hostile/gen.sh)
#   hostile STATUS MSG CMD
#                         runs the shell command CMD (eval'd, with $W/out
#                         as the usual target) in a fresh work dir $W and
#                         asserts: exit status STATUS, MSG in stderr (""
#                         to skip), finished within 20 s (timeout),
#                         address space under 1 GiB (ulimit -v; skipped
#                         when ZDEB_ASAN=1: ASan reserves terabytes), and
#                         nothing created, removed or changed in $W outside
#                         $W/out (a listing of $W, sizes and mtimes, before
#                         and after; $W/victim is a file a member may try
#                         to reach).
H=$T/hostile
W=$T/w
HOSTILE_TIMEOUT=${HOSTILE_TIMEOUT:-20}
HOSTILE_VMEM_KB=${HOSTILE_VMEM_KB:-1048576}

gen_hostile() {
	sh "$ZDEB_SRCDIR/tests/hostile/gen.sh" "$ZDEB" "$H" "$@" >/dev/null ||
		fail "tests/hostile/gen.sh $* failed"
}

listing() {
	(cd "$W" && find . -mindepth 1 -path ./out -prune -o -printf '%p %y %s %T@ %m\n' |
	 sort)
}

hostile() {
	want=$1 msg=$2 cmd=$3
	rm -rf "$W"
	mkdir -p "$W"
	echo victim >"$W/victim"
	listing >"$T/before"
	set +e
	(
		if [ "${ZDEB_ASAN:-0}" != 1 ]; then
			ulimit -v "$HOSTILE_VMEM_KB" || exit 99
		fi
		eval "timeout $HOSTILE_TIMEOUT $cmd"
	) >"$T/stdout" 2>"$T/stderr"
	got=$?
	set -e
	[ "$got" -ne 124 ] || fail "'$cmd' did not finish in ${HOSTILE_TIMEOUT}s"
	[ "$got" -eq "$want" ] ||
		fail "'$cmd' exited $got, expected $want; stderr: $(cat "$T/stderr")"
	if [ -n "$msg" ]; then
		grep -qF -- "$msg" "$T/stderr" ||
			fail "'$cmd': stderr lacks '$msg': $(cat "$T/stderr")"
	fi
	listing >"$T/after"
	diff -u "$T/before" "$T/after" >&2 ||
		fail "'$cmd' changed things outside the target directory"
	# No temporary file left behind in the target.
	if [ -d "$W/out" ] && find "$W/out" -name '.zdeb-tmp.*' | grep -q .; then
		fail "'$cmd' left a temporary file in the target"
	fi
}
