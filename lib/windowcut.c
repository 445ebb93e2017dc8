// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

#include "util.h"
#include "windowcut.h"

long count_file_lines(const char *path)
{
	char buf[65536];
	long lines = 0;
	size_t n;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		for (size_t i = 0; i < n; i++)
			lines += buf[i] == '\n';
	fclose(f);
	return lines;
}

int window_cut(pid_t pid, const char *records_path, char *err, size_t errlen)
{
	/*
	 * Woken by inotify when the file grows, not by polling: each wakeup
	 * and sleep of ours is scheduler work (newidle balancing among it)
	 * inside the edges the window's brackets must keep small.
	 */
	const struct timespec ms = { 0, 1000000 };
	int fd = inotify_init1(IN_CLOEXEC);
	long before = count_file_lines(records_path);
	double deadline = realtime_seconds() + 30;

	if (fd >= 0 && inotify_add_watch(fd, records_path, IN_MODIFY) < 0) {
		close(fd);
		fd = -1;
	}
	if (before < 0 || kill(pid, SIGUSR1)) {
		int saved = errno;

		if (fd >= 0)
			close(fd);
		return errmsg(err, errlen, "cannot cut the window of %d: %s", (int)pid,
			      before < 0 ? "its records are unreadable" : strerror(saved));
	}
	while (realtime_seconds() < deadline) {
		if (fd >= 0) {
			struct pollfd p = { .fd = fd, .events = POLLIN };
			char events[4096];

			if (poll(&p, 1, 1000) > 0 && read(fd, events, sizeof(events)) < 0)
				break;
		} else {
			nanosleep(&ms, NULL);
		}
		if (count_file_lines(records_path) > before) {
			if (fd >= 0)
				close(fd);
			return 0;
		}
	}
	if (fd >= 0)
		close(fd);
	return errmsg(err, errlen, "no record from %d in %s within 30 s of SIGUSR1", (int)pid,
		      records_path);
}
