# SPDX-License-Identifier: GPL-2.0-or-later
"""check-perf-cpuwhere.py - unit tests of src/perf/zdeb_perf/cpuwhere.py:
parsing `perf report -F period,sample,comm,dso,sym` lines (a command name
with a space, code without symbols, the lost-samples header), the rows
samples go to (the pipeline's tasks under their own names, the idle task,
everything else), and the comparison of two runs per copy decoded, on
reports worked out by hand."""

import os
import sys
import unittest

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.environ.get(
    "ZDEB_SRCDIR", os.path.join(os.path.dirname(__file__), "..", "..")),
    "src", "perf"))
from zdeb_perf import cpuwhere  # noqa: E402

NAMES = ("zdeb-where", "cat-where")

# Periods in ns: zdeb-where 5 ms in XXH64_update, 2 + 1 ms in libzstd
# without symbols, 1 ms [unknown]; cat-where 3 ms in _copy_to_iter;
# idle 4 ms; Web Content 0.5 ms, sh 0.5 ms.
REPORT = """\
# To display the perf.data header info, please use --header/--header-only options.
#
# Total Lost Samples: 0
#
# Samples: 171  of event 'cpu-clock:pppH'
#       Period       Samples  Command          Shared Object                        Symbol
# ............  ............  ...............  ...................................  ...........
#
       5000000            50  zdeb-where       libxxhash.so.0.8.1                   [.] XXH64_update
       4000000            40  swapper          [kernel.kallsyms]                    [k] pv_native_safe_halt
       3000000            30  cat-where        [kernel.kallsyms]                    [k] _copy_to_iter
       2000000            20  zdeb-where       libzstd.so.1.5.4                     [.] 0x000000000008f3f5
       1000000            10  zdeb-where       libzstd.so.1.5.4                     [.] 0x000000000008f414
       1000000            10  zdeb-where       [unknown]                            [.] [unknown]
        500000             5  Web Content      libxul.so                            [.] js::RunScript
        500000             5  sh               libc.so.6                            [.] __memmove_avx_unaligned
"""

LOST = """\
# Total Lost Samples: 7
#
       1000000            10  zdeb-where       libc.so.6                            [.] memcpy
"""


def ms(p):
    return {k: round(v * 1e3, 6) for k, v in p.items()}


class Parse(unittest.TestCase):
    def test_lines(self):
        s = cpuwhere.parse(REPORT.splitlines())
        self.assertEqual(len(s), 8)
        self.assertEqual(s[0], (0.005, "zdeb-where", "libxxhash.so.0.8.1",
                                "XXH64_update"))
        self.assertEqual(s[6][1:3], ("Web Content", "libxul.so"))
        self.assertEqual(s[5][2:], ("[unknown]", "[unknown]"))

    def test_lost(self):
        self.assertEqual(cpuwhere.lost(REPORT.splitlines()), 0)
        self.assertEqual(cpuwhere.lost(LOST.splitlines()), 7)


class Rows(unittest.TestCase):
    def setUp(self):
        self.p = ms(cpuwhere.profile(cpuwhere.parse(REPORT.splitlines()),
                                     NAMES))

    def test_rows(self):
        self.assertEqual(self.p, {
            ("zdeb", "XXH64_update"): 5.0,
            ("zdeb", "libzstd.so.1.5.4 (no symbols)"): 3.0,
            ("zdeb", "[unknown] (no symbols)"): 1.0,
            ("cat", "_copy_to_iter"): 3.0,
            ("idle", "-"): 4.0,
            ("others", "-"): 1.0,
        })

    def test_totals(self):
        t = ms(cpuwhere.totals(cpuwhere.profile(
            cpuwhere.parse(REPORT.splitlines()), NAMES)))
        self.assertEqual(t, {"zdeb": 9.0, "cat": 3.0, "idle": 4.0,
                             "others": 1.0})

    def test_plain_names(self):
        # under the default names, the bench's own names are others
        p = cpuwhere.profile(cpuwhere.parse(REPORT.splitlines()))
        self.assertEqual(set(k[0] for k in p), {"idle", "others"})


class Compare(unittest.TestCase):
    # -T2 decodes one copy per run, the pair two: per copy, the pair's
    # write costs 1 ms against -T2's 3, its decode 5 against 4
    A = [{("zdeb", "write"): 0.003, ("zdeb", "decode"): 0.004},
         {("zdeb", "write"): 0.003, ("zdeb", "decode"): 0.004,
          ("idle", "-"): 0.001}]
    B = [{("zdeb", "write"): 0.002, ("zdeb", "decode"): 0.010},
         {("zdeb", "write"): 0.002, ("zdeb", "decode"): 0.010}]

    def test_order_and_per_copy(self):
        rows = cpuwhere.compare(self.A, self.B, 1, 2)
        self.assertEqual([(r[0], r[1]) for r in rows],
                         [("zdeb", "write"), ("zdeb", "decode"),
                          ("idle", "-")])
        self.assertEqual(rows[0][2], [0.003, 0.003])
        self.assertEqual(rows[0][3], [0.001, 0.001])
        self.assertEqual(rows[1][3], [0.005, 0.005])
        # a row one round lacks counts 0 there
        self.assertEqual(rows[2][2], [0.0, 0.001])
        self.assertEqual(rows[2][3], [0.0, 0.0])

    def test_top(self):
        self.assertEqual(len(cpuwhere.compare(self.A, self.B, 1, 2, top=1)),
                         1)

    def test_totals(self):
        t = {w: (a, b) for w, a, b in
             cpuwhere.compare_totals(self.A, self.B, 1, 2)}
        self.assertEqual(t["zdeb"], ([0.007, 0.007], [0.006, 0.006]))
        self.assertEqual(t["idle"], ([0.0, 0.001], [0.0, 0.0]))
        self.assertEqual(t["cat"], ([0.0, 0.0], [0.0, 0.0]))
        self.assertAlmostEqual(t["all"][0][1], 0.008)


if __name__ == "__main__":
    unittest.main()
