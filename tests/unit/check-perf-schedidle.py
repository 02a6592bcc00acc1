# SPDX-License-Identifier: GPL-2.0-or-later
"""check-perf-schedidle.py - unit tests of src/perf/zdeb_perf/schedidle.py:
parsing `perf sched timehist --state` lines (names with spaces, lost
events), and a pipeline's window, busy, other, idle, waiting (idle on one
CPU while one of its tasks was queued on another, busy one) and the
decoder's uninterruptible sleep, on two-CPU records worked out by hand."""

import os
import sys
import unittest

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.environ.get(
    "ZDEB_SRCDIR", os.path.join(os.path.dirname(__file__), "..", "..")),
    "src", "perf"))
from zdeb_perf import schedidle  # noqa: E402

# Two CPUs, times in ms after 100 s:
#   cpu0: zdeb[10] 0-10, zdeb[12] 10-14 (woken at 6 while cpu0 was busy;
#         leaves in D), idle 14-16, zdeb[12] 16-17 (woken at 15.5 onto the
#         idle cpu0: not waiting)
#   cpu1: cat 0-4 (leaves in D), idle 4-8, Web Content 8-9, idle 9-12,
#         cat 12-13, idle 13-20
WOKEN = """\
Samples of sched_switch event do not have callchains.
           time    cpu  task name                       wait time  sch delay   run time  state
                        [tid/pid]                          (msec)     (msec)     (msec)
--------------- ------  ------------------------------  ---------  ---------  ---------  -----
     100.004000 [0001]  cat[11]                             0.000      0.000      4.000      D
     100.008000 [0001]  <idle>                              0.000      0.000      4.000      I
     100.009000 [0001]  Web Content[30]                     0.000      0.000      1.000      S
     100.010000 [0000]  zdeb[10]                            0.000      0.000     10.000      S
     100.012000 [0001]  <idle>                              0.000      0.000      3.000      I
     100.013000 [0001]  cat[11]                             8.000      0.000      1.000      S
     100.014000 [0000]  zdeb[12/10]                         0.000      4.000      4.000      D
     100.014500 [0000]  zdeb[12/10]                                                        awakened: cat[11]
     100.016000 [0000]  <idle>                              0.000      0.000      2.000      I
     100.017000 [0000]  zdeb[12/10]                         2.000      0.500      1.000      S
     100.020000 [0001]  <idle>                              0.000      0.000      7.000      I
"""

# Preempted, as perf before 6.11 prints it (no sch delay after an R):
#   cpu0: zdeb[20] 0-5 (preempted), kworker 5-8, zdeb[20] 8-9, zdeb[21]
#         9-10 (woken at 5)
#   cpu1: idle from before the window to 10
PREEMPTED = """\
      99.999000 lost 3 events on cpu 1
     100.005000 [0000]  zdeb[20]                            0.000      0.000      5.000      R
     100.008000 [0000]  kworker/0:1[40]                     0.000      0.000      3.000      I
     100.009000 [0000]  zdeb[20]                            3.000      0.000      1.000      S
     100.010000 [0000]  zdeb[21/20]                         0.000      4.000      1.000      S
     100.010000 [0001]  <idle>                              0.000      0.000     11.000      I
"""


def ms(b):
    return {k: (v * 1e3 if k != "cpus" else v) for k, v in b.items()}


class Parse(unittest.TestCase):
    def test_lines(self):
        runs = schedidle.parse(WOKEN.splitlines())
        self.assertEqual(len(runs), 10)     # header, awakened: skipped
        r = runs[6]
        self.assertEqual(r.task, "zdeb[12/10]")
        self.assertEqual(r.cpu, 0)
        self.assertAlmostEqual(r.start, 100.010, places=9)
        self.assertAlmostEqual(r.end, 100.014, places=9)
        self.assertAlmostEqual(r.sch, 0.004, places=9)
        self.assertEqual(r.state, "D")
        self.assertEqual(runs[2].task, "Web Content[30]")
        self.assertEqual(schedidle.comm(runs[2].task), "Web Content")
        self.assertEqual(schedidle.comm(r.task), "zdeb")
        self.assertEqual(schedidle.comm("<idle>"), "<idle>")

    def test_garbage(self):
        self.assertEqual(schedidle.parse(["", "x [0] y a b c d",
                                          "1.0 [0000] t 1 2 x S"]), [])

    def test_lost(self):
        self.assertEqual(schedidle.lost(PREEMPTED.splitlines()), 3)
        self.assertEqual(schedidle.lost(WOKEN.splitlines()), 0)
        self.assertEqual(len(schedidle.parse(PREEMPTED.splitlines())), 5)


class Woken(unittest.TestCase):
    def setUp(self):
        self.b = ms(schedidle.breakdown(
            schedidle.parse(WOKEN.splitlines())))

    def test_window_and_cpu(self):
        self.assertEqual(self.b["cpus"], 2)
        self.assertAlmostEqual(self.b["window"], 17.0, places=6)
        self.assertAlmostEqual(self.b["busy"], 20.0, places=6)
        self.assertAlmostEqual(self.b["others"], 1.0, places=6)
        # the idle after the window (17-20 on cpu1) is not counted
        self.assertAlmostEqual(self.b["idle"], 13.0, places=6)
        self.assertAlmostEqual(self.b["busy"] + self.b["others"] +
                               self.b["idle"], 2 * self.b["window"],
                               places=6)

    def test_waiting(self):
        # zdeb[12] queued 6-10 on busy cpu0: cpu1 idle 6-8 and 9-10; its
        # wake-up onto the idle cpu0 at 15.5 is not waiting
        self.assertAlmostEqual(self.b["waiting"], 3.0, places=6)

    def test_d_sleep(self):
        # zdeb[12] left in D at 14, woken at 15.5: 2 ms off, 0.5 queued;
        # cat's 8 ms after its D are not the decoder's
        self.assertAlmostEqual(self.b["d_sleep"], 1.5, places=6)

    def test_other_names(self):
        runs = schedidle.parse(WOKEN.splitlines())
        b = ms(schedidle.breakdown(runs, names=("cat",)))
        self.assertAlmostEqual(b["window"], 13.0, places=6)
        self.assertAlmostEqual(b["waiting"], 0.0, places=6)
        self.assertAlmostEqual(b["d_sleep"], 8.0, places=6)
        self.assertIsNone(schedidle.breakdown(runs, names=("dpkg",)))


class Preempted(unittest.TestCase):
    def setUp(self):
        self.b = ms(schedidle.breakdown(
            schedidle.parse(PREEMPTED.splitlines())))

    def test_clipped(self):
        # cpu1's idle run began before the window: only 0-10 counts
        self.assertAlmostEqual(self.b["window"], 10.0, places=6)
        self.assertAlmostEqual(self.b["idle"], 10.0, places=6)
        self.assertAlmostEqual(self.b["busy"], 7.0, places=6)
        self.assertAlmostEqual(self.b["others"], 3.0, places=6)

    def test_waiting_after_preemption(self):
        # zdeb[20] queued 5-8 (no sch delay printed), zdeb[21] 5-9: their
        # union, not their sum, of cpu1's idle
        self.assertAlmostEqual(self.b["waiting"], 4.0, places=6)
        self.assertAlmostEqual(self.b["d_sleep"], 0.0, places=6)


if __name__ == "__main__":
    unittest.main()
