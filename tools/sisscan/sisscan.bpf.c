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

TRACEPOINT_HOOK(sched_waking, count_wakeup(wakee), struct task_struct *wakee)

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

/*
 * kernel/sched/sched.h: the wakeup flags are #defines, not in BTF; WF_TTWU
 * has been 0x08 since it was added in 5.8 (6.1, 6.12 and 6.18 included).
 */
#define WF_TTWU 0x08

/*
 * One select_task_rq_fair() call in flight per CPU: try_to_wake_up()
 * holds p->pi_lock with interrupts off, so calls never nest on a CPU.
 */
struct select_state {
	__u64 start_ns;
	__u32 idle_probes;
	__u32 active;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct select_state);
} select_states SEC(".maps");

static __always_inline struct select_state *this_select_state(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&select_states, &zero);
}

static __always_inline int select_enter(struct task_struct *wakee,
					int wake_flags)
{
	struct select_state *state;

	if (!cpu_selected(bpf_get_smp_processor_id()) || !task_selected(wakee))
		return 0;
	counter_add(&counters, SISSCAN_SELECT_CALLS, 1);
	/* Fork and exec balancing (WF_FORK, WF_EXEC) do not run SIS. */
	if (!(wake_flags & WF_TTWU))
		return 0;
	state = this_select_state();
	if (!state)
		return 0;
	state->active = 1;
	state->idle_probes = 0;
	state->start_ns = bpf_ktime_get_ns();
	return 0;
}

/* available_idle_cpu() returned: count it if a selected wakeup is in flight. */
static __always_inline int idle_probe_seen(void)
{
	struct select_state *state = this_select_state();

	if (state && state->active)
		state->idle_probes++;
	return 0;
}

static __always_inline int select_exit(void)
{
	struct select_state *state = this_select_state();
	__u32 probes_slot, time_slot;
	__u64 elapsed;

	if (!state || !state->active)
		return 0;
	elapsed = bpf_ktime_get_ns() - state->start_ns;
	state->active = 0;
	counter_add(&counters, SISSCAN_SIS_SEARCH, 1);
	counter_add(&counters, SISSCAN_IDLE_PROBES, state->idle_probes);
	probes_slot = state->idle_probes;
	if (probes_slot >= SISSCAN_PROBE_SLOTS)
		probes_slot = SISSCAN_PROBE_SLOTS - 1;
	counter_add(&counters, SISSCAN_PROBES_HIST + probes_slot, 1);
	time_slot = log2_slot(elapsed);
	if (time_slot >= SISSCAN_TIME_SLOTS)
		time_slot = SISSCAN_TIME_SLOTS - 1;
	counter_add(&counters, SISSCAN_TIME_HIST + time_slot, 1);
	return 0;
}

SEC("fentry/select_task_rq_fair")
int BPF_PROG(select_task_rq_fair__fentry, struct task_struct *wakee,
	     int prev_cpu, int wake_flags)
{
	return select_enter(wakee, wake_flags);
}

SEC("fexit/select_task_rq_fair")
int BPF_PROG(select_task_rq_fair__fexit)
{
	return select_exit();
}

SEC("kprobe/select_task_rq_fair")
int BPF_KPROBE(select_task_rq_fair__kprobe, struct task_struct *wakee,
	       int prev_cpu, int wake_flags)
{
	return select_enter(wakee, wake_flags);
}

SEC("kretprobe/select_task_rq_fair")
int BPF_KRETPROBE(select_task_rq_fair__kretprobe)
{
	return select_exit();
}

SEC("fexit/available_idle_cpu")
int BPF_PROG(available_idle_cpu__fexit)
{
	return idle_probe_seen();
}

SEC("kretprobe/available_idle_cpu")
int BPF_KRETPROBE(available_idle_cpu__kretprobe)
{
	return idle_probe_seen();
}
