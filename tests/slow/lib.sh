# SPDX-License-Identifier: GPL-2.0-or-later
# tests/slow/lib.sh - sourced by the slow tests after tests/integ/lib.sh.
# Provides: slow_mirror (the Debian mirror of this host's apt sources),
# slow_probe URL (skip unless reachable), slow_minbase SUITE MIRROR DIR
# (a debootstrap --variant=minbase chroot, from a cache when there is one),
# slow_dpkg_source (Debian 12's dpkg source, cached), slow_dpkg_at_dir
# (a directory to run dpkg's autotest suite on a given dpkg-deb), and for
# the repo tests slow_repo_debs (t9030's packages), slow_repo_subset,
# slow_slurm_start and slow_nginx_start (daemons on 127.0.0.1, stopped by
# slow_stop_daemons), slow_index_ok/slow_check_index (Packages stanzas
# against their files), slow_pool_sums and slow_results_count.

# slow_mirror: "URI SUITE" of the first apt source of this host whose
# suite is its release (not -updates or -security), from
# /etc/apt/sources.list.d/*.sources, else /etc/apt/sources.list;
# ZDEB_MIRROR and ZDEB_SUITE, when set, win.  Skips when there is none.
slow_mirror() {
	codename=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
	suite=${ZDEB_SUITE:-$codename}
	[ -n "$suite" ] || skip "cannot tell the host's codename; set ZDEB_SUITE"
	if [ -n "${ZDEB_MIRROR:-}" ]; then
		echo "$ZDEB_MIRROR $suite"
		return
	fi
	uri=$(for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk -v s="$suite" '
			function end() { if (deb && ok && u != "") { print u; exit } deb = ok = 0; u = "" }
			/^[ \t]*$/ { end(); next }
			/^Types:/ { for (i = 2; i <= NF; i++) if ($i == "deb") deb = 1 }
			/^URIs:/ { u = $2 }
			/^Suites:/ { for (i = 2; i <= NF; i++) if ($i == s) ok = 1 }
			END { end() }' "$f"
	done | head -1)
	if [ -z "$uri" ] && [ -f /etc/apt/sources.list ]; then
		uri=$(awk -v s="$suite" '$1 == "deb" {
			i = 2; if ($2 ~ /^\[/) while ($i !~ /\]$/) i++
			if ($2 ~ /^\[/) i++
			if ($(i + 1) == s) { print $i; exit } }' /etc/apt/sources.list)
	fi
	[ -n "$uri" ] || skip "no apt source for $suite on this host; set ZDEB_MIRROR"
	echo "${uri%/} $suite"
}

# slow_probe URL: skip (77) unless URL can be fetched.
slow_probe() {
	if command -v curl >/dev/null 2>&1; then
		curl -fsS --max-time 20 -o /dev/null "$1" 2>"$T/net" ||
			skip "network: cannot fetch $1: $(cat "$T/net")"
	elif command -v python3 >/dev/null 2>&1; then
		python3 -c 'import sys, urllib.request
urllib.request.urlopen(sys.argv[1], timeout=20).read(1)' "$1" 2>"$T/net" ||
			skip "network: cannot fetch $1: $(tail -1 "$T/net")"
	else
		skip "no curl or python3 to probe $1"
	fi
}

# slow_minbase SUITE MIRROR DIR [INCLUDE]: a minbase chroot in DIR.  A
# tarball of one made less than 7 days ago from the same mirror is
# unpacked instead when ZDEB_SLOW_CACHE (default /var/cache/zdeb-tests)
# holds one; a new one is saved there.  Skips when debootstrap fails.
slow_minbase() {
	cache=${ZDEB_SLOW_CACHE:-/var/cache/zdeb-tests}
	key=$(printf '%s %s %s' "$2" "$4" "$(dpkg --print-architecture)" |
	      sha256sum | cut -c1-12)
	tarball=$cache/minbase-$1-$key.tar
	mkdir -p "$3"
	if [ -f "$tarball" ] && [ -n "$(find "$tarball" -mtime -7)" ] &&
	   tar -C "$3" -xf "$tarball" 2>/dev/null; then
		echo "# minbase $1 from the cache $tarball" >&2
		return
	fi
	echo "# debootstrap --variant=minbase $1 from $2" >&2
	debootstrap --variant=minbase ${4:+--include=$4} "$1" "$3" "$2" \
		>"$T/debootstrap.log" 2>&1 ||
		skip "debootstrap $1 failed (network or mirror): $(tail -3 "$T/debootstrap.log")"
	if mkdir -p "$cache" 2>/dev/null &&
	   tar -C "$3" --numeric-owner -cf "$tarball.$$.tmp" . 2>/dev/null; then
		# Slow tests run two at once: each writes its own, the last
		# rename wins.
		mv "$tarball.$$.tmp" "$tarball"
	else
		rm -f "$tarball.$$.tmp"
	fi
}

# slow_repo_debs SUITE MIRROR R S TOOLS: the packages that TOOLS need
# beyond a minbase chroot, as apt-get would install them, fetched with
# "apt-get download" from MIRROR into the directory S (t9030's
# repository).  R is the chroot (slow_minbase), left with apt's lists and
# without /proc mounted.  Sets npkgs; skips when the mirror fails.
slow_repo_debs() {
	slow_minbase "$1" "$2" "$3" libarchive13,libxxhash0
	cp /etc/resolv.conf "$3/etc/resolv.conf" 2>/dev/null || true
	mount -t proc proc "$3/proc"
	chroot "$3" apt-get update -q >"$T/update.log" 2>&1 || {
		umount "$3/proc"
		skip "apt-get update in the chroot failed: $(tail -3 "$T/update.log")"
	}
	chroot "$3" apt-get -s -q --no-install-recommends install $5 \
		>"$T/sim.log" 2>&1 || {
		umount "$3/proc"
		fail "apt-get -s install: $(tail -5 "$T/sim.log")"
	}
	pkgs=$(awk '/^Inst / { v = $3; gsub(/[()]/, "", v); print $2 "=" v }' \
		"$T/sim.log")
	npkgs=$(echo "$pkgs" | wc -l)
	[ "$npkgs" -ge 20 ] || {
		umount "$3/proc"
		fail "only $npkgs packages to fetch: $(cat "$T/sim.log")"
	}
	mkdir -p "$3/tmp/src"
	chroot "$3" sh -c "cd /tmp/src && apt-get download -q $(echo $pkgs)" \
		>"$T/download.log" 2>&1 || {
		umount "$3/proc"
		skip "apt-get download: $(tail -3 "$T/download.log")"
	}
	umount "$3/proc"
	mv "$3/tmp/src" "$4"
	[ "$(ls "$4"/*.deb | wc -l)" -eq "$npkgs" ] ||
		fail "downloaded $(ls "$4" | wc -l) of $npkgs"
}

# slow_repo_subset S N DIR: the N packages of S around the median size
# (real packages, none of the largest) copied to DIR; for the tests that
# convert a repository several times over.
slow_repo_subset() {
	mkdir -p "$3"
	total=$(ls "$1"/*.deb | wc -l)
	from=$(((total - $2) / 2))
	[ "$from" -ge 0 ] || from=0
	ls -S "$1"/*.deb | tail -n +$((from + 1)) | head -n "$2" |
		while read -r f; do cp "$f" "$3/"; done
}

# slow_free_port: a TCP port of 127.0.0.1 free now (the kernel's pick).
slow_free_port() {
	python3 -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# slow_pids: the PIDs of the daemons the slow_*_start functions started,
# which slow_stop_daemons kills (TERM, then KILL after 10 s), having
# cancelled the jobs of the Slurm that slow_slurm_start started, if any
# (slurmd leaves its running jobs to their slurmstepd); call it from the
# test's EXIT trap.  slow_traps: INT, TERM and HUP exit, so that the EXIT
# trap runs in every shell.
slow_pids=
slow_slurm=
slow_traps() {
	trap 'exit 130' INT
	trap 'exit 143' TERM
	trap 'exit 129' HUP
}
slow_stop_daemons() {
	if [ -n "$slow_slurm" ]; then
		scancel --quiet --full --user=root 2>/dev/null || true
		i=0
		while [ -n "$(squeue -h 2>/dev/null)" ] && [ "$i" -lt 100 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		slow_slurm=
	fi
	for p in $slow_pids; do
		kill "$p" 2>/dev/null || true
	done
	for p in $slow_pids; do
		i=0
		while kill -0 "$p" 2>/dev/null && [ "$i" -lt 100 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		kill -9 "$p" 2>/dev/null || true
	done
	slow_pids=
}

# slow_slurm_start DIR: a one-node Slurm cluster on 127.0.0.1 from
# Debian's packages (munged, slurmctld, slurmd in the foreground, in the
# background, their PIDs in slow_pids), its key, configuration, state and
# logs in DIR, on ports free now.  Exports SLURM_CONF (sbatch, squeue and
# scancel then talk to it); the node "localhost" has 2 CPUs and memory
# for 2 tasks of zdeb-repo.sbatch.  Returns 1 (the reason in
# DIR/why) when it is not up and idle within 60 s.
slow_slurm_start() {
	sd=$1
	mkdir -p "$sd/state" "$sd/spool" "$sd/log" "$sd/out"
	chmod 700 "$sd"
	for c in munged slurmctld slurmd sbatch squeue scancel sinfo; do
		command -v "$c" >/dev/null 2>&1 ||
			{ echo "$c not installed" >"$sd/why"; return 1; }
	done
	head -c 1024 /dev/urandom >"$sd/munge.key"
	chmod 400 "$sd/munge.key"
	munged -F --force --key-file="$sd/munge.key" \
		--socket="$sd/munge.sock" --pid-file="$sd/munged.pid" \
		--log-file="$sd/log/munged.log" --seed-file="$sd/munged.seed" \
		>"$sd/log/munged.out" 2>&1 &
	slow_pids="$slow_pids $!"
	mem=$(awk '/^MemTotal:/ { m = int($2 / 1024 / 2)
		print (m > 8192 ? 8192 : m) }' /proc/meminfo)
	p1=$(slow_free_port)
	p2=$(slow_free_port)
	cat >"$sd/slurm.conf" <<CONF
ClusterName=zdebtest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$p1
SlurmdPort=$p2
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$sd/munge.sock
CredType=cred/munge
StateSaveLocation=$sd/state
SlurmdSpoolDir=$sd/spool
SlurmctldPidFile=$sd/slurmctld.pid
SlurmdPidFile=$sd/slurmd.pid
SlurmctldLogFile=$sd/log/slurmctld.log
SlurmdLogFile=$sd/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
MpiDefault=none
SwitchType=switch/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
SchedulerParameters=defer
SchedulerTimeSlice=5
MinJobAge=300
NodeName=localhost NodeAddr=127.0.0.1 NodeHostname=localhost CPUs=2 RealMemory=$mem State=UNKNOWN
PartitionName=zdeb Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
	export SLURM_CONF="$sd/slurm.conf"
	i=0
	while [ ! -S "$sd/munge.sock" ]; do
		i=$((i + 1))
		[ "$i" -lt 100 ] || { echo "munged: $(tail -3 \
			"$sd/log/munged.log" "$sd/log/munged.out" 2>&1)" \
			>"$sd/why"; return 1; }
		sleep 0.1
	done
	slurmctld -D -i -f "$sd/slurm.conf" >"$sd/log/slurmctld.out" 2>&1 &
	slow_pids="$slow_pids $!"
	slow_slurm=$sd
	slurmd -D -N localhost -f "$sd/slurm.conf" >"$sd/log/slurmd.out" 2>&1 &
	slow_pids="$slow_pids $!"
	i=0
	until [ "$(sinfo -h -n localhost -o %t 2>/dev/null)" = idle ]; do
		i=$((i + 1))
		[ "$i" -lt 120 ] || { echo "node not idle in 60 s ($(sinfo \
			-h -o %t 2>&1)): $(tail -3 "$sd/log/slurmctld.log" \
			"$sd/log/slurmd.log" 2>&1)" >"$sd/why"; return 1; }
		sleep 0.5
	done
}

# slow_nginx_start DIR ROOT PORT: Debian's nginx (nginx-light) serving
# ROOT on 127.0.0.1:PORT, configuration, logs and temporary files in DIR,
# in the foreground, in the background (its PID in slow_pids).  Returns
# 1 (the reason in DIR/why) when it does not answer within 10 s.
slow_nginx_start() {
	nd=$1
	mkdir -p "$nd/tmp"
	cat >"$nd/nginx.conf" <<CONF
daemon off;
master_process off;
worker_processes 1;
pid $nd/nginx.pid;
error_log $nd/error.log;
events { worker_connections 64; }
http {
	access_log $nd/access.log;
	client_body_temp_path $nd/tmp/body;
	proxy_temp_path $nd/tmp/proxy;
	fastcgi_temp_path $nd/tmp/fastcgi;
	uwsgi_temp_path $nd/tmp/uwsgi;
	scgi_temp_path $nd/tmp/scgi;
	default_type application/octet-stream;
	server {
		listen 127.0.0.1:$3;
		root $2;
		autoindex on;
	}
}
CONF
	command -v nginx >/dev/null 2>&1 ||
		{ echo "nginx not installed" >"$nd/why"; return 1; }
	nginx -p "$nd" -c "$nd/nginx.conf" >"$nd/nginx.out" 2>&1 &
	slow_pids="$slow_pids $!"
	i=0
	until curl -fsS -o /dev/null "http://127.0.0.1:$3/" 2>/dev/null; do
		i=$((i + 1))
		[ "$i" -lt 100 ] || { echo "nginx: $(cat "$nd/nginx.out" \
			"$nd/error.log" 2>&1 | tail -3)" >"$nd/why"; return 1; }
		sleep 0.1
	done
}

# slow_index_ok DST [N]: every stanza of every Packages index under
# DST/dists names a file of DST whose size and SHA-256 are its Size and
# SHA256 (apt's download check); false, the first that does not named in
# $T/index-check, when one does not or the indexes list no package (or
# not N when N is given).  slow_check_index DST [N]: the same, failing
# the test.
slow_check_index() {
	slow_index_ok "$@" || fail "index check: $(cat "$T/index-check")"
}
slow_index_ok() {
	python3 - "$1" "${2:-}" >"$T/index-check" 2>&1 <<'PY'

import glob, hashlib, os, sys
dst, want = sys.argv[1], sys.argv[2]
n = 0
idx = glob.glob(os.path.join(dst, "dists/*/*/binary-*/Packages"))
if not idx:
    sys.exit("no Packages index under %s/dists" % dst)
for p in idx:
    for st in open(p, encoding="utf-8").read().split("\n\n"):
        f = dict(l.split(": ", 1) for l in st.splitlines()
                 if ": " in l and not l.startswith(" "))
        if not f:
            continue
        n += 1
        path = os.path.join(dst, f["Filename"])
        try:
            data = open(path, "rb").read()
        except OSError as e:
            sys.exit("%s: %s: %s" % (p, f["Filename"], e))
        if len(data) != int(f["Size"]):
            sys.exit("%s: %s is %d bytes, Size: %s" %
                     (p, f["Filename"], len(data), f["Size"]))
        if hashlib.sha256(data).hexdigest() != f["SHA256"]:
            sys.exit("%s: %s: SHA256 differs from the index" %
                     (p, f["Filename"]))
if n == 0 or (want and n != int(want)):
    sys.exit("the indexes list %d packages, expected %s" % (n, want or ">0"))
print(n)
PY
}

# slow_pool_sums DST: "SHA-256  path" of every file under DST/pool,
# sorted by path (to compare two conversions byte for byte).
slow_pool_sums() {
	(cd "$1" && find pool -type f | LC_ALL=C sort | xargs -r sha256sum)
}

# slow_results_count DST: how many job results DST holds.
slow_results_count() {
	ls "$1/.zdeb-repo/results" 2>/dev/null | grep -c '\.json$' || true
}

# slow_dpkg_source: sets dpkg_tarball to Debian 12's dpkg source tarball
# and cache to its directory, ZDEB_SLOW_CACHE/dpkg-source-bookworm, first
# downloading the source package (about 5 MB) there when it is missing:
# apt-get in a private configuration asking the host's mirror (slow_mirror)
# for bookworm's sources, checked with the Debian archive keyring.  Skips
# without the mirror or the keyring.
slow_dpkg_source() {
	cache=${ZDEB_SLOW_CACHE:-/var/cache/zdeb-tests}/dpkg-source-bookworm
	if ! ls "$cache"/dpkg_*.tar.* >/dev/null 2>&1; then
		m=$(slow_mirror) || exit 77
		uri=${m%% *}
		keyring=/usr/share/keyrings/debian-archive-keyring.gpg
		[ -f "$keyring" ] ||
			skip "no $keyring to check the mirror's signature"
		apt=$T/apt
		mkdir -p "$apt/parts" "$apt/lists/partial" \
		         "$apt/cache/archives/partial" "$T/dl"
		cat >"$apt/parts/dpkg-src.sources" <<EOS
Types: deb-src
URIs: $uri
Suites: bookworm
Components: main
Signed-By: $keyring
EOS
		set -- -o Dir::Etc::SourceList=/dev/null \
		       -o Dir::Etc::SourceParts="$apt/parts" \
		       -o Dir::State::Lists="$apt/lists" \
		       -o Dir::Cache="$apt/cache" \
		       -o APT::Sandbox::User=root -q
		apt-get "$@" update >"$T/apt.log" 2>&1 ||
			skip "cannot read the Debian mirror's source index ($uri): $(tail -n 1 "$T/apt.log")"
		(cd "$T/dl" && apt-get "$@" source --download-only dpkg) \
			>>"$T/apt.log" 2>&1 ||
			skip "cannot download dpkg's source package from $uri: $(tail -n 1 "$T/apt.log")"
		ls "$T/dl"/dpkg_*.dsc >/dev/null 2>&1 ||
			fail "apt-get source left no .dsc: $(ls "$T/dl")"
		mkdir -p "$(dirname "$cache")"
		rm -rf "$cache.$$.new"
		mv "$T/dl" "$cache.$$.new"
		# Slow tests run two at once: when both fetched, the first
		# rename wins (a rename onto a full directory fails).
		[ -d "$cache" ] && ! ls "$cache"/dpkg_*.tar.* >/dev/null 2>&1 &&
			rm -rf "$cache"
		mv -T "$cache.$$.new" "$cache" 2>/dev/null ||
			rm -rf "$cache.$$.new"
	fi
	dpkg_tarball=$(ls "$cache"/dpkg_*.tar.* 2>/dev/null |
	               grep -v '\.asc$' | head -n 1)
	[ -n "$dpkg_tarball" ] || fail "no dpkg source tarball in $cache"
}

# slow_dpkg_at_dir DIR PROG SRC SUITE: a directory DIR to run SUITE, the
# autotest suite built from the dpkg source tree SRC (src/at), on the
# dpkg-deb PROG: atconfig and atlocal as AC_CONFIG_TESTDIR and configure
# would write them, and DIR/bin/dpkg-deb a symlink to PROG (so that zdeb
# sees argv[0] = dpkg-deb) first in PATH.
slow_dpkg_at_dir() {
	d=$1
	mkdir -p "$d/bin"
	ln -s "$2" "$d/bin/dpkg-deb"
	cp "$4" "$d/testsuite"
	cat >"$d/atconfig" <<EOS
at_testdir='src/at'
abs_builddir='$d'
at_srcdir='$3/src/at'
abs_srcdir='$3/src/at'
at_top_srcdir='$3'
abs_top_srcdir='$3'
at_top_build_prefix='$3/'
abs_top_builddir='$3'
AUTOTEST_PATH='$d/bin'
SHELL=\${CONFIG_SHELL-'/bin/sh'}
EOS
	sed -e "s|@SED@|sed|g; s|@PERL@|perl|g; s|@GREP@|grep|g" \
	    -e "s|@EGREP@|grep -E|g; s|@TAR@|tar|g; s|@prefix@|/usr|g" \
	    -e "s|@admindir@|/var/lib/dpkg|g" \
	    -e "s|@abs_top_builddir@/src|$d/bin|g" \
	    -e "s|@abs_top_srcdir@|$3|g; s|@abs_top_builddir@|$3|g" \
	    "$3/src/at/atlocal.in" >"$d/atlocal"
	grep -q "^PATH=\"$d/bin:" "$d/atlocal" ||
		fail "atlocal.in's PATH line changed: $(grep '^PATH' "$d/atlocal")"
}

# slow_zdeb_debs DIR: zdeb's own binary packages (zdeb, zdeb-perf, dh-zdeb,
# zdeb-dpkg), built by "dpkg-buildpackage -b" from a copy of ZDEB_SRCDIR
# in DIR/src, so into DIR; the package's own test run is left out
# (DEB_BUILD_OPTIONS=nocheck: make check has run).  The log is
# $T/build.log.  Skips without debhelper 13, fails when the build fails.
slow_zdeb_debs() {
	: "${ZDEB_SRCDIR:?ZDEB_SRCDIR must point to the source tree}"
	need dpkg-buildpackage dh tar
	dpkg-checkbuilddeps -d 'debhelper-compat (= 13)' /dev/null \
		2>/dev/null || skip "debhelper 13 not installed"
	mkdir -p "$1/src"
	(cd "$ZDEB_SRCDIR" && tar -cf - --exclude=./_build --exclude=./.git \
		--exclude='./debian/build' --exclude='./autom4te.cache' .) |
		tar -xf - -C "$1/src"
	(cd "$1/src" && DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage -us -uc -b) \
		>"$T/build.log" 2>&1 ||
		fail "dpkg-buildpackage: $(tail -20 "$T/build.log")"
}

# slow_installed_ok TREE ROOT: every entry of the package tree TREE is in
# ROOT, with the same type, mode, size, content and link target; the
# difference is in $T/bad otherwise (status 1).
slow_installed_ok() {
	manifest "$1" >"$T/want"
	cut -d' ' -f1 "$T/want" | manifest_paths "$2" >"$T/got"
	diff "$T/want" "$T/got" >"$T/bad"
}

# slow_dpkg_download DIR: this host's dpkg .deb (apt-get download, the
# host's suite, which is the chroots'), printed as a path; status 1 when
# apt cannot get it.
slow_dpkg_download() {
	(cd "$1" && apt-get download dpkg >/dev/null 2>&1) || return 1
	set -- "$1"/dpkg_*.deb
	[ -f "$1" ] || return 1
	echo "$1"
}

# slow_dpkg_clean ROOT: "dpkg --verify dpkg" in the chroot ROOT says
# nothing and /usr/bin/dpkg-deb is a regular file that runs; fails the test
# otherwise.
slow_dpkg_clean() {
	[ -f "$1/usr/bin/dpkg-deb" ] && [ ! -L "$1/usr/bin/dpkg-deb" ] ||
		fail "no regular dpkg-deb: $(ls -l "$1/usr/bin/dpkg-deb"*)"
	chroot "$1" dpkg --verify dpkg >"$T/verify" 2>&1 ||
		fail "dpkg --verify dpkg: $(cat "$T/verify")"
	[ ! -s "$T/verify" ] || fail "dpkg --verify dpkg: $(cat "$T/verify")"
	chroot "$1" dpkg-deb --version >/dev/null || fail "dpkg-deb broken"
}
