/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zseg-write.h - zstd writers for the segmented layouts: indexed (one frame
 * of independently compressed segments plus a trailing index), frames
 * (concatenated frames) and pzstd (pzstd's skippable headers)
 */
#ifndef ZDEB_ZSEG_WRITE_H
#define ZDEB_ZSEG_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "lib/error.h"
#include "lib/params.h"

/*
 * Compresses in_fd[0, in_size) (read with pread, so in_fd must be
 * seekable) to out_fd (written sequentially: a pipe is fine) in layout
 * p->layout on p->threads threads, with at most 2 * threads segments in
 * memory, and (indexed) the input of the next two targets and a window
 * that the cut policy looks at before it chooses (zseg-cut.h).
 * The bytes depend only on the input, p->level, p->zstd_long,
 * p->segment_size and p->layout, never on p->threads.
 *
 * INDEXED: one frame (checksum, content size, window <= 2^27) of segments
 * cut after 17 identical bytes where a cut costs least, then the index
 * (zseg-index.h).  FRAMES:
 * independent frames (checksum, content size) of the target size or a
 * little more: each ends at the first place after the target where a
 * reader that stops there fails (lib/tar-cut.h: inside a regular file's
 * data, off the 512-byte grid; any input that is no tar, off the grid),
 * because stock dpkg stops at the end of the first frame.  PZSTD: the
 * same frames (checksum, no content size) of 4 windows, each but the
 * first after pzstd's 12-byte skippable frame (0x184D2A50, the next
 * frame's compressed size).  The first has none: stock dpkg would stop at
 * the end of that skippable frame, and take the member for an empty tar;
 * pzstd -d still reads the whole, on one thread.
 *
 * Returns 0, or -1 with err set: ZD_E_IO, ZD_E_NOMEM, ZD_E_USAGE (libzstd
 * refused a parameter), ZD_E_LIMIT, ZD_E_INTERNAL.
 */
int zd_zseg_compress(const struct zd_comp_params *p, int in_fd,
                     uint64_t in_size, int out_fd, struct zd_error *err);

/*
 * The same writer, fed as the input is made: zd_zseg_writer_new() (in_size:
 * the exact input size, or -1 when unknown, in which case out_fd must be
 * seekable: room is left for the frame header, written at the end), then
 * zd_zseg_writer_write() (usable as a zd_sink), then
 * zd_zseg_writer_finish(), which gives the member's first byte in out_fd
 * (always out_fd's offset when the writer was made: nothing is left before
 * the member, so it can be written in place inside a .deb) and its size,
 * with out_fd's offset just after it, then zd_zseg_writer_free()
 * (always).  The bytes are the same as zd_zseg_compress() writes for the
 * same input.
 */
struct zd_zseg_writer;
struct zd_zseg_writer *zd_zseg_writer_new(const struct zd_comp_params *p,
                                          int out_fd, int64_t in_size,
                                          struct zd_error *err);
int zd_zseg_writer_write(void *w, const void *buf, size_t len,
                         struct zd_error *err);
int zd_zseg_writer_finish(struct zd_zseg_writer *w, uint64_t *start,
                          uint64_t *size, struct zd_error *err);
void zd_zseg_writer_free(struct zd_zseg_writer *w);
/* After zd_zseg_writer_finish(): how many zstd frames the member has (1
 * in the indexed layout, one per segment in the others). */
uint64_t zd_zseg_writer_frames(const struct zd_zseg_writer *w);

/*
 * The target segment size: p->segment_size if set; for PZSTD 4 windows;
 * else one segment below 1 MiB of input, and otherwise pzstd's frame size
 * for the level (2 MiB at levels <= 1, 4 MiB at 2, 8 MiB at 3-8, 16 MiB
 * at 9-16, 32 MiB at 17-19, 64 MiB at 20-22 and with long mode).  An
 * indexed cut lands after a run of 17 identical bytes between half the
 * target and the target, the one that costs least (zseg-cut.h), else at
 * the first one after the target, and never leaves less than target/16
 * after it.
 */
uint64_t zd_zseg_target_size(const struct zd_comp_params *p,
                             uint64_t in_size);

#endif
