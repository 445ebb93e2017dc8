// SPDX-License-Identifier: GPL-2.0
/*
 * numascan: NUMA balancing.
 *
 * fentry/kprobe tiers: every hint fault (task_numa_fault()) with its
 * locality, private/shared kind and migration outcome, per process, VMA
 * and CPU node x memory node; every scan pass (task_numa_work()) and
 * the PTEs it updated per VMA (change_prot_numa()); the time misplaced
 * pages take to migrate. Every tier: VMA scan skips by reason
 * (sched_skip_vma_numa, 6.7+), pages migrated (mm_migrate_pages), task
 * NUMA moves, and /proc/vmstat's AutoNUMA counters for the same window.
 * Every number is defined in docs/metrics.md.
 */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <bpf/libbpf.h>
#include "compare.h"
#include "preflight.h"
#include "probe.h"
#include "procmaps.h"
#include "runloop.h"
#include "tool.h"
#include "vmstat.h"
#include "numascan.h"
#include "numascan.skel.h"
#include "util.h"

enum numascan_hook {
	HOOK_PAGE_FAULT_USER,
	HOOK_TASK_NUMA_FAULT,
	HOOK_HINT_VMA,
	HOOK_TASK_NUMA_WORK,
	HOOK_CHANGE_PROT_NUMA,
	HOOK_SKIP_VMA,
	HOOK_MIGRATE_PAGES,
	HOOK_MIGRATE_MISPLACED,
	HOOK_MOVE_NUMA,
	HOOK_SWAP_NUMA,
	HOOK_STICK_NUMA,
	HOOK_SCHED_SWITCH,
	HOOK_PROCESS_EXEC,
	HOOK_MIGRATION_SOURCE,
	NR_HOOKS,
};

static const struct hook_spec hooks[NR_HOOKS] = {
	[HOOK_PAGE_FAULT_USER] = { .name = "page_fault_user",
				   .kind = HOOK_TRACEPOINT,
				   .targets = { "page_fault_user" } },
	[HOOK_TASK_NUMA_FAULT] = { .name = "task_numa_fault",
				   .kind = HOOK_FUNCTION,
				   .targets = { "task_numa_fault" } },
	/* Where the fault path names the VMA: renamed in 6.11. */
	HOOK_SPEC_FUNCTION(HOOK_HINT_VMA, "hint_vma", "numa_migrate_check",
			   "numa_migrate_prep"),
	HOOK_SPEC_FUNCTION(HOOK_TASK_NUMA_WORK, "task_numa_work", "task_numa_work"),
	HOOK_SPEC_FUNCTION(HOOK_CHANGE_PROT_NUMA, "change_prot_numa", "change_prot_numa"),
	HOOK_SPEC_TRACEPOINT(HOOK_SKIP_VMA, "sched_skip_vma_numa", "sched"),
	/* The classic flavour filters too: the event is about current. */
	[HOOK_MIGRATE_PAGES] = { .name = "mm_migrate_pages", .kind = HOOK_TRACEPOINT,
				 .targets = { "mm_migrate_pages" }, .category = "migrate",
				 .optional = true, .about_current = true },
	/* Renamed in 6.7. */
	HOOK_SPEC_FUNCTION(HOOK_MIGRATE_MISPLACED, "migrate_misplaced",
			   "migrate_misplaced_folio", "migrate_misplaced_page"),
	HOOK_SPEC_TRACEPOINT(HOOK_MOVE_NUMA, "sched_move_numa", "sched"),
	HOOK_SPEC_TRACEPOINT(HOOK_SWAP_NUMA, "sched_swap_numa", "sched"),
	HOOK_SPEC_TRACEPOINT(HOOK_STICK_NUMA, "sched_stick_numa", "sched"),
	/*
	 * Per-task fault estimates where task_numa_fault() cannot be hooked;
	 * no classic flavour (its record has no task_struct).
	 */
	[HOOK_SCHED_SWITCH] = { .name = "sched_switch", .kind = HOOK_TRACEPOINT,
				.targets = { "sched_switch" }, .optional = true,
				.redundant_with = HOOK_BIT(HOOK_TASK_NUMA_FAULT) },
	/* Renames a process row whose first event came before an exec. */
	[HOOK_PROCESS_EXEC] = { .name = "sched_process_exec", .kind = HOOK_TRACEPOINT,
				.targets = { "sched_process_exec" }, .optional = true },
	/* The page's node before a hint fault migrates it (migration_pairs). */
	HOOK_SPEC_FUNCTION(HOOK_MIGRATION_SOURCE, "migration_source",
			   "should_numa_migrate_memory"),
};

#define FAULTS HOOK_BIT(HOOK_TASK_NUMA_FAULT)
#define HINTS HOOK_BIT(HOOK_HINT_VMA)
#define SCANS HOOK_BIT(HOOK_TASK_NUMA_WORK)
#define PTES HOOK_BIT(HOOK_CHANGE_PROT_NUMA)
#define SKIPS HOOK_BIT(HOOK_SKIP_VMA)
#define MIGRATED HOOK_BIT(HOOK_MIGRATE_PAGES)
#define SWITCHES HOOK_BIT(HOOK_SCHED_SWITCH)
#define MIGRATION_SOURCES (FAULTS | HOOK_BIT(HOOK_MIGRATION_SOURCE))

#define COUNT(metric, slot, hook_set) { .name = metric, .counter = slot, .needs = hook_set }
#define SKIP(metric, reason) COUNT(metric, NUMASCAN_VMA_SKIPS_BY_REASON + (reason), SKIPS)
#define SKIP_AFTER(metric, reason)                                              \
	COUNT(metric, NUMASCAN_SKIPS_FAULTED_AFTER_BY_REASON + (reason), SKIPS | HINTS)
#define TIME_HIST(metric, slot, hook_set, what)                                \
	{ .name = metric, .counter = slot, .needs = hook_set,                  \
	  .nr_slots = NUMASCAN_TIME_SLOTS, .kind = HIST_LOG2, .has_sum = true, \
	  .unit = "nsecs", .help = what }
#define VMSTAT(metric, slot) { .name = metric, .counter = slot, .procfs = true }
/*
 * Where vmstat counts them (the VMA hook); else task_numa_fault()'s
 * count, which misses the faults that return early (an estimate).
 */
#define HINT(metric, slot, task_slot)                                          \
	{ .name = metric, .counter = slot, .needs = HINTS,                     \
	  .fallback_needs = FAULTS, .fallback_counter = task_slot }

static const struct metric_spec metrics[] = {
	COUNT("user_page_faults", NUMASCAN_USER_PAGE_FAULTS, HOOK_BIT(HOOK_PAGE_FAULT_USER)),
	HINT("numa_hint_faults", NUMASCAN_HINT_FAULTS, NUMASCAN_TASK_FAULTS),
	HINT("numa_hint_faults_local", NUMASCAN_HINT_FAULTS_LOCAL, NUMASCAN_TASK_FAULTS_LOCAL),
	HINT("numa_hint_faults_remote", NUMASCAN_HINT_FAULTS_REMOTE, NUMASCAN_TASK_FAULTS_REMOTE),
	COUNT("numa_task_faults", NUMASCAN_TASK_FAULTS, FAULTS),
	COUNT("numa_hint_faults_private", NUMASCAN_HINT_FAULTS_PRIVATE, FAULTS),
	COUNT("numa_hint_faults_shared", NUMASCAN_HINT_FAULTS_SHARED, FAULTS),
	/* task_numa_fault()'s, else the sched_switch estimate */
	{ .name = "numa_hint_fault_pages", .counter = NUMASCAN_HINT_FAULT_PAGES, .needs = FAULTS,
	  .fallback_needs = SWITCHES, .fallback_counter = NUMASCAN_SWITCH_FAULT_PAGES },
	{ .name = "numa_hint_fault_pages_local", .counter = NUMASCAN_HINT_FAULT_PAGES_LOCAL,
	  .needs = FAULTS, .fallback_needs = SWITCHES,
	  .fallback_counter = NUMASCAN_SWITCH_FAULT_PAGES_LOCAL },
	COUNT("numa_hint_faults_migrated", NUMASCAN_HINT_FAULTS_MIGRATED, FAULTS),
	COUNT("numa_hint_faults_migrate_failed", NUMASCAN_HINT_FAULTS_MIGRATE_FAILED, FAULTS),
	{ .name = "numa_hint_local_pct",
	  .ratio = { "numa_hint_faults_local", NULL, "numa_hint_faults" } },
	COUNT("numa_scan_work_calls", NUMASCAN_SCAN_WORK_CALLS, SCANS),
	COUNT("numa_scan_passes", NUMASCAN_SCAN_PASSES, SCANS),
	COUNT("numa_scan_chunks", NUMASCAN_SCAN_CHUNKS, PTES),
	COUNT("numa_pte_updates", NUMASCAN_PTE_UPDATES, PTES),
	COUNT("numa_pte_updates_unfaulted", NUMASCAN_PTE_UPDATES_UNFAULTED, PTES | HINTS),
	{ .name = "numa_pte_unfaulted_pct",
	  .ratio = { "numa_pte_updates_unfaulted", NULL, "numa_pte_updates" } },
	{ .name = "numa_pte_fault_pct",
	  .ratio = { "numa_hint_faults", NULL, "numa_pte_updates" } },
	COUNT("numa_vma_skips", NUMASCAN_VMA_SKIPS, SKIPS),
	SKIP("numa_vma_skips_unsuitable", NUMASCAN_SKIP_UNSUITABLE),
	SKIP("numa_vma_skips_shared_ro", NUMASCAN_SKIP_SHARED_RO),
	SKIP("numa_vma_skips_inaccessible", NUMASCAN_SKIP_INACCESSIBLE),
	SKIP("numa_vma_skips_scan_delay", NUMASCAN_SKIP_SCAN_DELAY),
	SKIP("numa_vma_skips_pid_inactive", NUMASCAN_SKIP_PID_INACTIVE),
	SKIP("numa_vma_skips_ignore_pid", NUMASCAN_SKIP_IGNORE_PID),
	SKIP("numa_vma_skips_seq_completed", NUMASCAN_SKIP_SEQ_COMPLETED),
	SKIP("numa_vma_skips_other", NUMASCAN_SKIP_OTHER),
	/* The scan decisions' audit: needs the faults' VMAs. */
	COUNT("numa_scans_audited", NUMASCAN_SCANS_AUDITED, PTES | HINTS),
	COUNT("numa_scans_unfaulted_after", NUMASCAN_SCANS_UNFAULTED_AFTER, PTES | HINTS),
	{ .name = "numa_scans_unfaulted_after_pct",
	  .ratio = { "numa_scans_unfaulted_after", NULL, "numa_scans_audited" } },
	COUNT("numa_skips_audited", NUMASCAN_SKIPS_AUDITED, SKIPS | HINTS),
	COUNT("numa_skips_faulted_after", NUMASCAN_SKIPS_FAULTED_AFTER, SKIPS | HINTS),
	SKIP_AFTER("numa_skips_faulted_after_unsuitable", NUMASCAN_SKIP_UNSUITABLE),
	SKIP_AFTER("numa_skips_faulted_after_shared_ro", NUMASCAN_SKIP_SHARED_RO),
	SKIP_AFTER("numa_skips_faulted_after_inaccessible", NUMASCAN_SKIP_INACCESSIBLE),
	SKIP_AFTER("numa_skips_faulted_after_scan_delay", NUMASCAN_SKIP_SCAN_DELAY),
	SKIP_AFTER("numa_skips_faulted_after_pid_inactive", NUMASCAN_SKIP_PID_INACTIVE),
	SKIP_AFTER("numa_skips_faulted_after_seq_completed", NUMASCAN_SKIP_SEQ_COMPLETED),
	SKIP_AFTER("numa_skips_faulted_after_other", NUMASCAN_SKIP_OTHER),
	{ .name = "numa_skips_faulted_after_pct",
	  .ratio = { "numa_skips_faulted_after", NULL, "numa_skips_audited" } },
	COUNT("numa_pages_migrated", NUMASCAN_PAGES_MIGRATED, MIGRATED),
	COUNT("numa_pages_migrate_failed", NUMASCAN_PAGES_MIGRATE_FAILED, MIGRATED),
	COUNT("numa_migrate_calls", NUMASCAN_MIGRATE_CALLS, HOOK_BIT(HOOK_MIGRATE_MISPLACED)),
	COUNT("numa_task_moves", NUMASCAN_TASK_MOVES, HOOK_BIT(HOOK_MOVE_NUMA)),
	COUNT("numa_task_swaps", NUMASCAN_TASK_SWAPS, HOOK_BIT(HOOK_SWAP_NUMA)),
	COUNT("numa_task_sticks", NUMASCAN_TASK_STICKS, HOOK_BIT(HOOK_STICK_NUMA)),
	COUNT("autonuma_cost", NUMASCAN_AUTONUMA_COST, FAULTS | PTES | MIGRATED),
	VMSTAT("vmstat_numa_hint_faults", NUMASCAN_VMSTAT_HINT_FAULTS),
	VMSTAT("vmstat_numa_hint_faults_local", NUMASCAN_VMSTAT_HINT_FAULTS_LOCAL),
	{ .name = "vmstat_numa_hint_local_pct",
	  .ratio = { "vmstat_numa_hint_faults_local", NULL, "vmstat_numa_hint_faults" } },
	VMSTAT("vmstat_numa_pte_updates", NUMASCAN_VMSTAT_PTE_UPDATES),
	VMSTAT("vmstat_numa_huge_pte_updates", NUMASCAN_VMSTAT_HUGE_PTE_UPDATES),
	VMSTAT("vmstat_numa_pages_migrated", NUMASCAN_VMSTAT_PAGES_MIGRATED),
	VMSTAT("vmstat_autonuma_cost", NUMASCAN_VMSTAT_AUTONUMA_COST),
	TIME_HIST("numa_scan_pass_ns", NUMASCAN_SCAN_PASS_HIST, SCANS,
		  "durations of the task_numa_work() runs that scanned, entry to exit"),
	TIME_HIST("numa_migrate_ns", NUMASCAN_MIGRATE_HIST, HOOK_BIT(HOOK_MIGRATE_MISPLACED),
		  "durations of the misplaced-page migrations, entry to exit"),
	TIME_HIST("numa_skip_fault_delay_ns", NUMASCAN_SKIP_FAULT_DELAY_HIST, SKIPS | HINTS,
		  "from a VMA's skip for a thread to that thread's next hint fault on it"),
};

/* ------------------------------------------------------------------ tables */

/*
 * Text shows the hint faults' pages: every tier has them (the tracepoint
 * tier as an estimate), where numa_hint_faults needs a function hook.
 */
static const struct table_column process_columns[] = {
	{ "numa_hint_fault_pages", "FLT_PAGES", 9, COLUMN_COUNT, NP_HINT_FAULT_PAGES, 0 },
	{ "local_pct", "LOCAL%", 6, COLUMN_PERCENT, NP_HINT_FAULT_PAGES_LOCAL, NP_HINT_FAULT_PAGES },
	{ "numa_hint_faults", NULL, 0, COLUMN_COUNT, NP_HINT_FAULTS, 0 },
	{ "numa_hint_faults_local", NULL, 0, COLUMN_COUNT, NP_HINT_FAULTS_LOCAL, 0 },
	{ "numa_hint_faults_migrated", "MIGRATED", 8, COLUMN_COUNT, NP_HINT_FAULTS_MIGRATED, 0 },
	{ "numa_scan_passes", "SCANS", 6, COLUMN_COUNT, NP_SCAN_PASSES, 0 },
	{ "numa_pte_updates", "PTE_UPD", 9, COLUMN_COUNT, NP_PTE_UPDATES, 0 },
	{ "numa_vma_skips", "SKIPS", 6, COLUMN_COUNT, NP_VMA_SKIPS, 0 },
	{ "user_page_faults", NULL, 0, COLUMN_COUNT, NP_USER_PAGE_FAULTS, 0 },
	{ "numa_hint_fault_pages_local", NULL, 0, COLUMN_COUNT, NP_HINT_FAULT_PAGES_LOCAL, 0 },
};

static const struct table_spec process_table = {
	.name = "processes", TABLE_BY_PROCESS,
	.source = TABLE_COUNTERS,
	.value_offset = offsetof(struct numascan_process, counts), .nr_values = NP_NR,
	.columns = process_columns, .nr_columns = ARRAY_SIZE(process_columns),
	.sort_value = NP_HINT_FAULT_PAGES, .text_rows = 10, .text_shown_counts_only = true,
	.drop_slot = NUMASCAN_PROCESS_DROPS,
};

static const struct table_key_field vma_keys[] = {
	{ .name = "tgid", .heading = "TGID", .offset = offsetof(struct numascan_vma_key, tgid),
	  .size = 4, .width = 8 },
	{ .name = "start", .heading = "START", .offset = offsetof(struct numascan_vma_key, start),
	  .size = 8, .width = 14 },
};
static const char *const vma_label_names[] = { "name", "end" };
static const char *const vma_label_headings[] = { "NAME", "END" };
static const int vma_label_widths[] = { 18, 0 };

static const struct table_column vma_columns[] = {
	{ "numa_scans", "SCANS", 5, COLUMN_COUNT, NV_SCANS, 0 },
	{ "numa_pte_updates", "PTE_UPD", 8, COLUMN_COUNT, NV_PTE_UPDATES, 0 },
	{ "numa_hint_faults", "FAULTS", 7, COLUMN_COUNT, NV_HINT_FAULTS, 0 },
	{ "numa_hint_faults_local", NULL, 0, COLUMN_COUNT, NV_HINT_FAULTS_LOCAL, 0 },
	{ "local_pct", "LOCAL%", 6, COLUMN_PERCENT, NV_HINT_FAULTS_LOCAL, NV_HINT_FAULTS },
	{ "numa_vma_skips", "SKIPS", 5, COLUMN_COUNT, NV_VMA_SKIPS, 0 },
	/* JSON only: the text table has no room left in 80 columns */
	{ "numa_scans_unfaulted", NULL, 0, COLUMN_COUNT, NV_SCANS_UNFAULTED, 0 },
	{ "numa_pte_updates_unfaulted", NULL, 0, COLUMN_COUNT, NV_PTE_UPDATES_UNFAULTED, 0 },
	{ "numa_faulting_tids", NULL, 0, COLUMN_COUNT, NV_FAULTING_TIDS, 0 },
	{ "numa_tid_hash_collisions", NULL, 0, COLUMN_COUNT, NV_TID_HASH_COLLISIONS, 0 },
	{ "numa_scans_unfaulted_after", NULL, 0, COLUMN_COUNT, NV_SCANS_UNFAULTED_AFTER, 0 },
	{ "numa_skips_faulted_after", NULL, 0, COLUMN_COUNT, NV_SKIPS_FAULTED_AFTER, 0 },
};

struct numascan {
	/* Mappings of the processes in the vmas table, read while they live. */
	struct procmaps_cache maps;
	pthread_mutex_t maps_lock;
	pthread_t namer;
	struct map_dump names;	/* the naming thread's copy of the VMA map */
	/* The naming thread's stop flag and its wake-up, under stop_lock. */
	pthread_mutex_t stop_lock;
	pthread_cond_t stop_cond;
	bool stop_naming, naming;
	struct vmstat_numa vmstat_start, vmstat_last;
	bool have_vmstat;
	/* numa_hint_faults from the VMA hook, else from task_numa_fault() */
	unsigned int hint_counter;
};

/* The name of a VMA row's mapping: start 0 holds the faults without a VMA. */
static void vma_name(struct numascan *ns, const struct numascan_vma_key *k, char *out,
		     size_t len)
{
	if (!k->start) {
		snprintf(out, len, "?");
		return;
	}
	pthread_mutex_lock(&ns->maps_lock);
	procmaps_name(&ns->maps, k->tgid, k->start, out, len);
	pthread_mutex_unlock(&ns->maps_lock);
}

/*
 * Reads the maps of every process with a VMA row twice a second, so that
 * a process that exits before the next report still gets its names (the
 * reports may be minutes apart, or only the summary).
 */
static void *name_vmas(void *arg)
{
	struct numascan *ns = arg;
	bool stop = false;

	while (!stop) {
		char name[TABLE_LABEL_LEN];
		struct timespec until;

		/* A batch copy, as the tables read (no key-by-key walk). */
		if (!map_dump_read(&ns->names))
			for (__u32 i = 0; i < ns->names.count; i++)
				vma_name(ns, map_dump_key(&ns->names, i), name, sizeof(name));
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += 500 * 1000 * 1000;
		if (until.tv_nsec >= 1000 * 1000 * 1000) {
			until.tv_sec++;
			until.tv_nsec -= 1000 * 1000 * 1000;
		}
		pthread_mutex_lock(&ns->stop_lock);
		if (!ns->stop_naming)
			pthread_cond_timedwait(&ns->stop_cond, &ns->stop_lock, &until);
		stop = ns->stop_naming;
		pthread_mutex_unlock(&ns->stop_lock);
	}
	return NULL;
}

/* A VMA's mapping name (resolved while the process lives) and its end. */
static void vma_labels(void *ctx, const void *key, const struct map_dump *d,
		       unsigned int i, char (*out)[TABLE_LABEL_LEN])
{
	const struct numascan_vma_key *k = key;
	struct numascan *ns = ctx;

	if (!out[0][0])
		vma_name(ns, k, out[0], TABLE_LABEL_LEN);
	if (d && !out[1][0]) {
		const struct numascan_vma *v = map_dump_value(d, i, 0);

		snprintf(out[1], TABLE_LABEL_LEN, "0x%llx", (unsigned long long)v->end);
	}
}

static const struct table_spec vma_table = {
	.name = "vmas", .row = "vma", .keys = vma_keys, .nr_keys = ARRAY_SIZE(vma_keys),
	.label_names = vma_label_names, .label_headings = vma_label_headings,
	.label_widths = vma_label_widths, .nr_labels = ARRAY_SIZE(vma_label_names),
	.labels = vma_labels, .source = TABLE_COUNTERS,
	.value_offset = offsetof(struct numascan_vma, counts), .nr_values = NV_NR,
	.columns = vma_columns, .nr_columns = ARRAY_SIZE(vma_columns),
	.sort_value = NV_PTE_UPDATES, .text_rows = 10, .drop_slot = NUMASCAN_VMA_DROPS,
};

static const struct table_key_field node_pair_keys[] = {
	{ .name = "cpu_node", .heading = "CPU_NODE",
	  .offset = offsetof(struct numascan_node_pair_key, cpu_node), .size = 4, .width = 8 },
	{ .name = "mem_node", .heading = "MEM_NODE",
	  .offset = offsetof(struct numascan_node_pair_key, mem_node), .size = 4, .width = 8 },
};

static const struct table_column node_pair_columns[] = {
	{ "numa_task_faults", "FAULTS", 10, COLUMN_COUNT, NN_TASK_FAULTS, 0 },
	{ "numa_hint_fault_pages", "PAGES", 10, COLUMN_COUNT, NN_TASK_FAULT_PAGES, 0 },
	{ "numa_hint_faults_migrated", "MIGRATED", 10, COLUMN_COUNT, NN_TASK_FAULTS_MIGRATED, 0 },
};

static const struct table_spec node_pair_table = {
	.name = "node_pairs", .row = "node_pair", .keys = node_pair_keys,
	.nr_keys = ARRAY_SIZE(node_pair_keys), .source = TABLE_COUNTERS,
	.value_offset = offsetof(struct numascan_node_pair, counts), .nr_values = NN_NR,
	.columns = node_pair_columns, .nr_columns = ARRAY_SIZE(node_pair_columns),
	.sort_value = -1, .drop_slot = NUMASCAN_NODE_PAIR_DROPS,
};

static const struct table_key_field migration_pair_keys[] = {
	{ .name = "from_node", .heading = "FROM_NODE",
	  .offset = offsetof(struct numascan_migration_pair_key, from_node), .size = 4,
	  .is_signed = true, .width = 9 },
	{ .name = "to_node", .heading = "TO_NODE",
	  .offset = offsetof(struct numascan_migration_pair_key, to_node), .size = 4,
	  .is_signed = true, .width = 8 },
};

static const struct table_column migration_pair_columns[] = {
	{ "numa_hint_faults_migrated", "MIGRATED", 10, COLUMN_COUNT, NM_HINT_FAULTS_MIGRATED, 0 },
	{ "numa_hint_fault_pages_migrated", "PAGES", 10, COLUMN_COUNT,
	  NM_HINT_FAULT_PAGES_MIGRATED, 0 },
	{ "numa_migration_ns", "MIGRATE_MS", 11, COLUMN_DURATION, NM_MIGRATION_NS, 0 },
	{ "numa_migration_mean_ns", "MEAN_NS", 10, COLUMN_MEAN, NM_MIGRATION_NS,
	  NM_HINT_FAULTS_MIGRATED },
};

static const struct table_spec migration_pair_table = {
	.name = "migration_pairs", .row = "migration_pair", .keys = migration_pair_keys,
	.nr_keys = ARRAY_SIZE(migration_pair_keys), .source = TABLE_COUNTERS,
	.value_offset = offsetof(struct numascan_migration_pair, counts), .nr_values = NM_NR,
	.columns = migration_pair_columns, .nr_columns = ARRAY_SIZE(migration_pair_columns),
	.sort_value = -1, .drop_slot = NUMASCAN_MIGRATION_PAIR_DROPS,
};

/* ------------------------------------------------- vmstat and AutoNUMA cost */

/*
 * mmtests' weights (MonitorMmtestsvmstat.pm, docs/metrics.md) with the
 * page copy its code computes and then drops: per PTE update, per hint
 * fault, per page migrated (19 + 519).
 */
static unsigned long long autonuma_cost(unsigned long long pte_updates,
					unsigned long long hint_faults,
					unsigned long long pages_migrated)
{
	return 7 * pte_updates + 5000 * hint_faults + 538 * pages_migrated;
}

static int read_vmstat(struct vmstat_numa *out)
{
	struct vmstat s;

	if (vmstat_read(NULL, &s, NULL, 0))
		return -1;
	vmstat_numa_fill(&s, out);
	vmstat_free(&s);
	return 0;
}

static int numascan_start(void *ctx)
{
	struct numascan *ns = ctx;

	ns->have_vmstat = !read_vmstat(&ns->vmstat_start);
	ns->vmstat_last = ns->vmstat_start;
	return 0;
}

static void numascan_adjust(void *ctx, unsigned long long *counts)
{
	struct numascan *ns = ctx;
	const struct vmstat_numa *a = &ns->vmstat_start, *b = &ns->vmstat_last;
	struct vmstat_numa now;

	counts[NUMASCAN_AUTONUMA_COST] = autonuma_cost(counts[NUMASCAN_PTE_UPDATES],
						       counts[ns->hint_counter],
						       counts[NUMASCAN_PAGES_MIGRATED]);
	if (!ns->have_vmstat)
		return;
	/* A failed read keeps the last one: the next window takes its events. */
	if (!read_vmstat(&now))
		ns->vmstat_last = now;
	counts[NUMASCAN_VMSTAT_HINT_FAULTS] = b->numa_hint_faults - a->numa_hint_faults;
	counts[NUMASCAN_VMSTAT_HINT_FAULTS_LOCAL] =
		b->numa_hint_faults_local - a->numa_hint_faults_local;
	counts[NUMASCAN_VMSTAT_PTE_UPDATES] = b->numa_pte_updates - a->numa_pte_updates;
	counts[NUMASCAN_VMSTAT_HUGE_PTE_UPDATES] =
		b->numa_huge_pte_updates - a->numa_huge_pte_updates;
	counts[NUMASCAN_VMSTAT_PAGES_MIGRATED] =
		b->numa_pages_migrated - a->numa_pages_migrated;
	counts[NUMASCAN_VMSTAT_AUTONUMA_COST] =
		autonuma_cost(counts[NUMASCAN_VMSTAT_PTE_UPDATES],
			      counts[NUMASCAN_VMSTAT_HINT_FAULTS],
			      counts[NUMASCAN_VMSTAT_PAGES_MIGRATED]);
}

/* ------------------------------------------------------------------- main */

/*
 * task_numa_fault()'s "no access recorded" cpupid, -1 & LAST_CPUPID_MASK:
 * LAST_CPUPID_SHIFT is 8 pid bits plus NR_CPUS_BITS, which
 * kernel/bounds.c defines as order_base_2(CONFIG_NR_CPUS). 0 when the
 * config is not readable: the BPF side then applies the pid rule alone.
 */
static __u32 cpupid_unset_value(void)
{
	long nr_cpus;
	int bits = 0;

	if (kernel_config_value("CONFIG_NR_CPUS", &nr_cpus) || nr_cpus < 1 ||
	    nr_cpus > (1L << 22))
		return 0;
	while ((1L << bits) < nr_cpus)
		bits++;
	return (__u32)((1ULL << (8 + bits)) - 1);
}

static const char doc[] =
	"Trace NUMA balancing: hint faults, VMA scanning, migrations.\n"
	"\n"
	"EXAMPLES:\n"
	"    numascan              # count until Ctrl-C\n"
	"    numascan -p 185 1     # process 185, 1-second reports\n"
	"    numascan --top 20 -d 10  # 20 VMAs and processes, 10 seconds\n"
	"    numascan --json -d 10\n"
	"\n"
	"-p, --comm and -c select the faulting (or scanning) task; -C the CPU.";

int main(int argc, char **argv)
{
	struct numascan ns = { .hint_counter = NUMASCAN_TASK_FAULTS };
	struct tool_desc desc = {
		.name = "numascan",
		.what = "NUMA hint faults, scanning and migrations",
		.hooks = hooks,
		.nr_hooks = NR_HOOKS,
		.metrics = metrics,
		.nr_metrics = ARRAY_SIZE(metrics),
		.nr_counters = NUMASCAN_NR_COUNTERS,
		.adjust = numascan_adjust,
		.start = numascan_start,
		.ctx = &ns,
	};
	struct table processes, vmas, node_pairs, migration_pairs;
	struct common_opts opts;
	struct numascan_bpf *obj;
	const struct hook *hint_vma;
	const char *fault_tier;
	bool vma_rows;
	char param[64];
	int flags_arg;
	struct tool tool;
	int ret = 1;

	parse_tool_args(argc, argv, doc, &opts);
	if (opts.compare)
		return compare_from_opts(desc.name, &opts);
	if (preflight(desc.name, &opts))
		return 1;
	obj = numascan_bpf__open_opts(tool_open_opts(&opts));
	if (!obj) {
		fprintf(stderr, "numascan: opening the BPF object failed\n");
		return 1;
	}
	procmaps_cache_init(&ns.maps, NULL);
	pthread_mutex_init(&ns.maps_lock, NULL);
	pthread_mutex_init(&ns.stop_lock, NULL);
	pthread_cond_init(&ns.stop_cond, NULL);
	selection_from_opts(&obj->rodata->schedscan_filter, &opts);
	obj->rodata->cpupid_unset = cpupid_unset_value();
	obj->rodata->tool_start_ns = monotonic_ns();
	obj->rodata->migrate_reason_arg =
		kernel_struct_member_offset("trace_event_raw_mm_migrate_pages",
					    "large_folio_split") >= 0 ? 7 : 6;
	if (tool_init(&tool, &desc, &opts) || tool_choose_hooks(&tool, obj->obj))
		goto out;
	/* numa_migrate_prep(page, vma, addr, nid, flags) or _check(folio, vmf, addr, flags) */
	hint_vma = tool_hook(&tool, HOOK_HINT_VMA);
	if (hint_vma->flavour != FLAVOUR_NONE) {
		obj->rodata->hint_at_prep = true;
		ns.hint_counter = NUMASCAN_HINT_FAULTS;
		if (!kernel_func_param_struct(hint_vma->target, 1, param, sizeof(param)))
			obj->rodata->hint_vma_in_vmf = !strcmp(param, "vm_fault");
		/* Read where the kernel's BTF puts it; without BTF, as on 6.1 and 6.12. */
		flags_arg = kernel_func_param_index(hint_vma->target, "flags");
		if (flags_arg < 0)
			flags_arg = obj->rodata->hint_vma_in_vmf ? 3 : 4;
		if (flags_arg != 3 && flags_arg != 4) {
			fprintf(stderr,
				"numascan: %s() takes its TNF_* flags as parameter %d; this numascan reads them only as the 4th or 5th\n",
				hint_vma->target, flags_arg + 1);
			goto out;
		}
		obj->rodata->hint_flags_arg = flags_arg;
	}
	obj->rodata->sample_task_faults = tool_has_hooks(&tool, SWITCHES);
	obj->rodata->migration_sources = tool_has_hooks(&tool, MIGRATION_SOURCES);
	fault_tier = tool_tier(&tool, FAULTS);
	if (tool_load(&tool, obj->skeleton, obj->maps.counters) ||
	    tool_add_table(&tool, &processes, &process_table, obj->maps.process_counters,
			   obj->maps.table_drops, NULL,
			   tool_tier(&tool, (1U << NR_HOOKS) - 1), false))
		goto out;
	/* VMA rows from whichever of faults, scans and skips is traced. */
	vma_rows = tool_has_hooks(&tool, HINTS) || tool_has_hooks(&tool, FAULTS) ||
		   tool_has_hooks(&tool, PTES) || tool_has_hooks(&tool, SKIPS);
	if (!vma_rows)
		tool_table_unavailable(&tool, vma_table.name, HINTS);
	else if (tool_add_table(&tool, &vmas, &vma_table, obj->maps.vma_counters,
				obj->maps.table_drops, &ns,
				tool_tier(&tool, HINTS | FAULTS | PTES | SKIPS), false))
		goto out;
	if (!tool_has_hooks(&tool, FAULTS))
		tool_table_unavailable(&tool, node_pair_table.name, FAULTS);
	else if (tool_add_table(&tool, &node_pairs, &node_pair_table,
				obj->maps.node_pair_counters, obj->maps.table_drops, NULL,
				fault_tier, false))
		goto out;
	if (!tool_has_hooks(&tool, MIGRATION_SOURCES))
		tool_table_unavailable(&tool, migration_pair_table.name, MIGRATION_SOURCES);
	else if (tool_add_table(&tool, &migration_pairs, &migration_pair_table,
				obj->maps.migration_pair_counters, obj->maps.table_drops, NULL,
				tool_tier(&tool, MIGRATION_SOURCES), false))
		goto out;
	if (opts.list_metrics) {
		ret = tool_list_metrics(&tool);
		goto out;
	}
	if (tool_attach(&tool))
		goto out;
	if (vma_rows) {
		if (map_dump_init(&ns.names, bpf_map__fd(obj->maps.vma_counters)) ||
		    run_start_thread(&ns.namer, name_vmas, &ns)) {
			fprintf(stderr, "numascan: starting the VMA naming thread failed\n");
			goto out;
		}
		ns.naming = true;
	}
	ret = tool_run(&tool);
out:
	if (ns.naming) {
		pthread_mutex_lock(&ns.stop_lock);
		ns.stop_naming = true;
		pthread_cond_signal(&ns.stop_cond);
		pthread_mutex_unlock(&ns.stop_lock);
		pthread_join(ns.namer, NULL);
	}
	map_dump_free(&ns.names);
	tool_destroy(&tool);
	numascan_bpf__destroy(obj);
	procmaps_cache_free(&ns.maps);
	pthread_mutex_destroy(&ns.maps_lock);
	pthread_mutex_destroy(&ns.stop_lock);
	pthread_cond_destroy(&ns.stop_cond);
	return ret;
}
