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
# zdeb-perf's modules (round_share uses its statistics)
timing_perf=$(cd "$(dirname "${BASH_SOURCE[0]}")/../src/perf" && pwd)

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
# "lowest-highest" seconds; U[NAME] each round's microseconds, in order.
# rounds_gap, if set, is the seconds of idle before each run (a command
# run on its own, not back to back: memory the host took back meanwhile).
declare -A T PRE S U
rounds() {
	local runs=$1 r spec name cmd t0 t1
	local -A us
	shift
	for ((r = 0; r < runs; r++)); do
		for spec in "$@"; do
			name=${spec%%=*}
			cmd=${spec#*=}
			[ -z "${PRE[$name]:-}" ] || eval "${PRE[$name]}"
			[ -z "${rounds_gap:-}" ] || sleep "$rounds_gap"
			t0=$EPOCHREALTIME
			eval "$cmd" >/dev/null 2>&1 || {
				echo "failed: $cmd" >&2; exit 1; }
			t1=$EPOCHREALTIME
			us[$name]+=" $(( ${t1/./} - ${t0/./} ))"
		done
	done
	for spec in "$@"; do
		name=${spec%%=*}
		U[$name]=${us[$name]}
		# shellcheck disable=SC2086
		T[$name]=$(awk "BEGIN {printf \"%.4f\", $(median ${us[$name]}) / 1e6}")
		# shellcheck disable=SC2086
		S[$name]=$(printf '%s\n' ${us[$name]} | sort -g |
			awk 'NR == 1 {lo = $1} {hi = $1} END {printf "%.4f-%.4f", lo / 1e6, hi / 1e6}')
	done
}

ratio() { awk "BEGIN {printf \"%.2f\", $1 / $2}"; }
# round_share NUM DEN K: per round r, NUM_r / (K x DEN_r) (names of
# rounds() results); prints their median and its distribution-free 95 %
# interval, "0.81 [0.74, 0.86]" (zdeb_perf.stats.median_text)
round_share() {
	python3 - "$timing_perf" "$3" "${U[$1]}" "${U[$2]}" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
from zdeb_perf import stats
k = float(sys.argv[2])
xs = [float(a) / (k * float(b))
      for a, b in zip(sys.argv[3].split(), sys.argv[4].split())]
print(stats.median_text(xs))
PY
}
pct() { awk "BEGIN {printf \"%+.2f%%\", ($1 - $2) * 100 / $2}"; }
