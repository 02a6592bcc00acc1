/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check-sched.c - the worker pool: order, failure propagation, cancel */
#include "config.h"

#include <check.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "lib/sched.h"
#include "tests/unit/testutil.h"

enum { NJOBS = 200, WINDOW_MAX = 16 };

struct job_ctx {
	uint64_t njobs;
	int64_t fail_run;	/* job whose run fails, -1: none */
	int64_t fail_run2;	/* another one */
	int64_t fail_consume;
	int64_t fail_produce;
	unsigned window;
	uint64_t slot_job[WINDOW_MAX];	/* job held by each slot */
	uint64_t result[WINDOW_MAX];
	uint64_t consumed[NJOBS];
	uint64_t nconsumed;
	atomic_uint running;
	atomic_uint max_running;
	atomic_uint ran;
	atomic_bool slot_busy[WINDOW_MAX];
	atomic_uint idles;		/* idle() calls */
	bool overlap;			/* a slot reused while in flight */
};

static int
t_produce(void *ctx, uint64_t i, unsigned slot, struct zd_error *err)
{
	struct job_ctx *c = ctx;

	if ((int64_t)i == c->fail_produce)
		return zd_err(err, ZD_E_IO, "produce %ju failed", (uintmax_t)i);
	if (i >= c->njobs)
		return 0;
	ck_assert_uint_eq(slot, i % c->window);
	if (atomic_exchange(&c->slot_busy[slot], true))
		c->overlap = true;
	c->slot_job[slot] = i;
	return 1;
}

static int
t_run(void *ctx, unsigned worker, uint64_t i, unsigned slot,
      struct zd_error *err)
{
	struct job_ctx *c = ctx;
	unsigned now = atomic_fetch_add(&c->running, 1) + 1;
	unsigned prev = atomic_load(&c->max_running);

	while (now > prev &&
	       !atomic_compare_exchange_weak(&c->max_running, &prev, now))
		;
	(void)worker;
	atomic_fetch_add(&c->ran, 1);
	/* uneven job lengths so that jobs finish out of order */
	usleep((useconds_t)((i * 7919) % 5) * 200);
	atomic_fetch_sub(&c->running, 1);
	if ((int64_t)i == c->fail_run || (int64_t)i == c->fail_run2)
		return zd_err(err, ZD_E_FORMAT, "job %ju failed",
		              (uintmax_t)i);
	c->result[slot] = i * 3 + 1;
	return 0;
}

static int
t_consume(void *ctx, uint64_t i, unsigned slot, struct zd_error *err)
{
	struct job_ctx *c = ctx;

	ck_assert_uint_eq(c->slot_job[slot], i);
	ck_assert_uint_eq(c->result[slot], i * 3 + 1);
	atomic_store(&c->slot_busy[slot], false);
	c->consumed[c->nconsumed++] = i;
	if ((int64_t)i == c->fail_consume)
		return zd_err(err, ZD_E_IO, "consume %ju failed", (uintmax_t)i);
	return 0;
}

static const struct zd_sched_ops ops = { t_produce, t_run, t_consume,
                                          false, NULL };

/* A worker with no job: "did something" every other time, slowly, so
 * that workers are often inside it when jobs come and when they stop. */
static bool
t_idle(void *ctx)
{
	struct job_ctx *c = ctx;

	usleep(300);
	return atomic_fetch_add(&c->idles, 1) % 2 == 0;
}

static const struct zd_sched_ops idle_ops = { t_produce, t_run, t_consume,
                                               false, t_idle };

static void
ctx_init(struct job_ctx *c, unsigned window)
{
	memset(c, 0, sizeof(*c));
	c->njobs = NJOBS;
	c->fail_run = c->fail_run2 = c->fail_consume = c->fail_produce = -1;
	c->window = window;
}

static const unsigned thread_counts[] = { 1, 2, 3, 8 };
#define NCOUNTS (sizeof(thread_counts) / sizeof(thread_counts[0]))

/* The caller-driven API: the caller fills each slot and submits it. */
static int
drive(struct job_ctx *c, unsigned threads, unsigned window,
      struct zd_error *err)
{
	struct zd_sched *s = zd_sched_start(&ops, c, threads, window, err);

	if (s == NULL)
		return -1;
	for (uint64_t i = 0; i < c->njobs; i++) {
		unsigned slot;

		if (zd_sched_next_slot(s, &slot, err) < 0 ||
		    t_produce(c, i, slot, err) != 1 ||
		    zd_sched_submit(s, err) < 0) {
			zd_sched_finish(s, false, NULL);
			return -1;
		}
	}
	return zd_sched_finish(s, true, err);
}

/*
 * Loop tests run over every thread count with zd_sched_run() (i <
 * NCOUNTS), then again with the caller-driven API.
 */
static int
run_jobs(struct job_ctx *c, int i, unsigned threads, unsigned window,
         struct zd_error *err)
{
	if ((size_t)i < NCOUNTS)
		return zd_sched_run(&ops, c, threads, window, err);
	return drive(c, threads, window, err);
}

static unsigned
threads_of(int i)
{
	return thread_counts[(size_t)i % NCOUNTS];
}

START_TEST(test_sched_order)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct job_ctx c;
	unsigned threads = threads_of(_i);
	unsigned window = threads > 1 ? 2 * threads : 1;

	ctx_init(&c, window);
	ck_assert_zd_ok(run_jobs(&c, _i, threads, window, &err), &err);
	ck_assert_uint_eq(c.nconsumed, NJOBS);
	for (uint64_t i = 0; i < NJOBS; i++)
		ck_assert_uint_eq(c.consumed[i], i);
	ck_assert(!c.overlap);
	ck_assert_uint_le(atomic_load(&c.max_running), threads);
}
END_TEST

/* Workers with nothing to do call idle() (outside the lock) before they
 * wait, look for a job again after it, and still stop when told to while
 * inside it: every job in order, nothing hangs. */
START_TEST(test_sched_idle)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct job_ctx c;
	unsigned threads = thread_counts[1 + (size_t)_i % (NCOUNTS - 1)];

	ctx_init(&c, threads);
	ck_assert_zd_ok(zd_sched_run(&idle_ops, &c, threads, threads, &err),
	                &err);
	ck_assert_uint_eq(c.nconsumed, NJOBS);
	for (uint64_t i = 0; i < NJOBS; i++)
		ck_assert_uint_eq(c.consumed[i], i);
	ck_assert(!c.overlap);
	ck_assert_uint_gt(atomic_load(&c.idles), 0);
}
END_TEST

START_TEST(test_sched_empty)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct job_ctx c;

	ctx_init(&c, 4);
	c.njobs = 0;
	ck_assert_zd_ok(run_jobs(&c, _i, 2, 4, &err), &err);
	ck_assert_uint_eq(c.nconsumed, 0);
}
END_TEST

START_TEST(test_sched_run_failure)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct job_ctx c;
	unsigned threads = threads_of(_i);
	unsigned window = threads > 1 ? 2 * threads : 1;

	ctx_init(&c, window);
	c.fail_run = 57;
	c.fail_run2 = 58;
	ck_assert_int_eq(run_jobs(&c, _i, threads, window, &err), -1);
	ck_assert_int_eq(err.code, ZD_E_FORMAT);
	ck_assert_str_eq(err.msg, "job 57 failed");
	/* every job before the failure consumed, none after */
	ck_assert_uint_eq(c.nconsumed, 57);
	/* cancelled: no job started far beyond the window */
	ck_assert_uint_le(atomic_load(&c.ran), 57 + window + 1);

	/* a job failing in the last window (found while finishing) */
	ctx_init(&c, window);
	c.fail_run = NJOBS - 1;
	ck_assert_int_eq(run_jobs(&c, _i, threads, window, &err), -1);
	ck_assert_str_eq(err.msg, "job 199 failed");
	ck_assert_uint_eq(c.nconsumed, NJOBS - 1);
}
END_TEST

START_TEST(test_sched_lowest_failure_wins)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct job_ctx c;

	/* job 11 is slow to fail: job 12 fails first, 11 must win */
	ctx_init(&c, 8);
	c.fail_run = 12;
	c.fail_run2 = 11;
	ck_assert_int_eq(run_jobs(&c, _i, 4, 8, &err), -1);
	ck_assert_str_eq(err.msg, "job 11 failed");
	ck_assert_uint_eq(c.nconsumed, 11);
}
END_TEST

START_TEST(test_sched_consume_failure)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct job_ctx c;
	unsigned threads = threads_of(_i);
	unsigned window = threads > 1 ? 2 * threads : 1;

	ctx_init(&c, window);
	c.fail_consume = 5;
	ck_assert_int_eq(run_jobs(&c, _i, threads, window, &err), -1);
	ck_assert_int_eq(err.code, ZD_E_IO);
	ck_assert_str_eq(err.msg, "consume 5 failed");
	ck_assert_uint_eq(c.nconsumed, 6);
	ck_assert_uint_le(atomic_load(&c.ran), 6 + window);
}
END_TEST

START_TEST(test_sched_produce_failure)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct job_ctx c;
	unsigned threads = threads_of(_i);
	unsigned window = threads > 1 ? 2 * threads : 1;

	ctx_init(&c, window);
	c.fail_produce = 30;
	ck_assert_int_eq(zd_sched_run(&ops, &c, threads, window, &err), -1);
	ck_assert_str_eq(err.msg, "produce 30 failed");
	/* the jobs produced before the failure still complete in order */
	ck_assert_uint_eq(c.nconsumed, 30);

	/* a run failure below the produce failure wins */
	ctx_init(&c, window);
	c.fail_produce = 30;
	c.fail_run = 29;
	ck_assert_int_eq(zd_sched_run(&ops, &c, threads, window, &err), -1);
	ck_assert_str_eq(err.msg, "job 29 failed");
}
END_TEST

static Suite *
sched_suite(void)
{
	Suite *s = suite_create("sched");
	TCase *core = zd_test_tcase_plain(s, "core");
	TCase *malformed = zd_test_tcase_plain(s, "malformed");
	int n = (int)NCOUNTS;

	/* 0 .. n-1: zd_sched_run(); n .. 2n-1: the caller-driven API */
	tcase_add_loop_test(core, test_sched_order, 0, 2 * n);
	tcase_add_loop_test(core, test_sched_empty, n - 1, n + 1);
	tcase_add_loop_test(core, test_sched_idle, 0, 3 * (n - 1));
	tcase_add_loop_test(malformed, test_sched_run_failure, 0, 2 * n);
	tcase_add_loop_test(malformed, test_sched_lowest_failure_wins, n - 1,
	                    n + 1);
	tcase_add_loop_test(malformed, test_sched_consume_failure, 0, 2 * n);
	tcase_add_loop_test(malformed, test_sched_produce_failure, 0, n);
	return s;
}

int
main(void)
{
	return zd_test_main(sched_suite());
}
