# SPDX-License-Identifier: GPL-2.0-or-later
"""common - errors, process helpers and where zdeb and the tracer live.

The launcher (src/perf/zdeb-perf.in) calls configure() with what
configure substituted into it, and the directory it runs from.
"""

import os
import shutil
import signal
import statistics
import subprocess
import sys
import time

VERSION = "@VERSION@"
PKGLIBDIR = "@pkglibdir@"
BINDIR = "@bindir@"
SCRIPTDIR = os.path.dirname(os.path.abspath(__file__))


def configure(version, pkglibdir, bindir, scriptdir):
    """Sets the substituted paths and the launcher's directory."""
    global VERSION, PKGLIBDIR, BINDIR, SCRIPTDIR
    VERSION = version
    PKGLIBDIR = pkglibdir
    BINDIR = bindir
    SCRIPTDIR = scriptdir


class PerfError(Exception):
    """A fatal error: printed as 'zdeb-perf: error: ...', exit 2."""


def note(msg):
    print("zdeb-perf: " + msg, file=sys.stderr, flush=True)


def here():
    return SCRIPTDIR


def find_zdeb():
    """$ZDEB, the build tree (src/perf/../zdeb), @bindir@, then PATH."""
    cands = [os.environ.get("ZDEB", ""),
             os.path.join(here(), "..", "zdeb"),
             os.path.join(BINDIR, "zdeb") if "@" not in BINDIR else "",
             shutil.which("zdeb") or ""]
    for c in cands:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return os.path.abspath(c)
    raise PerfError("cannot find the zdeb binary (set ZDEB)")


def find_iotrace():
    """$ZDEB_IOTRACE_SO, next to the launcher (build tree), @pkglibdir@."""
    cands = [os.environ.get("ZDEB_IOTRACE_SO", ""),
             os.path.join(here(), "zdeb-iotrace.so"),
             os.path.join(PKGLIBDIR, "zdeb-iotrace.so")
             if "@" not in PKGLIBDIR else ""]
    for c in cands:
        if c and os.path.isfile(c):
            return os.path.abspath(c)
    return None


def run_quiet(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, **kw)


def first_line(cmd):
    try:
        r = run_quiet(cmd)
        out = (r.stdout or r.stderr).strip().splitlines()
        return out[0] if out else ""
    except OSError:
        return ""


class Interrupted(BaseException):
    """SIGTERM or SIGHUP, raised where the program is, so that every
    cleanup (finally) runs as for Ctrl-C."""

    def __init__(self, signum):
        BaseException.__init__(self, signum)
        self.signum = signum


def timed(cmd, env=None, stdin=None, stdout=None, stderr=None, cwd=None,
          new_session=False, nice=0):
    """Runs cmd; returns (status, wall_s, rusage) from os.wait4.  With
    new_session, cmd and its children form a process group of their own,
    killed as a whole if the wait is interrupted (Ctrl-C, SIGTERM), so
    that none is left using the scratch file system.  A nice value other
    than 0 is set in the child before it executes cmd; with autogroup
    scheduling it is also the nice value of the child's new session,
    without which it would count only against the session's own tasks."""
    def set_nice():
        os.setpriority(os.PRIO_PROCESS, 0, nice)
        if new_session:
            try:
                with open("/proc/self/autogroup", "w") as fh:
                    fh.write("%d\n" % nice)
            except OSError:
                pass

    t0 = time.monotonic()
    p = subprocess.Popen(cmd, env=env, stdin=stdin, stdout=stdout,
                         stderr=stderr, cwd=cwd,
                         start_new_session=new_session,
                         preexec_fn=set_nice if nice else None)
    try:
        _, status, ru = os.wait4(p.pid, 0)
    except BaseException:
        try:
            if new_session:
                os.killpg(p.pid, signal.SIGKILL)
            else:
                p.kill()
        except OSError:
            pass
        p.wait()
        raise
    t1 = time.monotonic()
    p.returncode = os.waitstatus_to_exitcode(status)
    return p.returncode, t1 - t0, ru


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def fmt_s(x, w=6):
    return ("%*.2f" % (w, x)) if x is not None else "%*s" % (w, "-")


def split_list(s):
    return [x for x in s.split(",") if x]


def check_round_args(a):
    """The options of the rounds and the quiet gate (install and apt):
    PerfError unless --runs, --target, --max-rounds, --max-time and
    --max-load are positive and --quiet-wait and --max-others not
    negative."""
    if a.runs is not None and a.runs < 1:
        raise PerfError("--runs must be at least 1")
    if a.target <= 0 or a.max_rounds < 1 or a.max_time <= 0 or \
            a.quiet_wait < 0 or a.max_others < 0 or \
            (a.max_load is not None and a.max_load <= 0):
        raise PerfError("--target, --max-rounds, --max-time and "
                        "--max-load must be positive, --quiet-wait "
                        "and --max-others not negative")
