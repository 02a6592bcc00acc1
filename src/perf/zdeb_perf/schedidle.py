# SPDX-License-Identifier: GPL-2.0-or-later
"""schedidle - where a pipeline's CPUs sat idle, from the scheduler's own
record (`perf sched record`, read back by `perf sched timehist --state`).

One recording holds one run of a pipeline (`zdeb cat-data -T2 DEB | cat`,
or two -T1 pipelines side by side).  Its tasks are those whose command
name is in `names` (the bench runs them under names of their own, so that
no other zdeb or cat on the machine counts); the window runs from the
first of their runs to the end of the last.  Over the window:

    cpus      the CPUs the record has
    busy      CPU seconds the pipeline's tasks ran
    others    CPU seconds anything else ran
    idle      CPU seconds no task ran (summed over the CPUs)
    waiting   the part of idle, on one CPU, during which one of the
              pipeline's tasks was runnable but queued on another CPU
              that was running something else: idle the scheduler's
              placement left, not the pipeline's own dependencies (a task
              woken onto an idle CPU is not waiting on it)
    d_sleep   seconds the first of `names` (the decoder and its threads)
              slept uninterruptibly (state D: the mm lock, a pipe's mutex,
              a page being read), summed over its tasks

A line of `perf sched timehist --state` is

    TIME [CPU] TASK WAIT SCH_DELAY RUN STATE

(TIME in seconds, the others in milliseconds; TIME is when the run
ended; STATE is the task's state when it left the CPU; the idle task is
"<idle>"; TASK may hold spaces).  A run of RUN ms ending at TIME started
at TIME - RUN.  WAIT is all the task's time off the CPU before the run;
when its run before ended in state D it slept WAIT - SCH_DELAY of it
uninterruptibly.  A task that left the CPU runnable (state R, or W/p for
a preemption in the kernel) was queued from then until it ran: perf
before 6.11 prints no SCH_DELAY for it, so that span is taken from the
runs themselves; a task woken up was queued SCH_DELAY before its run.

A line "TIME lost N events on cpu C" means the record has a hole: lost()
counts them, and a record with any is not to be trusted.
"""

RUNNABLE = ("R", "R+", "W", "p")


class Run:
    __slots__ = ("start", "end", "cpu", "task", "sch", "wait", "state")

    def __init__(self, start, end, cpu, task, sch, wait, state):
        self.start, self.end, self.cpu, self.task = start, end, cpu, task
        self.sch, self.wait, self.state = sch, wait, state


def parse(lines):
    """The runs of `perf sched timehist --state` output, in seconds;
    header, "awakened:" and "lost" lines are skipped."""
    runs = []
    for line in lines:
        f = line.split()
        if len(f) < 7 or not f[1].startswith("[") or "awakened:" in line:
            continue
        try:
            end = float(f[0])
            cpu = int(f[1].strip("[]"))
            wait, sch, run = (float(x) / 1e3 for x in f[-4:-1])
        except ValueError:
            continue
        runs.append(Run(end - run, end, cpu, " ".join(f[2:-4]), sch, wait,
                        f[-1]))
    return runs


def lost(lines):
    """The events the record says it lost ("lost N events on cpu C")."""
    n = 0
    for line in lines:
        f = line.split()
        if len(f) >= 6 and f[1] == "lost" and f[3] == "events":
            try:
                n += int(f[2])
            except ValueError:
                pass
    return n


def comm(task):
    """The command name of a timehist task, "zdeb[4980/4978]" -> "zdeb"."""
    return task.rsplit("[", 1)[0] if task.endswith("]") else task


def _merge(spans):
    """The union of spans (start, end), as sorted disjoint spans."""
    out = []
    for x, y in sorted(s for s in spans if s[1] > s[0]):
        if out and x <= out[-1][1]:
            out[-1][1] = max(out[-1][1], y)
        else:
            out.append([x, y])
    return out


def _overlap(a, b, merged):
    """Seconds of [a, b) inside the disjoint sorted spans merged."""
    return sum(max(0.0, min(b, y) - max(a, x)) for x, y in merged
               if y > a and x < b)


def _intersect(spans, merged):
    """The parts of spans inside the disjoint sorted spans merged."""
    return [(max(x, u), min(y, v)) for x, y in spans for u, v in merged
            if v > x and u < y]


def breakdown(runs, names=("zdeb", "cat")):
    """The cpus, window and its busy, others, idle, waiting and d_sleep
    seconds (module doc) of the pipeline whose tasks are named in names,
    or None when the record holds none of them."""
    ours = [r for r in runs if comm(r.task) in names]
    if not ours:
        return None
    cpus = sorted({r.cpu for r in runs})
    t0 = min(r.start for r in ours)
    t1 = max(r.end for r in ours)
    busy_on = {c: _merge((r.start, r.end) for r in runs
                         if r.cpu == c and r.task != "<idle>") for c in cpus}
    queued = {c: [] for c in cpus}      # spans queued on c, c busy
    d_sleep = 0.0
    last = {}
    for r in sorted(ours, key=lambda r: r.end):
        prev = last.get(r.task)
        if prev is not None and prev.state in RUNNABLE:
            span = (prev.end, r.start)
        else:
            span = (r.start - r.sch, r.start)
        queued[r.cpu].extend(_intersect([span], busy_on[r.cpu]))
        if prev is not None and prev.state == "D" and \
                comm(r.task) == names[0]:
            d_sleep += max(0.0, r.wait - r.sch)
        last[r.task] = r
    elsewhere = {c: _merge(s for d in cpus if d != c for s in queued[d])
                 for c in cpus}
    busy = others = idle = waiting = 0.0
    for r in runs:
        a, b = max(r.start, t0), min(r.end, t1)
        if b <= a:
            continue
        if r.task == "<idle>":
            idle += b - a
            waiting += _overlap(a, b, elsewhere[r.cpu])
        elif comm(r.task) in names:
            busy += b - a
        else:
            others += b - a
    return {"cpus": len(cpus), "window": t1 - t0, "busy": busy,
            "others": others, "idle": idle, "waiting": waiting,
            "d_sleep": d_sleep}
