/* SPDX-License-Identifier: GPL-2.0-or-later */
/* extract.h - (stub, to be written) */
