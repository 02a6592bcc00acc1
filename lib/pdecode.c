/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pdecode.c - (stub, to be written) */
#include "config.h"
