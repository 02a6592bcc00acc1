/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pkgcheck.c - (stub, to be written) */
#include "config.h"
