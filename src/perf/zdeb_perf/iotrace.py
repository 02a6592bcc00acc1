# SPDX-License-Identifier: GPL-2.0-or-later
"""iotrace - zdeb-iotrace.so's records and the breakdown of one install.

Pure functions of their arguments (and, for parse_trace, of one file):
unit-tested by tests/unit/check-perf-iotrace.py.
"""

BREAKDOWN_KEYS = ["decode_s", "tar_s", "md5_s", "write_s", "fsync_s",
                  "rename_s", "db_s", "other_s"]


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
      decode_s  dpkg blocked reading the data pipe (decode not hidden
                behind dpkg's own work; includes reading the archive)
      tar_s     tar header parsing, from the stage run (tar -t)
      md5_s     md5 of the file contents, from the stage run (hashlib)
      write_s   write(2) family on regular files, all processes
      fsync_s   fsync, fdatasync, sync_file_range, syncfs, all processes
      rename_s  rename family, all processes
      db_s      dpkg's time outside the data streams minus the I/O above
                done there: database, control area, triggers, cleanup
      other_s   elapsed minus the rest: exec, open/close/unlink/mkdir/
                chmod/utime, pipe copies, anything the model misses
    Returns (breakdown dict, detail dict).
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

    write_s = tot("write_reg_ns")
    fsync_s = tot("fsync_ns")
    rename_s = tot("rename_ns")
    if d is not None:
        life = (d["end_ns"] - d["start_ns"]) * ns
        stream = d.get("stream_ns", 0) * ns
        decode_s = d.get("read_pipe_ns", 0) * ns
        io_in = (d.get("write_reg_in_ns", 0) + d.get("fsync_in_ns", 0) +
                 d.get("rename_in_ns", 0)) * ns
        io_out = write_s + fsync_s + rename_s - io_in
        db_s = max(0.0, life - stream - io_out)
    else:
        life = stream = decode_s = db_s = 0.0
    b = {"decode_s": decode_s, "tar_s": stages["tar_s"],
         "md5_s": stages["md5_s"], "write_s": write_s, "fsync_s": fsync_s,
         "rename_s": rename_s, "db_s": db_s}
    parts = sum(b.values())
    other = elapsed - parts
    det = {"dpkg_life_s": life, "stream_s": stream,
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
           "overlap_note": ""}
    if d is None:
        det["overlap_note"] = "no iotrace record from dpkg"
    if other < 0:
        det["overlap_note"] = ("parts exceed elapsed by %.3f s "
                               "(stage estimates); other_s clamped to 0"
                               % -other)
        other = 0.0
    b["other_s"] = other
    return {k: round(v, 6) for k, v in b.items()}, det
