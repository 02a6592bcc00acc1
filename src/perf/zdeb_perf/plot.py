# SPDX-License-Identifier: GPL-2.0-or-later
"""plot - gnuplot drawings: the install breakdown as stacked bars, and the
level sweep as size against time."""

import os
import shutil
import subprocess
import tempfile

from .common import PerfError
from .iotrace import BREAKDOWN_KEYS


def gnuplot_term(path):
    if path.endswith(".svg"):
        return "svg size 1400,720 dynamic font 'sans,11'"
    if path.endswith(".png"):
        return "pngcairo size 1400,720 font 'sans,10'"
    raise PerfError("--plot wants a .svg or .png file name")


def run_gnuplot(script, path):
    if not shutil.which("gnuplot"):
        raise PerfError("--plot needs gnuplot (gnuplot-nox)")
    r = subprocess.run(["gnuplot"], input=script, universal_newlines=True,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if r.returncode != 0 or not os.path.isfile(path) or \
            os.path.getsize(path) == 0:
        if path.endswith(".png") and "pngcairo" in script:
            return run_gnuplot(script.replace("pngcairo", "png"), path)
        raise PerfError("gnuplot failed: %s" % r.stderr.strip()[-300:])


# One colour per stage of BREAKDOWN_KEYS, in order (gnuplot's default
# cycle has 8, so with 15 stages two stages shared each colour).
STAGE_COLOURS = ["#9400d3", "#009e73", "#56b4e9", "#e69f00", "#f0e442",
                 "#0072b2", "#e51e10", "#000000", "#cc79a7", "#8b4513",
                 "#a0a0a0", "#00ced1", "#bdb76b", "#4682b4", "#ff69b4"]


def plot_install(rows, path, m):
    term = gnuplot_term(path)
    tmp = tempfile.NamedTemporaryFile("w", suffix=".dat", delete=False)
    with tmp:
        tmp.write("label " + " ".join(BREAKDOWN_KEYS) + " elapsed\n")
        for r in rows:
            lab = "%s/%s/%s%s" % (r["variant"], r["backend"], r["mode"],
                                  "" if r["cache"] == "hot" else "/cold")
            if r["n_ok"] == 0:
                lab += "(FAILED)"
                tmp.write('"%s" %s NaN\n' % (lab, " ".join(
                    ["0"] * len(BREAKDOWN_KEYS))))
            else:
                tmp.write('"%s" %s %.4f\n' % (lab, " ".join(
                    "%.4f" % r[k] for k in BREAKDOWN_KEYS), r["elapsed"]))
    title = ("dpkg --%s of %s: where the wall time goes (median)\\n"
             "%s cores, %s (%s)" % (
                 m.get("action", "unpack"),
                 ",".join(i.split("_")[0] for i in m.get("inputs", []))[:80],
                 m["cores"], m["filesystem"], m["disk"][:100]))
    cols = ", ".join("'%s' using %d%s lc rgb '%s' title '%s'"
                     % (tmp.name, i + 2, ":xtic(1)" if i == 0 else "",
                        STAGE_COLOURS[i], k[:-2])
                     for i, k in enumerate(BREAKDOWN_KEYS))
    cols += (", '%s' using ($0):%d with points pt 7 ps 0.8 lc rgb 'black' "
             "title 'elapsed (median)'" % (tmp.name, len(BREAKDOWN_KEYS) + 2))
    script = """set terminal %s
set output '%s'
set title "%s"
set termoption noenhanced
set style data histograms
set style histogram rowstacked
set style fill solid 0.85 border -1
set boxwidth 0.75
set key outside right top
set ylabel 'seconds (wall)'
set xtics rotate by -50 font ',8' nomirror
set grid ytics
set yrange [0:*]
plot %s
""" % (term, path, title, cols)
    try:
        run_gnuplot(script, path)
    finally:
        os.unlink(tmp.name)


def plot_levels(rows, comps, shapes, path, work):
    plots = []
    for shape in shapes:
        series = []
        for c in comps:
            dat = os.path.join(work, "%s-%s.dat" % (c, shape.replace(
                "/", "_")))
            with open(dat, "w") as fh:
                for r in rows:
                    if r["compressor"] == c and r["shape"] == shape:
                        fh.write("%f %f %s\n" % (
                            r["comp_ms"], r["size_bytes"] / 1024.0,
                            r["level"]))
            series.append("'%s' using 1:2 with linespoints title '%s', "
                          "'%s' using 1:2:3 with labels offset 0.6,0.5 "
                          "font ',7' notitle" % (dat, c, dat))
        plots.append("set title '%s'\nplot %s\n" % (shape, ", ".join(
            series)))
    ncol = 2 if len(shapes) > 1 else 1
    nrow = (len(shapes) + ncol - 1) // ncol
    script = """set terminal %s
set output '%s'
set termoption noenhanced
set multiplot layout %d,%d title 'compressed size vs compression time per level'
set logscale x
set xlabel 'compression time (ms, log)'
set ylabel 'size (KiB)'
set grid
set key top right
%s
unset multiplot
""" % (gnuplot_term(path), path, nrow, ncol, "".join(plots))
    run_gnuplot(script, path)
