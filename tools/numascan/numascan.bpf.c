// SPDX-License-Identifier: GPL-2.0
/*
 * numascan BPF side: one program per flavour and hook, named
 * "<hook>__<flavour>" for lib/hooks.c. All three hooks run in the
 * context of the task whose memory is concerned, so current is the
 * task the filters select.
 */
#include "schedscan.bpf.h"
#include "numascan.h"

SCHEDSCAN_COUNTER_MAP(counters, NUMASCAN_NR_COUNTERS);

static __always_inline int count_for_current(__u32 counter)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();

	if (!cpu_selected(bpf_get_smp_processor_id()) || !task_selected(task))
		return 0;
	counter_add(&counters, counter, 1);
	return 0;
}

/* x86's exceptions:page_fault_user; no classic flavour (no vmlinux type). */
TRACEPOINT_HOOK(page_fault_user, count_for_current(NUMASCAN_USER_PAGE_FAULTS))

TRACEPOINT_HOOK(sched_skip_vma_numa, count_for_current(NUMASCAN_VMA_SKIPS))

SEC("fentry/task_numa_fault")
int BPF_PROG(task_numa_fault__fentry)
{
	return count_for_current(NUMASCAN_HINT_FAULTS);
}

SEC("kprobe/task_numa_fault")
int BPF_KPROBE(task_numa_fault__kprobe)
{
	return count_for_current(NUMASCAN_HINT_FAULTS);
}
