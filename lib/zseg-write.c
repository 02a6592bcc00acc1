/* SPDX-License-Identifier: GPL-2.0-or-later */
/* zseg-write.c - (stub, to be written) */
#include "config.h"
