/* SPDX-License-Identifier: GPL-2.0-or-later */
/* codec.c - (stub, to be written) */
#include "config.h"
