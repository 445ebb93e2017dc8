/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The interval loop every tool runs once attached: report every
 * interval, stop on SIGINT/SIGTERM, --duration or [count], then give one
 * final report over the whole run. Signals only set a flag, so a report
 * is never cut in half.
 */
#ifndef SCHEDSCAN_RUNLOOP_H
#define SCHEDSCAN_RUNLOOP_H

#include <pthread.h>
#include <stdbool.h>
#include "options.h"

struct run_window {
	double start, end;		/* CLOCK_REALTIME seconds */
	double start_mono, end_mono;	/* CLOCK_MONOTONIC seconds */
	bool final;			/* summary over the whole run */
	int intervals;			/* interval reports so far */
	const char *end_reason;		/* final only: signal, duration, count */
};

/*
 * report may move window->end (and end_mono) to the instant its reading
 * really cut the count; the next window starts there.
 */
typedef int (*run_report_fn)(void *ctx, struct run_window *window);

/*
 * start: once, as the first window opens (window->start_mono is set; it
 * may move window->start and start_mono to where counting began: the
 * intervals and the duration run from there); stop: once, just before
 * the last reading (the last interval's, or the summary's when there are
 * no intervals). Either may be NULL; a non-zero return from start ends
 * the loop with that value.
 */
struct run_callbacks {
	run_report_fn report;
	int (*start)(void *ctx, struct run_window *window);
	void (*stop)(void *ctx);
	void *ctx;
};

/* Installs the handlers; call before attaching so Ctrl-C is never lost. */
void run_install_signals(void);
/* Forgets the signals seen so far (a second run in one process). */
void run_clear_signals(void);
bool run_interrupted(void);
/*
 * Lets the ending signals (INT, TERM, HUP) in (true) around a write that
 * may block, so that they interrupt it (EINTR: the handlers do not
 * restart calls); false holds them pending again. Once one has come, a
 * report still being written 1 s later fails with EINTR, however it
 * blocks.
 */
void run_allow_signals(bool allow);
/*
 * Writes a whole record (a report) to fd: 0, or -1 with errno. Into a
 * pipe it first waits, signals let in, until the pipe has room for all
 * of it (growing the pipe to hold it where it may), so that a signal that
 * ends the tool while the reader lags leaves the record unwritten, never
 * cut: once an ending signal has come, it waits 1 s more, then gives up
 * with EINTR. Elsewhere (a file, a terminal) it writes as it can.
 */
int run_write_record(int fd, const char *buf, size_t len);
/*
 * pthread_create() for the tools' helper threads (event writer, HTTP
 * server): they take no signal, since one delivered to them would set
 * the run loop's flag without waking the run loop's wait.
 */
int run_start_thread(pthread_t *thread, void *(*fn)(void *), void *arg);
int run_loop(const struct common_opts *opts, const struct run_callbacks *cb);

#endif
