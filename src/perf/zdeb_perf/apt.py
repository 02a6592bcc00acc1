# SPDX-License-Identifier: GPL-2.0-or-later
"""apt - a whole apt-get install, timed: zdeb-perf apt PKG...

A named set of packages and what apt-get adds for them is installed into
a fresh debootstrap --variant=minbase chroot of the host's release, from

  debian  the packages as the Debian mirror publishes them, fetched once
          into a local repository (apt-ftparchive, a file: source)
  zdeb    the same packages converted by zdeb repo plan, run and finish

with the stock dpkg-deb and with zdeb as dpkg-deb (zdeb integrate
install --root), plain and under eatmydata.  Nothing is downloaded while
a run is timed: both repositories are file: sources with [trusted=yes],
bind-mounted read-only into the chroot, and apt-get update is done once
per chroot before the rounds.  Each run unpacks its prepared chroot
(a tarball) into a fresh scratch file system (scratchfs: a fresh ext4
image by default) and times apt-get install there; zdeb-iotrace.so is
preloaded through apt-get's environment, so every dpkg apt-get runs is
traced, and the breakdown is summed over those dpkg runs.  The runs are
paired in rounds; see zdeb-perf(1).
"""

import glob
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from . import stages as stage_runs
from . import stats
from .common import PerfError, check_round_args, find_iotrace, find_zdeb, \
    note, run_quiet, timed
from .gate import REDO, Gate
from .iotrace import BREAKDOWN_KEYS, breakdown, parse_trace
from .machine import machine_info
from .scratchfs import ScratchFS, mounted_at

# t9030's tools (about 48 packages on minbase), and one large library.
SETS = {
    "tools": ["python3", "curl", "file", "jq", "bc", "zstd", "patch",
              "tree", "less", "gpg", "rsync"],
}
SETS["tools+llvm"] = SETS["tools"] + ["libllvm15"]
DEFAULT_SET = "tools+llvm"
ALL_SOURCES = ["debian", "zdeb"]
ALL_BACKENDS = ["stock", "zdeb"]
ALL_MODES = ["plain", "eatmydata"]
# What zdeb needs in the chroot beyond minbase; the same list as the
# slow tests' minbase, so that they share one cached tarball.
MINBASE_INCLUDE = "libarchive13,libxxhash0"
CACHE_DAYS = 7
# In the chroot.
LIBDIR = "/usr/local/lib/zdeb-perf"
TRACE = "/tmp/zdeb-iotrace.txt"
REPO = "/srv/repo"
HELD_SIGNALS = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
# breakdown() keys summed over every dpkg run; exec_s is 0 there (each
# dpkg's elapsed is its own life), apt_s is apt-get's wall time outside
# its dpkg runs.
APT_KEYS = [k for k in BREAKDOWN_KEYS if k not in ("exec_s", "other_s")] \
    + ["apt_s", "other_s"]


# --- pure parts (unit-tested by tests/unit/check-perf-apt.py) --------

def parse_sources(text, suite):
    """The URI of the first deb822 stanza of Types deb that has suite
    among its Suites, or None."""
    for stanza in text.split("\n\n"):
        f = {}
        for ln in stanza.splitlines():
            if ln.startswith("#") or ":" not in ln or ln[:1].isspace():
                continue
            k, _, v = ln.partition(":")
            f[k.strip().lower()] = v.split()
        if "deb" in f.get("types", []) and suite in f.get("suites", []) \
                and f.get("uris"):
            return f["uris"][0].rstrip("/")
    return None


def parse_sources_list(text, suite):
    """The URI of the first one-line 'deb' entry for suite, or None."""
    for ln in text.splitlines():
        w = ln.split()
        if not w or w[0] != "deb":
            continue
        i = 1
        if w[i].startswith("["):
            while i < len(w) and not w[i].endswith("]"):
                i += 1
            i += 1
        if i + 1 < len(w) and w[i + 1] == suite:
            return w[i].rstrip("/")
    return None


def minbase_key(mirror, include, arch):
    """tests/slow/lib.sh's cache key: the first 12 hex digits of
    SHA-256("MIRROR INCLUDE ARCH")."""
    return hashlib.sha256(("%s %s %s" % (mirror, include, arch))
                          .encode()).hexdigest()[:12]


def parse_sim(text):
    """The packages an 'apt-get -s install' would install, as
    [(name, version)], from its Inst lines."""
    out = []
    for ln in text.splitlines():
        w = ln.split()
        if len(w) >= 3 and w[0] == "Inst":
            v = w[2]
            if v.startswith("["):
                # Inst pkg [old] (new ...): an upgrade
                v = w[3] if len(w) > 3 else ""
            out.append((w[1], v.strip("()")))
    return out


def dpkg_runs(recs):
    """The records of each dpkg apt-get ran: [(top, subtree)], top the
    record of a dpkg whose parent is no traced dpkg (apt-get, or a shell
    apt-get ran), subtree it and every traced descendant."""
    by_pid = {r["pid"]: r for r in recs}
    kids = {}
    for r in recs:
        kids.setdefault(r.get("ppid"), []).append(r)

    def under_dpkg(r):
        seen = set()
        p = by_pid.get(r.get("ppid"))
        while p is not None and p["pid"] not in seen:
            if p.get("exe") == "dpkg":
                return True
            seen.add(p["pid"])
            p = by_pid.get(p.get("ppid"))
        return False

    # A dpkg a maintainer script runs (dpkg --compare-versions), or a
    # forked dpkg that did not exec (it records too), is in the subtree
    # of the dpkg above it, not a run of its own.
    tops = [r for r in recs if r.get("exe") == "dpkg" and
            not under_dpkg(r)]
    out = []
    for t in sorted(tops, key=lambda r: r["start_ns"]):
        sub, todo = [], [t]
        while todo:
            r = todo.pop()
            sub.append(r)
            todo += kids.get(r["pid"], [])
        out.append((t, sub))
    return out


def apt_breakdown(elapsed, recs, stages):
    """The breakdown of one apt-get install of wall time elapsed:
    iotrace.breakdown() of each dpkg run (its elapsed its own life)
    summed, tar_s and md5_s (the stage estimates for the whole set)
    taken once out of the summed cpu_s, apt_s the wall time outside the
    dpkg runs (apt-get's own work, starting dpkg), other_s what is left.
    Returns (breakdown, number of dpkg runs)."""
    zero = {"tar_s": 0.0, "md5_s": 0.0}
    tot = {k: 0.0 for k in APT_KEYS}
    runs = dpkg_runs(recs)
    lives = []
    for top, sub in runs:
        life = (top["end_ns"] - top["start_ns"]) * 1e-9
        lives.append((top["start_ns"], top["end_ns"]))
        b, _ = breakdown(life, sub, top["pid"], zero)
        for k, v in b.items():
            if k in tot:
                tot[k] += v
    cpu = tot["cpu_s"]
    tot["tar_s"] = min(stages["tar_s"], cpu)
    tot["md5_s"] = min(stages["md5_s"], cpu - tot["tar_s"])
    tot["cpu_s"] = cpu - tot["tar_s"] - tot["md5_s"]
    in_dpkg = sum(e - s for s, e in lives) * 1e-9
    tot["apt_s"] = max(0.0, elapsed - in_dpkg)
    tot["other_s"] = max(0.0, elapsed - sum(
        v for k, v in tot.items() if k != "other_s"))
    return {k: round(v, 6) for k, v in tot.items()}, len(runs)


def round_order(configs, baseline, rnd):
    """The runs of round rnd (from 1), as zdeb-perf install orders them:
    the baseline, half the others, the baseline again, the rest, rotated
    by one place per round; which of the baseline's two runs is the A/A
    one (role "aa", the other "run") alternates per round."""
    others = [c for c in configs if c != baseline]
    half = len(others) // 2
    seq = [(baseline, "run")] + [(c, "run") for c in others[:half]] + \
        [(baseline, "aa")] + [(c, "run") for c in others[half:]]
    k = (rnd - 1) % len(seq)
    swap = {"run": "aa", "aa": "run"} if rnd % 2 == 0 else {}
    return [(c, swap.get(r, r) if c == baseline else r)
            for c, r in seq[k:] + seq[:k]]


def walls(runs):
    """{config: {round: elapsed_s}} of the runs that count (ok, not
    discarded by the gate), the baseline's A/A runs as CONFIG#aa."""
    out = {}
    for r in runs:
        if r["status"] != "ok" or r.get("discarded"):
            continue
        k = r["config"] + ("#aa" if r["role"] == "aa" else "")
        out.setdefault(k, {})[r["round"]] = r["elapsed_s"]
    return out


def comparisons(configs, baseline, runs):
    """stats.compare of the A/A pair, then each configuration against
    the baseline, then zdeb against stock for the same source and mode;
    each with its kind ("aa", "baseline", "backend")."""
    w = walls(runs)

    def cmp(a, b, kind):
        return dict(stats.compare(a, w.get(a, {}), b, w.get(b, {})),
                    kind=kind)

    out = [cmp(baseline, baseline + "#aa", "aa")]
    for c in configs:
        if c != baseline:
            out.append(cmp(baseline, c, "baseline"))
    for c in configs:
        s, be, m = c.split("/")
        z = "%s/zdeb/%s" % (s, m)
        if be == "stock" and z in configs and c != baseline:
            out.append(cmp(c, z, "backend"))
    return out


def config_name(src, backend, mode):
    return "%s/%s/%s" % (src, backend, mode)


# --- the driver -------------------------------------------------------

class Apt:
    def __init__(self, args):
        self.a = args
        self.zdeb = find_zdeb()
        self.iotrace = find_iotrace()
        if args.workdir:
            self.work = os.path.abspath(args.workdir)
            os.makedirs(self.work, exist_ok=True)
            self.own_work = False
        else:
            self.work = tempfile.mkdtemp(prefix="zdeb-perf-apt.")
            self.own_work = not args.keep
        self.fs = None
        self.mounts = []
        self.notes = []
        self.load_start = list(os.getloadavg())

    # mounts in a chroot, undone in reverse
    def mount(self, args, where):
        r = run_quiet(["mount"] + args + [where])
        if r.returncode != 0:
            raise PerfError("mount %s %s: %s" % (" ".join(args), where,
                                                 r.stderr.strip()))
        self.mounts.append(where)

    def umount_all(self):
        while self.mounts:
            m = self.mounts.pop()
            for _ in range(50):
                if not mounted_at(m) or \
                        run_quiet(["umount", m]).returncode == 0:
                    break
                time.sleep(0.1)
            else:
                run_quiet(["umount", "-l", m])

    def chroot_mounts(self, root, repo):
        self.mount(["-t", "proc", "proc"], os.path.join(root, "proc"))
        d = os.path.join(root, REPO.lstrip("/"))
        os.makedirs(d, exist_ok=True)
        self.mount(["--bind", repo], d)
        run_quiet(["mount", "-o", "remount,bind,ro", d])

    def chroot(self, root, cmd, env=None, log=None):
        e = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:"
                     "/sbin:/bin", "LC_ALL": "C",
             "DEBIAN_FRONTEND": "noninteractive"}
        e.update(env or {})
        full = ["chroot", root, "env", "-i"] + \
            ["%s=%s" % kv for kv in sorted(e.items())] + cmd
        return full

    def must(self, cmd, what, **kw):
        r = run_quiet(cmd, **kw)
        if r.returncode != 0:
            raise PerfError("%s: %s" % (what, (r.stderr or r.stdout)
                                        .strip()[-400:]))
        return r

    # the mirror and the minbase
    def mirror(self):
        codename = ""
        try:
            with open("/etc/os-release") as fh:
                for ln in fh:
                    if ln.startswith("VERSION_CODENAME="):
                        codename = ln.split("=", 1)[1].strip().strip('"')
        except OSError:
            pass
        suite = os.environ.get("ZDEB_SUITE") or codename
        if not suite:
            raise PerfError("cannot tell the host's codename; set "
                            "ZDEB_SUITE")
        if os.environ.get("ZDEB_MIRROR"):
            return os.environ["ZDEB_MIRROR"].rstrip("/"), suite
        for f in sorted(glob.glob("/etc/apt/sources.list.d/*.sources")):
            with open(f) as fh:
                u = parse_sources(fh.read(), suite)
            if u:
                return u, suite
        if os.path.isfile("/etc/apt/sources.list"):
            with open("/etc/apt/sources.list") as fh:
                u = parse_sources_list(fh.read(), suite)
            if u:
                return u, suite
        raise PerfError("no apt source for %s on this host; set "
                        "ZDEB_MIRROR" % suite)

    def minbase(self, mirror, suite):
        """The minbase tarball: tests/slow/lib.sh's cache when it holds
        a fresh one, else debootstrap (saved there)."""
        cache = os.environ.get("ZDEB_SLOW_CACHE", "/var/cache/zdeb-tests")
        arch = self.must(["dpkg", "--print-architecture"],
                         "dpkg --print-architecture").stdout.strip()
        tarball = os.path.join(cache, "minbase-%s-%s.tar" % (
            suite, minbase_key(mirror, MINBASE_INCLUDE, arch)))
        if os.path.isfile(tarball) and time.time() - \
                os.path.getmtime(tarball) < CACHE_DAYS * 86400:
            note("minbase %s from the cache %s" % (suite, tarball))
            return tarball
        if not shutil.which("debootstrap"):
            raise PerfError("no cached minbase and no debootstrap")
        note("debootstrap --variant=minbase %s from the Debian mirror"
             % suite)
        d = os.path.join(self.work, "debootstrap")
        shutil.rmtree(d, ignore_errors=True)
        self.must(["debootstrap", "--variant=minbase",
                   "--include=" + MINBASE_INCLUDE, suite, d, mirror],
                  "debootstrap failed (network or mirror)")
        os.makedirs(cache, exist_ok=True)
        tmp = "%s.%d.tmp" % (tarball, os.getpid())
        self.must(["tar", "-C", d, "--numeric-owner", "-cf", tmp, "."],
                  "tar of the minbase")
        os.replace(tmp, tarball)
        shutil.rmtree(d, ignore_errors=True)
        return tarball

    # the two repositories (kept in the work directory and reused)
    def fetch(self, minbase, pkgs):
        """What apt-get install PKGS installs on minbase, fetched from
        the Debian mirror into WORK/debian (a flat file: repository)."""
        deb = os.path.join(self.work, "debian")
        stamp = os.path.join(deb, "set.json")
        if os.path.isfile(stamp):
            with open(stamp) as fh:
                s = json.load(fh)
            if s.get("requested") == pkgs and s.get("minbase") == minbase:
                note("the set's packages from %s" % deb)
                return s["packages"]
        note("apt-get download of %s and what they need"
             % " ".join(pkgs))
        shutil.rmtree(deb, ignore_errors=True)
        r = os.path.join(self.work, "fetch-root")
        shutil.rmtree(r, ignore_errors=True)
        os.makedirs(r)
        try:
            self.must(["tar", "-C", r, "-xf", minbase], "untar minbase")
            shutil.copy("/etc/resolv.conf",
                        os.path.join(r, "etc", "resolv.conf"))
            self.mount(["-t", "proc", "proc"], os.path.join(r, "proc"))
            self.must(self.chroot(r, ["apt-get", "update", "-q"]),
                      "apt-get update in the minbase chroot")
            sim = self.must(self.chroot(
                r, ["apt-get", "-s", "-q", "--no-install-recommends",
                    "install"] + pkgs), "apt-get -s install").stdout
            inst = parse_sim(sim)
            if not inst:
                raise PerfError("apt-get -s install %s: nothing to install"
                                % " ".join(pkgs))
            os.makedirs(os.path.join(r, "tmp", "dl"))
            self.must(self.chroot(r, ["sh", "-c", "cd /tmp/dl && "
                                      "apt-get download -q \"$@\"", "sh"] +
                                  ["%s=%s" % p for p in inst]),
                      "apt-get download")
            shutil.move(os.path.join(r, "tmp", "dl"), deb)
        finally:
            self.umount_all()
            shutil.rmtree(r, ignore_errors=True)
        got = [f for f in os.listdir(deb) if f.endswith(".deb")]
        if len(got) != len(inst):
            raise PerfError("downloaded %d of %d packages"
                            % (len(got), len(inst)))
        self.must(["sh", "-c", "apt-ftparchive packages . >Packages && "
                   "apt-ftparchive release . >Release"],
                  "apt-ftparchive", cwd=deb)
        names = sorted(p[0] for p in inst)
        with open(stamp, "w") as fh:
            json.dump({"requested": pkgs, "minbase": minbase,
                       "packages": names}, fh)
        return names

    def convert(self):
        """WORK/zdeb: zdeb repo plan, run and finish of WORK/debian."""
        dst = os.path.join(self.work, "zdeb")
        src = os.path.join(self.work, "debian")
        if os.path.isfile(os.path.join(dst, "dists", "stable", "Release")) \
                and os.path.getmtime(os.path.join(dst, "dists", "stable",
                                                  "Release")) >= \
                os.path.getmtime(os.path.join(src, "set.json")):
            return dst
        note("zdeb repo plan, run and finish of the set")
        shutil.rmtree(dst, ignore_errors=True)
        self.must([self.zdeb, "repo", "plan", src, dst], "zdeb repo plan")
        self.must([self.zdeb, "repo", "run", "--jobs",
                   str(min(2, os.cpu_count() or 1)),
                   os.path.join(dst, ".zdeb-repo", "jobs.jsonl")],
                  "zdeb repo run")
        self.must([self.zdeb, "repo", "finish", "--perf-sample", "0", dst],
                  "zdeb repo finish")
        return dst

    def repo_line(self, src):
        if src == "debian":
            return "deb [trusted=yes] file:%s ./\n" % REPO
        return "deb [trusted=yes] file:%s stable main\n" % REPO

    def eatmydata_lib(self):
        for p in sorted(glob.glob("/usr/lib/*/libeatmydata.so*") +
                        glob.glob("/usr/lib/libeatmydata.so*")):
            if os.path.isfile(p):
                return p
        return None

    def prepare(self, minbase, src, backend):
        """WORK/ready-SRC-BACKEND.tar: the minbase with the repository as
        its only apt source (updated), zdeb-iotrace.so and libeatmydata
        in LIBDIR, no service starts, and for backend zdeb, zdeb
        integrated as dpkg-deb."""
        out = os.path.join(self.work, "ready-%s-%s.tar" % (src, backend))
        repo = self.repos[src]
        if os.path.isfile(out) and os.path.getmtime(out) >= max(
                os.path.getmtime(minbase), os.path.getmtime(self.zdeb),
                os.path.getmtime(os.path.join(self.work, "debian",
                                              "set.json"))):
            return out
        note("prepare the %s chroot with %s dpkg-deb" % (src, backend))
        r = os.path.join(self.work, "prep-root")
        shutil.rmtree(r, ignore_errors=True)
        os.makedirs(r)
        try:
            self.must(["tar", "-C", r, "-xf", minbase], "untar minbase")
            for f in glob.glob(os.path.join(r, "etc", "apt",
                                            "sources.list.d", "*")):
                os.unlink(f)
            with open(os.path.join(r, "etc", "apt", "sources.list"),
                      "w") as fh:
                fh.write(self.repo_line(src))
            prc = os.path.join(r, "usr", "sbin", "policy-rc.d")
            with open(prc, "w") as fh:
                fh.write("#!/bin/sh\nexit 101\n")
            os.chmod(prc, 0o755)
            lib = os.path.join(r, LIBDIR.lstrip("/"))
            os.makedirs(lib, exist_ok=True)
            if self.iotrace:
                shutil.copy(self.iotrace, os.path.join(lib,
                                                       "zdeb-iotrace.so"))
            if self.emd:
                shutil.copy(self.emd, os.path.join(lib, "libeatmydata.so"))
            if backend == "zdeb":
                dst = os.path.join(r, "usr", "local", "bin", "zdeb")
                shutil.copy(self.zdeb, dst)
                os.chmod(dst, 0o755)
                self.must([self.zdeb, "integrate", "install", "--root", r,
                           "--zdeb", "/usr/local/bin/zdeb"],
                          "zdeb integrate install --root")
                self.must(self.chroot(r, ["dpkg-deb", "--version"]),
                          "zdeb as dpkg-deb does not run in the chroot")
            self.chroot_mounts(r, repo)
            self.must(self.chroot(r, ["apt-get", "update", "-q"]),
                      "apt-get update from the %s repository" % src)
            self.umount_all()
            tmp = out + ".tmp"
            self.must(["tar", "-C", r, "--numeric-owner", "-cf", tmp, "."],
                      "tar of the prepared chroot")
            os.replace(tmp, out)
        finally:
            self.umount_all()
            shutil.rmtree(r, ignore_errors=True)
        return out

    # one run
    def one_run(self, cfg, pkgs):
        src, backend, mode = cfg.split("/")
        root = self.fs.fresh()
        try:
            self.must(["tar", "-C", root, "-xf", self.ready[(src, backend)]],
                      "untar the prepared chroot")
            self.chroot_mounts(root, self.repos[src])
            pre = []
            env = {}
            if self.iotrace:
                pre.append(LIBDIR + "/zdeb-iotrace.so")
                env["ZDEB_IOTRACE_FILE"] = TRACE
                env["ZDEB_IOTRACE_DBDIR"] = "/var/lib/dpkg"
            if mode == "eatmydata":
                pre.append(LIBDIR + "/libeatmydata.so")
            if pre:
                env["LD_PRELOAD"] = " ".join(pre)
            cmd = self.chroot(root, ["apt-get", "install", "-y", "-q",
                                     "--no-install-recommends"] + pkgs,
                              env=env)
            os.sync()
            tok = self.gate.begin()
            log = os.path.join(self.work, "apt.log")
            with open(log, "w") as out:
                rc, wall, ru = timed(cmd, stdout=out,
                                     stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL,
                                     new_session=True, nice=self.a.nice)
            grec = self.gate.end(tok, wall, ru.ru_utime + ru.ru_stime)
            t0 = time.monotonic()
            os.sync()
            sync_after = time.monotonic() - t0
            with open(log, errors="replace") as fh:
                text = fh.read()
            run = {"config": cfg, "status": "ok", "error": "",
                   "elapsed_s": round(wall, 6),
                   "user_s": round(ru.ru_utime, 6),
                   "sys_s": round(ru.ru_stime, 6),
                   "sync_after_s": round(sync_after, 6)}
            run.update(grec)
            if rc != 0:
                run["status"] = "failed"
                run["error"] = "apt-get exited %d: %s" % (
                    rc, text.strip().splitlines()[-1:])
                return run
            q = run_quiet(self.chroot(root, [
                "dpkg-query", "-W", "-f", "${Package} ${Status}\n"]))
            ok = {ln.split()[0] for ln in q.stdout.splitlines()
                  if ln.endswith("install ok installed")}
            missing = [p for p in self.set_pkgs if p not in ok]
            if missing:
                run["status"] = "failed"
                run["error"] = "not installed: " + " ".join(missing[:5])
                return run
            if self.iotrace:
                recs = parse_trace(os.path.join(root, TRACE.lstrip("/")))
                bd, n = apt_breakdown(wall, recs, self.stages)
                run["breakdown"] = bd
                run["dpkg_runs"] = n
            return run
        finally:
            self.umount_all()
            self.fs.release()

    def main(self):
        try:
            return self.run()
        finally:
            held = signal.pthread_sigmask(signal.SIG_BLOCK, HELD_SIGNALS)
            try:
                self.umount_all()
                if self.fs is not None:
                    self.fs.cleanup()
            finally:
                if self.own_work:
                    shutil.rmtree(self.work, ignore_errors=True)
                signal.pthread_sigmask(signal.SIG_SETMASK, held)

    def check_args(self):
        a = self.a
        for s in a.sources:
            if s not in ALL_SOURCES:
                raise PerfError("unknown source '%s' (known: %s)"
                                % (s, ",".join(ALL_SOURCES)))
        for b in a.backends:
            if b not in ALL_BACKENDS:
                raise PerfError("unknown backend '%s'" % b)
        for m in a.modes:
            if m not in ALL_MODES:
                raise PerfError("unknown mode '%s' (known: %s)"
                                % (m, ",".join(ALL_MODES)))
        if a.set not in SETS:
            raise PerfError("unknown set '%s' (known: %s)"
                            % (a.set, ",".join(sorted(SETS))))
        check_round_args(a)
        if os.geteuid() != 0:
            raise PerfError("zdeb-perf apt needs root (chroot, mount)")
        for t in ("chroot", "mount", "umount", "apt-ftparchive", "tar"):
            if not shutil.which(t):
                raise PerfError("zdeb-perf apt needs %s" % t)
        self.emd = self.eatmydata_lib()
        if "eatmydata" in a.modes and not self.emd:
            raise PerfError("mode eatmydata needs libeatmydata.so (the "
                            "eatmydata package)")
        configs = [config_name(s, b, m) for s in a.sources
                   for b in a.backends for m in a.modes]
        base = a.baseline or configs[0]
        if base not in configs:
            raise PerfError("--baseline '%s': not SOURCE/BACKEND/MODE of "
                            "this run's" % base)
        return configs, base

    def run(self):
        a = self.a
        configs, base = self.check_args()
        pkgs = a.packages or SETS[a.set]
        mirror, suite = self.mirror()
        minbase = self.minbase(mirror, suite)
        self.set_pkgs = self.fetch(minbase, pkgs)
        self.repos = {"debian": os.path.join(self.work, "debian")}
        if "zdeb" in a.sources:
            self.repos["zdeb"] = self.convert()
        self.ready = {}
        for s in a.sources:
            for b in a.backends:
                self.ready[(s, b)] = self.prepare(minbase, s, b)
        debs = sorted(glob.glob(os.path.join(self.repos["debian"],
                                             "*.deb")))
        note("stage runs: tar parse and md5 of %d packages" % len(debs))
        tars = []
        tdir = os.path.join(self.work, "tars")
        os.makedirs(tdir, exist_ok=True)
        for d in debs:
            t = os.path.join(tdir, os.path.basename(d)[:-4] + ".tar")
            if not os.path.isfile(t):
                with open(t + ".tmp", "wb") as fh:
                    r = subprocess.run([self.zdeb, "cat-data", d],
                                       stdout=fh, stderr=subprocess.PIPE)
                if r.returncode != 0:
                    raise PerfError("zdeb cat-data %s failed" % d)
                os.replace(t + ".tmp", t)
            tars.append(t)
        self.stages, md5_impl = stage_runs.tar_md5(tars, 1)
        tar_bytes = sum(os.path.getsize(t) for t in tars)
        ready_bytes = max(os.path.getsize(p) for p in self.ready.values())
        size = (2 * (ready_bytes + tar_bytes) + (256 << 20) +
                (1 << 20) - 1) & ~((1 << 20) - 1)
        self.fs = ScratchFS(a.fs, self.work, size)
        self.gate = Gate(max_load=a.max_load, max_others_pct=a.max_others,
                         wait=a.quiet_wait, allow_loaded=a.allow_loaded,
                         start_load=self.load_start[0])
        runs = []
        total = "%d" % a.runs if a.runs else "auto"
        t_start = time.monotonic()

        def do_round(i):
            g = self.gate.wait_quiet(i)
            note("round %d/%s: load %.2f, other processes %.2f cores%s" % (
                i, total, g["load1"], g["busy_cores"],
                "" if g["quiet"] else
                " (not quiet%s)" % (", --allow-loaded" if a.allow_loaded
                                    else " after %.0f s" % g["waited_s"])))
            for cfg, role in round_order(configs, base, i):
                note("round %d/%s: %s%s" % (
                    i, total, cfg, " (baseline again, A/A)"
                    if role == "aa" else " (baseline)" if cfg == base
                    else ""))
                for attempt in range(REDO + 1):
                    run = self.one_run(cfg, pkgs)
                    run["round"] = i
                    run["role"] = role
                    runs.append(run)
                    if run["status"] != "ok":
                        raise PerfError("%s: %s" % (cfg, run["error"]))
                    if not run["discarded"]:
                        break
                    note("round %d: %s: other processes took %.0f %% of a "
                         "core: discarded%s" % (
                             i, cfg, run["others_pct"],
                             ", run again" if attempt < REDO else ""))

        def live():
            return [c for c in comparisons(configs, base, runs)
                    if c["rounds"]]

        rr = stats.run_rounds(do_round, live, target=a.target / 100.0,
                              fixed=a.runs, max_rounds=a.max_rounds,
                              max_time=a.max_time)
        self.result = {
            "command": "apt", "set": a.set if not a.packages else None,
            "requested": pkgs, "packages": self.set_pkgs,
            "suite": suite, "configs": configs, "baseline": base,
            "rounds": rr, "fs": self.fs.describe(),
            "tar_bytes": tar_bytes, "md5_stage": md5_impl,
            "stages": self.stages,
            "repo_bytes": {s: repo_bytes(p) for s, p in self.repos.items()},
            "allow_loaded": a.allow_loaded,
            "max_load": self.gate.max_load,
            "max_others_pct": a.max_others,
            "gate": self.gate.rounds, "runs": runs,
            "comparisons": comparisons(configs, base, runs),
            "summary": summary(configs, runs),
            "time_s": round(time.monotonic() - t_start, 1),
            "machine": machine_info(self.fs.base, self.zdeb, {
                "load_avg_start": self.load_start,
                "load_avg_end": list(os.getloadavg())}),
            "notes": self.notes,
        }
        if not self.iotrace:
            self.notes.append("zdeb-iotrace.so not found: no breakdown")
        self.result["trustworthy"] = \
            stats.aa_ok(self.result["comparisons"][0]) is True
        write_table(self.result, sys.stdout)
        if a.json:
            with open(a.json, "w") as fh:
                json.dump(self.result, fh, indent=1)
                fh.write("\n")
        return 0


def repo_bytes(path):
    n = 0
    for d, _, fs in os.walk(path):
        if ".zdeb-repo" in d:
            continue
        n += sum(os.path.getsize(os.path.join(d, f)) for f in fs
                 if f.endswith(".deb"))
    return n


def med(xs):
    xs = sorted(x for x in xs if x is not None)
    if not xs:
        return None
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2.0


def summary(configs, runs):
    """Per configuration: median wall and median of each breakdown part
    over its ok runs the gate kept (A/A runs of the baseline
    included)."""
    out = []
    for c in configs:
        rs = [r for r in runs if r["config"] == c and r["status"] == "ok"
              and not r.get("discarded")]
        s = {"config": c, "runs": len(rs),
             "elapsed_s": med([r["elapsed_s"] for r in rs]),
             "min_s": min([r["elapsed_s"] for r in rs], default=None),
             "max_s": max([r["elapsed_s"] for r in rs], default=None),
             "dpkg_runs": med([r.get("dpkg_runs") for r in rs])}
        if rs and all("breakdown" in r for r in rs):
            s["breakdown"] = {k: round(med([r["breakdown"][k] for r in rs]),
                                       3) for k in APT_KEYS}
        out.append(s)
    return out


def fmt_ci(c):
    if c["ratio"] is None:
        return "%-24s %s" % ("-", "no paired rounds")
    if c["ci95"] is None:
        return "%5.2fx  95%% CI: -  (%d rounds; 6 needed)" % (
            c["ratio"], c["rounds"])
    return "%5.2fx  95%% CI [%.2f, %.2f]  (%d rounds)" % (
        c["ratio"], c["ci95"][0], c["ci95"][1], c["rounds"])


def write_table(res, out):
    w = out.write
    w("zdeb-perf apt: %d packages (%s requested), %.1f MB of tar, "
      "suite %s, %s scratch file system\n" % (
          len(res["packages"]), " ".join(res["requested"]),
          res["tar_bytes"] / 1e6, res["suite"], res["fs"].get("kind")))
    loaded = [g for g in res["gate"] if not g["quiet"]]
    w("load: %s at the start; %s\n" % (
        " ".join("%.2f" % x for x in res["machine"].get(
            "load_avg_start", [])),
        ("%s%d of %d rounds started on a machine not quiet (load or busy "
         "cores at or above %.2f)" % (
             "ALLOW-LOADED: " if res["allow_loaded"] else "",
             len(loaded), len(res["gate"]), res["max_load"]))
        if loaded else "every round started quiet (load and busy cores "
        "below %.2f)" % res["max_load"]))
    nl = sum(1 for r in res["runs"] if r.get("loaded"))
    if nl:
        w("%d runs had other processes take more than %.0f %% of a core%s\n"
          % (nl, res["max_others_pct"],
             " (kept: --allow-loaded)" if res["allow_loaded"]
             else " (discarded and run again)"))
    rr = res["rounds"]
    w("rounds: %d, stopped by %s%s\n" % (
        rr["rounds"], rr["stopped_by"],
        "; not converged: " + ", ".join(rr["not_converged"])
        if rr["not_converged"] and rr["stopped_by"] != "runs" else ""))
    w("\n%-26s %5s %8s %8s %8s" % ("source/backend/mode", "runs", "wall_s",
                                    "min_s", "max_s"))
    keys = ["decode_s", "cpu_s", "write_s", "fsync_s", "dbwrite_s", "db_s",
            "apt_s", "other_s"]
    w("".join(" %8s" % k for k in keys) + "\n")
    for s in res["summary"]:
        w("%-26s %5d %8.2f %8.2f %8.2f" % (
            s["config"], s["runs"], s["elapsed_s"] or 0, s["min_s"] or 0,
            s["max_s"] or 0))
        b = s.get("breakdown")
        w("".join(" %8.2f" % b[k] if b else " %8s" % "-" for k in keys)
          + "\n")
    w("\nratio = wall(a) / wall(b), the median of the per-round ratios; "
      "above 1: b is faster\n")
    for c in res["comparisons"]:
        lbl = "A/A %s" % c["a"] if c["kind"] == "aa" else \
            "%s -> %s" % (c["a"], c["b"])
        w("%-56s %s\n" % (lbl, fmt_ci(c)))
    if not res["trustworthy"]:
        w("NOT TRUSTWORTHY: the A/A interval %s\n" % (
            "does not contain 1.00" if res["comparisons"][0]["ci95"]
            else "is unknown (too few rounds)"))
    for n in res["notes"]:
        w("note: %s\n" % n)
