#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# check-layers.sh - libzdeb's layer map, checked: every lib/ file belongs
# to a layer by its name's prefix, and may include only lib/ headers of
# its own layer or below; lib/ never includes src/.  A new lib/ file whose
# name fits no pattern fails here until it is given a layer.
#
#   L0 common    error fdio numparse sched outq spawn params endian c-ctype
#                inoset json membuf
#   L1 formats   ar zstd-frame zseg-index zseg-reset tar-header tar-safepath
#                dpkg-control                     (pure encode/parse)
#   L2 engines   zseg-* tar-* dpkg-*              (zstd segments, tar, dpkg
#                                                  metadata)
#   L3 registry  codec codec-impl codec-*         (the vtable and its
#                                                  entries)
#   L4 .deb      deb deb-*                        (reader, members, writer)
#
# The codec entries (codec-gzip.c ...) sit with the registry, not below
# it: each one fills the vtable codec-impl.h defines and adapts a library
# or an L2 engine to it (codec-zstd.c drives zseg-write and zseg-decode).
set -u
top=${ZDEB_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}

layer() {
	case $1 in
	error|fdio|numparse|sched|outq|spawn|params|endian|c-ctype|inoset|json|\
	membuf)
		echo 0 ;;
	ar|zstd-frame|zseg-index|zseg-reset|tar-header|tar-safepath|dpkg-control) echo 1 ;;
	zseg-*|tar-*|dpkg-*) echo 2 ;;
	codec|codec-*) echo 3 ;;
	deb|deb-*) echo 4 ;;
	*) echo "" ;;
	esac
}

bad=0 n=0
for f in "$top"/lib/*.c "$top"/lib/*.h; do
	base=${f##*/}
	mod=${base%.[ch]}
	me=$(layer "$mod")
	if [ -z "$me" ]; then
		echo "lib/$base: no layer for '$mod' (add it to tests/check-layers.sh)"
		bad=$((bad + 1))
		continue
	fi
	n=$((n + 1))
	if grep -q '^#include "src/' "$f"; then
		echo "lib/$base: includes src/ (lib/ never does)"
		bad=$((bad + 1))
	fi
	for inc in $(sed -n 's|^#include "lib/\([^"]*\)\.h".*|\1|p' "$f"); do
		it=$(layer "$inc")
		if [ -z "$it" ]; then
			echo "lib/$base: includes lib/$inc.h, which has no layer"
			bad=$((bad + 1))
		elif [ "$it" -gt "$me" ]; then
			echo "lib/$base (L$me) includes lib/$inc.h (L$it): upward"
			bad=$((bad + 1))
		fi
	done
done
if [ "$n" -eq 0 ]; then
	echo "no lib/ files found under $top"
	exit 1
fi
echo "$n lib/ files, $bad layer violations"
[ "$bad" -eq 0 ]
