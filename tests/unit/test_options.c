// SPDX-License-Identifier: GPL-2.0
/*
 * Value checks behind the common options. The exit status 2 and the
 * message the user sees are covered end to end by tests/live/test_cli.sh.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "options.h"
#include "unit.h"

static char err[512];

static void test_seconds(void)
{
	double v = 0;

	CHECK_INT(parse_seconds("interval", "2.5", &v, err, sizeof(err)), 0);
	CHECK_DBL(v, 2.5, 1e-9);
	CHECK_INT(parse_seconds("interval", "abc", &v, err, sizeof(err)), -1);
	CHECK_STR(err, "invalid interval 'abc': expected a number of seconds");
	CHECK_INT(parse_seconds("interval", "0", &v, err, sizeof(err)), -1);
	CHECK_STR(err, "invalid interval '0': it must be above 0");
	CHECK_INT(parse_seconds("duration", "-3", &v, err, sizeof(err)), -1);
	CHECK_STR(err, "invalid duration '-3': it must be above 0");
	CHECK_INT(parse_seconds("duration", "1e9", &v, err, sizeof(err)), -1);
	CHECK_CONTAINS(err, "out of range");
	CHECK_INT(parse_seconds("duration", "nan", &v, err, sizeof(err)), -1);
	CHECK_INT(parse_seconds("duration", "1s", &v, err, sizeof(err)), -1);
	CHECK_INT(parse_seconds("duration", "", &v, err, sizeof(err)), -1);
	/* strtod() alone took all of these. */
	CHECK_INT(parse_seconds("interval", "0x1", &v, err, sizeof(err)), -1);
	CHECK_STR(err, "invalid interval '0x1': expected a number of seconds");
	CHECK_INT(parse_seconds("interval", "inf", &v, err, sizeof(err)), -1);
	CHECK_INT(parse_seconds("interval", " 1", &v, err, sizeof(err)), -1);
	CHECK_INT(parse_seconds("interval", "1e309", &v, err, sizeof(err)), -1);
	CHECK_INT(parse_seconds("interval", "1e-3", &v, err, sizeof(err)), 0);
	CHECK_DBL(v, 0.001, 1e-12);
	CHECK_INT(parse_decimal("+2.5e1", &v), 0);
	CHECK_DBL(v, 25, 1e-12);
	CHECK_INT(parse_decimal("1.2.3", &v), -1);
	CHECK_INT(parse_decimal("-", &v), -1);
}

static void test_count(void)
{
	long v = 0;

	CHECK_INT(parse_count("10", &v, err, sizeof(err)), 0);
	CHECK_INT(v, 10);
	CHECK_INT(parse_count("0", &v, err, sizeof(err)), -1);
	CHECK_STR(err, "invalid count '0': it must be above 0");
	CHECK_INT(parse_count("x1", &v, err, sizeof(err)), -1);
	CHECK_STR(err, "invalid count 'x1': expected a whole number");
	CHECK_INT(parse_count("99999999999999999999", &v, err, sizeof(err)), -1);
}

static void test_pid(void)
{
	char self[32];
	pid_t pid = 0;

	snprintf(self, sizeof(self), "%d", getpid());
	CHECK_INT(parse_pid(self, "/proc", &pid, err, sizeof(err)), 0);
	CHECK_INT(pid, getpid());
	CHECK_INT(parse_pid("-5", "/proc", &pid, err, sizeof(err)), -1);
	CHECK_STR(err, "invalid PID '-5': it must be above 0");
	CHECK_INT(parse_pid("12ab", "/proc", &pid, err, sizeof(err)), -1);
	CHECK_STR(err, "invalid PID '12ab': expected a number");
	/* Above the kernel's PID_MAX_LIMIT (4M), so it cannot exist. */
	CHECK_INT(parse_pid("2147483647", "/proc", &pid, err, sizeof(err)), -1);
	CHECK_STR(err, "no process with PID 2147483647 exists");
}

/* A fake /proc: pid 7 a thread of 5, pid 9 a kernel thread, pid 5 a process. */
static void test_pid_target(void)
{
	char root[] = "/tmp/schedscan-proc-XXXXXX", path[256], note[256];
	static const struct { int pid, tgid; unsigned long flags; const char *name; } tasks[] = {
		{ 5, 5, 0x400100, "server" },
		{ 7, 5, 0x400040, "worker (x)" },
		{ 9, 9, 0x208040, "kthreadd" },
	};
	pid_t pid;

	CHECK(mkdtemp(root) != NULL);
	for (size_t i = 0; i < sizeof(tasks) / sizeof(tasks[0]); i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/%d", root, tasks[i].pid);
		mkdir(path, 0755);
		snprintf(path, sizeof(path), "%s/%d/status", root, tasks[i].pid);
		f = fopen(path, "w");
		fprintf(f, "Name:\t%s\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t%d\nPid:\t%d\n",
			tasks[i].name, tasks[i].tgid, tasks[i].pid);
		fclose(f);
		snprintf(path, sizeof(path), "%s/%d/stat", root, tasks[i].pid);
		f = fopen(path, "w");
		/* A comm with ") " inside: the fields count from the last ')'. */
		fprintf(f, "%d (%s) S 1 1 1 0 -1 %lu 0 0 0 0\n", tasks[i].pid, tasks[i].name,
			tasks[i].flags);
		fclose(f);
	}
	pid = 5;
	CHECK_INT(pid_target(root, &pid, note, sizeof(note)), 0);
	CHECK_INT(pid, 5);
	CHECK_STR(note, "");
	pid = 7;
	CHECK_INT(pid_target(root, &pid, note, sizeof(note)), 1);
	CHECK_INT(pid, 5);
	CHECK_STR(note, "7 is a thread of process 5 ('worker (x)'): -p selects processes, so all of its threads are traced");
	pid = 9;
	CHECK_INT(pid_target(root, &pid, note, sizeof(note)), 1);
	CHECK_INT(pid, 9);
	CHECK_STR(note, "PID 9 is the kernel thread 'kthreadd': only its own events are traced");
	snprintf(path, sizeof(path), "rm -rf '%s'", root);
	CHECK_INT(system(path), 0);
}

static void test_comm(void)
{
	char comm[16];

	CHECK_INT(parse_comm("pingpong", comm, sizeof(comm), err, sizeof(err)), 0);
	CHECK_STR(comm, "pingpong");
	CHECK_INT(parse_comm("123456789012345", comm, sizeof(comm), err,
			     sizeof(err)), 0);
	CHECK_INT(parse_comm("1234567890123456", comm, sizeof(comm), err,
			     sizeof(err)), -1);
	CHECK_CONTAINS(err, "is 16 bytes, longer than the kernel's 15");
	CHECK_INT(parse_comm("", comm, sizeof(comm), err, sizeof(err)), -1);
}

static void test_mode(void)
{
	enum probe_mode mode = MODE_AUTO;

	CHECK_INT(parse_mode("kprobe", &mode, err, sizeof(err)), 0);
	CHECK_INT(mode, MODE_KPROBE);
	CHECK_INT(parse_mode("tracepoint", &mode, err, sizeof(err)), 0);
	CHECK_INT(mode, MODE_TRACEPOINT);
	CHECK_INT(parse_mode("ebpf", &mode, err, sizeof(err)), -1);
	CHECK_STR(err, "invalid mode 'ebpf': expected auto, fentry, kprobe or tracepoint");
	CHECK_STR(probe_mode_name(MODE_FENTRY), "fentry");
}

/* A fake sysfs with CPUs 0-3 and 8 online. */
static void test_cpus_against_online_mask(void)
{
	char root[] = "/tmp/schedscan-sysfs-XXXXXX", path[256];
	struct cpumask mask;
	FILE *f;

	CHECK(mkdtemp(root) != NULL);
	snprintf(path, sizeof(path), "%s/devices", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/devices/system", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/devices/system/cpu", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/devices/system/cpu/online", root);
	f = fopen(path, "w");
	CHECK(f != NULL);
	fputs("0-3,8\n", f);
	fclose(f);

	CHECK_INT(parse_cpus("0-2,8", root, &mask, err, sizeof(err)), 0);
	CHECK_INT(cpumask_weight(&mask), 4);
	CHECK(cpumask_test(&mask, 8));
	CHECK_INT(parse_cpus("3-5", root, &mask, err, sizeof(err)), -1);
	CHECK_STR(err, "CPU 4 does not exist or is offline (online CPUs: 0-3,8)");
	CHECK_INT(parse_cpus("1-x", root, &mask, err, sizeof(err)), -1);
	CHECK_CONTAINS(err, "1-x");
	CHECK_INT(parse_cpus("", root, &mask, err, sizeof(err)), -1);
	CHECK_INT(parse_cpus("0", "/nonexistent", &mask, err, sizeof(err)), -1);
	CHECK_CONTAINS(err, "cannot read the online CPUs");

	unlink(path);
	snprintf(path, sizeof(path), "rm -rf '%s'", root);
	CHECK_INT(system(path), 0);
}

static void test_cgroup(void)
{
	unsigned long long id = 0;

	CHECK_INT(parse_cgroup("/nonexistent/cg", &id, err, sizeof(err)), -1);
	CHECK_STR(err, "cgroup '/nonexistent/cg' does not exist");
	CHECK_INT(parse_cgroup("/tmp", &id, err, sizeof(err)), -1);
	CHECK_CONTAINS(err, "is not a cgroup v2 directory");
	/* The root cgroup's id is 1 on every cgroup2 mount. */
	if (!access("/sys/fs/cgroup/cgroup.controllers", F_OK)) {
		CHECK_INT(parse_cgroup("/sys/fs/cgroup", &id, err, sizeof(err)), 0);
		CHECK_U64(id, 1);
	}
}

UNIT_MAIN(UNIT_TEST(test_seconds), UNIT_TEST(test_count), UNIT_TEST(test_pid),
	  UNIT_TEST(test_pid_target),
	  UNIT_TEST(test_comm), UNIT_TEST(test_mode),
	  UNIT_TEST(test_cpus_against_online_mask), UNIT_TEST(test_cgroup))
