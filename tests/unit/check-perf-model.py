# SPDX-License-Identifier: GPL-2.0-or-later
"""check-perf-model.py - unit tests of src/perf/zdeb_perf/model.py: the
simulation of the decoder's policy against cases computed by hand."""

import os
import sys
import unittest
from unittest import mock

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.environ.get(
    "ZDEB_SRCDIR", os.path.join(os.path.dirname(__file__), "..", "..")),
    "src", "perf"))
from zdeb_perf.model import CHUNK, HUGE, INF, MEM_BUDGET, MIB, PCHUNK, \
    STREAM_OUT, WHOLE_MAX, Pages, PerfError, Sink, alpha_of, bound_of, \
    contention, copy_evict, median_sink, pipe_mix, reader_cpu, \
    segment_cmd, segment_medians, segment_parse, \
    segment_run, simulate, file_sink, with_evict, \
    run_to_sink, sink_for, worker_setup, write_once, write_rate, \
    write_size, default_window, predicted_speedups, \
    speedup_intervals  # noqa: E402


def run_of(times, stream=None):
    """A segment_run() result with these per-segment times (1 MiB each)."""
    return ([(MIB, MIB // 4, t) for t in times],
            sum(times) if stream is None else stream, 0.0, None, None,
            None)


class Predict(unittest.TestCase):
    def test_speedups_from_the_medians(self):
        # four equal segments: 2x on 2 cores, 4x on 4 and on 64; the
        # medians of three runs, not their means: one run's last segment
        # is 10x slow (its mean, 4 s, would set the time on 64 cores:
        # 1x, not 4x)
        runs = [run_of([1.0] * 4), run_of([1.0] * 4),
                run_of([1.0, 1.0, 1.0, 10.0], stream=4.0)]
        x = predicted_speedups(runs, [1, 2, 4, 64])
        for got, want in zip(x, [1.0, 2.0, 4.0, 4.0]):
            self.assertAlmostEqual(got, want, places=6)

    def test_speedups_are_the_positional_simulation(self):
        # into /dev/null cat-data writes at offsets: the window of
        # positional writes (2 x threads + 1), not the queue's; here the
        # two differ (a slow piece first holds the queue's window)
        times = [1.0] * 3 + [8.0] + [1.0] * 12
        sizes = [MIB] * 16
        setup = segment_medians([run_of(times)])[3]
        base = simulate(times, sizes, 1, 1, Sink("null"), 0.0,
                        stream=sum(times))
        placed = base / simulate(times, sizes, 4, 4, Sink("null"), 0.0,
                                 stream=sum(times), setup=setup,
                                 positional=True)
        queued = base / simulate(times, sizes, 4, 4, Sink("null"), 0.0,
                                 stream=sum(times), setup=setup)
        self.assertNotAlmostEqual(placed, queued, places=3)
        got = predicted_speedups([run_of(times)], [4])[0]
        self.assertAlmostEqual(got, placed, places=9)

    def test_slowest_segment_bounds(self):
        # 1 + 1 + 1 + 3 s: 64 cores give sum / slowest = 2x
        x = predicted_speedups([run_of([1.0, 1.0, 1.0, 3.0])], [64])
        self.assertAlmostEqual(x[0], 2.0, places=6)

    def test_interval_of_identical_runs_is_the_point(self):
        runs = [run_of([1.0, 2.0, 1.0, 2.0])] * 5
        best = predicted_speedups(runs, [2, 4])
        for (lo, hi), x in zip(speedup_intervals(runs, [2, 4]), best):
            self.assertAlmostEqual(lo, x, places=9)
            self.assertAlmostEqual(hi, x, places=9)

    def test_interval_holds_the_point_and_the_spread(self):
        # the last segment's time varies from run to run: at 64 cores the
        # speed-up is sum / slowest, so the interval must be wide, hold
        # the point, and be seeded (the same twice)
        runs = [run_of([1.0, 1.0, 1.0, t])
                for t in (1.0, 1.5, 2.0, 2.5, 3.0, 1.2, 2.8, 1.8, 2.2)]
        best = predicted_speedups(runs, [64])[0]
        (lo, hi), = speedup_intervals(runs, [64])
        self.assertLessEqual(lo, best)
        self.assertGreaterEqual(hi, best)
        self.assertLess(lo, 0.95 * best)
        self.assertGreater(hi, 1.05 * best)
        self.assertEqual(speedup_intervals(runs, [64]), [(lo, hi)])
        # bounds a draw can reach: all runs the slowest ((1 + 1 + 1 + 3)
        # / 3 = 2x) to all the fastest (4x)
        self.assertGreaterEqual(lo, 2.0 - 1e-9)
        self.assertLessEqual(hi, 4.0 + 1e-9)

    def test_interval_ranks(self):
        # 200 draws: the 6th and the 195th smallest (5 cut off each end)
        import zdeb_perf.model as model
        seen = []

        def draw(runs, cores):
            seen.append(len(runs))
            return [float(len(seen))]   # the draws' values: 1 .. 200

        with mock.patch.object(model, "predicted_speedups", draw):
            got = model.speedup_intervals([run_of([1.0])] * 7, [2])
        self.assertEqual(seen, [7] * 200)
        self.assertEqual(got, [(6.0, 195.0)])


class Simulate(unittest.TestCase):
    def test_four_equal_two_workers(self):
        # 4 x 1 s on 2 workers, nothing else: 2 s, 2x
        t = simulate([1.0] * 4, [MIB] * 4, 2)
        self.assertAlmostEqual(t, 2.0, places=6)
        self.assertAlmostEqual(simulate([1.0] * 4, [MIB] * 4, 1), 4.0,
                               places=6)

    def test_one_segment_is_one_core(self):
        self.assertAlmostEqual(simulate([3.0], [MIB], 64), 3.0, places=6)

    def test_more_cores_than_segments(self):
        # 3 segments on 8 cores: the slowest one
        self.assertAlmostEqual(simulate([1.0, 2.0, 0.5], [MIB] * 3, 8),
                               2.0, places=6)

    def test_sink_bound(self):
        # 8 x 1 s of 100 MB each into a sink of 100 MB/s that costs no
        # CPU: 8 s whatever the cores (the writer waits for no one after
        # the first piece, which it writes as it decodes)
        t = simulate([1.0] * 8, [100e6] * 8, 8, sink=Sink("s", 100e6))
        self.assertAlmostEqual(t, 8.0, places=5)

    def test_sink_cpu_one_thread(self):
        # one thread decodes and writes: 2 s of decode + 100 MB x 5 ns
        s = Sink("s", INF, w=5e-9)
        t = simulate([1.0, 1.0], [100e6] * 2, 2, threads=1, sink=s)
        self.assertAlmostEqual(t, 3.0, places=5)

    def test_reader_takes_a_core(self):
        # 2 threads on 2 cores into a reader that needs a core of its own
        # while it reads (c = 1 / its rate): 4 decodes of 1 s, 100 MB
        # each, reader 1 s/GB.  Everything shares 2 cores: per second of
        # decode, 0.1 s of reading, so the total CPU is 4 + 0.4 = 4.4 s;
        # the last piece's 100 MB are read alone (0.1 s, one core idle),
        # the other 4.3 s spread over 2 cores: 2.15 + 0.1 = 2.25 s.
        s = Sink("s", 1e9, w=0.0, c=1e-9)
        t = simulate([1.0] * 4, [100e6] * 4, 2, 2, s)
        self.assertAlmostEqual(t, 2.25, delta=0.001)

    def test_queued_bytes_written_first(self):
        # 2 threads on 2 cores, a sink of 100 MB/s whose writer costs 5
        # ns/B (half a core at that rate); piece 0 decodes at once, its
        # 100 MB queued, while pieces 1 and 2 (1 s each) decode.  Written
        # first (a worker writes what the sink takes before it decodes
        # on), the sink never waits: 300 MB at 100 MB/s, 3 s, the
        # decoders sharing the 1.5 cores left.  Shared equally instead,
        # the writer would get 0.8 of its rate until both decodes end at
        # 1.25 s, then 2 s for their 200 MB: 3.25 s.
        s = Sink("s", 1e8, w=5e-9)
        t = simulate([1e-6, 1.0, 1.0], [100e6] * 3, 2, 2, s)
        self.assertAlmostEqual(t, 3.0, delta=0.001)
        # one core, two threads, a writer that needs the whole core at
        # the sink's rate and a 50 MB queue: writing first would leave
        # the decoders nothing, so the shares stay equal; the core is
        # never idle: 3.5 s of decoding + 200 MB x 3.5 ns = 4.2 s
        s = Sink("s", 1 / 3.5e-9, w=3.5e-9)
        t = simulate([0.5, 1.0, 1.0, 1.0], [50e6] * 4, 1, 2, s,
                     budget=50e6)
        self.assertAlmostEqual(t, 4.2, delta=0.001)

    def test_window_limits_run_ahead(self):
        # window 1 (one piece in flight): no overlap at all
        t = simulate([1.0] * 4, [MIB] * 4, 4, window=1)
        self.assertAlmostEqual(t, 4.0, places=6)

    def test_slow_head_holds_window(self):
        # pieces 5,1,1,1,1,1 on 2 workers, window 3 (threads + 1, the
        # default for pieces decoded in place, QWINDOW): the 5 s head
        # keeps pieces 1 and 2 queued; piece 3 may start only when piece
        # 0 is written (t=5); then 3,4 on two workers, then 5: 5 + 1 + 1
        t = simulate([5, 1, 1, 1, 1, 1], [MIB] * 6, 2, window=3)
        self.assertAlmostEqual(t, 7.0, places=6)
        t = simulate([5, 1, 1, 1, 1, 1], [MIB] * 6, 2)
        self.assertAlmostEqual(t, 7.0, places=6)
        # window 5, 2 x threads + 1 (WINDOW), the default for pieces
        # streamed into chunks (over WHOLE_MAX): pieces 1-4 on the other
        # worker by t=4, piece 5 starts when piece 0 is written: 6 s
        big = [WHOLE_MAX + MIB] * 6
        t = simulate([5, 1, 1, 1, 1, 1], big, 2)
        self.assertAlmostEqual(t, 6.0, places=6)
        t = simulate([5, 1, 1, 1, 1, 1], [MIB] * 6, 2, window=5)
        self.assertAlmostEqual(t, 6.0, places=6)

    def test_positional_window(self):
        # written where they belong (/dev/null, a file), the window is 2
        # x threads + 1 even when the pieces would be decoded in place
        # into a queue: pieces 1-4 on the other worker by t=4, piece 5
        # when the 5 s head is done: 6 s (threads + 1 would give 7)
        t = simulate([5, 1, 1, 1, 1, 1], [MIB] * 6, 2, positional=True)
        self.assertAlmostEqual(t, 6.0, places=6)
        t = simulate([5, 1, 1, 1, 1, 1], [MIB] * 6, 2, positional=True,
                     window=3)
        self.assertAlmostEqual(t, 7.0, places=6)

    def test_budget_stalls_others(self):
        # budget of 1 MiB: while the 4 s head decodes, the other piece
        # (1 MiB, 1 s) fills the queue and waits; it is done before the
        # head anyway, so 4 s; with a zero budget it cannot run beside the
        # head at all: 4 + 1 = 5 s
        self.assertAlmostEqual(simulate([4, 1], [MIB, MIB], 2,
                                        budget=MIB), 4.0, places=6)
        self.assertAlmostEqual(simulate([4, 1], [MIB, MIB], 2,
                                        budget=0), 5.0, places=6)

    def test_positional(self):
        # a file written at offsets: each of 2 workers decodes (1 s) and
        # writes (100 MB x 5 ns = 0.5 s) its own pieces: 4 pieces, 3 s;
        # in order (a pipe) the head's worker writes while the other
        # decodes on: the same CPU over 2 threads, but piece 3's write
        # comes last, after its decode
        s = Sink("file", INF, w=5e-9, copies=True)
        self.assertAlmostEqual(simulate([1.0] * 4, [100e6] * 4, 2, 2, s,
                                        positional=True), 3.0, places=5)
        # nothing waits in a queue there, but each byte copied into the
        # kernel evicts as much of the decoder's window (park once more):
        # 1 + 0.5 + 1 s per piece, 2 pieces per worker
        self.assertAlmostEqual(simulate([1.0] * 4, [100e6] * 4, 2, 2, s,
                                        positional=True, park=1e-8), 5.0,
                               places=5)
        # a sink whose writes take turns (a file's lock) goes through the
        # queue instead: one writer, 2 x 100 MB parked at 5 + 10 ns/B
        f = Sink("file", INF, w=5e-9, serial=True, copies=True)
        # /dev/null's write copies nothing: no eviction
        n = Sink("null", INF, w=5e-9)
        self.assertAlmostEqual(simulate([1.0] * 4, [100e6] * 4, 2, 2, n,
                                        positional=True, park=1e-8), 3.0,
                               places=5)
        self.assertGreater(simulate([1.0] * 4, [100e6] * 4, 2, 2, f,
                                    positional=True), 3.0)
        # one thread: decode and write in turn either way
        self.assertAlmostEqual(simulate([1.0] * 4, [100e6] * 4, 2, 1, s,
                                        positional=True), 6.0, places=5)

    def test_in_place_no_eviction(self):
        # in order on 2 threads, a piece of WHOLE_MAX (64 MiB) or less is
        # decoded in place: copying it into a pipe evicts nothing, so the
        # sink's copies change nothing; a larger piece streams through a
        # window of its own, which the copy pushes out (park once more)
        pipe = Sink("pipe", INF, w=5e-9, c=2e-9, copies=True)
        plain = Sink("pipe", INF, w=5e-9, c=2e-9)
        for size, more in ((50e6, False), (80e6, True)):
            a = simulate([1.0] * 3, [size] * 3, 2, 2, pipe, park=1e-8)
            b = simulate([1.0] * 3, [size] * 3, 2, 2, plain, park=1e-8)
            if more:
                self.assertGreater(a, b + 0.1)
            else:
                self.assertAlmostEqual(a, b, places=6)
        # one thread streams every piece: evicted either way
        self.assertGreater(simulate([1.0] * 3, [50e6] * 3, 2, 1, pipe,
                                    park=1e-8),
                           simulate([1.0] * 3, [50e6] * 3, 2, 1, plain,
                                    park=1e-8) + 1.0)

    def test_parked_bytes(self):
        # 2 pieces of 100 MB, 1 s each, on 2 threads and 4 cores, into a
        # sink with no limit of its own: piece 0 is written as decoded
        # (in the cache, free), piece 1 waits whole in the queue and costs
        # 2 ns/B to write after: 1 + 0.2 = 1.2 s
        s = Sink("s", INF, w=0.0)
        self.assertAlmostEqual(simulate([1.0, 1.0], [100e6] * 2, 4, 2, s,
                                        park=2e-9), 1.2, places=5)
        # one thread streams: nothing waits
        self.assertAlmostEqual(simulate([1.0, 1.0], [100e6] * 2, 4, 1, s,
                                        park=2e-9), 2.0, places=5)

    def test_contention(self):
        self.assertAlmostEqual(contention(1, 0.5), 1.0)
        self.assertAlmostEqual(contention(3, 0.5), 0.5)
        # 2 equal pieces on 2 cores at half speed each: as one core
        t = simulate([1.0, 1.0], [MIB] * 2, 2, alpha=1.0)
        self.assertAlmostEqual(t, 2.0, places=6)

    def test_bounds(self):
        self.assertEqual(bound_of([1.0] * 4, [MIB] * 4, 2, 2, Sink("n"),
                                  0.0), (2.0, "cores"))
        w, b = bound_of([1.0] * 8, [100e6] * 8, 8, 8, Sink("s", 100e6), 0)
        self.assertEqual(b, "sink")
        w, b = bound_of([1.0] * 2, [MIB] * 2, 8, 8, Sink("n"), 0.0)
        self.assertEqual(b, "segments")
        w, b = bound_of([1.0] * 64, [MIB] * 64, 64, 64, Sink("n"), 0.1)
        self.assertEqual(b, "bandwidth")

    def test_stream_one_thread(self):
        # -T1's own time replaces the pieces' sum on one thread only
        self.assertAlmostEqual(simulate([1.0, 1.0], [MIB] * 2, 2, 1,
                                        stream=3.0), 3.0, places=6)
        self.assertAlmostEqual(simulate([1.0, 1.0], [MIB] * 2, 2, 2,
                                        stream=3.0), 1.0, places=6)

    def test_worker_setup(self):
        # piece 0 has it already; piece 1, the second worker's first,
        # gets it: 4 x 1 s on 2 workers with 0.5 s setup: 2.5 s
        self.assertAlmostEqual(simulate([1.5, 1.0, 1.0, 1.0], [MIB] * 4, 2,
                                        setup=0.5), 2.5, places=6)
        # measured: the first segment's time over the others' rate
        self.assertAlmostEqual(worker_setup([(MIB, 0, 1.5), (MIB, 0, 1.0),
                                             (2 * MIB, 0, 2.0)]), 0.5)

    def test_inplace_times(self):
        # two threads into a queue: the pieces' in-place times (0.5 s
        # each), except a piece over WHOLE_MAX (64 MiB), which streams
        small, big = [MIB] * 4, [MIB, MIB, 65 * MIB, MIB]
        self.assertAlmostEqual(simulate([1.0] * 4, small, 2, 2,
                                        inplace=[0.5] * 4), 1.0, places=6)
        self.assertAlmostEqual(simulate([1.0] * 4, big, 2, 2,
                                        inplace=[0.5] * 4), 1.5, places=6)
        # one thread streams; positional workers stream into their buffer
        self.assertAlmostEqual(simulate([1.0] * 4, small, 2, 1,
                                        inplace=[0.5] * 4), 4.0, places=6)
        self.assertAlmostEqual(simulate([1.0] * 4, small, 2, 2,
                                        positional=True,
                                        inplace=[0.5] * 4), 2.0, places=6)

    def test_segment_parse(self):
        out = ("0 100 50 0.010 0.009\n1 200 80 0.020 0.018\n"
               "stream 0.031 0.030\ninplace 0 0.008 0.007\n"
               "inplace 1 0.016 0.015\n")
        segs, stream, fixed, inplace, pages, evict = segment_parse(
            "x", 0, out, "", 0.1)
        self.assertEqual(segs, [(100, 50, 0.009), (200, 80, 0.018)])
        self.assertAlmostEqual(stream, 0.030)
        # the wall less every timed decode: 0.1 - 0.030 - 0.031 - 0.024
        self.assertAlmostEqual(fixed, 0.015)
        self.assertEqual(inplace, [0.007, 0.015])
        self.assertIsNone(pages)
        self.assertIsNone(evict)
        # the pages line: per byte mapped; its times are not fixed
        r = segment_parse("x", 0, out + "pages 300 4096 0.002 0.001 1\n",
                          "", 0.1)
        self.assertAlmostEqual(r[4].populate, 0.002 / 4096)
        self.assertAlmostEqual(r[4].unmap, 0.001 / 4096)
        self.assertTrue(r[4].huge)
        self.assertAlmostEqual(r[2], 0.012)
        self.assertAlmostEqual(segment_medians([r, r, r])[5].populate,
                               0.002 / 4096)
        for bad in ("pages 300 4096 0.002 0.001\n",
                    "pages 1 2 0.1 0.1 0\npages 1 2 0.1 0.1 0\n"):
            with self.assertRaises(PerfError):
                segment_parse("x", 0, out + bad, "", 0.1)
        # an older zdeb without inplace lines; a mismatched one
        r = segment_parse("x", 0, out.split("inplace")[0], "", 0.1)
        self.assertIsNone(r[3])
        self.assertIsNone(segment_medians([r, r])[4])
        with self.assertRaises(PerfError):
            segment_parse("x", 0, out.replace("inplace 1", "inplace 2"),
                          "", 0.1)
        m = segment_medians([segment_parse("x", 0, out, "", 0.1)] * 3)
        self.assertEqual(m[4], [0.007, 0.015])
        self.assertIsNone(m[6])

    def test_copy_lines(self):
        out = ("0 100 50 0.010 0.009\n1 200 80 0.020 0.018\n"
               "stream 0.031 0.030\n"
               "copy pipe 1048576 300 0.040 0.036 0.002\n"
               "copy file 300 300 0.050 0.039 0.003\n")
        r = segment_parse("x", 0, out, "", 0.2)
        # (stream with copies - stream - copies alone) / bytes
        self.assertAlmostEqual(r[5]["pipe"], (0.036 - 0.030 - 0.002) / 300)
        self.assertAlmostEqual(r[5]["file"], (0.039 - 0.030 - 0.003) / 300)
        self.assertAlmostEqual(copy_evict(300, 0.036, 0.030, 0.002),
                               0.004 / 300)
        # the lines' wall times are not fixed: 0.2 - 0.030 - 0.031 - 0.090
        self.assertAlmostEqual(r[2], 0.049)
        # a round's noise may make it negative; the median is clamped
        neg = segment_parse("x", 0, out.replace("0.036", "0.029"), "", 0.2)
        self.assertLess(neg[5]["pipe"], 0.0)
        m = segment_medians([neg] * 3)
        self.assertEqual(m[6]["pipe"], 0.0)
        self.assertAlmostEqual(m[6]["file"], 0.006 / 300)
        # a run without the lines: no medians of them
        self.assertIsNone(segment_medians([r, segment_parse(
            "x", 0, out.split("copy")[0], "", 0.2)])[6])
        head = out.split("copy")[0]
        for bad in (head + "copy pipe 1 300 0.1 0.1\n",     # short
                    head + "copy pipe 1 0 0.1 0.1 0.1\n",   # no bytes
                    out + "copy pipe 1 300 0.1 0.1 0.1\n"):  # twice
            with self.assertRaises(PerfError):
                segment_parse("x", 0, bad, "", 0.2)
        # a run that asked for them and got none fails, not assumes
        done = mock.Mock(returncode=0, stdout=head, stderr="")
        with mock.patch("subprocess.run", return_value=done):
            with self.assertRaises(PerfError):
                segment_run("z", "d", copies=True)
            self.assertIsNone(segment_run("z", "d")[5])
        self.assertIn("--segment-times=copy", segment_cmd("z", "d", True)[2])
        self.assertIn("--segment-times ", segment_cmd("z", "d")[2])

    def test_with_evict(self):
        ev = {"pipe": 2e-9, "file": -1e-9}
        given = Sink("pipe", 1e9, w=1e-9, c=2e-9, copies=True)
        p = with_evict(given, ev)
        self.assertIsNone(given.evict)      # a copy: the round's own
        self.assertEqual((p.rate, p.w, p.c, p.copies), (1e9, 1e-9, 2e-9,
                                                        True))
        self.assertEqual(p.evict, 2e-9)
        # a file's is its own, clamped at 0
        self.assertEqual(with_evict(Sink("file", serial=True), ev).evict,
                         0.0)
        self.assertTrue(with_evict(Sink("file", serial=True), ev).serial)
        # none for /dev/null or dpkg (which copies nothing), none
        # measured: left as it is (park)
        self.assertIsNone(with_evict(Sink("null"), ev).evict)
        self.assertIsNone(with_evict(Sink("dpkg"), ev).evict)
        self.assertIsNone(with_evict(Sink("pipe"), None).evict)

    def test_measured_eviction(self):
        # one thread streams 4 x 100 MB into a copying sink at 5 ns/B:
        # 4 s of decode, 2 s of copies, and the eviction: park (10 ns/B,
        # 4 s) when none was measured, else the sink's own (1 ns/B, 0.4 s);
        # a sink that copies nothing has none either way
        s = Sink("file", INF, w=5e-9, copies=True)
        self.assertAlmostEqual(simulate([1.0] * 4, [100e6] * 4, 2, 1, s,
                                        park=1e-8), 10.0, places=5)
        s.evict = 1e-9
        self.assertAlmostEqual(simulate([1.0] * 4, [100e6] * 4, 2, 1, s,
                                        park=1e-8), 6.4, places=5)
        n = Sink("null", INF, w=5e-9, evict=1e-9)
        self.assertAlmostEqual(simulate([1.0] * 4, [100e6] * 4, 2, 1, n,
                                        park=1e-8), 6.0, places=5)

    def test_pages_pool(self):
        # 4 pieces of 20 MiB, 1 s each, decoded in place on 2 threads
        # into a sink with no cost, 2 in flight: pieces 0 and 1 each make
        # a buffer (1 ns/B: 21 ms), 2 and 3 reuse them once 0 and 1 are
        # written
        m = 20 * MIB
        p = Pages(1e-9, 0.0, False)
        self.assertAlmostEqual(simulate([1.0] * 4, [m] * 4, 2, 2, window=2,
                                        pages=p), 2.0 + m * 1e-9, places=6)
        # 40 MiB pieces after them: each grows a free one by 20 MiB; in
        # huge pages none grows, each is new (40 MiB).  Unmapping (0.1
        # ns/B): the two 40 MiB buffers at the end, given back after the
        # last decode; the 20 MiB ones of huge pages, free or given back
        # once the last piece has started and while it decodes, beside
        # it (outq.c's draining), not at the end
        sizes = [m, m, 2 * m, 2 * m]
        self.assertAlmostEqual(
            simulate([1.0] * 4, sizes, 2, 2, window=2,
                     pages=Pages(1e-9, 1e-10)),
            2.0 + 2 * m * 1e-9 + 4 * m * 1e-10, places=6)
        self.assertAlmostEqual(
            simulate([1.0] * 4, sizes, 2, 2, window=2,
                     pages=Pages(1e-9, 1e-10, True)),
            2.0 + 3 * m * 1e-9 + 4 * m * 1e-10, places=6)
        # 3 pieces on 2 threads, the last one long: the buffer it does
        # not take goes while it decodes, its own at the end
        self.assertAlmostEqual(
            simulate([1.0, 1.0, 3.0], [m] * 3, 2, 2,
                     pages=Pages(0.0, 1e-10)),
            4.0 + m * 1e-10, places=6)
        # with the default window piece 3 starts before piece 1 is
        # written: a third buffer
        self.assertAlmostEqual(simulate([1.0] * 4, [m] * 4, 2, 2,
                                        pages=p), 2.0 + 2 * m * 1e-9,
                               places=6)
        # one thread streams, positional workers write their own buffer:
        # no pool either way
        self.assertAlmostEqual(simulate([1.0] * 4, [m] * 4, 2, 1,
                                        pages=p), 4.0, places=6)
        self.assertAlmostEqual(simulate([1.0] * 4, [m] * 4, 2, 2,
                                        positional=True, pages=p), 2.0,
                               places=6)
        # caps: whole pages, or 2 MiB steps in huge pages from 2 MiB up
        self.assertEqual(Pages().cap(4097), 8192)
        self.assertEqual(Pages(huge=True).cap(HUGE + 1), 2 * HUGE)
        self.assertEqual(Pages(huge=True).cap(4097), 8192)

    def test_write_rate_paced(self):
        # a pipe paced at 4 ns/B between chunks: that run takes at least
        # pace x bytes (8 MiB: 34 ms), its writer's CPU is its writes
        # alone; write_rate() keeps that CPU and the back-to-back rate;
        # /dev/null is never paced
        import tempfile
        pace, size = 4e-9, 8 * MIB
        with tempfile.TemporaryDirectory() as d:
            paced = write_once("pipe", size, d, pace)
            self.assertLessEqual(paced.rate, 1.0 / pace)
            self.assertLess(paced.w, pace / 2)
            self.assertGreater(paced.c, 0.0)
            p = write_rate("pipe", size, d, pace=pace)
            self.assertTrue(p.copies)
            self.assertGreater(p.rate, 1.0 / pace)
            self.assertLess(p.w, pace / 2)
            n = write_rate("null", size, d, pace=pace)
            self.assertFalse(n.copies)
            self.assertGreater(n.rate, 1.0 / pace)
            # the reader on the writer's CPU: measured so, and this
            # process's CPUs given back after
            mask = os.sched_getaffinity(0)
            t = write_rate("pipe", size, d, pace=pace, together=True)
            self.assertEqual(os.sched_getaffinity(0), mask)
            self.assertTrue(t.copies)
            self.assertGreater(t.c, 0.0)
            self.assertGreater(t.rate, 1.0 / pace)

    def test_file_sink(self):
        # the file sink is written in place: never truncated or removed
        # between runs (its pages stay cached), grown when too small,
        # and what cat-data writes into it through the shell's 1<> is
        # its output, at its start
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            path = file_sink(d, 3 * CHUNK + 5)
            self.assertEqual(os.path.getsize(path), 3 * CHUNK + 5)
            ino = os.stat(path).st_ino
            write_once("file", 2 * CHUNK, d, 0.0)
            self.assertEqual(os.path.getsize(path), 3 * CHUNK + 5)
            self.assertEqual(os.stat(path).st_ino, ino)
            with open(path, "rb") as f:
                self.assertEqual(f.read(2), b"\x5a\x5a")
            self.assertEqual(file_sink(d, CHUNK), path)
            self.assertEqual(os.path.getsize(path), 3 * CHUNK + 5)
            wall, _ = run_to_sink(["printf", "zdeb"], "file", d, 4)
            self.assertGreater(wall, 0.0)
            self.assertEqual(os.stat(path).st_ino, ino)
            with open(path, "rb") as f:
                self.assertEqual(f.read(6), b"zdeb\x5a\x5a")
            write_once("file", 5 * CHUNK, d, 0.0)
            self.assertEqual(os.path.getsize(path), 5 * CHUNK)

    def test_write_size(self):
        # -T1 writes what each ZSTD_decompressStream() call gives; two
        # threads or more a positional PCHUNK, into a pipe the queue's
        # chunks; and write_once() writes pieces of the size given: a
        # new file sink of 3 x 128 KiB is made of what one writes
        import tempfile
        self.assertEqual(write_size("pipe", 1), STREAM_OUT)
        self.assertEqual(write_size("file", 1), STREAM_OUT)
        self.assertEqual(write_size("pipe", 2), CHUNK)
        self.assertEqual(write_size("dpkg", 2), CHUNK)     # a pipe too
        self.assertEqual(write_size("file", 8), PCHUNK)
        with tempfile.TemporaryDirectory() as d:
            write_once("file", 3 * PCHUNK, d, 0.0, chunk=PCHUNK)
            self.assertEqual(os.path.getsize(os.path.join(d, "sink.out")),
                             3 * PCHUNK)
        with tempfile.TemporaryDirectory() as d:
            write_once("file", 3 * PCHUNK, d, 0.0)   # one of CHUNK
            self.assertEqual(os.path.getsize(os.path.join(d, "sink.out")),
                             CHUNK)

    def test_constants_are_the_decoders(self):
        # the model's copies of lib/'s sizes, read from the sources (and
        # ZSTD_DStreamOutSize() from libzstd itself), so that a change
        # there fails here until the model follows
        import ctypes
        import re
        top = os.environ.get("ZDEB_SRCDIR", os.path.join(
            os.path.dirname(__file__), "..", ".."))

        def define(path, name):
            with open(os.path.join(top, path)) as fh:
                m = re.search(r"^#define %s \(+(?:size_t\))?(\d+)u? *"
                              r"(?:<< *(\d+)|\* *MIB)\)" % name, fh.read(),
                              re.M)
            self.assertIsNotNone(m, "%s in %s" % (name, path))
            v = int(m.group(1))
            return v << int(m.group(2)) if m.group(2) else v * MIB
        self.assertEqual(define("lib/zseg-decode.c", "CHUNK"), CHUNK)
        self.assertEqual(define("lib/zseg-decode.c", "PCHUNK"), PCHUNK)
        self.assertEqual(define("lib/zseg-decode.c", "MEM_BUDGET"),
                         MEM_BUDGET)
        self.assertEqual(define("lib/zseg-decode.h", "ZD_ZSEG_WHOLE_MAX"),
                         WHOLE_MAX)
        self.assertEqual(define("lib/outq.c", "HUGE"), HUGE)
        # the windows: each macro's body evaluated for a few counts
        with open(os.path.join(top, "lib/zseg-decode.c")) as fh:
            src = fh.read()
        for name, in_place in (("WINDOW", False), ("QWINDOW", True)):
            m = re.search(r"^#define %s\(threads\) (.*)$" % name, src,
                          re.M)
            self.assertIsNotNone(m, name)
            body = m.group(1).split("/*")[0]
            self.assertRegex(body, r"^[()threads*+ 0-9]+$")
            for t in (2, 3, 8, 64):
                self.assertEqual(eval(body.replace("threads", str(t))),
                                 default_window(t, in_place), name)
        zstd = ctypes.CDLL("libzstd.so.1")
        zstd.ZSTD_DStreamOutSize.restype = ctypes.c_size_t
        self.assertEqual(zstd.ZSTD_DStreamOutSize(), STREAM_OUT)

    def test_sink_for(self):
        # two threads or more meet the pipe as pipe_mix() makes it
        apart, two = Sink("pipe", w=1e-9), Sink("pipe", w=2e-9)
        sinks = {"pipe": apart, "pipe/2": two, "null": Sink("null")}
        self.assertIs(sink_for(sinks, "pipe", 1), apart)
        self.assertIs(sink_for(sinks, "pipe", 2), two)
        self.assertIs(sink_for(sinks, "null", 2), sinks["null"])

    def test_median_sink(self):
        ss = [Sink("file", r, w=w, c=c, serial=True, copies=True)
              for r, w, c in ((1e9, 3e-10, 0.0), (3e9, 1e-10, 2e-10),
                              (2e9, 2e-10, 1e-10))]
        m = median_sink(ss)
        self.assertEqual((m.name, m.rate, m.w, m.c, m.serial, m.copies),
                         ("file", 2e9, 2e-10, 1e-10, True, True))

    def test_pipe_mix(self):
        one = Sink("pipe", 3e9, w=0.05e-9, c=0.06e-9, copies=True)
        apart = Sink("pipe", 2e9, w=0.27e-9, c=0.16e-9, copies=True)
        # the reader's measured cost halfway: half read apart, the
        # writer's cost halfway too; the rate and copies from one
        s, p = pipe_mix(one, apart, 0.11e-9)
        self.assertAlmostEqual(p, 0.5)
        self.assertAlmostEqual(s.w, 0.16e-9)
        self.assertAlmostEqual(s.c, 0.11e-9)
        self.assertEqual(s.rate, 3e9)
        self.assertTrue(s.copies)
        # outside the two: the share clamped, the reader's cost kept
        s, p = pipe_mix(one, apart, 0.20e-9)
        self.assertEqual(p, 1.0)
        self.assertAlmostEqual(s.w, apart.w)
        self.assertAlmostEqual(s.c, 0.20e-9)
        s, p = pipe_mix(one, apart, 0.01e-9)
        self.assertEqual(p, 0.0)
        self.assertAlmostEqual(s.w, one.w)
        # no difference between the two: all on the writer's CPU
        self.assertEqual(pipe_mix(one, one, 0.1e-9)[1], 0.0)

    def test_reader_cpu(self):
        # a stand-in for zdeb that burns 0.3 s of CPU, then writes 64 MiB:
        # cat's CPU alone is counted, per byte of the given total
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            fake = os.path.join(d, "zdeb")
            with open(fake, "w") as fh:
                fh.write("#!%s\nimport os, sys, time\n"
                         "assert sys.argv[1:3] == ['cat-data', '-T2']\n"
                         "t = time.process_time() + 0.3\n"
                         "while time.process_time() < t: pass\n"
                         "b = bytes(1 << 20)\n"
                         "for _ in range(64): sys.stdout.buffer.write(b)\n"
                         "sys.exit(int(sys.argv[3] == 'bad'))\n" %
                         sys.executable)
            os.chmod(fake, 0o755)
            c = reader_cpu(fake, "x.deb", 2, 64 * MIB)
            self.assertGreater(c, 0.0)
            self.assertLess(c * 64 * MIB, 0.15)
            with self.assertRaises(PerfError):
                reader_cpu(fake, "bad", 2, 64 * MIB)

    def test_inplace_setup(self):
        # in-place times are measured warm: piece 0 gets the setup too
        self.assertAlmostEqual(simulate([1.0] * 2, [MIB] * 2, 2, 2,
                                        setup=0.5, inplace=[1.0] * 2),
                               1.5, places=6)
        self.assertAlmostEqual(simulate([1.5, 1.0], [MIB] * 2, 2, 2,
                                        setup=0.5), 1.5, places=6)

    def test_alpha_of(self):
        self.assertAlmostEqual(alpha_of(1.0, 1.2, 2), 0.2)
        self.assertAlmostEqual(alpha_of(1.0, 0.9, 2), 0.0)
        self.assertAlmostEqual(alpha_of(1.0, 1.5, 1), 0.0)

    def test_empty(self):
        self.assertEqual(simulate([], [], 4), 0.0)


if __name__ == "__main__":
    unittest.main()
