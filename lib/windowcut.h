/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A window cut, as the tests make it around a read of the kernel's
 * counters: SIGUSR1 to a running tool ends its interval (lib/runloop.c),
 * and the cut is done when the interval's record is in its output file.
 */
#ifndef SCHEDSCAN_WINDOWCUT_H
#define SCHEDSCAN_WINDOWCUT_H

#include <sys/types.h>

/* Complete lines (records) in path; -1 if unreadable. */
long count_file_lines(const char *path);
/*
 * SIGUSR1 to pid, then waits (30 s at most) until records_path has one
 * more line. 0, or -1 with a sentence in err.
 */
int window_cut(pid_t pid, const char *records_path, char *err, size_t errlen);

#endif
