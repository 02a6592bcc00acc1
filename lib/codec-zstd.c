/* SPDX-License-Identifier: GPL-2.0-or-later */
/* codec-zstd.c - (stub, to be written) */
#include "config.h"
