# SPDX-License-Identifier: GPL-2.0-or-later
"""zdeb_perf - the modules of zdeb-perf(1), run by the zdeb-perf launcher.

  cli       the command line: install and levels
  install   the install driver: inputs, variants, backends, the rounds
            of runs with the baseline twice (the A/A row)
  stats     paired comparisons: median of per-round ratios, its
            distribution-free 95 % interval, the A/A check, when to stop
  gate      the quiet gate: wait for a quiet machine, others' CPU per run
  scratchfs the scratch file system of each run: ext4 image, tmpfs, DIR
  stages    the stage runs (tar -t, md5, --fsys-tarfile) and perf shares
  iotrace   parsing zdeb-iotrace.so's records and the breakdown (pure)
  report    the comparisons, the summary table, JSON, CSV and details
  plot      gnuplot drawings of install and levels results
  levels    the compression level sweep
  machine   what the machine, its filesystem and libraries are
  common    errors, process helpers, where zdeb and the tracer are

Python 3 standard library only.
"""
