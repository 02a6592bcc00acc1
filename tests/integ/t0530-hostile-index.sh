#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A damaged zdeb index is a warning naming the field, then a decode by
# walking blocks that gives the right bytes; a segment whose bytes do not
# match the index (hash, size) or corrupted compressed bytes are errors,
# never wrong bytes.  tests/hostile/gen.sh patches each index field of a
# zdeb-built package (the check value recomputed, so that the field's own
# check is the one that fires).
. "${ZDEB_SRCDIR:-$(dirname "$0")/../..}/tests/integ/lib.sh"
. "$ZDEB_SRCDIR/tests/hostile/lib.sh"
need python3 zstd timeout
gen_hostile index
good=$H/index-good.tar

hostile 0 "" '"$ZDEB" verify "$H/index-good.deb"'
ok "the undamaged package verifies"

# case | the warning's reason
while IFS='|' read -r c m; do
	w="index damaged ($m), decoding"
	for t in 1 2 4; do
		hostile 0 "$w" '"$ZDEB" cat-data -T $t "$H/$c.deb" >"$T/got"'
		cmp -s "$T/got" "$good" || fail "$c -T $t: wrong bytes"
	done
	hostile 1 "$w" '"$ZDEB" verify "$H/$c.deb"'
	hostile 0 "$w" '"$ZDEB" extract -T 2 "$H/$c.deb" "$W/out"'
	hostile 0 "" 'cat "$H/$c.deb" | "$ZDEB" cat-data - >"$T/got"'
	cmp -s "$T/got" "$good" || fail "$c from a pipe: wrong bytes"
	ok "$c: warning '$m', right bytes"
done <<'CASES'
index-magic|bad index magic
index-version|unknown index version 3
index-flags|unknown index flags 0x01
index-window|index window does not match the frame
index-header-size|index header size does not match the frame
index-content-size|index decoded sizes do not add up to the content size
index-segments|index segment counts do not add up
index-record-count|bad index segment count
index-record-csize|index record 0 does not end at a reset
index-record-nseg|index record 1 has no segment
index-check|bad index check value
CASES

# cat-data -T 2 DEB into a pipe to cat >OUT, with cat-data's status
cat >"$T/topipe.sh" <<'EOF2'
{ "$1" cat-data -T 2 "$2"; echo $? >"$3.st"; } | cat >"$3"
exit "$(cat "$3.st")"
EOF2

# case | message (index-usize-huge: a 200 MiB claim its blocks cannot
# hold: refused as index damage, then the frame, whose declared size was
# patched to match, fails to decode; all within the 1 GiB address space
# bound.  With -T 1 the frame is streamed and each segment's hash checked
# as its bytes pass, so a size lie shows as a hash mismatch.)
while IFS='|' read -r c m; do
	hostile 2 "$m" '"$ZDEB" cat-data -T 2 "$H/$c.deb" >"$T/got"'
	# into a pipe: the workers decode segments in place, in order
	hostile 2 "$m" 'sh "$T/topipe.sh" "$ZDEB" "$H/$c.deb" "$T/got"'
	hostile 2 "$m" '"$ZDEB" cat-data -T 1 "$H/$c.deb" >"$T/got"'
	hostile 2 "$m" '"$ZDEB" extract -T 2 "$H/$c.deb" "$W/out"'
	hostile 2 "$m" '"$ZDEB" dpkg-deb -x "$H/$c.deb" "$W/out"'
	hostile 2 "$m" '"$ZDEB" extract - "$W/out" <"$H/$c.deb"'
	set +e
	"$ZDEB" verify "$H/$c.deb" >/dev/null 2>&1
	st=$?
	set -e
	[ $st -eq 1 ] || [ $st -eq 2 ] || fail "$c: verify exited $st"
	ok "$c: error '$m'"
done <<'CASES'
index-hash|do not match the index hash
index-record-usize|match the index
index-usize-huge|data.tar.zst
index-usize-big|data.tar.zst
segment-corrupt|data.tar.zst
index-frame-size|data.tar.zst
index-reset-f-alone|data.tar.zst
index-reset-pair-in-raw|data.tar.zst
CASES

# Bytes that end like a reset but are not its blocks: the segments decoded
# on their own (their index hashes) and in one pass (the frame checksum,
# what dpkg-deb gives) differ.  On one thread the one pass finds segment
# 1's hash wrong; on two the worker's walk of segment 0's blocks refuses
# its end (before the fix, -T 2 wrote the on-their-own bytes, exit 0).
for c in index-reset-f-alone index-reset-pair-in-raw; do
	hostile 2 "segment 0 at offset 10: corrupt zstd data: the piece's blocks do not end in a reset" \
		'"$ZDEB" cat-data -T 2 "$H/$c.deb" >"$T/got"'
	hostile 2 "segment 1 at offset" '"$ZDEB" cat-data -T 1 "$H/$c.deb" >"$T/got"'
	ok "$c: not a reset, refused on one thread and two"
done

# index-usize-big claims 40 MiB for a segment of a few KB, a size decoded
# in place (into one buffer of the claimed size, in the queue into a
# pipe): the buffer's pages come as bytes are written, so the claim costs
# no memory (3 MB resident here), and the lie is an error
[ -x /usr/bin/time ] || fail "/usr/bin/time (package time, a Build-Depends) missing"
set +e
/usr/bin/time -f '%M' -o "$T/rss" "$ZDEB" cat-data -T 2 \
	"$H/index-usize-big.deb" 2>"$T/err" | cat >/dev/null
set -e
grep -q 'does not match the index' "$T/err" ||
	fail "index-usize-big into a pipe: $(cat "$T/err")"
[ "$(tail -1 "$T/rss")" -lt 20000 ] ||
	fail "index-usize-big into a pipe: $(tail -1 "$T/rss") KB resident"
ok "index-usize-big into a pipe: an error, $(tail -1 "$T/rss") KB resident"
