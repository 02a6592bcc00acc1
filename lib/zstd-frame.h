/* SPDX-License-Identifier: GPL-2.0-or-later */
/* zstd-frame.h - (stub, to be written) */
