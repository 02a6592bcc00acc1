# SPDX-License-Identifier: GPL-2.0-or-later
"""report - the install results as a table, JSON, CSV, details and plot.

Works on an install.Install after its runs: a (attributes a, machine,
stages, md5_impl, dec, runs, details, perf, notes).
"""

import csv
import json
import sys

from . import stats
from .common import fmt_s, median
from .gate import REDO
from .iotrace import BREAKDOWN_KEYS
from .plot import plot_install

RUN_KEYS = ["input", "variant", "backend", "mode", "cache", "run", "role",
            "status", "error", "elapsed_s", "user_s", "sys_s", "cpu_pct",
            "max_rss_kb", "minflt", "majflt", "inblock", "oublock",
            "load1_before", "load1_after", "steal_pct", "kthreads_pct",
            "others_pct", "loaded", "discarded", "breakdown"]
GATE_KEYS = ["load1_before", "load1_after", "steal_pct", "kthreads_pct",
             "others_pct", "loaded", "discarded"]


def cfg_name(cfg):
    """(cache, mode, variant, backend) -> "variant/backend/mode/cache"."""
    c, m, v, b = cfg
    return "%s/%s/%s/%s" % (v, b, m, c)


def run_cfg(r):
    return (r["cache"], r["mode"], r["variant"], r["backend"])


def accepted(r):
    """A run that counts: it succeeded and the quiet gate kept it."""
    return r["status"] == "ok" and not r["discarded"]


def round_values(runs, cfg, role="run"):
    """{round: elapsed_s} of cfg's accepted runs of this role (the last
    of a round, should there be two)."""
    return {r["run"]: r["elapsed_s"] for r in runs
            if run_cfg(r) == cfg and r["role"] == role and accepted(r)}


def comparisons(runs, configs, control):
    """(the A/A comparison, the others) from the run records: every
    configuration against the baseline's variant and backend in its own
    mode and cache; zdeb against stock for the same variant, mode and
    cache where that is not already one of them.  A comparison with a
    side that has no accepted run is left out."""
    vals = {c: round_values(runs, c) for c in configs}
    aa = stats.compare(cfg_name(control),
                       vals.get(control, {}), cfg_name(control) + "#2",
                       round_values(runs, control, "aa"))
    out = []
    pairs = []
    for cfg in configs:
        c, m, v, b = cfg
        base = (c, m, control[2], control[3])
        if cfg != base and base in vals:
            pairs.append((base, cfg))
    for cfg in configs:
        c, m, v, b = cfg
        st = (c, m, v, "stock")
        if b == "zdeb" and st in vals and (st, cfg) not in pairs:
            pairs.append((st, cfg))
    for x, y in pairs:
        if vals[x] and vals[y]:
            out.append(stats.compare(cfg_name(x), vals[x], cfg_name(y),
                                     vals[y]))
    return aa, out


def live_comparisons(res):
    """Every comparison the convergence rule watches, the A/A one first
    (once the baseline has run).  While none has a paired round yet but
    the baseline has run successfully (the gate discarded it), the A/A
    one is watched anyway, unconverged, so that the loop goes on instead
    of stopping with nothing-to-compare after one busy round."""
    aa, cmps = comparisons(res.runs, res.configs, res.control)
    live = [x for x in [aa] + cmps if x["rounds"]]
    if not live and any(r["status"] == "ok" and
                        run_cfg(r) == res.control for r in res.runs):
        return [aa]
    return live


def spread(xs):
    """max/min of the positive values, None with fewer than one."""
    xs = [x for x in xs if x]
    return max(xs) / min(xs) if xs else None


def groups(runs):
    """The runs by configuration, in the order the configurations ran."""
    out = []
    seen = {}
    for r in runs:
        if r["role"] != "run":
            continue
        k = (r["variant"], r["backend"], r["mode"], r["cache"])
        if k not in seen:
            seen[k] = []
            out.append(k)
        seen[k].append(r)
    return [(k, seen[k]) for k in out]


def summary_rows(res):
    rows = []
    for k, rs in groups(res.runs):
        ok = [r for r in rs if accepted(r)]
        rs = [r for r in rs if not r["discarded"]]
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
        row["n_loaded"] = sum(1 for r in ok if r["loaded"])
        for f in ("user_s", "sys_s", "cpu_pct", "max_rss_kb"):
            row[f] = median([r[f] for r in ok])
        for bk in BREAKDOWN_KEYS:
            row[bk] = median([r["breakdown"][bk] for r in ok])
        dw, dc = res.dec.get((k[0], k[1]), (None, None))
        row["dec_wall"] = dw
        row["dec_cpu"] = dc
        syncs = [d["sync_after_s"] for d in res.details
                 if (d["variant"], d["backend"], d["mode"],
                     d["cache"]) == k and d["role"] == "run" and
                 not d["discarded"]]
        row["sync_after"] = median(syncs)
        rows.append(row)
    return rows


def fmt_load(xs):
    return " ".join("%.1f" % x for x in xs)


def fmt_cmp(c, width):
    if c["ratio"] is None:
        return "%-*s %-*s %6s  no paired round" % (width, c["b"], width,
                                                 c["a"], "-")
    ci = c["ci95"]
    hw = stats.half_width(c)
    return "%-*s %-*s %5.2fx  %-14s %6s %6d" % (
        width, c["b"], width, c["a"], c["ratio"],
        "[%.2f-%.2f]" % tuple(ci) if ci else "undefined",
        "%.1f" % (100 * hw) if hw is not None else "-", c["rounds"])


def aa_verdict(aa):
    ok = stats.aa_ok(aa)
    if ok is None:
        return ("A/A: interval undefined with %d paired round(s) (6 or "
                "more needed): no ratio here is to be quoted"
                % aa["rounds"])
    if ok:
        return "A/A: its interval contains 1.00: the rounds agree with " \
            "themselves"
    return ("A/A: NOT TRUSTWORTHY: the baseline against itself is "
            "[%.2f-%.2f], without 1.00: the intervals missed (by chance, "
            "or the rounds are not alike); do not quote these ratios"
            % tuple(aa["ci95"]))


def comparison_lines(res):
    """The comparisons with their intervals, the A/A verdict, the rounds
    and the quiet gate."""
    a = res.a
    aa, cmps = comparisons(res.runs, res.configs, res.control)
    rd = res.rounds
    g = res.gate
    width = max([len(c["b"]) for c in cmps] + [len(aa["b"]) + 6, 10])
    lines = ["comparisons: ratio = median over rounds of (time of a) / "
             "(time of b), above 1: b is faster; 95 % interval of that "
             "median from order statistics (distribution-free)"]
    hdr = "%-*s %-*s %6s  %-14s %6s %6s" % (
        width, "b", width, "a", "ratio", "95 % interval", "+-%", "rounds")
    lines.append(hdr)
    lines.append("-" * len(hdr))
    aa_line = dict(aa, b=aa["b"] + " (A/A)")
    lines.append(fmt_cmp(aa_line, width))
    for c in cmps:
        lines.append(fmt_cmp(c, width))
    lines.append(aa_verdict(aa))
    if a.runs:
        how = "--runs %d" % a.runs
    else:
        how = ("--runs auto until every half-width is at most %g %% "
               "(--max-rounds %d, --max-time %g s): stopped by %s"
               % (a.target, a.max_rounds, a.max_time, rd["stopped_by"]))
    lines.append("rounds: %d in %.0f s (%s)%s" % (
        rd["rounds"], rd["elapsed_s"], how,
        "; not converged: " + ", ".join(rd["not_converged"])
        if rd["not_converged"] else ""))
    runs = [r for r in res.runs if r["others_pct"] is not None]
    disc = sum(1 for r in runs if r["discarded"])
    unquiet = [x for x in g.rounds if not x["quiet"]]
    lines.append("quiet gate: load below %g (%g per core) before round 1 "
                 "and below %g busy cores before each round, waiting at "
                 "most %g s: %d of %d round(s) started not quiet; runs "
                 "where other processes took over %g %% of a core: %s; "
                 "median per run: others %.1f %%, kernel threads %.1f %%, "
                 "steal %.1f %% of a core"
                 % (g.max_load, g.max_load / g.cores, g.max_load, g.wait,
                    len(unquiet), len(g.rounds), g.max_others_pct,
                    "%d kept (--allow-loaded)"
                    % sum(1 for r in runs if r["loaded"])
                    if a.allow_loaded else
                    "%d discarded and run again (at most %d times)"
                    % (disc, REDO),
                    median([r["others_pct"] for r in runs]) or 0.0,
                    median([r["kthreads_pct"] for r in runs]) or 0.0,
                    median([r["steal_pct"] for r in runs]) or 0.0))
    return lines


def json_doc(res):
    """The JSON document of an install run (zdeb-perf(1), JSON)."""
    a = res.a
    c, mo, v, b = res.control
    aa, cmps = comparisons(res.runs, res.configs, res.control)
    g = res.gate
    aa = dict(aa, contains_1=stats.aa_ok(aa))
    return {"machine": res.machine, "runs": res.runs,
            "baseline": {"variant": v, "backend": b, "mode": mo,
                         "cache": c},
            "aa": aa, "comparisons": cmps,
            "rounds": {"rounds": res.rounds["rounds"],
                       "runs": a.runs if a.runs else "auto",
                       "stopped_by": res.rounds["stopped_by"],
                       "target_pct": a.target,
                       "max_rounds": a.max_rounds,
                       "max_time_s": a.max_time,
                       "elapsed_s": res.rounds["elapsed_s"],
                       "not_converged": res.rounds["not_converged"]},
            "gate": {"max_load": g.max_load, "cores": g.cores,
                     "quiet_wait_s": g.wait,
                     "max_others_pct": g.max_others_pct,
                     "allow_loaded": g.allow_loaded,
                     "rounds": g.rounds,
                     "runs": [dict([("round", r["run"])] +
                                   [(k, r[k]) for k in
                                    ("variant", "backend", "mode",
                                     "cache", "role")] +
                                   [(k, r[k]) for k in GATE_KEYS])
                              for r in res.runs
                              if r["others_pct"] is not None]},
            "overhead": res.overhead}


def table(res):
    m = res.machine
    a = res.a
    fs = m["fs"]
    lines = []
    g = res.gate
    nrun = [r for r in res.runs if r["role"] in ("run", "aa")]
    nloaded = sum(1 for r in nrun if r["loaded"])
    lines.append("zdeb-perf install: %s (%s tar bytes), dpkg --%s, "
                 "%d round(s), median [min-max]%s"
                 % (",".join(m["inputs"]), m["tar_bytes"],
                    a.action, res.rounds["rounds"],
                    "; LOADED RUNS KEPT (--allow-loaded: %d of %d runs had "
                    "other processes above %g %% of a core)"
                    % (nloaded, len(nrun), g.max_others_pct)
                    if a.allow_loaded else ""))
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
        if r["n"] == 0:
            lines.append("%s %20s  every run had other processes above "
                         "%g %% of a core" % (pre, "DISCARDED",
                                              res.gate.max_others_pct))
            continue
        if r["n_ok"] == 0:
            lines.append("%s %20s  %s" % (pre, "FAILED",
                                          r.get("error", "")[:150]))
            continue
        el = "%.2f [%.2f-%.2f]%s" % (r["elapsed"], r["min"], r["max"],
                                     "!" if r["n_loaded"] else " ")
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
    lines += comparison_lines(res)
    if res.overhead:
        tr = median([o["traced_s"] for o in res.overhead])
        un = median([o["untraced_s"] for o in res.overhead])
        tc = median([o["traced_cpu_s"] for o in res.overhead])
        uc = median([o["untraced_cpu_s"] for o in res.overhead])
        if tr and un and tc and uc:
            lines.append("tracer overhead (baseline, median of %d rounds): "
                         "elapsed %.3f s traced, %.3f s untraced (%+.1f %%);"
                         " CPU (user+sys) %.3f s, %.3f s (%+.1f %%)"
                         % (len(res.overhead), tr, un,
                            100.0 * (tr - un) / un, tc, uc,
                            100.0 * (tc - uc) / uc))
    lines.append("'!' = loaded runs kept (--allow-loaded); "
                 "max/mn = slowest run / fastest run; breakdown = wall "
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
        with open(a.json, "w") as fh:
            json.dump(json_doc(res), fh, indent=1)
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
