// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>
#include "util.h"

void one_line(char *text)
{
	for (unsigned char *c = (unsigned char *)text; *c; c++)
		if (*c < 0x20 || *c == 0x7f)
			*c = '?';
}

int errmsg(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
		/* The value quoted may hold a newline or an escape sequence. */
		one_line(err);
	}
	return -1;
}

int grow_array(void **buf, size_t *cap, size_t need, size_t size)
{
	size_t new_cap = *cap ? *cap : 64;
	void *p;

	if (need <= *cap)
		return 0;
	while (new_cap < need) {
		if (new_cap > SIZE_MAX / 2 / size)
			return -ENOMEM;
		new_cap *= 2;
	}
	p = realloc(*buf, new_cap * size);
	if (!p)
		return -ENOMEM;
	*buf = p;
	*cap = new_cap;
	return 0;
}

int read_text_file(const char *path, char **text, char *err, size_t errlen)
{
	size_t len = 0, cap = 0;
	char *buf = NULL;
	int fd, ret = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		errmsg(err, errlen, "cannot open %s: %s", path, strerror(-ret));
		return ret;
	}
	for (;;) {
		ssize_t n;

		if (grow_array((void **)&buf, &cap, len + 4096 + 1, 1)) {
			ret = -ENOMEM;
			errmsg(err, errlen, "%s: out of memory", path);
			break;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			errmsg(err, errlen, "cannot read %s: %s", path,
			       strerror(-ret));
			break;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (!ret && memchr(buf, '\0', len)) {
		ret = -EINVAL;
		errmsg(err, errlen, "%s: contains a NUL byte", path);
	}
	if (ret) {
		free(buf);
		return ret;
	}
	buf[len] = '\0';
	*text = buf;
	return 0;
}

static double clock_seconds(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

bool metric_is_duration(const char *name)
{
	size_t n = strlen(name);

	return n > 3 && !strcmp(name + n - 3, "_ns");
}

double monotonic_seconds(void)
{
	return clock_seconds(CLOCK_MONOTONIC);
}

double realtime_seconds(void)
{
	return clock_seconds(CLOCK_REALTIME);
}

unsigned long long monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

void strbuf_printf(struct strbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->failed)
		return;
	for (;;) {
		size_t room = b->cap - b->len;

		va_start(ap, fmt);
		n = vsnprintf(b->buf ? b->buf + b->len : NULL, room, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->failed = 1;
			return;
		}
		if ((size_t)n < room) {
			b->len += (size_t)n;
			return;
		}
		if (grow_array((void **)&b->buf, &b->cap, b->len + (size_t)n + 1, 1)) {
			b->failed = 1;
			return;
		}
	}
}

void strbuf_free(struct strbuf *b)
{
	free(b->buf);
	b->buf = NULL;
	b->len = b->cap = 0;
	b->failed = 0;
}
