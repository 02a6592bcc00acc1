# SPDX-License-Identifier: GPL-2.0-or-later
"""check-perf-gate.py - unit tests of src/perf/zdeb_perf/gate.py with fake
/proc readings: parsing /proc/stat's cpu line, the default threshold per
core, waiting for quiet (first round on the 1-minute load, every round on
the busy CPU while zdeb-perf sleeps), its bound, --allow-loaded, and the
per-run record (others' CPU = busy minus the run's own, steal)."""

import os
import sys
import shutil
import tempfile
import unittest

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.environ.get(
    "ZDEB_SRCDIR", os.path.join(os.path.dirname(__file__), "..", "..")),
    "src", "perf"))
from zdeb_perf import gate  # noqa: E402


class Machine:
    """A fake machine: a clock, a 1-minute load per time, and other work
    taking `others` cores while time passes; the gate's reader, sleep
    and clock."""

    def __init__(self, load=lambda t: 0.0, others=lambda t: 0.0,
                 steal=0.0, kernel=0.0):
        self.t = 0.0
        self.busy = 1000.0
        self.stolen = 50.0
        self.load = load
        self.others = others
        self.steal = steal
        self.kernel = kernel
        self.kt = 7.0

    def load1(self):
        return self.load(self.t)

    def cpu(self):
        return (self.busy, self.stolen)

    def kthreads(self):
        return self.kt

    def clock(self):
        return self.t

    def advance(self, dt, own_cores=0.0):
        self.busy += dt * (self.others(self.t) + own_cores + self.kernel)
        self.kt += dt * self.kernel
        self.stolen += dt * self.steal
        self.t += dt

    def sleep(self, dt):
        self.advance(dt)


def make(m, **kw):
    return gate.Gate(reader=m, sleep=m.sleep, clock=m.clock, cores=2,
                     own_cpu=lambda: 0.0, **kw)


class Proc(unittest.TestCase):
    def test_cpu_line(self):
        busy, steal = gate.parse_cpu_line(
            "cpu  100 20 30 5000 40 5 6 70 9 0\n", 100)
        self.assertAlmostEqual(busy, 1.50)      # user+nice+sys
        self.assertAlmostEqual(steal, 0.70)

    def test_proc_reader_on_files(self):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        # kthreadd (2), a kernel thread, a process with ") 2 " in its name
        for pid, st in (("2", "2 (kthreadd) S 0 0 0 0 -1 0 0 0 0 0 3 4 0"),
                        ("57", "57 (kworker/0:1) I 2 0 0 0 -1 0 0 0 0 0 "
                         "10 20 0"),
                        ("900", "900 (a) 2 (b) S 1 0 0 0 -1 0 0 0 0 0 "
                         "500 500 0")):
            os.mkdir(os.path.join(d, pid))
            with open(os.path.join(d, pid, "stat"), "w") as fh:
                fh.write(st + "\n")
        with open(os.path.join(d, "loadavg"), "w") as fh:
            fh.write("0.42 0.30 0.20 1/100 12345\n")
        with open(os.path.join(d, "stat"), "w") as fh:
            fh.write("cpu  200 0 100 9000 0 0 0 10 0 0\ncpu0 1 2 3 4\n")
        r = gate.ProcReader(d)
        self.assertEqual(r.load1(), 0.42)
        self.assertAlmostEqual(r.cpu()[0], 300.0 / r.hz)
        self.assertAlmostEqual(r.kthreads(), 37.0 / r.hz)

    def test_default_threshold_scales_with_cores(self):
        self.assertEqual(gate.default_max_load(2), 0.5)
        self.assertEqual(gate.default_max_load(8), 2.0)
        self.assertEqual(gate.Gate(cores=4).max_load, 1.0)


class WaitQuiet(unittest.TestCase):
    def test_quiet_machine_passes_at_once(self):
        m = Machine(load=lambda t: 0.1)
        rec = make(m).wait_quiet(1)
        self.assertTrue(rec["quiet"])
        self.assertEqual(rec["waited_s"], 0.5)      # the sample only

    def test_first_round_waits_for_the_load(self):
        m = Machine(load=lambda t: 2.0 if t < 30 else 0.3)
        rec = make(m).wait_quiet(1)
        self.assertTrue(rec["quiet"])
        self.assertGreaterEqual(rec["waited_s"], 30)
        self.assertLess(rec["waited_s"], 40)

    def test_quiet_at_start_is_enough_for_the_load(self):
        m = Machine(load=lambda t: 1.8)     # zdeb-perf's own preparation
        self.assertTrue(make(m, start_load=0.2).wait_quiet(1)["quiet"])
        m = Machine(load=lambda t: 1.8)
        self.assertFalse(make(m, start_load=0.7, wait=10).wait_quiet(1)[
            "quiet"])

    def test_later_rounds_ignore_the_load_but_not_busy_cpu(self):
        m = Machine(load=lambda t: 1.5)
        self.assertTrue(make(m).wait_quiet(2)["quiet"])
        m = Machine(others=lambda t: 0.9 if t < 20 else 0.0)
        rec = make(m).wait_quiet(2)
        self.assertTrue(rec["quiet"])
        self.assertGreaterEqual(rec["waited_s"], 20)

    def test_wait_is_bounded(self):
        m = Machine(others=lambda t: 1.0)
        g = make(m, wait=30)
        rec = g.wait_quiet(3)
        self.assertFalse(rec["quiet"])
        self.assertAlmostEqual(rec["busy_cores"], 1.0)
        self.assertLessEqual(m.t, 32)
        self.assertEqual(g.rounds, [rec])

    def test_allow_loaded_does_not_wait(self):
        m = Machine(others=lambda t: 1.0)
        rec = make(m, allow_loaded=True).wait_quiet(1)
        self.assertFalse(rec["quiet"])
        self.assertEqual(m.t, 0.5)


class RunRecord(unittest.TestCase):
    def run_once(self, others, own=1.0, wall=2.0, steal=0.0, **kw):
        m = Machine(load=lambda t: 0.2 + t / 100, others=lambda t: others,
                    steal=steal)
        g = make(m, **kw)
        tok = g.begin()
        m.advance(wall, own_cores=own)
        return g.end(tok, wall, own * wall)

    def test_own_cpu_is_not_others(self):
        rec = self.run_once(0.0, own=1.0)
        self.assertEqual(rec["others_pct"], 0.0)
        self.assertFalse(rec["loaded"] or rec["discarded"])
        self.assertEqual(rec["load1_before"], 0.2)
        self.assertEqual(rec["load1_after"], 0.22)

    def test_others_over_ten_percent_discarded(self):
        rec = self.run_once(0.25, steal=0.05)
        self.assertEqual(rec["others_pct"], 25.0)
        self.assertEqual(rec["steal_pct"], 5.0)
        self.assertTrue(rec["loaded"] and rec["discarded"])
        rec = self.run_once(0.08)
        self.assertFalse(rec["loaded"])

    def test_allow_loaded_keeps_them(self):
        rec = self.run_once(0.25, allow_loaded=True)
        self.assertTrue(rec["loaded"])
        self.assertFalse(rec["discarded"])

    def test_kernel_threads_are_not_others(self):
        m = Machine(others=lambda t: 0.05, kernel=0.3)
        g = make(m)
        tok = g.begin()
        m.advance(2.0, own_cores=1.0)
        rec = g.end(tok, 2.0, 2.0)
        self.assertEqual((rec["kthreads_pct"], rec["others_pct"]),
                         (30.0, 5.0))
        self.assertFalse(rec["loaded"])

    def test_threshold_option(self):
        rec = self.run_once(0.25, max_others_pct=30.0)
        self.assertFalse(rec["loaded"])


if __name__ == "__main__":
    unittest.main()
