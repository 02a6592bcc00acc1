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

struct sched {
	const struct zd_sched_ops *ops;
	void *ctx;
	unsigned window;
	struct slot *slots;

	pthread_mutex_t lock;
	pthread_cond_t work;	/* workers wait for a job or stop */
	pthread_cond_t done;	/* the calling thread waits for a job */
	uint64_t produced;	/* written by the calling thread, lock held */
	uint64_t next_run;	/* next job to start; lock held */
	bool failed;		/* a job failed: start none; lock held */
	bool stop;		/* workers exit; lock held */
};

struct worker {
	struct sched *s;
	unsigned id;
	pthread_t thread;
};

static void *
worker_main(void *arg)
{
	struct worker *w = arg;
	struct sched *s = w->s;

	pthread_mutex_lock(&s->lock);
	for (;;) {
		uint64_t i;
		struct slot *sl;
		int rc;

		while (!s->stop && (s->failed || s->next_run == s->produced))
			pthread_cond_wait(&s->work, &s->lock);
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

static int
run_inline(const struct zd_sched_ops *ops, void *ctx, unsigned window,
           struct zd_error *err)
{
	for (uint64_t i = 0;; i++) {
		unsigned slot = (unsigned)(i % window);
		int rc = ops->produce(ctx, i, slot, err);

		if (rc <= 0)
			return rc;
		if (ops->run(ctx, 0, i, slot, err) < 0)
			return -1;
		if (ops->consume(ctx, i, slot, err) < 0)
			return -1;
	}
}

static int
run_pool(struct sched *s, struct zd_error *err)
{
	struct zd_error perr = ZD_ERROR_INIT;
	bool more = true, produce_failed = false;
	uint64_t consumed = 0;

	for (;;) {
		struct slot *sl;

		while (more && s->produced - consumed < s->window) {
			uint64_t i = s->produced;
			unsigned slot = (unsigned)(i % s->window);
			int rc = s->ops->produce(s->ctx, i, slot, &perr);

			if (rc <= 0) {
				more = false;
				produce_failed = rc < 0;
				break;
			}
			pthread_mutex_lock(&s->lock);
			s->slots[slot].state = SLOT_QUEUED;
			s->produced++;
			pthread_cond_signal(&s->work);
			pthread_mutex_unlock(&s->lock);
		}
		if (consumed == s->produced)
			break;
		sl = &s->slots[consumed % s->window];
		if (s->ops->early &&
		    s->ops->consume(s->ctx, consumed,
		                    (unsigned)(consumed % s->window), err) < 0)
			return -1;
		pthread_mutex_lock(&s->lock);
		while (sl->state != SLOT_DONE)
			pthread_cond_wait(&s->done, &s->lock);
		pthread_mutex_unlock(&s->lock);
		if (sl->rc < 0) {
			*err = sl->err;
			return -1;
		}
		if (!s->ops->early &&
		    s->ops->consume(s->ctx, consumed,
		                    (unsigned)(consumed % s->window), err) < 0)
			return -1;
		sl->state = SLOT_FREE;
		consumed++;
	}
	if (produce_failed) {
		if (err != NULL)
			*err = perr;
		return -1;
	}
	return 0;
}

int
zd_sched_run(const struct zd_sched_ops *ops, void *ctx, unsigned threads,
             unsigned window, struct zd_error *err)
{
	struct sched s;
	struct worker *workers = NULL;
	unsigned nworkers = 0, started = 0;
	int rc = -1;

	if (window == 0)
		window = 1;
	if (threads <= 1)
		return run_inline(ops, ctx, window, err);

	memset(&s, 0, sizeof(s));
	s.ops = ops;
	s.ctx = ctx;
	s.window = window;
	nworkers = threads < window ? threads : window;
	s.slots = calloc(window, sizeof(*s.slots));
	workers = calloc(nworkers, sizeof(*workers));
	if (s.slots == NULL || workers == NULL) {
		free(s.slots);
		free(workers);
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	}
	pthread_mutex_init(&s.lock, NULL);
	pthread_cond_init(&s.work, NULL);
	pthread_cond_init(&s.done, NULL);

	for (; started < nworkers; started++) {
		int e;

		workers[started].s = &s;
		workers[started].id = started;
		e = pthread_create(&workers[started].thread, NULL, worker_main,
		                   &workers[started]);
		if (e != 0) {
			errno = e;
			zd_err_errno(err, ZD_E_NOMEM, "cannot create thread");
			goto out;
		}
	}
	rc = run_pool(&s, err);
out:
	pthread_mutex_lock(&s.lock);
	s.stop = true;
	s.failed = true;
	pthread_cond_broadcast(&s.work);
	pthread_mutex_unlock(&s.lock);
	for (unsigned i = 0; i < started; i++)
		pthread_join(workers[i].thread, NULL);
	pthread_cond_destroy(&s.done);
	pthread_cond_destroy(&s.work);
	pthread_mutex_destroy(&s.lock);
	free(workers);
	free(s.slots);
	return rc;
}
