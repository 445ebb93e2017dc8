/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Files the tools write (--prometheus-file, --svg, --events). They run
 * as root, and the directory may be writable by others (node_exporter's
 * textfile directory, /tmp), so nothing there may aim them at another
 * file:
 *
 * - a path that exists must be a regular file with one name: not a
 *   symbolic link, a device (/dev/null would be replaced by a regular
 *   file), a FIFO or a directory, nor a hard link to some other file;
 * - a file replaced whole (--prometheus-file, --svg) is written under a
 *   new name that nobody could have planted (mkostemp(): O_CREAT|O_EXCL,
 *   a dot name that node_exporter's *.prom glob skips), then renamed over
 *   the path, so a reader never sees half of it;
 * - a stream (--events) is opened without following a symbolic link and
 *   truncated only once it is known to be such a file.
 *
 * output_path_check() runs while the options are parsed, so a bad path
 * costs nothing (exit 2); the writers check again, since the directory
 * may change during the run.
 */
#ifndef SCHEDSCAN_OUTPUT_H
#define SCHEDSCAN_OUTPUT_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>

/*
 * what: the option ("--svg"). 0, or -1 with one sentence in err: the
 * path is not a file this tool may write, or its directory takes no new
 * file (a trial file is created there and removed).
 */
int output_path_check(const char *what, const char *path, char *err, size_t errlen);

/* A file being replaced: written to temp, renamed over path. */
struct output_file {
	const char *what, *path;
	char temp[PATH_MAX];
	FILE *f;
};

/* Creates the temporary file; out->f takes the new content. 0 or -1 (err). */
int output_file_begin(struct output_file *out, const char *what, const char *path,
		      char *err, size_t errlen);
/*
 * ret: the writer's result (0 or -1 with err already said). Flushes,
 * syncs and renames the file over the path when everything worked,
 * removes it otherwise. 0, or -1 with one sentence in err.
 */
int output_file_commit(struct output_file *out, int ret, char *err, size_t errlen);
/* The whole of buf as the file's new content (begin, write, commit). */
int output_file_replace(const char *what, const char *path, const char *buf, size_t len,
			char *err, size_t errlen);

/* A stream written from the start (--events): NULL with one sentence in err. */
FILE *output_stream_open(const char *what, const char *path, char *err, size_t errlen);

#endif
