#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Hostile compressed members: truncated zstd/xz/gzip data at several cut
# points, a zstd frame declaring a 2 GiB window, and a decompression bomb
# (1 GiB of zeros).  Each is an error naming the member (and the offset),
# within the time and memory bounds, leaving no partial file behind.
. "${ZDEB_SRCDIR:-$(dirname "$0")/../..}/tests/integ/lib.sh"
. "$ZDEB_SRCDIR/tests/hostile/lib.sh"
need python3 zstd xz gzip tar timeout
gen_hostile decoders

# The complete tree, to check that whatever was extracted is whole.
mkdir "$T/ref"
tar -C "$T/ref" -xf "$H/truncated.tar"

for ext in zst xz gz; do
	for cut in 10 50 90 last; do
		c=truncated-$ext-$cut
		m="unexpected end of data in 'data.tar.$ext' at offset"
		hostile 2 "$m" '"$ZDEB" extract -T 2 "$H/$c.deb" "$W/out"'
		# Every file present is complete: no truncated file under
		# its final name.
		(cd "$W/out" && find . -type f) | while read -r f; do
			cmp -s "$W/out/$f" "$T/ref/$f" ||
				fail "$c: '$f' extracted incomplete"
		done
		hostile 2 "$m" '"$ZDEB" cat-data -T 2 "$H/$c.deb" >/dev/null'
		hostile 2 "$m" '"$ZDEB" contents "$H/$c.deb" >/dev/null'
		hostile 1 "$m" '"$ZDEB" verify "$H/$c.deb"'
		hostile 2 "$m" '"$ZDEB" dpkg-deb -x "$H/$c.deb" "$W/out"'
		hostile 2 "$m" 'cat "$H/$c.deb" | "$ZDEB" extract - "$W/out"'
		ok "$c: $m"
	done
done

# Wording differs between the sequential and parallel decoders; both
# name the window, the limit and the member.
m="window of 2147483648 bytes"
hostile 2 "$m" '"$ZDEB" extract -T 2 "$H/window-2g.deb" "$W/out"'
grep -q "exceeds the limit.*data.tar.zst\|data.tar.zst.*exceeds the limit" \
	"$T/stderr" || fail "window: $(cat "$T/stderr")"
hostile 2 "$m" '"$ZDEB" cat-data "$H/window-2g.deb" >/dev/null'
hostile 2 "$m" '"$ZDEB" contents "$H/window-2g.deb"'
hostile 2 "$m" '"$ZDEB" verify "$H/window-2g.deb"'
hostile 2 "$m" '"$ZDEB" dpkg-deb --fsys-tarfile "$H/window-2g.deb" >/dev/null'
hostile 2 "$m" '"$ZDEB" extract - "$W/out" <"$H/window-2g.deb"'
hostile 2 "exceeds the limit" \
	'"$ZDEB" cat-data --max-window 1G "$H/window-2g.deb" >/dev/null'
ok "a 2 GiB window is refused before allocation (default and --max-window)"
# The frame itself is fine: allowed, it decodes (no memory bound: the
# window is really allocated).
"$ZDEB" cat-data --max-window 2G "$H/window-2g.deb" | tar -t >/dev/null ||
	fail "--max-window 2G does not decode the frame"
ok "--max-window 2G decodes it"

m="exceeds the limit of 67108864 bytes"
hostile 2 "decod" '"$ZDEB" cat-data --max-size 64M "$H/bomb.deb" >/dev/null'
grep -qE "exceeds the limit of 67108864 bytes|decodes to more than 67108864 bytes" \
	"$T/stderr" || fail "bomb: $(cat "$T/stderr")"
hostile 2 "decod" '"$ZDEB" extract -T 2 --max-size 64M "$H/bomb.deb" "$W/out"'
[ ! -e "$W/out/zeros" ] || fail "bomb: partial ./zeros left"
hostile 2 "decod" '"$ZDEB" verify --max-size 64M "$H/bomb.deb"'
hostile 2 "decod" \
	'cat "$H/bomb.deb" | "$ZDEB" contents --max-size 64M - >/dev/null'
ok "a 1 GiB zstd bomb stops at --max-size 64M"
hostile 0 "" '"$ZDEB" contents "$H/bomb.deb"'
grep -q ' 1073741824 ' "$T/stdout" || fail "bomb: default cap refused it"
ok "the default cap (1 GiB + 1024 x compressed) lets it through"

# 2 GiB from 67 KiB: over the default cap, which is the library's, so
# every native command has it, recompress included (it decoded all of it
# with exit 0); --max-size lowers it there too, 0 lifts it.
m="decoded data of 'data.tar.zst' exceeds the limit of"
hostile 2 "$m" '"$ZDEB" recompress -z1 "$H/bomb-2g.deb" "$W/re.deb"'
hostile 2 "$m" '"$ZDEB" cat-data "$H/bomb-2g.deb" >/dev/null'
hostile 2 "$m" '"$ZDEB" extract "$H/bomb-2g.deb" "$W/out"'
[ ! -e "$W/out/zeros" ] || fail "bomb-2g: partial ./zeros left"
hostile 2 "$m" '"$ZDEB" verify "$H/bomb-2g.deb"'
hostile 2 "$m" '"$ZDEB" contents "$H/bomb-2g.deb" >/dev/null'
ok "a 2 GiB bomb: refused by recompress, cat-data, extract, verify, contents"
hostile 2 "exceeds the limit of 67108864 bytes" \
	'"$ZDEB" recompress -z1 --max-size 64M "$H/bomb.deb" "$W/re.deb"'
hostile 0 "" '"$ZDEB" cat-data --max-size 0 "$H/bomb-2g.deb" | wc -c'
[ "$(cat "$T/stdout")" -eq $(((2 << 30) + 1536)) ] ||
	fail "--max-size 0: $(cat "$T/stdout") bytes"
ok "recompress --max-size 64M refuses the 1 GiB bomb; --max-size 0 lifts the cap"
hostile 2 "is not a size" '"$ZDEB" cat-data --max-size lots "$H/bomb.deb"'
hostile 2 "out of range" '"$ZDEB" extract --max-window 1 "$H/bomb.deb" "$W/out"'
ok "bad --max-size / --max-window values are usage errors"
