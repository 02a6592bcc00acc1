/* SPDX-License-Identifier: GPL-2.0-or-later */
/* control.c - (stub, to be written) */
#include "config.h"
