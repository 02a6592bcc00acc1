#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# .debs built by stock dpkg-deb (every compressor): zdeb extract gives the
# tree dpkg-deb -x gives; zdeb control, cat-data, cat-control, contents
# agree with dpkg-deb -e, --fsys-tarfile, --ctrl-tarfile, -c.
. "$(dirname "$0")/lib.sh"
need dpkg-deb

make_tree "$T/pkg"
for comp in zstd xz gzip none; do
	deb=$T/stock-$comp.deb
	dpkg-deb -Z$comp -b "$T/pkg" "$deb" >/dev/null
	dpkg-deb -x "$deb" "$T/dx-$comp"
	dpkg-deb --fsys-tarfile "$deb" >"$T/d.tar"
	"$ZDEB" extract "$deb" "$T/zx-$comp" || fail "zdeb extract $comp"
	manifest "$T/dx-$comp" >"$T/want"
	manifest "$T/zx-$comp" >"$T/got"
	diff "$T/want" "$T/got" >&2 || fail "$comp: extracted trees differ"
	# mtimes of files too (directory mtimes: GNU tar leaves a directory
	# that receives a delayed symlink with the time of extraction; zdeb
	# restores the recorded time)
	(cd "$T/dx-$comp" && find . -type f -printf '%p %T@\n' | sort) >"$T/want"
	(cd "$T/zx-$comp" && find . -type f -printf '%p %T@\n' | sort) >"$T/got"
	diff "$T/want" "$T/got" >&2 || fail "$comp: mtimes differ"
	# every directory has the time the tar records, also those holding
	# symlinks (usr/bin)
	python3 -c 'import sys, tarfile
for m in tarfile.open(sys.argv[1]):
    if m.isdir() and m.name not in ("./", "."):
        print(m.name.rstrip("/"), m.mtime)' "$T/d.tar" | sort >"$T/want"
	(cd "$T/zx-$comp" && find . -mindepth 1 -type d -printf '%p %T@\n' |
	 sed 's/\.0*$//' | sort) >"$T/got"
	diff "$T/want" "$T/got" >&2 || fail "$comp: directory mtimes differ"
	grep -q '^\./usr/bin ' "$T/got" || fail "$comp: no usr/bin"
	[ "$(stat -c %a "$T/zx-$comp/usr/bin/setuid-tool")" = 4755 ] ||
		fail "$comp: setuid bit lost"
	[ "$(stat -c %i "$T/zx-$comp/usr/share/doc/zdeb-test/numbers.txt")" = \
	  "$(stat -c %i "$T/zx-$comp/usr/share/doc/zdeb-test/hardlink.txt")" ] ||
		fail "$comp: hardlink not preserved"
	[ -d "$T/zx-$comp/usr/share/empty" ] || fail "$comp: empty dir lost"
	ok "$comp: zdeb extract == dpkg-deb -x (path, type, mode, size, hash, link, mtime)"

	"$ZDEB" cat-data "$deb" >"$T/z.tar"
	dpkg-deb --fsys-tarfile "$deb" >"$T/d.tar"
	cmp "$T/z.tar" "$T/d.tar" || fail "$comp: cat-data differs"
	"$ZDEB" cat-control "$deb" >"$T/z.tar"
	dpkg-deb --ctrl-tarfile "$deb" >"$T/d.tar"
	cmp "$T/z.tar" "$T/d.tar" || fail "$comp: cat-control differs"
	ok "$comp: cat-data and cat-control == --fsys-tarfile and --ctrl-tarfile"

	"$ZDEB" control "$deb" "$T/zc-$comp"
	dpkg-deb -e "$deb" "$T/dc-$comp"
	diff -r "$T/dc-$comp" "$T/zc-$comp" >&2 || fail "$comp: control differs"
	[ -x "$T/zc-$comp/postinst" ] || fail "$comp: postinst not executable"
	ok "$comp: zdeb control == dpkg-deb -e"

	"$ZDEB" contents "$deb" >"$T/z.list"
	dpkg-deb -c "$deb" >"$T/d.list"
	diff "$T/d.list" "$T/z.list" >&2 || fail "$comp: contents differs from dpkg-deb -c"
	TZ=America/New_York "$ZDEB" contents "$deb" >"$T/z.list"
	TZ=America/New_York dpkg-deb -c "$deb" >"$T/d.list"
	diff "$T/d.list" "$T/z.list" >&2 || fail "$comp: contents differs in another TZ"
	ok "$comp: zdeb contents == dpkg-deb -c (also in another time zone)"
done

# Reading from stdin
deb=$T/stock-xz.deb
"$ZDEB" cat-data - <"$deb" >"$T/z.tar"
dpkg-deb --fsys-tarfile "$deb" >"$T/d.tar"
cmp "$T/z.tar" "$T/d.tar" || fail "cat-data from stdin"
cat "$deb" | "$ZDEB" extract - "$T/zx-stdin"
manifest "$T/dx-xz" >"$T/want"; manifest "$T/zx-stdin" >"$T/got"
diff "$T/want" "$T/got" >&2 || fail "extract from a pipe"
ok "'-' reads the .deb from stdin (file and pipe)"
