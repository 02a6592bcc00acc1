/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * deb-encoder.h - a member's compressor, fed while its tar stream is made
 *
 * The zstd segmented layouts (indexed, frames, pzstd) compress as the
 * bytes arrive, on the worker pool; xz and gzip as they arrive too
 * (zd_cstream); with no compression the bytes go straight into the
 * member.  Only zstd's single and dpkg layouts, whose frame is made from
 * the whole input, get the stream spooled to a temporary file and
 * compressed from it at the end, as zd_compress() does.  The member is
 * written at the output's current offset, in place inside a .deb being
 * written (lib/deb-write.h).
 */
#ifndef ZDEB_DEB_ENCODER_H
#define ZDEB_DEB_ENCODER_H

#include <stdint.h>

#include "lib/codec.h"
#include "lib/error.h"

struct zd_encoder;

/* Checks p (see zd_comp_params_check) and starts.  The member goes to
 * out_fd (seekable; it stays the caller's) from its current offset.
 * in_size: the bytes that will be fed, or -1 when not known (the indexed
 * layout then cuts as the bytes come instead of balancing its segments:
 * other bytes; zseg-cut.h).  p must outlive the encoder.  NULL with err
 * set. */
struct zd_encoder *zd_deb_encoder_new(const struct zd_comp_params *p,
                                      int out_fd, int64_t in_size,
                                      struct zd_error *err);
/* Progress: called with the bytes fed so far, each time another
 * ZD_ENCODER_PROGRESS_EVERY of them has been fed. */
typedef void (*zd_encoder_progress_fn)(void *ctx, uint64_t fed);
#define ZD_ENCODER_PROGRESS_EVERY (UINT64_C(16) << 20)
void zd_deb_encoder_on_progress(struct zd_encoder *e, zd_encoder_progress_fn fn,
                            void *ctx);
/* Feeds len bytes; a zd_sink write function (ctx: the encoder). */
int zd_deb_encoder_write(void *e, const void *buf, size_t len,
                     struct zd_error *err);
/*
 * Finishes: the compressed member is out_fd[*off, *off + *size), and
 * out_fd's offset is just after it; *in_size (if not NULL) the bytes fed.
 * A member of the frames or pzstd layout that came out in more than one
 * zstd frame gets a warning through p->warn: stock dpkg, which reads only
 * the first frame, fails to install the package.  Returns 0, or -1 with
 * err set.
 */
int zd_deb_encoder_finish(struct zd_encoder *e, uint64_t *off, uint64_t *size,
                      uint64_t *in_size, struct zd_error *err);
/* Frees e and its spool file, if any. */
void zd_deb_encoder_free(struct zd_encoder *e);

/*
 * The control.tar compressor for one that asks p: the same, but in one
 * zstd frame (the single layout) where p's layout has several (frames,
 * pzstd).  Stock dpkg reads the control area through GNU tar from the
 * first frame only, and GNU tar ends quietly where a frame may end in a
 * tar of small files (lib/tar-cut.h): the package would install without
 * the maintainer scripts and md5sums after the cut.
 */
void zd_deb_encoder_control_params(const struct zd_comp_params *p,
                               struct zd_comp_params *ctl);

#endif
