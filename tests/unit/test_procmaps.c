/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tests for lib/procmaps.c: names of mappings from /proc/PID/maps text
 * (paths with spaces, [heap], anonymous), the cache's re-read of a
 * process whose maps grew, and a process that is gone.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "procmaps.h"
#include "unit.h"

const char *unit_suite_name = "procmaps";

static const char sample[] =
	"55d0c0a00000-55d0c0a02000 r--p 00000000 08:01 1311 /usr/bin/my tool\n"
	"55d0c1a00000-55d0c1a21000 rw-p 00000000 00:00 0                          [heap]\n"
	"7f2a40000000-7f2a48000000 rw-p 00000000 00:00 0 \n"
	"7ffc1a2b3000-7ffc1a2d4000 rw-p 00000000 00:00 0                          [stack]\n";

static void test_parse(void)
{
	struct procmaps_process p = {};

	CHECK_INT(procmaps_parse(sample, &p), 0);
	CHECK_INT((int)p.nr, 4);
	if (p.nr != 4)
		return;
	CHECK_U64(p.maps[0].start, 0x55d0c0a00000ULL);
	CHECK_U64(p.maps[0].end, 0x55d0c0a02000ULL);
	CHECK_STR(p.maps[0].name, "/usr/bin/my tool");
	CHECK_STR(p.maps[1].name, "[heap]");
	CHECK_STR(p.maps[2].name, "[anon]");
	CHECK_STR(p.maps[3].name, "[stack]");
	CHECK_INT(procmaps_parse("not a maps line\n", &p), -EINVAL);
	CHECK_INT((int)p.nr, 0);
	CHECK_INT(procmaps_parse("", &p), 0);
	CHECK_INT((int)p.nr, 0);
	free(p.maps);
}

/* This process: a mapping made after the first read is found by a re-read. */
static void test_live_process(void)
{
	struct procmaps_cache c;
	char name[64];
	size_t len = 1 << 20;
	char *fresh;

	procmaps_cache_init(&c, NULL);
	CHECK_INT(procmaps_name(&c, (unsigned int)getpid(), (unsigned long long)(size_t)name,
				name, sizeof(name)), 0);
	CHECK_STR(name, "[stack]");
	fresh = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(fresh != MAP_FAILED);
	if (fresh != MAP_FAILED) {
		CHECK_INT(procmaps_name(&c, (unsigned int)getpid(),
					(unsigned long long)(size_t)fresh + 4096, name,
					sizeof(name)), 0);
		CHECK_STR(name, "[anon]");
		munmap(fresh, len);
	}
	CHECK_INT(procmaps_name(&c, (unsigned int)getpid(), 8, name, sizeof(name)), -ENOENT);
	CHECK_STR(name, "?");
	procmaps_cache_free(&c);
}

/* A fake /proc: a process whose maps vanish keeps what an earlier read found. */
static void test_exited(void)
{
	char root[] = "/tmp/procmaps-test.XXXXXX", dir[128], path[160], name[64];
	struct procmaps_cache c;
	FILE *f;

	CHECK(mkdtemp(root) != NULL);
	snprintf(dir, sizeof(dir), "%s/42", root);
	CHECK_INT(mkdir(dir, 0700), 0);
	snprintf(path, sizeof(path), "%s/maps", dir);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fputs(sample, f);
	fclose(f);
	procmaps_cache_init(&c, root);
	CHECK_INT(procmaps_name(&c, 42, 0x55d0c1a00100ULL, name, sizeof(name)), 0);
	CHECK_STR(name, "[heap]");
	unlink(path);
	rmdir(dir);
	/* Gone: the names it had stay; an address it never had is "(exited)". */
	CHECK_INT(procmaps_name(&c, 42, 0x7f2a40001000ULL, name, sizeof(name)), 0);
	CHECK_STR(name, "[anon]");
	CHECK_INT(procmaps_name(&c, 42, 0x1000, name, sizeof(name)), -ESRCH);
	CHECK_STR(name, "(exited)");
	CHECK_INT(procmaps_name(&c, 43, 0x1000, name, sizeof(name)), -ESRCH);
	procmaps_cache_free(&c);
	rmdir(root);
}

/*
 * An exiting process not yet reaped: its maps read empty. A lookup of a
 * mapping made since the last read (it reads again) must not lose the
 * names it had: the summary of a run without intervals named every VMA
 * row of such a process "(exited)".
 */
static void test_exiting(void)
{
	char root[] = "/tmp/procmaps-test.XXXXXX", dir[128], path[160], name[64];
	struct procmaps_cache c;
	FILE *f;

	CHECK(mkdtemp(root) != NULL);
	snprintf(dir, sizeof(dir), "%s/44", root);
	CHECK_INT(mkdir(dir, 0700), 0);
	snprintf(path, sizeof(path), "%s/maps", dir);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fputs(sample, f);
	fclose(f);
	procmaps_cache_init(&c, root);
	CHECK_INT(procmaps_name(&c, 44, 0x55d0c1a00100ULL, name, sizeof(name)), 0);
	CHECK_STR(name, "[heap]");
	f = fopen(path, "w");
	if (f)
		fclose(f);
	CHECK_INT(procmaps_name(&c, 44, 0x1000, name, sizeof(name)), -ESRCH);
	CHECK_STR(name, "(exited)");
	CHECK_INT(procmaps_name(&c, 44, 0x55d0c1a00100ULL, name, sizeof(name)), 0);
	CHECK_STR(name, "[heap]");
	procmaps_cache_free(&c);
	unlink(path);
	rmdir(dir);
	rmdir(root);
}

UNIT_MAIN(UNIT_TEST(test_parse),
	  UNIT_TEST(test_live_process),
	  UNIT_TEST(test_exited),
	  UNIT_TEST(test_exiting))
