#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# dpkg-deb mode parses its command line as dpkg-deb 1.21.22 does, option
# by option: every long and short form, "--opt=value", "--opt value",
# "-Xvalue", "-X value", "-X=value", bundles, "--", abbreviations (none
# are accepted), a value given to an option without one and none to one
# that needs it, and the options 1.21.22 lacks (--compression=,
# --compression-level=, --compression-strategy=, --no-check: unknown
# options); stdout, stderr, status and files left match the system
# dpkg-deb.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dpkg-deb-lib.sh"

make_tree "$T/pkg"
deb=$T/p.deb
dpkg-deb -b "$T/pkg" "$deb" >/dev/null

# Every action, long and short, and what a value does to it.
for a in -c --contents -I --info -f --field -W --show -e --control \
         -x --extract -X --vextract -R --raw-extract --ctrl-tarfile \
         --fsys-tarfile; do
	ddcmp /dev/null $a "$deb" out
	ddcmp /dev/null $a "$deb"
	ddcmp /dev/null "$a=x" "$deb"
done
ddcmp /dev/null -b "$T/pkg" out.deb
ddcmp /dev/null --build "$T/pkg" out.deb
ddcmp /dev/null --build=x "$T/pkg"
ddcmp /dev/null -b= "$T/pkg"
ddcmp /dev/null -?
ddcmp /dev/null --help
ddcmp /dev/null --help=x
ddcmp /dev/null -?c "$deb"
ddcmp /dev/null --version
ddcmp /dev/null --version=1
ok "actions: long and short forms, with a value, in a bundle"

# No abbreviation is an option: dpkg matches whole names only.
for o in --cont --content --inf --fiel --sho --ctrl --fsys-tar --vers \
         --hel --verb --deb --deb-form=2.0 --thread=2 --threads=2 \
         --showfmt=x --show-format=x --root --uniform --no-uniform \
         --nocheck-x --debugs -- ---c --- '--=x' --Z=gzip; do
	ddcmp /dev/null $o -c "$deb"
done
ok "abbreviations and near names are unknown options"

# Options dpkg-deb 1.22 added are unknown to 1.21.22.
for o in --compression=gzip --compression=xz --compression-level=5 \
         --compression-strategy=extreme --no-check --compression \
         --compression-level; do
	ddcmp /dev/null $o -c "$deb"
	ddcmp /dev/null $o -b "$T/pkg" out.deb
done
ok "--compression=, --compression-level=, --compression-strategy=," \
   "--no-check: unknown options"

# Flags: long, short, bundled, with a value.
for o in -v --verbose -D --debug --nocheck --root-owner-group \
         --uniform-compression --no-uniform-compression; do
	ddcmp /dev/null $o -c "$deb"
	ddcmp /dev/null "$o=1" -c "$deb"
	ddcmp /dev/null "$o=" -c "$deb"
done
ddcmp /dev/null -vc "$deb"
ddcmp /dev/null -cv "$deb"
ddcmp /dev/null -vx "$deb" out
ddcmp /dev/null -vv -x "$deb" out
ddcmp /dev/null -v= -c "$deb"
ddcmp /dev/null -cv= "$deb"
ddcmp /dev/null -vQ -c "$deb"
ddcmp /dev/null "-$(printf '\303\251')" -c "$deb"
ok "flags: long, short, bundled, given a value"

# Options with a value, in every form.
for v in '--showformat=${Package}\n' '--showformat=' '--showformat'; do
	ddcmp /dev/null "$v" -W "$deb"
done
ddcmp /dev/null --showformat '${Version}\n' -W "$deb"
ddcmp /dev/null -W "$deb" --showformat=x
ddcmp /dev/null -W --showformat=x "$deb"
for f in 2.0 02.00 '2.0
' 0.939000 3.0 2 2. .0 x 2.0x 2.x 99999999999.0 2.99999999999 ''; do
	ddcmp /dev/null "--deb-format=$f" -c "$deb"
	ddcmp /dev/null --deb-format "$f" -c "$deb"
done
ddcmp /dev/null -c "$deb" --deb-format
ddcmp /dev/null --deb-format
for n in 0 1 2 010 0x10 -1 x '' ' 2' '2 ' 2147483647 2147483648 \
         99999999999999999999; do
	ddcmp /dev/null "--threads-max=$n" -c "$deb"
	ddcmp /dev/null --threads-max "$n" -c "$deb"
done
ddcmp /dev/null --threads-max
ok "--showformat, --deb-format, --threads-max: = and separate values"

for z in 0 5 9 10 010 0x9 -1 x '' 22 23; do
	ddcmp /dev/null "-z$z" -c "$deb"
	ddcmp /dev/null -z "$z" -c "$deb"
	ddcmp /dev/null "-z=$z" -c "$deb"
	ddcmp /dev/null -Zzstd "-z$z" -c "$deb"
	ddcmp /dev/null -Zgzip "-z$z" -c "$deb"
	ddcmp /dev/null -Znone "-z$z" -c "$deb"
done
for t in gzip xz zstd none bzip2 lzma foo '' GZIP; do
	ddcmp /dev/null "-Z$t" -c "$deb"
	ddcmp /dev/null -Z "$t" -c "$deb"
	ddcmp /dev/null "-Z=$t" -c "$deb"
done
for s in none extreme filtered huffman rle fixed foo '' EXTREME; do
	for t in xz gzip zstd none; do
		ddcmp /dev/null "-Z$t" "-S$s" -c "$deb"
	done
	ddcmp /dev/null -S "$s" -c "$deb"
	ddcmp /dev/null "-S=$s" -c "$deb"
	ddcmp /dev/null -Zgzip -z0 "-S$s" -c "$deb"
done
ddcmp /dev/null -vz5 -c "$deb"
ddcmp /dev/null -vZgzip -c "$deb"
ddcmp /dev/null -cz
ddcmp /dev/null -c -z
ddcmp /dev/null -c -Z
ddcmp /dev/null -c -S
ok "-z, -Z, -S: attached, separate, with '=', bundled, missing"

# Where options end, and their order.
ddcmp /dev/null -- -c "$deb"
ddcmp /dev/null -c -- "$deb"
ddcmp /dev/null -c "$deb" -- extra
ddcmp /dev/null "$deb" -c
ddcmp "$deb" -c -
ddcmp "$deb" -I - control
ddcmp /dev/null -Zfoo -c -I "$deb"
ddcmp /dev/null -c -I -Zfoo "$deb"
ddcmp /dev/null --ctrl-tarfile --fsys-tarfile "$deb"
ddcmp /dev/null -W --show "$deb"
ddcmp /dev/null -z10 -Sfoo -c "$deb"
ddcmp /dev/null -z10 -Sfiltered -c "$deb"
ddcmp /dev/null -Sfiltered -z10 -Zgzip
ddcmp /dev/null -z10
ok "'--', the first non-option, option order, conflicts"
