/* SPDX-License-Identifier: GPL-2.0-or-later */
/* deb.c - (stub, to be written) */
#include "config.h"
