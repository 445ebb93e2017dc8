// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "output.h"
#include "util.h"

/* The directory part of path, and its last component. */
static int split_path(const char *what, const char *path, char *dir, size_t dirlen,
		      const char **base, char *err, size_t errlen)
{
	const char *slash = strrchr(path, '/');

	if (!*path)
		return errmsg(err, errlen, "%s needs a file name, not ''", what);
	if (slash && !slash[1])
		return errmsg(err, errlen, "%s '%s' names a directory, not a file", what, path);
	if (strlen(path) >= PATH_MAX - 16)
		return errmsg(err, errlen, "%s '%.64s...' is too long a path", what, path);
	if (slash == path)
		snprintf(dir, dirlen, "/");
	else if (slash)
		snprintf(dir, dirlen, "%.*s", (int)(slash - path), path);
	else
		snprintf(dir, dirlen, ".");
	*base = slash ? slash + 1 : path;
	return 0;
}

/* What exists at path may be replaced or written: a regular file of one name. */
static int check_existing(const char *what, const char *path, char *err, size_t errlen)
{
	struct stat st;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 :
		       errmsg(err, errlen, "%s '%s': %s", what, path, strerror(errno));
	if (S_ISLNK(st.st_mode))
		return errmsg(err, errlen,
			      "%s '%s' is a symbolic link: give the path of the file itself", what,
			      path);
	if (S_ISDIR(st.st_mode))
		return errmsg(err, errlen, "%s '%s' is a directory", what, path);
	if (!S_ISREG(st.st_mode))
		return errmsg(err, errlen,
			      "%s '%s' is not a regular file (a device, FIFO or socket): it would be replaced or written through",
			      what, path);
	if (st.st_nlink > 1)
		return errmsg(err, errlen,
			      "%s '%s' has %lu hard links: writing it would change the other names too",
			      what, path, (unsigned long)st.st_nlink);
	return 0;
}

/* New files get the mode fopen() would give them: 0666 less the umask. */
static mode_t file_mode(void)
{
	static mode_t mode;
	static bool known;

	if (!known) {
		mode_t mask = umask(022);

		umask(mask);
		mode = 0666 & ~mask;
		known = true;
	}
	return mode;
}

/* A new file beside path that nobody could have made in advance. */
static int create_temp(const char *what, const char *path, char *temp, size_t templen,
		       char *err, size_t errlen)
{
	char dir[PATH_MAX];
	const char *base;
	int fd;

	if (split_path(what, path, dir, sizeof(dir), &base, err, errlen))
		return -1;
	/* A dot name: node_exporter's textfile collector reads only *.prom. */
	if (snprintf(temp, templen, "%s/.%.200s.XXXXXX", dir, base) >= (int)templen)
		return errmsg(err, errlen, "%s '%.64s...' is too long a path", what, path);
	fd = mkostemp(temp, O_CLOEXEC);
	if (fd < 0)
		return errmsg(err, errlen, "%s '%s': directory %s takes no new file: %s", what, path,
			      dir, strerror(errno));
	if (fchmod(fd, file_mode())) {
		int saved = errno;

		close(fd);
		unlink(temp);
		return errmsg(err, errlen, "%s '%s': %s", what, path, strerror(saved));
	}
	return fd;
}

int output_path_check(const char *what, const char *path, char *err, size_t errlen)
{
	char dir[PATH_MAX], temp[PATH_MAX];
	const char *base;
	struct stat st;
	int fd;

	if (split_path(what, path, dir, sizeof(dir), &base, err, errlen))
		return -1;
	if (stat(dir, &st) || !S_ISDIR(st.st_mode))
		return errmsg(err, errlen, "%s '%s': directory %s does not exist", what, path, dir);
	if (check_existing(what, path, err, errlen))
		return -1;
	/* access() says yes to root on a read-only or pseudo file system: try it. */
	fd = create_temp(what, path, temp, sizeof(temp), err, errlen);
	if (fd < 0)
		return -1;
	close(fd);
	unlink(temp);
	return 0;
}

int output_file_begin(struct output_file *out, const char *what, const char *path,
		      char *err, size_t errlen)
{
	int fd;

	memset(out, 0, sizeof(*out));
	out->what = what;
	out->path = path;
	fd = create_temp(what, path, out->temp, sizeof(out->temp), err, errlen);
	if (fd < 0)
		return -1;
	out->f = fdopen(fd, "w");
	if (!out->f) {
		int saved = errno;

		close(fd);
		unlink(out->temp);
		return errmsg(err, errlen, "%s '%s': %s", what, path, strerror(saved));
	}
	return 0;
}

int output_file_commit(struct output_file *out, int ret, char *err, size_t errlen)
{
	int saved = 0;

	if (!out->f)
		return ret ? ret : errmsg(err, errlen, "%s: no file was begun", out->what);
	if (!ret && (fflush(out->f) || ferror(out->f) || fsync(fileno(out->f))))
		saved = errno ? errno : EIO;
	if (fclose(out->f) && !ret && !saved)
		saved = errno;
	out->f = NULL;
	if (!ret && !saved) {
		/* The path may have changed since the options were checked. */
		if (check_existing(out->what, out->path, err, errlen)) {
			unlink(out->temp);
			return -1;
		}
		if (!rename(out->temp, out->path))
			return 0;
		saved = errno;
	}
	unlink(out->temp);
	if (ret)
		return ret;
	return errmsg(err, errlen, "writing %s '%s' failed: %s", out->what, out->path,
		      strerror(saved));
}

int output_file_replace(const char *what, const char *path, const char *buf, size_t len,
			char *err, size_t errlen)
{
	struct output_file out;
	int ret = 0;

	if (output_file_begin(&out, what, path, err, errlen))
		return -1;
	if (fwrite(buf, 1, len, out.f) != len)
		ret = errmsg(err, errlen, "writing %s '%s' failed: %s", what, path,
			     strerror(errno ? errno : EIO));
	return output_file_commit(&out, ret, err, errlen);
}

FILE *output_stream_open(const char *what, const char *path, char *err, size_t errlen)
{
	struct stat st;
	FILE *f;
	int fd;

	/* O_NONBLOCK: a FIFO planted at the path must not hold the tool (refused below). */
	fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, file_mode());
	if (fd < 0) {
		int saved = errno;

		/* ELOOP: a symbolic link; ENXIO: a FIFO nobody reads. Say what it is. */
		if (!check_existing(what, path, err, errlen))
			errmsg(err, errlen, "%s: cannot write %s: %s", what, path, strerror(saved));
		return NULL;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_nlink > 1) {
		close(fd);
		if (err && errlen)
			err[0] = '\0';
		check_existing(what, path, err, errlen);
		if (err && errlen && !*err)
			errmsg(err, errlen, "%s '%s' is not a regular file", what, path);
		return NULL;
	}
	if (fcntl(fd, F_SETFL, 0) || ftruncate(fd, 0) || !(f = fdopen(fd, "w"))) {
		int saved = errno;

		close(fd);
		errmsg(err, errlen, "%s: cannot write %s: %s", what, path, strerror(saved));
		return NULL;
	}
	return f;
}
