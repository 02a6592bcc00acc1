#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# zdeb verify: every checksum, and the files against DEBIAN/md5sums.
. "$(dirname "$0")/lib.sh"
need ar

make_tree "$T/pkg"
expect_status 0 "$ZDEB" build -z1 "$T/pkg" "$T/good.deb"
expect_status 0 "$ZDEB" verify -v "$T/good.deb"
grep -q "ok (files match md5sums)" "$T/stdout" || fail "verify: $(cat "$T/stdout")"
expect_stderr "files checked against md5sums, 0 mismatched"
ok "a zdeb-built package verifies, files against its generated md5sums"

expect_status 0 "$ZDEB" build -z1 --no-md5sums "$T/pkg" "$T/nosums.deb"
expect_status 0 "$ZDEB" verify "$T/nosums.deb"
grep -qx "$T/nosums.deb: ok" "$T/stdout" || fail "verify without md5sums"
ok "a package without md5sums verifies its checksums only"

# md5sums that disagree with the files: one wrong digest, one missing file
(cd "$T/pkg" && find usr -type f ! -name numbers.txt | sort | xargs md5sum >DEBIAN/md5sums &&
 echo "0123456789abcdef0123456789abcdef  usr/share/doc/zdeb-test/numbers.txt" >>DEBIAN/md5sums &&
 echo "0123456789abcdef0123456789abcdef  usr/share/doc/zdeb-test/gone" >>DEBIAN/md5sums)
expect_status 0 "$ZDEB" build -z1 "$T/pkg" "$T/bad.deb"
expect_status 1 "$ZDEB" verify "$T/bad.deb"
expect_stderr "'usr/share/doc/zdeb-test/numbers.txt': MD5 mismatch"
expect_stderr "'usr/share/doc/zdeb-test/gone': listed in md5sums but not in the package"
ok "files that differ from md5sums, and missing ones, exit 1 with their names"

# A damaged data member is a mismatch, not a crash
cp "$T/good.deb" "$T/corrupt.deb"
size=$(stat -c %s "$T/corrupt.deb")
printf '\377\377\377\377' | dd of="$T/corrupt.deb" bs=1 seek=$((size - 200)) conv=notrunc 2>/dev/null
expect_status 1 "$ZDEB" verify "$T/corrupt.deb"
expect_stderr "data.tar.zst"
ok "corrupted data: exit 1 naming the member"

# --json: one object a script can read, the same exit status
json_get() {	# json_get FILE EXPR: python's eval of EXPR on the object j
	python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
v = eval(sys.argv[2])
print(*v) if isinstance(v, tuple) else print(v)' "$1" "$2"
}
expect_status 0 "$ZDEB" verify --json "$T/good.deb"
[ "$(json_get "$T/stdout" 'j["result"], [m["result"] for m in j["members"]], j["md5sums"]["mismatched"], j["stock_dpkg_deb"]')" = \
  "ok ['ok', 'ok'] 0 None" ] || fail "json good: $(cat "$T/stdout")"
[ "$(json_get "$T/stdout" 'j["md5sums"]["checked"] > 0 and j["members"][1]["name"] == "data.tar.zst"')" = True ] ||
	fail "json good: $(cat "$T/stdout")"
expect_status 0 "$ZDEB" verify --json "$T/nosums.deb"
[ "$(json_get "$T/stdout" 'j["result"], j["md5sums"]')" = "ok None" ] ||
	fail "json without md5sums: $(cat "$T/stdout")"
expect_status 1 "$ZDEB" verify --json "$T/bad.deb"
[ "$(json_get "$T/stdout" 'j["result"], [m["result"] for m in j["members"]], j["md5sums"]["mismatched"]')" = \
  "mismatch ['ok', 'mismatch'] 2" ] || fail "json bad md5sums: $(cat "$T/stdout")"
expect_status 1 "$ZDEB" verify --json "$T/corrupt.deb"
[ "$(json_get "$T/stdout" 'j["result"], j["members"][1]["result"]')" = "mismatch mismatch" ] ||
	fail "json corrupt: $(cat "$T/stdout")"
expect_status 2 "$ZDEB" verify --json "$T/missing.deb"
[ "$(json_get "$T/stdout" 'j["result"], "members" in j, j["file"] == sys.argv[1].replace("stdout", "missing.deb")')" = \
  "error False True" ] || fail "json missing file: $(cat "$T/stdout")"
expect_stderr "missing.deb"
ok "verify --json: result, members, md5sums counts; exit status as without it"
