/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * outq.h - decoded pieces written in order by the threads that decode them
 *
 * Workers decode pieces (jobs, numbered in output order) into fixed-size
 * chunks and put each chunk on their job's queue.  Whichever worker puts
 * a chunk while no one else is writing becomes the writer: it writes every
 * queued chunk of the head job (the lowest job not yet written), moving on
 * job after job, and gives the chunks back to a pool.  So the head job's
 * bytes are written by its own worker right after decoding them, in a
 * chunk that is still in the cache (and is reused at once); later jobs'
 * chunks wait in their queues.  No third thread competes for the cores;
 * the calling thread only waits for jobs to be written.
 *
 * A worker with bytes to decode never waits for the sink: it writes
 * what the sink takes without waiting (a pipe's room), lets a task
 * waiting for its CPU run (the pipe's reader) when the sink is full, and
 * goes back to decoding; the rest is written at its next turn, or,
 * waiting for the reader, by a worker that has nothing else to do
 * (zd_outq_flush, and one waiting for a chunk).  So a full pipe does not
 * leave a core idle while there are bytes to decode.
 *
 * The pool is bounded: once max_bytes are allocated, a worker waits for a
 * free chunk - the head job's worker only while it has chunks queued
 * (which the writer will give back), so the writer always makes progress.
 * Once a job fails, workers of later jobs waiting for a chunk give up;
 * once a write fails, all do.
 */
#ifndef ZDEB_OUTQ_H
#define ZDEB_OUTQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/error.h"

struct zd_outq;

/*
 * Writes len bytes, or with nowait as many as the sink takes without
 * waiting for its reader (0 or more); called by one thread at a time, in
 * order.  Returns the count, or -1 with err set.
 */
typedef ssize_t (*zd_outq_write_fn)(void *ctx, const unsigned char *buf,
                                    size_t len, bool nowait,
                                    struct zd_error *err);

/* nslots job slots; chunks of chunk_size bytes, max_bytes of them (but
 * see above); jobs written through write(ctx, ...).  NULL if out of
 * memory. */
struct zd_outq *zd_outq_new(unsigned nslots, size_t chunk_size,
                            size_t max_bytes, zd_outq_write_fn write,
                            void *ctx);
void zd_outq_free(struct zd_outq *q);

/* Calling thread, before queuing job (numbered from 0, in order) in
 * slot. */
void zd_outq_start(struct zd_outq *q, unsigned slot, uint64_t job);

/*
 * Worker of the job in slot: a chunk to decode into (*cap bytes: size, or
 * chunk_size when size is 0; a new one's pages made at once when
 * populate, else as they are first written), or NULL with err set (ZD_E_NOMEM, or
 * ZD_E_INTERNAL when given up).  Each chunk goes back with zd_outq_put();
 * a chunk of a whole piece may be handed on as it fills, with
 * zd_outq_progress().  The pool holds max_bytes of chunks, free ones
 * included (unused ones too small for a request are unmapped to make
 * room); beyond, a worker waits as above.
 */
unsigned char *zd_outq_get(struct zd_outq *q, unsigned slot, size_t size,
                           bool populate, size_t *cap, struct zd_error *err);
/* Worker: the chunk from get() holds len bytes so far, which may be
 * written while it decodes on past them; writes what can be written unless
 * another thread is writing. */
void zd_outq_progress(struct zd_outq *q, unsigned slot, size_t len);
/* Worker: the chunk from get() holds len bytes (0: unused), all it will;
 * writes likewise. */
void zd_outq_put(struct zd_outq *q, unsigned slot, size_t len);
/* Worker: the job in slot is over (failed or not); writes likewise. */
void zd_outq_finish(struct zd_outq *q, unsigned slot, bool failed);

/*
 * A worker with nothing else to do: writes, waiting for the sink, what
 * a worker left when it found the sink full.  Once every job has had its
 * first chunk (zd_outq_set_jobs), also unmaps whole pieces' chunks as
 * they are written, and returns only when all is written (or a job or a
 * write failed).  True if it did anything.
 */
bool zd_outq_flush(struct zd_outq *q);
/* Before the first get(): the queue will see jobs jobs (0 to jobs - 1),
 * so it knows when no job will ask for a whole piece's chunk again. */
void zd_outq_set_jobs(struct zd_outq *q, uint64_t jobs);

/*
 * Calling thread: waits until job is written whole or cannot be: returns
 * 0 when written or when the job itself failed (its error is the
 * scheduler's), -1 with err set when a write failed.
 */
int zd_outq_wait(struct zd_outq *q, uint64_t job, struct zd_error *err);

/* Does a virtio balloon under driver (its sysfs directory) report free
 * pages to the host?  Then a whole piece's buffer is not made of huge
 * pages (outq.c). */
bool zd_outq_host_reclaims(const char *driver);
/* Huge pages for whole pieces' buffers, or not (then a free buffer too
 * small for a piece grows), instead of what this machine's check chose;
 * before the first get().  zd_outq_huge: which it is. */
void zd_outq_set_huge(struct zd_outq *q, bool huge);
bool zd_outq_huge(struct zd_outq *q);

/* The most bytes the pool has held at once (its chunks' mappings, free
 * ones too): max_bytes at most, unless the head job's worker needed one
 * chunk more. */
size_t zd_outq_peak(struct zd_outq *q);
/* The bytes the pool maps now (its chunks' mappings, free ones too). */
size_t zd_outq_held(struct zd_outq *q);

#endif
