/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sched.c - a small worker pool with in-order completion
 *
 * Workers take jobs in index order, so when job f fails every job below f
 * has already been started: the calling thread, which waits for jobs in
 * order, meets the lowest failing job first.  After a failure no job is
 * started, and the calling thread stops at the failing job.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/sched.h"

enum slot_state { SLOT_FREE, SLOT_QUEUED, SLOT_RUNNING, SLOT_DONE };

struct slot {
	enum slot_state state;	/* under sched.lock */
	int rc;			/* written by the worker before DONE */
	struct zd_error err;	/* the job's error; the running worker's */
};

struct zd_sched {
	const struct zd_sched_ops *ops;
	void *ctx;
	unsigned window;
	struct slot *slots;

	pthread_mutex_t lock;
	pthread_cond_t work;	/* workers wait for a job or stop */
	pthread_cond_t done;	/* the calling thread waits for a job */
	uint64_t produced;	/* written by the calling thread, lock held */
	uint64_t consumed;	/* calling thread only */
	struct worker *workers;
	unsigned started;	/* workers running */
	uint64_t next_run;	/* next job to start; lock held */
	bool failed;		/* a job failed: start none; lock held */
	bool stop;		/* workers exit; lock held */
};

struct worker {
	struct zd_sched *s;
	unsigned id;
	pthread_t thread;
};

static void *
worker_main(void *arg)
{
	struct worker *w = arg;
	struct zd_sched *s = w->s;

	pthread_mutex_lock(&s->lock);
	for (;;) {
		uint64_t i;
		struct slot *sl;
		int rc;

		/* idle() runs without the lock: each time, look again; also
		 * after a failure, as what comes before the failed job may
		 * still be for it to finish (outq's writing) */
		for (bool idled = false; !s->stop &&
		     (s->failed || s->next_run == s->produced);) {
			if (s->ops->idle != NULL && !idled) {
				pthread_mutex_unlock(&s->lock);
				idled = !s->ops->idle(s->ctx);
				pthread_mutex_lock(&s->lock);
			} else {
				pthread_cond_wait(&s->work, &s->lock);
				idled = false;
			}
		}
		if (s->stop)
			break;
		i = s->next_run++;
		sl = &s->slots[i % s->window];
		sl->state = SLOT_RUNNING;
		pthread_mutex_unlock(&s->lock);

		zd_err_clear(&sl->err);
		rc = s->ops->run(s->ctx, w->id, i, (unsigned)(i % s->window),
		                 &sl->err);

		pthread_mutex_lock(&s->lock);
		sl->rc = rc;
		sl->state = SLOT_DONE;
		if (rc < 0)
			s->failed = true;
		pthread_cond_signal(&s->done);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

/* Consumes the oldest job in flight, after waiting for it. */
static int
consume_one(struct zd_sched *s, struct zd_error *err)
{
	uint64_t i = s->consumed;
	unsigned slot = (unsigned)(i % s->window);
	struct slot *sl = &s->slots[slot];

	if (s->ops->early && s->ops->consume(s->ctx, i, slot, err) < 0)
		return -1;
	pthread_mutex_lock(&s->lock);
	while (sl->state != SLOT_DONE)
		pthread_cond_wait(&s->done, &s->lock);
	pthread_mutex_unlock(&s->lock);
	if (sl->rc < 0) {
		if (err != NULL)
			*err = sl->err;
		return -1;
	}
	if (!s->ops->early && s->ops->consume(s->ctx, i, slot, err) < 0)
		return -1;
	sl->state = SLOT_FREE;
	s->consumed++;
	return 0;
}

static void
stop_workers(struct zd_sched *s)
{
	pthread_mutex_lock(&s->lock);
	s->stop = true;
	s->failed = true;
	pthread_cond_broadcast(&s->work);
	pthread_mutex_unlock(&s->lock);
	for (unsigned i = 0; i < s->started; i++)
		pthread_join(s->workers[i].thread, NULL);
	s->started = 0;
}

static void
sched_free(struct zd_sched *s)
{
	stop_workers(s);
	pthread_cond_destroy(&s->done);
	pthread_cond_destroy(&s->work);
	pthread_mutex_destroy(&s->lock);
	free(s->workers);
	free(s->slots);
	free(s);
}

struct zd_sched *
zd_sched_start(const struct zd_sched_ops *ops, void *ctx, unsigned threads,
               unsigned window, struct zd_error *err)
{
	struct zd_sched *s = calloc(1, sizeof(*s));
	unsigned nworkers;

	if (s == NULL) {
		zd_err(err, ZD_E_NOMEM, "out of memory");
		return NULL;
	}
	if (window == 0)
		window = 1;
	if (threads <= 1)
		window = 1;	/* each job is run and consumed at once */
	nworkers = threads <= 1 ? 0 : threads < window ? threads : window;
	s->ops = ops;
	s->ctx = ctx;
	s->window = window;
	s->slots = calloc(window, sizeof(*s->slots));
	s->workers = calloc(nworkers > 0 ? nworkers : 1, sizeof(*s->workers));
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->work, NULL);
	pthread_cond_init(&s->done, NULL);
	if (s->slots == NULL || s->workers == NULL) {
		zd_err(err, ZD_E_NOMEM, "out of memory");
		sched_free(s);
		return NULL;
	}
	for (; s->started < nworkers; s->started++) {
		struct worker *w = &s->workers[s->started];
		int e;

		w->s = s;
		w->id = s->started;
		e = pthread_create(&w->thread, NULL, worker_main, w);
		if (e != 0) {
			errno = e;
			zd_err_errno(err, ZD_E_NOMEM, "cannot create thread");
			sched_free(s);
			return NULL;
		}
	}
	return s;
}

int
zd_sched_next_slot(struct zd_sched *s, unsigned *slot, struct zd_error *err)
{
	if (s->produced - s->consumed == s->window &&
	    consume_one(s, err) < 0)
		return -1;
	*slot = (unsigned)(s->produced % s->window);
	return 0;
}

int
zd_sched_submit(struct zd_sched *s, struct zd_error *err)
{
	uint64_t i = s->produced;
	unsigned slot = (unsigned)(i % s->window);

	if (s->started == 0) {
		/* one thread: run and consume it now */
		if (s->ops->run(s->ctx, 0, i, slot, err) < 0)
			return -1;
		s->produced++;
		if (s->ops->consume(s->ctx, i, slot, err) < 0)
			return -1;
		s->consumed++;
		return 0;
	}
	pthread_mutex_lock(&s->lock);
	s->slots[slot].state = SLOT_QUEUED;
	s->produced++;
	pthread_cond_signal(&s->work);
	pthread_mutex_unlock(&s->lock);
	return 0;
}

int
zd_sched_finish(struct zd_sched *s, bool consume, struct zd_error *err)
{
	int rc = 0;

	while (consume && s->consumed < s->produced)
		if (consume_one(s, err) < 0) {
			rc = -1;
			break;
		}
	sched_free(s);
	return rc;
}

int
zd_sched_run(const struct zd_sched_ops *ops, void *ctx, unsigned threads,
             unsigned window, struct zd_error *err)
{
	struct zd_error perr = ZD_ERROR_INIT;
	struct zd_sched *s = zd_sched_start(ops, ctx, threads, window, err);
	unsigned slot;
	int rc;

	if (s == NULL)
		return -1;
	for (;;) {
		if (zd_sched_next_slot(s, &slot, err) < 0) {
			zd_sched_finish(s, false, NULL);
			return -1;
		}
		rc = ops->produce(ctx, s->produced, slot, &perr);
		if (rc <= 0)
			break;
		if (zd_sched_submit(s, err) < 0) {
			zd_sched_finish(s, false, NULL);
			return -1;
		}
	}
	/* jobs produced before a produce failure still complete in order,
	 * and one of them failing wins */
	if (zd_sched_finish(s, true, err) < 0)
		return -1;
	if (rc < 0) {
		if (err != NULL)
			*err = perr;
		return -1;
	}
	return 0;
}
