/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zseg-fixture.h - inputs, compress and decode helpers shared by the
 * check-zseg-* unit tests (each test runs in zd_test_tcase's temporary
 * directory)
 */
#ifndef ZDEB_ZSEG_FIXTURE_H
#define ZDEB_ZSEG_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/error.h"
#include "lib/params.h"
#include "lib/zseg-index.h"
#include "lib/zseg-layout.h"
#include "lib/zstd-frame.h"

#define KIB ((uint64_t)1 << 10)
#define MIB ((uint64_t)1 << 20)

enum input_kind {
	IN_RANDOM, IN_ZEROS, IN_TEXT, IN_TAR, IN_EMPTY, IN_TINY, IN_CODE,
};

/* The input, its compressed form and a decoded output (see paths()). */
extern char path_in[4200], path_z[4200], path_out[4200];
/* Warnings seen through on_warn, and the last one. */
extern unsigned nwarn;
extern char last_warn[1024];

void on_warn(void *ctx, const char *msg);
/* Sets path_in, path_z and path_out in the test's directory. */
void paths(void);
/* Writes path_in: len bytes of the kind (IN_TAR: a tar of /usr/share/doc
 * cut at len; IN_EMPTY: 0 bytes; IN_TINY: 5 bytes of text; IN_CODE: bytes
 * shaped as machine code, with no 17 alike, where a reset with literals
 * fits every few hundred bytes); returns its size. */
size_t make_input(enum input_kind kind, size_t len);
/* zstd compression parameters, warnings to on_warn. */
void zseg_params(struct zd_comp_params *p, enum zd_zstd_layout layout,
                 int level, uint64_t seg, unsigned threads);
/* zd_zseg_compress of the file in into the file out. */
int compress_to(const char *in, const char *out, enum zd_zstd_layout layout,
                int level, uint64_t seg, unsigned threads,
                struct zd_error *err);
/* zd_zstd_pdecode of the file in (member "data.tar.zst") into out. */
int decode_to(const char *in, const char *out, unsigned threads,
              uint64_t max_window, uint64_t max_output, struct zd_error *err);
bool same_files(const char *a, const char *b);
/* z decodes to path_in's bytes with no warning. */
void check_decodes(const char *z, unsigned threads);
/* The whole file path as a region, its fd open; aborts the test when it
 * cannot be opened. */
void open_region(const char *path, struct zd_region *r);
/* Decoder parameters: threads, member "data.tar.zst", warnings to
 * on_warn, the rest zero (the library's defaults). */
void dec_params(struct zd_dec_params *p, unsigned threads);
/* zd_zstd_describe of the file z. */
void describe(const char *z, struct zd_zstd_info *info);

/* path_z as written in the indexed layout: the frame, the index frame and
 * the parsed, checked index. */
struct parsed {
	unsigned char *z;
	size_t zlen;
	struct zd_zstd_frame_info outer, ixf;
	struct zd_zseg_index idx;
};
void parse_output(struct parsed *ps);

#endif
