# SPDX-License-Identifier: GPL-2.0-or-later
"""cpuwhere - where a pipeline's CPU time went, task by task and function
by function, from a whole-machine profile of the CPU clock (`perf record
-a -e cpu-clock`, read back by `perf report` with REPORT_ARGS).

The CPU clock is counted by the kernel, so it samples on a VM without
hardware counters too, and each sample's period is the CPU time, in
nanoseconds, it stands for.  One recording holds one run of a pipeline
(`zdeb cat-data -T2 DEB | cat`, or two -T1 pipelines side by side).  Its
tasks are those whose command name is in `names`, the decoder's first and
the reader's second (the bench runs them under names of their own, so
that no other zdeb or cat on the machine counts).  A sample is put in a
row (who, what):

    who    "zdeb" or "cat" (names[0], names[1]: all threads of either),
           "idle" (the idle task, perf's "swapper"), or "others"
    what   the function; for code without symbols (perf prints a hex
           address, or "[unknown]") the file it is in, "libzstd.so.1.5.4
           (no symbols)"; idle and others are one row each ("-")

A line of the report is

    PERIOD SAMPLES COMMAND SHARED-OBJECT [k|.] SYMBOL

with the columns padded by two spaces or more (a command name may hold
one space, "Web Content").  "# Total Lost Samples: N" says the record has
a hole: lost() reads it, and a record with any is not to be trusted.
"""

import re

from zdeb_perf import stats

REPORT_ARGS = ("--stdio", "--no-children", "-g", "none",
               "-F", "period,sample,comm,dso,sym")

_LINE = re.compile(r"^\s*(\d+)\s+(\d+)\s+(\S.*?)\s{2,}(\S.*?)\s{2,}"
                   r"\[(.)\]\s+(.*?)\s*$")
_HEX = re.compile(r"^0x[0-9a-fA-F]+$")
_LOST = re.compile(r"^#\s*Total Lost Samples:\s*(\d+)")

WHO = ("zdeb", "cat", "idle", "others")


def parse(lines):
    """[(seconds, command, shared object, symbol)] of a report's sample
    lines; comments and blank lines are skipped."""
    out = []
    for line in lines:
        if line.startswith("#"):
            continue
        m = _LINE.match(line)
        if m:
            out.append((int(m.group(1)) / 1e9, m.group(3), m.group(4),
                        m.group(6)))
    return out


def lost(lines):
    """The samples the report says the record lost."""
    n = 0
    for line in lines:
        m = _LOST.match(line)
        if m:
            n += int(m.group(1))
    return n


def row(command, dso, sym, names=("zdeb", "cat")):
    """The row (who, what) of a sample (module doc)."""
    if command == "swapper":
        return ("idle", "-")
    if command not in names:
        return ("others", "-")
    who = WHO[list(names).index(command)]
    if _HEX.match(sym) or sym == "[unknown]":
        return (who, "%s (no symbols)" % dso)
    return (who, sym)


def profile(samples, names=("zdeb", "cat")):
    """{(who, what): seconds} of one recording's samples."""
    out = {}
    for sec, command, dso, sym in samples:
        k = row(command, dso, sym, names)
        out[k] = out.get(k, 0.0) + sec
    return out


def totals(profile_):
    """{who: seconds} of a profile, every WHO present (0 when none)."""
    out = dict.fromkeys(WHO, 0.0)
    for (who, _), sec in profile_.items():
        out[who] += sec
    return out


def compare(a, b, per_a=1, per_b=2, top=20):
    """The rows where two runs' time differs most: a and b are lists of
    profiles (one per round) of runs that decode per_a and per_b copies;
    returns [(who, what, [a's seconds per copy by round], [b's])] for
    the `top` rows with the largest difference of the medians, largest
    first (a row a round lacks counts 0 there)."""
    keys = set()
    for p in a + b:
        keys.update(p)

    def per_copy(ps, n, k):
        return [p.get(k, 0.0) / n for p in ps]

    rows = [(k[0], k[1], per_copy(a, per_a, k), per_copy(b, per_b, k))
            for k in keys]
    rows.sort(key=lambda r: (-abs(stats.median(r[2]) - stats.median(r[3])),
                             r[0], r[1]))
    return rows[:top]


def compare_totals(a, b, per_a=1, per_b=2):
    """[(who, [a's seconds per copy by round], [b's])] for each WHO and
    "all", as compare() but by task."""
    ta = [totals(p) for p in a]
    tb = [totals(p) for p in b]
    out = [(w, [t[w] / per_a for t in ta], [t[w] / per_b for t in tb])
           for w in WHO]
    out.append(("all", [sum(t.values()) / per_a for t in ta],
                [sum(t.values()) / per_b for t in tb]))
    return out
