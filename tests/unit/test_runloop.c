// SPDX-License-Identifier: GPL-2.0
/*
 * The run loop's stop rules and windows. Durations are tens of
 * milliseconds and only the sequence of reports is asserted, never how
 * fast they came.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "runloop.h"
#include "unit.h"
#include "util.h"

struct recorder {
	int intervals, finals;
	double interval_sum, final_duration;
	const char *reason;
	int raise_after;	/* raise SIGINT in this interval report */
	int last_window_index;
	double last_interval_end, last_interval_end_mono;
	int starts, stops;
	double start_mono;	/* as start() left it */
	int reports_after_stop;
	/* start() moves the start this much later; a report moves its end. */
	double start_delay_s, end_shift_s;
};

static int record(void *ctx, struct run_window *w)
{
	struct recorder *r = ctx;

	CHECK(w->end_mono >= w->start_mono);
	CHECK(w->end >= w->start);
	CHECK_INT(r->starts, 1);
	/* Counting stops before the last reading, and only then. */
	if (r->stops)
		r->reports_after_stop++;
	if (w->final) {
		CHECK_INT(r->stops, 1);
		CHECK(w->start_mono == r->start_mono);
		r->finals++;
		r->final_duration = w->end_mono - w->start_mono;
		r->reason = w->end_reason;
		r->last_window_index = w->intervals;
		/* The summary ends where the last interval ended, to the bit. */
		if (w->intervals) {
			CHECK(w->end == r->last_interval_end);
			CHECK(w->end_mono == r->last_interval_end_mono);
		}
		return 0;
	}
	r->intervals++;
	CHECK_INT(w->intervals, r->intervals);
	/* Each window starts where the last report left the end (or start() the start). */
	CHECK(w->start_mono == (r->intervals > 1 ? r->last_interval_end_mono : r->start_mono));
	w->end += r->end_shift_s;
	w->end_mono += r->end_shift_s;
	r->interval_sum += w->end_mono - w->start_mono;
	r->last_interval_end = w->end;
	r->last_interval_end_mono = w->end_mono;
	if (r->raise_after && r->intervals == r->raise_after)
		raise(SIGINT);
	return 0;
}

static int on_start(void *ctx, struct run_window *w)
{
	struct recorder *r = ctx;

	r->starts++;
	if (r->start_delay_s) {
		usleep((useconds_t)(r->start_delay_s * 1e6));
		w->start += r->start_delay_s;
		w->start_mono += r->start_delay_s;
	}
	r->start_mono = w->start_mono;
	return 0;
}

static void on_stop(void *ctx)
{
	struct recorder *r = ctx;

	r->stops++;
	usleep(2000);	/* a stop takes its time (tool.c waits for programs in flight) */
}

/* The run, then: the last reading (interval or summary) and the summary came after the stop. */
static int run(const struct common_opts *o, struct recorder *r)
{
	struct run_callbacks cb = { record, on_start, on_stop, r };
	int ret = run_loop(o, &cb);

	CHECK_INT(r->stops, 1);
	CHECK_INT(r->reports_after_stop, r->intervals ? 2 : 1);
	return ret;
}

static struct common_opts opts_with(double interval, long count, double duration)
{
	struct common_opts o;

	common_opts_init(&o);
	o.interval_s = interval;
	o.count = count;
	o.duration_s = duration;
	return o;
}

static void test_count_stops_after_n_intervals(void)
{
	struct common_opts o = opts_with(0.02, 3, 0);
	struct recorder r = {};

	CHECK_INT(run(&o, &r), 0);
	CHECK_INT(r.intervals, 3);
	CHECK_INT(r.finals, 1);
	CHECK_STR(r.reason, "count");
	CHECK_INT(r.last_window_index, 3);
}

/* The last, shorter window is reported so intervals add up to the run. */
static void test_duration_reports_partial_last_interval(void)
{
	struct common_opts o = opts_with(0.04, 0, 0.1);
	struct recorder r = {};

	/* 3 on time; fewer if a report under ASan outlasts an interval. */
	CHECK_INT(run(&o, &r), 0);
	CHECK(r.intervals >= 1 && r.intervals <= 3);
	CHECK_STR(r.reason, "duration");
	CHECK_DBL(r.interval_sum, r.final_duration, 1e-9);
	CHECK(r.final_duration >= 0.1);
}

/*
 * tool.c opens the run where counting starts and ends each window where
 * its reading cut: the windows still follow each other back to back, add
 * up to the summary, and the duration runs from the moved start.
 */
static void test_moved_boundaries_stay_back_to_back(void)
{
	struct common_opts o = opts_with(0.03, 0, 0.1);
	struct recorder r = { .start_delay_s = 0.02, .end_shift_s = 0.001 };
	double before = monotonic_seconds();

	CHECK_INT(run(&o, &r), 0);
	CHECK(r.start_mono >= before + 0.02);
	CHECK(r.intervals >= 1);
	CHECK_DBL(r.interval_sum, r.final_duration, 1e-9);
	CHECK(r.final_duration >= 0.1);
}

static void test_duration_without_interval_gives_summary_only(void)
{
	struct common_opts o = opts_with(0, 0, 0.03);
	struct recorder r = {};

	CHECK_INT(run(&o, &r), 0);
	CHECK_INT(r.intervals, 0);
	CHECK_INT(r.finals, 1);
	CHECK_STR(r.reason, "duration");
}

/*
 * SIGUSR1 cuts the current interval: pending before the loop sleeps, it
 * ends an hour-long interval at once; the SIGINT raised in that report
 * ends the run, whose last (partial) interval still adds up.
 */
static void test_sigusr1_cuts_an_interval(void)
{
	struct common_opts o = opts_with(3600, 0, 0);
	struct recorder r = { .raise_after = 1 };

	run_install_signals();
	run_clear_signals();
	raise(SIGUSR1);
	CHECK_INT(run(&o, &r), 0);
	CHECK_INT(r.intervals, 2);
	CHECK_STR(r.reason, "signal");
	CHECK(r.final_duration < 3600);
	CHECK_DBL(r.interval_sum, r.final_duration, 1e-9);
}

static void test_signal_ends_run_with_summary(void)
{
	struct common_opts o = opts_with(0.02, 0, 0);
	struct recorder r = { .raise_after = 2 };

	run_install_signals();
	run_clear_signals();
	CHECK_INT(run(&o, &r), 0);
	CHECK(run_interrupted());
	CHECK_INT(r.finals, 1);
	CHECK_STR(r.reason, "signal");
	CHECK(r.intervals >= 2 && r.intervals <= 3);
}

/*
 * The race CI hit at stop 19: a SIGINT landing between the flag test
 * and the sleep slept out the hour. The run signals are now held
 * blocked outside the wait, so one sent at any moment is pending until
 * the wait lets it in; a pending SIGINT ends a run with neither interval
 * nor duration at once.
 */
static void test_signal_before_the_wait_is_not_lost(void)
{
	struct common_opts o = opts_with(0, 0, 0);
	struct recorder r = {};
	sigset_t now;

	run_install_signals();
	run_clear_signals();
	sigprocmask(SIG_BLOCK, NULL, &now);
	CHECK(sigismember(&now, SIGINT));
	CHECK(sigismember(&now, SIGTERM));
	CHECK(sigismember(&now, SIGUSR1));
	raise(SIGINT);
	CHECK(!run_interrupted());	/* pending, not yet handled */
	CHECK_INT(run(&o, &r), 0);
	CHECK_INT(r.intervals, 0);
	CHECK_INT(r.finals, 1);
	CHECK_STR(r.reason, "signal");
}

/*
 * The report writes after an ending signal, in a child (a write that
 * blocks for good must not hang the suite): fills the pipe unless a
 * reader drains it, holds SIGINT pending into the write phase (the order
 * that left idlebal -T blocked after SIGINT), then writes len bytes.
 * Exits 0 if the write failed with EINTR, 1 if it all went out, 2 else.
 */
static int write_after_signal(int wfd, bool fill, size_t len)
{
	static char page[4096];
	pid_t child = fork();

	if (child == 0) {
		FILE *out = fdopen(wfd, "w");
		char *buf = calloc(1, len);

		run_install_signals();
		run_clear_signals();
		if (fill) {
			fcntl(wfd, F_SETFL, O_NONBLOCK);
			while (write(wfd, page, sizeof(page)) > 0)
				;
			fcntl(wfd, F_SETFL, 0);
		}
		raise(SIGINT);
		run_allow_signals(true);
		errno = 0;
		size_t done = fwrite(buf, 1, len, out);
		int bad = fflush(out);
		int err = errno;

		run_allow_signals(false);
		_exit(done == len && !bad ? 1 : err == EINTR && run_interrupted() ? 0 : 2);
	}
	return child;
}

/* Waits up to 10 s for the child; -1 if it was still running (killed). */
static int child_status(pid_t child)
{
	int status;

	for (int i = 0; i < 1000; i++) {
		if (waitpid(child, &status, WNOHANG) == child)
			return WIFEXITED(status) ? WEXITSTATUS(status) : 3;
		usleep(10000);
	}
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	return -1;
}

static void test_stalled_reader_cannot_hold_a_report_after_a_signal(void)
{
	int fds[2];

	CHECK_INT(pipe(fds), 0);
	pid_t child = write_after_signal(fds[1], true, 4096);

	close(fds[1]);
	CHECK_INT(child_status(child), 0);	/* -1: blocked for good */
	close(fds[0]);
}

static void test_draining_reader_keeps_the_report_after_a_signal(void)
{
	const size_t len = 256 * 1024;	/* four pipes' worth: writes wait */
	size_t got = 0;
	char buf[8192];
	ssize_t n;
	int fds[2];

	CHECK_INT(pipe(fds), 0);
	pid_t child = write_after_signal(fds[1], false, len);

	close(fds[1]);
	while ((n = read(fds[0], buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR))
		got += n > 0 ? (size_t)n : 0;
	CHECK_INT(child_status(child), 1);
	CHECK_INT(got, len);
	close(fds[0]);
}

UNIT_MAIN(UNIT_TEST(test_count_stops_after_n_intervals),
	  UNIT_TEST(test_duration_reports_partial_last_interval),
	  UNIT_TEST(test_moved_boundaries_stay_back_to_back),
	  UNIT_TEST(test_duration_without_interval_gives_summary_only),
	  UNIT_TEST(test_sigusr1_cuts_an_interval),
	  UNIT_TEST(test_signal_ends_run_with_summary),
	  UNIT_TEST(test_signal_before_the_wait_is_not_lost),
	  UNIT_TEST(test_stalled_reader_cannot_hold_a_report_after_a_signal),
	  UNIT_TEST(test_draining_reader_keeps_the_report_after_a_signal))
