#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/fuzz/gen-corpus.sh ZDEB OUTDIR - seed corpora for the harnesses,
# made at run time (no binary checked in): OUTDIR/corpus-<harness>/.
# Small inputs on purpose: the fuzzers mutate them thousands of times a
# second.
set -eu
ZDEB=$1
out=$2
export SOURCE_DATE_EPOCH=1700000000 LC_ALL=C
t=$(mktemp -d "${TMPDIR:-/tmp}/zdeb-corpus.XXXXXX")
trap 'rm -rf "$t"' EXIT
for h in ar control index pdecode deb; do mkdir -p "$out/corpus-$h"; done

# A tiny package tree: text that compresses into several segments.
tree=$t/tree
mkdir -p "$tree/DEBIAN" "$tree/usr/share/doc/fz" "$tree/usr/bin"
cat >"$tree/DEBIAN/control" <<CTL
Package: fz
Version: 1.0-1
Architecture: all
Maintainer: zdeb fuzz <fuzz@example.org>
Description: fuzz seed
 A seed package.
CTL
seq 1 3000 >"$tree/usr/share/doc/fz/numbers"
seq 5000 9000 | tr '0-9' 'a-j' >"$tree/usr/share/doc/fz/letters"
printf '#!/bin/sh\n' >"$tree/usr/bin/fz"
chmod 755 "$tree/usr/bin/fz"
ln -s fz "$tree/usr/bin/fz-link"
ln "$tree/usr/share/doc/fz/numbers" "$tree/usr/share/doc/fz/hard"

n=0
build() {	# build NAME OPTS...
	name=$1; shift
	"$ZDEB" build -T 1 "$@" "$tree" "$t/$name.deb" >/dev/null
	cp "$t/$name.deb" "$out/corpus-deb/$name.deb"
	cp "$t/$name.deb" "$out/corpus-ar/$name.deb"
}
build indexed -Z zstd -z 3 --layout indexed --segment-size 4096
build single -Z zstd -z 1 --layout single
build frames -Z zstd -z 1 --layout frames --segment-size 4096
build pzstd -Z zstd -z 1 --layout pzstd --segment-size 4096
build xz -Z xz -z 1
build gzip -Z gzip -z 1
build none -Z none
for l in indexed single frames pzstd; do
	(cd "$t" && ar p "$l.deb" data.tar.zst) >"$out/corpus-pdecode/$l.zst"
done
cp "$out/corpus-pdecode/indexed.zst" "$out/corpus-index/indexed.zst"
cp "$out/corpus-pdecode/single.zst" "$out/corpus-index/single.zst"
# A plain zstd CLI frame and an empty one.
seq 1 2000 | zstd -q -1 -c >"$out/corpus-pdecode/cli.zst"
printf '' | zstd -q -c >"$out/corpus-pdecode/empty.zst"

# Control files: the seed's, and one with every kind of line.
cp "$tree/DEBIAN/control" "$out/corpus-control/control"
cat >"$out/corpus-control/fields" <<'CTL'
Package: p
Version: 1:2.3~rc1-4+b1
Depends: a (>= 1), b | c, d:any
X-User-Field: value
Description: short
 long line
 .
 another
CTL
printf 'Package: p\r\nVersion: 1\r\n' >"$out/corpus-control/crlf"
printf 'Package: a\n\nPackage: b\n' >"$out/corpus-control/two"
# dpkg's field parsers: obsolete fields, relations, conffiles, archives.
cat >"$out/corpus-control/dpkg" <<'CTL'
Package: P
Recommended: r (<1)
Optional: o | p (1.0)
Version: 0:1:2
Revision: 3
Class: extra
Essential: yes
Multi-Arch: same
Architecture: i386
Provides: v (>= 1), w (= 2)
Conflicts: c:any (>> 1~)
Conffiles:
 /etc/a 0123
 ./etc/b 4567 obsolete remove-on-upgrade
Filename: a b
Size: 1 2
Source: s (1:0.9-1)
Maintainer: m
Description: d
CTL
# A bare ar archive with odd sizes and GNU-style names.
printf '1' >"$t/odd"; printf '22' >"$t/even"
(cd "$t" && ar rc plain.a odd even 2>/dev/null)
cp "$t/plain.a" "$out/corpus-ar/plain.a"
echo "seed corpora in $out"
