# SPDX-License-Identifier: GPL-2.0-or-later
# zdeb.pm - the dh add-on of dh-zdeb ("Build-Depends: dh-sequence-zdeb" or
# "dh $@ --with zdeb"): dh_builddeb builds the packages through zdeb
#
# dh runs dh_builddeb from PATH, in its own sequence and in any
# override_dh_builddeb target alike, and dh_builddeb runs dpkg-deb from
# PATH.  So the add-on puts dh-zdeb/bin in front of PATH: its dh_builddeb
# runs the real one with dh-zdeb/builddeb in front of PATH, whose dpkg-deb
# sends --build to zdeb's dpkg-deb (zstd, indexed layout, DH_ZDEB_OPTIONS,
# then dh_builddeb's own "-- params") and anything else to the dpkg-deb
# behind it.  The build and the tests keep the system's dpkg-deb.
# dh-zdeb is ../../../../dh-zdeb from this file, in the installed tree
# (/usr/share/perl5 and /usr/share/dh-zdeb) as in zdeb's source tree
# (dh/perl5 and dh/dh-zdeb), so nothing is created and nothing can end up
# in a package.  See dh-zdeb(7).
use strict;
use warnings;
use File::Basename qw(dirname);
use File::Spec;
use Debian::Debhelper::Dh_Lib qw(error);

my $shim = File::Spec->rel2abs(dirname(__FILE__) .
                               '/../../../../dh-zdeb/bin');
$shim = File::Spec->canonpath($shim);
-x "$shim/dh_builddeb" or
	error("dh-zdeb: no $shim/dh_builddeb: is dh-zdeb whole?");
my @path = split(/:/, $ENV{PATH} // '/usr/bin:/bin');
$ENV{PATH} = join(':', $shim, grep { $_ ne $shim } @path);

1;
