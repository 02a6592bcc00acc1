# SPDX-License-Identifier: GPL-2.0-or-later
"""iotrace - zdeb-iotrace.so's records and the breakdown of one install.

Pure functions of their arguments (and, for parse_trace, of one file):
unit-tested by tests/unit/check-perf-iotrace.py.
"""

BREAKDOWN_KEYS = ["decode_s", "tar_s", "md5_s", "cpu_s", "wait_s",
                  "write_s", "fsync_s", "rename_s", "open_s", "dir_s",
                  "meta_s", "dbwrite_s", "db_s", "exec_s", "other_s"]

# The tracer's call categories behind each measured stage, summed over
# all processes.  A call on dpkg's database is in "dbwrite" only (the
# tracer files it there), so the stages are disjoint.
STAGE_CATS = {
    "write_s": ["write_reg"],
    "fsync_s": ["fsync"],
    "rename_s": ["rename"],
    "open_s": ["open", "close", "link"],
    "dir_s": ["mkdir", "rmdir", "unlink"],
    "meta_s": ["stat", "chmod", "chown", "utime"],
    "dbwrite_s": ["dbwrite"],
}
TRACED_CATS = [c for cats in STAGE_CATS.values() for c in cats]


def parse_trace(path):
    recs = []
    try:
        with open(path) as fh:
            for ln in fh:
                r = {}
                for kv in ln.split():
                    k, _, v = kv.partition("=")
                    r[k] = int(v) if v.isdigit() else v
                if "pid" in r:
                    recs.append(r)
    except OSError:
        pass
    return recs


def union_len(intervals):
    total, end = 0, None
    for a, b in sorted(intervals):
        if end is None or a > end:
            total += b - a
            end = b
        elif b > end:
            total += b - end
            end = b
    return total


def main_dpkg_pid(recs):
    """The pid of the dpkg that unpacked the data (read a stream), if any."""
    main_pid = None
    for r in recs:
        if r.get("exe") == "dpkg" and r.get("stream_n", 0) > 0:
            main_pid = r["pid"]
    return main_pid


def breakdown(elapsed, recs, main_pid, stages):
    """Attributes the elapsed wall time of one install; see zdeb-perf(1).

    dpkg is single-threaded and is the critical path, so the parts are
    disjoint slices of dpkg's timeline:
      decode_s   dpkg blocked reading the data pipe (decode not hidden
                 behind dpkg's own work; includes reading the archive)
      tar_s      tar header parsing, from the stage run (tar -t)
      md5_s      md5 of the file contents, from the stage run
      cpu_s      dpkg's CPU time in the streams outside its wrapped
                 calls (thread CPU clock), minus tar_s and md5_s: its
                 own per-file work
      wait_s     dpkg's wall time in the streams outside its calls
                 minus that CPU time: not running there (waiting for a
                 CPU the decoder or other work holds, page faults)
      write_s    write(2) family on regular files, all processes
      fsync_s    fsync, fdatasync, sync_file_range, syncfs
      rename_s   rename family
      open_s     file creation and open: open family, close, link, symlink
      dir_s      directory work: mkdir, rmdir, unlink
      meta_s     metadata: stat family, access, readlink, chmod, chown,
                 the utimes family
      dbwrite_s  every writing call on dpkg's database directory
      db_s       dpkg's time outside the data streams minus the calls
                 above done there: loading the database, the control
                 area, triggers, cleanup
      exec_s     elapsed minus dpkg's life: starting the process (and
                 the eatmydata wrapper), loading it, exiting
      other_s    elapsed minus the rest: where the tar and md5
                 estimates or calls of other processes overlap, what the
                 model gets wrong; 0 when everything adds up
    The measured stages (write_s to dbwrite_s) sum the calls of all
    processes.  Returns (breakdown dict, detail dict).
    """
    ns = 1e-9
    dpkg = [r for r in recs if r.get("pid") == main_pid]
    if not dpkg:
        dpkg = sorted((r for r in recs if r.get("exe") == "dpkg"),
                      key=lambda r: r["start_ns"] - r["end_ns"])[:1]
    d = dpkg[0] if dpkg else None

    def tot(key):
        return sum(r.get(key, 0) for r in recs) * ns

    def cnt(key):
        return sum(r.get(key, 0) for r in recs)

    measured = {k: sum(tot(c + "_ns") for c in cats)
                for k, cats in STAGE_CATS.items()}
    if d is not None:
        life = (d["end_ns"] - d["start_ns"]) * ns
        stream = d.get("stream_ns", 0) * ns
        decode_s = d.get("read_pipe_ns", 0) * ns
        io_in = sum(d.get(c + "_in_ns", 0) for c in TRACED_CATS) * ns
        io_out = sum(measured.values()) - io_in
        db_s = max(0.0, life - stream - io_out)
        # The stream's wall time between the calls, and how much of it
        # dpkg was on a CPU (its thread CPU time less the calls').
        between = max(0.0, stream - decode_s - io_in)
        on_cpu = (d.get("stream_cpu_ns", 0) -
                  d.get("stream_call_cpu_ns", 0)) * ns
        on_cpu = min(max(0.0, on_cpu), between)
        cpu_s = max(0.0, on_cpu - stages["tar_s"] - stages["md5_s"])
        wait_s = between - on_cpu
        exec_s = max(0.0, elapsed - life)
    else:
        life = stream = decode_s = db_s = cpu_s = wait_s = exec_s = 0.0
    b = {"decode_s": decode_s, "tar_s": stages["tar_s"],
         "md5_s": stages["md5_s"], "cpu_s": cpu_s, "wait_s": wait_s}
    b.update(measured)
    b["db_s"] = db_s
    b["exec_s"] = exec_s
    parts = sum(b.values())
    other = elapsed - parts
    det = {"dpkg_life_s": life, "stream_s": stream,
           "stream_utime_s": d.get("stream_utime_us", 0) * 1e-6
           if d is not None else 0.0,
           "stream_cpu_s": d.get("stream_cpu_ns", 0) * ns
           if d is not None else 0.0,
           "stream_call_cpu_s": d.get("stream_call_cpu_ns", 0) * ns
           if d is not None else 0.0,
           "stream_preempted_n": d.get("stream_nivcsw", 0)
           if d is not None else 0,
           "fsys_tarfile_wall_s": union_len(
               [(r["start_ns"] * ns, r["end_ns"] * ns)
                for r in recs if r.get("fsys") == 1]),
           "open_s": tot("open_ns"), "close_s": tot("close_ns"),
           "unlink_s": tot("unlink_ns"), "open_n": cnt("open_n"),
           "fsync_n": cnt("fsync_n"), "rename_n": cnt("rename_n"),
           "write_reg_mb": cnt("write_reg_bytes") / 1e6,
           "read_archive_s": tot("read_archive_ns"),
           "write_pipe_s": tot("write_pipe_ns"),
           "processes": len(recs),
           "calls": {c: {"n": cnt(c + "_n"), "s": round(tot(c + "_ns"), 6)}
                     for c in TRACED_CATS},
           "overlap_note": ""}
    if d is None:
        det["overlap_note"] = "no iotrace record from dpkg"
    if other < -1e-6:
        det["overlap_note"] = ("parts exceed elapsed by %.3f s "
                               "(stage estimates); other_s clamped to 0"
                               % -other)
    other = max(0.0, other)
    b["other_s"] = other
    return {k: round(v, 6) for k, v in b.items()}, det
