/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The opt-in per-event stream (--events FILE): a thread drains a BPF
 * ring buffer into a JSON Lines file, one record per event, formatted by
 * the tool. Aggregation stays in the kernel; the stream is for the few
 * questions that need single events, and counts what it could not write.
 */
#ifndef SCHEDSCAN_EVENTS_H
#define SCHEDSCAN_EVENTS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "json.h"

struct ring_buffer;

/* Writes one record into w (between begin and end of its object); false: skip it. */
typedef bool (*event_format_fn)(void *ctx, const void *data, size_t size,
				struct json_writer *w);

struct event_stream {
	const char *path;
	FILE *out;
	struct ring_buffer *rb;
	pthread_t thread;
	volatile bool stop;
	bool running;
	struct json_writer writer;
	event_format_fn format;
	void *ctx;
	unsigned long long max_bytes;	/* 0: no limit */
	unsigned long long bytes;
	/* Records written; not written: over max_bytes, or a write failed. */
	unsigned long long written, over_limit, write_errors;
	unsigned long long unreadable;	/* records the tool's format refused */
	int first_errno;
};

/*
 * Creates the file (before anything is loaded, so a bad path costs
 * nothing); records beyond max_bytes (0: no limit) are counted, not written.
 */
int event_stream_open(struct event_stream *es, const char *path,
		      unsigned long long max_bytes, char *err, size_t errlen);
/* Starts draining the ring buffer map ringbuf_fd. */
int event_stream_start(struct event_stream *es, int ringbuf_fd,
		       event_format_fn format, void *ctx, char *err, size_t errlen);
/* Stops the writer once no record can come: drains what is left. */
void event_stream_finish(struct event_stream *es);
/* Records not written so far (over the limit or lost to a write error). */
unsigned long long event_stream_lost(const struct event_stream *es);
/*
 * After the programs are detached: drains what is left, closes the file.
 * 0, or -1 with a sentence in err when records could not be written.
 */
int event_stream_stop(struct event_stream *es, char *err, size_t errlen);

#endif
