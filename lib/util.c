// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "util.h"

int errmsg(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

char *read_text_file(const char *path, size_t *len)
{
	size_t cap = 4096, used = 0, n;
	FILE *f = fopen(path, "r");
	char *buf, *grown;

	if (!f)
		return NULL;
	buf = malloc(cap);
	while (buf && (n = fread(buf + used, 1, cap - used - 1, f)) > 0) {
		used += n;
		if (cap - used - 1 == 0) {
			grown = realloc(buf, cap * 2);
			if (!grown) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = grown;
			cap *= 2;
		}
	}
	fclose(f);
	if (!buf)
		return NULL;
	buf[used] = '\0';
	if (len)
		*len = used;
	return buf;
}

static double clock_seconds(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

double monotonic_seconds(void)
{
	return clock_seconds(CLOCK_MONOTONIC);
}

double realtime_seconds(void)
{
	return clock_seconds(CLOCK_REALTIME);
}
