# SPDX-License-Identifier: GPL-2.0-or-later
"""check-perf-report.py - unit tests of src/perf/zdeb_perf/report.py: the
control's drift per round, its flag on every run of the round, and the
spread of a configuration; and plot.py's colour per stage."""

import os
import sys
import unittest

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.environ.get(
    "ZDEB_SRCDIR", os.path.join(os.path.dirname(__file__), "..", "..")),
    "src", "perf"))
from zdeb_perf import plot, report  # noqa: E402
from zdeb_perf.iotrace import BREAKDOWN_KEYS  # noqa: E402


def run(rnd, elapsed, status="ok", variant="xz"):
    return {"variant": variant, "backend": "stock", "mode": "default",
            "cache": "hot", "run": rnd, "status": status,
            "elapsed_s": elapsed if status == "ok" else None,
            "drift_pct": None, "drift_flag": False}


class Drift(unittest.TestCase):
    def test_within_and_beyond(self):
        d = report.round_drift(1, run(1, 1.0), run(1, 1.05), 10.0, 0.3)
        self.assertEqual(d, {"round": 1, "first_s": 1.0, "last_s": 1.05,
                             "drift_pct": 5.0, "flagged": False,
                             "load1": 0.3})
        d = report.round_drift(2, run(2, 1.0), run(2, 0.85), 10.0, 0.3)
        self.assertEqual(d["drift_pct"], -15.0)
        self.assertTrue(d["flagged"])

    def test_threshold_is_exclusive(self):
        d = report.round_drift(1, run(1, 2.0), run(1, 2.2), 10.0, 0)
        self.assertAlmostEqual(d["drift_pct"], 10.0)
        self.assertFalse(d["flagged"])
        d = report.round_drift(1, run(1, 2.0), run(1, 2.2), 9.99, 0)
        self.assertTrue(d["flagged"])

    def test_failed_control_has_no_drift(self):
        d = report.round_drift(1, run(1, None, "failed"), run(1, 1.0),
                               10.0, 0)
        self.assertIsNone(d["drift_pct"])
        self.assertFalse(d["flagged"])

    def test_flag_reaches_every_run_of_its_round(self):
        runs = [run(1, 1.0), run(1, 2.0, variant="none"),
                run(2, 1.0), run(2, 3.0, variant="none")]
        drift = [report.round_drift(1, runs[0], run(1, 1.5), 10, 0),
                 report.round_drift(2, runs[2], run(2, 1.01), 10, 0)]
        report.flag_drift(runs, drift)
        self.assertEqual([r["drift_flag"] for r in runs],
                         [True, True, False, False])
        self.assertEqual([r["drift_pct"] for r in runs],
                         [50.0, 50.0, 1.0, 1.0])


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
