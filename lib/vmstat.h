/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /proc/vmstat reader: "name value" lines, kept generic so that whatever a
 * given kernel exports can be looked up by name, plus the handful of
 * AutoNUMA counters numascan is checked against.
 *
 * Which counters exist depends on the kernel version and config (the numa_*
 * ones need CONFIG_NUMA_BALANCING), so a missing counter is reported as
 * missing, never as 0.
 *
 * Functions returning int give 0 on success or a negative errno (-EINVAL
 * for malformed text, -ENOMEM, or the errno of a failed open/read) and, when
 * @err is not NULL, write a one-line reason there.
 */
#ifndef SCHEDSCAN_VMSTAT_H
#define SCHEDSCAN_VMSTAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VMSTAT_DEFAULT_PATH "/proc/vmstat"

struct vmstat_entry {
	char *name;
	uint64_t value;
};

struct vmstat {
	size_t nr;
	struct vmstat_entry *entries;	/* in file order */
	/* private: entries sorted by name, for lookups */
	const struct vmstat_entry **by_name;
};

/* @out is overwritten; on failure it is left empty (vmstat_free() is safe). */
int vmstat_parse(const char *text, struct vmstat *out, char *err,
		 size_t errlen);
/* @path NULL means VMSTAT_DEFAULT_PATH. */
int vmstat_read(const char *path, struct vmstat *out, char *err,
		size_t errlen);
void vmstat_free(struct vmstat *s);

/* 0 and *@value set if @name is present, -ENOENT if not. */
int vmstat_get(const struct vmstat *s, const char *name, uint64_t *value);
bool vmstat_has(const struct vmstat *s, const char *name);

/*
 * @delta gets, for every name present in both snapshots (in @after's order),
 * after - before modulo 2^64. Event counters (pgfault, numa_*) only grow, so
 * that is the count of events in between; gauges (nr_free_pages...) can
 * shrink, and their delta must be read as (int64_t)value. Names present in
 * only one snapshot are left out of @delta, so they stay "missing".
 */
int vmstat_delta(const struct vmstat *before, const struct vmstat *after,
		 struct vmstat *delta, char *err, size_t errlen);

/* Counters behind AutoNUMA cost estimates (mmtests' MonitorMmtestsvmstat). */
enum vmstat_numa_counter {
	VMSTAT_NUMA_PTE_UPDATES,	/* numa_pte_updates */
	VMSTAT_NUMA_HUGE_PTE_UPDATES,	/* numa_huge_pte_updates */
	VMSTAT_NUMA_HINT_FAULTS,	/* numa_hint_faults */
	VMSTAT_NUMA_HINT_FAULTS_LOCAL,	/* numa_hint_faults_local */
	VMSTAT_NUMA_PAGES_MIGRATED,	/* numa_pages_migrated */
	VMSTAT_PGFAULT,			/* pgfault */
	VMSTAT_NUMA_NR_COUNTERS,
};

struct vmstat_numa {
	uint64_t numa_pte_updates;
	uint64_t numa_huge_pte_updates;
	uint64_t numa_hint_faults;
	uint64_t numa_hint_faults_local;
	uint64_t numa_pages_migrated;
	uint64_t pgfault;
	/* bit (1u << enum vmstat_numa_counter) set when present */
	unsigned int present;
};

/*
 * Fill @out from a snapshot or a delta; absent counters read 0 with their
 * present bit clear.
 */
void vmstat_numa_fill(const struct vmstat *s, struct vmstat_numa *out);
bool vmstat_numa_has(const struct vmstat_numa *n, enum vmstat_numa_counter c);
/* All five numa_* counters present, i.e. a CONFIG_NUMA_BALANCING kernel. */
bool vmstat_numa_balancing_present(const struct vmstat_numa *n);
/* The /proc/vmstat name of @c, e.g. "numa_hint_faults". */
const char *vmstat_numa_counter_name(enum vmstat_numa_counter c);

#endif /* SCHEDSCAN_VMSTAT_H */
