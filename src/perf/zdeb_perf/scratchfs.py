# SPDX-License-Identifier: GPL-2.0-or-later
"""scratchfs - the same starting state for every install run.

  ext4   (default) a fresh ext4 per run: mkfs.ext4 in an image file in the
         work directory, mounted with mount -o loop
  tmpfs  a fresh tmpfs per run: no disk, the CPU-only view
  DIR    an existing directory; before each hot run the page cache is
         dropped and the inputs are read again, so that each starts from
         the same cache state

ext4 and tmpfs need root (mount, losetup).  Every mount and loop device is
undone after each run and by cleanup(), which the driver calls on every
path out (also on an error, Ctrl-C or SIGTERM).  A SIGKILL runs no
cleanup: it can leave a mount, but the loop device has the autoclear flag
(mount -o loop sets it), so the kernel detaches it when that mount goes,
or at once if it was never mounted.
"""

import os
import shutil
import subprocess
import time

from .common import PerfError, run_quiet

# mkfs.ext4 options: every inode table and the journal written at mkfs
# time (lazy init would go on writing in the background during the
# runs), no discard of the image, and a fixed UUID and directory hash
# seed, so that every run's file system is the same.
MKFS_EXT4 = ["mkfs.ext4", "-q", "-F", "-U", "clear", "-E",
             "lazy_itable_init=0,lazy_journal_init=0,nodiscard,"
             "hash_seed=6d0a7c28-8b2f-4f4e-9a51-2b7c1e3f5d10"]
MIN_SIZE = 64 << 20


def mounted_at(path):
    """Is something mounted at path (per /proc/self/mountinfo)?"""
    path = os.path.realpath(path)
    try:
        with open("/proc/self/mountinfo") as fh:
            for ln in fh:
                f = ln.split()
                if len(f) > 4 and decode_mnt(f[4]) == path:
                    return True
    except OSError:
        pass
    return False


def decode_mnt(s):
    """A mountinfo field: octal escapes for space, tab, newline, '\\'."""
    out, i = [], 0
    while i < len(s):
        if s[i] == "\\" and i + 3 < len(s) and s[i + 1:i + 4].isdigit():
            out.append(chr(int(s[i + 1:i + 4], 8)))
            i += 4
        else:
            out.append(s[i])
            i += 1
    return "".join(out)


def image_size(tar_bytes, n_files):
    """Room for the unpacked files (a block each at least), dpkg's
    database and the journal, with a margin."""
    need = 2 * tar_bytes + 8192 * n_files + MIN_SIZE
    return (need + (1 << 20) - 1) & ~((1 << 20) - 1)


class ScratchFS:
    """fresh() gives an empty directory for one run's root; release()
    ends the run (unmounts); cleanup() undoes everything, idempotent."""

    def __init__(self, kind, work, size):
        self.kind = kind
        self.size = size
        self.mnt = None
        self.dev = None
        self.image = None
        if kind in ("ext4", "tmpfs"):
            if os.geteuid() != 0:
                raise PerfError("--fs %s needs root (mount); use --fs DIR "
                                "for an existing directory" % kind)
            tools = ["mount", "umount"]
            if kind == "ext4":
                tools += ["mkfs.ext4", "losetup"]
            for t in tools:
                if not shutil.which(t):
                    raise PerfError("--fs %s needs %s" % (kind, t))
            self.mnt = os.path.join(work, "mnt")
            os.makedirs(self.mnt, exist_ok=True)
            if kind == "ext4":
                self.image = os.path.join(work, "scratch.img")
            self.base = self.mnt
        else:
            self.base = os.path.abspath(kind)
            if not os.path.isdir(self.base):
                raise PerfError("--fs '%s': not a directory (and not ext4 "
                                "or tmpfs)" % kind)
            self.kind = "dir"
        self.info = {"kind": self.kind}

    def describe(self):
        """What the runs use: kind, commands and options, mount fields."""
        return dict(self.info)

    # one run
    def fresh(self):
        if self.kind == "ext4":
            self._mkfs()
            self._mount(["-t", "ext4", "-o", "loop", self.image, self.mnt])
            self._loop_device()
        elif self.kind == "tmpfs":
            self._mount(["-t", "tmpfs", "-o", "size=%d,mode=0755"
                         % self.size, "zdeb-perf", self.mnt])
            self.info["mkfs"] = "none"
        root = os.path.join(self.base, "zdeb-perf-root")
        if os.path.lexists(root):
            shutil.rmtree(root)
        os.makedirs(root)
        if "mount_options" not in self.info:
            self._record_mount()
        return root

    def release(self):
        """After a run: unmount and detach (ext4, tmpfs); nothing for DIR
        (the next fresh() removes the old root)."""
        if self.mnt is not None and mounted_at(self.mnt):
            self._umount()
        if self.dev is not None:
            self._wait_detached()
        if self.image is not None and os.path.exists(self.image):
            os.unlink(self.image)

    def cleanup(self):
        """release(), also when a run was interrupted; for DIR the root
        goes too."""
        try:
            self.release()
        finally:
            if self.kind == "dir":
                shutil.rmtree(os.path.join(self.base, "zdeb-perf-root"),
                              ignore_errors=True)

    # ext4 image
    def _mkfs(self):
        if os.path.exists(self.image):
            os.unlink(self.image)
        with open(self.image, "wb") as fh:
            fh.truncate(self.size)
        cmd = MKFS_EXT4 + [self.image]
        r = run_quiet(cmd)
        if r.returncode != 0:
            raise PerfError("%s failed: %s" % (" ".join(cmd),
                                               r.stderr.strip()))
        self.info["mkfs"] = " ".join(MKFS_EXT4 + ["IMAGE"])
        self.info["image_bytes"] = self.size

    def _loop_device(self):
        """The loop device mount -o loop attached (self.dev), checked: the
        autoclear flag set, and buffered (mount -o loop does not ask for
        direct I/O; turned off here should it ever come on): the image's
        pages go through the host's page cache, and a flush in the scratch
        file system (fsync) is an fsync of the image.  With direct I/O
        every write would wait for the disk, which on a shared machine is
        the other users' disk too: the runs spread twice as wide."""
        r = run_quiet(["findmnt", "-n", "-o", "SOURCE", "--mountpoint",
                       self.mnt])
        dev = r.stdout.strip() if r.returncode == 0 else ""
        if not dev.startswith("/dev/loop"):
            raise PerfError("mount -o loop %s: mounted from '%s', not a "
                            "loop device" % (self.image, dev))
        self.dev = dev
        if loop_attr(dev, "autoclear") != "1":
            raise PerfError("mount -o loop did not set the autoclear flag "
                            "on %s" % dev)
        if loop_attr(dev, "dio") != "0":
            r = run_quiet(["losetup", "--direct-io=off", dev])
            if r.returncode != 0 or loop_attr(dev, "dio") != "0":
                raise PerfError("cannot turn direct I/O off on %s: %s"
                                % (dev, r.stderr.strip()))
        self.info["loop"] = "mount -o loop (autoclear; buffered: direct " \
            "I/O off)"

    def _wait_detached(self):
        """After the umount: the kernel detaches the autoclear device at
        its last close, which may come a moment later (udev probing it);
        losetup -d if it does not."""
        dev, self.dev = self.dev, None
        for _ in range(50):
            if not self._attached(dev):
                return
            time.sleep(0.1)
        r = run_quiet(["losetup", "-d", dev])
        if self._attached(dev):
            raise PerfError("cannot detach %s: %s" % (dev, r.stderr.strip()))

    def _attached(self, dev):
        """Is dev still attached to this image?"""
        f = loop_attr(dev, "backing_file")
        return f is not None and f.split(" (deleted)")[0] == \
            os.path.realpath(self.image)

    # mounts
    def _mount(self, args):
        r = run_quiet(["mount"] + args)
        if r.returncode != 0:
            raise PerfError("mount %s failed: %s" % (" ".join(args),
                                                     r.stderr.strip()))

    def _umount(self):
        """umount, retried while busy (an interrupted dpkg's children may
        hold it a moment), then lazily as a last resort."""
        err = ""
        for _ in range(50):
            r = run_quiet(["umount", self.mnt])
            if r.returncode == 0 or not mounted_at(self.mnt):
                return
            err = r.stderr.strip()
            time.sleep(0.1)
        r = run_quiet(["umount", "-l", self.mnt])
        if r.returncode != 0:
            raise PerfError("cannot unmount %s: %s" % (self.mnt, err))

    def _record_mount(self):
        r = run_quiet(["findmnt", "-n", "-o", "SOURCE,FSTYPE,OPTIONS", "-T",
                       self.base])
        parts = r.stdout.split() if r.returncode == 0 else []
        self.info["mount_source"] = parts[0] if parts else "unknown"
        self.info["filesystem"] = parts[1] if len(parts) > 1 else "unknown"
        self.info["mount_options"] = parts[2] if len(parts) > 2 \
            else "unknown"


def loop_attr(dev, name):
    """A loop device's attribute in sysfs (autoclear, dio, backing_file),
    None when it is not attached."""
    try:
        with open("/sys/block/%s/loop/%s" % (os.path.basename(dev), name)) \
                as fh:
            return fh.read().strip()
    except OSError:
        return None


def reread(paths):
    """Reads every file (into the page cache), untimed."""
    for p in paths:
        with open(p, "rb") as fh:
            while fh.read(1 << 20):
                pass


def warm(cmds, env):
    """Runs each command once, output discarded: its binary and libraries
    come back into the page cache."""
    for c in cmds:
        subprocess.run(c, env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
