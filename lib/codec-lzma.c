/* SPDX-License-Identifier: GPL-2.0-or-later */
/* codec-lzma.c - (stub, to be written) */
#include "config.h"
