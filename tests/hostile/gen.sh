#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/hostile/gen.sh ZDEB OUTDIR [GROUP...] - makes the hostile .debs the
# tests/integ/t05*-hostile-*.sh tests feed to zdeb, at test time (nothing
# binary is checked in).  GROUP: paths names container decoders index
# (default: all).  Each case is OUTDIR/CASE.deb; README-style notes are in the
# comments of the python below.  ZDEB builds the indexed zstd members (no
# other tool writes that layout); everything else comes from python3's
# tarfile, the zstd/xz/gzip CLIs and byte patching.
set -eu
ZDEB=$1
out=$2
shift 2
groups=${*:-paths names container decoders index}
export SOURCE_DATE_EPOCH=1700000000 LC_ALL=C
mkdir -p "$out"
for c in python3 zstd xz gzip; do
	command -v "$c" >/dev/null 2>&1 || { echo "gen.sh: $c missing" >&2; exit 77; }
done
ZDEB="$ZDEB" OUT="$out" GROUPS="$groups" python3 - <<'PY'
import io, os, struct, subprocess, tarfile

out = os.environ["OUT"]
groups = os.environ["GROUPS"].split()
ZDEB = os.environ["ZDEB"]
MTIME = 1700000000

# --- building blocks --------------------------------------------------

def ar_header(name, size, trailer=b"`\n", size_field=None):
    f = (size_field if size_field is not None else str(size)).encode()
    h = (name.encode().ljust(16) + str(MTIME).encode().ljust(12) +
         b"0".ljust(6) + b"0".ljust(6) + b"100644".ljust(8) +
         f.ljust(10) + trailer)
    assert len(h) == 60, h
    return h

def ar(members, magic=b"!<arch>\n"):
    """members: (name, bytes) or raw bytes to splice in as they are."""
    b = bytearray(magic)
    for m in members:
        if isinstance(m, (bytes, bytearray)):
            b += m
            continue
        name, data = m
        b += ar_header(name, len(data)) + data
        if len(data) & 1:
            b += b"\n"
    return bytes(b)

def tar(entries, fmt=tarfile.GNU_FORMAT, owner="root"):
    """entries: list of (kind, name, arg, mode); kind reg/dir/sym/hard/chr/fifo."""
    bio = io.BytesIO()
    t = tarfile.open(fileobj=bio, mode="w", format=fmt)
    for kind, name, arg, mode in entries:
        i = tarfile.TarInfo(name)
        i.mtime = MTIME
        i.mode = mode
        i.uname = i.gname = owner
        data = None
        if kind == "reg":
            data = arg
            i.size = len(data)
        elif kind == "dir":
            i.type = tarfile.DIRTYPE
        elif kind == "sym":
            i.type = tarfile.SYMTYPE
            i.linkname = arg
        elif kind == "hard":
            i.type = tarfile.LNKTYPE
            i.linkname = arg
        elif kind == "chr":
            i.type = tarfile.CHRTYPE
            i.devmajor, i.devminor = arg
        elif kind == "fifo":
            i.type = tarfile.FIFOTYPE
        t.addfile(i, io.BytesIO(data) if data is not None else None)
    t.close()
    return bio.getvalue()

def compress(tool, data, *opts):
    return subprocess.run([tool, "-c", *opts], input=data, check=True,
                          stdout=subprocess.PIPE).stdout

CONTROL = (b"Package: hostile\nVersion: 1.0\nArchitecture: all\n"
           b"Maintainer: zdeb tests <tests@example.org>\n"
           b"Description: hostile test package\n")
CONTROL_TAR = tar([("dir", "./", None, 0o755),
                   ("reg", "./control", CONTROL, 0o644)])
CONTROL_ZST = compress("zstd", CONTROL_TAR, "-q")
CONTROL_XZ = compress("xz", CONTROL_TAR)

def deb(data_name, data, control=("control.tar.zst", CONTROL_ZST),
        version=b"2.0\n"):
    return ar([("debian-binary", version), control, (data_name, data)])

def save(name, blob):
    with open(os.path.join(out, name + ".deb"), "wb") as f:
        f.write(blob)

def save_raw(name, blob):
    with open(os.path.join(out, name), "wb") as f:
        f.write(blob)

GOOD = [("dir", "./", None, 0o755), ("dir", "./usr/", None, 0o755),
        ("reg", "./usr/ok", b"fine\n", 0o644)]

def path_deb(name, entries):
    save(name, deb("data.tar.zst", compress("zstd", tar(GOOD + entries), "-q")))

# --- paths: members that would escape DIR -----------------------------

if "paths" in groups:
    path_deb("dotdot", [("reg", "../escaped", b"pwned\n", 0o644)])
    path_deb("dotdot-mid", [("reg", "./a/../../escaped", b"pwned\n", 0o644)])
    path_deb("absolute", [("reg", "/tmp/zdeb-hostile-absolute", b"pwned\n",
                           0o644)])
    # A symlink to the parent of DIR, then a file written through it.
    path_deb("symlink-write", [("sym", "./l", "..", 0o777),
                               ("reg", "./l/escaped", b"pwned\n", 0o644)])
    # A symlink to outside, then a hardlink through it to a file there.
    path_deb("symlink-hardlink", [("sym", "./l", "..", 0o777),
                                  ("hard", "./h", "./l/victim", 0o644)])
    path_deb("hardlink-outside", [("hard", "./h", "../victim", 0o644)])
    path_deb("hardlink-later", [("hard", "./h", "./usr/later", 0o644),
                                ("reg", "./usr/later", b"x\n", 0o644)])
    path_deb("device", [("chr", "./dev-null", (1, 3), 0o666)])
    path_deb("fifo", [("fifo", "./fifo", None, 0o644)])
    path_deb("setuid", [("reg", "./usr/suid", b"#!/bin/sh\n", 0o4755),
                        ("reg", "./usr/sgid", b"#!/bin/sh\n", 0o2755)])

# --- names: as long as GNU tar takes them, and one byte longer ----------
#
# GNU tar 1.34 (dpkg-deb -x) fails with "File name too long" on a name or
# link target of 4096 bytes (PATH_MAX with its NUL) and extracts 4095.
# Each case also as names-CASE.tar, GNU tar's input for the reference.

if "names" in groups:
    def exactly(prefix, tail, n):
        """prefix repeated, then tail: n bytes in all."""
        s = prefix * ((n - len(tail)) // len(prefix)) + tail
        assert len(s) == n, (len(s), n)
        return s
    DIRS = GOOD + [("dir", "./usr/bin/", None, 0o755)]
    cases = {
        # the demonstration: normalizes to usr/bin/foobarbaz
        "name-4097": [("reg", "./" * 2040 + "usr/bin/foobarbaz", b"x\n",
                       0o644)],
        "name-4096": [("reg", exactly("./", "usr/bin/foobarbazq", 4096),
                       b"x\n", 0o644)],
        "name-4095": [("reg", exactly("./", "usr/bin/foobarbaz", 4095),
                       b"x\n", 0o644)],
        "symlink-4096": [("sym", "./usr/bin/s", exactly("a/", "xy", 4096),
                          0o777)],
        "symlink-4095": [("sym", "./usr/bin/s", exactly("a/", "x", 4095),
                          0o777)],
        "hardlink-4096": [("hard", "./usr/bin/h",
                           exactly("./", "usr/ok", 4096), 0o644)],
        "hardlink-4095": [("hard", "./usr/bin/h",
                           exactly("./", "/usr/ok", 4095), 0o644)],
    }
    for name, entries in cases.items():
        t = tar(DIRS + entries)
        save_raw("names-%s.tar" % name, t)
        save("names-" + name, deb("data.tar.zst", compress("zstd", t, "-q")))
    # owner and group names of 100 bytes (pax): listed whole
    t = tar(DIRS + [("reg", "./usr/owned", b"x\n", 0o644)],
            fmt=tarfile.PAX_FORMAT, owner="u" * 100)
    save_raw("names-owner-100.tar", t)
    save("names-owner-100", deb("data.tar.zst", compress("zstd", t, "-q")))

# --- container: the ar layer -------------------------------------------

if "container" in groups:
    data = compress("zstd", tar(GOOD), "-q")
    good = deb("data.tar.zst", data)
    save("ar-magic", b"!<arcX>\n" + good[8:])
    # Second header (control.tar.zst) at offset 8 + 60 + 4 = 72.
    hdr = 72
    save("ar-size-nondecimal",
         good[:hdr + 48] + b"12a".ljust(10) + good[hdr + 58:])
    save("ar-size-beyond",
         good[:hdr + 48] + b"99999999".ljust(10) + good[hdr + 58:])
    save("ar-trailer", good[:hdr + 58] + b"`X" + good[hdr + 60:])
    save("ar-truncated-header", good[:hdr + 30])
    save("order", ar([("debian-binary", b"2.0\n"), ("data.tar.zst", data),
                      ("control.tar.zst", CONTROL_ZST)]))
    save("first-member", ar([("control.tar.zst", CONTROL_ZST),
                             ("debian-binary", b"2.0\n"),
                             ("data.tar.zst", data)]))
    save("dup-control", ar([("debian-binary", b"2.0\n"),
                            ("control.tar.zst", CONTROL_ZST),
                            ("control.tar.xz", CONTROL_XZ),
                            ("data.tar.zst", data)]))
    save("missing-data", ar([("debian-binary", b"2.0\n"),
                             ("control.tar.zst", CONTROL_ZST)]))
    save("version-3", deb("data.tar.zst", data, version=b"3.0\n"))

# --- decoders: truncated members, windows, bombs ------------------------

if "decoders" in groups:
    body = bytes((i * 7919 + (i >> 9)) & 0xFF for i in range(200000))
    text = b"".join(b"line %d of a hostile package\n" % i
                    for i in range(20000))
    t = tar(GOOD + [("reg", "./usr/body", body, 0o644),
                    ("reg", "./usr/text", text, 0o644)])
    save_raw("truncated.tar", t)
    for tool, ext in (("zstd", "zst"), ("xz", "xz"), ("gzip", "gz")):
        c = compress(tool, t, *(["-q"] if tool == "zstd" else []))
        for pct in (10, 50, 90):
            save("truncated-%s-%d" % (ext, pct),
                 deb("data.tar." + ext, c[:len(c) * pct // 100]))
        save("truncated-%s-last" % ext, deb("data.tar." + ext, c[:-1]))
    # A valid frame declaring a 2 GiB window (Window_Descriptor
    # exponent 21): a raw last block carrying a small tar.
    small = tar(GOOD)
    frame = (struct.pack("<I", 0xFD2FB528) + bytes([0x00, 21 << 3]) +
             struct.pack("<I", (len(small) << 3) | 1)[:3] + small)
    save("window-2g", deb("data.tar.zst", frame))
    # 1 GiB of zeros in one member: a few tens of KiB compressed, under
    # the default cap; 2 GiB (67 KiB compressed) over it.  From a pipe, as
    # zstd -T4 made the review's: no content size in the frame header.
    def zeros_member(mib):
        info = tarfile.TarInfo("./zeros")
        info.size = mib << 20
        info.mtime = MTIME
        p = subprocess.Popen(["zstd", "-q", "-1", "-c"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        import threading
        res = []
        th = threading.Thread(target=lambda: res.append(p.stdout.read()))
        th.start()
        p.stdin.write(info.tobuf(tarfile.GNU_FORMAT))
        zero = bytes(1 << 20)
        for _ in range(mib):
            p.stdin.write(zero)
        p.stdin.write(bytes(1024))
        p.stdin.close()
        th.join()
        p.wait()
        return res[0]
    save("bomb", deb("data.tar.zst", zeros_member(1024)))
    save("bomb-2g", deb("data.tar.zst", zeros_member(2048)))

# --- index: a damaged zdeb index, corrupted segments ---------------------

def xxh32(data, seed=0):
    P1, P2, P3, P4, P5 = (2654435761, 2246822519, 3266489917, 668265263,
                          374761393)
    M = 0xFFFFFFFF
    rotl = lambda x, r: ((x << r) | (x >> (32 - r))) & M
    n = len(data)
    i = 0
    if n >= 16:
        v = [(seed + P1 + P2) & M, (seed + P2) & M, seed & M,
             (seed - P1) & M]
        while i + 16 <= n:
            for k in range(4):
                w = struct.unpack_from("<I", data, i + 4 * k)[0]
                v[k] = (rotl((v[k] + w * P2) & M, 13) * P1) & M
            i += 16
        h = (rotl(v[0], 1) + rotl(v[1], 7) + rotl(v[2], 12) +
             rotl(v[3], 18)) & M
    else:
        h = (seed + P5) & M
    h = (h + n) & M
    while i + 4 <= n:
        h = (rotl((h + struct.unpack_from("<I", data, i)[0] * P3) & M, 17)
             * P4) & M
        i += 4
    while i < n:
        h = (rotl((h + data[i] * P5) & M, 11) * P1) & M
        i += 1
    h ^= h >> 15
    h = (h * P2) & M
    h ^= h >> 13
    h = (h * P3) & M
    h ^= h >> 16
    return h

def xxh64(data, seed=0):
    P1, P2, P3 = (11400714785074694791, 14029467366897019727,
                  1609587929392839161)
    P4, P5 = 9650029242287828579, 2870177450012600261
    M = (1 << 64) - 1
    rotl = lambda x, r: ((x << r) | (x >> (64 - r))) & M
    rnd = lambda a, w: (rotl((a + w * P2) & M, 31) * P1) & M
    def merge(h, v):
        return (((h ^ rnd(0, v)) * P1) + P4) & M
    n = len(data)
    i = 0
    if n >= 32:
        v = [(seed + P1 + P2) & M, (seed + P2) & M, seed & M,
             (seed - P1) & M]
        while i + 32 <= n:
            for k in range(4):
                v[k] = rnd(v[k], struct.unpack_from("<Q", data, i + 8 * k)[0])
            i += 32
        h = (rotl(v[0], 1) + rotl(v[1], 7) + rotl(v[2], 12) +
             rotl(v[3], 18)) & M
        for k in range(4):
            h = merge(h, v[k])
    else:
        h = (seed + P5) & M
    h = (h + n) & M
    while i + 8 <= n:
        h = ((rotl(h ^ rnd(0, struct.unpack_from("<Q", data, i)[0]), 27)
              * P1) + P4) & M
        i += 8
    if i + 4 <= n:
        h = ((rotl(h ^ (struct.unpack_from("<I", data, i)[0] * P1 & M), 23)
              * P2) + P3) & M
        i += 4
    while i < n:
        h = (rotl(h ^ (data[i] * P5 & M), 11) * P1) & M
        i += 1
    h ^= h >> 33
    h = (h * P2) & M
    h ^= h >> 29
    h = (h * P3) & M
    h ^= h >> 32
    return h

def varint(v):
    b = bytearray()
    while True:
        c = v & 0x7F
        v >>= 7
        b.append(c | (0x80 if v else 0))
        if not v:
            return bytes(b)

def get_varint(b, pos):
    v = shift = 0
    while True:
        c = b[pos]
        pos += 1
        v |= (c & 0x7F) << shift
        shift += 7
        if not c & 0x80:
            return v, pos

def parse_index(payload):
    """Returns the fixed fields and records of an index payload."""
    fixed = payload[:8]
    pos = 8
    content, pos = get_varint(payload, pos)
    segs, pos = get_varint(payload, pos)
    nrec, pos = get_varint(payload, pos)
    recs = []
    for _ in range(nrec):
        cs, pos = get_varint(payload, pos)
        us, pos = get_varint(payload, pos)
        ns, pos = get_varint(payload, pos)
        h = payload[pos:pos + 8]
        pos += 8
        recs.append([cs, us, ns, h])
    return bytearray(fixed), content, segs, recs

def build_index(fixed, content, segs, recs, nrec=None):
    p = bytearray(fixed) + varint(content) + varint(segs) + \
        varint(len(recs) if nrec is None else nrec)
    for cs, us, ns, h in recs:
        p += varint(cs) + varint(us) + varint(ns) + h
    p += struct.pack("<I", xxh32(bytes(p)))
    return p

if "index" in groups:
    import shutil, tempfile
    d = tempfile.mkdtemp()
    try:
        root = os.path.join(d, "tree")
        os.makedirs(os.path.join(root, "DEBIAN"))
        os.makedirs(os.path.join(root, "usr/share/doc/hostile"))
        with open(os.path.join(root, "DEBIAN/control"), "wb") as f:
            f.write(CONTROL)
        for k in range(6):
            with open(os.path.join(root, "usr/share/doc/hostile/f%d" % k),
                      "wb") as f:
                f.write(b"".join(b"file %d line %d\n" % (k, i)
                                 for i in range(3000)))
        debp = os.path.join(d, "good.deb")
        subprocess.run([ZDEB, "build", "-T", "1", "-z", "3",
                        "--layout", "indexed", "--segment-size", "16K",
                        root, debp], check=True, stdout=subprocess.DEVNULL)
        good = open(debp, "rb").read()
    finally:
        shutil.rmtree(d)
    save("index-good", good)
    # Locate data.tar.zst and its index frame (the ar members are
    # debian-binary, control.tar.zst, data.tar.zst).
    pos = 8
    while True:
        name = good[pos:pos + 16].rstrip(b" /").decode()
        size = int(good[pos + 48:pos + 58])
        if name == "data.tar.zst":
            break
        pos += 60 + size + (size & 1)
    doff, dlen = pos + 60, size
    member = good[doff:doff + dlen]
    ix = member.rfind(struct.pack("<I", 0x184D2A5B))
    assert ix > 0 and member[ix + 8:ix + 12] == b"ZDXI"
    frame, payload = member[:ix], member[ix + 8:]
    fixed, content, segs, recs = parse_index(payload[:-4])
    assert len(recs) >= 3, "need several segments"

    def with_member(name, m):
        save(name, good[:pos] + ar_header("data.tar.zst", len(m)) + m +
             (b"\n" if len(m) & 1 else b""))

    def with_index(name, p, size=None):
        hdr = struct.pack("<II", 0x184D2A5B,
                          len(p) if size is None else size)
        with_member(name, frame + hdr + bytes(p))

    def variant(name, **kw):
        f = bytearray(fixed)
        c, s, r = content, segs, [list(x) for x in recs]
        for k, v in kw.items():
            if k == "fixed":
                f[v[0]] = v[1]
            elif k == "content":
                c += v
            elif k == "segs":
                s += v
            elif k == "rec":
                i, field, delta = v
                r[i][field] += delta
                j = i + 1           # keep the sums equal
                r[j][field] -= delta
            elif k == "hash":
                r[v][3] = bytes(8)
        with_index(name, build_index(f, c, s, r))

    # Each field, with the check value recomputed so that the field's
    # own check fires.
    variant("index-magic", fixed=(3, ord("J")))
    variant("index-version", fixed=(4, 3))
    variant("index-flags", fixed=(5, 1))
    variant("index-window", fixed=(6, fixed[6] + 1))
    variant("index-header-size", fixed=(7, fixed[7] + 1))
    variant("index-content-size", content=1)
    variant("index-segments", segs=1)
    variant("index-record-csize", rec=(0, 0, 1))
    variant("index-record-usize", rec=(0, 1, 1))
    variant("index-record-nseg", rec=(0, 2, 1))
    with_index("index-record-count",
               build_index(fixed, content, segs, recs, nrec=len(recs) + 1))
    # The check value itself, and the frame size field.
    bad = bytearray(payload)
    bad[-1] ^= 0xFF
    with_index("index-check", bad)
    with_index("index-frame-size", payload, size=len(payload) - 5)
    # A record hash that does not match its bytes: an error.
    variant("index-hash", hash=1)
    # The index and the frame header claim 200 MiB more than record 0
    # decodes to: the claim must not make the decoder hold more memory
    # than its budget, and the lie is an error.
    big = 200 << 20
    f2 = bytearray(frame)
    assert f2[4] >> 6 == 2 and fixed[7] == 10   # 4-byte content size
    struct.pack_into("<I", f2, 6, struct.unpack_from("<I", f2, 6)[0] + big)
    r = [list(x) for x in recs]
    r[0][1] += big
    p = build_index(fixed, content + big, segs, r)
    with_member("index-usize-huge", bytes(f2) +
                struct.pack("<II", 0x184D2A5B, len(p)) + bytes(p))
    # The same with 40 MiB, a size a piece is decoded in place at: its
    # buffer gets pages as bytes come, not as many as the claim.
    mid = 40 << 20
    f3 = bytearray(frame)
    struct.pack_into("<I", f3, 6, struct.unpack_from("<I", f3, 6)[0] + mid)
    r = [list(x) for x in recs]
    r[0][1] += mid
    p = build_index(fixed, content + mid, segs, r)
    with_member("index-usize-big", bytes(f3) +
                struct.pack("<II", 0x184D2A5B, len(p)) + bytes(p))
    # Corrupted compressed bytes in the middle of segment 1.
    seg1 = fixed[7] + recs[0][0]
    m = bytearray(member)
    m[seg1 + recs[1][0] // 2] ^= 0x55
    with_member("segment-corrupt", bytes(m))
    # The expected tar of index-good, for comparing outputs.
    save_raw("index-good.tar", subprocess.run(
        [ZDEB, "cat-data", debp if False else os.path.join(out,
         "index-good.deb")], check=True, stdout=subprocess.PIPE).stdout)
    # xxh64() against the hashes zdeb wrote, segment by segment.
    tar = open(os.path.join(out, "index-good.tar"), "rb").read()
    at = 0
    for cs, us, ns, h in recs:
        assert struct.pack("<Q", xxh64(tar[at:at + us])) == h, "xxh64"
        at += us

    # Bytes that end like a reset without being its blocks: segment 0 a
    # raw block and then F alone (no R8, R4 before it), or A's 10 bytes
    # inside the raw block and then B; segment 1 a match at repeat code
    # 3, offset 8 in a fresh frame, what segment 0 left in one pass.  The
    # index (version 2) has each segment's hash decoded on its own, the
    # frame checksum is of the one-pass bytes (zstd -d, dpkg-deb), and
    # the two differ: refused, never either's bytes with exit 0.
    A = bytes.fromhex("3c0000000154000300 0b".replace(" ", ""))
    B = bytes.fromhex("3c000000025400020 01c".replace(" ", ""))
    F = bytes.fromhex("3c0000000154000200 04".replace(" ", ""))
    def fake_reset(name, raw, tail, alone0, whole):
        seg0 = bytes([len(raw) << 3 & 0xFF, len(raw) >> 5, 0]) + raw + tail
        seg1 = bytes([17 << 3 | 2 << 1 | 1, 0, 0, 10 << 3]) + \
            b"ABCDEFGHIJ" + bytes([1, 0x54, 10, 1, 0, 3])
        alone1 = b"ABCDEFGHIJCDE"
        assert whole[:len(alone0)] == alone0 and whole != alone0 + alone1
        hdr = struct.pack("<IBB", 0xFD2FB528, 0x84, 0) + \
            struct.pack("<I", len(whole))
        frame = hdr + seg0 + seg1 + \
            struct.pack("<I", xxh64(whole) & 0xFFFFFFFF)
        p = build_index(b"ZDXI" + bytes([2, 0, 10, len(hdr)]),
                        len(whole), 2,
                        [[len(seg0), len(alone0), 1,
                          struct.pack("<Q", xxh64(alone0))],
                         [len(seg1), len(alone1), 1,
                          struct.pack("<Q", xxh64(alone1))]])
        with_member(name, frame + struct.pack("<II", 0x184D2A5B, len(p)) +
                    bytes(p))
    raw = b"0123456789abcdez"
    # F: a match of 3 at offset 1; the offsets then {1, 1, 4}: repeat 3
    # is offset 4 in one pass
    fake_reset("index-reset-f-alone", raw, F, raw + b"zzz",
               raw + b"zzz" + b"ABCDEFGHIJ" + b"GHI")
    # B: a match of 3 at offset 4, then 3 at offset 1; the offsets then
    # {1, 4, 1}
    rawa = raw + A
    b_out = bytearray(rawa)
    for d in (4, 1):
        for _ in range(3):
            b_out.append(b_out[-d])
    fake_reset("index-reset-pair-in-raw", rawa, B, bytes(b_out),
               bytes(b_out) + b"ABCDEFGHIJ" + b"JJJ")
PY
