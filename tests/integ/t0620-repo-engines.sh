#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The cluster engine entry points of contrib/repo, driven here as their
# engines would: GNU parallel with an --sshloginfile (this host only), the
# Slurm array script with SLURM_ARRAY_TASK_ID set, the Kubernetes Indexed
# Job's container command with JOB_COMPLETION_INDEX set.  Each converts
# the same repository into its own DST: the same bytes whichever engine,
# a damaged package a failed task (exit status 1) recorded as such, and
# finish --partial indexing the rest.
. "$(dirname "$0")/lib.sh"
need dpkg-deb parallel python3
C=${ZDEB_SRCDIR:-$(dirname "$0")/../..}/contrib/repo
# The Job's YAML is read with PyYAML, from whichever python3 has it.
PY=
for p in /usr/bin/python3 python3; do
	if "$p" -c 'import yaml' 2>/dev/null; then PY=$p; break; fi
done
[ -n "$PY" ] || skip "no python3 with PyYAML (python3-yaml) to read the Job"

S=$T/src
mkdir -p "$S"
for i in 1 2 3 4 5 6; do
	d=$T/tree$i
	mkdir -p "$d/DEBIAN" "$d/usr/share/eng$i"
	printf 'Package: eng%s\nVersion: 1\nArchitecture: all\nMaintainer: t <t@example.org>\nDescription: t\n' \
		"$i" >"$d/DEBIAN/control"
	seq 1 $((i * 20000)) >"$d/usr/share/eng$i/numbers"
	dpkg-deb --root-owner-group -Zxz -b "$d" "$S/eng${i}_1_all.deb" >/dev/null
done
# eng6 damaged in its data member
n=$(stat -c %s "$S/eng6_1_all.deb")
printf 'XXXXXXXX' | dd of="$S/eng6_1_all.deb" bs=1 seek=$((n - 300)) \
	conv=notrunc 2>/dev/null
bad=5	# its line: the walk sorts by path

# plan DST: a job list for DST; its path on stdout.
plan() {
	"$ZDEB" repo plan "$S" "$1" >/dev/null || fail "plan $1"
	echo "$1/.zdeb-repo/jobs.jsonl"
}

# GNU parallel, with an sshloginfile naming only this host (":").
J=$(plan "$T/dst-parallel")
echo : >"$T/hosts"
set +e
ZDEB=$ZDEB "$C/zdeb-repo-parallel" "$J" --sshloginfile "$T/hosts" --jobs 2 \
	>"$T/par.out" 2>"$T/par.err"
rc=$?
set -e
[ $rc -eq 1 ] || fail "parallel: exit $rc (want 1: one failed task): $(cat "$T/par.err")"
[ "$(grep -c '"verdict": "converted"' "$T/par.out")" -eq 5 ] &&
	[ "$(grep -c '"verdict": "failed"' "$T/par.out")" -eq 1 ] ||
	fail "parallel results: $(cat "$T/par.out")"
ok "GNU parallel --sshloginfile: one task per line, the damaged package's fails"

# Slurm: the array script as sbatch runs it, once per task index.
J=$(plan "$T/dst-slurm")
for i in 0 1 2 3 4 5; do
	set +e
	env SLURM_ARRAY_TASK_ID=$i SLURM_ARRAY_JOB_ID=42 SLURM_CPUS_PER_TASK=1 \
		ZDEB="$ZDEB" sh "$C/zdeb-repo.sbatch" "$J" >"$T/slurm.$i" 2>&1
	rc=$?
	set -e
	want=0
	[ $i -ne $bad ] || want=1
	[ $rc -eq $want ] || fail "slurm task $i: exit $rc: $(cat "$T/slurm.$i")"
done
set +e
env -u SLURM_ARRAY_TASK_ID ZDEB="$ZDEB" sh "$C/zdeb-repo.sbatch" "$J" >"$T/slurm.x" 2>&1
rc=$?
set -e
[ $rc -ne 0 ] && grep -q 'SLURM_ARRAY_TASK_ID' "$T/slurm.x" ||
	fail "the script ran without a task index: $(cat "$T/slurm.x")"
ok "Slurm array script with SLURM_ARRAY_TASK_ID 0-5: exit 0, and 1 for the damaged package"

# Kubernetes: the Indexed Job's container command, with the env of the
# YAML (ZDEB_JOBS pointed here) and JOB_COMPLETION_INDEX per completion.
J=$(plan "$T/dst-k8s")
mkdir "$T/bin"
ln -s "$ZDEB" "$T/bin/zdeb"
PATH=$T/bin:$PATH "$PY" - "$C/zdeb-repo-job.yaml" "$J" "$bad" <<'PY' || fail "Kubernetes Job"
import os, subprocess, sys, yaml
job = yaml.safe_load(open(sys.argv[1]))
assert job["kind"] == "Job" and job["apiVersion"] == "batch/v1"
spec = job["spec"]
assert spec["completionMode"] == "Indexed"
rule = spec["podFailurePolicy"]["rules"][0]
assert rule["action"] == "FailIndex" and rule["onExitCodes"]["values"] == [1]
pod = spec["template"]["spec"]
assert pod["restartPolicy"] == "Never"
c = pod["containers"][0]
argv = c.get("command", []) + c.get("args", [])
env = dict(os.environ)
env.update({e["name"]: e["value"] for e in c.get("env", [])})
env["ZDEB_JOBS"] = sys.argv[2]
n = sum(1 for _ in open(sys.argv[2]))
for i in range(n):
    env["JOB_COMPLETION_INDEX"] = str(i)
    r = subprocess.run(argv, env=env, capture_output=True, text=True)
    want = 1 if i == int(sys.argv[3]) else 0
    assert r.returncode == want, (i, r.returncode, r.stdout, r.stderr)
    assert '"index": %d,' % i in r.stdout, r.stdout
PY
ok "Kubernetes Indexed Job: its container command per JOB_COMPLETION_INDEX, exit 1 for the damaged package"

# The same outputs whichever engine; finish --partial indexes the rest.
for e in parallel slurm k8s; do
	(cd "$T/dst-$e" && find pool -type f -exec sha256sum {} + | sort) >"$T/sums-$e"
	[ "$(wc -l <"$T/sums-$e")" -eq 5 ] || fail "$e: $(cat "$T/sums-$e")"
	expect_status 1 "$ZDEB" repo finish --partial --perf-sample 0 "$T/dst-$e"
	expect_stderr "1 of 6 jobs failed or not run: indexing the others (--partial)"
	grep -q "^failed: $S/eng6_1_all.deb: input: " "$T/stdout" ||
		fail "$e: report: $(cat "$T/stdout")"
	[ "$(grep -c '^Package:' "$T/dst-$e/dists/stable/main/binary-$(dpkg --print-architecture)/Packages")" -eq 5 ] ||
		fail "$e: Packages"
done
cmp "$T/sums-parallel" "$T/sums-slurm" && cmp "$T/sums-parallel" "$T/sums-k8s" ||
	fail "the engines made other bytes"
ok "the three engines made the same bytes; finish --partial indexes the 5 converted packages"
