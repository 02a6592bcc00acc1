# SPDX-License-Identifier: GPL-2.0-or-later
"""install - the install driver: inputs, variants, backends and the runs.

Each run is a real dpkg --unpack (or --install) into a fresh scratch root
with zdeb-iotrace.so preloaded; see zdeb-perf(1) for the method.
"""

import os
import re
import shutil
import signal
import subprocess
import tarfile
import tempfile
import time


from . import report
from . import stages as stage_runs
from . import stats
from .common import (PerfError, find_iotrace, find_zdeb, note, run_quiet,
                     timed)
from .gate import REDO, Gate
from .iotrace import breakdown, main_dpkg_pid, parse_trace
from .machine import (can_drop_caches, disk_model, drop_caches,
                      machine_info)
from .plot import gnuplot_term
from .scratchfs import ScratchFS, image_size, reread, warm

ALL_VARIANTS = ["xz", "gzip", "zstd-single", "zstd-indexed", "zstd-pzstd",
                "zstd-frames", "none"]
VARIANT_ARGS = {
    "xz": ["-Z", "xz", "-z", "6"],
    "gzip": ["-Z", "gzip", "-z", "9"],
    "zstd-single": ["-Z", "zstd", "-z", "19", "--layout", "single"],
    "zstd-indexed": ["-Z", "zstd", "-z", "19", "--layout", "indexed"],
    "zstd-pzstd": ["-Z", "zstd", "-z", "19", "--layout", "pzstd"],
    "zstd-frames": ["-Z", "zstd", "-z", "19", "--layout", "frames"],
    "none": ["-Z", "none"],
}
ALL_MODES = ["default", "unsafe-io", "eatmydata"]
ALL_BACKENDS = ["stock", "zdeb"]
# zdeb with ZDEB_DPKG_DEB_THREADS=N (or all): zdeb-t1, zdeb-t2, zdeb-tall
THREADS_BACKEND = re.compile(r"zdeb-t([1-9][0-9]{0,3}|all)$")
HELD_SIGNALS = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
# Stage runs (tar -t, md5, decode) with --runs auto.
STAGE_RUNS = 3


def cpu_time(run):
    """user + sys of a run record, None if it failed."""
    if run["user_s"] is None:
        return None
    return round(run["user_s"] + run["sys_s"], 6)


class Install:
    def __init__(self, args):
        self.a = args
        self.zdeb = find_zdeb()
        self.iotrace = find_iotrace()
        if args.workdir:
            self.work = os.path.abspath(args.workdir)
            os.makedirs(self.work, exist_ok=True)
            self.own_work = False
        else:
            self.work = tempfile.mkdtemp(prefix="zdeb-perf.")
            self.own_work = not args.keep
        self.fs = None
        self.notes = []
        self.details = []
        self.perf = {}
        self.gate = None
        self.overhead = []
        self.load_start = list(os.getloadavg())

    # inputs -> source .debs
    def sources(self):
        a = self.a
        srcdir = os.path.join(self.work, "src")
        os.makedirs(srcdir, exist_ok=True)
        debs = []
        if a.apt:
            aptdir = os.path.join(self.work, "apt")
            os.makedirs(aptdir, exist_ok=True)
            r = run_quiet(["apt-get", "download"] + a.inputs, cwd=aptdir)
            if r.returncode != 0:
                raise PerfError("apt-get download failed: %s"
                                % r.stderr.strip().splitlines()[-1:])
            for pkg in a.inputs:
                got = sorted(f for f in os.listdir(aptdir)
                             if f.startswith(pkg + "_") and
                             f.endswith(".deb"))
                if not got:
                    raise PerfError("apt-get download gave no .deb for '%s'"
                                    % pkg)
                debs.append(os.path.join(aptdir, got[-1]))
            return debs
        for inp in a.inputs:
            if os.path.isdir(inp):
                if not os.path.isfile(os.path.join(inp, "DEBIAN", "control")):
                    raise PerfError("'%s': no DEBIAN/control" % inp)
                out = os.path.join(srcdir, os.path.basename(
                    os.path.normpath(inp)) + ".deb")
                r = run_quiet([self.zdeb, "build", "-Znone", inp, out])
                if r.returncode != 0:
                    raise PerfError("cannot build '%s': %s"
                                    % (inp, r.stderr.strip()))
                debs.append(out)
            elif os.path.isfile(inp):
                debs.append(os.path.abspath(inp))
            else:
                raise PerfError("'%s': no such file or directory" % inp)
        return debs

    def stem(self, deb):
        b = os.path.basename(deb)
        return b[:-4] if b.endswith(".deb") else b

    def variant(self, deb, v):
        """zdeb recompress of deb; kept in WORKDIR/variants as a cache."""
        vdir = os.path.join(self.work, "variants")
        os.makedirs(vdir, exist_ok=True)
        out = os.path.join(vdir, "%s.%s.deb" % (self.stem(deb), v))
        if os.path.isfile(out) and os.path.getmtime(out) >= \
                os.path.getmtime(deb):
            return out
        cmd = [self.zdeb, "recompress"] + VARIANT_ARGS[v]
        if self.a.segment_size and v.startswith("zstd-") and \
                v != "zstd-single":
            cmd += ["--segment-size", self.a.segment_size]
        note("recompress %s -> %s" % (os.path.basename(deb), v))
        r = run_quiet(cmd + [deb, out + ".tmp"])
        if r.returncode != 0:
            raise PerfError("zdeb recompress %s failed: %s"
                            % (v, r.stderr.strip()))
        os.replace(out + ".tmp", out)
        return out

    def tar_of(self, deb):
        tdir = os.path.join(self.work, "tars")
        os.makedirs(tdir, exist_ok=True)
        out = os.path.join(tdir, self.stem(deb) + ".tar")
        if not os.path.isfile(out) or os.path.getmtime(out) < \
                os.path.getmtime(deb):
            with open(out + ".tmp", "wb") as fh:
                r = subprocess.run([self.zdeb, "cat-data", deb], stdout=fh,
                                   stderr=subprocess.PIPE)
            if r.returncode != 0:
                raise PerfError("zdeb cat-data '%s' failed: %s"
                                % (deb, r.stderr.decode(errors="replace")))
            os.replace(out + ".tmp", out)
        return out

    # backends
    def setup_backends(self, sample_deb):
        self.backend_path = {"stock": shutil.which("dpkg-deb")}
        self.backend_env_path = {"stock": os.environ.get("PATH", "")}
        status = {"stock": "available: %s" % self.backend_path["stock"]}
        shim = os.path.join(self.work, "shim")
        os.makedirs(shim, exist_ok=True)
        link = os.path.join(shim, "dpkg-deb")
        if os.path.lexists(link):
            os.unlink(link)
        os.symlink(self.zdeb, link)
        why = ""
        with open(os.devnull, "wb") as null:
            r = subprocess.run([link, "--fsys-tarfile", sample_deb],
                               stdout=null, stderr=subprocess.PIPE)
        if r.returncode != 0:
            why = "'dpkg-deb --fsys-tarfile' through the shim failed: %s" \
                % (r.stderr.decode(errors="replace").strip().splitlines() or
                   ["exit %d" % r.returncode])[0][:200]
        else:
            cdir = tempfile.mkdtemp(dir=self.work)
            r = run_quiet([link, "--control", sample_deb,
                           os.path.join(cdir, "c")])
            shutil.rmtree(cdir, ignore_errors=True)
            if r.returncode != 0:
                why = "'dpkg-deb --control' through the shim failed: %s" \
                    % (r.stderr.strip().splitlines() or
                       ["exit %d" % r.returncode])[0][:200]
        if why:
            status["zdeb"] = "unavailable: " + why
        else:
            status["zdeb"] = "available: %s -> %s" % (link, self.zdeb)
            self.backend_path["zdeb"] = link
            self.backend_env_path["zdeb"] = shim + os.pathsep + \
                os.environ.get("PATH", "")
        for b in self.a.backends:
            m = THREADS_BACKEND.match(b)
            if m:
                status[b] = status["zdeb"] + \
                    " with ZDEB_DPKG_DEB_THREADS=%s" % m.group(1)
                if "zdeb" in self.backend_path:
                    self.backend_path[b] = self.backend_path["zdeb"]
                    self.backend_env_path[b] = self.backend_env_path["zdeb"]
        return status

    @staticmethod
    def backend_env(backend, env):
        """env with what the backend sets besides PATH."""
        m = THREADS_BACKEND.match(backend)
        if m:
            env["ZDEB_DPKG_DEB_THREADS"] = m.group(1)
        return env

    # stage runs
    def stage_decode(self, backend, debs):
        return stage_runs.decode(self.backend_path[backend],
                                 self.backend_env_path[backend], debs,
                                 self.stage_runs())

    def decoded_bytes(self, backend, deb):
        return stage_runs.decoded_bytes(self.backend_path[backend],
                                        self.backend_env_path[backend], deb)

    def stage_runs(self):
        return self.a.runs or STAGE_RUNS

    # one install
    def init_root(self, root):
        adm = os.path.join(root, "var", "lib", "dpkg")
        for d in ("info", "updates", "triggers"):
            os.makedirs(os.path.join(adm, d))
        for f in ("status", "available"):
            open(os.path.join(adm, f), "w").close()
        return adm

    def dpkg_cmd(self, root, adm, mode, debs):
        cmd = ["dpkg", "--root=" + root, "--admindir=" + adm,
               "--force-not-root", "--force-script-chrootless",
               "--force-depends", "--log=/dev/null"]
        if mode == "unsafe-io":
            cmd.append("--force-unsafe-io")
        cmd.append("--install" if self.a.action == "install" else "--unpack")
        cmd += debs
        if mode == "eatmydata":
            cmd = ["eatmydata"] + cmd
        return cmd

    def one_run(self, debs, backend, mode, cache, trace, perf_out=None,
                traced=True):
        """One install on a fresh scratch file system.  Returns (status,
        wall, rusage, dpkg's output, the sync after it, the quiet gate's
        record of the run or None)."""
        root = self.fs.fresh()
        try:
            adm = self.init_root(root)
            if os.path.exists(trace):
                os.unlink(trace)
            env = self.backend_env(backend, dict(
                os.environ, PATH=self.backend_env_path[backend], LC_ALL="C"))
            if self.iotrace and traced:
                env["LD_PRELOAD"] = self.iotrace + (
                    " " + os.environ["LD_PRELOAD"]
                    if os.environ.get("LD_PRELOAD") else "")
                env["ZDEB_IOTRACE_FILE"] = trace
                env["ZDEB_IOTRACE_DBDIR"] = adm
            cmd = self.dpkg_cmd(root, adm, mode, debs)
            if perf_out:
                cmd = ["perf", "record", "-q", "-e", "cpu-clock", "-o",
                       perf_out, "--"] + cmd
            os.sync()
            if cache == "cold":
                drop_caches()
            elif self.fs.kind == "dir":
                # The same page cache for every hot run: nothing of the
                # last run's root, the inputs and programs read again.
                drop_caches()
                reread(debs)
                warm([["dpkg", "--version"], ["dpkg-deb", "--version"]],
                     env=dict(os.environ,
                              PATH=self.backend_env_path[backend]))
            log = os.path.join(self.work, "dpkg.log")
            gate = self.gate if self.gate and not perf_out else None
            with open(log, "w") as out:
                tok = gate.begin() if gate else None
                rc, wall, ru = timed(cmd, env=env, stdout=out,
                                     stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL,
                                     new_session=True, nice=self.a.nice)
                grec = gate.end(tok, wall, ru.ru_utime + ru.ru_stime) \
                    if gate else None
            t0 = time.monotonic()
            os.sync()
            sync_after = time.monotonic() - t0
            with open(log, errors="replace") as fh:
                text = fh.read()
        finally:
            self.fs.release()
        return rc, wall, ru, text, sync_after, grec

    def main(self):
        """run(), then the scratch file system is undone and the work
        directory made for it goes, also when run() fails (a bad option,
        a failed install, an interrupt)."""
        try:
            return self.run()
        finally:
            # A second Ctrl-C must not cut the cleanup short.
            held = signal.pthread_sigmask(signal.SIG_BLOCK, HELD_SIGNALS)
            try:
                if self.fs is not None:
                    self.fs.cleanup()
            finally:
                if self.own_work:
                    shutil.rmtree(self.work, ignore_errors=True)
                signal.pthread_sigmask(signal.SIG_SETMASK, held)

    def check_args(self):
        a = self.a
        for v in a.variants:
            if v not in VARIANT_ARGS:
                raise PerfError("unknown variant '%s' (known: %s)"
                                % (v, ",".join(ALL_VARIANTS)))
        for m in a.modes:
            if m not in ALL_MODES:
                raise PerfError("unknown mode '%s'" % m)
        for c in a.cache:
            if c not in ("hot", "cold"):
                raise PerfError("unknown cache mode '%s'" % c)
        for b in a.backends:
            if b not in ALL_BACKENDS and not THREADS_BACKEND.match(b):
                raise PerfError("unknown backend '%s'" % b)
        for pr in a.pairs:
            v, _, b = pr.partition("/")
            if THREADS_BACKEND.match(b) and b not in a.backends:
                # named by its pair alone; a new list, as the default one
                # is the module's ALL_BACKENDS
                a.backends = a.backends + [b]
            if v not in a.variants or b not in a.backends:
                raise PerfError("--pairs '%s': not VARIANT/BACKEND of this "
                                "run's variants and backends" % pr)
        if a.control:
            c = a.control.split("/")
            if len(c) != 3 or c[0] not in a.variants or \
                    c[1] not in a.backends or c[2] not in a.modes:
                raise PerfError("--control '%s': not VARIANT/BACKEND/MODE "
                                "of this run's variants, backends and "
                                "modes" % a.control)
        if a.plot:
            gnuplot_term(a.plot)
        if a.nice < 0 and os.geteuid() != 0:
            raise PerfError("--nice below 0 needs root")
        if "eatmydata" in a.modes and not shutil.which("eatmydata"):
            raise PerfError("mode eatmydata needs the eatmydata command")
        if not shutil.which("dpkg"):
            raise PerfError("dpkg not found")

    def scratch_fs(self, tars):
        """The scratch file system, tried once before any run (a failing
        mkfs or mount stops here), and what it is."""
        n_files = 0
        for t in tars:
            with tarfile.open(t, "r:") as tf:
                n_files += sum(1 for _ in tf)
        size = image_size(sum(os.path.getsize(t) for t in tars), n_files)
        self.fs = ScratchFS(self.a.fs, self.work, size)
        self.fs.fresh()
        self.fs.release()
        info = self.fs.describe()
        if info["kind"] == "ext4":
            r = run_quiet(["findmnt", "-n", "-o", "SOURCE", "-T", self.work])
            src = r.stdout.strip() if r.returncode == 0 else ""
            info["disk"] = "loop device on an image in %s (%s)" % (
                self.work, disk_model(src))
        elif info["kind"] == "tmpfs":
            info["disk"] = "none (memory)"
        else:
            info["disk"] = disk_model(info.get("mount_source", ""))
            info["before_hot_runs"] = ("sync, drop caches, read the "
                                       "inputs and run dpkg --version and "
                                       "dpkg-deb --version")
        return info

    def control_config(self, configs):
        a = self.a
        if a.control:
            v, b, m = a.control.split("/")
            cfg = (a.cache[0], m, v, b)
            if cfg not in configs:
                raise PerfError("--control '%s': backend %s is unavailable"
                                % (a.control, b))
            return cfg
        return configs[0]

    def new_run(self, label, cfg, i, role):
        c, m, v, b = cfg
        return {"input": label, "variant": v, "backend": b, "mode": m,
                "cache": c, "run": i, "role": role, "status": "failed",
                "error": "", "elapsed_s": None, "user_s": None,
                "sys_s": None, "cpu_pct": None, "max_rss_kb": None,
                "minflt": None, "majflt": None, "inblock": None,
                "oublock": None, "load1_before": None, "load1_after": None,
                "steal_pct": None, "kthreads_pct": None, "others_pct": None,
                "loaded": False,
                "discarded": False, "breakdown": None}

    def gated_run(self, label, cfg, i, role="run"):
        """timed_run, again (at most REDO more times) while the quiet gate
        discards it; every attempt is kept in self.runs.  Returns the
        last."""
        for attempt in range(REDO + 1):
            run = self.timed_run(label, cfg, i, role=role)
            self.runs.append(run)
            if not run["discarded"]:
                break
            c, m, v, b = cfg
            note("round %d: %s %s %s %s: other processes took %.0f %% of "
                 "a core: discarded%s" % (
                     i, v, b, m, c, run["others_pct"],
                     ", run again" if attempt < REDO else ""))
        return run

    def untraced(self, label, cfg, i):
        """--overhead: the baseline once more, without the tracer; in
        self.runs (role "untraced") and in self.overhead beside the
        round's traced baseline run."""
        run = self.timed_run(label, cfg, i, traced=False, role="untraced")
        self.runs.append(run)
        traced = [r for r in self.runs if r["run"] == i and
                  r["role"] == "run" and not r["discarded"] and
                  (r["cache"], r["mode"], r["variant"], r["backend"]) ==
                  cfg]
        if traced:
            self.overhead.append({
                "round": i, "traced_s": traced[-1]["elapsed_s"],
                "untraced_s": run["elapsed_s"],
                "traced_cpu_s": cpu_time(traced[-1]),
                "untraced_cpu_s": cpu_time(run)})

    def timed_run(self, label, cfg, i, traced=True, role="run"):
        """One run of configuration cfg in round i, as a run record; its
        role is "run", or "aa" for the baseline's second run of the round
        (the A/A comparison), or "untraced" (--overhead)."""
        c, m, v, b = cfg
        run = self.new_run(label, cfg, i, role)
        if c == "cold" and not self.cold_ok:
            run["error"] = self.cold_why
            return run
        rc, wall, ru, text, sync_after, grec = self.one_run(
            self.vdebs[v], b, m, c, self.trace, traced=traced)
        if grec:
            run.update(grec)
        run.update({
            "elapsed_s": round(wall, 6),
            "user_s": round(ru.ru_utime, 6),
            "sys_s": round(ru.ru_stime, 6),
            "cpu_pct": round(100.0 * (ru.ru_utime + ru.ru_stime) /
                             wall, 1) if wall > 0 else 0.0,
            "max_rss_kb": ru.ru_maxrss, "minflt": ru.ru_minflt,
            "majflt": ru.ru_majflt, "inblock": ru.ru_inblock,
            "oublock": ru.ru_oublock})
        want = self.tar_total
        gotb, errs = self.verify[(v, b)]
        errtxt = ""
        if rc != 0:
            lines = [ln.strip() for ln in text.splitlines()
                     if "error" in ln]
            errtxt = "dpkg exited %d: %s" % (
                rc, (lines or ["(no error line)"])[0])
        if gotb != want:
            errtxt = (errtxt + "; " if errtxt else
                      "dpkg exited 0 but ") + \
                "dpkg-deb --fsys-tarfile gave %d of %d tar bytes" \
                % (gotb, want)
            if errs:
                errtxt += " (%s)" % errs[0][2].splitlines()[0][:200]
        if errtxt:
            run["error"] = errtxt
            run["status"] = "failed"
        elif traced:
            run["status"] = "ok"
            recs = parse_trace(self.trace)
            main_pid = main_dpkg_pid(recs)
            bd, det = breakdown(wall, recs, main_pid, self.stages)
            run["breakdown"] = bd
            det.update({"variant": v, "backend": b, "mode": m,
                        "cache": c, "run": i, "role": role,
                        "discarded": run["discarded"],
                        "sync_after_s": round(sync_after, 6)})
            self.details.append(det)
        else:
            run["status"] = "ok"
        return run

    def run(self):
        a = self.a
        self.check_args()
        if a.pairs:
            # Only the variants of the pairs are made and run.
            used = {pr.partition("/")[0] for pr in a.pairs}
            a.variants = [v for v in a.variants if v in used]
        if not self.iotrace:
            self.notes.append("zdeb-iotrace.so not found: no breakdown "
                              "(only other_s is not 0)")
        srcs = self.sources()
        label = ",".join(self.stem(d).split("_")[0] for d in srcs)
        tars = [self.tar_of(d) for d in srcs]
        tar_bytes = {d: os.path.getsize(t) for d, t in zip(srcs, tars)}
        self.tar_total = sum(tar_bytes.values())
        vdebs = {v: [self.variant(d, v) for d in srcs] for v in a.variants}
        self.vdebs = vdebs
        bstatus = self.setup_backends(vdebs[a.variants[0]][0])
        backends = [b for b in a.backends if b in self.backend_path]
        for b in a.backends:
            if b not in backends:
                self.notes.append("backend %s %s" % (b, bstatus[b]))
        self.cold_ok, self.cold_why = (True, "")
        if "cold" in a.cache:
            self.cold_ok, self.cold_why = can_drop_caches()
        if a.fs not in ("ext4", "tmpfs") and "hot" in a.cache:
            ok, why = can_drop_caches()
            if not ok:
                raise PerfError("--fs DIR drops the page cache before each "
                                "hot run: %s" % why)
        perf_status = "not requested"
        if a.perf:
            r = run_quiet(["perf", "record", "-q", "-e", "cpu-clock", "-o",
                           os.path.join(self.work, "probe.data"), "--",
                           "true"])
            perf_status = "available (cpu-clock sampling)" \
                if r.returncode == 0 else \
                "unavailable: " + (r.stderr.strip().splitlines() or ["?"])[-1]
        fsinfo = self.scratch_fs(tars)
        extra = {
            "inputs": [os.path.basename(d) for d in srcs],
            "tar_bytes": self.tar_total,
            "variant_bytes": {v: sum(os.path.getsize(x) for x in vdebs[v])
                              for v in a.variants},
            "backends": bstatus,
            "cache_modes": a.cache,
            "cold_cache": ("possible" if self.cold_ok else self.cold_why)
            if "cold" in a.cache else "not requested",
            "action": a.action,
            "runs_per_config": a.runs if a.runs else "auto",
            "iotrace": self.iotrace or "not found",
            "perf": perf_status,
            "fs": fsinfo,
            "nice": a.nice,
            "load_avg_start": self.load_start,
        }
        self.machine = machine_info(self.fs.base, self.zdeb, extra)
        for k in ("filesystem", "mount_source", "mount_options", "disk"):
            self.machine[k] = fsinfo.get(k, "unknown")

        note("stage runs: tar parse and md5")
        stages, self.md5_impl = stage_runs.tar_md5(tars, self.stage_runs())
        dec = {}
        verify = {}
        for v in a.variants:
            for b in backends:
                if a.pairs and "%s/%s" % (v, b) not in a.pairs:
                    continue
                dec[(v, b)] = self.stage_decode(b, vdebs[v])
                got = [self.decoded_bytes(b, d) for d in vdebs[v]]
                verify[(v, b)] = (sum(g[0] for g in got),
                                  [g for g in got if g[1] != 0])
        self.stages = stages
        self.verify = verify
        self.machine["md5_stage"] = self.md5_impl
        self.dec = dec
        self.trace = os.path.join(self.work, "iotrace.txt")
        configs = [(c, m, v, b) for c in a.cache for m in a.modes
                   for v in a.variants for b in backends
                   if not a.pairs or "%s/%s" % (v, b) in a.pairs]
        if not configs:
            raise PerfError("no backend is available")
        control = self.control_config(configs)
        self.control = control
        self.configs = configs
        # A round: the baseline, half the others, the baseline again (the
        # A/A comparison: drift within a round shows in it), the rest;
        # rotated by one place per round.  Which of the baseline's two
        # runs is the A/A one ("aa") alternates (stats.round_order), so
        # that neither always follows the other or the same
        # configuration, and each takes every position alike.
        others = [c for c in configs if c != control]
        half = len(others) // 2
        seq = [(control, "run")] + [(c, "run") for c in others[:half]] + \
            [(control, "aa")] + [(c, "run") for c in others[half:]]
        self.gate = Gate(max_load=a.max_load, max_others_pct=a.max_others,
                         wait=a.quiet_wait, allow_loaded=a.allow_loaded,
                         start_load=self.load_start[0])
        self.runs = []
        total = "%d" % a.runs if a.runs else "auto"

        def do_round(i):
            g = self.gate.wait_quiet(i)
            note("round %d/%s: load %.2f, other processes %.2f cores%s" % (
                i, total, g["load1"], g["busy_cores"],
                "" if g["quiet"] else
                " (not quiet%s)" % (", --allow-loaded" if a.allow_loaded
                                    else " after %.0f s" % g["waited_s"])))
            for cfg, role in stats.round_order(seq, i):
                c, m, v, b = cfg
                note("round %d/%s: %s %s %s %s%s" % (
                    i, total, v, b, m, c,
                    " (baseline again, A/A)" if role == "aa" else
                    " (baseline)" if cfg == control else ""))
                self.gated_run(label, cfg, i, role=role)
                if cfg == control and role == "run" and a.overhead:
                    note("round %d/%s: %s %s %s %s (baseline, untraced)"
                         % (i, total, v, b, m, c))
                    self.untraced(label, cfg, i)

        self.rounds = stats.run_rounds(
            do_round, lambda: report.live_comparisons(self),
            target=a.target / 100.0, fixed=a.runs,
            max_rounds=a.max_rounds, max_time=a.max_time)
        runs = self.runs
        if a.perf and perf_status.startswith("available"):
            for v in a.variants:
                for b in backends:
                    if (v, b) not in verify or \
                            verify[(v, b)][0] != self.tar_total:
                        continue
                    pd = os.path.join(self.work, "perf-%s-%s.data" % (v, b))
                    self.one_run(vdebs[v], b, a.modes[0], "hot", self.trace,
                                 perf_out=pd)
                    self.perf[(v, b)] = stage_runs.perf_shares(pd)
        self.machine["load_avg_end"] = list(os.getloadavg())
        # Loaded when a round started not quiet (the gate's wait ran out,
        # or --allow-loaded took its first reading).  The load at the
        # start is printed, not judged here: the gate judged it before the
        # first round (waiting for it to fall when it was high; when it
        # was low, the preparation's own load is not waited for).
        self.machine["loaded"] = any(not g["quiet"]
                                     for g in self.gate.rounds)
        self.runs = runs
        report.write_all(self)
        return 0
