#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# zdeb verify --dpkg-deb: the stock dpkg-deb reads every layout stock dpkg
# installs with the bytes zdeb decodes, and fails (or differs) on the ones
# it cannot; a stand-in that changes bytes is caught; zdeb itself is
# refused as the stock binary.
. "$(dirname "$0")/lib.sh"
need dpkg-deb

make_tree "$T/pkg"
for c in "-Zzstd -z1 --segment-size=64K" "-Zzstd -z1 --layout=single" \
         "-Zxz -z1" "-Zgzip -z1" "-Znone"; do
	# shellcheck disable=SC2086
	expect_status 0 "$ZDEB" build $c "$T/pkg" "$T/p.deb"
	expect_status 0 "$ZDEB" verify --dpkg-deb "$T/p.deb"
	grep -qx "$T/p.deb: ok (files match md5sums) (stock dpkg-deb reads the same tars)" \
		"$T/stdout" || fail "$c: $(cat "$T/stdout")"
done
expect_status 0 "$ZDEB" verify -v --dpkg-deb=dpkg-deb "$T/p.deb"
expect_stderr "data.tar: '$(command -v dpkg-deb) --fsys-tarfile' writes the same"
ok "indexed, single, xz, gzip, none: stock dpkg-deb reads the same tars"

# pzstd and frames: control.tar is one frame, which stock dpkg-deb reads;
# it stops after the first frame of data.tar.  Both exit 1, naming the
# member.
"$ZDEB" build -z1 --layout=pzstd --segment-size=64K "$T/pkg" "$T/pz.deb" 2>/dev/null
expect_status 1 "$ZDEB" verify --dpkg-deb "$T/pz.deb"
expect_stderr "data.tar.zst: '$(command -v dpkg-deb) --fsys-tarfile'"
"$ZDEB" build -z1 --layout=frames --segment-size=64K "$T/pkg" "$T/fr.deb" 2>/dev/null
[ "$("$ZDEB" info --json "$T/fr.deb" | grep -o '"segments": [0-9]*' | tail -1)" != '"segments": 1' ] ||
	fail "frames package has one frame"
expect_status 1 "$ZDEB" verify --dpkg-deb "$T/fr.deb"
expect_stderr "data.tar.zst: '$(command -v dpkg-deb) --fsys-tarfile'"
expect_stderr "stock dpkg"
ok "pzstd and frames layouts: exit 1, the stock failure named"

# Stand-ins for the stock binary: one appends a byte, one changes bytes
# but not the size.  Both must be caught.
cat >"$T/longer" <<'SH'
#!/bin/sh
dpkg-deb "$@" && printf x
SH
cat >"$T/other" <<'SH'
#!/bin/sh
dpkg-deb "$@" | tr 'a' 'b'
SH
chmod +x "$T/longer" "$T/other"
expect_status 0 "$ZDEB" build -z1 "$T/pkg" "$T/p.deb"
expect_status 1 "$ZDEB" verify --dpkg-deb="$T/longer" "$T/p.deb"
expect_stderr "control.tar.zst: '$T/longer --ctrl-tarfile' writes 10241 bytes, zdeb 10240"
expect_status 1 "$ZDEB" verify --dpkg-deb="$T/other" "$T/p.deb"
expect_stderr "(other bytes)"
ok "a dpkg-deb that adds or changes bytes: exit 1"

# zdeb is not the stock binary: named, or as dpkg-deb first in PATH
expect_status 2 "$ZDEB" verify --dpkg-deb="$ZDEB" "$T/p.deb"
expect_stderr "is zdeb itself"
mkdir "$T/shim"
ln -s "$(readlink -f "$ZDEB")" "$T/shim/dpkg-deb"
expect_status 2 env PATH="$T/shim:$PATH" "$ZDEB" verify --dpkg-deb "$T/p.deb"
expect_stderr "'$T/shim/dpkg-deb' is zdeb itself"
expect_status 2 "$ZDEB" verify --dpkg-deb="$T/missing" "$T/p.deb"
expect_stderr "cannot find the stock dpkg-deb '$T/missing'"
expect_status 2 "$ZDEB" contents --dpkg-deb "$T/p.deb"
expect_stderr "unknown option '--dpkg-deb'"
ok "zdeb itself or a missing program as the stock dpkg-deb: exit 2"

# build --verify: the same check on what it has just written
expect_status 0 "$ZDEB" build --verify -z1 "$T/pkg" "$T/b.deb"
grep -qx "$T/b.deb: ok (files match md5sums) (stock dpkg-deb reads the same tars)" \
	"$T/stdout" || fail "build --verify: $(cat "$T/stdout")"
expect_status 1 "$ZDEB" build --verify -z1 --layout=pzstd --segment-size=64K \
	"$T/pkg" "$T/bp.deb"
expect_stderr "data.tar.zst: '$(command -v dpkg-deb) --fsys-tarfile'"
expect_status 0 "$ZDEB" verify "$T/bp.deb"
ok "build --verify: exit 0 for the default layout, 1 for pzstd (the .deb is whole)"

# --json names the stock program and its result
stock_json() {
	python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
s = j["stock_dpkg_deb"]
print(j["result"], s and s["program"], s and s["result"])' "$T/stdout"
}
expect_status 0 "$ZDEB" verify --json --dpkg-deb "$T/b.deb"
[ "$(stock_json)" = "ok $(command -v dpkg-deb) ok" ] || fail "json ok: $(cat "$T/stdout")"
expect_status 1 "$ZDEB" verify --json --dpkg-deb "$T/bp.deb"
[ "$(stock_json)" = "mismatch $(command -v dpkg-deb) mismatch" ] ||
	fail "json pzstd: $(cat "$T/stdout")"
expect_status 2 "$ZDEB" verify --json --dpkg-deb="$ZDEB" "$T/b.deb"
[ "$(stock_json)" = "error None error" ] || fail "json self: $(cat "$T/stdout")"
ok "verify --json --dpkg-deb: the program and its result"
