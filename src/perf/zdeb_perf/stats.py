# SPDX-License-Identifier: GPL-2.0-or-later
"""stats - paired comparisons of timed configurations, with intervals.

The method (zdeb-perf(1), STATISTICS):

- Every configuration runs once per round; a round's configurations run
  back to back, so that a slow minute of the machine falls on all of
  them alike.  A configuration's result in a round is one number (its
  elapsed seconds); rounds are numbered from 1.
- A comparison of configuration b against configuration a is the median
  of the per-round ratios a_r / b_r over the rounds where both have a
  result: above 1 means b took less time than a ("b is ratio times as
  fast").
- Its 95 % interval is distribution-free: the order statistics
  x_(k) .. x_(n+1-k) of the n per-round ratios, with k the largest rank
  for which a Binomial(n, 1/2) count below k has probability at most
  2.5 % (so the interval covers the true median with probability at
  least 95 % for any continuous distribution of the ratios).  Below
  n = 6 no such k exists and the interval is undefined (None), never
  invented.
- The A/A comparison is the baseline against a second run of itself in
  the same round; its interval must contain 1.00, else the run is not
  to be trusted (aa_ok).
- A comparison has converged when its interval is defined and its
  half-width, the larger distance from the ratio to an end of the
  interval relative to the ratio, is at most the target (5 %).
  should_stop() decides when to stop adding rounds; run_rounds() is the
  loop.

The API, used by zdeb-perf install and zdeb-perf apt:

    median_ci_rank(n)            -> k or None
    median_ci(xs)                -> (lo, hi) or None
    median_text(xs, fmt)         -> "M [lo, hi]", or "M (too few rounds)"
    paired_ratios(a, b)          -> [(round, a_r / b_r)]  (a, b: {round: s})
    compare(name_a, a, name_b, b) -> comparison dict (see compare)
    half_width(cmp)              -> relative half-width or None
    aa_ok(cmp)                   -> True, False, or None (undefined)
    not_converged(cmps, target)  -> names of comparisons not converged
    should_stop(...)             -> (stop, reason)
    round_order(seq, i)          -> round i's order of the runs
    run_rounds(...)              -> the loop of rounds with its budget
"""

import math
import time
from fractions import Fraction

CONF = 0.95
TARGET = 0.05


def median_ci_rank(n, conf=CONF):
    """The 1-based rank k of the lower end of the distribution-free
    interval for the median of n values: [x_(k), x_(n+1-k)] covers the
    median with probability 1 - 2 P(X <= k-1) >= conf, X ~ Binomial(n,
    1/2).  None when even k = 1 (the whole range) does not reach conf
    (n < 6 at 95 %).  The tail is summed in integers and compared
    exactly (2.0 ** n overflows a float from n = 1024)."""
    alpha = Fraction((1.0 - conf) / 2.0)
    if n < 1:
        return None
    total = 2 ** n
    tail = 1                            # P(X <= 0) * 2^n
    if Fraction(tail, total) > alpha:
        return None
    k = 1
    while k + 1 <= (n + 1) // 2:
        tail += math.comb(n, k)         # now P(X <= k) * 2^n
        if Fraction(tail, total) > alpha:
            break
        k += 1
    return k


def median(xs):
    s = sorted(xs)
    n = len(s)
    if not n:
        return None
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2.0


def median_ci(xs, conf=CONF):
    """(lo, hi): the distribution-free conf interval of the median of xs,
    None when there are too few values for one."""
    k = median_ci_rank(len(xs), conf)
    if k is None:
        return None
    s = sorted(xs)
    return (s[k - 1], s[len(s) - k])


def median_text(xs, fmt="%.2f", conf=CONF):
    """The median of xs and its interval (median_ci) as one table cell,
    each number by fmt: "0.81 [0.74, 0.86]", or "0.81 (too few rounds)"
    when the interval is undefined."""
    ci = median_ci(xs, conf)
    return (fmt % median(xs)) + (" [%s, %s]" % (fmt % ci[0], fmt % ci[1])
                                 if ci else " (too few rounds)")


def paired_ratios(a, b):
    """[(round, a[round] / b[round])] for the rounds where both a and b
    (dicts round -> seconds) have a positive value, by round."""
    out = []
    for r in sorted(set(a) & set(b)):
        x, y = a[r], b[r]
        if x is not None and y is not None and x > 0 and y > 0:
            out.append((r, x / y))
    return out


def compare(name_a, a, name_b, b, conf=CONF):
    """The comparison of b against a ({round: seconds} each):
    {"a": name_a, "b": name_b, "ratio": median of a_r/b_r or None,
     "ci95": [lo, hi] or None, "rounds": the number of paired rounds}."""
    pr = [x for _, x in paired_ratios(a, b)]
    ci = median_ci(pr, conf)
    return {"a": name_a, "b": name_b,
            "ratio": median(pr),
            "ci95": list(ci) if ci else None,
            "rounds": len(pr)}


def half_width(cmp):
    """The larger of (ratio - lo) and (hi - ratio), relative to the ratio;
    None when the interval is undefined."""
    if cmp["ci95"] is None or not cmp["ratio"]:
        return None
    lo, hi = cmp["ci95"]
    r = cmp["ratio"]
    return max(r - lo, hi - r) / r


def aa_ok(cmp):
    """Whether an A/A comparison's interval contains 1: True or False,
    None when the interval is undefined (too few rounds)."""
    if cmp["ci95"] is None:
        return None
    lo, hi = cmp["ci95"]
    return lo <= 1.0 <= hi


def name_of(cmp):
    return "%s vs %s" % (cmp["b"], cmp["a"])


def not_converged(cmps, target=TARGET):
    """The names ("B vs A") of the comparisons whose interval is
    undefined or whose half-width is above target."""
    out = []
    for c in cmps:
        hw = half_width(c)
        if hw is None or hw > target + 1e-12:
            out.append(name_of(c))
    return out


def should_stop(cmps, rounds, target=TARGET, fixed=None, max_rounds=40,
                elapsed=0.0, max_time=None, round_time=0.0):
    """After `rounds` rounds: (stop, reason).  With fixed (--runs N) stop
    at N rounds ("runs").  Else stop when every comparison has converged
    ("converged"), at once when there is no comparison (every run failed:
    "nothing-to-compare"), at max_rounds ("max-rounds"), or when another
    round (taking about round_time) would end after max_time seconds
    ("max-time")."""
    if fixed is not None:
        return (rounds >= fixed, "runs")
    if not cmps:
        return (True, "nothing-to-compare")
    if not not_converged(cmps, target):
        return (True, "converged")
    if rounds >= max_rounds:
        return (True, "max-rounds")
    if max_time is not None and elapsed + round_time > max_time:
        return (True, "max-time")
    return (False, "")


def round_order(seq, i):
    """Round i's (1-based) order of seq, [(configuration, role)] with the
    baseline twice (roles "run" and "aa"): seq rotated i - 1 places,
    and the baseline's two runs exchanging roles every other round.
    Rounds 2 L - 1 and 2 L (L = len(seq)) and every pair after them put
    each run, and each role of the baseline, at every position exactly
    twice; with a round of even length the exchange goes by the round's
    number of rotations plus its cycle, else rotation and exchange would
    stay in step (the counted run only at even positions)."""
    n = len(seq)
    t = i - 1
    k = t % n
    odd = (t + (t // n if n % 2 == 0 else 0)) % 2 == 1
    base = [c for c, role in seq if role == "aa"]
    out = []
    for cfg, role in seq[k:] + seq[:k]:
        if odd and base and cfg == base[0]:
            role = {"run": "aa", "aa": "run"}[role]
        out.append((cfg, role))
    return out


def run_rounds(do_round, comparisons, target=TARGET, fixed=None,
               max_rounds=40, max_time=None, clock=time.monotonic):
    """Runs do_round(r) for r = 1, 2, ... and after each calls
    comparisons() for the comparisons so far, until should_stop says so
    (the next round is expected to take as long as the longest so far).
    Returns {"rounds", "stopped_by", "not_converged", "target",
    "elapsed_s"}."""
    t0 = clock()
    r = 0
    longest = 0.0
    while True:
        t1 = clock()
        r += 1
        do_round(r)
        longest = max(longest, clock() - t1)
        cmps = comparisons()
        stop, why = should_stop(cmps, r, target, fixed, max_rounds,
                                clock() - t0, max_time, longest)
        if stop:
            return {"rounds": r, "stopped_by": why,
                    "not_converged": not_converged(cmps, target),
                    "target": target, "elapsed_s": round(clock() - t0, 3)}
