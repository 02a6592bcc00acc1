#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# contrib/repo's cluster entry points on real engines, killed midway: a
# repository of 10 real packages from t9030's set (fetched the same way,
# tests/slow/lib.sh slow_repo_debs) is converted
#  - by GNU parallel (contrib/repo/zdeb-repo-parallel --jobs 2), whose
#    process group is sent SIGKILL once 3 results are in, then run again;
#  - by a one-node Slurm cluster that this test starts on 127.0.0.1 from
#    Debian's munge, slurmctld and slurmd (slow_slurm_start): the
#    contrib/repo/zdeb-repo.sbatch array is submitted, scancel'ed once 3
#    results are in, and submitted again with sbatch --wait;
# and each pool must be byte for byte that of one local "zdeb repo run
# --jobs 2", and "zdeb repo finish" on it must index every package with
# the Size and SHA256 of its file.  Every daemon started is stopped by
# its PID on exit.
#
# Run by "make check-slow": needs root, debootstrap, the Debian mirror,
# GNU parallel and Slurm; takes about a minute.  Skips (77) with the
# reason when the mirror is unreachable or Slurm does not start.
. "$(dirname "$0")/../integ/lib.sh"
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root (debootstrap, chroot, slurmd)"
need debootstrap chroot apt-ftparchive python3 parallel setsid curl
export ZDEB
C=${ZDEB_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/contrib/repo
m=$(slow_mirror) || exit 77
set -- $m
MIRROR=$1 SUITE=$2
slow_probe "$MIRROR/dists/$SUITE/Release"
TOOLS=${ZDEB_REPO_TOOLS:-"python3 curl file jq bc zstd patch tree less gpg rsync"}
N=${ZDEB_SLURM_PKGS:-10}

slow_traps
trap 'slow_stop_daemons
      [ -z "${ppid:-}" ] || kill -9 "-$ppid" 2>/dev/null || true
      umount "$T/chroot/proc" 2>/dev/null || true
      rm -rf --one-file-system "$T"' EXIT
slow_repo_debs "$SUITE" "$MIRROR" "$T/chroot" "$T/all" "$TOOLS"
S=$T/src
slow_repo_subset "$T/all" "$N" "$S"
ok "$N of t9030's $npkgs packages ($(du -sk "$S" | cut -f1) KiB)"

# The reference: one local run.
expect_status 0 "$ZDEB" repo plan "$S" "$T/ref"
expect_status 0 "$ZDEB" repo run --jobs 2 "$T/ref/.zdeb-repo/jobs.jsonl"
slow_pool_sums "$T/ref" >"$T/ref.sums"
[ "$(wc -l <"$T/ref.sums")" -eq "$N" ] ||
	fail "the local run made $(wc -l <"$T/ref.sums") of $N packages"

# wait_results DST K SECONDS: until DST holds K results.
wait_results() {
	i=0
	while [ "$(slow_results_count "$1")" -lt "$2" ]; do
		i=$((i + 1))
		[ "$i" -le $(($3 * 10)) ] ||
			fail "$1: $(slow_results_count "$1") results after $3 s"
		sleep 0.1
	done
}

# same_as_ref DST WHAT: DST's pool is the reference's, byte for byte, and
# finish indexes all of it with the sizes and hashes of the files.
same_as_ref() {
	slow_pool_sums "$1" >"$T/got.sums"
	diff "$T/ref.sums" "$T/got.sums" >"$T/sums.diff" ||
		fail "$2: the pool differs from the local run's: $(cat "$T/sums.diff")"
	expect_status 0 "$ZDEB" repo finish --perf-sample 0 "$1"
	slow_check_index "$1" "$N"
}

# GNU parallel, its whole process group killed midway, then run again.
P=$T/par
expect_status 0 "$ZDEB" repo plan "$S" "$P"
setsid sh "$C/zdeb-repo-parallel" "$P/.zdeb-repo/jobs.jsonl" --jobs 2 \
	>"$T/par1.log" 2>&1 &
ppid=$!
wait_results "$P" 3 120
kill -9 "-$ppid" 2>/dev/null || true
wait "$ppid" 2>/dev/null || true
ppid=
k=$(slow_results_count "$P")
[ "$k" -lt "$N" ] || fail "parallel finished all $N before it was killed"
expect_status 0 sh "$C/zdeb-repo-parallel" "$P/.zdeb-repo/jobs.jsonl" --jobs 2
same_as_ref "$P" "GNU parallel"
ok "zdeb-repo-parallel: SIGKILL to its process group with $k of $N done, run again: the pool is the local run's byte for byte, finish indexes all $N"

# Slurm.
slow_slurm_start "$T/slurm" || skip "Slurm does not start: $(cat "$T/slurm/why")"
ok "Slurm up: munged, slurmctld, slurmd on 127.0.0.1 (node localhost idle)"
D=$T/slurm-dst
J=$D/.zdeb-repo/jobs.jsonl
expect_status 0 "$ZDEB" repo plan "$S" "$D"
cd "$T/slurm/out"
# One task at a time, so that the array is cut midway.
jid=$(sbatch --parsable --array=0-$((N - 1))%1 --cpus-per-task=1 --mem=512M \
	"$C/zdeb-repo.sbatch" "$J" 2>"$T/sbatch.err") ||
	fail "sbatch: $(cat "$T/sbatch.err")"
wait_results "$D" 3 180
scancel "$jid" || fail "scancel $jid"
i=0
while [ -n "$(squeue -h -j "$jid" 2>/dev/null)" ]; do
	i=$((i + 1))
	[ "$i" -le 600 ] || fail "job $jid still queued 60 s after scancel: $(squeue)"
	sleep 0.1
done
k=$(slow_results_count "$D")
[ "$k" -lt "$N" ] || fail "the array finished all $N before scancel"
timeout 600 sbatch --wait --parsable --array=0-$((N - 1))%2 --cpus-per-task=1 \
	--mem=512M "$C/zdeb-repo.sbatch" "$J" >"$T/sbatch2.out" 2>&1 ||
	fail "sbatch --wait: $(cat "$T/sbatch2.out") $(tail -3 "$T/slurm/out/"*.out)"
cd "$T"
same_as_ref "$D" "Slurm"
grep -q '"verdict": "converted"' "$D/.zdeb-repo/results/"*.json ||
	fail "no converted result in the Slurm run"
ok "zdeb-repo.sbatch on Slurm: scancel with $k of $N done, submitted again: the pool is the local run's byte for byte, finish indexes all $N"
