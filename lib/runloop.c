// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include "runloop.h"
#include "util.h"

static volatile sig_atomic_t interrupted, cut_requested;

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		cut_requested = 1;
	else
		interrupted = 1;
}

void run_install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: the sleep below must return at once on a signal. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* SIGUSR1: end the current interval now (a test's counter read). */
	sigaction(SIGUSR1, &sa, NULL);
}

void run_clear_signals(void)
{
	interrupted = 0;
	cut_requested = 0;
}

bool run_interrupted(void)
{
	return interrupted;
}

/* Sleeps until the monotonic deadline or a signal, whichever comes first. */
static void sleep_until(double deadline)
{
	struct timespec ts;

	ts.tv_sec = (time_t)deadline;
	ts.tv_nsec = (long)((deadline - ts.tv_sec) * 1e9);
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	while (!interrupted && !cut_requested &&
	       clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static int report_interval(struct run_window *window, run_report_fn report,
			   void *ctx)
{
	int ret;

	window->end = realtime_seconds();
	window->end_mono = monotonic_seconds();
	window->final = false;
	window->intervals++;
	ret = report(ctx, window);
	window->start = window->end;
	window->start_mono = window->end_mono;
	return ret;
}

/*
 * With an interval, the run is cut into back-to-back windows and the
 * last one may be short (Ctrl-C, --duration), so the interval reports
 * always add up to the final one. The final report comes right after
 * the last interval report, so a tool can reuse that last reading.
 */
int run_loop(const struct common_opts *opts, run_report_fn report, void *ctx)
{
	struct run_window window = {};
	double run_start = realtime_seconds(), run_start_mono = monotonic_seconds();
	double deadline = opts->duration_s ? run_start_mono + opts->duration_s : INFINITY;
	double next = opts->interval_s ? run_start_mono + opts->interval_s : INFINITY;
	const char *reason = NULL;
	int ret;

	window.start = run_start;
	window.start_mono = run_start_mono;
	while (!reason) {
		double wake = next < deadline ? next : deadline;

		if (isinf(wake)) {
			/* No interval and no duration: wait for a signal. */
			while (!interrupted && !cut_requested)
				sleep_until(monotonic_seconds() + 3600);
		} else {
			sleep_until(wake);
		}
		if (interrupted)
			reason = "signal";
		else if (monotonic_seconds() >= deadline)
			reason = "duration";
		if (!opts->interval_s) {
			cut_requested = 0;
			continue;
		}
		/*
		 * A cut ends this interval early; the next one keeps the
		 * schedule, so a cut splits one interval in two.
		 */
		bool cut = cut_requested && !reason;

		cut_requested = 0;
		if (!cut && !reason && monotonic_seconds() < next)
			continue;
		ret = report_interval(&window, report, ctx);
		if (ret)
			return ret;
		if (!reason && opts->count && window.intervals >= opts->count)
			reason = "count";
		if (!cut)
			next += opts->interval_s;
	}
	window.start = run_start;
	window.start_mono = run_start_mono;
	window.end = realtime_seconds();
	window.end_mono = monotonic_seconds();
	window.final = true;
	window.end_reason = reason;
	return report(ctx, &window);
}
