/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-cat.c - zdeb cat-data / cat-control: a member's tar on stdout */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#include "lib/deb-member.h"
#include "lib/endian.h"
#include "lib/fdio.h"
#include "lib/outq.h"
#include "lib/zseg-decode.h"
#include "lib/zseg-read.h"
#include "src/cmd.h"
#include "src/msg.h"

static const char usage_data[] =
"Usage: zdeb cat-data [-T N] [--max-window SIZE] [--max-size SIZE] DEB\n"
"\n"
"Write the uncompressed data.tar of DEB (- for stdin) to stdout, decoded on\n"
"N threads (default: all cores).  --max-window refuses zstd windows above\n"
"SIZE (default 128M); --max-size stops after SIZE decoded bytes (0: no\n"
"cap; default 1G + 1024 x the compressed size).\n";

static const char usage_control[] =
"Usage: zdeb cat-control [-T N] DEB\n"
"\n"
"Write the uncompressed control.tar of DEB (- for stdin) to stdout.\n";

/*
 * --segment-times (a benchmark option for zdeb-perf model, not in --help):
 * instead of the tar, one line per segment of an indexed zstd data member,
 * "INDEX USIZE CSIZE WALL CPU" (seconds: wall clock, and this thread's CPU
 * time, which other load on the machine hardly changes), each decoded
 * alone on this thread into one reused 256 KiB buffer (as a decoder worker
 * fills its chunks), the bytes dropped; then "stream WALL CPU": the whole
 * member through the one-thread decoder (-T1's path: one streaming
 * decoder, each segment's hash checked as its bytes pass) into a sink that
 * drops them.  Then "inplace INDEX WALL CPU" per segment: decoded again as
 * a worker decodes one into a pipe on two threads or more (in place into
 * one buffer of its size from an output queue, when it is at most
 * ZD_ZSEG_WHOLE_MAX; the queue's writer drops the bytes), with no window
 * of the decoder's own to copy out of.  Their buffer is made first, as
 * large as the largest such segment, so that no segment's time has pages
 * made in it; then "pages SIZE MAPPED POPULATE UNMAP HUGE": the bytes
 * asked for and mapped, the CPU seconds to make their pages (as the queue
 * makes a new buffer's) and to unmap them at the end, and 1 where the
 * buffers are of huge pages (all 0 but HUGE when no segment is decoded
 * so).  With --segment-times=copy, then "copy SINK DEST BYTES WALL
 * STREAM COPY" for SINK pipe and file: the whole member through the
 * one-thread decoder again, each buffer it writes copied into a ring of
 * DEST bytes (pipe: the pipe's size, as zd_pipe_grow makes zdeb's, whose
 * pages the kernel reuses; file: the member's size, at most COPY_MAX and
 * at least the pipe's, as a file's page cache takes the bytes), the
 * decoding thread's CPU seconds for that (STREAM), and for the same
 * copies from one buffer in the cache alone (COPY); WALL is the line's
 * wall time, the ring's pages made and unmapped too.  What the decoder
 * loses to a copy beyond the copy itself (its window pushed out of the
 * cache, read back) is STREAM less the stream line's CPU less COPY (the
 * stream line's, timed seconds before: a machine whose speed drifts 1 %
 * between them moves it by 1 % of the stream's time).  Exit status 2 when
 * the member is not indexed zstd.
 */
#define TIME_CHUNK (256u << 10)

static unsigned char time_buf[TIME_CHUNK];

static unsigned char *
time_get(void *ctx, size_t *cap, struct zd_error *err)
{
	(void)ctx;
	(void)err;
	*cap = sizeof(time_buf);
	return time_buf;
}

static void
time_put(void *ctx, size_t len)
{
	(void)ctx;
	(void)len;
}

static double
now_s(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int
drop_write(void *ctx, const void *buf, size_t len, struct zd_error *err)
{
	(void)ctx;
	(void)buf;
	(void)len;
	(void)err;
	return 0;
}

/* The output queue of the "inplace" lines, with one slot, written to
 * nowhere. */
static ssize_t
drop_qwrite(void *ctx, const unsigned char *buf, size_t len, bool nowait,
            struct zd_error *err)
{
	(void)nowait;
	return drop_write(ctx, buf, len, err) < 0 ? -1 : (ssize_t)len;
}

static unsigned char *
ip_get(void *ctx, size_t *cap, struct zd_error *err)
{
	return zd_outq_get(ctx, 0, 0, true, cap, err);
}

static void
ip_put(void *ctx, size_t len)
{
	zd_outq_put(ctx, 0, len);
}

static unsigned char *
ip_whole(void *ctx, size_t size, uint64_t csize, struct zd_error *err)
{
	size_t cap;

	return zd_outq_get(ctx, 0, size, ZD_ZSEG_POPULATE(size, csize), &cap,
	                   err);
}

static void
ip_progress(void *ctx, size_t len)
{
	zd_outq_progress(ctx, 0, len);
}

/* Job 0 of the "inplace" lines' queue: the "pages" line's buffer, made
 * for the largest segment decoded in place with all its pages made, as
 * the queue makes them ahead of a piece's bytes (none when there is none:
 * the job is empty); seconds of CPU, *size and *mapped set, or -1. */
static double
pages_made(struct zd_outq *q, const struct zd_zseg_piece *pc, size_t n,
           uint64_t *size, size_t *mapped, struct zd_error *err)
{
	double c0 = 0.0;
	size_t cap;

	*size = 0;
	for (size_t i = 0; i < n; i++)
		if (pc[i].exact && pc[i].usize <= ZD_ZSEG_WHOLE_MAX &&
		    pc[i].usize > *size &&
		    ZD_ZSEG_POPULATE(pc[i].usize, pc[i].csize))
			*size = pc[i].usize;
	zd_outq_start(q, 0, 0);
	if (*size > 0) {
		c0 = now_s(CLOCK_THREAD_CPUTIME_ID);
		if (zd_outq_get(q, 0, (size_t)*size, true, &cap, err) ==
		    NULL) {
			zd_outq_finish(q, 0, true);
			return -1.0;
		}
		/* handed on (to a sink that drops it) as a worker hands
		 * its bytes on, TIME_CHUNK at a time, so that the queue
		 * makes the pages ahead of them to the end: handed on
		 * whole at once, only the first 1 MiB was made (pages are
		 * never made below what is handed on), and the line put
		 * that 1 MiB's cost on the whole buffer, 0.07 ns/B where a
		 * fresh mapping costs 0.5-0.6 here */
		for (size_t len = 0; len < (size_t)*size;) {
			len += (size_t)*size - len < TIME_CHUNK ?
			       (size_t)*size - len : TIME_CHUNK;
			zd_outq_progress(q, 0, len);
		}
		c0 = now_s(CLOCK_THREAD_CPUTIME_ID) - c0;
		zd_outq_put(q, 0, 0);
	}
	zd_outq_finish(q, 0, false);
	*mapped = zd_outq_peak(q);
	return zd_outq_wait(q, 0, err) < 0 ? -1.0 : c0;
}

/* The "pages" and "inplace" lines. */
static int
inplace_times(const struct zd_region *in, unsigned window_log,
              const struct zd_zseg_piece *pc, size_t n, ZSTD_DCtx *dctx,
              unsigned char **ibuf, struct zd_error *err)
{
	struct zd_outq *q = zd_outq_new(1, TIME_CHUNK, 2 * ZD_ZSEG_WHOLE_MAX,
	                                drop_qwrite, NULL);
	uint64_t size;
	size_t mapped;
	double made, u0;
	bool huge;
	int rc = 0;

	if (q == NULL)
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	huge = zd_outq_huge(q);
	made = pages_made(q, pc, n, &size, &mapped, err);
	if (made < 0) {
		zd_outq_free(q);
		return -1;
	}
	/* jobs 1 to n: job 0 made the buffer */
	for (size_t i = 0; rc == 0 && i < n; i++) {
		const struct zd_zseg_out out = { ip_get, ip_put, q, ip_whole,
		                                 ip_progress,
		                                 ZD_ZSEG_WHOLE_MAX };
		double t0 = now_s(CLOCK_MONOTONIC);
		double c0 = now_s(CLOCK_THREAD_CPUTIME_ID);

		zd_outq_start(q, 0, i + 1);
		rc = zd_zseg_piece_stream(in, window_log, &pc[i], dctx, ibuf,
		                          &out, err);
		zd_outq_finish(q, 0, rc < 0);
		if (rc == 0)
			rc = zd_outq_wait(q, i + 1, err);
		if (rc < 0)
			zd_err_prefix(err, "segment %zu in place", i);
		if (rc == 0)
			printf("inplace %zu %.6f %.6f\n", i,
			       now_s(CLOCK_MONOTONIC) - t0,
			       now_s(CLOCK_THREAD_CPUTIME_ID) - c0);
	}
	u0 = now_s(CLOCK_THREAD_CPUTIME_ID);
	zd_outq_free(q);
	if (rc == 0)
		printf("pages %ju %zu %.6f %.6f %d\n", (uintmax_t)size, mapped,
		       made, now_s(CLOCK_THREAD_CPUTIME_ID) - u0, huge ? 1 : 0);
	return rc;
}

/* The member through -T1's decoder into sink: this thread's CPU
 * seconds, or -1 with err set. */
static double
stream_cpu(const struct zd_deb_member *m, struct zd_sink *sink,
           struct zd_error *err)
{
	struct zd_dec_params p;
	double c0 = now_s(CLOCK_THREAD_CPUTIME_ID);

	zd_cli_dec_params(&p, 1);
	if (zd_deb_member_decode(m, &p, sink, err) < 0)
		return -1.0;
	return now_s(CLOCK_THREAD_CPUTIME_ID) - c0;
}

/* The "stream" line: -T1's decoder, bytes dropped. */
static int
stream_time(const struct zd_deb_member *m, struct zd_error *err)
{
	struct zd_sink drop = { drop_write, NULL, NULL, NULL };
	double t0 = now_s(CLOCK_MONOTONIC);
	double cpu = stream_cpu(m, &drop, err);

	if (cpu < 0)
		return -1;
	printf("stream %.6f %.6f\n", now_s(CLOCK_MONOTONIC) - t0, cpu);
	return 0;
}

/* The largest "copy" ring: far past any cache. */
#define COPY_MAX ((size_t)1 << 30)

/* The "copy" lines' ring: the copies of one stream, their sizes kept to
 * be made again alone. */
struct copy_dest {
	unsigned char *dst;
	size_t cap, at;
	size_t *lens;
	size_t n, alloc, most;
};

/* len bytes of buf into the ring at its position, round past its end
 * as a pipe's buffer goes (a write larger than the ring too). */
static void
copy_into(struct copy_dest *d, const unsigned char *buf, size_t len)
{
	while (len > 0) {
		size_t k = d->cap - d->at < len ? d->cap - d->at : len;

		memcpy(d->dst + d->at, buf, k);
		buf += k;
		len -= k;
		d->at = d->at + k == d->cap ? 0 : d->at + k;
	}
}

/* The stream's sink: each buffer copied, its size kept. */
static int
copy_write(void *ctx, const void *buf, size_t len, struct zd_error *err)
{
	struct copy_dest *d = ctx;

	if (d->n == d->alloc) {
		size_t k = d->alloc ? 2 * d->alloc : 1024;
		size_t *l = realloc(d->lens, k * sizeof(*l));

		if (l == NULL)
			return zd_err(err, ZD_E_NOMEM, "out of memory");
		d->lens = l;
		d->alloc = k;
	}
	d->lens[d->n++] = len;
	if (len > d->most)
		d->most = len;
	copy_into(d, buf, len);
	return 0;
}

/* One "copy" line: the stream copied into cap bytes, then the copies
 * alone. */
static int
copy_time(const struct zd_deb_member *m, const char *name, size_t cap,
          struct zd_error *err)
{
	struct copy_dest d = { .cap = cap };
	struct zd_sink sink = { copy_write, &d, NULL, NULL };
	unsigned char *src = NULL;
	uint64_t bytes = 0;
	double t0 = now_s(CLOCK_MONOTONIC), c0, stream = 0.0, copy = 0.0;
	int rc = -1;

	d.dst = mmap(NULL, cap, PROT_READ | PROT_WRITE,
	             MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (d.dst == MAP_FAILED)
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	memset(d.dst, 0, cap);	/* its pages made, outside the times */
	if ((stream = stream_cpu(m, &sink, err)) < 0)
		goto out;
	if (d.most > 0 && (src = malloc(d.most)) == NULL) {
		zd_err(err, ZD_E_NOMEM, "out of memory");
		goto out;
	}
	if (src != NULL)
		memset(src, 0x5a, d.most);
	d.at = 0;
	c0 = now_s(CLOCK_THREAD_CPUTIME_ID);
	for (size_t i = 0; i < d.n; i++) {
		copy_into(&d, src, d.lens[i]);
		bytes += d.lens[i];
	}
	/* the ring goes on to munmap(2), so no copy into it is left out */
	copy = now_s(CLOCK_THREAD_CPUTIME_ID) - c0;
	rc = 0;
out:
	free(src);
	free(d.lens);
	munmap(d.dst, cap);
	if (rc == 0)
		printf("copy %s %zu %ju %.6f %.6f %.6f\n", name, cap,
		       (uintmax_t)bytes, now_s(CLOCK_MONOTONIC) - t0, stream,
		       copy);
	return rc;
}

/* The "copy" lines: into a ring of a pipe's size, and of the member's. */
static int
copy_times(const struct zd_deb_member *m, const struct zd_zseg_piece *pc,
           size_t n, struct zd_error *err)
{
	uint64_t total = 0;
	size_t pipe_size = 0;
	int fds[2];

	for (size_t i = 0; i < n; i++)
		total += pc[i].usize;
	if (pipe(fds) < 0)
		return zd_err_errno(err, ZD_E_IO, "cannot create pipe");
	pipe_size = zd_pipe_grow(fds[1]);
	close(fds[0]);
	close(fds[1]);
	if (pipe_size == 0)
		return zd_err(err, ZD_E_INTERNAL, "a pipe of no size");
	if (copy_time(m, "pipe", pipe_size, err) < 0)
		return -1;
	if (total > COPY_MAX)
		total = COPY_MAX;
	return copy_time(m, "file", total > pipe_size ? (size_t)total :
	                 pipe_size, err);
}

static int
segment_times(const struct zd_deb_member *m, bool copies,
              struct zd_error *err)
{
	const struct zd_zseg_out out = { time_get, time_put, NULL, NULL, NULL,
	                                 0 };
	struct zd_zstd_frame_info outer, ixf;
	struct zd_zseg_index idx;
	struct zd_zseg_piece *pc = NULL;
	unsigned char *ibuf = NULL;
	ZSTD_DCtx *dctx = NULL;
	size_t n = 0;
	int rc;

	if (m->codec == NULL || m->codec->type != ZD_COMP_ZSTD)
		return zd_err(err, ZD_E_FORMAT, "%s is not zstd", m->name);
	rc = zd_zseg_index_at_tail(&m->region, &outer, &ixf, &idx, err);
	if (rc == 0)
		return zd_err(err, ZD_E_FORMAT, "%s has no segment index",
		              m->name);
	if (rc < 0)
		return -1;
	rc = zd_zseg_pieces_from_index(&m->region, &outer, &idx, &pc, &n,
	                               err);
	zd_zseg_index_free(&idx);
	if (rc == 0 && (dctx = ZSTD_createDCtx()) == NULL)
		rc = zd_err(err, ZD_E_NOMEM, "out of memory");
	if (rc == 0)
		ZSTD_DCtx_setParameter(dctx, ZSTD_d_windowLogMax, 31);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		double t0 = now_s(CLOCK_MONOTONIC);
		double c0 = now_s(CLOCK_THREAD_CPUTIME_ID);

		rc = zd_zseg_piece_stream(&m->region,
		                          zd_log2_ceil(outer.hdr.window_size),
		                          &pc[i], dctx, &ibuf, &out, err);
		if (rc == 0)
			printf("%zu %ju %ju %.6f %.6f\n", i,
			       (uintmax_t)pc[i].usize, (uintmax_t)pc[i].csize,
			       now_s(CLOCK_MONOTONIC) - t0,
			       now_s(CLOCK_THREAD_CPUTIME_ID) - c0);
	}
	if (rc == 0)
		rc = stream_time(m, err);
	if (rc == 0)
		rc = inplace_times(&m->region,
		                   zd_log2_ceil(outer.hdr.window_size), pc, n,
		                   dctx, &ibuf, err);
	if (rc == 0 && copies)
		rc = copy_times(m, pc, n, err);
	ZSTD_freeDCtx(dctx);
	free(ibuf);
	free(pc);
	if (rc == 0 && fflush(stdout) != 0)
		rc = zd_err(err, ZD_E_IO, "writing to stdout failed");
	return rc;
}

/* Takes --segment-times (1) or --segment-times=copy (2) out of argv
 * (before any "--"); 0 when neither is there. */
static int
take_segment_times(int *argc, char **argv)
{
	for (int i = 1; i < *argc && strcmp(argv[i], "--") != 0; i++) {
		int mode = strcmp(argv[i], "--segment-times") == 0 ? 1 :
		           strcmp(argv[i], "--segment-times=copy") == 0 ? 2 :
		           0;

		if (mode != 0) {
			memmove(&argv[i], &argv[i + 1],
			        (size_t)(*argc - i) * sizeof(*argv));
			(*argc)--;
			return mode;
		}
	}
	return 0;
}

static int
cat_member(const char *cmd, const char *usage, bool data, int argc,
           char **argv)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_cli_read r;
	struct zd_dec_params p;
	struct zd_deb deb = { .fd = -1 };
	struct zd_fd_sink out;
	struct zd_sink sink;
	int times = data ? take_segment_times(&argc, argv) : 0;
	int rc;

	rc = zd_cli_read_args(cmd, usage, argc, argv, 0, 1, 1, &r);
	if (rc != 0)
		return rc > 0 ? ZD_EXIT_OK : ZD_EXIT_ERROR;
	if (times) {
		if (zd_cli_open_deb(r.args[0], &deb) < 0)
			return ZD_EXIT_ERROR;
		rc = segment_times(&deb.data, times == 2, &err);
		zd_deb_close(&deb);
		if (rc < 0) {
			zd_err_prefix(&err, "'%s'", r.args[0]);
			return zd_msg_fail(&err);
		}
		return ZD_EXIT_OK;
	}
	if (isatty(1)) {
		zd_msg_error("refusing to write a tar archive to a terminal");
		return ZD_EXIT_ERROR;
	}
	if (zd_cli_open_deb(r.args[0], &deb) < 0)
		return ZD_EXIT_ERROR;
	zd_pipe_grow(1);
	zd_sink_fd_init(&sink, &out, 1);
	zd_cli_dec_params(&p, r.threads);
	zd_cli_dec_limits(&p, &r);
	rc = zd_deb_member_decode(data ? &deb.data : &deb.control, &p, &sink,
	                      &err);
	zd_deb_close(&deb);
	if (rc < 0) {
		zd_err_prefix(&err, "'%s'", r.args[0]);
		return zd_msg_fail(&err);
	}
	return ZD_EXIT_OK;
}

int
cmd_cat_data(int argc, char **argv)
{
	return cat_member("cat-data", usage_data, true, argc, argv);
}

int
cmd_cat_control(int argc, char **argv)
{
	return cat_member("cat-control", usage_control, false, argc, argv);
}
