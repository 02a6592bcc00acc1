#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/ubuntu-2018.sh [--runs auto|N] [--cache DIR] [--fs ext4|tmpfs|DIR]
#                      [--modes LIST] [--only LIST] [--nice N] [--zdeb PATH]
#                      [--allow-loaded]
#
# Ubuntu's 2018 announcement of zstd for dpkg published xz -> zstd install
# times (plain dpkg -i and under eatmydata) for three big packages, and
# where a kernel install's cycles went.  This fetches the Debian 12
# counterparts with apt-get download (the image package linux-image-amd64
# depends on, firefox-esr, libreoffice-core) into CACHE (default
# /var/tmp/zdeb-ubuntu-2018, reused), and unpacks each with zdeb-perf
# install (dpkg --unpack on a fresh ext4 per run, in rounds until every
# ratio's 95 % interval is within 5 %, or N rounds; zdeb-perf's quiet gate
# waits for a quiet machine unless --allow-loaded):
# stock dpkg-deb on xz -6 and on zstd -19, and zdeb as dpkg-deb on zstd
# -19 in the indexed layout, plain and under eatmydata; plus one perf
# sample per variant.  It prints, per package, elapsed, user, sys, %CPU
# and max RSS per variant and mode beside Ubuntu's 2018 figures, the
# speed-up ratios with their 95 % intervals, the A/A row, and the share
# of the codec library in the samples.
#
# The packages' maintainer scripts are removed first: dpkg runs them
# without a chroot here, and the kernel's would work on this machine's
# /lib/modules and /boot.  Ubuntu's times include them (update-initramfs
# for the kernel), ours do not.  --only takes some of kernel, firefox,
# libreoffice.  dpkg runs at nice -10 (--nice): the machines this was
# written on are shared.  Needs root (mount, apt-get).  Not a test.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
runs=auto
allow=
cache=/var/tmp/zdeb-ubuntu-2018
fs=ext4
modes=default,eatmydata
only="kernel firefox libreoffice"
nice=-10
zdeb=${ZDEB:-$top/_build/src/zdeb}
while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=$2; shift 2;;
	--cache) cache=$2; shift 2;;
	--fs) fs=$2; shift 2;;
	--modes) modes=$2; shift 2;;
	--only) only=${2//,/ }; shift 2;;
	--nice) nice=$2; shift 2;;
	--zdeb) zdeb=$2; shift 2;;
	--allow-loaded) allow=--allow-loaded; shift;;
	-h|--help) sed -n '3,28p' "$0"; exit 0;;
	*) echo "unknown option: $1" >&2; exit 2;;
	esac
done
perf=${ZDEB_PERF:-$(dirname "$zdeb")/perf/zdeb-perf}
[ -x "$zdeb" ] || { echo "zdeb not built: $zdeb (run tools/test or tools/demo)" >&2; exit 2; }
[ -x "$perf" ] || { echo "zdeb-perf not built: $perf" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "needs root (apt-get download, mount)" >&2; exit 2; }
export ZDEB=$zdeb
mkdir -p "$cache/debs" "$cache/trees" "$cache/noscripts" "$cache/work" \
	"$cache/out"
cache=$(cd "$cache" && pwd)

# The Debian 12 counterparts of Ubuntu's three packages.
kernel=$(apt-cache depends linux-image-amd64 |
	awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
[ -n "$kernel" ] || { echo "cannot resolve linux-image-amd64" >&2; exit 2; }
declare -A PKG=([kernel]=$kernel [firefox]=firefox-esr
	[libreoffice]=libreoffice-core)
# Ubuntu 2018: name, then xz and zstd seconds, plain and eatmydata ("-":
# not published).
declare -A U_PLAIN_XZ=([kernel]=- [firefox]=37.17 [libreoffice]=88.34)
declare -A U_PLAIN_ZSTD=([kernel]=- [firefox]=33.14 [libreoffice]=78.04)
declare -A U_EMD_XZ=([kernel]=12.57 [firefox]=12.43 [libreoffice]=27.45)
declare -A U_EMD_ZSTD=([kernel]=7.07 [firefox]=8.54 [libreoffice]=17.70)

# fetch NAME: the .deb of package NAME in $cache/debs, downloaded once.
fetch() {
	local f
	f=$(find "$cache/debs" -maxdepth 1 -name "${1}_*.deb" | sort | tail -1)
	if [ -z "$f" ]; then
		(cd "$cache/debs" && apt-get download "$1" >&2)
		f=$(find "$cache/debs" -maxdepth 1 -name "${1}_*.deb" | sort | tail -1)
	fi
	[ -n "$f" ] || { echo "apt-get download $1 gave nothing" >&2; exit 2; }
	echo "$f"
}

# noscripts DEB: the package without maintainer scripts, uncompressed
# (zdeb-perf makes the variants from it), made once.
noscripts() {
	local t out
	t=$cache/trees/$(basename "$1" .deb)
	out=$cache/noscripts/$(basename "$1")
	if [ ! -f "$out" ]; then
		rm -rf "$t"
		dpkg-deb -R "$1" "$t"
		rm -f "$t"/DEBIAN/{preinst,postinst,prerm,postrm,config}
		"$zdeb" build -Znone "$t" "$out.tmp" >&2
		mv "$out.tmp" "$out"
		rm -rf "$t"
	fi
	echo "$out"
}

load() { cut -d' ' -f1-3 /proc/loadavg; }
echo "bench/ubuntu-2018.sh: $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p' | head -1)"
lscpu | grep -E '^L[123][di]? cache' | sed 's/  */ /g' | paste -sd';' -
echo "zdeb $("$zdeb" --version | head -1 | cut -d' ' -f2); $(dpkg --version | head -1); load average $(load) at start"
echo "zdeb-perf install --runs $runs${allow:+ $allow} --fs $fs --modes $modes --nice $nice, variants xz -6 and zstd -19 with stock dpkg-deb, zstd -19 indexed with zdeb as dpkg-deb; maintainer scripts removed"

for name in $only; do
	[ -n "${PKG[$name]:-}" ] || { echo "--only: unknown '$name'" >&2; exit 2; }
	deb=$(fetch "${PKG[$name]}")
	nd=$(noscripts "$deb")
	echo "== $name: $(basename "$deb"), load average $(load)" >&2
	"$perf" install --runs "$runs" ${allow:+"$allow"} --fs "$fs" \
		--modes "$modes" --nice "$nice" \
		--variants xz,zstd-single,zstd-indexed --backends stock,zdeb \
		--pairs xz/stock,zstd-single/stock,zstd-indexed/zdeb --perf \
		--workdir "$cache/work/$name" --json "$cache/out/$name.json" \
		--details "$cache/out/$name.details.json" "$nd" \
		>"$cache/out/$name.txt"
done

# The table: ours beside Ubuntu's.
python3 - "$cache/out" "$only" "$(declare -p U_PLAIN_XZ U_PLAIN_ZSTD \
	U_EMD_XZ U_EMD_ZSTD)" <<'PY'
import json, os, re, statistics, sys
out, names, decl = sys.argv[1], sys.argv[2].split(), sys.argv[3]
ub = {}
for var, body in re.findall(r"declare -A (\w+)=\((.*?)\)", decl):
    ub[var] = dict(re.findall(r"\[(\w+)\]=\"?([-0-9.]+)\"?", body))
LABEL = {("xz", "stock"): "xz -6, stock dpkg-deb",
         ("zstd-single", "stock"): "zstd -19, stock dpkg-deb",
         ("zstd-indexed", "zdeb"): "zstd -19 indexed, zdeb"}
MODE = {"default": "plain", "eatmydata": "eatmydata", "unsafe-io": "unsafe-io"}
UBK = {("default", "xz-stock"): "U_PLAIN_XZ",
       ("default", "zstd-single-stock"): "U_PLAIN_ZSTD",
       ("eatmydata", "xz-stock"): "U_EMD_XZ",
       ("eatmydata", "zstd-single-stock"): "U_EMD_ZSTD"}
med = statistics.median
for name in names:
    d = json.load(open(os.path.join(out, name + ".json")))
    det = json.load(open(os.path.join(out, name + ".details.json")))
    m = d["machine"]
    rd = d["rounds"]
    g = d["gate"]
    nrun = rd["rounds"]
    print("\n### %s: %s, %.1f MB of tar; median of %d rounds [min-max]; "
          "load %.2f at start%s%s"
          % (name, m["inputs"][0], m["tar_bytes"] / 1e6, nrun,
             m["load_avg_start"][0],
             "; LOADED (a round started with other work running)"
             if m["loaded"] else "",
             "; LOADED RUNS KEPT (--allow-loaded)" if g["allow_loaded"]
             else ""))
    cmp = {(c["a"], c["b"]): c for c in d["comparisons"]}

    def ci(c):
        if c is None or c["ratio"] is None:
            return "-"
        return "%.2fx [%s]" % (c["ratio"], "%.2f-%.2f" % tuple(c["ci95"])
                               if c["ci95"] else "undefined")
    print("| mode | variant | elapsed s | user s | sys s | %CPU | "
          "max RSS MB | Ubuntu 2018 s |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    modes = []
    for r in d["runs"]:
        if r["mode"] not in modes:
            modes.append(r["mode"])
    for mode in modes:
        for (v, b), lab in LABEL.items():
            rs = [r for r in d["runs"] if r["variant"] == v and
                  r["backend"] == b and r["mode"] == mode and
                  r["role"] == "run" and r["status"] == "ok" and
                  not r["discarded"]]
            u = ub.get(UBK.get((mode, "%s-%s" % (v, b)), ""), {}).get(
                name, "")
            if not rs:
                print("| %s | %s | FAILED | | | | | %s |"
                      % (MODE[mode], lab, u))
                continue
            e = [r["elapsed_s"] for r in rs]
            print("| %s | %s | %.2f [%.2f-%.2f]%s | %.2f | %.2f | %.0f | "
                  "%.0f | %s |" % (
                      MODE[mode], lab, med(e), min(e), max(e),
                      " !" if any(r["loaded"] for r in rs) else "",
                      med([r["user_s"] for r in rs]),
                      med([r["sys_s"] for r in rs]),
                      med([r["cpu_pct"] for r in rs]),
                      med([r["max_rss_kb"] for r in rs]) / 1024, u))
        ux = ub.get(UBK.get((mode, "xz-stock"), ""), {}).get(name, "-")
        uz = ub.get(UBK.get((mode, "zstd-single-stock"), ""), {}).get(
            name, "-")
        uratio = "%.2fx" % (float(ux) / float(uz)) \
            if ux not in ("", "-") and uz not in ("", "-") else "-"

        def ratio(b):
            return ci(cmp.get(("xz/stock/%s/hot" % mode, b % mode)))
        print("| %s | speed-up xz / zstd, xz / zdeb indexed (95 %% "
              "interval) | %s, %s | | | | | %s |"
              % (MODE[mode], ratio("zstd-single/stock/%s/hot"),
                 ratio("zstd-indexed/zdeb/%s/hot"), uratio))
    aa = d["aa"]
    print("\nA/A (%s against itself): %s%s; %d rounds (%s%s)" % (
        aa["a"], ci(aa), "" if aa["contains_1"] else
        " NOT TRUSTWORTHY" if aa["contains_1"] is False else
        " (too few rounds)", nrun, rd["stopped_by"],
        "; not converged: " + ", ".join(rd["not_converged"])
        if rd["not_converged"] else ""))
    shares = {(p["variant"], p["backend"]): p["shares_pct"]
              for p in det.get("perf", [])}
    if shares:
        s = []
        for (v, b), lab in LABEL.items():
            sh = shares.get((v, b))
            if sh:
                lib = "liblzma" if v == "xz" else "libzstd"
                extra = " + zdeb %.1f %%" % sh["zdeb"] if b == "zdeb" else ""
                s.append("%s: %s %.1f %%%s" % (lab, lib, sh[lib], extra))
        print("\nShare of cpu-clock samples in the codec library (one "
              "sampled %s run each): %s." % (MODE[modes[0]], "; ".join(s)))
    else:
        print("\nperf: %s" % m["perf"])
print("\nUbuntu 2018, kernel install: liblzma 54.8 % of the cycles with xz,"
      " libzstd 11.0 % with zstd; user time about halved.")
print("Ubuntu's times include the maintainer scripts; ours do not (dpkg "
      "--unpack without them).  Speed-ups: the median of per-round ratios "
      "with its 95 %% interval (zdeb-perf(1)).  '!': loaded runs kept "
      "(--allow-loaded); see %s/<package>.txt for the full tables." % out)
PY
echo "load average $(load) at end"
