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
            "minflt", "majflt", "inblock", "oublock", "load1", "drift_pct",
            "drift_flag", "breakdown"]
# The 1-minute load average at which a run is said to be on a loaded
# machine (zdeb-perf's own work not yet started).
LOADED_AT = 0.5


def round_drift(rnd, first, last, threshold_pct, load1):
    """The control's drift in one round: its last run against its first.
    first and last are run records; flagged when both ran and the
    elapsed times differ by more than threshold_pct of the first (as
    printed, to 0.1 %)."""
    d = {"round": rnd, "first_s": first["elapsed_s"] if first else None,
         "last_s": last["elapsed_s"] if last else None, "drift_pct": None,
         "flagged": False, "load1": load1}
    if first and last and first["status"] == "ok" and \
            last["status"] == "ok" and first["elapsed_s"] > 0:
        pct = 100.0 * (last["elapsed_s"] - first["elapsed_s"]) / \
            first["elapsed_s"]
        d["drift_pct"] = round(pct, 1)
        d["flagged"] = abs(d["drift_pct"]) > threshold_pct
    return d


def flag_drift(runs, drift):
    """Gives every run its round's control drift and flag."""
    by_round = {d["round"]: d for d in drift}
    for r in runs:
        d = by_round.get(r["run"])
        if d is not None:
            r["drift_pct"] = d["drift_pct"]
            r["drift_flag"] = d["flagged"]


def spread(xs):
    """max/min of the positive values, None with fewer than one."""
    xs = [x for x in xs if x]
    return max(xs) / min(xs) if xs else None


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
        row["spread"] = spread(el)
        row["n_flagged"] = sum(1 for r in ok if r["drift_flag"])
        for f in ("user_s", "sys_s", "cpu_pct", "max_rss_kb"):
            row[f] = median([r[f] for r in ok])
        for bk in BREAKDOWN_KEYS:
            row[bk] = median([r["breakdown"][bk] for r in ok])
        dw, dc = res.dec.get((k[0], k[1]), (None, None))
        row["dec_wall"] = dw
        row["dec_cpu"] = dc
        syncs = [d["sync_after_s"] for d in res.details
                 if (d["variant"], d["backend"], d["mode"],
                     d["cache"]) == k and d["role"] == "run"]
        row["sync_after"] = median(syncs)
        rows.append(row)
    return rows


def fmt_load(xs):
    return " ".join("%.1f" % x for x in xs)


def table(res):
    m = res.machine
    a = res.a
    fs = m["fs"]
    lines = []
    lines.append("zdeb-perf install: %s (%s tar bytes), dpkg --%s, "
                 "%d run(s), median [min-max]"
                 % (",".join(m["inputs"]), m["tar_bytes"],
                    a.action, a.runs))
    lines.append("machine: %s, %s cores, %d MiB, kernel %s; load average "
                 "%s at start, %s at end%s"
                 % (m["cpu_model"] or "cpu model unknown", m["cores"],
                    m.get("memory_kb", 0) // 1024, m["kernel"],
                    fmt_load(m["load_avg_start"]),
                    fmt_load(m["load_avg_end"]),
                    " (LOADED: other work was running)" if m["loaded"]
                    else ""))
    if fs["kind"] == "ext4":
        how = "a fresh ext4 per run (%s; %s; %d MiB image)" % (
            fs["mkfs"], fs["loop"], fs["image_bytes"] >> 20)
    elif fs["kind"] == "tmpfs":
        how = "a fresh tmpfs per run"
    else:
        how = "the directory %s; before each hot run: %s" % (
            m["scratch"], fs["before_hot_runs"])
    lines.append("scratch: %s; mounted %s %s; disk %s"
                 % (how, m["filesystem"], m["mount_options"], m["disk"]))
    lines.append("stage runs (CPU time): tar -t %.3f s, md5 %.3f s with "
                 "%s (per install); dpkg at nice %d"
                 % (res.stages["tar_s"], res.stages["md5_s"],
                    res.md5_impl, m["nice"]))
    hdr = ("%-12s %-5s %-9s %-4s %20s %5s %6s %6s %5s %7s | %s | "
           "%6s %6s %6s"
           % ("variant", "back", "mode", "cach", "elapsed s [min-max]",
              "max/mn", "user", "sys", "%CPU", "RSS MB",
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
        el = "%.2f [%.2f-%.2f]%s" % (r["elapsed"], r["min"], r["max"],
                                     "!" if r["n_flagged"] else " ")
        lines.append(
            "%s %20s %5.2fx %6.2f %6.2f %5.0f %7.1f | %s | %s %s %s%s"
            % (pre, el, r["spread"], r["user_s"], r["sys_s"],
               r["cpu_pct"], r["max_rss_kb"] / 1024.0,
               " ".join(fmt_s(r[k]) for k in BREAKDOWN_KEYS),
               fmt_s(r["dec_wall"]), fmt_s(r["dec_cpu"]),
               fmt_s(r["sync_after"]),
               "" if r["n_ok"] == r["n"] else
               "  (%d of %d runs failed)" % (r["n"] - r["n_ok"], r["n"])))
    lines.append("")
    c, mo, v, b = res.control
    flagged = [d for d in res.drift if d["flagged"]]
    lines.append("control %s/%s/%s/%s, first and last in each round: %s"
                 % (v, b, mo, c, "; ".join(
                     "%d: %s -> %s s (%s)" % (
                         d["round"], fmt_s(d["first_s"], 0),
                         fmt_s(d["last_s"], 0),
                         "%+.1f %%" % d["drift_pct"]
                         if d["drift_pct"] is not None else "n/a")
                     for d in res.drift)))
    lines.append("control drift above %g %% in %d of %d round(s)%s"
                 % (a.drift_threshold, len(flagged), len(res.drift),
                    ": their runs are marked '!' (drift_flag in the JSON)"
                    if flagged else ""))
    if res.overhead:
        tr = median([o["traced_s"] for o in res.overhead])
        un = median([o["untraced_s"] for o in res.overhead])
        tc = median([o["traced_cpu_s"] for o in res.overhead])
        uc = median([o["untraced_cpu_s"] for o in res.overhead])
        if tr and un and tc and uc:
            lines.append("tracer overhead (control, median of %d rounds): "
                         "elapsed %.3f s traced, %.3f s untraced (%+.1f %%);"
                         " CPU (user+sys) %.3f s, %.3f s (%+.1f %%)"
                         % (len(res.overhead), tr, un,
                            100.0 * (tr - un) / un, tc, uc,
                            100.0 * (tc - uc) / uc))
    lines.append("max/mn = slowest run / fastest run; breakdown = wall "
                 "time on dpkg's critical path; decode = dpkg blocked on "
                 "the data pipe; decW/decCPU = stage run --fsys-tarfile "
                 ">/dev/null wall / user+sys (CPU > wall = multi-threaded "
                 "decode); sync = sync(2) after the run, not in elapsed.")
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
        c, mo, v, b = res.control
        with open(a.json, "w") as fh:
            json.dump({"machine": res.machine, "runs": res.runs,
                       "control": {"variant": v, "backend": b, "mode": mo,
                                   "cache": c,
                                   "threshold_pct": a.drift_threshold,
                                   "rounds": res.drift},
                       "overhead": res.overhead}, fh, indent=1)
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
