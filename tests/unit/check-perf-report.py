# SPDX-License-Identifier: GPL-2.0-or-later
"""check-perf-report.py - unit tests of src/perf/zdeb_perf/report.py: the
comparisons made from the run records (each configuration against the
baseline in its mode, zdeb against stock, the A/A row; discarded and
failed runs left out), the A/A verdict, the spread of a configuration;
and plot.py's colour per stage."""

import os
import sys
import unittest

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.environ.get(
    "ZDEB_SRCDIR", os.path.join(os.path.dirname(__file__), "..", "..")),
    "src", "perf"))
from zdeb_perf import plot, report, stats  # noqa: E402
from zdeb_perf.iotrace import BREAKDOWN_KEYS  # noqa: E402


def run(rnd, elapsed, status="ok", variant="xz", backend="stock",
        mode="default", role="run", discarded=False):
    return {"variant": variant, "backend": backend, "mode": mode,
            "cache": "hot", "run": rnd, "role": role, "status": status,
            "elapsed_s": elapsed if status == "ok" else None,
            "discarded": discarded, "loaded": discarded}


XZ = ("hot", "default", "xz", "stock")
XZ_Z = ("hot", "default", "xz", "zdeb")
ZI = ("hot", "default", "zstd-indexed", "stock")
ZI_Z = ("hot", "default", "zstd-indexed", "zdeb")


def rounds(n, times, aa=1.0):
    """n rounds: the baseline (xz/stock) 1 s, its A/A run aa s, and
    every other configuration (variant, backend) its time."""
    out = []
    for i in range(1, n + 1):
        out.append(run(i, 1.0))
        out.append(run(i, aa, role="aa"))
        for (v, b), t in times.items():
            out.append(run(i, t, variant=v, backend=b))
    return out


class Comparisons(unittest.TestCase):
    def test_which_pairs(self):
        runs = rounds(6, {("xz", "zdeb"): 0.5, ("zstd-indexed", "stock"):
                          0.8, ("zstd-indexed", "zdeb"): 0.25})
        aa, cmps = report.comparisons(runs, [XZ, XZ_Z, ZI, ZI_Z], XZ)
        self.assertEqual((aa["a"], aa["b"], aa["ratio"], aa["rounds"]),
                         ("xz/stock/default/hot", "xz/stock/default/hot#2",
                          1.0, 6))
        got = [(c["b"].split("/")[0] + "/" + c["b"].split("/")[1],
                c["a"].split("/")[0] + "/" + c["a"].split("/")[1],
                c["ratio"]) for c in cmps]
        # every configuration against the baseline, then zdeb against
        # stock for zstd-indexed (for xz it is one of the first)
        self.assertEqual(got, [("xz/zdeb", "xz/stock", 2.0),
                               ("zstd-indexed/stock", "xz/stock", 1.25),
                               ("zstd-indexed/zdeb", "xz/stock", 4.0),
                               ("zstd-indexed/zdeb", "zstd-indexed/stock",
                                3.2)])
        for c in cmps:
            self.assertEqual(set(c), {"a", "b", "ratio", "ci95", "rounds"})
            self.assertEqual(c["ci95"], [c["ratio"], c["ratio"]])

    def test_baseline_per_mode(self):
        e = ("hot", "eatmydata", "xz", "stock")
        ez = ("hot", "eatmydata", "xz", "zdeb")
        runs = rounds(6, {}) + [run(i, 0.5, mode="eatmydata")
                                for i in range(1, 7)] + \
            [run(i, 0.25, mode="eatmydata", backend="zdeb")
             for i in range(1, 7)]
        _, cmps = report.comparisons(runs, [XZ, e, ez], XZ)
        self.assertEqual([(c["a"], c["b"], c["ratio"]) for c in cmps],
                         [("xz/stock/eatmydata/hot", "xz/zdeb/eatmydata/hot",
                           2.0)])

    def test_discarded_and_failed_runs_do_not_count(self):
        runs = rounds(6, {("xz", "zdeb"): 0.5})
        runs[2]["discarded"] = True             # round 1's xz/zdeb
        runs.append(run(1, 0.4, backend="zdeb"))  # its redo
        runs += [run(i, None, "failed", variant="zstd-indexed")
                 for i in range(1, 7)]
        aa, cmps = report.comparisons(runs, [XZ, XZ_Z, ZI], XZ)
        self.assertEqual(len(cmps), 1)
        self.assertEqual(cmps[0]["rounds"], 6)
        self.assertEqual(cmps[0]["ci95"], [2.0, 2.5])
        self.assertEqual(report.round_values(runs, XZ_Z)[1], 0.4)

    def test_shifted_aa_is_not_ok(self):
        aa, _ = report.comparisons(rounds(8, {}, aa=1.2), [XZ], XZ)
        self.assertFalse(stats.aa_ok(aa))
        self.assertIn("NOT TRUSTWORTHY", report.aa_verdict(aa))
        aa, _ = report.comparisons(rounds(5, {}), [XZ], XZ)
        self.assertIsNone(aa["ci95"])
        self.assertIn("undefined with 5 paired round(s)",
                      report.aa_verdict(aa))


class Live(unittest.TestCase):
    """What the convergence rule watches after each round."""

    class Res:
        def __init__(self, runs, configs, control):
            self.runs, self.configs, self.control = runs, configs, control

    def test_discarded_baseline_in_round_one_does_not_stop(self):
        # Round 1 of the done-when shape on a busy minute: the baseline's
        # run and its two redos discarded, the rest kept.  Nothing pairs
        # yet, but the next round may: the loop must go on, not stop with
        # nothing-to-compare after one round.
        runs = [run(1, 1.0, discarded=True) for _ in range(3)]
        runs += [run(1, 1.0, role="aa"),
                 run(1, 0.5, variant="zstd-indexed", backend="zdeb")]
        res = self.Res(runs, [XZ, ZI_Z], XZ)
        live = report.live_comparisons(res)
        self.assertTrue(live)
        self.assertEqual(stats.should_stop(live, 1), (False, ""))

    def test_baseline_that_always_fails_stops(self):
        runs = [run(1, None, "failed"), run(1, None, "failed", role="aa"),
                run(1, 0.5, variant="zstd-indexed", backend="zdeb")]
        res = self.Res(runs, [XZ, ZI_Z], XZ)
        self.assertEqual(report.live_comparisons(res), [])
        self.assertEqual(stats.should_stop([], 1),
                         (True, "nothing-to-compare"))


class Spread(unittest.TestCase):
    def test_spread(self):
        self.assertAlmostEqual(report.spread([0.5, 0.6, 0.55]), 1.2)
        self.assertEqual(report.spread([0.4]), 1.0)
        self.assertIsNone(report.spread([]))


class StageColours(unittest.TestCase):
    def test_one_colour_per_stage(self):
        self.assertEqual(len(plot.STAGE_COLOURS), len(BREAKDOWN_KEYS))
        self.assertEqual(len(set(c.lower() for c in plot.STAGE_COLOURS)),
                         len(plot.STAGE_COLOURS))


if __name__ == "__main__":
    unittest.main()
