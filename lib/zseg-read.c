/* SPDX-License-Identifier: GPL-2.0-or-later */
/* zseg-read.c - (stub, to be written) */
#include "config.h"
