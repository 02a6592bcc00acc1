/* SPDX-License-Identifier: GPL-2.0-or-later */
/* zdeb.h - libzdeb public header: includes every module header */
#ifndef ZDEB_H
#define ZDEB_H
#include "lib/codec.h"
#include "lib/error.h"
#include "lib/fdio.h"
#endif
