/* SPDX-License-Identifier: GPL-2.0-or-later */
/* memberdec.h - (stub, to be written) */
