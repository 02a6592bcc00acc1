# SPDX-License-Identifier: GPL-2.0-or-later
# bench/timing.sh - timing helpers sourced by the bench scripts (bash >= 5)
#
# The clock is bash's $EPOCHREALTIME: nothing is forked between the two
# readings but the command itself (a `date` or `sh -c` inside the timed
# interval added ~3 ms to every figure and so shrank every ratio).
# rounds() interleaves the commands it compares, one run of each per round,
# so that a machine that slows down or speeds up during the bench shifts
# them all alike instead of whichever command ran in that stretch.

export LC_ALL=C		# $EPOCHREALTIME with a '.'

# median of the arguments (integers or decimals)
median() {
	printf '%s\n' "$@" | sort -g |
		awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'
}

# rounds RUNS NAME=CMD... : runs every CMD once per round, RUNS rounds, in
# the order given; sets T[NAME] to the median seconds.  A CMD is eval'd
# with its output thrown away; PRE[NAME], if set, is eval'd untimed before
# each run (removing an output, so that unlinking the previous one is not
# counted).  A failing command stops the bench.  S[NAME] is the spread,
# "lowest-highest" seconds.
declare -A T PRE S
rounds() {
	local runs=$1 r spec name cmd t0 t1
	local -A us
	shift
	for ((r = 0; r < runs; r++)); do
		for spec in "$@"; do
			name=${spec%%=*}
			cmd=${spec#*=}
			[ -z "${PRE[$name]:-}" ] || eval "${PRE[$name]}"
			t0=$EPOCHREALTIME
			eval "$cmd" >/dev/null 2>&1 || {
				echo "failed: $cmd" >&2; exit 1; }
			t1=$EPOCHREALTIME
			us[$name]+=" $(( ${t1/./} - ${t0/./} ))"
		done
	done
	for spec in "$@"; do
		name=${spec%%=*}
		# shellcheck disable=SC2086
		T[$name]=$(awk "BEGIN {printf \"%.4f\", $(median ${us[$name]}) / 1e6}")
		# shellcheck disable=SC2086
		S[$name]=$(printf '%s\n' ${us[$name]} | sort -g |
			awk 'NR == 1 {lo = $1} {hi = $1} END {printf "%.4f-%.4f", lo / 1e6, hi / 1e6}')
	done
}

ratio() { awk "BEGIN {printf \"%.2f\", $1 / $2}"; }
pct() { awk "BEGIN {printf \"%+.2f%%\", ($1 - $2) * 100 / $2}"; }
