# SPDX-License-Identifier: GPL-2.0-or-later
"""schedidle - where a pipeline's CPUs sat idle, from the scheduler's own
record (`perf sched record`, read back by `perf sched timehist --state`).

One recording holds one run of a pipeline (`zdeb cat-data -T2 DEB | cat`,
or two -T1 pipelines side by side).  Its tasks are those whose name is in
`names` (zdeb and its threads, cat); the window runs from the first of
their runs to the end of the last.  Over the window:

    busy      CPU seconds the pipeline's tasks ran
    others    CPU seconds anything else ran
    idle      CPU seconds no task ran (summed over the CPUs)
    waiting   the part of idle during which one of the pipeline's tasks
              was runnable but queued behind another on some CPU (woken or
              preempted, not yet running): idle the scheduler's placement
              left, not the pipeline's own dependencies
    d_sleep   seconds the pipeline's tasks slept uninterruptibly (state D:
              the mm lock, a pipe's mutex, a page being read), summed over
              the tasks

A line of `perf sched timehist --state` is

    TIME [CPU] TASK WAIT SCH_DELAY RUN STATE

(TIME in seconds, the others in milliseconds; TIME is when the run
ended; STATE is the task's state when it left the CPU; the idle task is
"<idle>").  A run of RUN ms ending at TIME started at TIME - RUN; the
task had been runnable since SCH_DELAY before that; WAIT is all its time
off the CPU before the run, SCH_DELAY included, so it slept WAIT -
SCH_DELAY, uninterruptibly when its run before ended in state D.
"""


class Run:
    __slots__ = ("start", "end", "cpu", "task", "sch", "wait", "state")

    def __init__(self, start, end, cpu, task, sch, wait, state):
        self.start, self.end, self.cpu, self.task = start, end, cpu, task
        self.sch, self.wait, self.state = sch, wait, state


def parse(lines):
    """The runs of `perf sched timehist --state` output, in seconds;
    header and other lines are skipped."""
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


def comm(task):
    """The command name of a timehist task, "zdeb[4980/4978]" -> "zdeb"."""
    return task.split("[", 1)[0]


def _union_overlap(a, b, spans):
    """Seconds of [a, b) covered by the union of spans (start, end)."""
    total, cur = 0.0, a
    for x, y in sorted((max(x, a), min(y, b)) for x, y in spans
                       if y > a and x < b):
        x = max(x, cur)
        if y > x:
            total += y - x
            cur = y
    return total


def breakdown(runs, names=("zdeb", "cat")):
    """The window and its busy, others, idle, waiting and d_sleep seconds
    (module doc) of the pipeline whose tasks are named in names, or None
    when the record holds none of them."""
    ours = [r for r in runs if comm(r.task) in names]
    if not ours:
        return None
    t0 = min(r.start for r in ours)
    t1 = max(r.end for r in ours)
    queued = [(r.start - r.sch, r.start) for r in ours if r.sch > 0]
    busy = others = idle = waiting = 0.0
    for r in runs:
        a, b = max(r.start, t0), min(r.end, t1)
        if b <= a:
            continue
        if r.task == "<idle>":
            idle += b - a
            waiting += _union_overlap(a, b, queued)
        elif comm(r.task) in names:
            busy += b - a
        else:
            others += b - a
    d_sleep = 0.0
    last = {}
    for r in sorted(ours, key=lambda r: r.end):
        prev = last.get(r.task)
        if prev is not None and prev.state == "D":
            d_sleep += max(0.0, r.wait - r.sch)
        last[r.task] = r
    return {"window": t1 - t0, "busy": busy, "others": others,
            "idle": idle, "waiting": waiting, "d_sleep": d_sleep}
