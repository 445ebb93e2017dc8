// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include "runloop.h"
#include "util.h"

static volatile sig_atomic_t interrupted, cut_requested, writing;
/* The mask to wait with: the caller's, with the run signals let through. */
/* write_signals: the ending signals (INT, TERM, HUP) and the write poll's. */
static sigset_t wait_mask, run_signals, write_signals;

/*
 * Once an ending signal has come, a report gets 1 s to be written; then
 * SIGALRM, every 100 ms, cuts whatever write still waits (EINTR). The
 * ending signal itself interrupts a write blocked when it lands, but not
 * one that starts after it: a signal held pending until the write phase,
 * or the rest of a write that the signal cut short (a pipe write returns
 * what it wrote, and stdio writes the rest), blocked for good on a reader
 * that stopped reading (a clean-clone run: idlebal -T still running 3 s
 * after SIGINT, in anon_pipe_write). A reader that drains (a terminal)
 * takes a summary in far less than 1 s, and keeps it.
 */
static const struct itimerval write_poll = {
	.it_value = { .tv_sec = 1 }, .it_interval = { .tv_usec = 100000 },
};

static void poll_writes(bool on)
{
	static const struct itimerval off;

	/* setitimer() is a bare system call on Linux, safe in a handler. */
	setitimer(ITIMER_REAL, on ? &write_poll : &off, NULL);
}

static void on_signal(int sig)
{
	int saved_errno = errno;

	if (sig == SIGUSR1) {
		cut_requested = 1;
	} else {
		/* A second Ctrl-C does not extend the first one's grace. */
		if (writing && !interrupted)
			poll_writes(true);
		interrupted = 1;
	}
	errno = saved_errno;
}

/* Its only work is the EINTR it gives the write it lands in. */
static void on_write_poll(int sig)
{
	(void)sig;
}

void run_install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigemptyset(&run_signals);
	/* SIGUSR1: end the current interval now (a test's counter read). */
	int signals[] = { SIGINT, SIGTERM, SIGHUP, SIGUSR1 };

	sigemptyset(&write_signals);
	for (size_t i = 0; i < sizeof(signals) / sizeof(signals[0]); i++) {
		sigaction(signals[i], &sa, NULL);
		sigaddset(&run_signals, signals[i]);
		if (signals[i] != SIGUSR1)
			sigaddset(&write_signals, signals[i]);
	}
	/*
	 * Held pending except inside the wait: a flag tested before a plain
	 * sleep misses a signal that lands between the test and the sleep
	 * (a Ctrl-C right after the banner slept out the hour).
	 */
	sigprocmask(SIG_BLOCK, &run_signals, &wait_mask);
	for (size_t i = 0; i < sizeof(signals) / sizeof(signals[0]); i++)
		sigdelset(&wait_mask, signals[i]);
	/* The write poll: held everywhere but in the report writes. */
	sa.sa_handler = on_write_poll;
	sigaction(SIGALRM, &sa, NULL);
	sigaddset(&write_signals, SIGALRM);
	sigprocmask(SIG_BLOCK, &write_signals, NULL);
	sigaddset(&wait_mask, SIGALRM);
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

void run_allow_signals(bool allow)
{
	/* Not SIGUSR1: a cut must not cost a report. */
	if (allow) {
		/* Signals are held here: the handler cannot run in between. */
		writing = 1;
		if (interrupted)
			poll_writes(true);
		pthread_sigmask(SIG_UNBLOCK, &write_signals, NULL);
	} else {
		pthread_sigmask(SIG_BLOCK, &write_signals, NULL);
		writing = 0;
		poll_writes(false);
	}
}

/* How long writes may go on once an ending signal has come. */
#define WRITE_GRACE_S 1.0

/* Past the grace that began when the ending signal was first seen here. */
static bool grace_over(double *grace_end)
{
	if (!interrupted)
		return false;
	if (*grace_end == 0)
		*grace_end = monotonic_seconds() + WRITE_GRACE_S;
	return monotonic_seconds() > *grace_end;
}

/*
 * Until the pipe has room for len bytes. A pipe holds whole pages: the
 * unread bytes may take a partial page at each end, and the record's
 * first bytes may fill the writer's last page, hence two pages of slack.
 * 0 when there is room (or the pipe can never hold the record: then it
 * is written as it can), -1 (EINTR) when the grace ran out first.
 */
static int wait_for_pipe_room(int fd, size_t len, double *grace_end)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t need = len + 2 * (size_t)(page > 0 ? page : 4096);
	int capacity = fcntl(fd, F_GETPIPE_SZ);

	if (capacity >= 0 && (size_t)capacity < need && need <= INT_MAX &&
	    fcntl(fd, F_SETPIPE_SZ, (int)need) >= 0)
		capacity = fcntl(fd, F_GETPIPE_SZ);
	if (capacity < 0 || (size_t)capacity < need)
		return 0;
	for (;;) {
		struct timespec nap = { 0, 2 * 1000 * 1000 };
		int unread;

		if (ioctl(fd, FIONREAD, &unread) || (size_t)(capacity - unread) >= need)
			return 0;
		if (grace_over(grace_end)) {
			errno = EINTR;
			return -1;
		}
		/* A signal ends the nap early: the loop looks at it. */
		nanosleep(&nap, NULL);
	}
}

int run_write_record(int fd, const char *buf, size_t len)
{
	double grace_end = 0;
	struct stat st;

	if (!fstat(fd, &st) && S_ISFIFO(st.st_mode) &&
	    wait_for_pipe_room(fd, len, &grace_end))
		return -1;
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR && !grace_over(&grace_end))
			continue;
		if (n < 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

int run_start_thread(pthread_t *thread, void *(*fn)(void *), void *arg)
{
	sigset_t all, saved;
	int ret;

	/* The synchronous signals stay open so a crash still crashes. */
	sigfillset(&all);
	sigdelset(&all, SIGSEGV);
	sigdelset(&all, SIGBUS);
	sigdelset(&all, SIGFPE);
	sigdelset(&all, SIGILL);
	sigdelset(&all, SIGTRAP);
	pthread_sigmask(SIG_BLOCK, &all, &saved);
	ret = pthread_create(thread, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	return ret;
}

/*
 * Sleeps until the monotonic deadline or a signal, whichever comes first.
 * ppoll() lets the blocked run signals in atomically with the wait.
 */
static void sleep_until(double deadline)
{
	while (!interrupted && !cut_requested) {
		double left = deadline - monotonic_seconds();
		struct timespec ts;

		if (left <= 0)
			return;
		ts.tv_sec = (time_t)left;
		ts.tv_nsec = (long)((left - ts.tv_sec) * 1e9);
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		if (ppoll(NULL, 0, &ts, &wait_mask) == 0)
			return;
	}
}

static int report_interval(struct run_window *window, const struct run_callbacks *cb,
			   bool last)
{
	int ret;

	if (last && cb->stop)
		cb->stop(cb->ctx);

	window->end = realtime_seconds();
	window->end_mono = monotonic_seconds();
	window->final = false;
	window->intervals++;
	ret = cb->report(cb->ctx, window);
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
int run_loop(const struct common_opts *opts, const struct run_callbacks *cb)
{
	struct run_window window = {};
	double run_start = realtime_seconds(), run_start_mono = monotonic_seconds();
	double deadline, next;
	const char *reason = NULL;
	long scheduled = 1;	/* intervals due so far, the current one included */
	int ret;

	window.start = run_start;
	window.start_mono = run_start_mono;
	if (cb->start) {
		ret = cb->start(cb->ctx, &window);
		if (ret)
			return ret;
		/* It may have moved the start to where counting began. */
		run_start = window.start;
		run_start_mono = window.start_mono;
	}
	deadline = opts->duration_s ? run_start_mono + opts->duration_s : INFINITY;
	next = opts->interval_s ? run_start_mono + opts->interval_s : INFINITY;

	while (!reason) {
		bool ends_by_count = opts->count && window.intervals + 1 >= opts->count;
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
		ret = report_interval(&window, cb, reason || ends_by_count);
		if (ret)
			return ret;
		if (!reason && opts->count && window.intervals >= opts->count)
			reason = "count";
		/* k * interval from the start, not a sum that drifts. */
		if (!cut)
			next = run_start_mono + ++scheduled * opts->interval_s;
	}
	/*
	 * After intervals the summary is their last reading (tool.c), so it
	 * ends where the last interval ended: the records cover the run back
	 * to back and no later.
	 */
	if (window.intervals) {
		window.end = window.start;
		window.end_mono = window.start_mono;
	} else {
		if (cb->stop)
			cb->stop(cb->ctx);
		window.end = realtime_seconds();
		window.end_mono = monotonic_seconds();
	}
	window.start = run_start;
	window.start_mono = run_start_mono;
	window.final = true;
	window.end_reason = reason;
	return cb->report(cb->ctx, &window);
}
