// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "events.h"
#include "output.h"
#include "runloop.h"
#include "util.h"

int event_stream_open(struct event_stream *es, const char *path,
		      unsigned long long max_bytes, char *err, size_t errlen)
{
	memset(es, 0, sizeof(*es));
	es->path = path;
	es->max_bytes = max_bytes;
	es->out = output_stream_open("--events", path, err, errlen);
	if (!es->out)
		return -1;
	json_init(&es->writer);
	return 0;
}

static int write_event(void *ctx, void *data, size_t size)
{
	struct event_stream *es = ctx;
	struct json_writer *w = &es->writer;

	json_reset(w);
	json_begin_object(w);
	if (!es->format(es->ctx, data, size, w)) {
		__atomic_add_fetch(&es->unreadable, 1, __ATOMIC_RELAXED);
		return 0;
	}
	json_end_object(w);
	/*
	 * +1: the newline json_emit_line() adds. Once full, full: a later,
	 * shorter record does not slip in.
	 */
	if (es->over_limit || (es->max_bytes && es->bytes + w->len + 1 > es->max_bytes)) {
		__atomic_add_fetch(&es->over_limit, 1, __ATOMIC_RELAXED);
		return 0;
	}
	if (json_emit_line(w, es->out) || ferror(es->out)) {
		if (!es->first_errno)
			es->first_errno = errno ? errno : EIO;
		__atomic_add_fetch(&es->write_errors, 1, __ATOMIC_RELAXED);
		return 0;
	}
	es->bytes += w->len;
	es->written++;
	return 0;
}

unsigned long long event_stream_lost(const struct event_stream *es)
{
	return __atomic_load_n(&es->over_limit, __ATOMIC_RELAXED) +
	       __atomic_load_n(&es->unreadable, __ATOMIC_RELAXED) +
	       __atomic_load_n(&es->write_errors, __ATOMIC_RELAXED);
}

static void *drain(void *arg)
{
	struct event_stream *es = arg;

	while (!es->stop)
		ring_buffer__poll(es->rb, 100);
	return NULL;
}

int event_stream_start(struct event_stream *es, int ringbuf_fd,
		       event_format_fn format, void *ctx, char *err, size_t errlen)
{
	es->format = format;
	es->ctx = ctx;
	es->rb = ring_buffer__new(ringbuf_fd, write_event, es, NULL);
	if (!es->rb)
		return errmsg(err, errlen, "opening the event ring buffer failed: %s",
			      strerror(errno));
	if (run_start_thread(&es->thread, drain, es))
		return errmsg(err, errlen, "cannot start the event writer thread");
	es->running = true;
	return 0;
}

void event_stream_finish(struct event_stream *es)
{
	if (es->running) {
		es->stop = true;
		pthread_join(es->thread, NULL);
		es->running = false;
	}
	if (es->rb) {
		ring_buffer__consume(es->rb);
		ring_buffer__free(es->rb);
		es->rb = NULL;
	}
}

int event_stream_stop(struct event_stream *es, char *err, size_t errlen)
{
	int ret = 0;

	event_stream_finish(es);
	if (es->out) {
		int bad = fflush(es->out) | ferror(es->out);

		bad |= fclose(es->out);
		if (bad && !es->write_errors) {
			es->first_errno = errno ? errno : EIO;
			es->write_errors++;
		}
		if (es->over_limit)
			fprintf(stderr, "%s: %s reached its --events-max of %llu bytes: %llu records were counted in events_dropped, not written\n",
				program_invocation_short_name, es->path, es->max_bytes,
				es->over_limit);
		es->out = NULL;
	}
	if (es->write_errors)
		ret = errmsg(err, errlen, "writing the event stream to %s failed: %s (%llu records lost, %llu written)",
			     es->path, strerror(es->first_errno), es->write_errors,
			     es->written);
	json_free(&es->writer);
	return ret;
}
