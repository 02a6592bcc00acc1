# SPDX-License-Identifier: GPL-2.0-or-later
# lib.sh - shared by the integration tests (sourced).
# Provides: $ZDEB, a scratch dir $T (removed on exit), make_tree, manifest,
# fail/skip/pass helpers.  Exit 77 = skip.
set -eu

: "${ZDEB:?ZDEB must point to the zdeb binary}"
export LC_ALL=C
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-1700000000}
T=$(mktemp -d "${TMPDIR:-/tmp}/zdeb-integ.XXXXXX")
trap 'rm -rf "$T"' EXIT
ntests=0

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*" >&2; exit 77; }
ok() { ntests=$((ntests + 1)); echo "ok $ntests - $*"; }
need() {
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || skip "$c not installed"
	done
}

# Runs a command expecting exit status $1; stderr saved in $T/stderr.
expect_status() {
	want=$1; shift
	set +e
	"$@" >"$T/stdout" 2>"$T/stderr"
	got=$?
	set -e
	[ "$got" -eq "$want" ] ||
		fail "'$*' exited $got, expected $want; stderr: $(cat "$T/stderr")"
}

# Asserts stderr of the last expect_status contains a string.
expect_stderr() {
	grep -qF -- "$1" "$T/stderr" ||
		fail "stderr lacks '$1': $(cat "$T/stderr")"
}

# make_tree DIR [NAME] - a package tree with every kind of entry the
# tests need: regular files (empty, large, setuid), nested and empty dirs,
# symlinks (one sorting before its target, one dangling), hardlinks, a
# path longer than 100 bytes, a conffile, maintainer scripts.
make_tree() {
	d=$1; name=${2:-zdeb-test}
	mkdir -p "$d/DEBIAN" "$d/etc/zdeb-test" "$d/usr/bin" \
	         "$d/usr/share/doc/$name" "$d/usr/share/empty" "$d/var/lib/x"
	cat >"$d/DEBIAN/control" <<CTL
Package: $name
Version: 1:1.2-3
Architecture: all
Maintainer: zdeb tests <tests@example.org>
Installed-Size: 100
Description: zdeb integration test package
 A package made by tests/integ/lib.sh, with symlinks, hardlinks,
 long names and a conffile.
CTL
	echo /etc/zdeb-test/conf >"$d/DEBIAN/conffiles"
	printf '#!/bin/sh\nexit 0\n' >"$d/DEBIAN/postinst"
	chmod 0755 "$d/DEBIAN/postinst"
	echo "key = value" >"$d/etc/zdeb-test/conf"
	printf '#!/bin/sh\necho hello\n' >"$d/usr/bin/hello"
	chmod 0755 "$d/usr/bin/hello"
	cp "$d/usr/bin/hello" "$d/usr/bin/setuid-tool"
	chmod 4755 "$d/usr/bin/setuid-tool"
	: >"$d/usr/share/doc/$name/empty"
	seq 1 20000 >"$d/usr/share/doc/$name/numbers.txt"
	head -c 300000 /dev/urandom >"$d/usr/share/doc/$name/random.bin"
	ln "$d/usr/share/doc/$name/numbers.txt" "$d/usr/share/doc/$name/hardlink.txt"
	ln -s hello "$d/usr/bin/a-link-to-hello"
	ln -s /nonexistent/target "$d/usr/bin/dangling"
	long="$d/usr/share/doc/$name/a-directory-with-a-rather-long-name-to-push-the-path/over-one-hundred-bytes-for-gnu-longlink"
	mkdir -p "$long"
	echo long >"$long/file-with-a-long-name.txt"
	ln -s "file-with-a-long-name.txt" "$long/symlink-with-long-target-name-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	touch -d @1500000000 "$d/usr/share/doc/$name/numbers.txt"
}

# manifest DIR - one line per entry: path type mode size sha256 linktarget
# (mtimes left out: dpkg and tar set them; hardlinks show as files).
manifest() {
	(cd "$1" && find . -mindepth 1 ! -path './DEBIAN*' | sort) |
		manifest_paths "$1"
}

# manifest_paths DIR - manifest's lines for the paths ("./x", one per line
# on stdin) under DIR, "PATH missing" for those not there.
manifest_paths() {
	while IFS= read -r p; do
		q=$1/$p
		if [ -L "$q" ]; then
			printf '%s l %s\n' "$p" "$(readlink "$q")"
		elif [ -d "$q" ]; then
			printf '%s d %s\n' "$p" "$(stat -c %a "$q")"
		elif [ -e "$q" ]; then
			printf '%s f %s %s %s\n' "$p" "$(stat -c %a "$q")" \
			       "$(stat -c %s "$q")" "$(sha256sum <"$q" | cut -c1-64)"
		else
			printf '%s missing\n' "$p"
		fi
	done
}

# init_dpkg_root DIR - an empty dpkg database for --root installs.
init_dpkg_root() {
	mkdir -p "$1/var/lib/dpkg/updates" "$1/var/lib/dpkg/info" \
	         "$1/var/lib/dpkg/triggers"
	: >"$1/var/lib/dpkg/status"
	: >"$1/var/lib/dpkg/available"
}

# dpkg_install ROOT DEB - install with the system dpkg into ROOT.
dpkg_install() {
	dpkg --root="$1" --admindir="$1/var/lib/dpkg" --force-not-root \
	     --force-script-chrootless --force-unsafe-io \
	     --log=/dev/null -i "$2"
}

# frames_control DIR NAME [LINES] - DIR/DEBIAN/control of package NAME
# with LINES description lines (to move what follows it in control.tar),
# and a postinst that leaves $DPKG_ROOT/postinst-NAME-ran: it ran.
frames_control() {
	mkdir -p "$1/DEBIAN"
	{
		printf 'Package: %s\nVersion: 1.0\nArchitecture: all\n' "$2"
		printf 'Maintainer: zdeb tests <tests@example.org>\n'
		printf 'Installed-Size: 1\nDescription: frames test\n'
		i=0
		while [ $i -lt "${3:-0}" ]; do
			printf ' line %04d of the long description\n' $i
			i=$((i + 1))
		done
	} >"$1/DEBIAN/control"
	printf '#!/bin/sh\nset -e\ntouch "$DPKG_ROOT/postinst-%s-ran"\n' "$2" \
		>"$1/DEBIAN/postinst"
	chmod 0755 "$1/DEBIAN/postinst"
}

# make_mib_tree DIR NAME - package NAME whose usr/share/p/a.txt ends at
# data.tar offset 1 MiB, the next member's header (zdeb's tar order), and
# a compressible rest: a zstd frame cut at 1 MiB leaves stock dpkg-deb's
# copy into its decompressor no broken pipe, which would fail anyway.
make_mib_tree() {
	frames_control "$1" "$2"
	mkdir -p "$1/usr/share/p"
	head -c $((1048576 - 2560)) /dev/urandom >"$1/usr/share/p/a.txt"
	echo b >"$1/usr/share/p/b.txt"
	echo c >"$1/usr/share/p/c.txt"
	head -c 200000 /dev/zero >"$1/usr/share/p/d.txt"
}

# zeros_deb OUT MIB - a valid .deb whose data.tar.zst (one zstd frame, no
# content size: made from a pipe) holds ./zeros of MIB MiB; control.tar,
# data.tar.zst and debian-binary are left in $T.
zeros_deb() {
	python3 - "$T" "$2" <<'PY'
import io, os, subprocess, sys, tarfile
d, mib = sys.argv[1], int(sys.argv[2])
def tar(members):
    b = io.BytesIO()
    t = tarfile.open(fileobj=b, mode="w", format=tarfile.GNU_FORMAT)
    for i, data in members:
        t.addfile(i, io.BytesIO(data) if data else None)
    t.close()
    return b.getvalue()
ctl = b"Package: zeros\nVersion: 1\nArchitecture: all\n" \
      b"Maintainer: zdeb tests <tests@example.org>\nDescription: zeros\n"
i = tarfile.TarInfo("./control"); i.size = len(ctl); i.mtime = 1700000000
open(os.path.join(d, "control.tar"), "wb").write(tar([(i, ctl)]))
i = tarfile.TarInfo("./zeros"); i.size = mib << 20; i.mtime = 1700000000
i.uname = i.gname = "root"
with open(os.path.join(d, "data.tar.zst"), "wb") as out:
    p = subprocess.Popen(["zstd", "-q", "-1", "-c"], stdin=subprocess.PIPE,
                         stdout=out)
    p.stdin.write(i.tobuf(tarfile.GNU_FORMAT))
    z = bytes(1 << 20)
    for _ in range(mib):
        p.stdin.write(z)
    p.stdin.write(bytes(1024))
    p.stdin.close()
    p.wait()
open(os.path.join(d, "debian-binary"), "w").write("2.0\n")
PY
	(cd "$T" && rm -f "$1" && ar rc "$1" debian-binary control.tar data.tar.zst)
}
