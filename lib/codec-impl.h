/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * codec-impl.h - what the codec-*.c files share: their entry points for the
 * registry table in codec.c, the capped output sink and the error messages
 * every decoder uses
 *
 * Private to lib/codec*.c; nothing else includes it.
 */
#ifndef ZDEB_CODEC_IMPL_H
#define ZDEB_CODEC_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/codec.h"
#include "lib/error.h"
#include "lib/fdio.h"

/* Read and write chunk of the streaming loops. */
#define ZD_CODEC_CHUNK ((size_t)1 << 17)

/*
 * Output of a decoder: forwards to sink, counting the bytes, and fails with
 * ZD_E_LIMIT once more than p->max_output bytes would have been written.
 */
struct zd_codec_out {
	struct zd_sink *sink;
	const struct zd_dec_params *p;
	uint64_t total;			/* bytes written so far */
};

/* Writes buf through o.  Returns 0, or -1 with err set. */
int zd_codec_out_write(struct zd_codec_out *o, const void *buf, size_t len,
                       struct zd_error *err);
/* The same as a zd_sink write callback (ctx is a struct zd_codec_out). */
int zd_codec_out_sink_write(void *ctx, const void *buf, size_t len,
                            struct zd_error *err);

/* The member name for messages: p->member, or "member". */
const char *zd_codec_member(const struct zd_dec_params *p);
/*
 * Sets "unexpected end of data in 'MEMBER' at offset OFF" (ZD_E_FORMAT) and
 * returns -1.
 */
int zd_codec_err_truncated(struct zd_error *err, const struct zd_dec_params *p,
                           uint64_t off);
/*
 * Sets "corrupt NAME data in 'MEMBER' at offset OFF: WHY" with code and
 * returns -1.
 */
int zd_codec_err_corrupt(struct zd_error *err, enum zd_errc code,
                         const struct zd_dec_params *p, const char *name,
                         uint64_t off, const char *why);

/*
 * Reads the next chunk of in at *off into buf (at most cap bytes), advancing
 * *off.  Returns the count (0 at the end of the region), or -1 with err set.
 */
ssize_t zd_codec_read_chunk(const struct zd_region *in, uint64_t *off,
                            void *buf, size_t cap, struct zd_error *err);

/*
 * A streaming compressor (codec-stream.c drives it).  init() makes the
 * state for p; code() compresses in[0, len) whole (len <= ZD_CODEC_CHUNK),
 * then ends the stream if finish, writing the output to out_fd through
 * obuf (ZD_CODEC_CHUNK bytes); end() frees the state.  Both return 0, or
 * -1 with err set.
 */
struct zd_cstream_ops {
	int (*init)(void **state, const struct zd_comp_params *p,
	            struct zd_error *err);
	int (*code)(void *state, const void *in, size_t len, bool finish,
	            unsigned char *obuf, int out_fd, struct zd_error *err);
	void (*end)(void *state);
};
extern const struct zd_cstream_ops zd_codec_gzip_stream;
extern const struct zd_cstream_ops zd_codec_xz_stream;

/* A streaming compressor run over in_fd[0, in_size): the compress()
 * of the codecs that have one. */
int zd_codec_stream_compress_file(const struct zd_comp_params *p, int in_fd,
                             uint64_t in_size, int out_fd,
                             struct zd_error *err);

/* The compressors and decompressors of the registry. */
int zd_codec_none_compress(const struct zd_comp_params *p, int in_fd,
                           uint64_t in_size, int out_fd, struct zd_error *err);
int zd_codec_none_decompress(const struct zd_region *in,
                             const struct zd_dec_params *p,
                             struct zd_sink *out, struct zd_error *err);
int zd_codec_gzip_decompress(const struct zd_region *in,
                             const struct zd_dec_params *p,
                             struct zd_sink *out, struct zd_error *err);
int zd_codec_xz_decompress(const struct zd_region *in,
                           const struct zd_dec_params *p,
                           struct zd_sink *out, struct zd_error *err);
int zd_codec_zstd_compress(const struct zd_comp_params *p, int in_fd,
                           uint64_t in_size, int out_fd, struct zd_error *err);
int zd_codec_zstd_decompress(const struct zd_region *in,
                             const struct zd_dec_params *p,
                             struct zd_sink *out, struct zd_error *err);
int zd_codec_bzip2_decompress(const struct zd_region *in,
                              const struct zd_dec_params *p,
                              struct zd_sink *out, struct zd_error *err);
int zd_codec_lzma_decompress(const struct zd_region *in,
                             const struct zd_dec_params *p,
                             struct zd_sink *out, struct zd_error *err);

#endif
