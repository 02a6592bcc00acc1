/* SPDX-License-Identifier: GPL-2.0-or-later */
/* treewalk.h - (stub, to be written) */
