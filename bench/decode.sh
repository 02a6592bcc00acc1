#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/decode.sh [--runs N] [--levels "3 19"] [lib | text | TREE]
# bench/decode.sh --ceiling [--runs N] [--levels 3] [--gap S] [lib | text | TREE]...
# bench/decode.sh --idle [--runs N] [--levels 3] [lib | text | TREE]...
# bench/decode.sh --ab OTHER [--runs N] [--levels 3] [lib | text | TREE]...
# bench/decode.sh --where [--runs N] [--levels 3] [lib | text | TREE]...
#
# Size and decode speed of zdeb's zstd layouts on one tar of real files
# (lib, the default: ~150 MB of /usr/lib/x86_64-linux-gnu and
# /usr/share/perl, compressible like most package payloads; text: the tree
# tools/demo-input.sh makes), against anchors measured in the same run: one
# plain `zstd --single-thread` frame, pzstd, `zstd -d`, `pzstd -d -p2`,
# stock `dpkg-deb --fsys-tarfile`, `xz -dc -T0`; decodes into /dev/null,
# then through a pipe into cat (as dpkg reads); then -T1 against -T2 into
# /dev/null, a file and a pipe into cat, wall and CPU time.  Prints the CPU,
# its caches and the load, medians and ratios.  Not a test.
#
# --ceiling: only the parallel decoder against the machine's own ceiling,
# for each tree given (default: lib text) and sink (/dev/null, a pipe into
# cat): -T1 and -T2 wall time, two -T1 decodes of two copies side by side
# each into a sink of its own (the ceiling for -T2/-T1: 2 x -T1 / the pair),
# -T2/-T1 as a share of that ceiling (and, "of null", of the /dev/null
# pair's, the one issue 27's first table used for both sinks), the share
# round by round (pair / (2 x -T2)) as a median with its 95 % interval, and
# zdeb's CPU time (task-clock) with -T2 against -T1; medians of interleaved
# rounds, with their spread.  --gap S: S seconds idle before each timed run
# (here and in the default table; not the CPU runs, nor --idle), as a
# command run on its own meets the machine (on a VM whose host takes free
# memory back, fresh pages then cost more than back to back; the last
# lines say what zdeb made its in-place buffers of here).
#
# --idle: where the CPUs sat idle while -T2 decoded into a pipe into cat,
# and while the ceiling's pair ran: each run recorded on its own by `perf
# sched record` (interleaved rounds), read back by zdeb-perf's schedidle:
# the run's window (first to last scheduling of zdeb or cat, run under
# names of their own), the CPU its tasks used, other tasks' CPU, idle CPU
# in % of CPUs x window, the part of it on one CPU while a zdeb or cat
# task was queued on another, busy one (the scheduler's placement), and
# zdeb's uninterruptible sleep (the mm lock, the pipe's mutex); medians
# with their 95 % intervals.  Needs perf; the recording slows every run,
# so the windows are not the table's wall times.
#
# --ab OTHER: this zdeb against another build of it (OTHER, a path), paired
# round by round into a pipe into cat: each round runs both -T2 and the
# ceiling's pair (this zdeb's -T1, two copies at once); prints each one's
# share of the ceiling round by round (pair / (2 x -T2)) and OTHER's -T2
# wall over this one's, each a median with its 95 % interval.  A change
# worth a few per cent shows there when the rounds' spread hides it in the
# medians.
#
# --where: where -T2 into a pipe into cat spends CPU time that the
# ceiling's pair does not: each run of either recorded on its own by `perf
# record -a -e cpu-clock` (a sample per 100 us of CPU; the kernel's clock,
# so it works on a VM without hardware counters; interleaved rounds), read
# back by zdeb-perf's cpuwhere: milliseconds per copy decoded (the pair
# decodes two) by task (zdeb, cat, idle, others) and by function, the
# rows where -T2 and the pair differ most first; medians with their 95 %
# intervals.  Needs perf; the recording slows every run.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
runs=7
levels="3 19"
ceiling=
idle=
where=
against=
rounds_gap=
zdeb=${ZDEB:-$top/_build/src/zdeb}
while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=$2; shift 2;;
	--levels) levels=$2; shift 2;;
	--ceiling) ceiling=1; shift;;
	--idle) idle=1; shift;;
	--where) where=1; shift;;
	--ab) against=$2; shift 2;;
	--gap) rounds_gap=$2; shift 2;;
	-h|--help) sed -n '3,59p' "$0"; exit 0;;
	*) break;;
	esac
done
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-1700000000}
W=$(mktemp -d "${TMPDIR:-/var/tmp}/zdeb-decode.XXXXXX")
trap 'rm -rf "$W"' EXIT

# base_deb lib|text|TREE OUT: OUT is the tree as an uncompressed .deb
base_deb() {
	local tree=$W/pkg
	rm -rf "$tree"
	if [ "$1" = text ]; then
		"$top/tools/demo-input.sh" "$tree" 2>/dev/null
	elif [ "$1" != lib ]; then
		tree=$1
	else
		mkdir -p "$tree/DEBIAN"
		find /usr/lib/x86_64-linux-gnu /usr/share/perl /usr/share/perl5 -type f -links 1 \
		     -printf '%s %p\n' 2>/dev/null | sort -k2 |
			awk '{ t += $1; sub(/^[0-9]+ /, ""); print; if (t > 150e6) exit }' \
			>"$W/list"
		tar -cf - -T "$W/list" 2>/dev/null | tar -xf - -C "$tree"
		printf 'Package: bench\nVersion: 1\nArchitecture: all\nMaintainer: b <b@example.org>\nDescription: bench\n' \
			>"$tree/DEBIAN/control"
	fi
	dpkg-deb -Znone -b "$tree" "$2" >/dev/null
	[ "$tree" != "$W/pkg" ] || rm -rf "$tree"
}
# caches: "L1d 32K, L1i 32K, L2 512K, L3 32768K (shared by 2)"
caches() {
	local d l t sz sh out=
	for d in /sys/devices/system/cpu/cpu0/cache/index*; do
		[ -r "$d/size" ] || continue
		l=$(cat "$d/level"); t=$(cat "$d/type"); sz=$(cat "$d/size")
		sh=$(cat "$d/shared_cpu_list" 2>/dev/null || echo 0)
		case $t in Data) t=d;; Instruction) t=i;; *) t=;; esac
		out="$out${out:+, }L$l$t $sz"
		case $sh in *[-,]*) out="$out (shared by $(echo "$sh" |
			awk -F'[-,]' '{print $NF - $1 + 1}'))";; esac
	done
	echo "${out:-unknown}"
}
cpu_line() {
	echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores; caches $(caches)"
	echo "memory: transparent huge pages $(grep -o '\[[a-z]*\]' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || echo '(none)')${rounds_gap:+; $rounds_gap s idle before each timed run}"
}
# buffers_line DEB: what zdeb made its in-place buffers of here (huge
# pages, or 4 KiB pages where the host takes free memory back), as
# `cat-data --segment-times` reports it (its pages line)
buffers_line() {
	echo "zdeb's in-place buffers: $("$zdeb" cat-data --segment-times "$1" |
		awk '$1 == "pages" { print ($6 == 1 ? "huge pages" : "4 KiB pages"); f = 1 }
		     END { if (!f) print "(not reported)" }')"
}

# shellcheck source=bench/timing.sh
. "$top/bench/timing.sh"

# pair_debs TREE LEVEL: $W/i.deb, the tree at LEVEL in zdeb's layout, and
# $W/i-copy.deb, a copy for the pair's second decode
pair_debs() {
	base_deb "$1" "$W/base.deb"
	"$zdeb" recompress -T2 -z"$2" "$W/base.deb" "$W/i.deb"
	cp "$W/i.deb" "$W/i-copy.deb"
	rm -f "$W/base.deb"
}

# ceiling_table TREE...: see --ceiling above
ceiling_table() {
	local L=${levels%% *} name r t k c1 c2 sp
	local -A cpu
	cpu_line
	echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) (wall times are only meaningful under 0.5)"
	echo "level $L; medians of $runs interleaved rounds, spread lowest-highest; pair: two -T1 decodes of two copies at once, each into its own sink; ceiling: 2 x -T1 / pair; of ceiling: (-T2/-T1) / ceiling; per round: of ceiling in each round (pair / (2 x -T2)), their median and its 95 % interval; cpu: zdeb's task-clock"
	printf '%-5s %-9s %-24s %-24s %-24s %7s %7s %7s %7s %-20s %9s %9s %8s\n' \
		tree sink "-T1 s" "-T2 s" "pair s" "-T2/-T1" ceiling \
		"of ceil" "of null" "per round" "cpu -T1" "cpu -T2" cpu
	for name in "$@"; do
		pair_debs "$name" "$L"
		local d="'$zdeb' cat-data"
		rounds "$runs" \
			"n1=$d -T1 '$W/i.deb'" "n2=$d -T2 '$W/i.deb'" \
			"npair=$d -T1 '$W/i.deb' & $d -T1 '$W/i-copy.deb'; wait" \
			"p1=$d -T1 '$W/i.deb' | cat" "p2=$d -T2 '$W/i.deb' | cat" \
			"ppair=$d -T1 '$W/i.deb' | cat & $d -T1 '$W/i-copy.deb' | cat; wait"
		cpu=()
		if command -v perf >/dev/null &&
		   perf stat -e task-clock true >/dev/null 2>&1; then
			for ((r = 0; r < runs; r++)); do
				for k in n1 n2 p1 p2; do
					t=${k#?}
					if [ "${k%?}" = p ]; then
						perf stat -x, -e task-clock -o "$W/cpu" \
							"$zdeb" cat-data -T"$t" "$W/i.deb" | cat >/dev/null
					else
						perf stat -x, -e task-clock -o "$W/cpu" \
							"$zdeb" cat-data -T"$t" "$W/i.deb" >/dev/null
					fi
					cpu[$k]+=" $(awk -F, '/task-clock/ {print $1}' "$W/cpu")"
				done
			done
		fi
		for sp in "/dev/null:n" "pipe, cat:p"; do
			k=${sp#*:}
			c1=-; c2=-
			if [ -n "${cpu[${k}1]:-}" ]; then
				# shellcheck disable=SC2086
				c1=$(awk "BEGIN {printf \"%.1f\", $(median ${cpu[${k}1]})}")
				# shellcheck disable=SC2086
				c2=$(awk "BEGIN {printf \"%.1f\", $(median ${cpu[${k}2]})}")
			fi
			local sup ceil nceil
			sup=$(ratio "${T[${k}1]}" "${T[${k}2]}")
			nceil=$(awk "BEGIN {printf \"%.2f\", 2 * ${T[n1]} / ${T[npair]}}")
			ceil=$(awk "BEGIN {printf \"%.2f\", 2 * ${T[${k}1]} / ${T[${k}pair]}}")
			printf '%-5s %-9s %-24s %-24s %-24s %6sx %6sx %7s %7s %-20s %7sms %7sms %8s\n' \
				"$(basename "$name")" "${sp%:*}" \
				"${T[${k}1]} (${S[${k}1]})" "${T[${k}2]} (${S[${k}2]})" \
				"${T[${k}pair]} (${S[${k}pair]})" "$sup" "$ceil" \
				"$(ratio "$sup" "$ceil")" "$(ratio "$sup" "$nceil")" \
				"$(round_share "${k}pair" "${k}2" 2)" \
				"$c1" "$c2" "$([ "$c1" = - ] && echo - || pct "$c2" "$c1")"
		done
	done
	buffers_line "$W/i.deb"
	echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
}

# ab_table OTHER TREE...: see --ab above
ab_table() {
	local other=$1 L=${levels%% *} name
	shift
	[ -x "$other" ] || { echo "--ab: $other is not an executable" >&2; exit 2; }
	cpu_line
	echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) (wall times are only meaningful under 0.5)"
	echo "level $L; $runs interleaved rounds into a pipe into cat; zdeb: $zdeb; other: $other; pair: zdeb -T1 of two copies at once; share: pair / (2 x -T2) round by round; other/zdeb: -T2's wall round by round; medians [95 % interval]"
	printf '%-5s %-24s %-24s %-24s %-20s %-20s %-20s\n' tree "zdeb -T2 s" \
		"other -T2 s" "pair s" "zdeb share" "other share" "other/zdeb"
	for name in "$@"; do
		pair_debs "$name" "$L"
		local d="'$zdeb' cat-data" o="'$other' cat-data"
		rounds "$runs" "a2=$d -T2 '$W/i.deb' | cat" \
			"b2=$o -T2 '$W/i.deb' | cat" \
			"ppair=$d -T1 '$W/i.deb' | cat & $d -T1 '$W/i-copy.deb' | cat; wait"
		printf '%-5s %-24s %-24s %-24s %-20s %-20s %-20s\n' \
			"$(basename "$name")" "${T[a2]} (${S[a2]})" \
			"${T[b2]} (${S[b2]})" "${T[ppair]} (${S[ppair]})" \
			"$(round_share ppair a2 2)" "$(round_share ppair b2 2)" \
			"$(round_share b2 a2 1)"
	done
	echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
}

# idle_table TREE...: see --idle above
idle_table() {
	local L=${levels%% *} name r k d cmd
	command -v perf >/dev/null && perf sched record -o "$W/probe" true >/dev/null 2>&1 ||
		{ echo "--idle needs perf sched record (perf, and the sched tracepoints)" >&2; exit 2; }
	# names of their own, so that no other zdeb or cat on the machine
	# counts as the pipeline's (a task's name is the file it ran)
	ln -sf "$zdeb" "$W/zdeb-idle"
	ln -sf "$(command -v cat)" "$W/cat-idle"
	cpu_line
	echo "$(perf version); load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "level $L; $runs interleaved rounds, each run recorded by perf sched record; medians [95 % interval]; idle, queued: % of CPUs x window; queued: idle on a CPU while a zdeb or cat task waited on another, busy one; D: zdeb's uninterruptible sleep"
	printf '%-5s %-22s %-28s %-28s %-26s %-26s %-26s %-26s\n' tree run "window ms" "busy ms" \
		"others ms" "idle %" "queued %" "D ms"
	for name in "$@"; do
		pair_debs "$name" "$L"
		d="'$W/zdeb-idle' cat-data"
		# a failing decode stops the bench here, not unseen in a record
		"$W/zdeb-idle" cat-data -T2 "$W/i.deb" >/dev/null
		"$W/zdeb-idle" cat-data -T1 "$W/i-copy.deb" >/dev/null
		for ((r = 0; r < runs; r++)); do
			for k in p2 ppair; do
				case $k in
				p2) cmd="$d -T2 '$W/i.deb' | '$W/cat-idle' >/dev/null";;
				ppair) cmd="$d -T1 '$W/i.deb' | '$W/cat-idle' >/dev/null & $d -T1 '$W/i-copy.deb' | '$W/cat-idle' >/dev/null; wait";;
				esac
				perf sched record -q -o "$W/$k.$r.data" -- sh -c "$cmd" >/dev/null 2>"$W/perf.log" &&
				perf sched timehist --state -i "$W/$k.$r.data" >"$W/$k.$r.txt" 2>>"$W/perf.log" || {
					echo "perf sched failed on $k, round $((r + 1)):" >&2
					cat "$W/perf.log" >&2
					exit 1
				}
				rm -f "$W/$k.$r.data"
			done
		done
		python3 - "$timing_perf" "$W" "$runs" "$name" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
from zdeb_perf import schedidle, stats
W, runs, name = sys.argv[2], int(sys.argv[3]), sys.argv[4]
def cell(xs):
    return stats.median_text(xs, "%.1f")
for k, label in (("p2", "-T2 | cat"), ("ppair", "pair (-T1 | cat) x 2")):
    bs = []
    for r in range(runs):
        with open("%s/%s.%d.txt" % (W, k, r)) as f:
            lines = f.readlines()
        lost = schedidle.lost(lines)
        if lost:
            sys.exit("%s, round %d: the record lost %d events" %
                     (k, r + 1, lost))
        b = schedidle.breakdown(schedidle.parse(lines),
                                names=("zdeb-idle", "cat-idle"))
        if b is None:
            sys.exit("%s, round %d: no zdeb or cat in the record" % (k, r + 1))
        bs.append(b)
    pct = lambda b, x: 100 * b[x] / (b["cpus"] * b["window"])
    print("%-5s %-22s %-28s %-28s %-26s %-26s %-26s %-26s" % (
        name, label, cell([b["window"] * 1e3 for b in bs]),
        cell([b["busy"] * 1e3 for b in bs]),
        cell([b["others"] * 1e3 for b in bs]),
        cell([pct(b, "idle") for b in bs]),
        cell([pct(b, "waiting") for b in bs]),
        cell([b["d_sleep"] * 1e3 for b in bs])))
PY
		rm -f "$W"/p2.* "$W"/ppair.*
	done
	buffers_line "$W/i.deb"
	echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
}

# where_table TREE...: see --where above
where_table() {
	local L=${levels%% *} name r k d cmd
	command -v perf >/dev/null &&
		perf record -q -a -e cpu-clock -o "$W/probe" true >/dev/null 2>&1 ||
		{ echo "--where needs perf record -a -e cpu-clock (perf, run as root)" >&2; exit 2; }
	rm -f "$W/probe"
	# names of their own, as in --idle
	ln -sf "$zdeb" "$W/zdeb-where"
	ln -sf "$(command -v cat)" "$W/cat-where"
	cpu_line
	echo "$(perf version); load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "level $L; $runs interleaved rounds, each run recorded by perf record -a -e cpu-clock -c 100000; ms per copy decoded (the pair decodes two); medians [95 % interval]; rows: the largest differences of the medians first, then by task"
	for name in "$@"; do
		pair_debs "$name" "$L"
		d="'$W/zdeb-where' cat-data"
		# a failing decode stops the bench here, not unseen in a record
		"$W/zdeb-where" cat-data -T2 "$W/i.deb" >/dev/null
		"$W/zdeb-where" cat-data -T1 "$W/i-copy.deb" >/dev/null
		for ((r = 0; r < runs; r++)); do
			for k in p2 ppair; do
				case $k in
				p2) cmd="$d -T2 '$W/i.deb' | '$W/cat-where' >/dev/null";;
				ppair) cmd="$d -T1 '$W/i.deb' | '$W/cat-where' >/dev/null & $d -T1 '$W/i-copy.deb' | '$W/cat-where' >/dev/null; wait";;
				esac
				perf record -q -a -e cpu-clock -c 100000 -o "$W/$k.$r.data" -- sh -c "$cmd" >/dev/null 2>"$W/perf.log" &&
				perf report -i "$W/$k.$r.data" --stdio --no-children -g none \
					-F period,sample,comm,dso,sym >"$W/$k.$r.txt" 2>>"$W/perf.log" || {
					echo "perf record failed on $k, round $((r + 1)):" >&2
					cat "$W/perf.log" >&2
					exit 1
				}
				rm -f "$W/$k.$r.data"
			done
		done
		python3 - "$timing_perf" "$W" "$runs" "$name" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
from zdeb_perf import cpuwhere, stats
W, runs, name = sys.argv[2], int(sys.argv[3]), sys.argv[4]
profiles = {}
for k in ("p2", "ppair"):
    ps = []
    for r in range(runs):
        with open("%s/%s.%d.txt" % (W, k, r)) as f:
            lines = f.readlines()
        lost = cpuwhere.lost(lines)
        if lost:
            sys.exit("%s, round %d: the record lost %d samples" %
                     (k, r + 1, lost))
        p = cpuwhere.profile(cpuwhere.parse(lines),
                             names=("zdeb-where", "cat-where"))
        if not any(w in ("zdeb", "cat") for w, _ in p):
            sys.exit("%s, round %d: no zdeb or cat in the record" %
                     (k, r + 1))
        ps.append(p)
    profiles[k] = ps
def cell(xs):
    return stats.median_text([x * 1e3 for x in xs], "%.2f")
fmt = "%-5s %-7s %-40s %-26s %-26s %8s"
print(fmt % ("tree", "task", "function", "-T2 | cat ms", "pair ms per copy",
             "-T2-pair"))
def line(who, what, a, b):
    print(fmt % (name, who, what[:40], cell(a), cell(b),
                 "%+.2f" % ((stats.median(a) - stats.median(b)) * 1e3)))
for who, what, a, b in cpuwhere.compare(profiles["p2"], profiles["ppair"]):
    line(who, what, a, b)
for who, a, b in cpuwhere.compare_totals(profiles["p2"], profiles["ppair"]):
    line(who, "(all of it)", a, b)
PY
		rm -f "$W"/p2.* "$W"/ppair.*
	done
	buffers_line "$W/i.deb"
	echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
}

if [ -n "$ceiling" ]; then
	[ $# -gt 0 ] || set -- lib text
	ceiling_table "$@"
	exit 0
fi
if [ -n "$against" ]; then
	[ $# -gt 0 ] || set -- text lib
	ab_table "$against" "$@"
	exit 0
fi
if [ -n "$idle" ]; then
	[ -z "$rounds_gap" ] || { echo "--gap: not with --idle (its runs are recorded back to back)" >&2; exit 2; }
	[ $# -gt 0 ] || set -- text lib
	idle_table "$@"
	exit 0
fi
if [ -n "$where" ]; then
	[ -z "$rounds_gap" ] || { echo "--gap: not with --where (its runs are recorded back to back)" >&2; exit 2; }
	[ $# -gt 0 ] || set -- text lib
	where_table "$@"
	exit 0
fi

base_deb "${1:-lib}" "$W/base.deb"
"$zdeb" cat-data "$W/base.deb" >"$W/data.tar"
mb=$(stat -c %s "$W/data.tar")
echo "input: $(awk "BEGIN {printf \"%.1f\", $mb / 1e6}") MB tar; median of $runs interleaved rounds"
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores; caches $(caches)"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) (wall times are only meaningful under 0.5)"

member() { (cd "$W" && ar p "$1" "$(ar t "$1" | sed -n 3p)") >"$2"; }
# cpu_ms RUNS CMD... : task-clock milliseconds of CMD, the mean of RUNS
# runs (perf stat -r; output dropped)
cpu_ms() {
	local n=$1
	shift
	perf stat -x, -e task-clock -r "$n" "$@" 2>&1 >/dev/null |
		awk -F, '/task-clock/ {printf "%.1f", $1}'
}

# sink_cpu RUNS n|f|p THREADS: zdeb's median task-clock (ms) into
# /dev/null, a file, a pipe into cat
sink_cpu() {
	local r v=() out=/dev/null
	if ! command -v perf >/dev/null ||
	   ! perf stat -e task-clock true >/dev/null 2>&1; then
		echo -
		return
	fi
	[ "$2" != f ] || out=$W/out.tar
	for ((r = 0; r < $1; r++)); do
		if [ "$2" = p ]; then
			perf stat -x, -e task-clock -o "$W/cpu" "$zdeb" cat-data \
				-T"$3" "$W/i.deb" | cat >/dev/null
		else
			perf stat -x, -e task-clock -o "$W/cpu" "$zdeb" cat-data \
				-T"$3" "$W/i.deb" >"$out"
		fi
		v+=("$(awk -F, '/task-clock/ {print $1}' "$W/cpu")")
	done
	awk "BEGIN {printf \"%.1f\", $(median "${v[@]}")}"
}

xz -T0 -6 -c "$W/data.tar" >"$W/data.tar.xz"
rounds "$runs" "xz=xz -dc -T0 '$W/data.tar.xz'"
t_xz=${T[xz]}

for L in $levels; do
	echo
	echo "== level $L"
	zstd -q --single-thread -$L -c "$W/data.tar" >"$W/plain.zst"
	pzstd -q -p 2 -$L -c "$W/data.tar" >"$W/p.zst"
	plain=$(stat -c %s "$W/plain.zst")
	pz=$(stat -c %s "$W/p.zst")
	# zstd -l counts skippable frames among its Frames: subtract them
	pzframes=$(zstd -l "$W/p.zst" | awk 'NR == 2 {print $1 - $2}')
	PRE[b1]="rm -f '$W/i1.deb'"
	PRE[b2]="rm -f '$W/i.deb'"
	rounds "$runs" "b1='$zdeb' recompress -T1 -z$L '$W/base.deb' '$W/i1.deb'" \
		"b2='$zdeb' recompress -T2 -z$L '$W/base.deb' '$W/i.deb'"
	t1b=${T[b1]}; t2b=${T[b2]}
	"$zdeb" recompress -z$L --layout=pzstd "$W/base.deb" "$W/pz.deb" 2>/dev/null
	"$zdeb" recompress -z$L --layout=frames "$W/base.deb" "$W/fr.deb" 2>/dev/null
	"$zdeb" recompress -z$L --layout=single "$W/base.deb" "$W/si.deb"
	member "$W/i.deb" "$W/i.zst"
	isz=$(stat -c %s "$W/i.zst")
	isegs=$("$zdeb" info --json "$W/i.deb" | sed 's/.*"data.tar.zst"[^}]*"segments": \([0-9]*\).*/\1/')
	printf '%-28s %12s %9s %9s\n' "size" bytes "vs plain" segments
	printf '%-28s %12d %9s %9d\n' "zstd --single-thread -$L" "$plain" "" 1
	printf '%-28s %12d %9s %9d\n' "pzstd -p2 -$L" "$pz" "$(pct "$pz" "$plain")" "$pzframes"
	printf '%-28s %12d %9s %9s\n' "zdeb indexed -$L" "$isz" "$(pct "$isz" "$plain")" "$isegs"
	echo "build (recompress) -T1 ${t1b}s, -T2 ${t2b}s: -T2 speed-up $(ratio "$t1b" "$t2b")x"

	cmds=("zstd=zstd -dc '$W/plain.zst'" "pz=pzstd -dc -p2 '$W/p.zst'"
	      "dpkg=dpkg-deb --fsys-tarfile '$W/si.deb'")
	for f in si i pz fr; do
		cmds+=("${f}1='$zdeb' cat-data -T1 '$W/$f.deb'"
		       "${f}2='$zdeb' cat-data -T2 '$W/$f.deb'")
	done
	# the machine's own 2-thread scaling: two independent -T1 decodes
	# (of two copies) at once, against one
	cp "$W/i.deb" "$W/i-copy.deb"
	cmds+=("pair='$zdeb' cat-data -T1 '$W/i.deb' >/dev/null & '$zdeb' cat-data -T1 '$W/i-copy.deb' >/dev/null; wait")
	rounds "$runs" "${cmds[@]}"
	t_zstd=${T[zstd]}; t_pz=${T[pz]}; t_dpkg=${T[dpkg]}
	printf '%-34s %8s %10s\n' "decode" "median" "vs zstd -d"
	printf '%-34s %7ss %10s\n' "zstd -d (plain frame)" "$t_zstd" "1.00"
	printf '%-34s %7ss %10s\n' "pzstd -d -p2 (pzstd file)" "$t_pz" "$(ratio "$t_zstd" "$t_pz")"
	printf '%-34s %7ss %10s\n' "dpkg-deb --fsys-tarfile (single)" "$t_dpkg" "$(ratio "$t_zstd" "$t_dpkg")"
	printf '%-34s %7ss %10s\n' "xz -dc -T0 (xz -6)" "$t_xz" "$(ratio "$t_zstd" "$t_xz")"
	for v in "single si" "indexed i" "pzstd pz" "frames fr"; do
		set -- $v
		a=${T[${2}1]}; b=${T[${2}2]}
		printf '%-34s %7ss %10s\n' "zdeb cat-data -T1 ($1)" "$a" "$(ratio "$t_zstd" "$a")"
		printf '%-34s %7ss %10s   (-T2/-T1 %sx)\n' "zdeb cat-data -T2 ($1)" "$b" "$(ratio "$t_zstd" "$b")" "$(ratio "$a" "$b")"
	done
	echo "two -T1 decodes of the indexed file at once: ${T[pair]}s, $(ratio "$(awk "BEGIN {print 2 * ${T[i1]}}")" "${T[pair]}")x the throughput of one (the ceiling for -T2/-T1 here)"
	# CPU time: how much more work the parallel path does than -T1, on
	# two cores and squeezed onto one (same extra: it is the work, not
	# the second core)
	if command -v perf >/dev/null && command -v taskset >/dev/null &&
	   perf stat -e task-clock true >/dev/null 2>&1; then
		c1=$(cpu_ms "$runs" "$zdeb" cat-data -T1 "$W/i.deb")
		c2=$(cpu_ms "$runs" "$zdeb" cat-data -T2 "$W/i.deb")
		c2one=$(cpu_ms "$runs" taskset -c 0 "$zdeb" cat-data -T2 "$W/i.deb")
		echo "cpu (task-clock, mean of perf stat -r $runs), indexed: -T1 ${c1} ms, -T2 ${c2} ms ($(pct "$c2" "$c1")), -T2 on one core ${c2one} ms ($(pct "$c2one" "$c1"))"
	fi

	# Through a pipe, as dpkg reads dpkg-deb --fsys-tarfile: the reader
	# (cat here) runs on the same cores as the decoder.
	rounds "$runs" "qzstd=zstd -dc '$W/plain.zst' | cat" \
		"qdpkg=dpkg-deb --fsys-tarfile '$W/si.deb' | cat" \
		"qdpkgi=dpkg-deb --fsys-tarfile '$W/i.deb' | cat" \
		"qi1='$zdeb' cat-data -T1 '$W/i.deb' | cat" \
		"qi2='$zdeb' cat-data -T2 '$W/i.deb' | cat" \
		"qdd='$zdeb' dpkg-deb --fsys-tarfile '$W/i.deb' | cat"
	t_q=${T[qzstd]}
	printf '%-34s %8s %10s\n' "decode | cat" "median" "vs zstd -d"
	for v in "zstd -d (plain frame):qzstd" \
	         "dpkg-deb --fsys-tarfile (single):qdpkg" \
	         "dpkg-deb --fsys-tarfile (indexed):qdpkgi" \
	         "zdeb cat-data -T1 (indexed):qi1" \
	         "zdeb cat-data -T2 (indexed):qi2" \
	         "zdeb dpkg-deb --fsys-tarfile:qdd"; do
		printf '%-34s %7ss %10s\n' "${v%:*}" "${T[${v##*:}]}" "$(ratio "$t_q" "${T[${v##*:}]}")"
	done

	# -T2 against -T1 into each kind of sink: wall time, and the CPU
	# time of zdeb alone (task-clock), which shows extra work at any load
	PRE[f1]="rm -f '$W/out.tar'"
	PRE[f2]="rm -f '$W/out.tar'"
	rounds "$runs" "n1='$zdeb' cat-data -T1 '$W/i.deb'" \
		"n2='$zdeb' cat-data -T2 '$W/i.deb'" \
		"f1='$zdeb' cat-data -T1 '$W/i.deb' >'$W/out.tar'" \
		"f2='$zdeb' cat-data -T2 '$W/i.deb' >'$W/out.tar'" \
		"p1='$zdeb' cat-data -T1 '$W/i.deb' | cat" \
		"p2='$zdeb' cat-data -T2 '$W/i.deb' | cat"
	printf '%-20s %8s %8s %7s %9s %9s %7s\n' "indexed, sink" "-T1" "-T2" "wall" "cpu -T1" "cpu -T2" "cpu"
	for k in "/dev/null:n" "file:f" "pipe to cat:p"; do
		c1=$(sink_cpu "$runs" "${k#*:}" 1)
		c2=$(sink_cpu "$runs" "${k#*:}" 2)
		printf '%-20s %7ss %7ss %6sx %7sms %7sms %7s\n' "${k%:*}" \
			"${T[${k#*:}1]}" "${T[${k#*:}2]}" \
			"$(ratio "${T[${k#*:}1]}" "${T[${k#*:}2]}")" "$c1" "$c2" \
			"$(pct "$c2" "$c1")"
	done
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "vs zstd -d: > 1 means faster than zstd -d on the plain frame"
