/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sched.c - (stub, to be written) */
#include "config.h"
