# SPDX-License-Identifier: GPL-2.0-or-later
"""check-perf-iotrace.py - unit tests of src/perf/zdeb_perf/iotrace.py:
parsing zdeb-iotrace.so's records, the interval union, the breakdown."""

import os
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.environ.get(
    "ZDEB_SRCDIR", os.path.join(os.path.dirname(__file__), "..", "..")),
    "src", "perf"))
from zdeb_perf import iotrace  # noqa: E402

S = 1000000000  # ns per second


def rec(**kw):
    """A record as parse_trace returns it, zeros where not given."""
    r = {"pid": 1, "ppid": 0, "exe": "dpkg", "fsys": 0, "ctrl": 0,
         "start_ns": 0, "end_ns": 0, "stream_n": 0, "stream_ns": 0}
    r.update(kw)
    return r


class ParseTrace(unittest.TestCase):
    def test_fields_numbers_and_names(self):
        with tempfile.NamedTemporaryFile("w", delete=False) as fh:
            fh.write("pid=12 ppid=3 exe=dpkg-deb fsys=1 start_ns=5 "
                     "end_ns=9 write_reg_ns=100\n"
                     "\n"
                     "garbage line without the key\n"
                     "pid=13 exe=tar open_n=4\n")
        try:
            recs = iotrace.parse_trace(fh.name)
        finally:
            os.unlink(fh.name)
        self.assertEqual(len(recs), 2)
        self.assertEqual(recs[0], {"pid": 12, "ppid": 3, "exe": "dpkg-deb",
                                   "fsys": 1, "start_ns": 5, "end_ns": 9,
                                   "write_reg_ns": 100})
        self.assertEqual(recs[1]["exe"], "tar")
        self.assertEqual(recs[1]["open_n"], 4)

    def test_missing_file_is_no_records(self):
        self.assertEqual(iotrace.parse_trace("/nonexistent/trace"), [])


class UnionLen(unittest.TestCase):
    def test_cases(self):
        u = iotrace.union_len
        self.assertEqual(u([]), 0)
        self.assertEqual(u([(1, 3)]), 2)
        self.assertEqual(u([(1, 3), (5, 6)]), 3)          # disjoint
        self.assertEqual(u([(1, 4), (2, 6)]), 5)          # overlapping
        self.assertEqual(u([(1, 10), (2, 3), (4, 5)]), 9)  # nested
        self.assertEqual(u([(5, 6), (1, 3), (3, 5)]), 5)  # touching, unsorted


class Breakdown(unittest.TestCase):
    stages = {"tar_s": 0.1, "md5_s": 0.2}

    def dpkg(self, **kw):
        """dpkg's record: alive 2 s, a 1 s stream in which it waited
        0.25 s on the pipe and wrote 0.1 s, 0.6 s of CPU in the stream,
        0.1 s of it in its calls."""
        base = dict(pid=10, exe="dpkg", start_ns=0, end_ns=2 * S,
                    stream_n=1, stream_ns=1 * S, read_pipe_ns=S // 4,
                    write_reg_ns=S // 10, write_reg_in_ns=S // 10,
                    fsync_ns=S // 5, fsync_in_ns=0, rename_ns=S // 20,
                    rename_in_ns=0, stream_cpu_ns=6 * S // 10,
                    stream_call_cpu_ns=S // 10)
        base.update(kw)
        return rec(**base)

    def test_parts_sum_to_elapsed(self):
        recs = [self.dpkg(),
                rec(pid=11, exe="dpkg-deb", fsys=1, start_ns=S // 10,
                    end_ns=S, write_pipe_ns=S // 100)]
        b, det = iotrace.breakdown(2.5, recs, 10, self.stages)
        self.assertEqual(list(b), iotrace.BREAKDOWN_KEYS)
        self.assertAlmostEqual(sum(b.values()), 2.5, places=5)
        self.assertAlmostEqual(b["decode_s"], 0.25)
        self.assertAlmostEqual(b["write_s"], 0.1)
        self.assertAlmostEqual(b["fsync_s"], 0.2)
        self.assertAlmostEqual(b["rename_s"], 0.05)
        # between the calls: 1 - .25 - .1 = .65 s, .5 s of it on a CPU
        self.assertAlmostEqual(b["cpu_s"], 0.5 - 0.3)
        self.assertAlmostEqual(b["wait_s"], 0.15)
        # life 2 - stream 1 - I/O outside the stream (0.2 + 0.05)
        self.assertAlmostEqual(b["db_s"], 0.75)
        self.assertAlmostEqual(b["exec_s"], 0.5)
        self.assertAlmostEqual(b["other_s"], 0.0)
        self.assertEqual(det["overlap_note"], "")
        self.assertAlmostEqual(det["fsys_tarfile_wall_s"], 0.9)
        self.assertEqual(det["processes"], 2)

    def test_every_stage_named(self):
        """The per-file calls have stages of their own, each call counted
        once; those outside the stream come off db_s; those in it off the
        time between the calls; start-up is exec_s."""
        d = self.dpkg(open_ns=S // 50, open_in_ns=S // 100,
                      close_ns=S // 100, close_in_ns=S // 100,
                      link_ns=S // 100, link_in_ns=S // 100,
                      mkdir_ns=S // 50, mkdir_in_ns=S // 50,
                      rmdir_ns=S // 25, rmdir_in_ns=S // 50,
                      unlink_ns=S // 100, unlink_in_ns=0,
                      stat_ns=S // 20, stat_in_ns=S // 20,
                      chmod_ns=S // 100, chmod_in_ns=S // 100,
                      chown_ns=S // 100, chown_in_ns=S // 100,
                      utime_ns=S // 50, utime_in_ns=S // 50,
                      dbwrite_ns=S // 10, dbwrite_in_ns=0)
        tar = rec(pid=12, exe="tar", stat_ns=S // 100, open_ns=S // 100)
        b, det = iotrace.breakdown(2.25, [d, tar], 10, self.stages)
        self.assertEqual(list(b), iotrace.BREAKDOWN_KEYS)
        self.assertAlmostEqual(b["open_s"], 0.05)      # open+close+link
        self.assertAlmostEqual(b["dir_s"], 0.07)       # mkdir+rmdir+unlink
        self.assertAlmostEqual(b["meta_s"], 0.1)       # stat chmod chown utime
        self.assertAlmostEqual(b["dbwrite_s"], 0.1)
        # between the calls: 1 - .25 - (.1 + .16 in the stream) = .49 s,
        # all of it on a CPU (the .5 s measured is more: capped)
        self.assertAlmostEqual(b["cpu_s"], 0.49 - 0.3)
        self.assertAlmostEqual(b["wait_s"], 0.0)
        self.assertAlmostEqual(b["exec_s"], 0.25)      # 2.25 - life 2
        # outside the stream: write 0, fsync .2, rename .05, open .01+.01
        # (tar), rmdir .02, unlink .01, stat .01 (tar), dbwrite .1
        self.assertAlmostEqual(b["db_s"], 2 - 1 - 0.41)
        self.assertAlmostEqual(sum(b.values()), 2.25, places=5)
        self.assertAlmostEqual(b["other_s"], 0.0)
        self.assertEqual(det["calls"]["rmdir"], {"n": 0, "s": 0.04})

    def test_estimates_beyond_the_cpu_time(self):
        """tar and md5 estimates larger than dpkg's CPU time between its
        calls: cpu_s is 0, the parts exceed elapsed, other_s is 0 and the
        note says by how much."""
        d = self.dpkg(stream_cpu_ns=S // 5)
        b, det = iotrace.breakdown(2.5, [d], 10, self.stages)
        self.assertAlmostEqual(b["cpu_s"], 0.0)
        self.assertAlmostEqual(b["wait_s"], 0.55)      # .65 - .1 on a CPU
        self.assertAlmostEqual(b["other_s"], 0.0)
        self.assertAlmostEqual(sum(b.values()), 2.5 + 0.2, places=5)
        self.assertIn("parts exceed elapsed by 0.200 s", det["overlap_note"])

    def test_overlap_clamps_other(self):
        b, det = iotrace.breakdown(0.5, [self.dpkg()], 10, self.stages)
        self.assertEqual(b["other_s"], 0.0)
        self.assertIn("parts exceed elapsed", det["overlap_note"])

    def test_no_dpkg_record(self):
        b, det = iotrace.breakdown(1.0, [rec(exe="tar")], None, self.stages)
        self.assertEqual(b["decode_s"], 0.0)
        self.assertEqual(b["db_s"], 0.0)
        self.assertAlmostEqual(b["other_s"], 0.7)
        self.assertEqual(det["overlap_note"], "no iotrace record from dpkg")

    def test_longest_dpkg_without_main_pid(self):
        short = self.dpkg(pid=20, end_ns=S // 10, read_pipe_ns=0)
        recs = [short, self.dpkg(pid=21)]
        b, _ = iotrace.breakdown(3.0, recs, None, self.stages)
        self.assertAlmostEqual(b["decode_s"], 0.25)

    def test_main_dpkg_pid(self):
        recs = [rec(pid=5, stream_n=0), rec(pid=6, stream_n=2),
                rec(pid=7, exe="tar", stream_n=1)]
        self.assertEqual(iotrace.main_dpkg_pid(recs), 6)
        self.assertIsNone(iotrace.main_dpkg_pid(recs[:1]))


if __name__ == "__main__":
    unittest.main()
