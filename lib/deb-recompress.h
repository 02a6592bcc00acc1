/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * deb-recompress.h - re-encode the control and data members of a .deb,
 * keeping the tar bytes exactly
 *
 * Each member is decoded straight into the encoder, whose output goes
 * straight into the new archive (lib/deb-write.h): nothing is spooled but
 * what the encoder itself needs.  The ar members keep the mtime of the
 * input's debian-binary, as "zdeb recompress" has always written them.
 */
#ifndef ZDEB_DEB_RECOMPRESS_H
#define ZDEB_DEB_RECOMPRESS_H

#include <stdint.h>

#include "lib/codec.h"
#include "lib/deb.h"
#include "lib/error.h"

/* What one member became: [0] control, [1] data. */
struct zd_recompress_result {
	uint64_t tar_bytes[2];	/* decoded (the tar) */
	uint64_t out_bytes[2];	/* compressed in the output */
};

/* Called when a member starts (fed 0), then as the encoder is fed
 * (zd_deb_encoder_on_progress); member is "control.tar" or "data.tar". */
typedef void (*zd_recompress_progress_fn)(void *ctx, const char *member,
                                          uint64_t fed);

struct zd_recompress_opts {
	const struct zd_comp_params *comp;	/* the new compression */
	const struct zd_dec_params *dec;	/* decoding the input */
	zd_recompress_progress_fn progress;	/* NULL: none */
	void *progress_ctx;
	/* control.tar's compression; NULL: zd_deb_encoder_control_params(comp),
	 * one zstd frame where comp's layout has several */
	const struct zd_comp_params *control;
	/* fsync the output's directory after the rename (zd_deb_write_open) */
	bool durable;
};

/*
 * Writes deb (opened with zd_deb_open) to out_path with its control and
 * data members compressed as o->comp asks, the tar bytes unchanged.  The
 * output appears only when complete (see zd_deb_write_commit); on failure
 * nothing is left at out_path.  r (may be NULL) gets the sizes.  Returns
 * 0, or -1 with err set: as zd_deb_member_decode for the input (ZD_E_FORMAT,
 * ZD_E_CHECKSUM, ZD_E_LIMIT), as zd_deb_encoder_new for o->comp, ZD_E_IO for
 * the output.
 */
int zd_deb_recompress(const struct zd_deb *deb, const char *out_path,
                      const struct zd_recompress_opts *o,
                      struct zd_recompress_result *r, struct zd_error *err);

#endif
