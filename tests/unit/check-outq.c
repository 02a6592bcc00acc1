/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check-outq.c - pieces written in order by their workers: order, the
 * bounded pool, job and write failures, no hang (run through zd_sched_run
 * with early consume, as zseg-decode.c does); in chunks, and whole pieces
 * decoded in place and handed on as they fill
 */
#include "config.h"

#include <check.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/outq.h"
#include "lib/sched.h"
#include "tests/unit/testutil.h"

enum { NJOBS = 60, CHUNK = 4096 };

struct oq_test {
	struct zd_outq *q;
	uint64_t njobs;
	int64_t fail_job;	/* job whose run fails, -1: none */
	uint64_t fail_write_at;	/* write failing past this many bytes */
	bool slow_head;		/* job 0 decodes slowly: later ones queue */
	bool whole;		/* each job one chunk of its size, progress */
	bool full;		/* the sink is often full (nowait: short) */
	bool never_fits;	/* with full: nowait writes take nothing */
	unsigned delay_us[4];	/* job i < 4 waits so long before its work */
	unsigned calls;		/* writes so far */
	unsigned short_writes;	/* nowait writes that took less than len */
	unsigned waits;		/* writes asked to wait (flushes) */
	int writing;		/* writers at once: at most 1 */
	unsigned char *out;	/* written bytes */
	size_t out_len, out_cap;
	uint64_t total;		/* bytes all jobs produce */
};

/* Jobs of 2-3.4 MiB (whole pieces in huge pages), not of 0-12 KB. */
static bool big_jobs;

/* Job i produces job_len(i) bytes, byte k being (i * 31 + k) & 0xff. */
static size_t
job_len(uint64_t i)
{
	if (big_jobs)
		return i == 3 ? 5000 : ((size_t)2 << 20) +
		       (size_t)(i % 3) * (700 << 10) + (i % 2) * 17;
	return (size_t)((i * 7919) % 5) * 3000 + (i % 3 == 0 ? 0 : 17);
}

static ssize_t
t_write(void *ctx, const unsigned char *buf, size_t len, bool nowait,
        struct zd_error *err)
{
	struct oq_test *t = ctx;
	unsigned call;

	ck_assert_int_eq(__atomic_add_fetch(&t->writing, 1, __ATOMIC_SEQ_CST),
	                 1);
	call = t->calls++;
	if (t->full && nowait) {
		/* a third of the time nothing fits, else a part; never the
		 * last byte of all, which a waiting write must take (so every
		 * run has one, however the threads ran) */
		size_t fits = call % 3 == 0 || t->never_fits ? 0 :
		              (call * 7919u) % 3000 + 1;

		if (t->out_len + fits >= t->total)
			fits = (size_t)t->total - t->out_len - 1;
		if (fits < len) {
			len = fits;
			t->short_writes++;
		}
	} else if (!nowait) {
		t->waits++;
	}
	if (t->out_len + len > t->fail_write_at) {
		__atomic_sub_fetch(&t->writing, 1, __ATOMIC_SEQ_CST);
		return zd_err(err, ZD_E_IO, "write failed at %zu",
		              t->out_len);
	}
	ck_assert_uint_le(t->out_len + len, t->out_cap);
	memcpy(t->out + t->out_len, buf, len);
	t->out_len += len;
	__atomic_sub_fetch(&t->writing, 1, __ATOMIC_SEQ_CST);
	return (ssize_t)len;
}

/* A worker with nothing to do: writes what the full sink left. */
static bool
t_idle(void *ctx)
{
	struct oq_test *t = ctx;

	return zd_outq_flush(t->q);
}

static int
t_produce(void *ctx, uint64_t i, unsigned slot, struct zd_error *err)
{
	struct oq_test *t = ctx;

	(void)err;
	if (i >= t->njobs)
		return 0;
	zd_outq_start(t->q, slot, i);
	return 1;
}

static int
t_run(void *ctx, unsigned worker, uint64_t i, unsigned slot,
      struct zd_error *err)
{
	struct oq_test *t = ctx;
	size_t len = job_len(i), k = 0;

	(void)worker;
	if (i < 4 && t->delay_us[i] > 0)
		usleep(t->delay_us[i]);
	if (t->whole && len > 0) {
		size_t cap;
		unsigned char *buf = zd_outq_get(t->q, slot, len, i % 2 == 0,
		                                 &cap, err);

		if (buf == NULL) {
			zd_outq_finish(t->q, slot, true);
			return -1;
		}
		ck_assert_uint_eq(cap, len);
		for (; k < len; k++) {
			buf[k] = (unsigned char)((i * 31 + k) & 0xff);
			if ((k + 1) % 1000 == 0) {
				if (i == 0 && t->slow_head)
					usleep(500);
				zd_outq_progress(t->q, slot, k + 1);
			}
		}
		zd_outq_put(t->q, slot, len);
	} else if (len == 0) {
		/* as zseg-read.c streams an empty piece: one chunk, put
		 * empty (so every job has had its first chunk, and the
		 * queue drains: zd_outq_set_jobs) */
		size_t cap;

		if (zd_outq_get(t->q, slot, 0, true, &cap, err) == NULL) {
			zd_outq_finish(t->q, slot, true);
			return -1;
		}
		zd_outq_put(t->q, slot, 0);
	}
	while (k < len) {
		size_t cap, n;
		unsigned char *buf = zd_outq_get(t->q, slot, 0, true, &cap,
		                                 err);

		if (buf == NULL) {
			zd_outq_finish(t->q, slot, true);
			return -1;
		}
		ck_assert_uint_eq(cap, CHUNK);
		n = len - k < cap / 2 ? len - k : cap / 2;
		for (size_t j = 0; j < n; j++)
			buf[j] = (unsigned char)((i * 31 + k + j) & 0xff);
		if (i == 0 && t->slow_head)
			usleep(2000);
		zd_outq_put(t->q, slot, n);
		k += n;
	}
	if ((int64_t)i == t->fail_job) {
		zd_err(err, ZD_E_FORMAT, "job %ju failed", (uintmax_t)i);
		zd_outq_finish(t->q, slot, true);
		return -1;
	}
	zd_outq_finish(t->q, slot, false);
	return 0;
}

static int
t_consume(void *ctx, uint64_t i, unsigned slot, struct zd_error *err)
{
	struct oq_test *t = ctx;

	(void)slot;
	return zd_outq_wait(t->q, i, err);
}

static const struct zd_sched_ops ops = { t_produce, t_run, t_consume,
                                          true, t_idle };

static void
oq_init(struct oq_test *t, unsigned threads, size_t max_bytes)
{
	memset(t, 0, sizeof(*t));
	t->njobs = NJOBS;
	t->fail_job = -1;
	t->fail_write_at = UINT64_MAX;
	for (uint64_t i = 0; i < t->njobs; i++)
		t->total += job_len(i);
	t->out_cap = (size_t)t->total;
	t->out = malloc(t->out_cap);
	ck_assert_ptr_nonnull(t->out);
	t->q = zd_outq_new(threads + 1, CHUNK, max_bytes, t_write, t);
	ck_assert_ptr_nonnull(t->q);
	/* as zseg-decode.c does: the last jobs' chunks are unmapped as
	 * they are written, by workers with nothing else to do */
	zd_outq_set_jobs(t->q, t->njobs);
}

static void
oq_done(struct oq_test *t)
{
	zd_outq_free(t->q);
	free(t->out);
	big_jobs = false;
}

/* Bytes of jobs 0 .. jobs-1. */
static size_t
jobs_len(uint64_t jobs)
{
	size_t n = 0;

	for (uint64_t i = 0; i < jobs; i++)
		n += job_len(i);
	return n;
}

/* What is written is the start of jobs 0, 1, ... in order. */
static void
check_written(const struct oq_test *t)
{
	size_t at = 0;

	size_t bad = SIZE_MAX;

	/* one assertion at the end: check marks every one it passes */
	for (uint64_t i = 0; at < t->out_len && bad == SIZE_MAX; i++) {
		for (size_t k = 0; k < job_len(i) && at + k < t->out_len; k++)
			if (t->out[at + k] !=
			    (unsigned char)((i * 31 + k) & 0xff)) {
				bad = at + k;
				break;
			}
		at += job_len(i);
	}
	ck_assert_msg(bad == SIZE_MAX, "written byte %zu is wrong", bad);
}

/* The written bytes are exactly jobs 0 .. jobs-1, whole. */
static void
check_prefix(const struct oq_test *t, uint64_t jobs)
{
	check_written(t);
	ck_assert_uint_eq(t->out_len, jobs_len(jobs));
}

static const unsigned thread_counts[] = { 2, 3, 8 };

/* Every job written whole and in order, with a roomy pool and with a
 * pool of 2 chunks and a slow head (later jobs wait; nothing hangs); in
 * chunks and whole (a piece may be larger than the pool: its worker
 * waits until its job is the head, which always gets one).  Then all of
 * it again with a sink that is often full (a pipe whose reader lags):
 * workers write what it takes and go on, workers with nothing to do
 * write the rest waiting for it, one writer at a time. */
START_TEST(test_outq_order)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct oq_test t;
	int n = (int)(sizeof(thread_counts) / sizeof(thread_counts[0]));
	unsigned threads = thread_counts[(_i / 4) % n];
	bool small = _i % 2 == 1;

	oq_init(&t, threads, (small ? 2 : 64) * CHUNK);
	t.slow_head = small;
	t.whole = (_i / 2) % 2 == 1;
	t.full = _i >= 4 * n;
	ck_assert_zd_ok(zd_sched_run(&ops, &t, threads, threads + 1, &err),
	                &err);
	check_prefix(&t, t.njobs);
	if (t.full) {
		ck_assert_uint_gt(t.short_writes, 0);
		ck_assert_uint_gt(t.waits, 0);
	}
	oq_done(&t);
}
END_TEST

/* A failing job: everything before it written, its error reported, and
 * workers of later jobs waiting for a chunk give up; also with a sink
 * that is often full. */
START_TEST(test_outq_job_failure)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct oq_test t;
	int n = (int)(sizeof(thread_counts) / sizeof(thread_counts[0]));
	unsigned threads = thread_counts[(_i / 2) % n];

	oq_init(&t, threads, 2 * CHUNK);
	t.whole = _i % 2 == 1;
	t.full = _i >= 2 * n;
	t.fail_job = 23;
	ck_assert_int_eq(zd_sched_run(&ops, &t, threads, threads + 1, &err),
	                 -1);
	ck_assert_str_eq(err.msg, "job 23 failed");
	/* jobs 0-22 whole; of job 23, what was put before it failed */
	check_written(&t);
	ck_assert_uint_ge(t.out_len, jobs_len(23));
	ck_assert_uint_le(t.out_len, jobs_len(24));
	oq_done(&t);
}
END_TEST

/*
 * A job fails while the bytes of the one before it wait for a full sink
 * and a later job is still to get its chunk: a sink that never takes a
 * write without waiting, two workers; job 1 done after 20 ms (its worker
 * then takes job 3), job 2 failing after 50 ms, job 3 getting its chunk
 * after 100 ms; job 1's bytes are written by a worker
 * with nothing left to do (idle after the failure too: before, both
 * slept and the calling thread waited for job 1 for ever).
 */
START_TEST(test_outq_fail_while_stalled)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct oq_test t;

	oq_init(&t, 2, 64 * CHUNK);
	t.whole = _i == 1;
	t.full = t.never_fits = true;
	t.fail_job = 2;
	t.delay_us[1] = 20000;	/* job 3 is there when job 1 is done */
	t.delay_us[2] = 50000;
	t.delay_us[3] = 100000;
	ck_assert_int_eq(zd_sched_run(&ops, &t, 2, 3, &err), -1);
	ck_assert_str_eq(err.msg, "job 2 failed");
	check_written(&t);
	ck_assert_uint_eq(t.out_len, jobs_len(2));
	oq_done(&t);
}
END_TEST

/*
 * A failure once the queue drains (every job has had its chunk; workers
 * with nothing left wait in zd_outq_flush): the last job failing, or the
 * write failing 10 bytes before the end; in chunks and whole, with a sink
 * that is often full or not.  Nothing hangs, everything before the
 * failure is written.
 */
START_TEST(test_outq_late_failure)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct oq_test t;
	int n = (int)(sizeof(thread_counts) / sizeof(thread_counts[0]));
	unsigned threads = thread_counts[(_i / 8) % n];
	bool by_write = _i % 2 == 1;

	oq_init(&t, threads, 64 * CHUNK);
	t.whole = (_i / 2) % 2 == 1;
	t.full = (_i / 4) % 2 == 1;
	if (by_write)
		t.fail_write_at = t.total - 10;
	else
		t.fail_job = (int64_t)t.njobs - 1;
	ck_assert_int_eq(zd_sched_run(&ops, &t, threads, threads + 1, &err),
	                 -1);
	check_written(&t);
	if (by_write) {
		ck_assert_int_eq(err.code, ZD_E_IO);
		ck_assert_uint_le(t.out_len, t.total - 10);
	} else {
		ck_assert_str_eq(err.msg, "job 59 failed");
		ck_assert_uint_ge(t.out_len, jobs_len(t.njobs - 1));
	}
	oq_done(&t);
}
END_TEST

/* A failing write: its error reported, every waiting worker gives up;
 * also with a sink that is often full. */
START_TEST(test_outq_write_failure)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct oq_test t;
	int n = (int)(sizeof(thread_counts) / sizeof(thread_counts[0]));
	unsigned threads = thread_counts[(_i / 2) % n];

	oq_init(&t, threads, 2 * CHUNK);
	t.whole = _i % 2 == 1;
	t.slow_head = true;
	t.full = _i >= 2 * n;
	t.fail_write_at = 50000;
	ck_assert_int_eq(zd_sched_run(&ops, &t, threads, threads + 1, &err),
	                 -1);
	ck_assert_int_eq(err.code, ZD_E_IO);
	ck_assert_msg(strncmp(err.msg, "write failed at ", 16) == 0, "%s",
	              err.msg);
	ck_assert_uint_le(t.out_len, 50000);
	/* a write is at most a chunk, or what a whole piece holds */
	ck_assert_uint_gt(t.out_len, 50000 - (t.whole ? 13000 : CHUNK));
	check_written(&t);
	oq_done(&t);
}
END_TEST

/* Whole pieces of 2 MiB and more: mapped in whole huge pages (2 MiB + 17
 * bytes take 4 MiB), which the pool's budget counts, and reused for later
 * pieces; every byte written in order. */
START_TEST(test_outq_huge)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct oq_test t;
	unsigned threads = thread_counts[_i];
	size_t peak;

	big_jobs = true;
	oq_init(&t, threads, (size_t)6 << 20);
	t.njobs = 8;
	t.total = jobs_len(t.njobs);
	zd_outq_set_jobs(t.q, t.njobs);
	t.whole = true;
	ck_assert_zd_ok(zd_sched_run(&ops, &t, threads, threads + 1, &err),
	                &err);
	check_prefix(&t, t.njobs);
	peak = zd_outq_peak(t.q);
	/* the budget, and one piece more for the head job at most (before
	 * other workers could reuse the head's chunk over the budget: up to
	 * 14 MiB here) */
	ck_assert_uint_le(peak, (size_t)(6 + 4) << 20);
	oq_done(&t);
}
END_TEST

/* Job job of a one-worker queue (slot job % 2) takes a whole buffer of
 * size bytes on this thread, its pages made at once when populate. */
static unsigned char *
whole_start(struct oq_test *t, uint64_t job, size_t size, bool populate)
{
	struct zd_error err = ZD_ERROR_INIT;
	unsigned char *buf;
	size_t cap;

	zd_outq_start(t->q, (unsigned)(job % 2), job);
	buf = zd_outq_get(t->q, (unsigned)(job % 2), size, populate, &cap,
	                  &err);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(cap, size);
	return buf;
}

/* ... hands none of it on, ends, and is done with. */
static void
whole_end(struct oq_test *t, uint64_t job)
{
	struct zd_error err = ZD_ERROR_INIT;

	zd_outq_put(t->q, (unsigned)(job % 2), 0);
	zd_outq_finish(t->q, (unsigned)(job % 2), false);
	ck_assert_zd_ok(zd_outq_wait(t->q, job, &err), &err);
}

/* With huge pages: a whole piece's buffer, populated, is 2 MiB-aligned,
 * in whole 2 MiB (counted so), and reused for a later piece that fits;
 * one only claimed (not populated) takes its exact size. */
START_TEST(test_outq_huge_caps)
{
	struct oq_test t;
	const size_t M = (size_t)1 << 20;
	unsigned char *buf;

	big_jobs = true;
	oq_init(&t, 1, 64 * M);
	zd_outq_set_huge(t.q, true);
	buf = whole_start(&t, 0, job_len(0) + 17, true);
	ck_assert_uint_eq((uintptr_t)buf % (2 * M), 0);
	ck_assert_uint_eq(zd_outq_peak(t.q), 4 * M);
	whole_end(&t, 0);

	whole_start(&t, 1, 3 * M, false);
	ck_assert_uint_eq(zd_outq_peak(t.q), 4 * M);	/* reused */
	whole_end(&t, 1);

	whole_start(&t, 2, 5 * M + 1, false);
	ck_assert_uint_eq(zd_outq_peak(t.q), 9 * M + 1);
	whole_end(&t, 2);
	ck_assert_uint_eq(t.out_len, 0);
	oq_done(&t);
}
END_TEST

/* The other worker of test_outq_one_writer: its job, whole, handed on
 * in two steps. */
struct other_job {
	struct oq_test *t;
	unsigned slot;
	uint64_t job;
};

static void *
other_worker(void *arg)
{
	struct other_job *o = arg;
	struct zd_error err = ZD_ERROR_INIT;
	size_t cap, len = job_len(o->job);
	unsigned char *buf = zd_outq_get(o->t->q, o->slot, len, true, &cap,
	                                 &err);

	ck_assert_ptr_nonnull(buf);
	for (size_t k = 0; k < len; k++)
		buf[k] = (unsigned char)((o->job * 31 + k) & 0xff);
	zd_outq_progress(o->t->q, o->slot, len / 2);
	zd_outq_put(o->t->q, o->slot, len);
	zd_outq_finish(o->t->q, o->slot, false);
	return NULL;
}

/*
 * While the first thread to get a chunk decodes, another thread's bytes
 * wait for it (or for a thread with nothing else to do); once it has no
 * piece, the others write their own.
 */
START_TEST(test_outq_one_writer)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct oq_test t;
	struct other_job o;
	pthread_t other;
	unsigned char *buf;
	size_t cap, len;

	big_jobs = true;
	oq_init(&t, 2, (size_t)64 << 20);
	len = job_len(1);
	zd_outq_start(t.q, 0, 0);
	zd_outq_start(t.q, 1, 1);
	/* this thread gets a chunk first: it writes while it decodes */
	buf = zd_outq_get(t.q, 1, len, true, &cap, &err);
	ck_assert_ptr_nonnull(buf);
	for (size_t k = 0; k < len; k++)
		buf[k] = (unsigned char)((31 + k) & 0xff);
	o.t = &t;
	o.slot = 0;
	o.job = 0;
	ck_assert_int_eq(pthread_create(&other, NULL, other_worker, &o), 0);
	ck_assert_int_eq(pthread_join(other, NULL), 0);
	ck_assert_uint_eq(t.out_len, 0);	/* left to this thread */
	/* which writes them, and its own, at its next turn */
	zd_outq_progress(t.q, 1, 1);
	ck_assert_uint_eq(t.out_len, job_len(0) + 1);
	zd_outq_put(t.q, 1, len);
	zd_outq_finish(t.q, 1, false);
	ck_assert_zd_ok(zd_outq_wait(t.q, 1, &err), &err);

	/* with no piece of its own, it writes no more for the others: job
	 * 2's worker writes its own */
	zd_outq_start(t.q, 2, 2);
	o.slot = 2;
	o.job = 2;
	ck_assert_int_eq(pthread_create(&other, NULL, other_worker, &o), 0);
	ck_assert_int_eq(pthread_join(other, NULL), 0);
	ck_assert_uint_eq(t.out_len, jobs_len(3));
	ck_assert_zd_ok(zd_outq_wait(t.q, 2, &err), &err);
	check_prefix(&t, 3);
	oq_done(&t);
}
END_TEST

/*
 * Without huge pages: a buffer maps whole pages only, and a later piece
 * larger than every free buffer grows the largest one (its bytes kept,
 * the pool counting the growth only) instead of mapping one more.
 */
START_TEST(test_outq_page_caps)
{
	struct oq_test t;
	const size_t M = (size_t)1 << 20;
	const size_t page = (size_t)sysconf(_SC_PAGESIZE);
	unsigned char *buf;

	big_jobs = true;
	oq_init(&t, 1, 16 * M);
	zd_outq_set_huge(t.q, false);
	buf = whole_start(&t, 0, 3 * M + 17, true);
	ck_assert_uint_eq(zd_outq_peak(t.q), 3 * M + page);
	memset(buf, 0xa5, 3 * M + 17);
	whole_end(&t, 0);

	/* grown from 3 MiB + a page to 5 MiB + a page */
	buf = whole_start(&t, 1, 5 * M + 1, true);
	ck_assert_uint_eq(zd_outq_peak(t.q), 5 * M + page);
	ck_assert_uint_eq(buf[3 * M], 0xa5);		/* the same pages */
	ck_assert_uint_eq(buf[5 * M], 0);		/* and new ones */
	memset(buf, 0x5a, 5 * M + 1);
	whole_end(&t, 1);

	/* 20 MiB, past the 16 MiB budget: the head job's with nothing
	 * queued, which may pass it, grows the free one (its bytes kept),
	 * maps no second */
	buf = whole_start(&t, 2, 20 * M, true);
	ck_assert_uint_eq(zd_outq_peak(t.q), 20 * M);
	ck_assert_uint_eq(buf[5 * M], 0x5a);
	ck_assert_uint_eq(buf[20 * M - 1], 0);
	whole_end(&t, 2);
	ck_assert_uint_eq(t.out_len, 0);
	oq_done(&t);

	/* a claimed buffer (not populated: its size not rounded) grown for
	 * a populated piece: the new pages from the next whole page on */
	big_jobs = true;
	oq_init(&t, 1, 16 * M);
	zd_outq_set_huge(t.q, false);
	buf = whole_start(&t, 0, 3 * M + 17, false);
	ck_assert_uint_eq(zd_outq_peak(t.q), 3 * M + 17);
	memset(buf, 0xa5, 3 * M + 17);
	whole_end(&t, 0);
	buf = whole_start(&t, 1, 5 * M + 1, true);
	ck_assert_uint_eq(zd_outq_peak(t.q), 5 * M + page);
	ck_assert_uint_eq(buf[3 * M + 16], 0xa5);
	ck_assert_uint_eq(buf[5 * M], 0);
	whole_end(&t, 1);
	oq_done(&t);
}
END_TEST

/* Pages of [p, p + len) that are resident (made). */
static size_t
resident(const unsigned char *p, size_t len)
{
	const size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t n = (len + page - 1) / page, made = 0;
	unsigned char *v = malloc(n);

	ck_assert_ptr_nonnull(v);
	ck_assert_int_eq(mincore((void *)p, len, v), 0);
	for (size_t i = 0; i < n; i++)
		made += v[i] & 1;
	free(v);
	return made * page;
}

/*
 * Without huge pages, a whole piece's fresh buffer has its pages made 1
 * MiB ahead of the bytes handed on (zd_outq_progress), not all at once;
 * a claimed one (populate false) none ahead.
 */
START_TEST(test_outq_pages_ahead)
{
	struct oq_test t;
	const size_t M = (size_t)1 << 20;
	unsigned char *buf;

	big_jobs = true;
	oq_init(&t, 1, 64 * M);
	zd_outq_set_huge(t.q, false);
	buf = whole_start(&t, 0, 8 * M, true);
	ck_assert_uint_eq(resident(buf, 8 * M), M);
	zd_outq_progress(t.q, 0, 3 * M);
	ck_assert_uint_eq(resident(buf, 8 * M), 4 * M);
	zd_outq_progress(t.q, 0, 3 * M + 4096);		/* within half */
	ck_assert_uint_eq(resident(buf, 8 * M), 4 * M);
	zd_outq_progress(t.q, 0, 7 * M + 5);		/* to the end */
	ck_assert_uint_eq(resident(buf, 8 * M), 8 * M);
	zd_outq_put(t.q, 0, 8 * M);
	zd_outq_finish(t.q, 0, false);
	oq_done(&t);

	oq_init(&t, 1, 64 * M);
	zd_outq_set_huge(t.q, false);
	buf = whole_start(&t, 0, 8 * M, false);
	ck_assert_uint_eq(resident(buf, 8 * M), 0);
	whole_end(&t, 0);
	oq_done(&t);
}
END_TEST

struct flusher {
	struct zd_outq *q;
	bool returned;
};

static void *
flush_thread(void *arg)
{
	struct flusher *f = arg;

	zd_outq_flush(f->q);
	__atomic_store_n(&f->returned, true, __ATOMIC_SEQ_CST);
	return NULL;
}

/*
 * Until every job has had its chunk (zd_outq_set_jobs), a whole piece's
 * chunk written whole is kept for reuse; from then on it is unmapped by
 * a worker with nothing else to do (zd_outq_flush), which returns only
 * once all is written.
 */
START_TEST(test_outq_drain)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct oq_test t;
	struct flusher f;
	pthread_t th;
	const size_t M = (size_t)1 << 20;
	unsigned char *buf;
	size_t cap;

	big_jobs = true;
	oq_init(&t, 1, 64 * M);
	zd_outq_set_huge(t.q, false);
	zd_outq_set_jobs(t.q, 3);
	whole_start(&t, 0, 3 * M, true);
	whole_end(&t, 0);
	ck_assert_uint_eq(zd_outq_held(t.q), 3 * M);	/* kept */
	ck_assert(!zd_outq_flush(t.q));		/* not draining: nothing */
	whole_start(&t, 1, 2 * M, true);	/* reuses it */
	ck_assert_uint_eq(zd_outq_held(t.q), 3 * M);
	/* job 2's chunk, the last job's first: draining from here on */
	zd_outq_start(t.q, 0, 2);
	buf = zd_outq_get(t.q, 0, 4 * M, true, &cap, &err);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(zd_outq_held(t.q), 7 * M);
	f.q = t.q;
	f.returned = false;
	ck_assert_int_eq(pthread_create(&th, NULL, flush_thread, &f), 0);
	whole_end(&t, 1);	/* written: unmapped by the flusher */
	for (int i = 0; i < 2000 && zd_outq_held(t.q) > 4 * M; i++)
		usleep(1000);
	ck_assert_uint_eq(zd_outq_held(t.q), 4 * M);
	usleep(20000);
	ck_assert(!__atomic_load_n(&f.returned, __ATOMIC_SEQ_CST));
	memset(buf, 0x11, 4 * M);
	zd_outq_put(t.q, 0, 4 * M);
	zd_outq_finish(t.q, 0, false);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	ck_assert(f.returned);
	ck_assert_uint_eq(zd_outq_held(t.q), 0);
	ck_assert_zd_ok(zd_outq_wait(t.q, 2, &err), &err);
	ck_assert_uint_eq(t.out_len, 4 * M);	/* jobs 0, 1 put nothing */
	oq_done(&t);
}
END_TEST

/* A balloon device's features file, as sysfs gives it: one '0' or '1'
 * per feature bit, lowest first. */
static void
balloon(const char *dev, const char *bits)
{
	const char *dir = zd_test_path("virtio_balloon");
	char path[4300];

	ck_assert_int_eq(zd_test_sh("mkdir -p '%s/%s'", dir, dev), 0);
	snprintf(path, sizeof(path), "%s/%s/features", dir, dev);
	zd_test_write_file(path, bits, strlen(bits));
}

/* Free page reporting (bit 5) on any balloon device, and nothing else,
 * turns huge pages off; no driver directory, other entries, a device
 * without a features file or with a short one leave them on. */
START_TEST(test_outq_host_reclaims)
{
	char dir[4300];

	snprintf(dir, sizeof(dir), "%s", zd_test_path("virtio_balloon"));
	ck_assert(!zd_outq_host_reclaims(dir));		/* no balloon */
	ck_assert_int_eq(zd_test_sh("mkdir -p '%s/module' && touch '%s/bind'",
	                            dir, dir), 0);
	ck_assert(!zd_outq_host_reclaims(dir));
	ck_assert_int_eq(zd_test_sh("mkdir -p '%s/virtio1'", dir), 0);
	ck_assert(!zd_outq_host_reclaims(dir));		/* no features */
	balloon("virtio0", "01100");
	ck_assert(!zd_outq_host_reclaims(dir));		/* too short */
	balloon("virtio0", "0110000000000000000000000000000010000000\n");
	ck_assert(!zd_outq_host_reclaims(dir));		/* bit 5 clear */
	balloon("notvirtio", "0110010000000000000000000000000010000000\n");
	ck_assert(!zd_outq_host_reclaims(dir));
	balloon("virtio3", "0000010000000000000000000000000000000000\n");
	ck_assert(zd_outq_host_reclaims(dir));		/* a second device */
	ck_assert_int_eq(zd_test_sh("rm -r '%s/virtio3'", dir), 0);
	balloon("virtio0", "0110010000000000000000000000000010000000\n");
	ck_assert(zd_outq_host_reclaims(dir));		/* this machine's */
}
END_TEST

static Suite *
outq_suite(void)
{
	Suite *s = suite_create("outq");
	TCase *core = zd_test_tcase_plain(s, "core");
	TCase *malformed = zd_test_tcase_plain(s, "malformed");
	TCase *host = zd_test_tcase(s, "host");
	int n = (int)(sizeof(thread_counts) / sizeof(thread_counts[0]));

	tcase_add_loop_test(core, test_outq_order, 0, 8 * n);
	tcase_add_loop_test(core, test_outq_huge, 0, n);
	tcase_add_test(core, test_outq_huge_caps);
	tcase_add_test(core, test_outq_page_caps);
	tcase_add_test(core, test_outq_pages_ahead);
	tcase_add_test(core, test_outq_drain);
	tcase_add_test(core, test_outq_one_writer);
	tcase_add_test(host, test_outq_host_reclaims);
	tcase_add_loop_test(malformed, test_outq_job_failure, 0, 4 * n);
	tcase_add_loop_test(malformed, test_outq_fail_while_stalled, 0, 2);
	tcase_add_loop_test(malformed, test_outq_write_failure, 0, 4 * n);
	tcase_add_loop_test(malformed, test_outq_late_failure, 0, 8 * n);
	return s;
}

int
main(void)
{
	return zd_test_main(outq_suite());
}
