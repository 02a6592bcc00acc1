/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ar.c - (stub, to be written) */
#include "config.h"
