// SPDX-License-Identifier: GPL-2.0
/*
 * idlebal BPF side: one program per flavour and hook, named
 * "<hook>__<flavour>" for lib/hooks.c. load_balance() was renamed
 * sched_balance_rq() in 6.10; user space retargets the fentry program
 * and the kprobe to whichever the kernel has.
 */
#include "schedscan.bpf.h"
#include "idlebal.h"

SCHEDSCAN_COUNTER_MAP(counters, IDLEBAL_NR_COUNTERS);

static __always_inline int count_migration(struct task_struct *task,
					   int dest_cpu)
{
	if (!cpu_selected(dest_cpu) || !task_selected(task))
		return 0;
	counter_add(&counters, IDLEBAL_MIGRATIONS, 1);
	return 0;
}

TRACEPOINT_HOOK(sched_migrate_task, count_migration(task, dest_cpu),
		struct task_struct *task, int dest_cpu)

/* No task filter here: user space skips this flavour when one is set. */
SEC("tracepoint/sched/sched_migrate_task")
int sched_migrate_task__tp(struct trace_event_raw_sched_migrate_task *ctx)
{
	if (!cpu_selected(BPF_CORE_READ(ctx, dest_cpu)))
		return 0;
	counter_add(&counters, IDLEBAL_MIGRATIONS, 1);
	return 0;
}

/* Balancing is per CPU, not per task: only -C applies (to this_cpu). */
static __always_inline int count_load_balance(int this_cpu)
{
	if (!cpu_selected(this_cpu))
		return 0;
	counter_add(&counters, IDLEBAL_LOAD_BALANCE_CALLS, 1);
	return 0;
}

SEC("fentry/sched_balance_rq")
int BPF_PROG(load_balance__fentry, int this_cpu)
{
	return count_load_balance(this_cpu);
}

SEC("kprobe/sched_balance_rq")
int BPF_KPROBE(load_balance__kprobe, int this_cpu)
{
	return count_load_balance(this_cpu);
}
