/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sched.h - a small worker pool with in-order completion
 *
 * The calling thread produces jobs one at a time, workers run them, and the
 * calling thread consumes the results strictly in job order.  At most
 * `window` jobs are in flight (produced but not yet consumed), so memory
 * stays bounded: a job's buffers live in slot (index % window), which the
 * caller allocates.  The scheduler knows nothing about the jobs.
 *
 * On the first failure (of produce, run or consume) no new job is started;
 * zd_sched_run() then reports the lowest-numbered failing job's error,
 * after joining every worker.  No thread outlives zd_sched_run().
 */
#ifndef ZDEB_SCHED_H
#define ZDEB_SCHED_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/error.h"

struct zd_sched_ops {
	/*
	 * Calling thread: prepares job i in slot (i % window).  Returns 1 if
	 * a job was prepared, 0 when there are no more jobs, or -1 with err
	 * set.
	 */
	int (*produce)(void *ctx, uint64_t i, unsigned slot,
	               struct zd_error *err);
	/*
	 * A worker (number worker < threads; the calling thread itself when
	 * threads is 1): runs job i.  Jobs on different workers run at the
	 * same time; a worker runs one job at a time.  Returns 0, or -1 with
	 * err set (err belongs to the job).
	 */
	int (*run)(void *ctx, unsigned worker, uint64_t i, unsigned slot,
	           struct zd_error *err);
	/*
	 * Calling thread, in job order: uses job i's result.  Returns 0/-1.
	 * Called once job i is done, or, with early set, as soon as every
	 * job before it is consumed, while job i may still be queued or
	 * running: consume then follows the job's progress through ctx (and
	 * must return once the job has finished).  The slot is reused only
	 * after both have returned; a failing job's error wins over consume's
	 * success.
	 */
	int (*consume)(void *ctx, uint64_t i, unsigned slot,
	               struct zd_error *err);
	bool early;
	/*
	 * NULL, or a worker before it waits for a job (also once a job
	 * has failed, until the workers are stopped): does what it can
	 * instead (outq's writing).  Returns true if it did anything (the
	 * worker then looks for a job again), false to wait.
	 */
	bool (*idle)(void *ctx);
};

/*
 * The same pool driven by the caller (ops->produce is not used and may be
 * NULL): the caller
 * fills the slot zd_sched_next_slot() gives, then submits it; results are
 * consumed in order as the window fills and by zd_sched_finish().
 *
 * zd_sched_start: `threads` workers (1: none; each job is run and
 * consumed inside zd_sched_submit), at most `window` jobs in flight.
 * Returns NULL with err set (ZD_E_NOMEM).
 */
struct zd_sched;
struct zd_sched *zd_sched_start(const struct zd_sched_ops *ops, void *ctx,
                                unsigned threads, unsigned window,
                                struct zd_error *err);
/* The slot of the next job, after consuming the oldest job if the window
 * is full.  Returns 0, or -1 with that job's error (call finish). */
int zd_sched_next_slot(struct zd_sched *s, unsigned *slot,
                       struct zd_error *err);
/* Queues the job filled in the slot from zd_sched_next_slot().  Returns 0,
 * or -1 with err set (one thread: the job's run or consume failed). */
int zd_sched_submit(struct zd_sched *s, struct zd_error *err);
/* With consume, consumes every job left in order (-1 with the first
 * failing job's error); then stops the workers and frees s, always. */
int zd_sched_finish(struct zd_sched *s, bool consume, struct zd_error *err);

/*
 * Runs every job produced, on `threads` workers (1: no thread is created),
 * with at most `window` jobs in flight (window >= 1).  Returns 0, or -1
 * with err set to the error of the lowest-numbered failing job (a produce
 * or consume failure counts for the job it was called for); ZD_E_NOMEM or
 * ZD_E_INTERNAL if threads cannot be created.
 */
int zd_sched_run(const struct zd_sched_ops *ops, void *ctx, unsigned threads,
                 unsigned window, struct zd_error *err);

#endif
