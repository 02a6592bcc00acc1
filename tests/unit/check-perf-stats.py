# SPDX-License-Identifier: GPL-2.0-or-later
"""check-perf-stats.py - unit tests of src/perf/zdeb_perf/stats.py: the
order-statistic ranks of the median's 95 % interval against the binomial
distribution, paired ratios, a synthetic A/A that contains 1.00 and a
shifted one that does not, and when the loop of rounds stops."""

import math
import os
import random
import sys
import unittest

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.environ.get(
    "ZDEB_SRCDIR", os.path.join(os.path.dirname(__file__), "..", "..")),
    "src", "perf"))
from zdeb_perf import stats  # noqa: E402


def coverage(n, k):
    """P(x_(k) <= median <= x_(n+1-k)) = 1 - 2 P(Bin(n, 1/2) <= k - 1),
    computed here independently of stats."""
    tail = sum(math.comb(n, i) for i in range(k)) / 2 ** n
    return 1 - 2 * tail


class Ranks(unittest.TestCase):
    def test_undefined_below_six(self):
        for n in range(0, 6):
            self.assertIsNone(stats.median_ci_rank(n), n)
            self.assertIsNone(stats.median_ci([1.0] * n), n)

    def test_ranks_6_to_50_against_the_binomial(self):
        for n in range(6, 51):
            k = stats.median_ci_rank(n)
            self.assertIsNotNone(k, n)
            # k reaches 95 %; k + 1 would not.
            self.assertGreaterEqual(coverage(n, k), 0.95, n)
            self.assertLess(coverage(n, k + 1), 0.95, n)

    def test_published_ranks(self):
        # The usual tables of the sign-test interval for the median.
        for n, k in ((6, 1), (8, 1), (9, 2), (10, 2), (12, 3), (15, 4),
                     (20, 6), (25, 8), (30, 10), (40, 14), (50, 18)):
            self.assertEqual(stats.median_ci_rank(n), k, n)

    def test_many_rounds(self):
        # --max-rounds or --runs above 1023: 2.0 ** n overflows a float;
        # the ranks must still come out, exact.
        for n in (1023, 1024, 1500):
            k = stats.median_ci_rank(n)
            self.assertGreaterEqual(coverage(n, k), 0.95, n)
            self.assertLess(coverage(n, k + 1), 0.95, n)

    def test_median_text(self):
        xs = [float(x) for x in range(1, 11)]   # n = 10: ranks 2 and 9
        self.assertEqual(stats.median_text(xs), "5.50 [2.00, 9.00]")
        self.assertEqual(stats.median_text(xs, "%.1f"), "5.5 [2.0, 9.0]")
        self.assertEqual(stats.median_text([3.0, 1.0, 2.0], "%.1f"),
                         "2.0 (too few rounds)")

    def test_interval_of_values(self):
        xs = [7, 1, 9, 3, 5, 2, 8, 4, 6, 10]      # n = 10, k = 2
        self.assertEqual(stats.median_ci(xs), (2, 9))
        self.assertEqual(stats.median(xs), 5.5)


class Paired(unittest.TestCase):
    def test_only_rounds_both_have(self):
        a = {1: 2.0, 2: 4.0, 3: 1.0, 4: None}
        b = {1: 1.0, 2: 2.0, 4: 1.0, 5: 1.0}
        self.assertEqual(stats.paired_ratios(a, b), [(1, 2.0), (2, 2.0)])

    def test_compare_shape(self):
        a = {r: 2.0 + 0.01 * r for r in range(1, 11)}
        b = {r: 1.0 for r in range(1, 11)}
        c = stats.compare("xz", a, "zstd", b)
        self.assertEqual(set(c), {"a", "b", "ratio", "ci95", "rounds"})
        self.assertEqual(c["rounds"], 10)
        self.assertAlmostEqual(c["ratio"], 2.055)
        self.assertAlmostEqual(c["ci95"][0], 2.02)
        self.assertAlmostEqual(c["ci95"][1], 2.09)
        self.assertIsNone(stats.compare("x", a, "y", {1: 1.0})["ci95"])


def aa(shift, n=20, seed=1):
    """A synthetic A/A: the same noisy machine (a drift shared by both
    runs of a round and 3 % noise of its own per run), the second run
    shift times as long."""
    rnd = random.Random(seed)
    a, b = {}, {}
    for r in range(1, n + 1):
        base = 1.0 + 0.3 * rnd.random()
        a[r] = base * (1 + rnd.gauss(0, 0.03))
        b[r] = base * shift * (1 + rnd.gauss(0, 0.03))
    return stats.compare("base", a, "base#2", b)


class AA(unittest.TestCase):
    def test_same_configuration_contains_one(self):
        for seed in range(1, 6):
            c = aa(1.0, seed=seed)
            self.assertTrue(stats.aa_ok(c), c)

    def test_shifted_does_not(self):
        c = aa(1.15)
        self.assertFalse(stats.aa_ok(c), c)
        self.assertLess(c["ci95"][1], 1.0)

    def test_undefined_with_few_rounds(self):
        self.assertIsNone(stats.aa_ok(aa(1.0, n=5)))


class Order(unittest.TestCase):
    """The rounds' order: seq rotated one place per round, the
    baseline's two runs exchanging roles ("run", "aa") every round."""

    def seq(self, m):
        others = ["o%d" % j for j in range(m)]
        h = m // 2
        return [("C", "run")] + [(o, "run") for o in others[:h]] + \
            [("C", "aa")] + [(o, "run") for o in others[h:]]

    def test_rotation_and_roles(self):
        seq = self.seq(1)
        self.assertEqual(stats.round_order(seq, 1), seq)
        self.assertEqual(stats.round_order(seq, 2),
                         [("C", "run"), ("o0", "run"), ("C", "aa")])
        self.assertEqual(stats.round_order(seq, 3),
                         [("o0", "run"), ("C", "run"), ("C", "aa")])

    def test_every_position_alike(self):
        # Over 2 L rounds the baseline's counted run, its A/A run and
        # every other configuration each take every position equally
        # often, for any length L of a round.  With the roles exchanged
        # on odd/even round numbers alone, a round of even length tied
        # the exchange to the rotation: for L = 6 or 10 the counted run
        # was only ever at an even position (0, 2, 4), the A/A run only
        # at an odd one.
        for m in range(1, 14):
            seq = self.seq(m)
            n = len(seq)
            pos = {}
            for i in range(1, 2 * n + 1):
                for p, x in enumerate(stats.round_order(seq, i)):
                    pos.setdefault(x, []).append(p)
            for x, ps in pos.items():
                self.assertEqual(sorted(ps), sorted(list(range(n)) * 2),
                                 (m, x))


class Convergence(unittest.TestCase):
    def test_half_width(self):
        c = {"a": "x", "b": "y", "ratio": 2.0, "ci95": [1.9, 2.2],
             "rounds": 9}
        self.assertAlmostEqual(stats.half_width(c), 0.1)
        self.assertEqual(stats.not_converged([c], 0.1), [])
        self.assertEqual(stats.not_converged([c], 0.05), ["y vs x"])
        c["ci95"] = None
        self.assertIsNone(stats.half_width(c))
        self.assertEqual(stats.not_converged([c], 1.0), ["y vs x"])

    def loop(self, noise, **kw):
        rnd = random.Random(7)
        a, b, qa = {}, {}, {}
        t = [0.0]

        def do_round(r):
            a[r] = 1.0 * (1 + rnd.gauss(0, noise))
            qa[r] = 1.0 * (1 + rnd.gauss(0, noise))
            b[r] = 0.5 * (1 + rnd.gauss(0, noise))
            t[0] += 3.0                 # each round takes 3 s

        def cmps():
            return [stats.compare("a", a, "a#2", qa),
                    stats.compare("a", a, "b", b)]
        res = stats.run_rounds(do_round, cmps, clock=lambda: t[0], **kw)
        return res, cmps()

    def test_quiet_stops_at_six(self):
        res, cmps = self.loop(0.002)
        self.assertEqual((res["rounds"], res["stopped_by"]),
                         (6, "converged"))
        self.assertEqual(res["not_converged"], [])
        self.assertAlmostEqual(cmps[1]["ratio"], 2.0, delta=0.02)

    def test_noisier_needs_more_rounds(self):
        res, _ = self.loop(0.04)
        self.assertEqual(res["stopped_by"], "converged")
        self.assertGreater(res["rounds"], 6)

    def test_budget_names_what_did_not_converge(self):
        res, _ = self.loop(0.5, max_rounds=12)
        self.assertEqual((res["rounds"], res["stopped_by"]),
                         (12, "max-rounds"))
        self.assertIn("b vs a", res["not_converged"])
        res, _ = self.loop(0.5, max_time=20.0)
        # 6 rounds of 3 s end at 18 s; a 7th would end after 20 s.
        self.assertEqual((res["rounds"], res["stopped_by"]), (6, "max-time"))
        self.assertTrue(res["not_converged"])

    def test_nothing_to_compare_stops(self):
        self.assertEqual(stats.should_stop([], 1), (True,
                                                    "nothing-to-compare"))
        self.assertEqual(stats.should_stop([], 1, fixed=3), (False, "runs"))

    def test_fixed_runs(self):
        res, _ = self.loop(0.002, fixed=3)
        self.assertEqual((res["rounds"], res["stopped_by"]), (3, "runs"))
        self.assertEqual(len(res["not_converged"]), 2)   # undefined at 3


if __name__ == "__main__":
    unittest.main()
