# SPDX-License-Identifier: GPL-2.0-or-later
"""cli - zdeb-perf's command line: install, levels and model."""

import argparse
import signal
import sys

from . import common
from .common import Interrupted, PerfError, split_list
from .install import ALL_BACKENDS, ALL_MODES, ALL_VARIANTS, Install
from .levels import levels_main
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
                   help="stock,zdeb (default both)")
    i.add_argument("--pairs", type=split_list, default=[],
                   metavar="VARIANT/BACKEND,...", help="only these "
                   "variant and backend pairs (default: every variant "
                   "with every backend)")
    i.add_argument("--modes", type=split_list, default=ALL_MODES,
                   help="default,unsafe-io,eatmydata (default all)")
    i.add_argument("--cache", type=split_list, default=["hot"],
                   help="hot,cold (default hot)")
    i.add_argument("--runs", type=int, default=3)
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
                   help="the configuration run first and last in each "
                   "round (default: the first configuration)")
    i.add_argument("--drift-threshold", type=float, default=10.0,
                   metavar="PCT", help="flag a round whose control's last "
                   "run differs from its first by more (default 10)")
    i.add_argument("--nice", type=int, default=0, metavar="N",
                   help="run dpkg (and its children) at nice N, e.g. -10 "
                   "to shield the runs from other work on a shared "
                   "machine (below 0 needs root)")
    i.add_argument("--overhead", action="store_true",
                   help="also run the control once per round without the "
                   "tracer, and print the tracer's overhead")
    i.add_argument("--segment-size", help="zdeb --segment-size for the "
                   "indexed, frames and pzstd variants")
    i.add_argument("--keep", action="store_true",
                   help="keep the temporary work directory")
    i.add_argument("--apt", action="store_true",
                   help="INPUTs are package names for apt-get download")
    i.add_argument("inputs", nargs="+", metavar="INPUT")
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


def on_signal(signum, frame):
    raise Interrupted(signum)


def main(argv):
    p = parser()
    a = p.parse_args(argv)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, on_signal)
    try:
        if a.cmd == "install":
            if a.runs < 1:
                raise PerfError("--runs must be at least 1")
            return Install(a).main()
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
