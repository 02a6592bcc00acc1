/* SPDX-License-Identifier: GPL-2.0-or-later */
/* zseg-read.h - (stub, to be written) */
