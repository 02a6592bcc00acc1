/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * outq.c - decoded pieces written in order by the threads that decode them
 *
 * One mutex guards the queues, the pool and the writer's position; the
 * writer drops it while writing.  A chunk changes hands a few hundred
 * times per 100 MB, far too rarely for the lock to matter.
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "lib/outq.h"

#ifndef MAP_POPULATE
#define MAP_POPULATE 0
#endif

struct chunk {
	struct chunk *next;		/* in a queue or the free list */
	struct chunk *all;		/* every chunk, for free() */
	size_t len;
	unsigned char data[];
};

struct oq_slot {
	uint64_t job;
	struct chunk *head, *tail;	/* put, not written yet */
	struct chunk *filling;		/* the worker's, from get() */
	bool started, finished, failed;
};

struct zd_outq {
	pthread_mutex_t lock;
	pthread_cond_t written;		/* the calling thread waits */
	pthread_cond_t space;		/* workers wait for a chunk */
	struct oq_slot *slots;
	unsigned nslots;
	size_t chunk_size, max_chunks, nchunks;
	struct chunk *free, *all;
	zd_outq_write_fn write;
	void *ctx;
	uint64_t head;			/* the job being written */
	uint64_t failed_job;		/* lowest failed job, or UINT64_MAX */
	bool writing;			/* a thread is the writer */
	bool write_failed;
	struct zd_error err;		/* the failed write's */
};

struct zd_outq *
zd_outq_new(unsigned nslots, size_t chunk_size, size_t max_bytes,
            zd_outq_write_fn write, void *ctx)
{
	struct zd_outq *q = calloc(1, sizeof(*q));

	if (q == NULL)
		return NULL;
	q->nslots = nslots > 0 ? nslots : 1;
	q->slots = calloc(q->nslots, sizeof(*q->slots));
	if (q->slots == NULL) {
		free(q);
		return NULL;
	}
	q->chunk_size = chunk_size;
	q->max_chunks = max_bytes / chunk_size > 0 ? max_bytes / chunk_size : 1;
	q->write = write;
	q->ctx = ctx;
	q->failed_job = UINT64_MAX;
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->written, NULL);
	pthread_cond_init(&q->space, NULL);
	return q;
}

static size_t
chunk_bytes(const struct zd_outq *q)
{
	return sizeof(struct chunk) + q->chunk_size;
}

void
zd_outq_free(struct zd_outq *q)
{
	if (q == NULL)
		return;
	for (struct chunk *c = q->all, *n; c != NULL; c = n) {
		n = c->all;
		munmap(c, chunk_bytes(q));
	}
	pthread_cond_destroy(&q->space);
	pthread_cond_destroy(&q->written);
	pthread_mutex_destroy(&q->lock);
	free(q->slots);
	free(q);
}

/* Lock held. */
static void
chunk_release(struct zd_outq *q, struct chunk *c)
{
	c->next = q->free;
	q->free = c;
	pthread_cond_broadcast(&q->space);
}

void
zd_outq_start(struct zd_outq *q, unsigned slot, uint64_t job)
{
	struct oq_slot *s = &q->slots[slot];

	pthread_mutex_lock(&q->lock);
	/* the slot's previous job was written whole: its queue is empty */
	s->head = s->tail = NULL;
	s->job = job;
	s->started = true;
	s->finished = s->failed = false;
	pthread_mutex_unlock(&q->lock);
}

/* Lock held: must the worker of the job in slot s wait for a chunk? */
static bool
must_wait(const struct zd_outq *q, const struct oq_slot *s)
{
	return q->free == NULL && q->nchunks >= q->max_chunks &&
	       (s->job != q->head || s->head != NULL);
}

/* Lock held: has the worker of slot s to give up? */
static bool
given_up(const struct zd_outq *q, const struct oq_slot *s)
{
	return q->write_failed || s->job > q->failed_job;
}

/*
 * A fresh chunk has its pages populated at once: on Linux about 2/3 of
 * the cost of faulting them in one by one as the decoder writes.
 */
static struct chunk *
chunk_alloc(struct zd_outq *q)
{
	void *p = mmap(NULL, chunk_bytes(q), PROT_READ | PROT_WRITE,
	               MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	return p != MAP_FAILED ? p : NULL;
}

unsigned char *
zd_outq_get(struct zd_outq *q, unsigned slot, size_t *cap,
            struct zd_error *err)
{
	struct oq_slot *s = &q->slots[slot];
	struct chunk *c;

	pthread_mutex_lock(&q->lock);
	while (!given_up(q, s) && must_wait(q, s))
		pthread_cond_wait(&q->space, &q->lock);
	if (given_up(q, s)) {
		pthread_mutex_unlock(&q->lock);
		zd_err(err, ZD_E_INTERNAL, "cancelled");
		return NULL;
	}
	c = q->free;
	if (c != NULL) {
		q->free = c->next;
	} else {
		q->nchunks++;
		pthread_mutex_unlock(&q->lock);
		c = chunk_alloc(q);
		pthread_mutex_lock(&q->lock);
		if (c == NULL) {
			q->nchunks--;
			pthread_mutex_unlock(&q->lock);
			zd_err(err, ZD_E_NOMEM, "out of memory");
			return NULL;
		}
		c->all = q->all;
		q->all = c;
	}
	c->next = NULL;
	c->len = 0;
	s->filling = c;
	pthread_mutex_unlock(&q->lock);
	*cap = q->chunk_size;
	return c->data;
}

/* Lock held: the head job's slot, if the head job has started. */
static struct oq_slot *
head_slot(struct zd_outq *q)
{
	struct oq_slot *s = &q->slots[q->head % q->nslots];

	return s->started && s->job == q->head ? s : NULL;
}

/*
 * Lock held, on entry and return: if no thread is writing, become the
 * writer and write every queued chunk of the head job, job after job.
 * The last check for more and giving the role up happen under one hold of
 * the lock, so nothing put is left behind.
 */
static void
write_ready(struct zd_outq *q)
{
	if (q->writing || q->write_failed)
		return;
	q->writing = true;
	for (;;) {
		struct oq_slot *s = head_slot(q);
		struct chunk *c;
		int rc;

		if (s == NULL || s->failed)
			break;
		c = s->head;
		if (c != NULL) {
			s->head = c->next;
			if (s->head == NULL)
				s->tail = NULL;
			pthread_mutex_unlock(&q->lock);
			rc = q->write(q->ctx, c->data, c->len, &q->err);
			pthread_mutex_lock(&q->lock);
			chunk_release(q, c);
			if (rc < 0) {
				q->write_failed = true;
				pthread_cond_broadcast(&q->written);
				pthread_cond_broadcast(&q->space);
				break;
			}
		} else if (s->finished) {
			s->started = false;
			q->head++;
			pthread_cond_broadcast(&q->written);
			pthread_cond_broadcast(&q->space);
		} else {
			break;
		}
	}
	q->writing = false;
}

void
zd_outq_put(struct zd_outq *q, unsigned slot, size_t len)
{
	struct oq_slot *s = &q->slots[slot];
	struct chunk *c;

	pthread_mutex_lock(&q->lock);
	c = s->filling;
	s->filling = NULL;
	if (c != NULL && len == 0) {
		chunk_release(q, c);
	} else if (c != NULL) {
		c->len = len;
		if (s->tail != NULL)
			s->tail->next = c;
		else
			s->head = c;
		s->tail = c;
		write_ready(q);
	}
	pthread_mutex_unlock(&q->lock);
}

void
zd_outq_finish(struct zd_outq *q, unsigned slot, bool failed)
{
	struct oq_slot *s = &q->slots[slot];

	pthread_mutex_lock(&q->lock);
	if (s->filling != NULL) {
		chunk_release(q, s->filling);
		s->filling = NULL;
	}
	s->finished = true;
	s->failed = failed;
	if (failed) {
		if (s->job < q->failed_job)
			q->failed_job = s->job;
		pthread_cond_broadcast(&q->written);
		pthread_cond_broadcast(&q->space);
	} else {
		write_ready(q);
	}
	pthread_mutex_unlock(&q->lock);
}

int
zd_outq_wait(struct zd_outq *q, uint64_t job, struct zd_error *err)
{
	int rc = 0;

	pthread_mutex_lock(&q->lock);
	for (;;) {
		struct oq_slot *s;

		if (q->write_failed) {
			if (err != NULL)
				*err = q->err;
			rc = -1;
			break;
		}
		if (q->head > job)
			break;
		s = head_slot(q);
		if (q->head == job && s != NULL && s->failed)
			break;
		pthread_cond_wait(&q->written, &q->lock);
	}
	pthread_mutex_unlock(&q->lock);
	return rc;
}
