/* SPDX-License-Identifier: GPL-2.0-or-later */
/* build.h - (stub, to be written) */
