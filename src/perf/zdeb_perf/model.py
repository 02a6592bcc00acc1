# SPDX-License-Identifier: GPL-2.0-or-later
"""model - a scaling model of zdeb's parallel decode, checked against this
machine: the per-segment decode times of one package on one core, the
sink's rate and CPU cost, and the slow-down of concurrent decodes, fed to
a simulation of the decoder's policy (lib/zseg-decode.c, sched.c, outq.c)
for 1 to 64 cores.  See zdeb-perf(1), MODEL."""

import copy
import fcntl
import math
import os
import random
import resource
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

from . import stats
from .common import PerfError, find_zdeb, median, note

MIB = 1 << 20
CHUNK = 256 << 10           # lib/zseg-decode.c CHUNK: a queued chunk
PCHUNK = 128 << 10          # lib/zseg-decode.c PCHUNK: a positional write
STREAM_OUT = 128 << 10      # ZSTD_DStreamOutSize(): decode_stream's writes
MEM_BUDGET = 512 * MIB      # lib/zseg-decode.c MEM_BUDGET
WHOLE_MAX = 64 * MIB        # lib/zseg-decode.h ZD_ZSEG_WHOLE_MAX
HUGE = 2 * MIB              # lib/outq.c HUGE
PAGE = 4096


def default_window(threads, in_place=False):
    """Pieces in flight: lib/zseg-decode.c QWINDOW(threads) when every
    piece is decoded in place in the queue, else WINDOW(threads)
    (queue_window())."""
    return threads + 1 if in_place else 2 * threads + 1
INF = float("inf")
EPS = 1e-12


class Sink:
    """Where the decoded bytes go.  rate: bytes/s the sink takes at most
    (its own wall-clock limit); w: the writer's CPU seconds per byte (a
    decoder thread's time, as the workers write in order themselves);
    c: the reader's CPU seconds per byte (another process, its own
    core when one is free)."""

    def __init__(self, name, rate=INF, w=0.0, c=0.0, serial=False,
                 copies=False, evict=None):
        self.name = name
        self.rate = rate
        self.w = w
        self.c = c
        # the writer copies the bytes into the kernel (a file, a pipe;
        # not /dev/null, whose write costs a call and no copy)
        self.copies = copies
        # writes from several threads take turns (a regular file: the
        # inode's lock), so positional writing still goes one at a time
        self.serial = serial
        # the CPU seconds per byte a decoding thread loses to its copy
        # into the sink beyond the copy itself (`--segment-times`' copy
        # lines: copy_evict()); None, not measured: simulate()'s park,
        # the model's assumption before those lines
        self.evict = evict

    def __repr__(self):
        return "Sink(%s, %.3g B/s, w=%.3g, c=%.3g)" % (
            self.name, self.rate, self.w, self.c)


def contention(k, alpha):
    """A decode's speed with k decodes running at once, relative to one
    alone: 1 / (1 + alpha (k - 1)), alpha fitted from nproc concurrent
    single-thread decodes (memory bandwidth and shared caches)."""
    return 1.0 / (1.0 + alpha * max(k - 1, 0))


class Pages:
    """What the output queue's buffers cost (`--segment-times`' "pages"
    line): populate and unmap, CPU seconds per byte mapped to make a new
    buffer's pages and to unmap them; huge: buffers of huge pages, rounded
    up to 2 MiB (else to pages, a free one growing when too small)."""

    def __init__(self, populate=0.0, unmap=0.0, huge=False):
        self.populate = populate
        self.unmap = unmap
        self.huge = huge

    def cap(self, size):
        """lib/outq.c chunk_cap() of a populated buffer."""
        step = HUGE if self.huge and size >= HUGE else PAGE
        return -(-int(size) // step) * step


class _Pool:
    """lib/outq.c's free buffers, as chunk_get() and chunk_grow() take
    them: the smallest that fits, else (without huge pages) the largest
    grown, else a new one; the seconds of CPU each costs."""

    def __init__(self, pages):
        self.pages = pages
        self.free = []
        self.mapped = 0

    def take(self, size):
        cap = self.pages.cap(size)
        fits = [c for c in self.free if c >= cap]
        if fits:
            self.free.remove(min(fits))
            return min(fits), 0.0
        if self.free and not self.pages.huge:
            old = max(self.free)
            self.free.remove(old)
            self.mapped += cap - old
            return cap, (cap - old) * self.pages.populate
        self.mapped += cap
        return cap, cap * self.pages.populate


def simulate(times, sizes, cores, threads=None, sink=None, alpha=0.0,
             window=None, budget=MEM_BUDGET, positional=False, park=0.0,
             stream=None, setup=0.0, inplace=None, pages=None):
    """Wall seconds to decode pieces of single-core decode times `times`
    (s) and decoded sizes `sizes` (bytes) on `threads` workers (default:
    cores) and `cores` CPUs into sink, as lib/zseg-decode.c does: piece i
    starts on a free worker once fewer than `window` (2 x threads + 1)
    pieces
    are in flight (started and not yet fully written); its bytes queue up
    to `budget` bytes in all (beyond, only the head piece decodes); the
    head piece's bytes are written in order, as they come, by the worker
    threads.  Rates are fluid between events: every runnable party gets
    the same share when threads or cores are oversubscribed (decoders one
    each, the writer w x rate, the reader c x rate), except that on two
    threads or more bytes already queued are written first (a worker
    writes what the sink takes before it decodes on: outq.c's nowait
    writes), so the writer and the reader run at their rate and the
    decoders share what is left, unless nothing would be left.  One
    thread is one streaming decoder writing as it goes, as
    decode_stream() is.

    positional: the sink takes writes at offsets (a file, /dev/null:
    zd_sink_fd_init's pwrite), so on two threads or more each worker
    writes its own piece's bytes where they belong as it decodes them
    (decode_pieces' "placed" path): a piece costs its worker its decode
    plus its bytes' writing, and is done when its worker is; the window
    still holds pieces until those before them are done.

    park: CPU seconds per byte for writing bytes that waited in the queue
    (parked chunks, out of the cache by then: read back from memory), on
    top of the sink's w; bytes written as they are decoded cost w alone.
    Every byte a decoding thread copies into the kernel (sink.copies) also
    costs it sink.evict (when None, park once more): the copy pushes some
    of its window out of the cache, which its next matches read back.  Not
    the bytes of a piece decoded in place (in order on two threads or
    more, of WHOLE_MAX or less: lib/zseg-decode.c): its window is the
    buffer those bytes are copied out of, so the copy reads what the
    decoder wrote and pushes out nothing its matches need.

    stream: the one-thread decoder's time for all pieces (`cat-data
    --segment-times`' "stream" line), which differs from the sum of the
    pieces' own: -T1 streams the frame through one decoder (its window
    copied out, the frame checksum computed besides each segment's hash).
    On one thread the pieces' times are scaled to sum to it.

    inplace: each piece's time decoded in place (`--segment-times`'
    "inplace" lines), used instead of times for the pieces the decoder
    decodes so: on two threads or more, in order (not positional), of
    WHOLE_MAX or less.  It has no window of its own to copy out of.  Those
    times come from a decoder already warm, so piece 0 gets the setup too
    when its in-place time is used.

    setup: a worker's first piece costs it this much more (its decoder
    made, its window's and buffers' pages touched for the first time); the
    measured times have it in piece 0 only (--segment-times decodes them
    one after another on one decoder), so pieces 1 to threads - 1, each
    the first of another worker, get it added.

    pages (Pages): a piece decoded in place takes a buffer from the
    queue's pool when it starts and gives it back once written whole; a
    buffer made or grown for it costs its worker the new pages first.
    Once the last piece has started, the free buffers and those given
    back while a piece still decodes are unmapped by a worker with
    nothing else to do, beside the others (outq.c's draining); those
    given back after the last decode ends cost their unmapping at the
    end."""
    n = len(times)
    if n != len(sizes):
        raise ValueError("times and sizes differ in length")
    sink = sink or Sink("none")
    threads = cores if threads is None else threads
    threads = max(1, min(threads, n)) if n else 1
    if n == 0:
        return 0.0
    if not sink.copies:
        evict = 0.0
    else:
        evict = park if sink.evict is None else sink.evict
    if threads <= 1:
        park = 0.0
        tsum = sum(times)
        if stream is not None and tsum > 0:
            times = [t * stream / tsum for t in times]
    # the pieces the decoder decodes in place: in order into the queue
    in_place = [threads > 1 and not positional and 0 < u <= WHOLE_MAX
                for u in sizes]
    window = default_window(threads, all(in_place)) if window is None \
        else window
    first = 1       # the first piece with no setup in its time
    if inplace is not None:
        times = [ti if ip else t
                 for t, ti, ip in zip(times, inplace, in_place)]
        # decoded in place after the streamed pass, by a warm decoder
        first = 0 if in_place[0] else 1
    if threads > 1 and setup > 0:
        times = [t + (setup if first <= i < threads else 0.0)
                 for i, t in enumerate(times)]
    # the writer's extra CPU per byte of each piece (see park above)
    evict_of = [0.0 if ip else evict for ip in in_place]
    if positional and threads > 1 and not sink.serial:
        park = 0.0      # no queue: each worker writes its own bytes
        times = [t + u * (sink.w + evict) for t, u in zip(times, sizes)]
        sink = Sink(sink.name + " (placed)")
        evict_of = [0.0] * n
    times = list(times)
    pool = _Pool(pages) if pages is not None else None
    late = 0                    # bytes unmapped after the last decode
    buf = [None] * n            # a piece's buffer from the pool
    prog = [0.0] * n            # decoded fraction
    wr = [0.0] * n              # bytes written
    running = []                # pieces being decoded
    nxt = 0                     # next piece to start
    head = 0                    # first piece not fully written
    t = 0.0
    rate_b = [sizes[i] / times[i] if times[i] > 0 else INF
              for i in range(n)]
    guard = 0
    while head < n:
        guard += 1
        if guard > 100 * n + 100000:
            raise RuntimeError("simulation does not progress")
        while (len(running) < threads and nxt < n and
               nxt - head < window):
            if pool is not None and in_place[nxt] and sizes[nxt] > 0:
                buf[nxt], more = pool.take(sizes[nxt])
                if more > 0:
                    times[nxt] += more
                    rate_b[nxt] = sizes[nxt] / times[nxt]
            running.append(nxt)
            nxt += 1
            if pool is not None and nxt == n:
                pool.free = []  # draining: unmapped beside the decoders
        # pieces that take no time are done at once
        for i in list(running):
            if times[i] <= 0:
                prog[i] = 1.0
                running.remove(i)
        queued = sum(prog[i] * sizes[i] - wr[i] for i in range(head, nxt))
        full = queued >= budget - EPS
        active = [i for i in running if not full or i == head]
        k = len(active)
        f = contention(k, alpha)
        hbuf = prog[head] * sizes[head] - wr[head]
        head_dec = head in active and prog[head] < 1.0
        # the writer: at the sink's rate while the head has bytes queued,
        # else as fast as the head piece decodes
        wcost = sink.w + evict_of[head]
        if hbuf > EPS:
            wcost += park
            want = min(sink.rate, 1.0 / wcost) if wcost > 0 else sink.rate
        elif head_dec:
            want = min(sink.rate, rate_b[head] * f)
        else:
            want = 0.0
        if want == INF:
            want_cpu_w = 0.0 if wcost == 0 else INF
        else:
            want_cpu_w = wcost * want
        demand_t = k + want_cpu_w
        demand_c = k + want_cpu_w + (sink.c * want if want < INF else 0.0)
        s = 1.0
        if demand_t > threads:
            s = min(s, threads / demand_t)
        if demand_c > cores:
            s = min(s, cores / demand_c)
        sd = s
        if threads > 1 and hbuf > EPS and 0 < want < INF:
            # queued bytes first (see above); cw <= 1 as want <= 1/wcost
            cw, cr = want_cpu_w, sink.c * want
            left = min(threads - cw, cores - cw - cr)
            if left > EPS:
                s = 1.0
                sd = min(1.0, left / k) if k else 1.0
        if want == INF:
            # infinitely fast sink: the head's bytes leave as they come
            wrate = INF
        else:
            wrate = want * s
        drate = {i: rate_b[i] * f * sd for i in active}
        if hbuf <= EPS and head_dec and wrate != INF:
            wrate = min(wrate, drate[head])
        # the next event
        dt = INF
        for i in active:
            if drate[i] > 0:
                dt = min(dt, (1.0 - prog[i]) * sizes[i] / drate[i])
        if wrate == INF:
            dt_w = 0.0 if hbuf > EPS or (prog[head] >= 1.0) else INF
        elif hbuf > EPS:
            inflow = drate.get(head, 0.0) if prog[head] < 1.0 else 0.0
            dt_w = hbuf / (wrate - inflow) if wrate > inflow else INF
        elif prog[head] >= 1.0:
            dt_w = 0.0
        else:
            dt_w = INF
        dt = min(dt, dt_w)
        if not full and budget < INF:
            inflow = sum(drate.values()) - (wrate if wrate < INF else
                                             drate.get(head, 0.0))
            if inflow > EPS:
                dt = min(dt, (budget - queued) / inflow)
        if dt == INF:
            raise RuntimeError("simulation stalled")
        dt = max(dt, 0.0)
        # advance
        for i in active:
            prog[i] = min(1.0, prog[i] + drate[i] * dt / sizes[i]
                          if sizes[i] > 0 else 1.0)
        if wrate == INF:
            wr[head] = prog[head] * sizes[head]
        else:
            wr[head] = min(prog[head] * sizes[head],
                           wr[head] + wrate * dt)
        t += dt
        for i in list(running):
            if prog[i] >= 1.0 - 1e-12:
                prog[i] = 1.0
                running.remove(i)
        while head < n and prog[head] >= 1.0 and \
                wr[head] >= sizes[head] - 1e-6:
            wr[head] = sizes[head]
            if buf[head] is not None:
                if nxt < n:
                    pool.free.append(buf[head])
                elif not running:
                    late += buf[head]
            head += 1
        # in the real writer a finished head hands on to the next piece's
        # queued chunks at once (outq.c): the loop continues there
    if pool is not None:
        t += late * pages.unmap
    return t


def bound_of(times, sizes, cores, threads, sink, alpha, positional=False,
             park=0.0, stream=None, setup=0.0, inplace=None, pages=None):
    """(wall, what bounds it): the simulation, then the same without the
    sink's limits and without contention; the bound is what costs the
    most, or "segments" when neither does and the wall is over 1.1 x the
    total decode time over the threads (too few or unequal segments),
    else "cores"."""
    wall = simulate(times, sizes, cores, threads, sink, alpha,
                    positional=positional, park=park, stream=stream,
                    setup=setup, inplace=inplace, pages=pages)
    # without the sink, as the same decoder: in place only if it was
    no_sink = simulate(times, sizes, cores, threads, Sink("none"), alpha,
                       stream=stream, setup=setup,
                       inplace=None if positional else inplace,
                       pages=None if positional else pages)
    no_bw = simulate(times, sizes, cores, threads, sink, 0.0,
                     positional=positional, park=park, stream=stream,
                     setup=setup, inplace=inplace, pages=pages)
    th = max(1, min(threads, len(times)))
    ideal = sum(times) / th
    costs = {"sink": wall - no_sink, "bandwidth": wall - no_bw}
    name = max(costs, key=costs.get)
    if costs[name] > 0.05 * wall:
        return wall, name
    if len(times) > 0 and wall > 1.1 * sum(times) / max(1, min(threads,
                                                               cores)):
        return wall, "segments"
    return wall, "cores" if ideal > 0 else "-"


# ---------------------------------------------------------------------
# measuring

def segment_run(zdeb, deb, copies=False):
    """One `cat-data --segment-times` run: ([(usize, csize, seconds)] per
    segment, stream seconds, fixed seconds, [seconds in place] per segment
    or None from a zdeb without those lines, Pages or None likewise, and
    {sink: evict} from the copy lines (copy_evict()), which it asks for
    with copies, or None).  A segment's and the stream's time is the
    decoding thread's CPU time, which the machine's other load hardly
    changes (on a quiet machine it is the wall time); fixed is the rest of
    the process's wall time: starting, mapping the package, reading the
    index, exiting."""
    t0 = time.monotonic()
    r = subprocess.run(segment_cmd(zdeb, deb, copies),
                       stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True)
    wall = time.monotonic() - t0
    run = segment_parse(deb, r.returncode, r.stdout, r.stderr, wall)
    if copies and run[5] is None:
        raise PerfError("%s: no copy lines from --segment-times=copy" % deb)
    return run


def segment_cmd(zdeb, deb, copies=False):
    # through sh, as run_to_sink() runs what it measures; copies: the copy
    # lines too (two more streams, only the checked model needs them)
    return ["sh", "-c", "exec %s cat-data --segment-times%s %s" %
            (shlex.quote(zdeb), "=copy" if copies else "",
             shlex.quote(deb))]


def segment_parse(deb, rc, out, err, wall):
    if rc != 0:
        raise PerfError("%s: %s" % (deb, err.strip()))
    rows = [ln.split() for ln in out.splitlines()]
    st = [x for x in rows if x[0] == "stream"]
    ip = [x for x in rows if x[0] == "inplace"]
    pg = [x for x in rows if x[0] == "pages"]
    cp = [x for x in rows if x[0] == "copy"]
    rows = [x for x in rows
            if x[0] not in ("stream", "inplace", "pages", "copy")]
    if len(st) != 1:
        raise PerfError("%s: no stream line from --segment-times" % deb)
    if ip and [int(x[1]) for x in ip] != list(range(len(rows))):
        raise PerfError("%s: --segment-times' inplace lines do not match "
                        "its segments" % deb)
    if len(pg) > 1 or (pg and len(pg[0]) != 6):
        raise PerfError("%s: a bad pages line from --segment-times" % deb)
    pages = None
    if pg:
        mapped = int(pg[0][2])
        pages = Pages(float(pg[0][3]) / mapped if mapped else 0.0,
                      float(pg[0][4]) / mapped if mapped else 0.0,
                      pg[0][5] == "1")
    if any(len(x) != 7 for x in cp) or \
            len({x[1] for x in cp}) != len(cp) or \
            any(int(x[3]) <= 0 for x in cp):
        raise PerfError("%s: a bad copy line from --segment-times" % deb)
    evict = {x[1]: copy_evict(int(x[3]), float(x[5]), float(st[0][2]),
                              float(x[6])) for x in cp} if cp else None
    fixed = wall - sum(float(x[3]) for x in rows) - float(st[0][1]) - \
        sum(float(x[2]) for x in ip) - \
        sum(float(x[3]) + float(x[4]) for x in pg) - \
        sum(float(x[4]) for x in cp)
    return ([(int(x[1]), int(x[2]), float(x[4])) for x in rows],
            float(st[0][2]), max(0.0, fixed),
            [float(x[3]) for x in ip] if ip else None, pages, evict)


def copy_evict(nbytes, stream_copy, stream, alone):
    """A copy line's CPU seconds per byte that -T1's decoder loses to
    copying its output beyond the copy itself: the stream decoded with
    each buffer copied into the destination, less the stream alone, less
    the same copies alone from one buffer in the cache (not clamped: a
    round's noise may make it negative; segment_medians() clamps the
    median)."""
    return (stream_copy - stream - alone) / nbytes


def concurrent_segments(zdeb, deb, k):
    """k `--segment-times` runs at once: the mean over them of the sum of
    their segments' CPU times (each decodes the pieces on one thread, as a
    worker does)."""
    ps = [subprocess.Popen(segment_cmd(zdeb, deb), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True)
          for _ in range(k)]
    sums = []
    for p in ps:
        out, err = p.communicate()
        segs = segment_parse(deb, p.returncode, out, err, 0.0)[0]
        sums.append(sum(t for _, _, t in segs))
    return sum(sums) / len(sums)


def alpha_of(one, many, k):
    """contention()'s alpha from one decode's time alone and the mean of
    k at once."""
    if k < 2 or one <= 0:
        return 0.0
    return max(0.0, (many / one - 1.0) / (k - 1))


def worker_setup(segs):
    """A worker's setup time: how much longer the first segment took than
    the others' median time per byte gives for its size."""
    rates = [t / u for u, _, t in segs[1:] if u > 0]
    if not segs or not rates:
        return 0.0
    return max(0.0, segs[0][2] - segs[0][0] * median(rates))


def segment_medians(runs):
    """segment_run()s' results combined: each segment's median time, the
    median stream, fixed and worker setup times, each segment's median
    time in place, the pages' median costs and each copy line's median
    evict, 0 or more (None unless every run has them)."""
    segs = [(u, c, median([r[0][j][2] for r in runs]))
            for j, (u, c, _) in enumerate(runs[0][0])]
    inplace = None
    if all(r[3] is not None for r in runs):
        inplace = [median([r[3][j] for r in runs])
                   for j in range(len(segs))]
    pages = None
    if all(r[4] is not None for r in runs):
        pages = Pages(median([r[4].populate for r in runs]),
                      median([r[4].unmap for r in runs]), runs[0][4].huge)
    evict = None
    if all(r[5] is not None for r in runs):
        evict = {k: max(0.0, median([r[5][k] for r in runs]))
                 for k in runs[0][5] if all(k in r[5] for r in runs)}
    return (segs, median([r[1] for r in runs]),
            median([r[2] for r in runs]),
            median([worker_setup(r[0]) for r in runs]), inplace, pages,
            evict)


# the copy line whose eviction a sink's writes cause: a pipe's pages are
# reused, a file's are as many as its bytes (dpkg's sink is timed with
# its reader alone and copies nothing: Sink.copies)
EVICT_OF = {"pipe": "pipe", "file": "file"}


def with_evict(sink, evict):
    """sink with its evict from {copy line: evict} (segment_parse()),
    left as it is when evict is None or has no line for it."""
    key = EVICT_OF.get(sink.name)
    if evict is None or key not in evict:
        return sink
    s = copy.copy(sink)
    s.evict = max(0.0, evict[key])
    return s


def cpu_children():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def cpu_self():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def file_sink(scratch, size):
    """The file sink's path: a file of at least size bytes whose pages
    are in the page cache, overwritten in place from its start by every
    run (never truncated nor removed), so that what a run measures is the
    copy into cached pages, the same for the writer timed alone and for
    cat-data.  A new file's writes also make its pages, which the two
    workers of -T2 do under the inode's lock: 256 MiB written in 256 KiB
    pieces took 0.32-0.35 ns/B into a new file (one run of five 1.57)
    and 0.15-0.16 ns/B over a cached one here (2-vCPU AMD EPYC family 25
    model 1, five runs each, load 0.26, 2026-12-02)."""
    path = os.path.join(scratch, "sink.out")
    have = os.path.getsize(path) if os.path.exists(path) else 0
    if have < size:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
        try:
            os.lseek(fd, have, os.SEEK_SET)
            zero = bytes(CHUNK)
            left = size - have
            while left > 0:
                left -= os.write(fd, zero[:min(CHUNK, left)])
        finally:
            os.close(fd)
    return path


def run_to_sink(cmd, sink, scratch, size=0):
    """Wall seconds of cmd writing its stdout into sink ("null", "file",
    "pipe": into `cat` to /dev/null), run by sh as a shell runs it (the
    pipe's two processes started at once; one Popen after another from
    Python added 20-30 ms here), and the CPU seconds of sh and its
    children.  A file: file_sink()'s, of size bytes at least, opened by
    the shell for writing in place (1<>, a regular file not appended to:
    cat-data writes it at offsets, as it does a new file)."""
    line = " ".join(shlex.quote(x) for x in cmd)
    if sink == "null":
        line = "exec %s >/dev/null" % line
    elif sink == "file":
        line = "exec %s 1<>%s" % (line, shlex.quote(file_sink(scratch,
                                                               size)))
    elif sink == "pipe":
        line = "%s | cat >/dev/null" % line
    else:
        raise PerfError("unknown sink %s" % sink)
    c0 = cpu_children()
    t0 = time.monotonic()
    r = subprocess.run(["sh", "-c", line])
    wall = time.monotonic() - t0
    if r.returncode != 0:
        raise PerfError("%s failed" % line)
    return wall, cpu_children() - c0


def write_size(sink, threads):
    """The bytes zdeb writes at once into sink on `threads` threads: on
    one, what each ZSTD_decompressStream() call of decode_stream() gives
    (STREAM_OUT: of the text tree's 945 writes into a pipe here, 929 were
    of 128 KiB); on two or more, a positional write (a file) is PCHUNK, and
    into a pipe a worker writes the head segment's bytes as far as they
    are decoded (161-250 writes for the text tree's 123 MB: 500-760 KiB
    each on average), timed with the queue's chunks (CHUNK), past which
    the size hardly moves the cost.  Into a pipe the size does matter
    below: per byte the writer took 0.39 ns/B in 128 KiB writes and 0.32
    in 256 KiB ones with its reader on another CPU, 0.19 and 0.18 on one
    (2-vCPU AMD EPYC family 25 model 1, medians of 9, load 0.21 and 0.12
    at the start, 2026-12-02; doc/measurements/model-write-size-2026-12-02.txt)."""
    if threads <= 1:
        return STREAM_OUT
    return CHUNK if sink in ("pipe", "dpkg") else PCHUNK


def write_rate(sink, total, scratch, pace=0.0, together=False,
               chunk=CHUNK):
    """A writer of chunk-byte pieces from one cached buffer (as the
    decoder writes its: write_size()) into sink: returns Sink with the
    writer's CPU per byte, the reader's, and the rate.

    pace: seconds per byte the writer spends between its chunks, busy (as
    a decoder decodes the next one).  Written back to back, a pipe's
    writer and reader contend for its lock, and each spins while the other
    copies: cat took 0.28-0.44 ns/B from such a writer here, 0.13-0.22 from
    zdeb's.  So with pace the rate is measured back to back and the CPU
    per byte paced: the writer's from its thread's CPU time around the
    writes, the reader's from its own.

    together: the paced run with the writer and the reader on one CPU,
    where -T2 and more keep the reader for most of its bytes (lib/outq.c:
    one thread writes while it decodes, and the reader, woken onto its
    CPU, stays there; pipe_mix() finds the rest, 14-45 % of them on a
    2-vCPU Intel Xeon, read from the other CPU); -T1's reader runs on
    another CPU than its one busy thread, as it does alone.  Apart they
    take turns at the pipe's lock from two CPUs, each spinning while the
    other copies."""
    if pace <= 0 or sink != "pipe":
        return write_once(sink, total, scratch, 0.0, chunk=chunk)
    fast = write_once(sink, total, scratch, 0.0, chunk=chunk)
    paced = write_once(sink, total, scratch, pace, together, chunk)
    return Sink(sink, fast.rate, paced.w, paced.c, serial=fast.serial,
                copies=fast.copies)


def write_once(sink, total, scratch, pace, together=False, chunk=CHUNK):
    """write_rate()'s one run, paced or not, the writer and the reader on
    one CPU (together) or wherever the kernel puts them."""
    buf = b"\x5a" * chunk
    n = max(1, total // chunk)
    mask = os.sched_getaffinity(0)
    one = {min(mask)} if together else None
    if one:
        os.sched_setaffinity(0, one)
    try:    # cat, started from here, inherits the CPU
        return _write_once(sink, buf, n, scratch, pace)
    finally:
        if one:
            os.sched_setaffinity(0, mask)


def _write_once(sink, buf, n, scratch, pace):
    reader = None
    if sink == "null":
        fd = os.open(os.devnull, os.O_WRONLY)
    elif sink == "file":
        fd = os.open(file_sink(scratch, n * len(buf)), os.O_WRONLY)
    elif sink == "pipe":
        rfd, fd = os.pipe()
        try:    # as zd_pipe_grow() makes zdeb's
            fcntl.fcntl(fd, getattr(fcntl, "F_SETPIPE_SZ", 1031), 1 << 20)
        except OSError:
            pass
        with open(os.devnull, "wb") as out:
            reader = subprocess.Popen(["cat"], stdin=rfd, stdout=out)
        os.close(rfd)
    c0 = cpu_children()
    s0 = cpu_self()
    t0 = time.monotonic()
    wcpu = 0.0
    for _ in range(n):
        if pace > 0:
            until = time.perf_counter() + pace * len(buf)
            while time.perf_counter() < until:
                pass
            w0 = time.thread_time()
        mv = memoryview(buf)
        while mv:
            k = os.write(fd, mv)
            mv = mv[k:]
        if pace > 0:
            wcpu += time.thread_time() - w0
    os.close(fd)
    if reader:
        reader.wait()
    wall = time.monotonic() - t0
    if pace <= 0:
        wcpu = cpu_self() - s0
    rcpu = cpu_children() - c0
    b = n * len(buf)
    return Sink(sink, b / wall if wall > 0 else INF, wcpu / b, rcpu / b,
                serial=sink == "file", copies=sink != "null")


def reader_cpu(zdeb, deb, threads, total):
    """The CPU seconds per byte of `cat` reading `cat-data -T<threads>`
    of deb through a pipe, to /dev/null: the reader's own rusage (wait4),
    apart from zdeb's.  Not a wall time: cat is started first and zdeb
    after it, which a shell would start at once."""
    rfd, wfd = os.pipe()
    try:
        with open(os.devnull, "wb") as out:
            cat = subprocess.Popen(["cat"], stdin=rfd, stdout=out)
            try:
                z = subprocess.Popen([zdeb, "cat-data", "-T%d" % threads,
                                      deb], stdout=wfd)
            except OSError:
                cat.kill()
                cat.wait()
                raise
    finally:
        os.close(rfd)
        os.close(wfd)
    _, zst, _ = os.wait4(z.pid, 0)
    z.returncode = os.waitstatus_to_exitcode(zst)
    _, cst, cru = os.wait4(cat.pid, 0)
    cat.returncode = os.waitstatus_to_exitcode(cst)
    if z.returncode != 0 or cat.returncode != 0:
        raise PerfError("%s cat-data -T%d %s | cat failed" %
                        (zdeb, threads, deb))
    return (cru.ru_utime + cru.ru_stime) / total if total else 0.0


def median_sink(ss):
    """One sink from the rounds' measurements ss of it: the median rate
    and CPU costs, the kind (name, serial, copies) of the first."""
    return Sink(ss[0].name, median([x.rate for x in ss]),
                median([x.w for x in ss]), median([x.c for x in ss]),
                serial=ss[0].serial, copies=ss[0].copies)


def pipe_mix(one, apart, c):
    """The pipe as two decoder threads or more meet it, from write_rate()'s
    paced runs with the reader on the writer's CPU (one) and on the other
    (apart), and the reader's CPU per byte measured under a real -T2 (c:
    reader_cpu()).  Under -T2 the writing moves between workers on both
    CPUs and cat, woken by either, runs sometimes on the writer's CPU and
    sometimes on the other one.  The reader costs c, as measured; the share
    read apart is taken from where c falls between one.c and apart.c
    (clamped to 0-1), and the writer's CPU per byte is mixed in that
    share.  Returns (Sink, share)."""
    span = apart.c - one.c
    p = (c - one.c) / span if span > EPS else 0.0
    p = min(1.0, max(0.0, p))
    return Sink("pipe", one.rate, one.w + p * (apart.w - one.w), c,
                serial=one.serial, copies=one.copies), p


def unpack_times(deb, scratch, runs):
    """Median wall and CPU seconds (dpkg and its children) of `dpkg
    --unpack` of deb into a fresh root."""
    tree = os.path.join(scratch, "dpkgsink")
    walls, cpus = [], []
    for _ in range(runs):
        shutil.rmtree(tree, ignore_errors=True)
        for d in ("var/lib/dpkg/info", "var/lib/dpkg/updates",
                  "var/lib/dpkg/triggers"):
            os.makedirs(os.path.join(tree, d))
        open(os.path.join(tree, "var/lib/dpkg/status"), "w").close()
        open(os.path.join(tree, "var/lib/dpkg/available"), "w").close()
        env = dict(os.environ, PATH="/usr/sbin:/usr/bin:/sbin:/bin")
        c0 = cpu_children()
        t0 = time.monotonic()
        r = subprocess.run(["dpkg", "--root", tree, "--force-all",
                            "--no-triggers", "--unpack", deb],
                           stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, env=env,
                           universal_newlines=True)
        walls.append(time.monotonic() - t0)
        cpus.append(cpu_children() - c0)
        if r.returncode != 0:
            raise PerfError("dpkg --unpack: %s" % r.stderr.strip()[-300:])
    shutil.rmtree(tree, ignore_errors=True)
    return median(walls), median(cpus)


def copy_ns(size, reps):
    """Seconds per byte of one memcpy of size bytes (memoryview slice
    assignment), the fastest of reps."""
    src = bytearray(size)
    dst = bytearray(size)
    dst[:] = src        # fault the pages in first
    best = INF
    for _ in range(reps):
        t0 = time.perf_counter()
        dst[:] = src
        best = min(best, time.perf_counter() - t0)
    return best / size


def l3_bytes():
    """The last-level cache of cpu0 from sysfs, or 32 MiB."""
    base = "/sys/devices/system/cpu/cpu0/cache"
    best = 32 * MIB
    try:
        for d in os.listdir(base):
            with open(os.path.join(base, d, "size")) as fh:
                v = fh.read().strip()
            mult = {"K": 1 << 10, "M": MIB}.get(v[-1:], 1)
            best = max(best, int(v.rstrip("KM")) * mult)
    except (OSError, ValueError):
        pass
    return best


def park_cost(runs):
    """The extra CPU per byte of a parked chunk: a copy out of memory
    (twice the last-level cache) less one within the cache (256 KiB)."""
    far = copy_ns(2 * l3_bytes(), max(runs, 3))
    near = copy_ns(CHUNK, 200)
    return max(far - near, 0.0)


def dpkg_sink(zdeb, deb, scratch, runs):
    """dpkg's own rate: `dpkg --unpack` of the package with its data tar
    stored uncompressed (what dpkg reads, pre-decoded) into a fresh root,
    less the same of a package with an empty tree (dpkg's fixed cost,
    returned too); rate = tar bytes / wall, c = the CPU of dpkg and its
    children per byte (the dpkg-deb child only copies)."""
    none = os.path.join(scratch, "none.deb")
    empty = os.path.join(scratch, "empty")
    r = subprocess.run([zdeb, "recompress", "-Znone", deb, none],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       universal_newlines=True)
    if r.returncode != 0:
        raise PerfError("recompress -Znone: %s" % r.stderr.strip())
    os.makedirs(os.path.join(empty, "DEBIAN"))
    with open(os.path.join(empty, "DEBIAN", "control"), "w") as fh:
        fh.write("Package: zdeb-model-empty\nVersion: 1\nArchitecture: "
                 "all\nMaintainer: m <m@example.org>\nDescription: "
                 "empty\n")
    r = subprocess.run([zdeb, "build", "-Znone", empty, empty + ".deb"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       universal_newlines=True)
    if r.returncode != 0:
        raise PerfError("build of an empty package: %s" % r.stderr.strip())
    r = subprocess.run([zdeb, "cat-data", none], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL)
    tarb = len(r.stdout)
    w0, c0 = unpack_times(empty + ".deb", scratch, runs)
    w, c = unpack_times(none, scratch, runs)
    os.unlink(none)
    w, c = max(w - w0, 1e-6), max(c - c0, 0.0)
    return Sink("dpkg", tarb / w, 0.0, c / tarb), w0


def prepare(zdeb, inp, scratch, level, segment_size):
    """A .deb with an indexed zstd data member: inp itself when it has
    one, else inp recompressed (a .deb) or built (a directory)."""
    out = os.path.join(scratch, "model.deb")
    opts = ["-z%d" % level] + (["--segment-size=%s" % segment_size]
                               if segment_size else [])
    if os.path.isdir(inp):
        cmd = [zdeb, "build"] + opts + [inp, out]
    else:
        r = subprocess.run([zdeb, "cat-data", "--segment-times", inp],
                           stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        if r.returncode == 0 and not segment_size:
            return os.path.abspath(inp)
        cmd = [zdeb, "recompress"] + opts + [inp, out]
    note("preparing: %s" % " ".join(cmd))
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       universal_newlines=True)
    if r.returncode != 0:
        raise PerfError("%s: %s" % (" ".join(cmd), r.stderr.strip()))
    return out


def parse_cores(s):
    try:
        v = sorted({int(x) for x in s.split(",") if x})
    except ValueError:
        raise PerfError("--cores: a comma list of counts, not %r" % s)
    if not v or v[0] < 1 or v[-1] > 4096:
        raise PerfError("--cores: counts from 1 to 4096")
    return v


def sink_for(sinks, name, threads):
    """The sink name as `threads` decoder threads meet it: on two threads
    or more a pipe's reader partly on the writer's CPU and partly on
    another (sinks[name + "/2"], pipe_mix()), else sinks[name]."""
    if threads >= 2 and name + "/2" in sinks:
        return sinks[name + "/2"]
    return sinks[name]


def predicted_speedups(runs, cores):
    """--predict-only: the speed-up over one core at each count in cores,
    from segment_run()s' medians, into /dev/null with no contention,
    written where they belong as cat-data writes it (the window of
    positional writes)."""
    segs, stream, _, setup, _, _, _ = segment_medians(runs)
    times = [x[2] for x in segs]
    sizes = [x[0] for x in segs]
    base = simulate(times, sizes, 1, 1, Sink("null"), 0.0, stream=stream)
    return [base / simulate(times, sizes, n, n, Sink("null"), 0.0,
                            stream=stream, setup=setup, positional=True)
            for n in cores]


DRAWS = 200     # bootstrap resamples of the runs


def speedup_intervals(runs, cores, draws=DRAWS, seed=0):
    """95 % intervals of predicted_speedups(runs, cores): a percentile
    bootstrap over the runs (each draw takes len(runs) of them with
    replacement and predicts from their medians; the 2.5 % and 97.5 %
    quantiles of the draws, by rank).  A run is one decode of every
    segment, so a slow stretch of the machine moves its segments
    together, as it does in the draws.  The draws are seeded: the same
    runs give the same interval.  Returns [(lo, hi)] per core count; a
    single run gives its own value as both ends."""
    rng = random.Random(seed)
    got = [predicted_speedups([rng.choice(runs) for _ in runs], cores)
           for _ in range(draws)]
    lo_k = int(0.025 * draws)
    hi_k = max(lo_k, int(math.ceil(0.975 * draws)) - 1)
    out = []
    for j in range(len(cores)):
        v = sorted(g[j] for g in got)
        out.append((v[lo_k], v[hi_k]))
    return out


DEFAULT_CORES = "1,2,3,4,6,8,12,16,24,32,48,64"
PLACED = ("null", "file")    # sinks cat-data writes at offsets


def model_main(a):
    zdeb = find_zdeb()
    cores = parse_cores(a.cores)
    bad = [x for x in a.sinks if x not in ("null", "file", "pipe", "dpkg")]
    if bad or not a.sinks:
        raise PerfError("--sinks: null, file, pipe or dpkg, not %s" %
                        ",".join(bad))
    if a.interval and not a.predict_only:
        raise PerfError("--interval: only with --predict-only")
    if not os.path.exists(a.input):
        raise PerfError("%s: no such file or directory" % a.input)
    scratch = tempfile.mkdtemp(prefix="zdeb-model.", dir=a.workdir)
    try:
        deb = prepare(zdeb, a.input, scratch, a.level, a.segment_size)
        if a.predict_only:
            runs = [segment_run(zdeb, deb) for _ in range(a.runs)]
            best = predicted_speedups(runs, cores)
            if not a.interval:
                print(" ".join("%.1f" % x for x in best))
                return 0
            ends = speedup_intervals(runs, cores)
            print(" ".join("%.1f[%.1f-%.1f]" % (x, lo, hi)
                           for x, (lo, hi) in zip(best, ends)))
            return 0
        ncpu = os.cpu_count() or 1
        checked = [x for x in a.sinks if x != "dpkg"]
        threads = [t for t in (1, 2) if t <= ncpu]
        # Rounds: the components (segment times, each sink's rates) and
        # the checks (-T1/-T2 into each sink) one after another in each
        # round, so that a machine whose speed drifts (a shared VM's can
        # by a third within minutes) moves a round's prediction and its
        # measurement alike; each check's error is a per-round one.
        rounds = []
        alphas = []
        for _ in range(a.runs):
            seg = segment_run(zdeb, deb, copies=True)
            if a.alpha is None and ncpu >= 2:
                alphas.append(alpha_of(sum(t for _, _, t in seg[0]),
                                       concurrent_segments(zdeb, deb,
                                                           ncpu), ncpu))
            total = sum(x[0] for x in seg[0])
            pace = seg[1] / total if total > 0 else 0.0
            # each sink timed in -T1's writes; a file's are of the same
            # size on two threads or more (write_size())
            sk = {name: write_rate(name, max(total, a.sink_mib * MIB),
                                   scratch, pace,
                                   chunk=write_size(name, 1))
                  for name in checked}
            if "pipe" in checked and ncpu >= 2:
                # -T2's pipe: the reader on the writer's CPU, on the
                # other, and cat's CPU under a real -T2 (pipe_mix())
                for key, tog in (("pipe/1cpu", True), ("pipe/apart", False)):
                    sk[key] = write_rate(
                        "pipe", max(total, a.sink_mib * MIB), scratch,
                        pace, together=tog, chunk=write_size("pipe", 2))
                sk["pipe/2"] = pipe_mix(sk["pipe/1cpu"], sk["pipe/apart"],
                                        reader_cpu(zdeb, deb, 2, total))[0]
            meas = {(name, th): run_to_sink([zdeb, "cat-data", "-T%d" % th,
                                             deb], name, scratch, total)[0]
                    for name in checked for th in threads}
            rounds.append((seg, sk, meas, alphas[-1] if alphas else
                           (a.alpha or 0.0)))
        segs, stream, start, setup, inplace, pages, evict = \
            segment_medians([r[0] for r in rounds])
        times = [x[2] for x in segs]
        sizes = [x[0] for x in segs]
        total = sum(sizes)
        print("input: %s: %d segments, %.1f MiB decoded, %.3f s on one "
              "core (sum of segments; median of %d), %.3f s streamed "
              "(-T1's decoder)" % (a.input, len(segs), total / MIB,
                                   sum(times), a.runs, stream))
        print("segments (MiB decoded / ms): " + " ".join(
            "%.1f/%.0f" % (x / MIB, t * 1e3) for x, t in zip(sizes, times)))
        if inplace is not None:
            print("in place (two threads or more into a pipe: no window "
                  "of the decoder's own): %.3f s on one core" %
                  sum(inplace))
        if pages is not None:
            print("buffers for in place: %.2f ns/B to make a new one's "
                  "pages, %.2f ns/B to unmap (%s)" % (
                      pages.populate * 1e9, pages.unmap * 1e9,
                      "huge pages, 2 MiB steps" if pages.huge else
                      "4 KiB pages, grown when too small"))
        print("cpu: %d cores; load average %s" % (
            ncpu, " ".join(open("/proc/loadavg").read().split()[:3])))
        print("fixed: %.1f ms (the --segment-times process's wall less "
              "its decoding), added to every prediction; a worker's setup "
              "%.1f ms (its first segment's time over the others' rate)" %
              (start * 1e3, setup * 1e3))
        alpha = a.alpha if a.alpha is not None else \
            (median(alphas) if alphas else 0.0)
        print("contention: alpha %.3f (%s; a decode's speed with k at "
              "once: 1/(1+alpha(k-1)), %.2f at 64)" % (
                  alpha, "given" if a.alpha is not None else
                  "%d segment decodes at once against one, by their CPU "
                  "time, median of the rounds" % ncpu,
                  contention(64, alpha)))
        park = park_cost(a.runs)
        print("parked bytes: %.2f ns/B more to write (a copy from memory "
              "less one in the cache)" % (park * 1e9))
        print("a copy's cost to -T1's decoder beyond the copy (its "
              "window read back): %s (--segment-times' copy lines, "
              "medians)" % ", ".join("%s %.2f ns/B" % (k, v * 1e9)
                                     for k, v in sorted(evict.items())))
        sinks = {}
        for name in a.sinks:
            if name == "dpkg":
                sinks[name], dpkg_fixed = dpkg_sink(zdeb, deb, scratch,
                                                    a.runs)
            else:
                sinks[name] = median_sink([r[1][name] for r in rounds])
            sinks[name] = with_evict(sinks[name], evict)
            x = sinks[name]
            print("sink %-5s %8.0f MB/s, writer %.2f ns/B, reader %.2f "
                  "ns/B%s" % (name, x.rate / 1e6, x.w * 1e9, x.c * 1e9,
                              ", dpkg's fixed cost %.3f s" % dpkg_fixed
                              if name == "dpkg" else ""))
        one = {}    # the pipe as two threads or more meet it
        if rounds and "pipe/2" in rounds[0][1]:
            tog, apart = (median_sink([r[1][key] for r in rounds])
                          for key in ("pipe/1cpu", "pipe/apart"))
            mix, share = pipe_mix(tog, apart, median(
                [r[1]["pipe/2"].c for r in rounds]))
            one["pipe/2"] = with_evict(mix, evict)
            print("sink pipe  two threads or more: reader %.2f ns/B under "
                  "cat-data -T2 (its rusage), between %.2f on the "
                  "writer's CPU (writer %.2f) and %.2f on the other "
                  "(writer %.2f): %.0f %% read apart, so writer %.2f ns/B"
                  % (mix.c * 1e9, tog.c * 1e9, tog.w * 1e9, apart.c * 1e9,
                     apart.w * 1e9, share * 100, one["pipe/2"].w * 1e9))
        # predicted against measured on this machine, round by round
        print()
        print("%-5s %2s %9s %9s %7s  %-17s %s" % (
            "sink", "T", "predicted", "measured", "error", "95 % interval",
            "rounds"))
        for name in checked:
            for th in threads:
                preds, errs = [], []
                for seg, sk, meas, ra in rounds:
                    rt = [x[2] for x in seg[0]]
                    # the round's own eviction (its copy lines)
                    rs = with_evict(sink_for(sk, name, th), seg[5])
                    pr = seg[2] + simulate(rt, sizes, ncpu, th, rs,
                                           ra, positional=name in PLACED,
                                           park=park, stream=seg[1],
                                           setup=worker_setup(seg[0]),
                                           inplace=seg[3], pages=seg[4])
                    preds.append(pr)
                    errs.append((pr - meas[(name, th)]) /
                                meas[(name, th)] * 100)
                ci = stats.median_ci(errs)
                print("%-5s %2d %8.3fs %8.3fs %+6.1f%%  %-17s %d" % (
                    name, th, median(preds),
                    median([r[2][(name, th)] for r in rounds]),
                    median(errs), "[%+.1f%%, %+.1f%%]" % ci if ci else
                    "(too few rounds)", len(rounds)))
        # the table
        print()
        hdr = "%5s" % "cores"
        for name in sinks:
            hdr += " | %-6s %7s %6s %-9s" % (name, "wall", "x", "bound")
        print(hdr)
        base = {name: start + simulate(times, sizes, 1, 1, s, alpha,
                                       stream=stream, setup=setup)
                for name, s in sinks.items()}
        for n in cores:
            line = "%5d" % n
            for name in sinks:
                s = sink_for(dict(sinks, **one), name, n)
                wall, b = bound_of(times, sizes, n, n, s, alpha,
                                   positional=name in PLACED, park=park,
                                   stream=stream, setup=setup,
                                   inplace=inplace, pages=pages)
                wall += start
                line += " | %-6s %6.3fs %5.2fx %-9s" % (
                    "", wall, base[name] / wall, b)
            print(line)
        if "dpkg" in sinks or "pipe" in sinks:
            sn = "dpkg" if "dpkg" in sinks else "pipe"
            s = sinks[sn]
            ps = dict(sinks, **one)
            print()
            print("dpkg-deb mode into %s: decoder threads on N cores "
                  "(N-1 is today's default; the stream's wall, without "
                  "startup and dpkg's fixed cost)" % s.name)
            print("%5s %9s %9s %9s" % ("cores", "T=N-1", "T=N", "T=N/2"))
            for n in cores:
                if n < 2:
                    continue
                print("%5d %8.3fs %8.3fs %8.3fs" % ((n,) + tuple(
                    simulate(times, sizes, n, th, sink_for(ps, sn, th),
                             alpha, park=park, stream=stream, setup=setup,
                             inplace=inplace, pages=pages)
                    for th in (n - 1, n, max(1, n // 2)))))
        return 0
    finally:
        if a.keep:
            note("kept %s" % scratch)
        else:
            shutil.rmtree(scratch, ignore_errors=True)


def add_parser(sub, split_list):
    m = sub.add_parser("model", help="scaling model of the parallel decode")
    m.add_argument("--cores", default=DEFAULT_CORES,
                   help="core counts to predict (default %s)" %
                   DEFAULT_CORES)
    m.add_argument("--sinks", type=split_list,
                   default=["null", "file", "pipe", "dpkg"],
                   help="null,file,pipe,dpkg (default all)")
    m.add_argument("--runs", type=int, default=5,
                   help="rounds of measurements, medians over them (default 5)")
    m.add_argument("--level", type=int, default=19,
                   help="zstd level when INPUT must be (re)compressed")
    m.add_argument("--segment-size",
                   help="zdeb --segment-size when (re)compressing; given, "
                   "an indexed INPUT is recompressed too")
    m.add_argument("--sink-mib", type=int, default=256, metavar="MIB",
                   help="write at least this much into each sink to time "
                   "it (default 256)")
    m.add_argument("--alpha", type=float,
                   help="contention coefficient instead of measuring it "
                   "(e.g. from a machine with more cores)")
    m.add_argument("--predict-only", action="store_true",
                   help="only the per-segment times: print the speed-up "
                   "over one core at each --cores into /dev/null, with no "
                   "contention, on one line (for bench/segments.sh)")
    m.add_argument("--interval", action="store_true",
                   help="with --predict-only: each speed-up as "
                   "S[LO-HI], LO and HI its 95 %% interval (a bootstrap "
                   "over the --runs)")
    m.add_argument("--workdir", help="scratch directory parent")
    m.add_argument("--keep", action="store_true")
    m.add_argument("input", metavar="INPUT",
                   help="a .deb (indexed zstd is used as is) or a tree")
    return m


if __name__ == "__main__":
    sys.exit("run as zdeb-perf model")
