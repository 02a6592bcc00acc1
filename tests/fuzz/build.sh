#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/fuzz/build.sh SRCDIR BUILDDIR - builds the libFuzzer harnesses
# (clang -fsanitize=fuzzer,address,undefined) into BUILDDIR/tests/fuzz/,
# outside the normal build: lib/*.c are compiled again with coverage
# instrumentation.  BUILDDIR must be configured (for config.h).
# "make fuzz" runs it; bench/fuzz.sh runs the harnesses.
set -eu
src=$(cd "$1" && pwd)
bld=$(cd "$2" && pwd)
FUZZ_CC=${FUZZ_CC:-clang}
SAN=${FUZZ_SAN:-address,undefined}
out=$bld/tests/fuzz
obj=$out/obj
mkdir -p "$obj"
# The dependencies' flags come from make (configure's); by hand, from
# pkg-config.
pcs="libzstd liblzma libarchive zlib libxxhash"
deps=${FUZZ_DEP_CFLAGS-$(pkg-config --cflags $pcs)}
libs=${FUZZ_LIBS-"$(pkg-config --libs $pcs) -lbz2 -lmd -lpthread"}
cflags="-g -O1 -fno-omit-frame-pointer -fno-sanitize-recover=all \
-I$src -I$bld $deps"
# stale OBJ: older than its source or than any header it may include (a
# struct that changed shape would otherwise be linked in its old layout).
stale() {
	[ -e "$1" ] || return 0
	for f in "$2" "$src"/lib/*.h "$src"/tests/fuzz/fuzz.h "$bld/config.h"; do
		[ "$f" -nt "$1" ] && return 0
	done
	return 1
}
objs=
for c in "$src"/lib/*.c "$src"/tests/fuzz/fuzz-util.c; do
	o=$obj/$(basename "$c" .c).o
	if stale "$o" "$c"; then
		echo "  FUZZCC   $(basename "$c")"
		$FUZZ_CC $cflags -fsanitize=fuzzer-no-link,$SAN -c "$c" -o "$o"
	fi
	objs="$objs $o"
done
for h in ${FUZZ_HARNESSES:-ar control index pdecode deb}; do
	echo "  FUZZLD   fuzz-$h"
	$FUZZ_CC $cflags -fsanitize=fuzzer,$SAN \
		"$src/tests/fuzz/fuzz-$h.c" $objs $libs -o "$out/fuzz-$h"
done
