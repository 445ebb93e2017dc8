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
#include <time.h>
#include <unistd.h>
#include "procstat.h"
#include "schedstat.h"
#include "util.h"
#include "vmstat.h"
#include "windowcut.h"

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

/*
 * Sum of idle + iowait over the CPUs of /proc/stat, in ns, and in irq_ns
 * the same plus irq + softirq; -1 if unreadable. Each CPU's idle in *per_cpu.
 */
static long long cpu_idle_ns(long long *irq_ns, struct procstat *per_cpu)
{
	long long idle = 0, irq = 0;

	if (procstat_read(NULL, per_cpu, NULL, 0))
		return -1;
	for (int cpu = 0; cpu < per_cpu->nr_cpus; cpu++) {
		const struct procstat_cpu *c = &per_cpu->cpu[cpu];

		idle += (long long)procstat_idle_ns(c);
		irq += (long long)(procstat_idle_ns(c) + c->irq + c->softirq);
	}
	*irq_ns = irq;
	return idle;
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
	struct procstat per_cpu = { 0 };
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
		if (window_cut(cut_pid, cut_file, err, sizeof(err))) {
			fprintf(stderr, "kstat: %s\n", err);
			return 1;
		}
	}
	/* -q: /proc/schedstat and the hist files only: a shorter cut. */
	if (argc > 1 && !strcmp(argv[1], "-q")) {
		quick = 1;
		argc--;
		argv++;
	}
	nr_hist = argc - 1 < 16 ? argc - 1 : 16;
	before = realtime_seconds();
	idle_ns = quick ? -1 : cpu_idle_ns(&idle_irq_ns, &per_cpu);
	ktime_ns = cpu_clock_ns = 0;
	if (!quick)
		schedstat_clocks(&ktime_ns, &cpu_clock_ns);

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
	if (cut_file && window_cut(cut_pid, cut_file, err, sizeof(err))) {
		fprintf(stderr, "kstat: %s\n", err);
		return 1;
	}
	if (ktime_ns && cpu_clock_ns)
		printf("ktime_ns %lld\ncpu_clock_ns %lld\n", ktime_ns, cpu_clock_ns);
	if (idle_ns >= 0) {
		printf("cpu_idle_ns %lld\ncpu_idle_irq_ns %lld\n", idle_ns, idle_irq_ns);
		for (int cpu = 0; cpu < per_cpu.nr_cpus; cpu++)
			if (per_cpu.present[cpu])
				printf("cpu%d_idle_ns %llu\n", cpu,
				       (unsigned long long)procstat_idle_ns(&per_cpu.cpu[cpu]));
		procstat_free(&per_cpu);
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
