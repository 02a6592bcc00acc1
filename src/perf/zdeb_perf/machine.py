# SPDX-License-Identifier: GPL-2.0-or-later
"""machine - what the machine, the scratch filesystem and the libraries are,
and dropping the page cache."""

import ctypes
import ctypes.util
import os
import platform
import time

from . import common
from .common import first_line, run_quiet


def lib_version(name, func):
    try:
        path = ctypes.util.find_library(name)
        lib = ctypes.CDLL(path or ("lib%s.so" % name))
        f = getattr(lib, func)
        f.restype = ctypes.c_char_p
        return f().decode()
    except (OSError, AttributeError):
        return "unknown"


def disk_model(source):
    dev = os.path.basename(os.path.realpath(source)) if source else ""
    if not dev:
        return "not visible"
    blk = dev
    while blk and not os.path.isdir("/sys/block/" + blk):
        blk = blk[:-1]
    if not blk:
        return "not visible (%s)" % dev
    out = []
    for f in ("device/model", "device/vendor", "device/device"):
        try:
            with open("/sys/block/%s/%s" % (blk, f)) as fh:
                v = fh.read().strip()
                if v:
                    out.append("%s %s" % (f.split("/")[1], v))
        except OSError:
            pass
    try:
        with open("/sys/block/%s/queue/rotational" % blk) as fh:
            rot = "rotational" if fh.read().strip() == "1" else "non-rotational"
    except OSError:
        rot = "rotational unknown"
    if not out:
        return "%s: model not visible, %s" % (blk, rot)
    return "%s: %s, %s" % (blk, " ".join(out), rot)


def machine_info(scratch, zdeb, extra):
    m = {}
    m["cores"] = os.cpu_count()
    model = ""
    try:
        with open("/proc/cpuinfo") as fh:
            for ln in fh:
                if ln.startswith("model name"):
                    model = ln.split(":", 1)[1].strip()
                    break
        with open("/proc/meminfo") as fh:
            for ln in fh:
                if ln.startswith("MemTotal:"):
                    m["memory_kb"] = int(ln.split()[1])
    except OSError:
        pass
    m["cpu_model"] = model
    m["kernel"] = " ".join(platform.uname()[2:4])
    m["load_avg_start"] = list(os.getloadavg())
    r = run_quiet(["findmnt", "-n", "-o", "SOURCE,FSTYPE,OPTIONS", "-T",
                   scratch])
    parts = r.stdout.split() if r.returncode == 0 else []
    m["scratch"] = scratch
    m["filesystem"] = parts[1] if len(parts) > 1 else "unknown"
    m["mount_source"] = parts[0] if parts else "unknown"
    m["mount_options"] = parts[2] if len(parts) > 2 else "unknown"
    m["disk"] = disk_model(m["mount_source"])
    m["dpkg"] = first_line(["dpkg", "--version"])
    m["zdeb"] = first_line([zdeb, "--version"]) if zdeb else "none"
    m["libzstd"] = lib_version("zstd", "ZSTD_versionString")
    m["liblzma"] = lib_version("lzma", "lzma_version_string")
    m["zlib"] = lib_version("z", "zlibVersion")
    m["python"] = platform.python_version()
    m["zdeb_perf"] = common.VERSION
    m["date"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    m.update(extra)
    return m


def can_drop_caches():
    try:
        os.sync()
        with open("/proc/sys/vm/drop_caches", "w") as fh:
            fh.write("3\n")
        return True, ""
    except OSError as e:
        return False, "cannot drop caches: %s" % e.strerror


def drop_caches():
    os.sync()
    with open("/proc/sys/vm/drop_caches", "w") as fh:
        fh.write("3\n")
