# SPDX-License-Identifier: GPL-2.0-or-later
# dpkg-deb-lib.sh - sourced by the t02NN-dpkg-deb-* tests after lib.sh.
# ddcmp STDIN ARGS... runs dpkg-deb ARGS with STDIN (a path, or /dev/null)
# in three fresh directories: the system dpkg-deb, "$ZDEB dpkg-deb" and a
# symlink named dpkg-deb to $ZDEB; stdout, stderr, exit status and the
# files left behind must be identical.  zdeb runs with ZDEB_HANDOFF=never
# (a test may set DDCMP_HANDOFF=allow): what it answers, it answers
# itself, not through the real dpkg-deb.  DDCMP_WAYS="link" (default
# "sub link") runs only the symlink, for tests with many cases.
need dpkg-deb
ln -s "$ZDEB" "$T/dpkg-deb"

dd_tree() {
	(cd "$1" && find . -mindepth 1 -printf '%p %y %m %s %l\n' | sort &&
	 find . -type f -exec sha256sum {} + | sort -k2)
}

ddcmp() {
	in=$1; shift
	for w in stock ${DDCMP_WAYS:-sub link}; do
		rm -rf "$T/run-$w"; mkdir "$T/run-$w"
		set +e
		case $w in
		stock) (cd "$T/run-$w" && dpkg-deb "$@") ;;
		sub) (cd "$T/run-$w" &&
		      ZDEB_HANDOFF=${DDCMP_HANDOFF:-never} "$ZDEB" dpkg-deb "$@") ;;
		link) (cd "$T/run-$w" &&
		       ZDEB_HANDOFF=${DDCMP_HANDOFF:-never} "$T/dpkg-deb" "$@") ;;
		esac <"$in" >"$T/out-$w" 2>"$T/err-$w"
		echo $? >"$T/rc-$w"
		set -e
		# dpkg-deb's temporary directory is random.
		sed -i 's,/dpkg-deb\.[A-Za-z0-9]\{6\}/,/dpkg-deb.XXXXXX/,g' \
			"$T/err-$w"
		dd_tree "$T/run-$w" >"$T/tree-$w"
	done
	for w in ${DDCMP_WAYS:-sub link}; do
		for f in out err rc tree; do
			cmp -s "$T/$f-stock" "$T/$f-$w" || {
				diff "$T/$f-stock" "$T/$f-$w" | head -20 >&2
				fail "dpkg-deb $* ($w): $f differs"
			}
		done
	done
}
