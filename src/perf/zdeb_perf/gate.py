# SPDX-License-Identifier: GPL-2.0-or-later
"""gate - the quiet gate: wait for a quiet machine, and what other work
took during each run.

The readings come from a reader (ProcReader: /proc/loadavg and the cpu
line of /proc/stat; the tests give a fake one):

    reader.load1()  -> the 1-minute load average
    reader.cpu()    -> (busy_s, steal_s): the machine's busy CPU seconds
                       since boot (user, nice, system; guest time is inside
                       user; not irq and softirq, mostly the completion of
                       the run's own I/O) and the seconds stolen by the
                       hypervisor
    reader.kthreads() -> the CPU seconds of the kernel threads alive now
                       (the children of kthreadd, /proc/PID/stat)

Gate(...).wait_quiet(first) waits, at most `wait` seconds, until the
machine is quiet: before the first round the 1-minute load must be below
max_load, or have been when zdeb-perf began (start_load; its own
preparation is in the load now); before every
round the CPU the machine is busy with while zdeb-perf sleeps for
`sample` seconds (all of it other work) must be below max_load cores.
Later rounds do not wait for the 1-minute load: the runs of the round
before are in it and it decays with a time constant of a minute.

Gate.begin() before a run and Gate.end(token, wall_s, own_cpu_s) after it
give the run's record: load before and after, steal and the CPU other
processes took (the machine's busy CPU during the run minus the run's own
CPU, from its rusage, and zdeb-perf's, and the kernel threads': on a
quiet machine they work for the run, writing its files through the loop
device and the journal), both in % of one core, and whether others took
more than max_others_pct ("loaded").  The kernel threads' share is
recorded apart (kthreads_pct).
"""

import os
import time

DEFAULT_LOAD_PER_CORE = 0.25
DEFAULT_MAX_OTHERS_PCT = 10.0
# A run the gate discards is run again, at most this many more times.
REDO = 2


class ProcReader:
    def __init__(self, root="/proc"):
        self.root = root
        self.hz = os.sysconf("SC_CLK_TCK")

    def load1(self):
        with open(os.path.join(self.root, "loadavg")) as fh:
            return float(fh.read().split()[0])

    def cpu(self):
        with open(os.path.join(self.root, "stat")) as fh:
            for ln in fh:
                if ln.startswith("cpu "):
                    return parse_cpu_line(ln, self.hz)
        raise OSError("no cpu line in %s/stat" % self.root)

    def kthreads(self):
        total = 0
        for pid in os.listdir(self.root):
            if not pid.isdigit():
                continue
            try:
                with open(os.path.join(self.root, pid, "stat")) as fh:
                    st = fh.read()
            except OSError:
                continue            # gone meanwhile
            f = st[st.rfind(")") + 2:].split()
            if len(f) > 12 and (f[1] == "2" or pid == "2"):
                total += int(f[11]) + int(f[12])
        return total / float(self.hz)


def parse_cpu_line(line, hz):
    """(busy_s, steal_s) of the aggregate 'cpu' line of /proc/stat."""
    f = [int(x) for x in line.split()[1:]] + [0] * 10
    user, nice, system, _idle, _iowait, _irq, _softirq, steal = f[:8]
    return ((user + nice + system) / float(hz), steal / float(hz))


def default_max_load(cores):
    """0.25 per core: 0.5 on 2 cores."""
    return round(DEFAULT_LOAD_PER_CORE * max(1, cores or 1), 2)


def self_cpu():
    t = os.times()
    return t.user + t.system


class Gate:
    def __init__(self, max_load=None, max_others_pct=DEFAULT_MAX_OTHERS_PCT,
                 wait=60.0, allow_loaded=False, reader=None, sample=0.5,
                 sleep=time.sleep, clock=time.monotonic, cores=None,
                 own_cpu=self_cpu, start_load=None):
        self.cores = cores or os.cpu_count() or 1
        self.max_load = default_max_load(self.cores) if max_load is None \
            else max_load
        self.max_others_pct = max_others_pct
        self.wait = wait
        self.allow_loaded = allow_loaded
        self.reader = reader or ProcReader()
        self.sample = sample
        self.sleep = sleep
        self.clock = clock
        self.own_cpu = own_cpu
        self.start_load = start_load
        self.rounds = []

    def busy_cores(self):
        """The machine's busy CPU over `sample` seconds of zdeb-perf
        sleeping, in cores."""
        b0 = self.reader.cpu()[0]
        s0 = self.own_cpu()
        t0 = self.clock()
        self.sleep(self.sample)
        dt = max(self.clock() - t0, 1e-6)
        busy = self.reader.cpu()[0] - b0 - (self.own_cpu() - s0)
        return max(0.0, busy) / dt

    def start_quiet(self):
        """Whether the 1-minute load was below max_load when zdeb-perf
        started (start_load), before its own preparation (recompressing,
        the stage runs) raised it."""
        return self.start_load is not None and \
            self.start_load < self.max_load

    def wait_quiet(self, rnd):
        """Before round rnd (1-based): waits until quiet or `wait` seconds
        have gone (not at all with allow_loaded); returns and keeps the
        round's record {"round", "load1", "busy_cores", "waited_s",
        "quiet"}."""
        t0 = self.clock()
        while True:
            load1 = self.reader.load1()
            busy = self.busy_cores()
            quiet = busy < self.max_load and \
                (rnd > 1 or load1 < self.max_load or self.start_quiet())
            waited = self.clock() - t0
            if quiet or self.allow_loaded or waited >= self.wait:
                break
            self.sleep(min(5.0, max(0.0, self.wait - waited)))
        rec = {"round": rnd, "load1": round(load1, 2),
               "busy_cores": round(busy, 3),
               "waited_s": round(self.clock() - t0, 1), "quiet": quiet}
        self.rounds.append(rec)
        return rec

    def kthreads(self):
        k = getattr(self.reader, "kthreads", None)
        return k() if k else 0.0

    def begin(self):
        kt = self.kthreads()
        return (self.reader.load1(), kt, self.reader.cpu(), self.own_cpu())

    def end(self, token, wall_s, own_cpu_s):
        """The record of a run that took wall_s seconds and own_cpu_s of
        CPU (user + sys of the run and its children) since begin()."""
        load0, kt0, (busy0, steal0), self0 = token
        busy1, steal1 = self.reader.cpu()
        mine = own_cpu_s + (self.own_cpu() - self0)
        kt = max(0.0, self.kthreads() - kt0)
        wall = max(wall_s, 1e-6)
        others = max(0.0, (busy1 - busy0) - mine - kt)
        rec = {"load1_before": round(load0, 2),
               "load1_after": round(self.reader.load1(), 2),
               "steal_pct": round(100.0 * (steal1 - steal0) / wall, 1),
               "kthreads_pct": round(100.0 * kt / wall, 1),
               "others_pct": round(100.0 * others / wall, 1)}
        rec["loaded"] = rec["others_pct"] > self.max_others_pct
        rec["discarded"] = rec["loaded"] and not self.allow_loaded
        return rec
