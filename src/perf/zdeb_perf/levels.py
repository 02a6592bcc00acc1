# SPDX-License-Identifier: GPL-2.0-or-later
"""levels - the compression level sweep: size and time per level of the
real gzip, xz and zstd command line tools, per input shape."""

import csv
import io
import json
import os
import random
import shutil
import sys
import tarfile
import tempfile

from .common import PerfError, first_line, median, timed
from .machine import machine_info
from .plot import plot_levels


LEVELS = {
    "gzip": [str(i) for i in range(1, 10)],
    "xz": [str(i) for i in range(0, 10)] + ["6e", "9e"],
    "zstd": [str(i) for i in range(-5, 0)] + [str(i) for i in range(1, 23)],
}
DEFAULT_LEVEL = {"gzip": "6", "xz": "6", "zstd": "3"}
COMP_DESC = {"gzip": "gzip -n -c -L",
             "xz": "xz -T1 -c -L [-e]",
             "zstd": "zstd --single-thread -c [--ultra] -L | --fast=N"}


def comp_cmd(c, lvl):
    if c == "gzip":
        return ["gzip", "-n", "-c", "-" + lvl]
    if c == "xz":
        return ["xz", "-T1", "-c", "-" + lvl[0]] + \
            (["-e"] if lvl.endswith("e") else [])
    if c == "zstd":
        n = int(lvl)
        lv = ["--fast=%d" % -n] if n < 0 else ["-%d" % n]
        return ["zstd", "-q", "-c", "--single-thread", "--no-progress"] + \
            (["--ultra"] if n >= 20 else []) + lv
    raise PerfError("unknown compressor '%s'" % c)


def decomp_cmd(c):
    return {"gzip": ["gzip", "-dc"], "xz": ["xz", "-T1", "-dc"],
            "zstd": ["zstd", "-q", "-dc", "--no-progress"]}[c]


def shape_text(n, rng):
    out, size = [], 0
    roots = ["/usr/include", "/usr/share/perl5", "/usr/lib/python3"]
    for root in roots:
        for dp, dns, fns in os.walk(root):
            dns.sort()
            for f in sorted(fns):
                if not f.endswith((".h", ".pm", ".py")):
                    continue
                try:
                    with open(os.path.join(dp, f), "rb") as fh:
                        b = fh.read()
                except OSError:
                    continue
                out.append(b)
                size += len(b)
                if size >= n:
                    return b"".join(out)[:n]
    words = [b"int", b"static", b"const", b"return", b"if", b"struct",
             b"for", b"size_t", b"char", b"void", b"buf", b"len", b"err"]
    while size < n:
        ln = b" ".join(rng.choice(words) for _ in range(8)) + b";\n"
        out.append(ln)
        size += len(ln)
    return b"".join(out)[:n]


def shape_tar(n):
    files = []
    for root in ("/usr/bin", "/usr/share/doc", "/usr/lib/python3"):
        lst = []
        for dp, dns, fns in os.walk(root):
            dns.sort()
            for f in sorted(fns):
                p = os.path.join(dp, f)
                if os.path.isfile(p) and not os.path.islink(p):
                    lst.append(p)
        files.append(lst)
    bio = io.BytesIO()
    with tarfile.open(fileobj=bio, mode="w", format=tarfile.GNU_FORMAT) as tf:
        i = 0
        while bio.tell() < n and any(files):
            lst = files[i % len(files)]
            i += 1
            if not lst:
                continue
            p = lst.pop(0)
            try:
                ti = tf.gettarinfo(p, arcname=p.lstrip("/"))
                ti.mtime, ti.uid, ti.gid, ti.uname, ti.gname = \
                    1700000000, 0, 0, "root", "root"
                with open(p, "rb") as fh:
                    tf.addfile(ti, fh)
            except OSError:
                continue
    return bio.getvalue()[:n]


def make_shape(name, n):
    rng = random.Random(6)
    if name == "text":
        return shape_text(n, rng)
    if name == "incompressible":
        return rng.randbytes(n)
    if name == "mixed":
        t = shape_text(n, rng)
        r = rng.randbytes(n)
        blk = 64 << 10
        return b"".join((t if (i // blk) % 2 == 0 else r)[i:i + blk]
                        for i in range(0, n, blk))[:n]
    if name == "tar":
        return shape_tar(n)
    raise PerfError("unknown shape '%s' (text, incompressible, mixed, tar)"
                    % name)


def levels_main(a):
    comps = a.compressors
    for c in comps:
        if c not in LEVELS:
            raise PerfError("unknown compressor '%s'" % c)
        if not shutil.which(c):
            raise PerfError("'%s' not found" % c)
    work = tempfile.mkdtemp(prefix="zdeb-perf-levels.")
    try:
        inputs = []
        n = int(a.size * 1024 * 1024)
        if a.files:
            for f in a.files:
                inputs.append((os.path.basename(f), os.path.abspath(f)))
        else:
            for s in a.shapes:
                p = os.path.join(work, s + ".in")
                with open(p, "wb") as fh:
                    fh.write(make_shape(s, n))
                inputs.append((s, p))
        rows = []
        for shape, path in inputs:
            insize = os.path.getsize(path)
            for c in comps:
                for lvl in LEVELS[c]:
                    out = os.path.join(work, "out")
                    cts, dts = [], []
                    for _ in range(a.runs):
                        with open(path, "rb") as i, open(out, "wb") as o:
                            rc, w, _ = timed(comp_cmd(c, lvl), stdin=i,
                                             stdout=o)
                        if rc != 0:
                            raise PerfError("%s -%s failed" % (c, lvl))
                        cts.append(w)
                        with open(out, "rb") as i, \
                                open(os.devnull, "wb") as o:
                            rc, w, _ = timed(decomp_cmd(c), stdin=i,
                                             stdout=o)
                        if rc != 0:
                            raise PerfError("%s -d failed" % c)
                        dts.append(w)
                    rows.append({"compressor": c, "shape": shape,
                                 "level": lvl, "input_bytes": insize,
                                 "comp_ms": median(cts) * 1000,
                                 "comp_min_ms": min(cts) * 1000,
                                 "comp_max_ms": max(cts) * 1000,
                                 "size_bytes": os.path.getsize(out),
                                 "decomp_ms": median(dts) * 1000})
        for c in comps:
            for shape, _ in inputs:
                grp = [r for r in rows if r["compressor"] == c and
                       r["shape"] == shape]
                d = next(r for r in grp if r["level"] == DEFAULT_LEVEL[c])
                for r in grp:
                    r["default_level"] = DEFAULT_LEVEL[c]
                    r["speedup_vs_default"] = round(
                        d["comp_ms"] / r["comp_ms"], 3)
                    r["size_vs_default"] = round(
                        r["size_bytes"] / d["size_bytes"], 4)
                    r["ratio"] = round(r["input_bytes"] / r["size_bytes"], 3)
                    r["comp_mb_s"] = round(r["input_bytes"] / 1e6 /
                                           (r["comp_ms"] / 1000), 2)
                    r["decomp_mb_s"] = round(r["input_bytes"] / 1e6 /
                                             (r["decomp_ms"] / 1000), 2)
                    for k in ("comp_ms", "comp_min_ms", "comp_max_ms",
                              "decomp_ms"):
                        r[k] = round(r[k], 3)
        out = sys.stdout
        for c in comps:
            for shape, _ in inputs:
                grp = [r for r in rows if r["compressor"] == c and
                       r["shape"] == shape]
                dl = DEFAULT_LEVEL[c]
                out.write("\n%s on %s (%.1f MiB), %s, median of %d; "
                          "default level %s\n" % (
                              c, shape, grp[0]["input_bytes"] / 1048576,
                              COMP_DESC[c],
                              a.runs, dl))
                out.write("%5s | %9s | %10s | %6s | %12s | %10s | %9s | "
                          "%9s\n" % ("level", "time (ms)", "size (KiB)",
                                     "ratio", "speedup-vs-" + dl,
                                     "size-vs-" + dl, "dec (ms)",
                                     "dec MB/s"))
                for r in grp:
                    out.write("%5s | %9.1f | %10.1f | %6.3f | %12.3f | "
                              "%10.4f | %9.1f | %9.1f\n" % (
                                  r["level"], r["comp_ms"],
                                  r["size_bytes"] / 1024, r["ratio"],
                                  r["speedup_vs_default"],
                                  r["size_vs_default"], r["decomp_ms"],
                                  r["decomp_mb_s"]))
        keys = ["compressor", "shape", "level", "default_level",
                "input_bytes", "size_bytes", "ratio", "comp_ms",
                "comp_min_ms", "comp_max_ms", "comp_mb_s",
                "speedup_vs_default", "size_vs_default", "decomp_ms",
                "decomp_mb_s"]
        if a.csv:
            with open(a.csv, "w", newline="") as fh:
                w = csv.writer(fh)
                w.writerow(keys)
                for r in rows:
                    w.writerow([r[k] for k in keys])
        if a.json:
            m = machine_info(work, None, {
                "tools": {c: first_line([c, "--version"]) for c in comps},
                "runs": a.runs})
            with open(a.json, "w") as fh:
                json.dump({"machine": m,
                           "rows": [{k: r[k] for k in keys} for r in rows]},
                          fh, indent=1)
                fh.write("\n")
        if a.plot:
            plot_levels(rows, comps, [s for s, _ in inputs], a.plot, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0
