/* SPDX-License-Identifier: GPL-2.0-or-later */
/* zseg-index.h - (stub, to be written) */
