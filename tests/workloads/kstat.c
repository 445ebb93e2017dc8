// SPDX-License-Identifier: GPL-2.0
/*
 * kstat: prints the kernel's own counters that the tests compare the
 * tools against, one "name value" per line, read with lib/schedstat.c
 * and lib/vmstat.c (so the guests, which have only busybox, can diff
 * two snapshots with awk):
 *
 *   schedstat_version, lb_count, lb_count_<idle|busy|newidle>,
 *   <lb field>_d<N>_<idle|busy|newidle>, alb_count_d<N>, alb_pushed_d<N>
 *                               (per domain<N>, as idlebal's domains table)
 *   ttwu_count, ttwu_local      (from /proc/schedstat, summed over CPUs)
 *   vmstat_<name>               (numa_* and pgfault from /proc/vmstat)
 *   cpu_idle_ns                 (idle + iowait of every CPU in /proc/stat,
 *                               the kernel's own idle accounting, in ns)
 *   cpu_idle_irq_ns             (the same + irq + softirq: interrupts taken
 *                               in the idle task count as irq time there)
 *   cpu<N>_idle_ns              (idle + iowait of CPU N alone, in ns)
 *   cpu_busy_ns, nr_cpus        (rq_cpu_time summed over CPUs in
 *                               /proc/schedstat: time the CPUs ran tasks
 *                               other than their idle task, counted at each
 *                               switch away from such a task)
 *   ktime_ns, cpu_clock_ns      ("ktime" and "cpu_clk" of debugfs
 *                               sched/debug: rq_cpu_time runs on the
 *                               scheduler's clock, BPF's bpf_ktime_get_ns()
 *                               on ktime, and under emulation their rates
 *                               differ)
 *   realtime_before, realtime_after  (CLOCK_REALTIME around the reads, so
 *                               a test can line them up with a tool's
 *                               interval records)
 *   NAME                        for each NAME=PATH argument: the "Hits:"
 *                               total of an ftrace hist trigger file, an
 *                               event counter that owes nothing to BPF
 *
 * With -c PID,FILE the reads are bracketed by window cuts of a schedscan
 * tool: kstat sends the tool (PID) SIGUSR1, waits until its interval
 * record is in FILE (one more line), reads, and cuts again. The tool's
 * window between two such reads then lies within them, the windows
 * around them cover them, and the edges last milliseconds; no shell
 * process runs in them (a forked poller balances and wakes CPUs).
 *
 * With -q only /proc/schedstat and the hist files are read: the read,
 * and the edges of a cut around it, are shorter (sched/debug lists every
 * task).
 *
 * usage: kstat [-c PID,FILE] [-q] [NAME=PATH ...]
 */
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <poll.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>
#include "schedstat.h"
#include "util.h"
#include "vmstat.h"

/* "Totals:\n    Hits: N" of a tracefs hist file, or -1. */
static long long hist_hits(const char *path)
{
	char *text, *hits;
	long long value = -1;

	if (read_text_file(path, &text, NULL, 0))
		return -1;
	hits = strstr(text, "Hits: ");
	if (hits)
		value = atoll(hits + 6);
	free(text);
	return value;
}

/* "ktime" and "cpu_clk" (ms) of sched/debug's header, in ns; 0 if absent. */
static void sched_clocks(long long *ktime_ns, long long *cpu_clock_ns)
{
	char line[256];
	double ms;
	FILE *f = fopen("/sys/kernel/debug/sched/debug", "r");

	*ktime_ns = *cpu_clock_ns = 0;
	if (!f)
		return;
	for (int i = 0; i < 8 && fgets(line, sizeof(line), f); i++) {
		if (sscanf(line, "ktime : %lf", &ms) == 1)
			*ktime_ns = (long long)(ms * 1e6);
		else if (sscanf(line, "cpu_clk : %lf", &ms) == 1)
			*cpu_clock_ns = (long long)(ms * 1e6);
	}
	fclose(f);
}

/* Lines (complete records) in path; -1 if unreadable. */
static long count_lines(const char *path)
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

/*
 * SIGUSR1 to the tool, then wait (30 s at most) for its record in path.
 * Woken by inotify when the file grows rather than by polling: every
 * wakeup and sleep of ours is scheduler work (newidle balancing among
 * it) in the edges the brackets must keep small.
 */
static int cut_window(pid_t pid, const char *path)
{
	const struct timespec ms = { 0, 1000000 };
	int fd = inotify_init1(IN_CLOEXEC);
	long before = count_lines(path);
	double deadline = realtime_seconds() + 30;

	if (fd >= 0 && inotify_add_watch(fd, path, IN_MODIFY) < 0) {
		close(fd);
		fd = -1;
	}
	if (before < 0 || kill(pid, SIGUSR1)) {
		perror("kstat: cut");
		if (fd >= 0)
			close(fd);
		return -1;
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
		if (count_lines(path) > before) {
			if (fd >= 0)
				close(fd);
			return 0;
		}
	}
	if (fd >= 0)
		close(fd);
	fprintf(stderr, "kstat: no record from %d in %s after 30 s\n", (int)pid, path);
	return -1;
}

/* Each CPU's idle + iowait in ticks, as cpu_idle_ns() last read them. */
#define KSTAT_MAX_CPUS 1024
static unsigned long long idle_ticks_of[KSTAT_MAX_CPUS];
static int idle_cpus_seen;

/*
 * Sum of idle + iowait over the cpuN lines of /proc/stat, in ns, and in
 * irq_ns the same plus irq + softirq; -1 if unreadable.
 */
static long long cpu_idle_ns(long long *irq_ns)
{
	long hz = sysconf(_SC_CLK_TCK);
	unsigned long long user, nice, sys, idle, iowait, irq, softirq;
	unsigned long long ticks = 0, irq_ticks = 0;
	char line[512];
	FILE *f = fopen("/proc/stat", "r");
	int cpus = 0;

	if (!f || hz <= 0) {
		if (f)
			fclose(f);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		int cpu;

		if (sscanf(line, "cpu%d %llu %llu %llu %llu %llu %llu %llu", &cpu, &user,
			   &nice, &sys, &idle, &iowait, &irq, &softirq) == 8) {
			ticks += idle + iowait;
			irq_ticks += irq + softirq;
			cpus++;
			if (cpu >= 0 && cpu < KSTAT_MAX_CPUS) {
				idle_ticks_of[cpu] = idle + iowait;
				if (cpu >= idle_cpus_seen)
					idle_cpus_seen = cpu + 1;
			}
		}
	}
	fclose(f);
	*irq_ns = (long long)((ticks + irq_ticks) * (1000000000ULL / (unsigned long long)hz));
	return cpus ? (long long)(ticks * (1000000000ULL / (unsigned long long)hz)) : -1;
}

int main(int argc, char **argv)
{
	long long hits[16];
	const char *cut_file = NULL;
	pid_t cut_pid = 0;
	int nr_hist;
	static const char *const vm_names[] = {
		"numa_pte_updates", "numa_huge_pte_updates", "numa_hint_faults",
		"numa_hint_faults_local", "numa_pages_migrated", "pgfault",
	};
	struct schedstat ss;
	struct vmstat vm;
	char err[256];
	uint64_t value;
	double before;
	long long idle_ns, idle_irq_ns, ktime_ns, cpu_clock_ns;
	int have_schedstat, have_vmstat, quick = 0;

	if (argc > 2 && !strcmp(argv[1], "-c")) {
		char *comma = strchr(argv[2], ',');

		if (!comma) {
			fprintf(stderr, "kstat: -c PID,FILE\n");
			return 2;
		}
		*comma = '\0';
		cut_pid = (pid_t)atoi(argv[2]);
		cut_file = comma + 1;
		argc -= 2;
		argv += 2;
		if (cut_window(cut_pid, cut_file))
			return 1;
	}
	/* -q: /proc/schedstat and the hist files only: a shorter cut. */
	if (argc > 1 && !strcmp(argv[1], "-q")) {
		quick = 1;
		argc--;
		argv++;
	}
	nr_hist = argc - 1 < 16 ? argc - 1 : 16;
	before = realtime_seconds();
	idle_ns = quick ? -1 : cpu_idle_ns(&idle_irq_ns);
	ktime_ns = cpu_clock_ns = 0;
	if (!quick)
		sched_clocks(&ktime_ns, &cpu_clock_ns);

	have_schedstat = !schedstat_read(NULL, &ss, err, sizeof(err));
	if (!have_schedstat)
		fprintf(stderr, "kstat: %s\n", err);
	have_vmstat = !quick && !vmstat_read(NULL, &vm, err, sizeof(err));
	if (!have_vmstat && !quick)
		fprintf(stderr, "kstat: %s\n", err);
	for (int i = 0; i < nr_hist; i++) {
		char *path = strchr(argv[i + 1], '=');

		hits[i] = path ? hist_hits(path + 1) : -1;
	}
	printf("realtime_before %.6f\nrealtime_after %.6f\n", before,
	       realtime_seconds());
	fflush(stdout);
	if (cut_file && cut_window(cut_pid, cut_file))
		return 1;
	if (ktime_ns && cpu_clock_ns)
		printf("ktime_ns %lld\ncpu_clock_ns %lld\n", ktime_ns, cpu_clock_ns);
	if (idle_ns >= 0) {
		unsigned long long ns_per_tick = 1000000000ULL / (unsigned long long)sysconf(_SC_CLK_TCK);

		printf("cpu_idle_ns %lld\ncpu_idle_irq_ns %lld\n", idle_ns, idle_irq_ns);
		for (int cpu = 0; cpu < idle_cpus_seen; cpu++)
			printf("cpu%d_idle_ns %llu\n", cpu, idle_ticks_of[cpu] * ns_per_tick);
	}
	if (have_schedstat) {
		printf("schedstat_version %d\n", ss.version);
		printf("lb_count %llu\n", (unsigned long long)
		       schedstat_sum_lb_all_types(&ss, SCHEDSTAT_ALL_LEVELS,
						  SS_LB_COUNT));
		for (int t = SS_IDLE; t <= SS_NEWLY_IDLE; t++)
			printf("lb_count_%s %llu\n", schedstat_idle_type_name(t),
			       (unsigned long long)schedstat_sum_lb(
				       &ss, SCHEDSTAT_ALL_LEVELS, t, SS_LB_COUNT));
		/* Per domain<N> and idle type, as idlebal's domains table keys them. */
		for (int level = 0; level < schedstat_nr_levels(&ss); level++) {
			static const enum schedstat_lb_field fields[] = {
				SS_LB_COUNT, SS_LB_BALANCED, SS_LB_FAILED, SS_LB_GAINED,
				SS_LB_HOT_GAINED, SS_LB_NOBUSYG, SS_LB_NOBUSYQ, SS_LB_IMBALANCE,
			};

			for (int t = SS_IDLE; t <= SS_NEWLY_IDLE; t++)
				for (size_t f = 0; f < sizeof(fields) / sizeof(fields[0]); f++)
					printf("%s_d%d_%s %llu\n", schedstat_lb_field_name(fields[f]),
					       level, schedstat_idle_type_name(t),
					       (unsigned long long)schedstat_sum_lb(&ss, level, t,
										    fields[f]));
			printf("alb_count_d%d %llu\nalb_pushed_d%d %llu\n", level,
			       (unsigned long long)schedstat_sum_domain(&ss, level, SS_DOM_ALB_COUNT),
			       level,
			       (unsigned long long)schedstat_sum_domain(&ss, level, SS_DOM_ALB_PUSHED));
		}
		printf("ttwu_count %llu\n", (unsigned long long)
		       schedstat_sum_cpu(&ss, SS_CPU_TTWU_COUNT));
		printf("ttwu_local %llu\n", (unsigned long long)
		       schedstat_sum_cpu(&ss, SS_CPU_TTWU_LOCAL));
		printf("cpu_busy_ns %llu\nnr_cpus %zu\n", (unsigned long long)
		       schedstat_sum_cpu(&ss, SS_CPU_RQ_CPU_TIME), ss.nr_cpus);
		schedstat_free(&ss);
	}
	for (int i = 0; i < nr_hist; i++) {
		int name_len = (int)strcspn(argv[i + 1], "=");

		if (hits[i] >= 0)
			printf("%.*s %lld\n", name_len, argv[i + 1], hits[i]);
		else
			fprintf(stderr, "kstat: no hist total for %s\n", argv[i + 1]);
	}
	if (have_vmstat) {
		for (size_t i = 0; i < sizeof(vm_names) / sizeof(vm_names[0]); i++)
			if (!vmstat_get(&vm, vm_names[i], &value))
				printf("vmstat_%s %llu\n", vm_names[i],
				       (unsigned long long)value);
		vmstat_free(&vm);
	}
	return 0;
}
