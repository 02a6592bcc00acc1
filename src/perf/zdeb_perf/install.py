# SPDX-License-Identifier: GPL-2.0-or-later
"""install - the install driver: inputs, variants, backends and the runs.

Each run is a real dpkg --unpack (or --install) into a fresh scratch root
with zdeb-iotrace.so preloaded; see zdeb-perf(1) for the method.
"""

import os
import shutil
import subprocess
import tempfile
import time

from . import report
from . import stages as stage_runs
from .common import (PerfError, find_iotrace, find_zdeb, note, run_quiet,
                     timed)
from .iotrace import breakdown, main_dpkg_pid, parse_trace
from .machine import can_drop_caches, drop_caches, machine_info
from .plot import gnuplot_term

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
        self.scratch = os.path.abspath(args.scratch or
                                       os.path.join(self.work, "roots"))
        os.makedirs(self.scratch, exist_ok=True)
        self.notes = []
        self.details = []
        self.perf = {}

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
        return status

    # stage runs
    def stage_decode(self, backend, debs):
        return stage_runs.decode(self.backend_path[backend],
                                 self.backend_env_path[backend], debs,
                                 self.a.runs)

    def decoded_bytes(self, backend, deb):
        return stage_runs.decoded_bytes(self.backend_path[backend],
                                        self.backend_env_path[backend], deb)

    # one install
    def init_root(self, root):
        if os.path.exists(root):
            shutil.rmtree(root)
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

    def one_run(self, debs, backend, mode, cache, trace, perf_out=None):
        root = os.path.join(self.scratch, "root")
        adm = self.init_root(root)
        if os.path.exists(trace):
            os.unlink(trace)
        env = dict(os.environ, PATH=self.backend_env_path[backend],
                   LC_ALL="C")
        if self.iotrace:
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
        log = os.path.join(self.work, "dpkg.log")
        with open(log, "w") as out:
            rc, wall, ru = timed(cmd, env=env, stdout=out,
                                 stderr=subprocess.STDOUT,
                                 stdin=subprocess.DEVNULL)
        t0 = time.monotonic()
        os.sync()
        sync_after = time.monotonic() - t0
        with open(log, errors="replace") as fh:
            text = fh.read()
        return rc, wall, ru, text, sync_after

    def main(self):
        """run(), then the work directory made for it goes, also when
        run() fails (a bad option, a failed install)."""
        try:
            return self.run()
        finally:
            if self.own_work:
                shutil.rmtree(self.work, ignore_errors=True)

    def run(self):
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
            if b not in ALL_BACKENDS:
                raise PerfError("unknown backend '%s'" % b)
        if a.plot:
            gnuplot_term(a.plot)
        if "eatmydata" in a.modes and not shutil.which("eatmydata"):
            raise PerfError("mode eatmydata needs the eatmydata command")
        if not shutil.which("dpkg"):
            raise PerfError("dpkg not found")
        if not self.iotrace:
            self.notes.append("zdeb-iotrace.so not found: no breakdown "
                              "(write/fsync/rename/decode/db are 0)")
        srcs = self.sources()
        label = ",".join(self.stem(d).split("_")[0] for d in srcs)
        tars = [self.tar_of(d) for d in srcs]
        tar_bytes = {d: os.path.getsize(t) for d, t in zip(srcs, tars)}
        vdebs = {v: [self.variant(d, v) for d in srcs] for v in a.variants}
        bstatus = self.setup_backends(vdebs[a.variants[0]][0])
        backends = [b for b in a.backends if b in self.backend_path]
        for b in a.backends:
            if b not in backends:
                self.notes.append("backend %s %s" % (b, bstatus[b]))
        cold_ok, cold_why = (True, "")
        if "cold" in a.cache:
            cold_ok, cold_why = can_drop_caches()
        perf_status = "not requested"
        if a.perf:
            r = run_quiet(["perf", "record", "-q", "-e", "cpu-clock", "-o",
                           os.path.join(self.work, "probe.data"), "--",
                           "true"])
            perf_status = "available (cpu-clock sampling)" \
                if r.returncode == 0 else \
                "unavailable: " + (r.stderr.strip().splitlines() or ["?"])[-1]
        extra = {
            "inputs": [os.path.basename(d) for d in srcs],
            "tar_bytes": sum(tar_bytes.values()),
            "variant_bytes": {v: sum(os.path.getsize(x) for x in vdebs[v])
                              for v in a.variants},
            "backends": bstatus,
            "cache_modes": a.cache,
            "cold_cache": ("possible" if cold_ok else cold_why)
            if "cold" in a.cache else "not requested",
            "action": a.action,
            "runs_per_config": a.runs,
            "iotrace": self.iotrace or "not found",
            "perf": perf_status,
        }
        self.machine = machine_info(self.scratch, self.zdeb, extra)

        note("stage runs: tar parse and md5")
        stages, self.md5_impl = stage_runs.tar_md5(tars, a.runs)
        dec = {}
        verify = {}
        for v in a.variants:
            for b in backends:
                dec[(v, b)] = self.stage_decode(b, vdebs[v])
                got = [self.decoded_bytes(b, d) for d in vdebs[v]]
                verify[(v, b)] = (sum(g[0] for g in got),
                                  [g for g in got if g[1] != 0])
        self.stages = stages
        self.machine["md5_stage"] = self.md5_impl
        self.dec = dec
        trace = os.path.join(self.work, "iotrace.txt")
        runs = []
        configs = [(c, m, v, b) for c in a.cache for m in a.modes
                   for v in a.variants for b in backends]
        for i in range(1, a.runs + 1):
            for (c, m, v, b) in configs:
                note("run %d/%d: %s %s %s %s" % (i, a.runs, v, b, m, c))
                run = {"input": label, "variant": v, "backend": b,
                       "mode": m, "cache": c, "run": i, "status": "failed",
                       "error": "", "elapsed_s": None, "user_s": None,
                       "sys_s": None, "cpu_pct": None, "max_rss_kb": None,
                       "minflt": None, "majflt": None, "inblock": None,
                       "oublock": None, "breakdown": None}
                if c == "cold" and not cold_ok:
                    run["error"] = cold_why
                    runs.append(run)
                    continue
                rc, wall, ru, text, sync_after = self.one_run(
                    vdebs[v], b, m, c, trace)
                run.update({
                    "elapsed_s": round(wall, 6),
                    "user_s": round(ru.ru_utime, 6),
                    "sys_s": round(ru.ru_stime, 6),
                    "cpu_pct": round(100.0 * (ru.ru_utime + ru.ru_stime) /
                                     wall, 1) if wall > 0 else 0.0,
                    "max_rss_kb": ru.ru_maxrss, "minflt": ru.ru_minflt,
                    "majflt": ru.ru_majflt, "inblock": ru.ru_inblock,
                    "oublock": ru.ru_oublock})
                want = sum(tar_bytes.values())
                gotb, errs = verify[(v, b)]
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
                else:
                    run["status"] = "ok"
                    recs = parse_trace(trace)
                    main_pid = main_dpkg_pid(recs)
                    bd, det = breakdown(wall, recs, main_pid, stages)
                    run["breakdown"] = bd
                    det.update({"variant": v, "backend": b, "mode": m,
                                "cache": c, "run": i,
                                "sync_after_s": round(sync_after, 6)})
                    self.details.append(det)
                runs.append(run)
        if a.perf and perf_status.startswith("available"):
            for v in a.variants:
                for b in backends:
                    if verify[(v, b)][0] != sum(tar_bytes.values()):
                        continue
                    pd = os.path.join(self.work, "perf-%s-%s.data" % (v, b))
                    self.one_run(vdebs[v], b, a.modes[0], "hot", trace,
                                 perf_out=pd)
                    self.perf[(v, b)] = stage_runs.perf_shares(pd)
        self.runs = runs
        report.write_all(self)
        return 0
