# SPDX-License-Identifier: GPL-2.0-or-later
"""check-perf-apt.py - unit tests of the pure parts of
src/perf/zdeb_perf/apt.py: the mirror from apt's sources, the minbase
cache key (the same as tests/slow/lib.sh's), apt-get -s's Inst lines,
the dpkg runs in a trace and their summed breakdown, the round order,
and the comparisons (through stats.py, tested by check-perf-stats.py)."""

import hashlib
import os
import sys
import unittest

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.environ.get(
    "ZDEB_SRCDIR", os.path.join(os.path.dirname(__file__), "..", "..")),
    "src", "perf"))
from zdeb_perf import apt  # noqa: E402

S = 1000000000  # ns per second


def rec(pid, ppid, exe, start, end, **kw):
    r = {"pid": pid, "ppid": ppid, "exe": exe, "fsys": 0, "ctrl": 0,
         "start_ns": int(start * S), "end_ns": int(end * S),
         "stream_n": 0, "stream_ns": 0}
    r.update(kw)
    return r


class Sources(unittest.TestCase):
    DEB822 = ("Types: deb-src\nURIs: http://src.example/debian/\n"
              "Suites: bookworm\n\n"
              "Types: deb\n# a comment\nURIs: http://a.example/debian/\n"
              "Suites: bookworm-updates\n\n"
              "Types: deb\nURIs: http://b.example/debian/\n"
              "Suites: bookworm bookworm-updates\nComponents: main\n")

    def test_deb822_first_deb_stanza_with_the_suite(self):
        self.assertEqual(apt.parse_sources(self.DEB822, "bookworm"),
                         "http://b.example/debian")
        self.assertEqual(apt.parse_sources(self.DEB822,
                                           "bookworm-updates"),
                         "http://a.example/debian")
        self.assertIsNone(apt.parse_sources(self.DEB822, "trixie"))

    def test_one_line_format_with_options(self):
        text = ("# deb http://x.example/ bookworm main\n"
                "deb-src http://y.example/ bookworm main\n"
                "deb [arch=amd64 signed-by=/k.gpg] http://z.example/d/ "
                "bookworm main\n")
        self.assertEqual(apt.parse_sources_list(text, "bookworm"),
                         "http://z.example/d")
        self.assertIsNone(apt.parse_sources_list(text, "sid"))

    def test_cache_key_is_lib_sh_s(self):
        # printf '%s %s %s' M I A | sha256sum | cut -c1-12
        want = hashlib.sha256(b"http://m.example/debian libarchive13,"
                              b"libxxhash0 amd64").hexdigest()[:12]
        self.assertEqual(apt.minbase_key("http://m.example/debian",
                                         "libarchive13,libxxhash0",
                                         "amd64"), want)
        self.assertEqual(len(want), 12)


class Sim(unittest.TestCase):
    def test_inst_lines(self):
        text = ("Reading package lists...\n"
                "Inst libonig5 (6.9.8-1 Debian:12.5/stable [amd64])\n"
                "Inst jq (1.6-2.1 Debian:12.5/stable [amd64])\n"
                "Inst base-files [12.4] (12.4+deb12u5 Debian [amd64])\n"
                "Conf jq (1.6-2.1 Debian:12.5/stable [amd64])\n")
        self.assertEqual(apt.parse_sim(text), [
            ("libonig5", "6.9.8-1"), ("jq", "1.6-2.1"),
            ("base-files", "12.4+deb12u5")])
        self.assertEqual(apt.parse_sim("nothing\n"), [])


class DpkgRuns(unittest.TestCase):
    def trace(self):
        return [
            rec(10, 1, "apt-get", 0, 10),
            # unpack: dpkg 20 with dpkg-deb 21 and a forked dpkg 22
            rec(20, 10, "dpkg", 1, 4, stream_n=5, stream_ns=2 * S,
                read_pipe_ns=S // 2),
            rec(21, 20, "dpkg-deb", 1.1, 3, fsys=1),
            rec(22, 20, "dpkg", 1.2, 1.3),
            # configure: dpkg 30, a postinst's sh 31 running
            # dpkg --compare-versions 32
            rec(30, 10, "dpkg", 5, 8),
            rec(31, 30, "sh", 6, 7),
            rec(32, 31, "dpkg", 6.1, 6.2),
            # apt-get's own helper, no dpkg
            rec(40, 10, "gpgv", 0.1, 0.2),
        ]

    def test_tops_and_subtrees(self):
        runs = apt.dpkg_runs(self.trace())
        self.assertEqual([t["pid"] for t, _ in runs], [20, 30])
        self.assertEqual(sorted(r["pid"] for r in runs[0][1]),
                         [20, 21, 22])
        self.assertEqual(sorted(r["pid"] for r in runs[1][1]),
                         [30, 31, 32])

    def test_breakdown_summed(self):
        b, n = apt.apt_breakdown(10.0, self.trace(),
                                 {"tar_s": 0.0, "md5_s": 0.0})
        self.assertEqual(n, 2)
        self.assertEqual(set(b), set(apt.APT_KEYS))
        # 3 s + 3 s of dpkg, the rest is apt-get's
        self.assertAlmostEqual(b["apt_s"], 4.0)
        self.assertAlmostEqual(b["decode_s"], 0.5)
        self.assertAlmostEqual(sum(b.values()), 10.0, places=5)

    def test_stage_estimates_come_out_of_cpu(self):
        t = self.trace()
        t[1]["stream_cpu_ns"] = S  # 1 s on a CPU in the stream
        b, _ = apt.apt_breakdown(10.0, t, {"tar_s": 0.3, "md5_s": 0.2})
        self.assertAlmostEqual(b["tar_s"], 0.3)
        self.assertAlmostEqual(b["md5_s"], 0.2)
        self.assertAlmostEqual(b["cpu_s"], 0.5)
        # never more than the CPU time there was
        b, _ = apt.apt_breakdown(10.0, t, {"tar_s": 0.9, "md5_s": 0.5})
        self.assertAlmostEqual(b["tar_s"], 0.9)
        self.assertAlmostEqual(b["md5_s"], 0.1)
        self.assertAlmostEqual(b["cpu_s"], 0.0)

    def test_no_dpkg(self):
        b, n = apt.apt_breakdown(2.0, [rec(10, 1, "apt-get", 0, 2)],
                                 {"tar_s": 0.1, "md5_s": 0.1})
        self.assertEqual(n, 0)
        self.assertAlmostEqual(b["apt_s"], 2.0)
        self.assertEqual(b["tar_s"], 0.0)


class Rounds(unittest.TestCase):
    def test_rotated_baseline_twice_aa_alternating(self):
        cs = ["a", "b", "c"]
        seqs = [apt.round_order(cs, "a", i) for i in range(1, 6)]
        self.assertEqual(seqs[0], [("a", "run"), ("b", "run"),
                                   ("a", "aa"), ("c", "run")])
        # round 2: rotated by one, the baseline's roles swapped
        self.assertEqual(seqs[1], [("b", "run"), ("a", "run"),
                                   ("c", "run"), ("a", "aa")])
        self.assertEqual(seqs[4], seqs[0])
        for s in seqs:
            self.assertEqual(sorted(s), sorted(seqs[0]))
        # a baseline that is not first in the list
        self.assertEqual(apt.round_order(cs, "b", 1),
                         [("b", "run"), ("a", "run"), ("b", "aa"),
                          ("c", "run")])


def run(cfg, rnd, wall, role="run", status="ok", discarded=False):
    return {"config": cfg, "round": rnd, "elapsed_s": wall, "role": role,
            "status": status, "discarded": discarded}


class Comparisons(unittest.TestCase):
    CS = ["debian/stock/plain", "debian/zdeb/plain", "zdeb/stock/plain",
          "zdeb/zdeb/plain"]

    def test_walls_skip_failed_and_discarded(self):
        rs = [run("x", 1, 2.0), run("x", 1, 2.1, role="aa"),
              run("x", 2, 9.0, discarded=True), run("x", 2, 2.2),
              run("y", 1, 1.0, status="failed")]
        self.assertEqual(apt.walls(rs), {"x": {1: 2.0, 2: 2.2},
                                         "x#aa": {1: 2.1}})

    def test_rows_kinds_and_ratios(self):
        base = self.CS[0]
        rs = []
        for i in range(1, 7):
            rs.append(run(base, i, 2.0))
            rs.append(run(base, i, 2.0 + 0.01 * i, role="aa"))
            rs.append(run("debian/zdeb/plain", i, 1.0))
            rs.append(run("zdeb/stock/plain", i, 1.6))
            rs.append(run("zdeb/zdeb/plain", i, 0.8))
        out = apt.comparisons(self.CS, base, rs)
        self.assertEqual([(c["a"], c["b"], c["kind"]) for c in out], [
            (base, base + "#aa", "aa"),
            (base, "debian/zdeb/plain", "baseline"),
            (base, "zdeb/stock/plain", "baseline"),
            (base, "zdeb/zdeb/plain", "baseline"),
            ("zdeb/stock/plain", "zdeb/zdeb/plain", "backend")])
        self.assertAlmostEqual(out[1]["ratio"], 2.0)
        self.assertAlmostEqual(out[3]["ratio"], 2.5)
        self.assertAlmostEqual(out[4]["ratio"], 2.0)
        self.assertEqual(out[4]["rounds"], 6)
        # 6 rounds: the interval is the range of the ratios
        lo, hi = out[0]["ci95"]
        self.assertAlmostEqual(lo, 2.0 / 2.06)
        self.assertAlmostEqual(hi, 2.0 / 2.01)

    def test_too_few_rounds_no_interval(self):
        base = self.CS[0]
        rs = [run(base, 1, 2.0), run(base, 1, 2.0, role="aa"),
              run("debian/zdeb/plain", 1, 1.0)]
        out = apt.comparisons(self.CS[:2], base, rs)
        self.assertEqual(out[0]["ci95"], None)
        self.assertEqual(out[1]["ratio"], 2.0)
        self.assertEqual(out[1]["rounds"], 1)


if __name__ == "__main__":
    unittest.main()
