# SPDX-License-Identifier: GPL-2.0-or-later
"""stages - the stage runs beside the installs (tar -t, md5, decode) and
the perf sample shares.

The stage runs estimate what the tracer cannot see inside dpkg: its tar
parsing and its md5; and the decoder's own wall and CPU time.
"""

import ctypes
import ctypes.util
import hashlib
import os
import subprocess
import tarfile
import time

from .common import median, run_quiet, timed


class Md5:
    """MD5 through libmd (what dpkg links) via ctypes, else hashlib."""

    def __init__(self):
        self.lib = None
        self.name = "python hashlib"
        try:
            lib = ctypes.CDLL(ctypes.util.find_library("md") or "libmd.so.0")
            lib.MD5Init
            self.lib = lib
            self.ctx = ctypes.create_string_buffer(512)
            self.out = ctypes.create_string_buffer(16)
            self.name = "libmd (ctypes)"
        except (OSError, AttributeError):
            pass
        self.h = None

    def init(self):
        if self.lib:
            self.lib.MD5Init(self.ctx)
        else:
            self.h = hashlib.md5()

    def update(self, buf):
        if self.lib:
            self.lib.MD5Update(self.ctx, buf, ctypes.c_size_t(len(buf)))
        else:
            self.h.update(buf)

    def final(self):
        if self.lib:
            self.lib.MD5Final(self.out, self.ctx)
            return self.out.raw.hex()
        return self.h.hexdigest()


def tar_md5(tars, runs):
    """CPU time (not wall: the machine may be shared) of tar -t and of
    md5 over every regular member, with dpkg's own libmd when present
    (hashlib otherwise).  Returns ({"tar_s", "md5_s"}, md5 name)."""
    md5 = Md5()
    tar_ts, md5_ts = [], []
    for _ in range(max(1, runs)):
        t = 0.0
        for tp in tars:
            with open(os.devnull, "wb") as null:
                rc, wall, ru = timed(["tar", "-tf", tp], stdout=null,
                                     stderr=null)
            t += ru.ru_utime + ru.ru_stime
        tar_ts.append(t)
        m = 0.0
        for tp in tars:
            with tarfile.open(tp, "r:") as tf:
                for mem in tf:
                    if not mem.isreg():
                        continue
                    fh = tf.extractfile(mem)
                    md5.init()
                    while True:
                        buf = fh.read(1 << 20)
                        if not buf:
                            break
                        t0 = time.process_time()
                        md5.update(buf)
                        m += time.process_time() - t0
                    md5.final()
        md5_ts.append(m)
    return {"tar_s": median(tar_ts), "md5_s": median(md5_ts)}, md5.name


def decode(dpkg_deb, env_path, debs, runs):
    """--fsys-tarfile to /dev/null: median wall and CPU (user+sys)."""
    walls, cpus = [], []
    env = dict(os.environ, PATH=env_path)
    for _ in range(max(1, runs)):
        w = c = 0.0
        for deb in debs:
            with open(os.devnull, "wb") as null:
                rc, wall, ru = timed([dpkg_deb, "--fsys-tarfile", deb],
                                     env=env, stdout=null, stderr=null)
            w += wall
            c += ru.ru_utime + ru.ru_stime
        walls.append(w)
        cpus.append(c)
    return median(walls), median(cpus)


def decoded_bytes(dpkg_deb, env_path, deb):
    """Bytes --fsys-tarfile writes, its status and its stderr (untimed)."""
    env = dict(os.environ, PATH=env_path)
    p = subprocess.Popen([dpkg_deb, "--fsys-tarfile", deb], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    n = 0
    while True:
        buf = p.stdout.read(1 << 20)
        if not buf:
            break
        n += len(buf)
    err = p.stderr.read().decode(errors="replace").strip()
    p.wait()
    return n, p.returncode, err


def perf_shares(data):
    """Share of cpu-clock samples per DSO group, from perf report."""
    r = run_quiet(["perf", "report", "-i", data, "--sort", "dso", "--stdio",
                   "-q"])
    groups = {"libzstd": 0.0, "liblzma": 0.0, "libz": 0.0, "zdeb": 0.0,
              "libmd": 0.0, "dpkg": 0.0, "libc": 0.0, "kernel": 0.0,
              "other": 0.0}
    for ln in r.stdout.splitlines():
        parts = ln.split()
        if len(parts) < 2 or not parts[0].endswith("%"):
            continue
        try:
            pct = float(parts[0][:-1])
        except ValueError:
            continue
        dso = parts[1]
        if dso.startswith("libzstd"):
            groups["libzstd"] += pct
        elif dso.startswith("liblzma"):
            groups["liblzma"] += pct
        elif dso.startswith("libz.so"):
            groups["libz"] += pct
        elif dso == "zdeb":
            groups["zdeb"] += pct
        elif dso.startswith("libmd.so"):
            groups["libmd"] += pct
        elif dso.startswith("dpkg"):
            groups["dpkg"] += pct
        elif dso.startswith("libc.so") or dso.startswith("libc-"):
            groups["libc"] += pct
        elif "kernel" in dso:
            groups["kernel"] += pct
        else:
            groups["other"] += pct
    return {k: round(v, 1) for k, v in groups.items()}
