/* SPDX-License-Identifier: GPL-2.0-or-later */
/* zstd-frame.c - (stub, to be written) */
#include "config.h"
