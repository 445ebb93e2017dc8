// SPDX-License-Identifier: GPL-2.0
/*
 * sisscan BPF side. Every hook exists once per flavour (tp_btf, raw_tp,
 * classic tracepoint; fentry, kprobe) and user space loads only the
 * flavour the chosen tier allows: see lib/hooks.c for the naming rule
 * "<hook>__<flavour>".
 *
 * fentry/kprobe tiers: select_task_rq_fair() entry and exit bracket one
 * wakeup placement; the available_idle_cpu() and cpus_share_cache() calls
 * in between feed the SIS decoder (lib/bpf/sis_decode.h).
 * Tracepoint tier: sched_waking remembers the wakee's prev, waker and
 * recent CPUs; sched_migrate_task or sched_wakeup names the chosen CPU.
 * Both check the chosen CPU against the runqueues at that instant.
 */
#include "schedscan.bpf.h"
#include "rq.bpf.h"
#include "sisscan.h"

/* Set by user space before load. The tracepoint-tier placement estimate runs (no select hook). */
const volatile bool tp_placement = false;

SCHEDSCAN_COUNTER_MAP(counters, SISSCAN_NR_COUNTERS);

/* SMT core index of each CPU (from sysfs; -1 unknown): S7's siblings. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SCHEDSCAN_MAX_CPUS);
	__type(key, __u32);
	__type(value, __s32);
} smt_core SEC(".maps");

static __always_inline void count_slot(__u32 base, __u32 value, __u32 nr_slots)
{
	if (value >= nr_slots)
		value = nr_slots - 1;
	counter_add(&counters, base + value, 1);
}

static __always_inline bool same_core(int a, int b)
{
	__u32 ka = a, kb = b;
	__s32 *ca, *cb;

	if (a == b)
		return true;
	ca = bpf_map_lookup_elem(&smt_core, &ka);
	cb = bpf_map_lookup_elem(&smt_core, &kb);
	return ca && cb && *ca >= 0 && *ca == *cb;
}

/*
 * One pass over LLC(chosen) & the task's allowed CPUs, a CPU per
 * bpf_loop() step (one verification of the body, whatever the LLC
 * size): is any other CPU unoccupied (missed idle), and where does
 * chosen sit in for_each_cpu_wrap(target + 1) order (the domain scan's
 * visiting order; target < 0: not wanted).
 */
struct llc_walk {
	struct task_struct *p;
	__u32 first;
	int chosen, target;
	bool find_unoccupied, found;
	__u32 depth;
};

static __always_inline __u32 wrap_position(int cpu, int target)
{
	__u32 span = nr_cpu_words * 64;

	return ((__u32)cpu + span - (__u32)target - 1) % span;
}

static long llc_walk_cpu(__u64 index, void *ctx)
{
	struct llc_walk *walk = ctx;
	int cpu = llc_cpu_at(walk->first, index);

	if (cpu < 0)
		return 1;
	if (!task_allows_cpu(walk->p, cpu))
		return 0;
	if (walk->target >= 0 &&
	    wrap_position(cpu, walk->target) <= wrap_position(walk->chosen, walk->target))
		walk->depth++;
	if (walk->find_unoccupied && !walk->found && cpu != walk->chosen &&
	    cpu_unoccupied(cpu))
		walk->found = true;
	return walk->found && walk->target < 0;
}

struct placement {
	bool chosen_unoccupied, missed_idle;
	__u32 depth;		/* chosen's wrap position from target + 1 */
};

/*
 * enqueued: the wakee is already on chosen's runqueue (sched_wakeup), so
 * it does not count against chosen being unoccupied.
 */
static __always_inline void check_placement(struct task_struct *p, int chosen,
					    int target, bool enqueued,
					    struct placement *out)
{
	struct llc_walk walk = { .p = p, .chosen = chosen, .target = target };
	unsigned int wakee_idle = enqueued && BPF_CORE_READ(p, policy) == SCHED_IDLE;
	struct rq *rq = cpu_rq_of(chosen);

	out->chosen_unoccupied = rq && rq_unoccupied(rq, enqueued, wakee_idle);
	out->missed_idle = false;
	out->depth = 0;
	if (out->chosen_unoccupied && target < 0)
		return;
	if (llc_of(chosen) < 0)
		return;
	walk.first = llc_first_index(chosen);
	walk.find_unoccupied = !out->chosen_unoccupied;
	bpf_loop(llc_weight(chosen), llc_walk_cpu, &walk, 0);
	out->missed_idle = walk.found;
	out->depth = walk.depth;
}

static __always_inline int count_wakeup(struct task_struct *wakee);

TRACEPOINT_HOOK(sched_waking, count_wakeup(wakee), struct task_struct *wakee)

/*
 * The classic tracepoint carries no task pointer, so user space never
 * picks this flavour when a task filter is set (lib/hooks.c), and it
 * cannot start a placement estimate.
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
	struct sis_decoder decoder;
	struct task_struct *wakee;
	__u64 start_ns;
	int probe_cpu;		/* kprobe tier: argument saved at entry */
	int share_a, share_b;
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

static __always_inline int select_enter(struct task_struct *wakee, int prev_cpu,
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
	sis_decode_begin(&state->decoder, bpf_get_smp_processor_id(), prev_cpu,
			 BPF_CORE_READ(wakee, recent_used_cpu));
	state->wakee = wakee;
	state->active = 1;
	state->start_ns = bpf_ktime_get_ns();
	return 0;
}

static __always_inline int idle_probe_seen(int cpu, int idle)
{
	struct select_state *state = this_select_state();

	if (state && state->active)
		sis_decode_probe(&state->decoder, cpu, idle,
				 same_core(cpu, state->decoder.prev));
	return 0;
}

static __always_inline int share_cache_seen(int a, int b, bool shared)
{
	struct select_state *state = this_select_state();

	if (state && state->active)
		sis_decode_share_cache(&state->decoder, a, b, shared);
	return 0;
}

static __always_inline bool outcome_is_domain_search(unsigned int outcome,
						      int nr_idle_scan)
{
	/* A scan SIS_UTIL cut to zero CPUs still entered select_idle_cpu(). */
	return outcome == SIS_OUT_DOMAIN_HIT || outcome == SIS_OUT_DOMAIN_FAILED ||
	       (outcome == SIS_OUT_SCAN_SKIPPED && nr_idle_scan == 0);
}

/* SIS_UTIL's limit, not the end of LLC & allowed, stopped a failed scan. */
static __always_inline bool scan_cut_by_limit(const struct sis_decoder *dec,
					      struct task_struct *wakee,
					      int nr_idle_scan)
{
	unsigned int candidates = llc_weight(dec->target);
	unsigned int allowed = BPF_CORE_READ(wakee, nr_cpus_allowed);

	if (nr_idle_scan <= 0 || dec->domain_probes < (unsigned int)nr_idle_scan)
		return false;
	if (allowed < candidates)
		candidates = allowed;
	return (unsigned int)nr_idle_scan < candidates;
}

static __always_inline int select_exit(int chosen)
{
	struct select_state *state = this_select_state();
	struct sis_decoder *dec;
	struct placement placed;
	unsigned int outcome;
	int nr_idle_scan;
	__u64 elapsed;

	if (!state || !state->active)
		return 0;
	elapsed = bpf_ktime_get_ns() - state->start_ns;
	state->active = 0;
	dec = &state->decoder;
	counter_add(&counters, SISSCAN_SELECT_WAKEUPS, 1);
	check_placement(state->wakee, chosen, -1, false, &placed);
	counter_add(&counters, SISSCAN_PLACEMENTS, 1);
	if (placed.chosen_unoccupied)
		counter_add(&counters, SISSCAN_PLACED_UNOCCUPIED, 1);
	if (placed.missed_idle)
		counter_add(&counters, SISSCAN_MISSED_IDLE, 1);
	outcome = sis_decode_finish(dec, chosen, placed.chosen_unoccupied);
	if (outcome >= SIS_NR_OUTCOMES)
		return 0;
	counter_add(&counters, SISSCAN_OUTCOME + outcome, 1);
	if (outcome == SIS_OUT_NO_SIS)
		return 0;
	counter_add(&counters, SISSCAN_SIS_SEARCH, 1);
	counter_add(&counters, SISSCAN_IDLE_PROBES, dec->probes);
	count_slot(SISSCAN_PROBES_HIST, dec->probes, SISSCAN_COUNT_SLOTS);
	count_slot(SISSCAN_TIME_HIST, log2_slot(elapsed), SISSCAN_TIME_SLOTS);
	/* Mel Gorman's sis_scanned: the fast path counts as one scan. */
	counter_add(&counters, SISSCAN_SIS_SCANNED,
		    1 + dec->smt_probes + dec->domain_probes);
	if (dec->recent_probed && outcome != SIS_OUT_RECENT_HIT)
		counter_add(&counters, SISSCAN_SIS_RECENT_MISS, 1);
	nr_idle_scan = llc_nr_idle_scan(dec->target);
	if (!outcome_is_domain_search(outcome, nr_idle_scan))
		return 0;
	counter_add(&counters, SISSCAN_SIS_DOMAIN_SEARCH, 1);
	counter_add(&counters, SISSCAN_SIS_DOMAIN_SCANNED, dec->domain_probes);
	count_slot(SISSCAN_DEPTH_HIST, dec->domain_probes, SISSCAN_COUNT_SLOTS);
	if (nr_idle_scan >= 0)
		count_slot(SISSCAN_NR_IDLE_SCAN_HIST, nr_idle_scan,
			   SISSCAN_COUNT_SLOTS);
	if (outcome == SIS_OUT_DOMAIN_HIT)
		return 0;
	counter_add(&counters, SISSCAN_SIS_FAILED, 1);
	if (outcome == SIS_OUT_SCAN_SKIPPED)
		counter_add(&counters, SISSCAN_SIS_UTIL_SKIPPED, 1);
	else if (scan_cut_by_limit(dec, state->wakee, nr_idle_scan))
		counter_add(&counters, SISSCAN_SIS_UTIL_LIMITED, 1);
	return 0;
}

SEC("fentry/select_task_rq_fair")
int BPF_PROG(select_task_rq_fair__fentry, struct task_struct *wakee,
	     int prev_cpu, int wake_flags)
{
	return select_enter(wakee, prev_cpu, wake_flags);
}

SEC("fexit/select_task_rq_fair")
int BPF_PROG(select_task_rq_fair__fexit, struct task_struct *wakee,
	     int prev_cpu, int wake_flags, int chosen)
{
	return select_exit(chosen);
}

SEC("kprobe/select_task_rq_fair")
int BPF_KPROBE(select_task_rq_fair__kprobe, struct task_struct *wakee,
	       int prev_cpu, int wake_flags)
{
	return select_enter(wakee, prev_cpu, wake_flags);
}

SEC("kretprobe/select_task_rq_fair")
int BPF_KRETPROBE(select_task_rq_fair__kretprobe, int chosen)
{
	return select_exit(chosen);
}

SEC("fexit/available_idle_cpu")
int BPF_PROG(available_idle_cpu__fexit, int cpu, int idle)
{
	return idle_probe_seen(cpu, idle);
}

/* A kretprobe sees no arguments: the entry probe keeps the CPU. */
SEC("kprobe/available_idle_cpu")
int BPF_KPROBE(available_idle_cpu__kprobe, int cpu)
{
	struct select_state *state = this_select_state();

	if (state && state->active)
		state->probe_cpu = cpu;
	return 0;
}

SEC("kretprobe/available_idle_cpu")
int BPF_KRETPROBE(available_idle_cpu__kretprobe, int idle)
{
	struct select_state *state = this_select_state();

	if (state && state->active)
		idle_probe_seen(state->probe_cpu, idle);
	return 0;
}

SEC("fexit/cpus_share_cache")
int BPF_PROG(cpus_share_cache__fexit, int a, int b, bool shared)
{
	return share_cache_seen(a, b, shared);
}

SEC("kprobe/cpus_share_cache")
int BPF_KPROBE(cpus_share_cache__kprobe, int a, int b)
{
	struct select_state *state = this_select_state();

	if (state && state->active) {
		state->share_a = a;
		state->share_b = b;
	}
	return 0;
}

SEC("kretprobe/cpus_share_cache")
int BPF_KRETPROBE(cpus_share_cache__kretprobe, int shared)
{
	struct select_state *state = this_select_state();

	/* bool in a register: only the low byte is defined. */
	if (state && state->active)
		share_cache_seen(state->share_a, state->share_b, shared & 0xff);
	return 0;
}

/*
 * Tracepoint tier. try_to_wake_up() fires sched_waking on the waker CPU
 * before select_task_rq(); then sched_migrate_task there if the CPU
 * changed (before the enqueue); then sched_wakeup, on the waker CPU or,
 * for a queued remote wakeup, later on the chosen CPU.
 */
struct tp_wakeup {
	struct task_struct *wakee;	/* NULL: no placement pending */
	int prev, waker, recent;
};

/*
 * Pending placements, direct-mapped by PID: sched_wakeup of a queued
 * remote wakeup runs on the chosen CPU, so a per-CPU slot of the waker
 * would not be found there. A collision (two wakeups in flight whose PIDs
 * share a slot) loses the older one: tp_lost counts those.
 */
#define TP_WAKEUP_SLOTS 16384

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TP_WAKEUP_SLOTS);
	__type(key, __u32);
	__type(value, struct tp_wakeup);
} tp_wakeups SEC(".maps");

static __always_inline struct tp_wakeup *tp_slot(struct task_struct *p)
{
	__u32 key = BPF_CORE_READ(p, pid) & (TP_WAKEUP_SLOTS - 1);

	return bpf_map_lookup_elem(&tp_wakeups, &key);
}

/* The fair class and a real choice: the cases that reach select_task_rq_fair(). */
static __always_inline bool tp_fair_with_choice(struct task_struct *p)
{
	unsigned int policy = BPF_CORE_READ(p, policy);

	if (policy != SCHED_NORMAL && policy != SCHED_BATCH && policy != SCHED_IDLE)
		return false;
	return BPF_CORE_READ(p, nr_cpus_allowed) > 1;
}

static __always_inline int count_wakeup(struct task_struct *wakee)
{
	struct tp_wakeup *pending;

	if (!cpu_selected(bpf_get_smp_processor_id()) || !task_selected(wakee))
		return 0;
	counter_add(&counters, SISSCAN_WAKEUPS, 1);
	if (!tp_placement)
		return 0;
	pending = tp_slot(wakee);
	if (!pending)
		return 0;
	/* Still queued (ttwu_runnable()) or waking itself: no selection. */
	if (BPF_CORE_READ(wakee, on_rq) ||
	    (void *)wakee == (void *)bpf_get_current_task() ||
	    !tp_fair_with_choice(wakee)) {
		if (pending->wakee == wakee)
			pending->wakee = NULL;
		return 0;
	}
	if (pending->wakee && pending->wakee != wakee)
		counter_add(&counters, SISSCAN_TP_LOST, 1);
	pending->wakee = wakee;
	pending->prev = task_cpu_of(wakee);
	pending->waker = bpf_get_smp_processor_id();
	/* Read before select_idle_sibling() overwrites it with prev. */
	pending->recent = BPF_CORE_READ(wakee, recent_used_cpu);
	return 0;
}

/*
 * enqueued: at sched_wakeup, the wakee already on chosen's runqueue.
 * queued: that sched_wakeup runs on chosen for a wakeup queued by another
 * CPU, possibly tens of microseconds after the choice.
 */
static __always_inline void tp_place(struct task_struct *p,
				     const struct tp_wakeup *wakeup, int chosen,
				     bool enqueued, bool queued)
{
	struct placement placed;
	int target = -1, depth;
	__u32 class;

	if (chosen == wakeup->prev)
		class = SISSCAN_TP_PREV;
	else if (chosen == wakeup->waker)
		class = SISSCAN_TP_WAKER;
	else if (chosen == wakeup->recent)
		class = SISSCAN_TP_RECENT;
	else
		class = SISSCAN_TP_OTHER;
	/* wake_affine() scans from the waker when it shares chosen's LLC. */
	if (class == SISSCAN_TP_OTHER)
		target = same_llc(chosen, wakeup->waker) ? wakeup->waker :
							  wakeup->prev;
	/*
	 * ttwu_queue_cond() queues a wakeup within the waker's LLC only on a
	 * CPU with nothing running (6.1 to 6.18): chosen was unoccupied at the
	 * choice, whatever runs there by now.
	 */
	if (queued && same_llc(chosen, wakeup->waker) && target < 0) {
		placed.chosen_unoccupied = true;
		placed.missed_idle = false;
		placed.depth = 0;
	} else {
		check_placement(p, chosen, target, enqueued, &placed);
	}
	counter_add(&counters, class, 1);
	counter_add(&counters, SISSCAN_TP_SIS_SEARCH, 1);
	counter_add(&counters, SISSCAN_TP_PLACEMENTS, 1);
	if (placed.chosen_unoccupied)
		counter_add(&counters, SISSCAN_TP_PLACED_UNOCCUPIED, 1);
	if (placed.missed_idle)
		counter_add(&counters, SISSCAN_TP_MISSED_IDLE, 1);
	/* An unoccupied prev, waker or recent CPU: the fast path took it. */
	if (class != SISSCAN_TP_OTHER && placed.chosen_unoccupied) {
		counter_add(&counters, SISSCAN_TP_SCANNED, 1);
		return;
	}
	counter_add(&counters, SISSCAN_TP_DOMAIN_SEARCH, 1);
	if (class == SISSCAN_TP_OTHER && placed.chosen_unoccupied) {
		depth = placed.depth;
	} else {
		/* A failed scan probed up to SIS_UTIL's limit. */
		counter_add(&counters, SISSCAN_TP_FAILED, 1);
		depth = llc_nr_idle_scan(chosen);
		if (depth < 0)
			depth = 0;
	}
	counter_add(&counters, SISSCAN_TP_SCANNED, 1 + depth);
	count_slot(SISSCAN_TP_DEPTH_HIST, depth, SISSCAN_COUNT_SLOTS);
}

/*
 * A wakeup's set_task_cpu(): the task is off every runqueue (on_rq == 0;
 * load balancing moves queued tasks), on the waker CPU, before the enqueue.
 */
static __always_inline int tp_migrate(struct task_struct *p, int dest_cpu)
{
	struct tp_wakeup *pending;

	if (!tp_placement)
		return 0;
	pending = tp_slot(p);
	if (!pending || pending->wakee != p || BPF_CORE_READ(p, on_rq) ||
	    pending->waker != (int)bpf_get_smp_processor_id())
		return 0;
	tp_place(p, pending, dest_cpu, false, false);
	pending->wakee = NULL;
	return 0;
}

/*
 * No migration, so chosen == prev: on the waker CPU right after
 * sched_waking, or later on chosen for a queued remote wakeup.
 */
static __always_inline int tp_wakeup(struct task_struct *p)
{
	struct tp_wakeup *pending;

	if (!tp_placement)
		return 0;
	pending = tp_slot(p);
	if (!pending || pending->wakee != p)
		return 0;
	tp_place(p, pending, task_cpu_of(p), true,
		 pending->waker != (int)bpf_get_smp_processor_id());
	pending->wakee = NULL;
	return 0;
}

/* Attached only until every CPU's runqueue is known (lib/cpustate.c). */
TRACEPOINT_HOOK(sched_update_nr_running_tp, learn_rq(rq), struct rq *rq)

TRACEPOINT_HOOK(sched_migrate_task, tp_migrate(p, dest_cpu),
		struct task_struct *p, int dest_cpu)
TRACEPOINT_HOOK(sched_wakeup, tp_wakeup(p), struct task_struct *p)
