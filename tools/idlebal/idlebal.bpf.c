// SPDX-License-Identifier: GPL-2.0
/*
 * idlebal BPF side: one program per flavour and hook, named
 * "<hook>__<flavour>" for lib/hooks.c. load_balance() was renamed
 * sched_balance_rq() in 6.10; user space retargets the fentry program
 * and the kprobe to whichever the kernel has.
 */
#include "schedscan.bpf.h"
#include "table.bpf.h"
#include "idlebal.h"

SCHEDSCAN_COUNTER_MAP(counters, IDLEBAL_NR_COUNTERS);

/* Keyed by CPU; sized to nr_cpu_ids by user space. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct idlebal_cpu);
} cpu_states SEC(".maps");

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

/*
 * A CPU is idle while it runs its idle task (pid 0): from the switch to
 * it to the switch away. Only that CPU switches its own tasks, so the
 * duration has a single writer. Per CPU, so only -C applies.
 */
static __always_inline int note_switch(__u32 next_pid)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct idlebal_cpu *state;
	__u64 ended;

	if (!cpu_selected(cpu))
		return 0;
	state = bpf_map_lookup_elem(&cpu_states, &cpu);
	if (!state)
		return 0;
	ended = duration_set(&state->idle, next_pid == 0, bpf_ktime_get_ns());
	if (ended)
		hist_record(&counters, IDLEBAL_IDLE_EPISODE_HIST, IDLEBAL_TIME_SLOTS,
			    log2_slot(ended), ended);
	return 0;
}

TRACEPOINT_HOOK(sched_switch, note_switch(BPF_CORE_READ(next, pid)), bool preempt,
		struct task_struct *prev, struct task_struct *next)

SEC("tracepoint/sched/sched_switch")
int sched_switch__tp(struct trace_event_raw_sched_switch *ctx)
{
	return note_switch(BPF_CORE_READ(ctx, next_pid));
}
