/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * outq.c - decoded pieces written in order by the threads that decode them
 *
 * One mutex guards the queues, the pool and the writer's position; the
 * writer drops it while writing.  A chunk changes hands a few hundred
 * times per 100 MB, far too rarely for the lock to matter.
 *
 * A whole piece decoded in place (get with its size) saves a copy: the
 * decoder writes its output straight into the chunk, with no window of
 * its own to copy out of (ZSTD_d_stableOutBuffer).  On a 2-vCPU EPYC (a
 * niced compression beside it: thread CPU time, loaded) the text tree's
 * pieces decoded so into cold buffers took 35-38 ms of CPU, streamed
 * into a cold ring of 256 KiB chunks 44-48 ms, into one 256 KiB buffer in
 * the cache 35-36 ms.
 *
 * Such a buffer is made of huge pages where the kernel has them: its pages
 * are all touched at once anyway, and populating 4 KiB pages one by one
 * (allocation, cgroup charge, rmap, page table) was 13 % of all CPU time
 * of `cat-data -T2 | cat` on the text tree (2-vCPU EPYC, perf); with huge
 * pages, 3 %.  Not under a host that takes free memory back (below).
 */
#include "config.h"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/outq.h"

#ifndef MAP_POPULATE
#define MAP_POPULATE 0
#endif
/* Linux 5.14's; a C library older than 2.35 does not name it */
#if defined(__linux__) && !defined(MADV_POPULATE_WRITE)
#define MADV_POPULATE_WRITE 23
#endif

/* A chunk of this size or more, populated at once, is mapped at a
 * multiple of it, in huge pages where the kernel gives them (x86-64 and
 * arm64 with 4 KiB pages: 2 MiB). */
#define HUGE ((size_t)2 << 20)
/* Bytes past a chunk's decoded ones whose pages are made (make_ahead). */
#define AHEAD ((size_t)1 << 20)

/*
 * A chunk: chunk_size bytes, or a whole piece (get with a size) that its
 * worker decodes in place and hands on as it fills (progress).  It is in
 * its slot's queue from get() on, so the writer writes its bytes as they
 * come and moves past it once it is done (put) and written whole.  Its
 * data is a mapping of its own, its pages made at once or ahead of its
 * bytes (make_ahead).
 */
struct chunk {
	struct chunk *next;		/* in a queue or the free list */
	struct chunk *anext, *aprev;	/* every chunk, for free() */
	size_t cap;			/* data's size */
	size_t len;			/* bytes decoded so far */
	size_t written;			/* of them, written */
	bool done;			/* put: len is final */
	bool whole;			/* a whole piece's (get with a size) */
	bool ahead;			/* pages made ahead of its bytes */
	size_t made;			/* bytes whose pages are made */
	unsigned char *data;
};

struct oq_slot {
	uint64_t job;
	struct chunk *head, *tail;	/* from get(), not written yet */
	struct chunk *filling;		/* the worker's, from get() */
	bool started, finished, failed;
	bool had_chunk;			/* its job had a get() */
};

struct zd_outq {
	pthread_mutex_t lock;
	pthread_cond_t written;		/* the calling thread waits */
	pthread_cond_t space;		/* workers wait for a chunk */
	struct oq_slot *slots;
	unsigned nslots;
	size_t chunk_size, max_bytes;
	size_t bytes;			/* the chunks' caps, free ones too */
	size_t peak;			/* the most bytes held at once */
	struct chunk *free, *all;
	struct chunk *dead;		/* to unmap (draining) */
	uint64_t jobs;			/* zd_outq_set_jobs, or UINT64_MAX */
	uint64_t jobs_got;		/* jobs that had a get() */
	bool draining;			/* every job had a get() */
	zd_outq_write_fn write;
	void *ctx;
	uint64_t head;			/* the job being written */
	uint64_t failed_job;		/* lowest failed job, or UINT64_MAX */
	bool writing;			/* a thread is the writer */
	bool stalled;			/* a worker found the sink full */
	bool write_failed;
	bool huge;			/* huge pages asked for */
	size_t page;			/* the page size */
	/* the thread that writes while it decodes (see write_ready) */
	pthread_t writer;
	bool has_writer;
	bool writer_decoding;		/* between its get() and finish() */
	struct zd_error err;		/* the failed write's */
};

static bool write_ready(struct zd_outq *q, bool nowait);
static bool huge_pages(void);

/* Lock held: a worker left bytes for one with nothing else to do, and
 * none is writing them. */
static bool
flush_due(const struct zd_outq *q)
{
	return q->stalled && !q->writing && !q->write_failed;
}

/* Lock held: a worker found the sink full, or left the writing to the
 * writer; once draining, a worker waiting in zd_outq_flush writes it. */
static void
mark_stalled(struct zd_outq *q)
{
	q->stalled = true;
	if (q->draining)
		pthread_cond_broadcast(&q->space);
}

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
	q->chunk_size = chunk_size > 0 ? chunk_size : 1;
	q->max_bytes = max_bytes;
	q->write = write;
	q->ctx = ctx;
	q->failed_job = UINT64_MAX;
	q->jobs = UINT64_MAX;
	q->huge = huge_pages();
	q->page = (size_t)sysconf(_SC_PAGESIZE);
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->written, NULL);
	pthread_cond_init(&q->space, NULL);
	return q;
}

static void
chunk_destroy(struct chunk *c)
{
	munmap(c->data, c->cap);
	free(c);
}

void
zd_outq_free(struct zd_outq *q)
{
	if (q == NULL)
		return;
	for (struct chunk *c = q->all, *n; c != NULL; c = n) {
		n = c->anext;
		chunk_destroy(c);
	}
	pthread_cond_destroy(&q->space);
	pthread_cond_destroy(&q->written);
	pthread_mutex_destroy(&q->lock);
	free(q->slots);
	free(q);
}

/* Lock held: c is written whole; to the pool, or, a whole piece's once
 * no job will ask for one again, to be unmapped (zd_outq_set_jobs). */
static void
chunk_release(struct zd_outq *q, struct chunk *c)
{
	if (q->draining && c->whole) {
		c->next = q->dead;
		q->dead = c;
	} else {
		c->next = q->free;
		q->free = c;
	}
	pthread_cond_broadcast(&q->space);
}

/* Lock held: c leaves the list of all chunks, to be destroyed (its
 * bytes still counted). */
static void
chunk_unlink(struct zd_outq *q, struct chunk *c)
{
	if (c->aprev != NULL)
		c->aprev->anext = c->anext;
	else
		q->all = c->anext;
	if (c->anext != NULL)
		c->anext->aprev = c->aprev;
}

/* Lock held: c leaves the pool (a free chunk too small to be used). */
static void
chunk_unmap(struct zd_outq *q, struct chunk *c)
{
	chunk_unlink(q, c);
	q->bytes -= c->cap;
	chunk_destroy(c);
}

/* Lock held (dropped while unmapping): the dead chunks unmapped; the
 * pool counts their bytes until they are. */
static void
unmap_dead(struct zd_outq *q)
{
	struct chunk *list = q->dead, *c, *n;
	size_t gone = 0;

	q->dead = NULL;
	for (c = list; c != NULL; c = c->next)
		chunk_unlink(q, c);
	pthread_mutex_unlock(&q->lock);
	for (c = list; c != NULL; c = n) {
		n = c->next;
		gone += c->cap;
		chunk_destroy(c);
	}
	pthread_mutex_lock(&q->lock);
	q->bytes -= gone;
	pthread_cond_broadcast(&q->space);	/* the budget has room */
}

/*
 * Lock held: every job has had its first chunk, so no job asks for a
 * whole piece's chunk again: the free ones and those written whole from
 * now on are unmapped by a worker with nothing else to do
 * (zd_outq_flush), while the others decode and write the last pieces,
 * not by the calling thread once all is written.  On a 2-vCPU EPYC the
 * text tree's 33 MiB of them took 2.0-2.9 ms to unmap at the end of
 * cat-data -T2 | cat, the other CPU idle (a scratch build's log).
 */
static void
start_draining(struct zd_outq *q)
{
	struct chunk **pp = &q->free;

	q->draining = true;
	while (*pp != NULL) {
		struct chunk *c = *pp;

		if (c->whole) {
			*pp = c->next;
			c->next = q->dead;
			q->dead = c;
		} else {
			pp = &c->next;
		}
	}
	pthread_cond_broadcast(&q->space);
}

void
zd_outq_start(struct zd_outq *q, unsigned slot, uint64_t job)
{
	struct oq_slot *s = &q->slots[slot];

	pthread_mutex_lock(&q->lock);
	/* the slot's previous job was written whole: its queue is empty */
	s->head = s->tail = NULL;
	s->filling = NULL;
	s->job = job;
	s->started = true;
	s->finished = s->failed = false;
	s->had_chunk = false;
	pthread_mutex_unlock(&q->lock);
}

/* Lock held: has the worker of slot s to give up? */
static bool
given_up(const struct zd_outq *q, const struct oq_slot *s)
{
	return q->write_failed || s->job > q->failed_job;
}

/* Lock held: takes the smallest free chunk of need bytes or more. */
static struct chunk *
take_free(struct zd_outq *q, size_t need)
{
	struct chunk **best = NULL, *c;

	for (struct chunk **pp = &q->free; *pp != NULL; pp = &(*pp)->next)
		if ((*pp)->cap >= need && (best == NULL ||
		                           (*pp)->cap < (*best)->cap))
			best = pp;
	if (best == NULL)
		return NULL;
	c = *best;
	*best = c->next;
	return c;
}


/*
 * A virtio balloon with free page reporting (feature bit 5,
 * VIRTIO_BALLOON_F_REPORTING) hands blocks of free memory back to the
 * host a few seconds after they are freed, and the host faults each back
 * in, 4 KiB at a time, when the guest touches it again.  A fresh huge page
 * is such a block more often than not: on a 2-vCPU Firecracker VM that
 * reports 2 MiB blocks, populating 40 MiB of huge pages took 3.4 ms run
 * back to back but 28-101 ms after 3 s idle, 4 KiB pages 13 and 15-19 ms,
 * and `cat-data -T2 | cat` after 3 s idle took 130 ms with huge pages
 * against 88 without (text tree; lib 197 against 127;
 * doc/measurements/decode-2026-11-27-fresh-memory.txt).
 */
#define BALLOON_DRIVER "/sys/bus/virtio/drivers/virtio_balloon"
#define F_REPORTING 5

bool
zd_outq_host_reclaims(const char *driver)
{
	DIR *d = opendir(driver);
	struct dirent *e;
	bool yes = false;

	if (d == NULL)
		return false;
	while (!yes && (e = readdir(d)) != NULL) {
		char path[4096], bits[64];
		ssize_t n = -1;
		int fd;

		if (strncmp(e->d_name, "virtio", 6) != 0 ||
		    snprintf(path, sizeof(path), "%s/%s/features", driver,
		             e->d_name) >= (int)sizeof(path))
			continue;
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			n = read(fd, bits, sizeof(bits));
			close(fd);
		}
		yes = n > F_REPORTING && bits[F_REPORTING] == '1';
	}
	closedir(d);
	return yes;
}

#if defined(MADV_HUGEPAGE) && defined(MADV_NOHUGEPAGE)
static pthread_once_t reclaim_once = PTHREAD_ONCE_INIT;
static bool host_reclaims;

static void
reclaim_check(void)
{
	host_reclaims = zd_outq_host_reclaims(BALLOON_DRIVER);
}
#endif

/* Are a populated chunk's pages asked to be huge?  Where the kernel
 * takes the hint and the host does not take free memory back (above,
 * checked once). */
static bool
huge_pages(void)
{
#if defined(MADV_HUGEPAGE) && defined(MADV_NOHUGEPAGE)
	pthread_once(&reclaim_once, reclaim_check);
	return !host_reclaims;
#else
	return false;
#endif
}

/* n rounded up to a multiple of step (a power of two), or n itself when
 * that does not fit. */
static size_t
round_up(size_t n, size_t step)
{
	if (step == 0 || (step & (step - 1)) != 0 || n > SIZE_MAX - step)
		return n;
	return (n + step - 1) & ~(step - 1);
}

/*
 * The bytes a chunk of need bytes maps: a populated one of HUGE or more
 * is rounded up to whole huge pages (which reuse can then fill) where
 * they are asked for; otherwise a populated one up to whole pages, and a
 * free chunk too small for a piece grows instead (chunk_grow).
 */
static size_t
chunk_cap(const struct zd_outq *q, size_t need, bool populate)
{
	if (!populate)
		return need;
	return round_up(need, need >= HUGE && q->huge ? HUGE : q->page);
}

/* [p, p + len) to be of huge pages or not (huge), as the kernel takes
 * the hint. */
static void
hint_pages(unsigned char *p, size_t len, bool huge)
{
#if defined(MADV_HUGEPAGE) && defined(MADV_NOHUGEPAGE)
	(void)madvise(p, len, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
#else
	(void)p;
	(void)len;
	(void)huge;
#endif
}

/* The pages of [p, p + len), bytes nobody reads yet, made at once;
 * touched one by one if the kernel cannot (before 5.14: one fault per
 * huge page if it has them), each byte touched left as it was. */
static void
make_pages(unsigned char *p, size_t len)
{
#ifdef MADV_POPULATE_WRITE
	if (madvise(p, len, MADV_POPULATE_WRITE) == 0)
		return;
#endif
	for (size_t k = 0; k < len; k += 4096) {
		volatile unsigned char *b = p + k;

		*b = *b;
	}
}

/*
 * Worker, lock not held: the pages of its chunk c made up to AHEAD past
 * the len bytes decoded into it, AHEAD / 2 or more at a time, when its
 * get() asked for pages made at once (a chunk of huge pages has all of
 * them from the start).  Made all at once, a whole piece's 4-8 MiB held
 * its first byte back by 2-3 ms at the start of cat-data -T2 | cat, and
 * the other worker's mmap(2) waited as long for the mm lock (2-vCPU
 * EPYC, the text tree, a scratch build's log); one page at a time, as
 * the decoder writes, costs about 3/2 as much again (chunk_alloc).
 */
static void
make_ahead(const struct zd_outq *q, struct chunk *c, size_t len)
{
	size_t end = round_up(c->cap, q->page), from, to;

	if (!c->ahead || c->made >= end || len > SIZE_MAX - AHEAD ||
	    len + AHEAD / 2 <= c->made)
		return;
	/* never below len: one step may decode far past what was made
	 * (a 64 KiB slice of input, megabytes of a run of zeros), and the
	 * writer may be reading those bytes */
	from = round_up(len, q->page);
	if (from < c->made)
		from = c->made;
	to = round_up(len + AHEAD, q->page);
	if (to > end)
		to = end;
	if (from < to)
		make_pages(c->data + from, to - from);
	c->made = to;
}

/*
 * A fresh chunk's pages are made, when asked, at once in huge pages
 * (above), else ahead of its bytes (make_ahead): on Linux, either costs
 * about 2/3 of faulting them in one by one as the decoder writes.  Not
 * for a size only a claim stands for (a piece whose index says it decodes
 * to far more than its compressed bytes): then memory follows what is
 * decoded, not what is claimed, 4 KiB at a time.
 */
static struct chunk *
chunk_alloc(size_t cap, bool populate, bool huge)
{
	struct chunk *c = calloc(1, sizeof(*c));
	unsigned char *p, *a;

	if (c == NULL)
		return NULL;
	c->cap = cap;
	if (populate && huge && cap >= HUGE && cap % HUGE == 0 &&
	    cap <= SIZE_MAX - HUGE) {
		/* HUGE more, then the ends trimmed off to align it */
		p = mmap(NULL, cap + HUGE, PROT_READ | PROT_WRITE,
		         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			free(c);
			return NULL;
		}
		a = (unsigned char *)(((uintptr_t)p + HUGE - 1) &
		                      ~(uintptr_t)(HUGE - 1));
		if (a > p)
			munmap(p, (size_t)(a - p));
		if (a + cap < p + cap + HUGE)
			munmap(a + cap, (size_t)(p + HUGE - a));
		c->data = a;
		hint_pages(a, cap, true);
		make_pages(a, cap);
		c->made = cap;
		return c;
	}
	/* with huge pages asked for, one too small for them is made at
	 * once by mmap; without, it is kept from huge pages first */
	c->data = mmap(NULL, cap, PROT_READ | PROT_WRITE,
	               MAP_PRIVATE | MAP_ANONYMOUS |
	               (populate && huge ? MAP_POPULATE : 0), -1, 0);
	if (c->data == MAP_FAILED) {
		free(c);
		return NULL;
	}
	if (populate && huge)
		c->made = cap;
	else if (populate)
		hint_pages(c->data, cap, false);
	return c;
}

/*
 * Lock held (dropped while growing): the largest free chunk, grown to cap
 * bytes (its new pages made as it fills, see make_ahead), for a piece none
 * fits; NULL when none is free, huge pages are asked for (a moved mapping
 * would lose their alignment), the budget has no room for the growth, or
 * mremap(2) fails.
 * So the pool maps about what the pieces in flight need at once, not one
 * chunk more for each piece a little larger than the free ones: on the
 * text tree into a pipe (2-vCPU EPYC, 4 KiB pages), zdeb's peak RSS went
 * from 50 to 39 MB (doc/measurements/decode-2026-11-27-yield.txt).
 */
static struct chunk *
chunk_grow(struct zd_outq *q, size_t cap, bool exempt)
{
#ifdef MREMAP_MAYMOVE
	struct chunk **best = NULL, *c;
	unsigned char *p;
	size_t old;

	for (struct chunk **pp = &q->free; *pp != NULL; pp = &(*pp)->next)
		if (best == NULL || (*pp)->cap > (*best)->cap)
			best = pp;
	if (best == NULL || q->huge || (*best)->cap >= cap ||
	    (q->bytes + (cap - (*best)->cap) > q->max_bytes && !exempt))
		return NULL;
	/* taken from the free list and counted, then grown without the
	 * lock (making pages takes milliseconds), as chunk_get maps */
	c = *best;
	*best = c->next;
	old = c->cap;
	q->bytes += cap - old;
	if (q->bytes > q->peak)
		q->peak = q->bytes;
	pthread_mutex_unlock(&q->lock);
	p = mremap(c->data, old, cap, MREMAP_MAYMOVE);
	pthread_mutex_lock(&q->lock);
	if (p == MAP_FAILED) {
		q->bytes -= cap - old;
		c->next = q->free;
		q->free = c;
		return NULL;
	}
	c->data = p;
	c->cap = cap;
	return c;
#else
	(void)q;
	(void)cap;
	(void)exempt;
	return NULL;
#endif
}

/*
 * Lock held: a chunk of need bytes for the worker of slot s, or NULL with
 * *nomem set when none can be made, or NULL when it must wait: the pool is
 * at max_bytes with nothing free to reuse or unmap, and s is not the head
 * job with nothing of its own queued (the head job's worker always gets
 * one, or what is queued will be written and come back, so the writer
 * always makes progress).  So the chunks of all other jobs stay within
 * max_bytes, and the pool within max_bytes and the head's one chunk.
 */
static struct chunk *
chunk_get(struct zd_outq *q, const struct oq_slot *s, size_t need,
          bool populate, bool *nomem)
{
	bool exempt = s->job == q->head && s->head == NULL;
	size_t cap = chunk_cap(q, need, populate);
	struct chunk *c;

	/* over the budget (the head job's chunk beyond it), only that
	 * worker reuses a chunk: the others wait for the pool to shrink */
	if (q->bytes <= q->max_bytes || exempt) {
		c = take_free(q, need);
		if (c == NULL)
			c = chunk_grow(q, cap, exempt);
		if (c != NULL)
			return c;
	}
	while (q->bytes + cap > q->max_bytes &&
	       (q->free != NULL || q->dead != NULL)) {
		struct chunk **list = q->dead != NULL ? &q->dead : &q->free;

		c = *list;
		*list = c->next;
		chunk_unmap(q, c);
	}
	if (q->bytes + cap > q->max_bytes && !exempt)
		return NULL;
	q->bytes += cap;
	if (q->bytes > q->peak)
		q->peak = q->bytes;
	pthread_mutex_unlock(&q->lock);
	c = chunk_alloc(cap, populate, q->huge);
	pthread_mutex_lock(&q->lock);
	if (c == NULL) {
		q->bytes -= cap;
		*nomem = true;
		return NULL;
	}
	c->anext = q->all;
	if (q->all != NULL)
		q->all->aprev = c;
	q->all = c;
	return c;
}

unsigned char *
zd_outq_get(struct zd_outq *q, unsigned slot, size_t size, bool populate,
            size_t *cap, struct zd_error *err)
{
	struct oq_slot *s = &q->slots[slot];
	size_t need = size > 0 ? size : q->chunk_size;
	struct chunk *c = NULL;
	bool nomem = false;

	pthread_mutex_lock(&q->lock);
	if (!q->has_writer) {
		q->writer = pthread_self();
		q->has_writer = true;
	}
	if (pthread_equal(q->writer, pthread_self()))
		q->writer_decoding = false;	/* waiting, maybe */
	while (!given_up(q, s) &&
	       (c = chunk_get(q, s, need, populate || size == 0,
	                      &nomem)) == NULL && !nomem) {
		if (flush_due(q))
			write_ready(q, false);	/* instead of waiting */
		else
			pthread_cond_wait(&q->space, &q->lock);
	}
	if (c == NULL || given_up(q, s)) {
		if (c != NULL)
			chunk_release(q, c);
		pthread_mutex_unlock(&q->lock);
		if (nomem)
			zd_err(err, ZD_E_NOMEM, "out of memory");
		else
			zd_err(err, ZD_E_INTERNAL, "cancelled");
		return NULL;
	}
	if (pthread_equal(q->writer, pthread_self()))
		q->writer_decoding = true;
	if (!s->had_chunk) {
		s->had_chunk = true;
		if (++q->jobs_got == q->jobs)
			start_draining(q);
	}
	c->next = NULL;
	c->len = c->written = 0;
	c->done = false;
	c->whole = size > 0;
	c->ahead = populate || size == 0;
	if (s->tail != NULL)
		s->tail->next = c;
	else
		s->head = c;
	s->tail = c;
	s->filling = c;
	pthread_mutex_unlock(&q->lock);
	make_ahead(q, c, 0);	/* c is this worker's until it is done */
	*cap = need;
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
 * writer and write the head job's bytes as far as they are decoded, job
 * after job.  The last check for more and giving the role up happen under
 * one hold of the lock, so nothing handed on is left behind.  A worker
 * goes on decoding into its chunk past what is being written: the writer
 * reads only bytes below the length it took under the lock.
 *
 * A worker with bytes to decode (nowait) stops where the sink is full
 * and marks the queue stalled; a worker with nothing else to do writes
 * the rest waiting for the sink (!nowait), which ends the stall.  Returns
 * true when this call found the sink full (see yield_to_reader).
 *
 * While it decodes, one thread writes: the first to get a chunk.  Another
 * worker with bytes to decode leaves the writing to it, marking the queue
 * stalled (so a worker with nothing else to do writes if that thread does
 * not first).  So the pipe's reader, woken onto the writer's CPU, stays
 * there, and the two threads do not take turns at the pipe's lock from
 * two CPUs, each spinning while the other copies: on a 2-vCPU EPYC that
 * spinning was 5.8 ms of CPU per run of cat-data -T2 text.deb | cat, 1.7
 * ms with one writer, and the run took 56.3 ms against 60.0 (medians of
 * 30; lib 89.7 against 94.6; doc/measurements/decode-2026-11-27-yield.txt).
 */
static bool
write_ready(struct zd_outq *q, bool nowait)
{
	bool full = false;

	if (q->writing || q->write_failed)
		return false;
	if (nowait && q->writer_decoding &&
	    !pthread_equal(q->writer, pthread_self())) {
		mark_stalled(q);
		return false;
	}
	q->writing = true;
	if (!nowait)
		q->stalled = false;
	for (;;) {
		struct oq_slot *s = head_slot(q);
		struct chunk *c;

		if (s == NULL || s->failed)
			break;
		c = s->head;
		if (c != NULL && c->written < c->len) {
			size_t from = c->written, to = c->len;
			ssize_t rc;

			pthread_mutex_unlock(&q->lock);
			rc = q->write(q->ctx, c->data + from, to - from,
			              nowait, &q->err);
			pthread_mutex_lock(&q->lock);
			if (rc < 0 || (size_t)rc > to - from) {
				q->write_failed = true;
				pthread_cond_broadcast(&q->written);
				pthread_cond_broadcast(&q->space);
				break;
			}
			c->written = from + (size_t)rc;
			if (c->written < to) {
				mark_stalled(q);
				full = true;
				break;
			}
		} else if (c != NULL && c->done) {
			s->head = c->next;
			if (s->head == NULL)
				s->tail = NULL;
			chunk_release(q, c);
		} else if (c == NULL && s->finished) {
			s->started = false;
			q->head++;
			pthread_cond_broadcast(&q->written);
			pthread_cond_broadcast(&q->space);
		} else {
			break;
		}
	}
	q->writing = false;
	return full;
}

/*
 * Lock not held: the calling worker found the sink full and goes back to
 * decoding.  It first lets a task waiting for its CPU run: the pipe's
 * reader, woken by the write on the writer's CPU, otherwise waits there
 * for the worker's time slice to end while the pipe sits full.  On a
 * 2-vCPU EPYC (cat-data -T2 text.deb | cat, a scratch build logging each
 * write) the pipe stayed full for 2 ms at a time, 66 writes finding no
 * room, and the last piece's bytes left 1.8 ms after it was decoded
 * (median of 15 runs); with the yield 0.5 ms
 * (doc/measurements/decode-2026-11-27-yield.txt).  With no other task
 * waiting for the CPU, sched_yield(2) returns at once.
 */
static void
yield_to_reader(bool full)
{
	if (full)
		(void)sched_yield();
}

void
zd_outq_progress(struct zd_outq *q, unsigned slot, size_t len)
{
	struct oq_slot *s = &q->slots[slot];
	struct chunk *c;
	bool full = false;

	pthread_mutex_lock(&q->lock);
	c = s->filling;
	if (c != NULL && len > c->len) {
		c->len = len;
		full = write_ready(q, true);
	}
	pthread_mutex_unlock(&q->lock);
	if (c != NULL)
		make_ahead(q, c, len);
	yield_to_reader(full);
}

void
zd_outq_put(struct zd_outq *q, unsigned slot, size_t len)
{
	struct oq_slot *s = &q->slots[slot];
	struct chunk *c;
	bool full = false;

	pthread_mutex_lock(&q->lock);
	c = s->filling;
	s->filling = NULL;
	if (c != NULL) {
		if (len > c->len)
			c->len = len;
		c->done = true;
		full = write_ready(q, true);
	}
	pthread_mutex_unlock(&q->lock);
	yield_to_reader(full);
}

void
zd_outq_finish(struct zd_outq *q, unsigned slot, bool failed)
{
	struct oq_slot *s = &q->slots[slot];
	bool full = false;

	pthread_mutex_lock(&q->lock);
	if (s->filling != NULL) {
		s->filling->done = true;
		s->filling = NULL;
	}
	if (q->has_writer && pthread_equal(q->writer, pthread_self()))
		q->writer_decoding = false;
	s->finished = true;
	s->failed = failed;
	if (failed) {
		if (s->job < q->failed_job)
			q->failed_job = s->job;
		pthread_cond_broadcast(&q->written);
		pthread_cond_broadcast(&q->space);
	} else {
		full = write_ready(q, true);
	}
	pthread_mutex_unlock(&q->lock);
	yield_to_reader(full);
}

/* Lock held: is there nothing more for a worker with no job to wait
 * for (see zd_outq_flush)? */
static bool
drained(const struct zd_outq *q)
{
	return !q->draining || q->head >= q->jobs || q->write_failed ||
	       q->failed_job != UINT64_MAX;
}

bool
zd_outq_flush(struct zd_outq *q)
{
	bool did = false;

	pthread_mutex_lock(&q->lock);
	for (;;) {
		if (q->dead != NULL) {
			unmap_dead(q);
			did = true;
		} else if (flush_due(q)) {
			write_ready(q, false);
			did = true;
		} else if (drained(q)) {
			break;
		} else {
			pthread_cond_wait(&q->space, &q->lock);
		}
	}
	pthread_mutex_unlock(&q->lock);
	return did;
}

void
zd_outq_set_jobs(struct zd_outq *q, uint64_t jobs)
{
	pthread_mutex_lock(&q->lock);
	q->jobs = jobs;
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

void
zd_outq_set_huge(struct zd_outq *q, bool huge)
{
	pthread_mutex_lock(&q->lock);
	q->huge = huge;
	pthread_mutex_unlock(&q->lock);
}

bool
zd_outq_huge(struct zd_outq *q)
{
	bool huge;

	pthread_mutex_lock(&q->lock);
	huge = q->huge;
	pthread_mutex_unlock(&q->lock);
	return huge;
}

size_t
zd_outq_held(struct zd_outq *q)
{
	size_t held;

	pthread_mutex_lock(&q->lock);
	held = q->bytes;
	pthread_mutex_unlock(&q->lock);
	return held;
}

size_t
zd_outq_peak(struct zd_outq *q)
{
	size_t peak;

	pthread_mutex_lock(&q->lock);
	peak = q->peak;
	pthread_mutex_unlock(&q->lock);
	return peak;
}
