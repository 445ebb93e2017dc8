/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SCHEDSCAN_UTIL_H
#define SCHEDSCAN_UTIL_H

#include <stddef.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Library errors: one sentence into err, return -1 (so "return errmsg(...)"). */
int errmsg(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Reads a whole small file (sysfs, procfs) into a NUL-terminated malloc'd buffer. */
char *read_text_file(const char *path, size_t *len);

/* CLOCK_MONOTONIC and CLOCK_REALTIME in seconds. */
double monotonic_seconds(void);
double realtime_seconds(void);

#endif
