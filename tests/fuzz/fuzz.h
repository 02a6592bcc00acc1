/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz.h - shared by the libFuzzer harnesses (tests/fuzz/fuzz-*.c) and the
 * regression driver that replays saved inputs without libFuzzer
 */
#ifndef ZDEB_FUZZ_H
#define ZDEB_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/* libFuzzer's entry point, defined once per harness. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * An anonymous memory file holding data (memfd), positioned at 0, or -1.
 * The caller closes it.
 */
int zd_fuzz_memfd(const uint8_t *data, size_t size);

#endif
