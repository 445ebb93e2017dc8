// SPDX-License-Identifier: GPL-2.0
/*
 * kstat: prints the kernel's own counters that the tests compare the
 * tools against, one "name value" per line, read with lib/schedstat.c
 * and lib/vmstat.c (so the guests, which have only busybox, can diff
 * two snapshots with awk):
 *
 *   schedstat_version, lb_count, lb_count_<idle|busy|newidle>,
 *   ttwu_count, ttwu_local      (from /proc/schedstat, summed over CPUs)
 *   vmstat_<name>               (numa_* and pgfault from /proc/vmstat)
 *   realtime_before, realtime_after  (CLOCK_REALTIME around the reads, so
 *                               a test can line them up with a tool's
 *                               interval records)
 *   NAME                        for each NAME=PATH argument: the "Hits:"
 *                               total of an ftrace hist trigger file, an
 *                               event counter that owes nothing to BPF
 *
 * usage: kstat [NAME=PATH ...]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

int main(int argc, char **argv)
{
	long long hits[16];
	int nr_hist = argc - 1 < 16 ? argc - 1 : 16;
	static const char *const vm_names[] = {
		"numa_pte_updates", "numa_huge_pte_updates", "numa_hint_faults",
		"numa_hint_faults_local", "numa_pages_migrated", "pgfault",
	};
	struct schedstat ss;
	struct vmstat vm;
	char err[256];
	uint64_t value;
	double before = realtime_seconds();
	int have_schedstat, have_vmstat;

	have_schedstat = !schedstat_read(NULL, &ss, err, sizeof(err));
	if (!have_schedstat)
		fprintf(stderr, "kstat: %s\n", err);
	have_vmstat = !vmstat_read(NULL, &vm, err, sizeof(err));
	if (!have_vmstat)
		fprintf(stderr, "kstat: %s\n", err);
	for (int i = 0; i < nr_hist; i++) {
		char *path = strchr(argv[i + 1], '=');

		hits[i] = path ? hist_hits(path + 1) : -1;
	}
	printf("realtime_before %.6f\nrealtime_after %.6f\n", before,
	       realtime_seconds());
	if (have_schedstat) {
		printf("schedstat_version %d\n", ss.version);
		printf("lb_count %llu\n", (unsigned long long)
		       schedstat_sum_lb_all_types(&ss, SCHEDSTAT_ALL_LEVELS,
						  SS_LB_COUNT));
		for (int t = SS_IDLE; t <= SS_NEWLY_IDLE; t++)
			printf("lb_count_%s %llu\n", schedstat_idle_type_name(t),
			       (unsigned long long)schedstat_sum_lb(
				       &ss, SCHEDSTAT_ALL_LEVELS, t, SS_LB_COUNT));
		printf("ttwu_count %llu\n", (unsigned long long)
		       schedstat_sum_cpu(&ss, SS_CPU_TTWU_COUNT));
		printf("ttwu_local %llu\n", (unsigned long long)
		       schedstat_sum_cpu(&ss, SS_CPU_TTWU_LOCAL));
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
