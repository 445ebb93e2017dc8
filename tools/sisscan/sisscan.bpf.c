// SPDX-License-Identifier: GPL-2.0
/*
 * sisscan BPF side. Every hook exists once per flavour (tp_btf, raw_tp,
 * classic tracepoint; fentry, kprobe) and user space loads only the
 * flavour the chosen tier allows: see lib/hooks.c for the naming rule
 * "<hook>__<flavour>".
 */
#include "schedscan.bpf.h"
#include "sisscan.h"

SCHEDSCAN_COUNTER_MAP(counters, SISSCAN_NR_COUNTERS);

static __always_inline int count_wakeup(struct task_struct *wakee)
{
	if (!cpu_selected(bpf_get_smp_processor_id()) || !task_selected(wakee))
		return 0;
	counter_add(&counters, SISSCAN_WAKEUPS, 1);
	return 0;
}

SEC("tp_btf/sched_waking")
int BPF_PROG(sched_waking__tp_btf, struct task_struct *wakee)
{
	return count_wakeup(wakee);
}

SEC("raw_tp/sched_waking")
int BPF_PROG(sched_waking__raw_tp, struct task_struct *wakee)
{
	return count_wakeup(wakee);
}

/*
 * The classic tracepoint carries no task pointer, so user space never
 * picks this flavour when a task filter is set (lib/hooks.c).
 */
SEC("tracepoint/sched/sched_waking")
int sched_waking__tp(void *ctx)
{
	if (!cpu_selected(bpf_get_smp_processor_id()))
		return 0;
	counter_add(&counters, SISSCAN_WAKEUPS, 1);
	return 0;
}

static __always_inline int count_select(struct task_struct *wakee)
{
	if (!cpu_selected(bpf_get_smp_processor_id()) || !task_selected(wakee))
		return 0;
	counter_add(&counters, SISSCAN_SELECT_CALLS, 1);
	return 0;
}

SEC("fentry/select_task_rq_fair")
int BPF_PROG(select_task_rq_fair__fentry, struct task_struct *wakee)
{
	return count_select(wakee);
}

SEC("kprobe/select_task_rq_fair")
int BPF_KPROBE(select_task_rq_fair__kprobe, struct task_struct *wakee)
{
	return count_select(wakee);
}
