// SPDX-License-Identifier: GPL-2.0
/*
 * numascan BPF side: one program per flavour and hook, named
 * "<hook>__<flavour>" for lib/hooks.c. All three hooks run in the
 * context of the task whose memory is concerned, so current is the
 * task the filters select.
 */
#include "schedscan.bpf.h"
#include "table.bpf.h"
#include "numascan.h"

SCHEDSCAN_COUNTER_MAP(counters, NUMASCAN_NR_COUNTERS);

/*
 * Not per-CPU: a per-CPU hash would cost max_entries x CPUs of memory
 * (100 MB on a 256-CPU host); rows of one process are rarely written by
 * two CPUs at once, so atomic adds are cheap here.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, NUMASCAN_MAX_PROCESSES);
	__type(key, __u32);
	__type(value, struct numascan_process);
} process_counters SEC(".maps");

static __always_inline void count_process(__u32 bank, struct task_struct *task,
					  __u32 counter)
{
	struct numascan_process zero = {}, *row;
	__u32 tgid = BPF_CORE_READ(task, tgid);

	if (!bank)
		return;
	row = bpf_map_lookup_elem(&process_counters, &tgid);
	if (!row) {
		BPF_CORE_READ_STR_INTO(&zero.comm, task, group_leader, comm);
		row = table_row_if(bank, &process_counters, &tgid, &zero,
				   NUMASCAN_PROCESS_DROPS);
	}
	if (row && counter < NP_NR && !mutation_drops())
		__sync_fetch_and_add(&row->counts[SCHEDSCAN_SLOT(counter, bank)], 1);
}

static __always_inline int count_for_current(__u32 counter, int process_counter)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	__u32 bank = counting();

	if (!cpu_selected(bpf_get_smp_processor_id()) || !task_selected(task))
		return 0;
	counter_add_if(bank, &counters, counter, 1);
	if (process_counter >= 0)
		count_process(bank, task, process_counter);
	return 0;
}

/* x86's exceptions:page_fault_user; no classic flavour (no vmlinux type). */
TRACEPOINT_HOOK(page_fault_user,
		count_for_current(NUMASCAN_USER_PAGE_FAULTS, NP_USER_PAGE_FAULTS))

TRACEPOINT_HOOK(sched_skip_vma_numa, count_for_current(NUMASCAN_VMA_SKIPS, NP_VMA_SKIPS))

SEC("fentry/task_numa_fault")
int BPF_PROG(task_numa_fault__fentry)
{
	return count_for_current(NUMASCAN_HINT_FAULTS, -1);
}

SEC("kprobe/task_numa_fault")
int BPF_KPROBE(task_numa_fault__kprobe)
{
	return count_for_current(NUMASCAN_HINT_FAULTS, -1);
}
