#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# check-readme.sh - every link and file name that README.md and doc/*.md
# give resolves in the source tree: markdown links [text](target) (a
# relative target must exist; http(s) and mailto ones are not fetched),
# and every `path` in backquotes that names a file or directory of the
# tree (it starts with one of its top-level directories, or is a
# top-level file) must exist.  The README must stay a front page: at most
# 150 lines.  Prints one line per name checked; fails on the first
# missing one with the file and line that gives it.
set -u
top=${ZDEB_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$top" || exit 2
status=0
checked=0

bad() {
	echo "FAIL: $1:$2: '$3' does not exist in the source tree" >&2
	status=1
}

# exists PATH: PATH is in the source tree, or is made by the build from
# PATH.in (src/perf/zdeb-perf), or is debian/build/X, the package build's
# build directory, whose X the build tree has (debian/build/src/zdeb).
exists() {
	[ -e "$1" ] || [ -e "$1.in" ] && return 0
	case $1 in
	debian/build/?*)
		[ -e "${ZDEB_BUILDDIR:-_build}/${1#debian/build/}" ] ;;
	*)	return 1 ;;
	esac
}

# Top-level entries of the tree: a backquoted word starting with one of
# these names a path (`lib/x.c`, `tools/test`), others are commands.
tops=$(ls -A | grep -vxE '\.git|_build.*|autom4te\.cache' | tr '\n' '|')
tops=${tops%|}

for f in README.md doc/*.md; do
	[ -f "$f" ] || continue
	dir=$(dirname "$f")
	n=0
	while IFS= read -r line; do
		n=$((n + 1))
		# Markdown links.
		for t in $(printf '%s\n' "$line" |
		           grep -oE '\]\([^)[:space:]]+\)' | sed 's/^](//; s/)$//'); do
			case $t in
			http://*|https://*|mailto:*|'#'*) continue ;;
			esac
			t=${t%%#*}
			checked=$((checked + 1))
			[ -e "$dir/$t" ] || bad "$f" "$n" "$t"
		done
		# Backquoted paths: `dir/...` or a top-level file.
		for t in $(printf '%s\n' "$line" | grep -oE '`[^` ]+`' | tr -d '`'); do
			p=${t%%[:,;]}
			case $p in
			*'*'*|*'$'*|*'...'*|*'{'*|*'<'*|*KEY*|*HOST*|*=*) continue ;;
			esac
			printf '%s\n' "$p" | grep -qE "^($tops)(/|\$)" || continue
			checked=$((checked + 1))
			exists "$p" || bad "$f" "$n" "$p"
		done
	done <"$f"
done
lines=$(wc -l <README.md)
if [ "$lines" -gt 150 ]; then
	echo "FAIL: README.md has $lines lines; a front page has at most 150" >&2
	status=1
fi
echo "checked $checked links and file names in README.md and doc/*.md; README.md has $lines lines"
exit $status
