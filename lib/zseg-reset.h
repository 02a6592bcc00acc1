/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zseg-reset.h - the blocks that end a segment inside the indexed outer
 * frame (zdeb-format(5), "Segments")
 */
#ifndef ZDEB_ZSEG_RESET_H
#define ZDEB_ZSEG_RESET_H

#define ZD_ZSEG_RESET_SIZE	20

/* The two reset blocks (zdeb-format(5), "Segments"). */
extern const unsigned char zd_zseg_reset[ZD_ZSEG_RESET_SIZE];

#endif
