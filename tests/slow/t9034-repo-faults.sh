#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# zdeb repo under faults: 12 real packages of t9030's set (fetched the
# same way, tests/slow/lib.sh slow_repo_debs) are converted once cleanly
# (the reference), then under each fault:
#  - SIGKILL to the process group of "zdeb repo run --jobs 2" at random
#    moments (ZDEB_FAULT_KILLS, default 30: each once a random share of
#    the jobs left is done, plus a random delay of up to one job's time
#    in the clean run, drawn with awk's srand from ZDEB_FAULT_SEED,
#    default the time, printed), in chains of up to 10 kills on one
#    destination before a run to the end;
#  - DST on a tmpfs too small for the pool (ENOSPC), then made larger;
#  - what a power loss can leave after a finish (an output cut to zero
#    bytes, one cut to half, one gone): finish without a rerun must fail
#    naming them, the index left as it was, and the rerun redo them;
#  - DST made read-only (a read-only bind mount) while the run works,
#    then writable again;
#  - two "zdeb repo run --jobs 2" at once on one job list, and with them
#    a Slurm array of contrib/repo/zdeb-repo.sbatch over the same list
#    when Slurm starts here (slow_slurm_start; said so when it does not).
#  - zdeb build and recompress with OUT on a full tmpfs, over a file-size
#    limit (prlimit --fsize: EFBIG) and killed (SIGKILL) at 4 random
#    moments, each with no file at OUT and with one there; zdeb extract
#    into a full tmpfs and over a file-size limit.  These hold when OUT
#    is the file there before (or nothing) or the whole new package,
#    never a part, nothing is left beside it after an error, and the
#    error is an exit status, not a signal.
# A repo fault holds when, after it, no pool file differs from the
# reference's (a path holds the whole package or nothing), "zdeb repo
# finish --partial" indexes only whole files (every Packages stanza's Size
# and SHA256 those of its file), and after runs to the end the pool is
# byte for byte the reference's (no file more, none less) and "finish"
# indexes all 12.  Prints how many faults it tried and how many held;
# fails if any did not hold.
#
# Run by "make check-slow": needs root (mount), debootstrap and the
# Debian mirror; takes 1-5 minutes (more on a loaded machine).  Skips (77) with the reason when the
# mirror is unreachable.
. "$(dirname "$0")/../integ/lib.sh"
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root (debootstrap, chroot, mount)"
need debootstrap chroot apt-ftparchive python3 setsid mount awk prlimit dpkg-deb
export ZDEB
C=${ZDEB_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/contrib/repo
m=$(slow_mirror) || exit 77
set -- $m
MIRROR=$1 SUITE=$2
slow_probe "$MIRROR/dists/$SUITE/Release"
TOOLS=${ZDEB_REPO_TOOLS:-"python3 curl file jq bc zstd patch tree less gpg rsync"}
N=${ZDEB_FAULT_PKGS:-12}
KILLS=${ZDEB_FAULT_KILLS:-30}
SEED=${ZDEB_FAULT_SEED:-$(date +%s)}

slow_traps
trap 'slow_stop_daemons
      for p in ${bg:-}; do kill -9 "-$p" 2>/dev/null || true; done
      for d in "$T/ro" "$T/small"; do umount "$d" 2>/dev/null || true; done
      umount "$T/chroot/proc" 2>/dev/null || true
      rm -rf --one-file-system "$T"' EXIT
slow_repo_debs "$SUITE" "$MIRROR" "$T/chroot" "$T/all" "$TOOLS"
S=$T/src
slow_repo_subset "$T/all" "$N" "$S"
ok "$N of t9030's $npkgs packages ($(du -sk "$S" | cut -f1) KiB)"

# The reference: one clean run.
expect_status 0 "$ZDEB" repo plan "$S" "$T/ref"
start=$(date +%s%N)
expect_status 0 "$ZDEB" repo run --jobs 2 "$T/ref/.zdeb-repo/jobs.jsonl"
full_ms=$((($(date +%s%N) - start) / 1000000))
slow_pool_sums "$T/ref" >"$T/ref.sums"
[ "$(wc -l <"$T/ref.sums")" -eq "$N" ] ||
	fail "the clean run made $(wc -l <"$T/ref.sums") of $N packages"
ok "the reference: one clean repo run --jobs 2 of $N packages in $full_ms ms"

tried=0 held=0 broke=
# fault_result WHAT OK: counts a fault; OK is "" when it held, else why.
fault_result() {
	tried=$((tried + 1))
	if [ -z "$2" ]; then
		held=$((held + 1))
		echo "# held: $1" >&2
	else
		broke="$broke
  $1: $2"
		echo "# NOT HELD: $1: $2" >&2
	fi
}

# pool_whole DST: "" when every file of DST's pool at a path of the
# reference is the reference's, byte for byte; else what is not.
pool_whole() {
	slow_pool_sums "$1" | awk 'NR == FNR { ref[$2] = $1; next }
		($2 in ref) && ref[$2] != $1 { printf "%s differs; ", $2 }' \
		"$T/ref.sums" -
}

# finish_partial_ok DST: "" when every stanza that "finish --partial" on
# DST leaves indexed is its file (when it fails, e.g. on a full DST, any
# index an earlier one wrote must still be whole) and, when it exits 0,
# there is an index; else what is not.
finish_partial_ok() {
	set +e
	"$ZDEB" repo finish --partial --perf-sample 0 "$1" >"$T/fin.out" 2>&1
	fst=$?
	set -e
	if ! ls "$1"/dists/*/*/binary-*/Packages >/dev/null 2>&1; then
		[ "$fst" -ne 0 ] || echo "finish --partial exited 0, no index"
		return 0
	fi
	slow_index_ok "$1" ||
		echo "finish --partial (exit $fst): $(cat "$T/index-check")"
}

# complete_ok DST: "" when a run to the end exits 0, the pool is the
# reference's byte for byte and finish indexes all N with their files'
# sizes and hashes; else what is not.
complete_ok() {
	"$ZDEB" repo run --jobs 2 "$1/.zdeb-repo/jobs.jsonl" \
		>"$T/rerun.out" 2>&1 ||
		{ echo "the rerun exited $?: $(tail -3 "$T/rerun.out")"; return; }
	slow_pool_sums "$1" >"$T/got.sums"
	diff "$T/ref.sums" "$T/got.sums" >"$T/sums.diff" ||
		{ echo "pool not the reference's: $(cat "$T/sums.diff")"; return; }
	"$ZDEB" repo finish --perf-sample 0 "$1" >"$T/fin.out" 2>&1 ||
		{ echo "finish exited $?: $(tail -3 "$T/fin.out")"; return; }
	slow_index_ok "$1" "$N" || echo "finish: $(cat "$T/index-check")"
}

# 1. SIGKILL at random moments.
echo "# SIGKILL: $KILLS kills, seed $SEED (ZDEB_FAULT_SEED=$SEED to replay)" >&2
# Each kill: after a random share of the jobs left is done, a random
# delay of up to the time one job took in the clean run (within a job's
# conversion, or between two).
awk -v seed="$SEED" -v k="$KILLS" -v job="$((full_ms / N))" '
	BEGIN { srand(seed); for (i = 0; i < k; i++)
		printf "%.3f %.3f\n", rand(), rand() * job / 1000 }' \
	>"$T/delays"
D=$T/kill
chain=0 i=0 pending= ended=0
exec 3<"$T/delays"
while read -r frac delay <&3; do
	i=$((i + 1))
	if [ ! -d "$D" ]; then
		chain=$((chain + 1))
		expect_status 0 "$ZDEB" repo plan "$S" "$D"
	fi
	have=$(slow_results_count "$D")
	want=$(awk -v f="$frac" -v h="$have" -v n="$N" \
		'BEGIN { print h + int(f * (n - h)) }')
	setsid "$ZDEB" repo run --jobs 2 "$D/.zdeb-repo/jobs.jsonl" \
		>"$T/kill.out" 2>&1 </dev/null &
	bg=$!
	w=0
	while [ "$(slow_results_count "$D")" -lt "$want" ] &&
	      kill -0 "$bg" 2>/dev/null && [ "$w" -lt 3000 ]; do
		sleep 0.02
		w=$((w + 1))
	done
	sleep "$delay"
	kill -9 "-$bg" 2>/dev/null || true
	set +e
	wait "$bg"
	st=$?
	set -e
	bg=
	if [ "$st" -eq 137 ]; then
		what="kill $i (chain $chain) at $want results + $delay s, $(slow_results_count "$D") results"
	else
		# Not a fault: the run had ended (its own exit status).
		ended=$((ended + 1))
		echo "# kill $i (chain $chain) at $want results + $delay s: the run had ended (exit $st)" >&2
		[ "$st" -eq 0 ] || fault_result "run after kills" \
			"exit $st: $(tail -3 "$T/kill.out")"
		what=
	fi
	why=$(pool_whole "$D")
	[ -n "$why" ] || why=$(finish_partial_ok "$D")
	if [ -n "$why" ]; then
		fault_result "${what:-a run to its end after kills}" "$why"
	elif [ -n "$what" ]; then
		pending="$pending$what;"
	fi
	# Every 10th kill, the last, and when the run ended by itself: the
	# chain's destination run to the end; its kills held if that is the
	# reference.
	if [ $((i % 10)) -eq 0 ] || [ "$i" -eq "$KILLS" ] ||
	   [ "$st" -ne 137 ]; then
		why=$(complete_ok "$D")
		echo "$pending" | tr ';' '\n' | while read -r w; do
			[ -z "$w" ] || echo "$w"
		done >"$T/pending"
		while read -r w; do
			fault_result "$w, then run to the end" "$why"
		done <"$T/pending"
		pending=
		rm -rf "$D"
	fi
done
exec 3<&-
[ $((KILLS - ended)) -ge $((KILLS / 2)) ] ||
	fail "only $((KILLS - ended)) of $KILLS kills came before the run's end"
ok "SIGKILL of repo run --jobs 2: $((KILLS - ended)) kills during the run ($ended came after its end) in $chain chains, seed $SEED"

# 2. ENOSPC: DST on a tmpfs of half the pool's size, then of enough.
pool_kb=$(du -sk "$T/ref/pool" | cut -f1)
mkdir -p "$T/small"
mount -t tmpfs -o size=$((pool_kb / 2))k zdeb-enospc "$T/small"
expect_status 0 "$ZDEB" repo plan "$S" "$T/small/dst"
set +e
"$ZDEB" repo run --jobs 2 "$T/small/dst/.zdeb-repo/jobs.jsonl" >"$T/nospc.out" 2>"$T/nospc.err"
st=$?
set -e
why=
[ "$st" -ne 0 ] || why="repo run exited 0 on a full file system"
# The reason, on stderr or in the failed jobs' result lines (stdout).
[ -n "$why" ] ||
	grep -q 'No space left on device' "$T/nospc.err" "$T/nospc.out" ||
	why="no ENOSPC message: $(tail -3 "$T/nospc.err" "$T/nospc.out")"
[ -n "$why" ] || why=$(pool_whole "$T/small/dst")
[ -n "$why" ] || why=$(finish_partial_ok "$T/small/dst")
mount -o remount,size=$((pool_kb * 4 + 4096))k "$T/small"
[ -n "$why" ] || why=$(complete_ok "$T/small/dst")
fault_result "ENOSPC: DST on a tmpfs of $((pool_kb / 2)) KiB (exit $st), then larger" "$why"
umount "$T/small"

# 2b. What a power loss can leave: after a finish, one output cut to zero
# bytes, one cut to half, one deleted.  finish without a rerun must fail
# naming them and leave the indexes as they were; the rerun must redo
# the three.
D=$T/cut
expect_status 0 "$ZDEB" repo plan "$S" "$D"
expect_status 0 "$ZDEB" repo run --jobs 2 "$D/.zdeb-repo/jobs.jsonl"
expect_status 0 "$ZDEB" repo finish --perf-sample 0 "$D"
cp "$D/dists/stable/main/binary-amd64/Packages" "$T/packages.before"
set -- $(cd "$D" && find pool -name '*.deb' | LC_ALL=C sort | head -3)
: >"$D/$1"
head -c $(($(stat -c %s "$D/$2") / 2)) "$D/$2" >"$T/half"
cat "$T/half" >"$D/$2"
rm "$D/$3"
set +e
"$ZDEB" repo finish --perf-sample 0 "$D" >"$T/cut.out" 2>&1
st=$?
set -e
why=
[ "$st" -ne 0 ] || why="finish exited 0 over a cut and a missing output"
for f in "$1" "$2" "$3"; do
	[ -n "$why" ] || grep -qF "$(basename "$f")" "$T/cut.out" ||
		why="finish does not name $f: $(cat "$T/cut.out")"
done
[ -n "$why" ] ||
	cmp -s "$T/packages.before" "$D/dists/stable/main/binary-amd64/Packages" ||
	why="finish (exit $st) changed the Packages index"
[ -n "$why" ] || why=$(complete_ok "$D")
[ -n "$why" ] || [ "$(grep -c 'did not match\|does not match' "$T/rerun.out")" -ge 3 ] ||
	why="the rerun does not say it redid the three: $(cat "$T/rerun.out")"
fault_result "outputs cut to 0 bytes and to half and one deleted after a finish: finish exit $st naming them, then rerun" "$why"

# 3. A read-only DST, made so while the run works.
D=$T/ro
mkdir "$D"
expect_status 0 "$ZDEB" repo plan "$S" "$D"
mount --bind "$D" "$D"
setsid "$ZDEB" repo run --jobs 2 "$D/.zdeb-repo/jobs.jsonl" >"$T/ro.out" 2>"$T/ro.err" &
bg=$!
i=0
while [ "$(slow_results_count "$D")" -lt 2 ] && [ "$i" -lt 600 ]; do
	sleep 0.05
	i=$((i + 1))
done
# EBUSY while a file is open for writing on it: tried again.
i=0
until mount -o remount,bind,ro "$D" 2>/dev/null; do
	i=$((i + 1))
	[ "$i" -lt 1000 ] || fail "cannot make $D read-only"
	sleep 0.005
done
k=$(slow_results_count "$D")
set +e
wait "$bg"
st=$?
set -e
bg=
why=
[ "$k" -lt "$N" ] || why="the run had ended before DST was read-only"
[ -n "$why" ] || [ "$st" -ne 0 ] || why="repo run exited 0 with a read-only DST"
[ -n "$why" ] ||
	grep -q 'Read-only file system' "$T/ro.err" "$T/ro.out" ||
	why="no EROFS message: $(tail -3 "$T/ro.err" "$T/ro.out")"
[ -n "$why" ] || why=$(pool_whole "$D")
mount -o remount,bind,rw "$D"
[ -n "$why" ] || why=$(finish_partial_ok "$D")
[ -n "$why" ] || why=$(complete_ok "$D")
fault_result "read-only DST after $k results (exit $st), then writable" "$why"
umount "$D"

# 4. Two repo run --jobs 2 at once on one job list, and a Slurm array.
D=$T/twice
J=$D/.zdeb-repo/jobs.jsonl
expect_status 0 "$ZDEB" repo plan "$S" "$D"
slurm=
if slow_slurm_start "$T/slurm"; then
	slurm=yes
	(cd "$T/slurm/out" && sbatch --parsable --array=0-$((N - 1))%2 \
		--cpus-per-task=1 --mem=512M "$C/zdeb-repo.sbatch" "$J") \
		>"$T/jid" 2>&1 || fail "sbatch: $(cat "$T/jid")"
else
	echo "# Slurm does not start, the array is left out: $(cat "$T/slurm/why")" >&2
fi
"$ZDEB" repo run --jobs 2 "$J" >"$T/a.out" 2>&1 &
a=$!
"$ZDEB" repo run --jobs 2 "$J" >"$T/b.out" 2>&1 &
b=$!
set +e
wait "$a"
sa=$?
wait "$b"
sb=$?
set -e
if [ -n "$slurm" ]; then
	i=0
	while [ -n "$(squeue -h -j "$(cat "$T/jid")" 2>/dev/null)" ]; do
		i=$((i + 1))
		[ "$i" -le 1800 ] || fail "the Slurm array still queued after 3 min"
		sleep 0.1
	done
	slow_stop_daemons
fi
why=
[ "$sa" -eq 0 ] && [ "$sb" -eq 0 ] ||
	why="exit $sa and $sb: $(tail -2 "$T/a.out" "$T/b.out")"
[ -n "$why" ] || why=$(pool_whole "$D")
[ -n "$why" ] || why=$(complete_ok "$D")
fault_result "two repo run --jobs 2${slurm:+ and a Slurm array} at once on one job list" "$why"
if [ -n "$slurm" ]; then
	nout=$(ls "$T/slurm/out" | grep -c '^zdeb-repo-.*\.out$' || true)
	[ "$nout" -eq "$N" ] ||
		fail "the Slurm array ran $nout of $N tasks: $(ls "$T/slurm/out")"
fi

# 5. zdeb build and recompress (OUT on a full tmpfs, under a file-size
# limit, SIGKILL at random moments; with no file at OUT and with one
# there, which must be kept) and extract (full, limited): never a
# partial .deb at OUT, no temporary left beside it after a failure.
BIG=$(ls -S "$T/all"/*.deb | sed -n 8p)
start=$(date +%s%N)
expect_status 0 "$ZDEB" recompress "$BIG" "$T/clean-recompress.deb"
recompress_ms=$((($(date +%s%N) - start) / 1000000))
mkdir "$T/tree"
dpkg-deb -R "$BIG" "$T/tree"
start=$(date +%s%N)
expect_status 0 "$ZDEB" build "$T/tree" "$T/clean-build.deb"
build_ms=$((($(date +%s%N) - start) / 1000000))
expect_status 0 "$ZDEB" build "$T/tree" "$T/clean-build2.deb"
cmp -s "$T/clean-build.deb" "$T/clean-build2.deb" ||
	fail "zdeb build of one tree twice differs"
OLD=$(ls -S "$T/all"/*.deb | tail -1)
mkdir "$T/out"

# one CMD OUT: zdeb CMD writing OUT.
one() {
	case $1 in
	build) "$ZDEB" build "$T/tree" "$2" ;;
	recompress) "$ZDEB" recompress "$BIG" "$2" ;;
	esac
}
in_build=$T/tree in_recompress=$BIG

# out_ok DIR PRE CLEAN LEFTOVERS: "" when DIR holds only x.deb, and it
# is PRE's copy (the file there before) or CLEAN, or nothing when PRE is
# "" ("-" for either); LEFTOVERS "yes" lets other files be.
out_ok() {
	if [ -f "$1/x.deb" ]; then
		if [ -n "$2" ] && cmp -s "$1/x.deb" "$2"; then
			:
		elif [ -n "$3" ] && cmp -s "$1/x.deb" "$3"; then
			:
		else
			echo "a partial or foreign x.deb ($(stat -c %s "$1/x.deb") bytes)"
			return
		fi
	elif [ -n "$2" ]; then
		echo "the file there before is gone"
		return
	fi
	[ "$4" = yes ] ||
	[ -z "$(ls -A "$1" | grep -vx x.deb)" ] ||
		echo "left beside it: $(ls -A "$1" | grep -vx x.deb)"
}

for cmd in recompress build; do
	clean=$T/clean-$cmd.deb
	size=$(stat -c %s "$clean")
	for pre in "" "$OLD"; do
		there=${pre:+, a file already there}
		# ENOSPC
		mkdir -p "$T/small"
		mount -t tmpfs -o size=$((size / 2 / 1024 + $(stat -c %s "$OLD") / 1024 + 8))k \
			zdeb-enospc "$T/small"
		[ -z "$pre" ] || cp "$pre" "$T/small/x.deb"
		set +e
		one "$cmd" "$T/small/x.deb" >"$T/one.out" 2>&1
		st=$?
		set -e
		why=
		[ "$st" -ne 0 ] && [ "$st" -lt 128 ] ||
			why="exit $st on a full file system: $(tail -2 "$T/one.out")"
		[ -n "$why" ] || why=$(out_ok "$T/small" "$pre" "" no)
		fault_result "zdeb $cmd, OUT on a full tmpfs$there (exit $st)" "$why"
		umount "$T/small"
		rmdir "$T/small"
		# EFBIG
		rm -rf "$T/out" && mkdir "$T/out"
		[ -z "$pre" ] || cp "$pre" "$T/out/x.deb"
		set +e
		eval "in=\$in_$cmd"
		prlimit --fsize=$((size / 2)) "$ZDEB" "$cmd" "$in" "$T/out/x.deb" \
			>"$T/one.out" 2>&1
		st=$?
		set -e
		why=
		[ "$st" -ne 0 ] && [ "$st" -lt 128 ] ||
			why="exit $st over the file-size limit: $(tail -2 "$T/one.out")"
		[ -n "$why" ] || why=$(out_ok "$T/out" "$pre" "" no)
		fault_result "zdeb $cmd, over a file-size limit of $((size / 2)) bytes$there (exit $st)" "$why"
		# SIGKILL at 4 random moments (within 70 % of the time a
		# clean run took), then one run to the end.
		rm -rf "$T/out" && mkdir "$T/out"
		[ -z "$pre" ] || cp "$pre" "$T/out/x.deb"
		seed=$((SEED + ${#cmd} + ${#pre}))
		for frac in $(awk -v seed="$seed" 'BEGIN { srand(seed)
			for (i = 0; i < 4; i++) printf "%.3f\n", 0.7 * rand() }'); do
			eval "ms=\$${cmd}_ms in=\$in_$cmd"
			delay=$(awk -v f="$frac" -v ms="$ms" \
				'BEGIN { printf "%.3f", f * ms / 1000 }')
			setsid "$ZDEB" "$cmd" "$in" "$T/out/x.deb" \
				>"$T/one.out" 2>&1 </dev/null &
			bg=$!
			sleep "$delay"
			kill -9 "-$bg" 2>/dev/null || true
			set +e
			wait "$bg"
			st=$?
			set -e
			bg=
			why=$(out_ok "$T/out" "$pre" "$clean" yes)
			if [ "$st" -eq 137 ]; then
				fault_result "zdeb $cmd, SIGKILL at $delay s$there" "$why"
			else
				echo "# zdeb $cmd, SIGKILL at $delay s: it had ended (exit $st)" >&2
				[ -z "$why" ] || fault_result "zdeb $cmd after kills" "$why"
			fi
		done
		set +e
		one "$cmd" "$T/out/x.deb" >"$T/one.out" 2>&1
		st=$?
		set -e
		why=
		[ "$st" -eq 0 ] || why="exit $st: $(tail -2 "$T/one.out")"
		[ -n "$why" ] || why=$(out_ok "$T/out" "" "$clean" no)
		fault_result "zdeb $cmd run to the end after the kills$there" "$why"
	done
done

# extract: DIR on a full tmpfs, and over a file-size limit.
mkdir -p "$T/small"
mount -t tmpfs -o size=256k zdeb-enospc "$T/small"
set +e
"$ZDEB" extract "$BIG" "$T/small/x" >"$T/one.out" 2>&1
st=$?
set -e
why=
[ "$st" -ne 0 ] && [ "$st" -lt 128 ] ||
	why="exit $st on a full file system: $(tail -2 "$T/one.out")"
fault_result "zdeb extract, DIR on a full tmpfs (exit $st)" "$why"
umount "$T/small"
set +e
prlimit --fsize=32768 "$ZDEB" extract "$BIG" "$T/x" >"$T/one.out" 2>&1
st=$?
set -e
why=
[ "$st" -ne 0 ] && [ "$st" -lt 128 ] ||
	why="exit $st over a file-size limit: $(tail -2 "$T/one.out")"
fault_result "zdeb extract over a file-size limit of 32 KiB (exit $st)" "$why"

echo "# faults tried: $tried, held: $held" >&2
[ "$held" -eq "$tried" ] || fail "$((tried - held)) of $tried faults did not hold (seed $SEED):$broke"
ok "repo faults: $tried tried, $held held (seed $SEED)"
