// SPDX-License-Identifier: GPL-2.0
/*
 * lib/output.h: what a hostile directory can plant at a path the tools
 * write as root (a symbolic link, a hard link, a FIFO, a device) never
 * makes them write anywhere else.
 */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "output.h"
#include "unit.h"

static char dir[] = "/tmp/schedscan-output.XXXXXX";
static char err[512];

static void path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

static void write_file(const char *file, const char *text)
{
	FILE *f = fopen(file, "w");

	if (!f) {
		UNIT_FAIL("cannot write %s", file);
		return;
	}
	fputs(text, f);
	fclose(f);
}

static char *contents(const char *file)
{
	static char text[256];
	FILE *f = fopen(file, "r");
	size_t n = 0;

	text[0] = '\0';
	if (f) {
		n = fread(text, 1, sizeof(text) - 1, f);
		fclose(f);
	}
	text[n] = '\0';
	return text;
}

static void test_check_refuses_what_is_not_a_file(void)
{
	char victim[256], symlinked[256], hard[256], fifo[256], fresh[256];

	path(victim, sizeof(victim), "victim");
	path(symlinked, sizeof(symlinked), "link.prom");
	path(hard, sizeof(hard), "hard.prom");
	path(fifo, sizeof(fifo), "fifo");
	path(fresh, sizeof(fresh), "fresh.prom");
	write_file(victim, "precious\n");
	CHECK_INT(symlink(victim, symlinked), 0);
	CHECK_INT(link(victim, hard), 0);
	CHECK_INT(mkfifo(fifo, 0600), 0);

	CHECK_INT(output_path_check("--svg", symlinked, err, sizeof(err)), -1);
	CHECK_CONTAINS(err, "is a symbolic link");
	CHECK_INT(output_path_check("--svg", hard, err, sizeof(err)), -1);
	CHECK_CONTAINS(err, "has 2 hard links");
	CHECK_INT(output_path_check("--svg", fifo, err, sizeof(err)), -1);
	CHECK_CONTAINS(err, "is not a regular file");
	CHECK_INT(output_path_check("--prometheus-file", "/dev/null", err, sizeof(err)), -1);
	CHECK_CONTAINS(err, "is not a regular file");
	CHECK_INT(output_path_check("--svg", dir, err, sizeof(err)), -1);
	CHECK_CONTAINS(err, "is a directory");
	CHECK_INT(output_path_check("--svg", "/proc/version", err, sizeof(err)), -1);
	CHECK_CONTAINS(err, "takes no new file");
	CHECK_INT(output_path_check("--svg", "/nonexistent/x", err, sizeof(err)), -1);
	CHECK_CONTAINS(err, "does not exist");
	CHECK_INT(output_path_check("--svg", fresh, err, sizeof(err)), 0);
	/* The trial file is gone again, and no file was made at the path. */
	CHECK_INT(access(fresh, F_OK), -1);
	snprintf(fresh, sizeof(fresh), "test $(ls -A '%s' | wc -l) -eq 4", dir);
	CHECK_INT(system(fresh), 0);
	/* The stream refuses them too, and leaves the victim alone. */
	CHECK(output_stream_open("--events", symlinked, err, sizeof(err)) == NULL);
	CHECK_CONTAINS(err, "is a symbolic link");
	CHECK(output_stream_open("--events", hard, err, sizeof(err)) == NULL);
	CHECK_CONTAINS(err, "hard links");
	CHECK(output_stream_open("--events", fifo, err, sizeof(err)) == NULL);
	CHECK_CONTAINS(err, "is not a regular file");
	CHECK_STR(contents(victim), "precious\n");
}

static void test_replace_ignores_a_planted_temp_name(void)
{
	char victim[256], target[256], planted[256];
	struct stat st;

	path(victim, sizeof(victim), "victim2");
	path(target, sizeof(target), "m.prom");
	path(planted, sizeof(planted), "m.prom.tmp");
	write_file(victim, "precious\n");
	/* The old code wrote PATH.tmp through whatever was there. */
	CHECK_INT(symlink(victim, planted), 0);
	CHECK_INT(output_file_replace("--prometheus-file", target, "a 1\n", 4, err, sizeof(err)),
		  0);
	CHECK_STR(contents(target), "a 1\n");
	CHECK_STR(contents(victim), "precious\n");
	CHECK_INT(lstat(target, &st), 0);
	CHECK(S_ISREG(st.st_mode));
	/* Readable by node_exporter's user, as fopen() would have made it (umask 022). */
	CHECK_INT(st.st_mode & 0777, 0644);
	CHECK_INT(output_file_replace("--prometheus-file", target, "a 2\n", 4, err, sizeof(err)),
		  0);
	CHECK_STR(contents(target), "a 2\n");
	/* Replaced by a link during the run: refused, the link's target untouched. */
	CHECK_INT(unlink(target), 0);
	CHECK_INT(symlink(victim, target), 0);
	CHECK_INT(output_file_replace("--prometheus-file", target, "a 3\n", 4, err, sizeof(err)),
		  -1);
	CHECK_CONTAINS(err, "is a symbolic link");
	CHECK_STR(contents(victim), "precious\n");
}

static void test_stream_truncates_only_a_file(void)
{
	char file[256];
	FILE *f;

	path(file, sizeof(file), "events.jsonl");
	write_file(file, "old content that is longer\n");
	f = output_stream_open("--events", file, err, sizeof(err));
	CHECK(f != NULL);
	if (f) {
		fputs("new\n", f);
		fclose(f);
	}
	CHECK_STR(contents(file), "new\n");
}

static void test_setup(void)
{
	umask(022);
	if (!mkdtemp(dir))
		UNIT_FAIL("mkdtemp failed");
}

static void test_cleanup(void)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CHECK_INT(system(cmd), 0);
}

/* In this order: one directory for all. */
UNIT_MAIN(UNIT_TEST(test_setup), UNIT_TEST(test_check_refuses_what_is_not_a_file),
	  UNIT_TEST(test_replace_ignores_a_planted_temp_name),
	  UNIT_TEST(test_stream_truncates_only_a_file), UNIT_TEST(test_cleanup))
