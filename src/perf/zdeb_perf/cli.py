# SPDX-License-Identifier: GPL-2.0-or-later
"""cli - zdeb-perf's command line: install, apt, levels and model."""

import argparse
import signal
import sys

from . import common
from .common import Interrupted, PerfError, check_round_args, split_list
from .install import ALL_BACKENDS, ALL_MODES, ALL_VARIANTS, Install
from .levels import levels_main
from . import apt as apt_cmd
from .model import add_parser as add_model_parser, model_main


def parser():
    p = argparse.ArgumentParser(prog="zdeb-perf", description=(
        "Where the time of a real dpkg install goes, per compression layout,"
        " and a compression level sweep.  See zdeb-perf(1)."))
    p.add_argument("--version", action="version",
                   version="zdeb-perf " + common.VERSION)
    sub = p.add_subparsers(dest="cmd")
    i = sub.add_parser("install", help="time real dpkg installs per layout")
    i.add_argument("--variants", type=split_list, default=ALL_VARIANTS,
                   help="comma list (default: %s)" % ",".join(ALL_VARIANTS))
    i.add_argument("--backends", type=split_list, default=ALL_BACKENDS,
                   help="stock,zdeb (default both); zdeb-tN or zdeb-tall: "
                   "zdeb with ZDEB_DPKG_DEB_THREADS=N or all")
    i.add_argument("--pairs", type=split_list, default=[],
                   metavar="VARIANT/BACKEND,...", help="only these "
                   "variant and backend pairs (default: every variant "
                   "with every backend)")
    i.add_argument("--modes", type=split_list, default=ALL_MODES,
                   help="default,unsafe-io,eatmydata (default all)")
    i.add_argument("--cache", type=split_list, default=["hot"],
                   help="hot,cold (default hot)")
    i.add_argument("--runs", type=runs_arg, default=None,
                   metavar="auto|N", help="rounds: auto (default) adds "
                   "rounds until every comparison's 95 %% interval is "
                   "within --target, N runs exactly N")
    i.add_argument("--target", type=float, default=5.0, metavar="PCT",
                   help="--runs auto stops when every interval's "
                   "half-width is at most PCT %% of its ratio (default 5)")
    i.add_argument("--max-rounds", type=int, default=40, metavar="N",
                   help="--runs auto stops after N rounds (default 40)")
    i.add_argument("--max-time", type=float, default=1200.0, metavar="S",
                   help="--runs auto starts no round that would end more "
                   "than S seconds after the first began (default 1200)")
    i.add_argument("--max-load", type=float, default=None, metavar="L",
                   help="the quiet gate's threshold: a 1-minute load (before"
                   " the first round) and busy cores (before every round) "
                   "below L (default 0.25 per core)")
    i.add_argument("--quiet-wait", type=float, default=120.0, metavar="S",
                   help="wait at most S seconds per round for a quiet "
                   "machine (default 120)")
    i.add_argument("--max-others", type=float, default=10.0, metavar="PCT",
                   help="discard (and redo) a run during which other "
                   "processes took more than PCT %% of a core (default 10)")
    i.add_argument("--allow-loaded", action="store_true",
                   help="do not wait for a quiet machine and keep loaded "
                   "runs; the table's header says so")
    i.add_argument("--action", choices=["unpack", "install"],
                   default="unpack", help="dpkg --unpack (default) or -i")
    i.add_argument("--json")
    i.add_argument("--csv")
    i.add_argument("--plot", help="stacked bars, F.svg or F.png")
    i.add_argument("--details", help="JSON with stage runs, iotrace "
                   "totals per run and perf shares")
    i.add_argument("--perf", action="store_true",
                   help="one extra perf-record run per variant x backend")
    i.add_argument("--workdir", help="keep variants and tars here (reused)")
    i.add_argument("--fs", default="ext4", metavar="ext4|tmpfs|DIR",
                   help="scratch file system for the install roots: a "
                   "fresh ext4 image per run (default), a fresh tmpfs per "
                   "run, or an existing directory")
    i.add_argument("--scratch", dest="fs", metavar="DIR",
                   help="the same as --fs DIR")
    i.add_argument("--control", metavar="VARIANT/BACKEND/MODE",
                   help="the baseline: every comparison is against it, "
                   "and it runs twice per round for the A/A row (default:"
                   " the first configuration)")
    i.add_argument("--nice", type=int, default=0, metavar="N",
                   help="run dpkg (and its children) at nice N, e.g. -10 "
                   "to shield the runs from other work on a shared "
                   "machine (below 0 needs root)")
    i.add_argument("--overhead", action="store_true",
                   help="also run the baseline once per round without the "
                   "tracer, and print the tracer's overhead")
    i.add_argument("--segment-size", help="zdeb --segment-size for the "
                   "indexed, frames and pzstd variants")
    i.add_argument("--keep", action="store_true",
                   help="keep the temporary work directory")
    i.add_argument("--apt", action="store_true",
                   help="INPUTs are package names for apt-get download")
    i.add_argument("inputs", nargs="+", metavar="INPUT")
    ap = sub.add_parser("apt", help="time a whole apt-get install in a "
                        "fresh minbase chroot")
    ap.add_argument("--set", default=apt_cmd.DEFAULT_SET,
                    help="a named package set: %s (default %s); PKG "
                    "names replace it" % (", ".join(sorted(apt_cmd.SETS)),
                                          apt_cmd.DEFAULT_SET))
    ap.add_argument("--sources", type=split_list,
                    default=apt_cmd.ALL_SOURCES,
                    help="debian,zdeb (default both)")
    ap.add_argument("--backends", type=split_list,
                    default=apt_cmd.ALL_BACKENDS,
                    help="stock,zdeb (default both)")
    ap.add_argument("--modes", type=split_list, default=apt_cmd.ALL_MODES,
                    help="plain,eatmydata (default both)")
    ap.add_argument("--baseline", metavar="SOURCE/BACKEND/MODE",
                    help="what every configuration is compared with, run "
                    "twice a round for the A/A row (default: the first, "
                    "debian/stock/plain)")
    ap.add_argument("--runs", type=runs_arg, default=None,
                    metavar="auto|N", help="rounds: auto (default) adds "
                    "rounds until every comparison's 95 %% interval is "
                    "within --target, N runs exactly N")
    ap.add_argument("--target", type=float, default=5.0, metavar="PCT",
                    help="--runs auto stops when every interval's "
                    "half-width is at most PCT %% (default 5)")
    ap.add_argument("--max-rounds", type=int, default=20, metavar="N",
                    help="--runs auto stops after N rounds (default 20)")
    ap.add_argument("--max-time", type=float, default=7200.0, metavar="S",
                    help="--runs auto starts no round that would end more "
                    "than S seconds after the first began (default 7200)")
    ap.add_argument("--max-load", type=float, default=None, metavar="L",
                    help="the quiet gate's threshold, as for install "
                    "(default 0.25 per core)")
    ap.add_argument("--quiet-wait", type=float, default=120.0, metavar="S",
                    help="wait at most S seconds per round for a quiet "
                    "machine (default 120)")
    ap.add_argument("--max-others", type=float, default=10.0, metavar="PCT",
                    help="discard (and redo) a run during which other "
                    "processes took more than PCT %% of a core (default 10)")
    ap.add_argument("--allow-loaded", action="store_true",
                    help="do not wait for a quiet machine and keep loaded "
                    "runs; the table's header says so")
    ap.add_argument("--fs", default="ext4", metavar="ext4|tmpfs",
                    help="scratch file system per run (default ext4)")
    ap.add_argument("--nice", type=int, default=0, metavar="N")
    ap.add_argument("--json")
    ap.add_argument("--workdir", help="keep the repositories and the "
                    "prepared chroots here (reused)")
    ap.add_argument("--keep", action="store_true",
                    help="keep the temporary work directory")
    ap.add_argument("packages", nargs="*", metavar="PKG")
    lv = sub.add_parser("levels", help="compression level sweep")
    lv.add_argument("--compressors", type=split_list,
                    default=["gzip", "xz", "zstd"])
    lv.add_argument("--shapes", type=split_list,
                    default=["text", "incompressible", "mixed", "tar"])
    lv.add_argument("--size", type=float, default=2.0,
                    help="MiB per generated input (default 2)")
    lv.add_argument("--runs", type=int, default=1)
    lv.add_argument("--csv")
    lv.add_argument("--json")
    lv.add_argument("--plot")
    lv.add_argument("files", nargs="*", metavar="FILE")
    add_model_parser(sub, split_list)
    return p


def runs_arg(s):
    """--runs: "auto" (None) or a count."""
    if s == "auto":
        return None
    try:
        return int(s)
    except ValueError:
        raise argparse.ArgumentTypeError("'%s' is not auto or a number" % s)


def on_signal(signum, frame):
    raise Interrupted(signum)


def main(argv):
    p = parser()
    a = p.parse_args(argv)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, on_signal)
    try:
        if a.cmd == "install":
            check_round_args(a)
            return Install(a).main()
        if a.cmd == "apt":
            if a.fs not in ("ext4", "tmpfs"):
                raise PerfError("--fs must be ext4 or tmpfs")
            return apt_cmd.Apt(a).main()
        if a.cmd == "levels":
            if a.runs < 1 or a.size <= 0:
                raise PerfError("--runs and --size must be positive")
            return levels_main(a)
        if a.cmd == "model":
            if a.runs < 1 or a.sink_mib < 1:
                raise PerfError("--runs and --sink-mib must be positive")
            return model_main(a)
        p.print_help(sys.stderr)
        return 2
    except PerfError as e:
        print("zdeb-perf: error: %s" % e, file=sys.stderr)
        return 2
    except OSError as e:
        print("zdeb-perf: error: %s%s" % (
            e.strerror or e, " '%s'" % e.filename if e.filename else ""),
            file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("zdeb-perf: interrupted", file=sys.stderr)
        return 128 + signal.SIGINT
    except Interrupted as e:
        print("zdeb-perf: interrupted (signal %d)" % e.signum,
              file=sys.stderr)
        return 128 + e.signum
