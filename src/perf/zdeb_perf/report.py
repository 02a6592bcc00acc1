# SPDX-License-Identifier: GPL-2.0-or-later
"""report - the install results as a table, JSON, CSV, details and plot.

Works on an install.Install after its runs: a (attributes a, machine,
stages, md5_impl, dec, runs, details, perf, notes).
"""

import csv
import json
import sys

from .common import fmt_s, median
from .iotrace import BREAKDOWN_KEYS
from .plot import plot_install

RUN_KEYS = ["input", "variant", "backend", "mode", "cache", "run", "status",
            "error", "elapsed_s", "user_s", "sys_s", "cpu_pct", "max_rss_kb",
            "minflt", "majflt", "inblock", "oublock", "breakdown"]


def groups(runs):
    """The runs by configuration, in the order the configurations ran."""
    out = []
    seen = {}
    for r in runs:
        k = (r["variant"], r["backend"], r["mode"], r["cache"])
        if k not in seen:
            seen[k] = []
            out.append(k)
        seen[k].append(r)
    return [(k, seen[k]) for k in out]


def summary_rows(res):
    rows = []
    for k, rs in groups(res.runs):
        ok = [r for r in rs if r["status"] == "ok"]
        row = {"variant": k[0], "backend": k[1], "mode": k[2],
               "cache": k[3], "n_ok": len(ok), "n": len(rs)}
        if not ok:
            row["error"] = next((r["error"] for r in rs if r["error"]),
                                "")
            rows.append(row)
            continue
        el = [r["elapsed_s"] for r in ok]
        row["elapsed"] = median(el)
        row["min"] = min(el)
        row["max"] = max(el)
        for f in ("user_s", "sys_s", "cpu_pct", "max_rss_kb"):
            row[f] = median([r[f] for r in ok])
        for bk in BREAKDOWN_KEYS:
            row[bk] = median([r["breakdown"][bk] for r in ok])
        dw, dc = res.dec.get((k[0], k[1]), (None, None))
        row["dec_wall"] = dw
        row["dec_cpu"] = dc
        syncs = [d["sync_after_s"] for d in res.details
                 if (d["variant"], d["backend"], d["mode"],
                     d["cache"]) == k]
        row["sync_after"] = median(syncs)
        rows.append(row)
    return rows


def table(res):
    m = res.machine
    a = res.a
    lines = []
    lines.append("zdeb-perf install: %s (%s tar bytes), dpkg --%s, "
                 "%d run(s), median [min-max]"
                 % (",".join(m["inputs"]), m["tar_bytes"],
                    a.action, a.runs))
    lines.append("machine: %s cores, %d MiB, kernel %s; scratch %s "
                 "(%s %s); disk %s"
                 % (m["cores"], m.get("memory_kb", 0) // 1024,
                    m["kernel"], m["scratch"], m["filesystem"],
                    m["mount_options"], m["disk"]))
    lines.append("stage runs (CPU time): tar -t %.3f s, md5 %.3f s with "
                 "%s (per install); load average at start %s"
                 % (res.stages["tar_s"], res.stages["md5_s"],
                    res.md5_impl, " ".join(
                        "%.1f" % x for x in m["load_avg_start"])))
    hdr = ("%-12s %-5s %-9s %-4s %20s %6s %6s %5s %7s | %s | "
           "%6s %6s %6s"
           % ("variant", "back", "mode", "cach", "elapsed s [min-max]",
              "user", "sys", "%CPU", "RSS MB",
              " ".join("%6s" % k[:-2][:6] for k in BREAKDOWN_KEYS),
              "decW", "decCPU", "sync"))
    lines.append(hdr)
    lines.append("-" * len(hdr))
    for r in summary_rows(res):
        pre = "%-12s %-5s %-9s %-4s" % (r["variant"], r["backend"],
                                        r["mode"], r["cache"])
        if r["n_ok"] == 0:
            lines.append("%s %20s  %s" % (pre, "FAILED",
                                          r.get("error", "")[:150]))
            continue
        el = "%.2f [%.2f-%.2f]" % (r["elapsed"], r["min"], r["max"])
        lines.append(
            "%s %20s %6.2f %6.2f %5.0f %7.1f | %s | %s %s %s%s"
            % (pre, el, r["user_s"], r["sys_s"], r["cpu_pct"],
               r["max_rss_kb"] / 1024.0,
               " ".join(fmt_s(r[k]) for k in BREAKDOWN_KEYS),
               fmt_s(r["dec_wall"]), fmt_s(r["dec_cpu"]),
               fmt_s(r["sync_after"]),
               "" if r["n_ok"] == r["n"] else
               "  (%d of %d runs failed)" % (r["n"] - r["n_ok"], r["n"])))
    lines.append("")
    lines.append("breakdown = wall time on dpkg's critical path; decode ="
                 " dpkg blocked on the data pipe; decW/decCPU = stage "
                 "run --fsys-tarfile >/dev/null wall / user+sys (CPU > "
                 "wall = multi-threaded decode); sync = sync(2) after "
                 "the run, not in elapsed.")
    clamped = [d for d in res.details if d["overlap_note"]]
    if clamped:
        lines.append("note: %d run(s): %s" % (len(clamped),
                                              clamped[0]["overlap_note"]))
    for n in res.notes:
        lines.append("note: " + n)
    if a.perf:
        lines.append("")
        lines.append("perf: " + m["perf"])
        for (v, b), sh in res.perf.items():
            lines.append("  %-12s %-5s %s" % (v, b, "  ".join(
                "%s %.1f%%" % kv for kv in sh.items())))
    return "\n".join(lines) + "\n"


def write_all(res):
    """The table on stdout, then the files the options ask for."""
    sys.stdout.write(table(res))
    sys.stdout.flush()
    a = res.a
    if a.json:
        with open(a.json, "w") as fh:
            json.dump({"machine": res.machine, "runs": res.runs}, fh,
                      indent=1)
            fh.write("\n")
    if a.details:
        with open(a.details, "w") as fh:
            json.dump({"stages": res.stages,
                       "decode_stage": [
                           {"variant": v, "backend": b, "wall_s": w,
                            "cpu_s": c}
                           for (v, b), (w, c) in res.dec.items()],
                       "runs": res.details,
                       "perf": [{"variant": v, "backend": b,
                                 "shares_pct": sh}
                                for (v, b), sh in res.perf.items()]},
                      fh, indent=1)
    if a.csv:
        with open(a.csv, "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(RUN_KEYS[:-1] + BREAKDOWN_KEYS)
            for r in res.runs:
                bd = r["breakdown"] or {}
                w.writerow([r[k] if r[k] is not None else ""
                            for k in RUN_KEYS[:-1]] +
                           [bd.get(k, "") for k in BREAKDOWN_KEYS])
    if a.plot:
        plot_install(summary_rows(res), a.plot, res.machine)
