/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SCHEDSCAN_UTIL_H
#define SCHEDSCAN_UTIL_H

#include <stdbool.h>
#include <stddef.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Library errors: one sentence into err, return -1 (so "return errmsg(...)"). */
/* Control characters (a newline, an escape) in text become '?'. */
void one_line(char *text);
int errmsg(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Reads a whole text file (procfs/sysfs report st_size 0, so it reads to
 * EOF) into a NUL-terminated malloc'd *text. Returns 0, or -errno with
 * one sentence in err (err may be NULL). A NUL byte inside is -EINVAL.
 */
int read_text_file(const char *path, char **text, char *err, size_t errlen);

/* Grows *buf to hold at least need elements of size bytes (doubling); 0 or -ENOMEM. */
int grow_array(void **buf, size_t *cap, size_t need, size_t size);

/* A metric named *_ns: a duration (an integral of a state), not a count. */
bool metric_is_duration(const char *name);

/* CLOCK_MONOTONIC and CLOCK_REALTIME in seconds. */
double monotonic_seconds(void);
double realtime_seconds(void);
/* CLOCK_MONOTONIC in ns: the clock of bpf_ktime_get_ns(). */
unsigned long long monotonic_ns(void);

/* A growing text buffer; after an allocation failure it only sets failed. */
struct strbuf {
	char *buf;
	size_t len, cap;
	int failed;
};

void strbuf_printf(struct strbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void strbuf_free(struct strbuf *b);

#endif
