#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# contrib/dpkg's fix ("libdpkg: Decode all frames in zstd compressed
# streams") on Debian 12's dpkg: its 1.21.x form applied to the dpkg
# source t9040 uses (slow_dpkg_source, cached), libdpkg and dpkg-deb
# built out of tree with libzstd, then
# - dpkg's own dpkg-deb groups (src/at, keywords dpkg-deb and deb-split),
#   the patch's new checks included, on the stock dpkg-deb: it must fail
#   the .deb format 2.x group at the first new check (a data.tar.zst of
#   several frames and skippable frames) and pass every other group; and
#   on the patched dpkg-deb: it must pass every group;
# - zdeb's frames and pzstd packages (several zstd frames in data.tar.zst)
#   installed with dpkg --root, dpkg-deb being first the stock one, which
#   must fail or install less than the tree, then the patched one, which
#   must install the tree exactly (postinst run, dpkg --verify clean), and
#   whose --fsys-tarfile must be zdeb's tar byte for byte.
#
# Run by "make check-slow": needs the cache or the Debian mirror (as
# t9040), a C compiler, make, patch, autom4te and dpkg's build
# dependencies that zdeb's also are (libzstd-dev: the zstd command would
# hide the bug; zlib, liblzma, libbz2, libmd).  Skips (77) when dpkg cannot
# be configured.
. "$(dirname "$0")/../integ/lib.sh"
. "$(dirname "$0")/lib.sh"

need apt-get autom4te tar xz gzip zstd bzip2 lzma perl patch make cc dpkg
top=$(cd "$(dirname "$0")/../.." && pwd)
fix=$top/contrib/dpkg/1.21.x/0001-libdpkg-Decode-all-frames-in-zstd-compressed-streams.patch
[ -f "$fix" ] || fail "no $fix"

# The real dpkg-deb: where dpkg-divert put it when zdeb replaced it.
stockbin=$(dpkg-divert --truename /usr/bin/dpkg-deb 2>/dev/null) ||
	stockbin=/usr/bin/dpkg-deb
[ -x "$stockbin" ] || skip "no stock dpkg-deb"
[ "$(realpath "$stockbin")" != "$(realpath "$ZDEB")" ] ||
	fail "$stockbin is zdeb, not the stock dpkg-deb"

slow_dpkg_source
mkdir "$T/src"
tar -xf "$dpkg_tarball" -C "$T/src"
src=$(ls -d "$T/src"/dpkg-*)
case ${src##*/} in
dpkg-1.21.*) ;;
*) fail "the cache holds ${src##*/}, the patch is for dpkg 1.21.x" ;;
esac
patch -d "$src" -p1 -F0 --batch <"$fix" >"$T/patch.log" 2>&1 ||
	fail "contrib/dpkg's 1.21.x patch does not apply to ${src##*/}: $(cat "$T/patch.log")"
ok "contrib/dpkg's 1.21.x patch applies to ${src##*/}"

# Only what dpkg-deb needs: libcompat, libdpkg, dpkg-deb.
mkdir "$T/build"
(cd "$T/build" && "$src/configure" --disable-nls --disable-dselect \
	--disable-start-stop-daemon --disable-update-alternatives \
	--disable-devel-docs --disable-compiler-warnings --without-libselinux \
	--with-libzstd --with-liblzma --with-libz --with-libbz2) \
	>"$T/configure.log" 2>&1 ||
	skip "cannot configure dpkg (its build dependencies?): $(tail -n 3 "$T/configure.log")"
grep -q '^#define WITH_LIBZSTD 1' "$T/build/config.h" ||
	fail "dpkg configured without libzstd"
(cd "$T/build" && make -j2 -C lib/compat && make -j2 -C lib/dpkg libdpkg.la &&
	make -j2 -C src dpkg-deb) >"$T/make.log" 2>&1 ||
	fail "cannot build the patched dpkg-deb: $(grep -m 5 'error' "$T/make.log")"
patched=$T/build/src/dpkg-deb
ok "patched dpkg-deb built ($("$patched" --version | head -n 1))"

# dpkg's suite, with the patch's new checks.
(cd "$src/src/at" && autom4te --language=autotest -I . -o "$T/testsuite" \
	testsuite.at) || fail "autom4te could not build dpkg's test suite"
: >"$src/config.log"
# The line of the first new check: where the stock dpkg-deb must fail.
newline=$(grep -n '^# Test data.tar.zst member with several frames and skippable frames$' \
	"$src/src/at/deb-format.at" | cut -d: -f1)
[ -n "$newline" ] || fail "the patch's check is not in src/at/deb-format.at"
newline=$((newline - 1))

# run NAME PROG: the groups on PROG in $T/NAME; $T/NAME.res holds
# "N name: result" lines, one per group.
run() {
	slow_dpkg_at_dir "$T/$1" "$2" "$src" "$T/testsuite"
	(cd "$T/$1" && ./testsuite -j2 -k dpkg-deb -k deb-split) \
		>"$T/$1.out" 2>&1 || true
	grep -q "^[^ ]*testsuite.at:[0-9]*: $T/$1/bin/dpkg-deb --version" \
		"$T/$1/testsuite.log" ||
		fail "$1: the suite did not test $T/$1/bin/dpkg-deb"
	sed -n 's/^ *\([0-9]*\): \(.*[^ ]\)  *\(ok\|FAILED.*\|skipped.*\)$/\1 \2: \3/p' \
		"$T/$1.out" | sort -n >"$T/$1.res"
	[ "$(wc -l <"$T/$1.res")" -ge 7 ] ||
		fail "$1: fewer than 7 groups ran: $(cat "$T/$1.out")"
}

run stock "$stockbin"
echo "# stock dpkg-deb ($("$stockbin" --version | head -n 1)):"
sed 's/^/#   /' "$T/stock.res"
grep -v ': ok$' "$T/stock.res" >"$T/stock.bad" || true
[ "$(wc -l <"$T/stock.bad")" -eq 1 ] &&
	grep -q "^[0-9]* dpkg-deb .deb format 2.x: FAILED (deb-format.at:$newline)$" \
		"$T/stock.bad" ||
	fail "stock dpkg-deb: expected to fail the format 2.x group at deb-format.at:$newline (the new multi-frame check) and nothing else: $(cat "$T/stock.bad")"
ok "stock dpkg-deb fails the new multi-frame check" \
   "(deb-format.at:$newline) and passes the other groups"

run patched "$patched"
echo "# patched dpkg-deb:"
sed 's/^/#   /' "$T/patched.res"
if grep -v ': ok$' "$T/patched.res" >"$T/patched.bad"; then
	for g in $(cut -d' ' -f1 "$T/patched.bad"); do
		sed -n '/^--- /,$p' "$T/patched/testsuite.dir/$(printf %02d "$g")/testsuite.log" |
			head -n 20 >&2 || true
	done
	fail "patched dpkg-deb fails: $(cat "$T/patched.bad")"
fi
ok "patched dpkg-deb passes every group ($(wc -l <"$T/patched.res")), the new checks included"

# zdeb's multi-frame packages through dpkg --root.
mkdir "$T/stockbin" "$T/patchedbin"
ln -s "$stockbin" "$T/stockbin/dpkg-deb"
ln -s "$patched" "$T/patchedbin/dpkg-deb"
pkg=zdeb-zstd-patch
make_tree "$T/tree" "$pkg"
manifest "$T/tree" >"$T/want"
for layout in frames pzstd; do
	deb=$T/$layout.deb
	"$ZDEB" build -Zzstd --layout="$layout" --segment-size=64K \
		"$T/tree" "$deb" 2>"$T/build.err" ||
		fail "zdeb build --layout=$layout: $(cat "$T/build.err")"
	"$ZDEB" info --json "$deb" >"$T/info.json"
	python3 - "$T/info.json" "$layout" <<'PY' || fail "$layout: $(cat "$T/info.json")"
import json, sys
m = [m for m in json.load(open(sys.argv[1]))["members"]
     if m["name"] == "data.tar.zst"][0]
sys.exit(not (m["layout"] == sys.argv[2] and m["segments"] > 1))
PY
	frames=$(python3 -c 'import json, sys
print([m for m in json.load(open(sys.argv[1]))["members"]
       if m["name"] == "data.tar.zst"][0]["segments"])' "$T/info.json")

	# Stock: fails, or installs less than the tree.
	R=$T/root-stock-$layout
	init_dpkg_root "$R"
	set +e
	PATH=$T/stockbin:$PATH dpkg_install "$R" "$deb" >"$T/dpkg.out" 2>&1
	rc=$?
	set -e
	cut -d' ' -f1 "$T/want" | manifest_paths "$R" >"$T/got"
	if [ $rc -eq 0 ] && cmp -s "$T/want" "$T/got"; then
		fail "$layout: the stock dpkg-deb installed the whole tree: the bug this test shows is not there"
	fi
	if [ $rc -ne 0 ]; then
		what="fails (exit $rc: $(grep -m 1 'error' "$T/dpkg.out"))"
	else
		n=$(grep -vc ' missing$' "$T/got" || true)
		what="exits 0 having installed $n of $(wc -l <"$T/want") paths"
	fi
	ok "$layout ($frames frames): dpkg -i with the stock dpkg-deb $what"

	# Patched: the whole tree.
	R=$T/root-patched-$layout
	init_dpkg_root "$R"
	PATH=$T/patchedbin:$PATH dpkg_install "$R" "$deb" >"$T/dpkg.out" 2>&1 ||
		fail "$layout: dpkg -i with the patched dpkg-deb: $(cat "$T/dpkg.out")"
	cut -d' ' -f1 "$T/want" | manifest_paths "$R" >"$T/got"
	diff "$T/want" "$T/got" >&2 ||
		fail "$layout: dpkg -i with the patched dpkg-deb installed other files than the tree's"
	dpkg --root="$R" --admindir="$R/var/lib/dpkg" --verify "$pkg" \
		>"$T/verify.out" 2>&1 ||
		fail "$layout: dpkg --verify after the patched install: $(cat "$T/verify.out")"
	[ ! -s "$T/verify.out" ] ||
		fail "$layout: dpkg --verify after the patched install: $(cat "$T/verify.out")"
	# Installed means configured: its postinst ran and succeeded.
	st=$(dpkg --root="$R" --admindir="$R/var/lib/dpkg" -s "$pkg" |
	     sed -n 's/^Status: //p')
	[ "$st" = "install ok installed" ] ||
		fail "$layout: status after the patched install: $st"
	"$patched" --fsys-tarfile "$deb" >"$T/patched.tar" ||
		fail "$layout: patched dpkg-deb --fsys-tarfile failed"
	"$ZDEB" cat-data "$deb" >"$T/zdeb.tar"
	cmp "$T/zdeb.tar" "$T/patched.tar" ||
		fail "$layout: patched dpkg-deb --fsys-tarfile differs from zdeb cat-data"
	ok "$layout ($frames frames): dpkg -i with the patched dpkg-deb" \
	   "installs the tree exactly (status installed, --verify clean," \
	   "--fsys-tarfile = zdeb cat-data)"
done
