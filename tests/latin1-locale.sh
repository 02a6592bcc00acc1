#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# latin1-locale.sh DIR - makes the Latin-1 locale the listing tests run
# in, en_US.ISO-8859-1, under DIR with localedef, leaving the system's
# locales alone.  Use it as
#   LOCPATH=DIR:/usr/lib/locale LC_ALL=en_US.ISO-8859-1 ...
# (LOCPATH replaces glibc's default search, hence /usr/lib/locale for
# C.UTF-8).  Needs the locales package (Build-Depends).  Exits 1 with
# the reason when the locale cannot be made.
set -u
dir=${1:?usage: latin1-locale.sh DIR}
mkdir -p "$dir" || exit 1
[ -f "$dir/en_US.ISO-8859-1/LC_CTYPE" ] && exit 0
if ! command -v localedef >/dev/null 2>&1; then
	echo "latin1-locale.sh: localedef not found" >&2
	exit 1
fi
if [ ! -f /usr/share/i18n/locales/en_US ]; then
	echo "latin1-locale.sh: no /usr/share/i18n/locales/en_US" \
	     "(install the locales package)" >&2
	exit 1
fi
# localedef exits 1 on warnings alone; the check below decides.
localedef -i en_US -f ISO-8859-1 "$dir/en_US.ISO-8859-1" >/dev/null 2>&1
got=$(LOCPATH="$dir:/usr/lib/locale" LC_ALL=en_US.ISO-8859-1 \
      locale charmap 2>/dev/null)
if [ "$got" != ISO-8859-1 ]; then
	echo "latin1-locale.sh: localedef made no usable en_US.ISO-8859-1" \
	     "in $dir" >&2
	exit 1
fi
