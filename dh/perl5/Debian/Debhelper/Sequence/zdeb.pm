# SPDX-License-Identifier: GPL-2.0-or-later
# zdeb.pm - the dh add-on of dh-zdeb ("Build-Depends: dh-sequence-zdeb" or
# "dh $@ --with zdeb"): dh_builddeb builds the packages through zdeb
#
# dh_builddeb runs "dpkg-deb" from PATH, in dh's own sequence and in any
# override_dh_builddeb target alike, so the add-on puts a directory whose
# dpkg-deb is a small script in front of PATH: --build goes to zdeb's
# dpkg-deb (zstd, indexed layout, DH_ZDEB_OPTIONS, then dh_builddeb's own
# "-- params"), everything else to the dpkg-deb behind it in PATH.  That
# directory is ../../../../dh-zdeb from this file, in the installed tree
# (/usr/share/perl5 and /usr/share/dh-zdeb) as in zdeb's source tree
# (dh/perl5 and dh/dh-zdeb), so the package is unchanged and nothing is
# created.  See dh-zdeb(7).
use strict;
use warnings;
use File::Basename qw(dirname);
use File::Spec;
use Debian::Debhelper::Dh_Lib qw(error);

my $shim = File::Spec->rel2abs(dirname(__FILE__) . '/../../../../dh-zdeb');
$shim = File::Spec->canonpath($shim);
-x "$shim/dpkg-deb" or error("dh-zdeb: no $shim/dpkg-deb: is dh-zdeb whole?");
my @path = split(/:/, $ENV{PATH} // '/usr/bin:/bin');
$ENV{PATH} = join(':', $shim, grep { $_ ne $shim } @path);

1;
