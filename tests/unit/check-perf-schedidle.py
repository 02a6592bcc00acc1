# SPDX-License-Identifier: GPL-2.0-or-later
"""check-perf-schedidle.py - unit tests of src/perf/zdeb_perf/schedidle.py:
parsing `perf sched timehist --state` lines, and a pipeline's window,
busy, other, idle, waiting (idle while one of its tasks was queued) and
uninterruptible-sleep seconds on a two-CPU record worked out by hand."""

import os
import sys
import unittest

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.environ.get(
    "ZDEB_SRCDIR", os.path.join(os.path.dirname(__file__), "..", "..")),
    "src", "perf"))
from zdeb_perf import schedidle  # noqa: E402

# Two CPUs, times in ms after 100 s:
#   cpu0: zdeb[10] 0-10, zdeb[12] 10-14 (queued since 6, leaves in D),
#         idle 14-16, zdeb[12] 16-17 (off the CPU 2 ms, queued 0.5 of it)
#   cpu1: cat 0-4, idle 4-8, kworker 8-9, idle 9-12, cat 12-13, idle 13-20
RECORD = """\
Samples of sched_switch event do not have callchains.
           time    cpu  task name                       wait time  sch delay   run time  state
                        [tid/pid]                          (msec)     (msec)     (msec)
--------------- ------  ------------------------------  ---------  ---------  ---------  -----
     100.004000 [0001]  cat[11]                             0.000      0.000      4.000      S
     100.008000 [0001]  <idle>                              0.000      0.000      4.000      I
     100.009000 [0001]  kworker/1:1[30]                     0.000      0.000      1.000      I
     100.010000 [0000]  zdeb[10]                            0.000      0.000     10.000      S
     100.012000 [0001]  <idle>                              0.000      0.000      3.000      I
     100.013000 [0001]  cat[11]                             8.000      0.000      1.000      S
     100.014000 [0000]  zdeb[12/10]                         4.000      4.000      4.000      D
     100.014500 [0000]  zdeb[12/10]                                                        awakened: cat[11]
     100.016000 [0000]  <idle>                              0.000      0.000      2.000      I
     100.017000 [0000]  zdeb[12/10]                         2.000      0.500      1.000      S
     100.020000 [0001]  <idle>                              0.000      0.000      7.000      I
"""


class Parse(unittest.TestCase):
    def test_lines(self):
        runs = schedidle.parse(RECORD.splitlines())
        self.assertEqual(len(runs), 10)     # header, awakened: skipped
        r = runs[6]
        self.assertEqual(r.task, "zdeb[12/10]")
        self.assertEqual(r.cpu, 0)
        self.assertAlmostEqual(r.start, 100.010, places=9)
        self.assertAlmostEqual(r.end, 100.014, places=9)
        self.assertAlmostEqual(r.sch, 0.004, places=9)
        self.assertEqual(r.state, "D")
        self.assertEqual(schedidle.comm(r.task), "zdeb")
        self.assertEqual(schedidle.comm("<idle>"), "<idle>")

    def test_garbage(self):
        self.assertEqual(schedidle.parse(["", "x [0] y a b c d",
                                          "1.0 [0000] t 1 2 x S"]), [])


class Breakdown(unittest.TestCase):
    def setUp(self):
        self.b = schedidle.breakdown(schedidle.parse(RECORD.splitlines()))

    def test_window_and_cpu(self):
        ms = {k: v * 1e3 for k, v in self.b.items()}
        self.assertAlmostEqual(ms["window"], 17.0, places=6)
        self.assertAlmostEqual(ms["busy"], 20.0, places=6)
        self.assertAlmostEqual(ms["others"], 1.0, places=6)
        # the idle after the window (17-20 on cpu1) is not counted
        self.assertAlmostEqual(ms["idle"], 13.0, places=6)
        # every CPU second of the window is in one of the three
        self.assertAlmostEqual(ms["busy"] + ms["others"] + ms["idle"],
                               2 * ms["window"], places=6)

    def test_waiting(self):
        # queued 6-10 and 15.5-16: idle 6-8 and 9-10 on cpu1, then 15.5-16
        # on both CPUs
        self.assertAlmostEqual(self.b["waiting"] * 1e3, 4.0, places=6)

    def test_d_sleep(self):
        # zdeb[12] left in D at 14, woken at 15.5: 2 ms off, 0.5 queued
        self.assertAlmostEqual(self.b["d_sleep"] * 1e3, 1.5, places=6)

    def test_other_names(self):
        b = schedidle.breakdown(schedidle.parse(RECORD.splitlines()),
                                names=("cat",))
        self.assertAlmostEqual(b["window"] * 1e3, 13.0, places=6)
        self.assertAlmostEqual(b["waiting"], 0.0, places=9)
        self.assertIsNone(schedidle.breakdown(
            schedidle.parse(RECORD.splitlines()), names=("dpkg",)))


if __name__ == "__main__":
    unittest.main()
