// SPDX-License-Identifier: GPL-2.0
/*
 * sisscan BPF side. Every hook exists once per flavour (tp_btf, raw_tp,
 * classic tracepoint; fentry, kprobe) and user space loads only the
 * flavour the chosen tier allows: see lib/hooks.c for the naming rule
 * "<hook>__<flavour>".
 *
 * fentry/kprobe tiers: select_task_rq_fair() entry and exit bracket one
 * wakeup placement; the available_idle_cpu() and cpus_share_cache() calls
 * in between feed the SIS decoder (tools/sisscan/sis_decode.h).
 * Tracepoint tier: sched_waking remembers the wakee's prev, waker and
 * recent CPUs; sched_migrate_task or sched_wakeup names the chosen CPU.
 * Both check the chosen CPU against the runqueues at that instant.
 */
#include "schedscan.bpf.h"
#include "rq.bpf.h"
#include "table.bpf.h"
#include "sisscan.h"

/* Set by user space before load: no select hook, so the tracepoints estimate. */
const volatile bool tp_placement = false;
/* enum sis_decode_flag: SMT siblings, asymmetric capacity (from sysfs). */
const volatile __u32 decode_flags;
/* CPUs online: a wakee allowed on that many may use its whole LLC. */
const volatile __u32 nr_online_cpus;
/*
 * &sysctl_sched_features (a data symbol: needs KALLSYMS_ALL; 0 unknown)
 * and the bits of SIS_UTIL and UTIL_EST in it (anonymous enumerators in
 * BTF, which CO-RE cannot relocate; -1 unknown). Unknown reads as the
 * kernel's default, on.
 */
const volatile __u64 sched_features_addr;
const volatile __s32 sis_util_feature = -1;
const volatile __s32 util_est_feature = -1;

static __always_inline bool sched_feature_on(int bit)
{
	__u32 features = 0;

	if (!sched_features_addr || bit < 0 || bit > 31 ||
	    bpf_probe_read_kernel(&features, sizeof(features), (void *)sched_features_addr))
		return true;
	return (features >> bit) & 1;
}

/*
 * SIS_UTIL's limit for cpu's LLC as select_idle_cpu() applies it: -1
 * when SIS_UTIL is off (nr_idle_scan is then a stale value).
 */
static __always_inline int sis_util_limit(int cpu)
{
	return sched_feature_on(sis_util_feature) ? llc_nr_idle_scan(cpu) : -1;
}

static __always_inline struct sched_domain_shared *llc_shared(int cpu)
{
	struct rq *rq = cpu_rq_of(cpu);
	struct sched_domain *llc = rq ? rq_llc_domain(rq) : NULL;

	return llc ? BPF_CORE_READ(llc, shared) : NULL;
}

/* sd_llc_shared(cpu)->has_idle_cores (v4 folds it into ->state). */
static __always_inline bool llc_has_idle_cores(int cpu)
{
	struct sched_domain_shared *shared = llc_shared(cpu);

	if (!shared || !bpf_core_field_exists(shared->has_idle_cores))
		return false;
	return BPF_CORE_READ(shared, has_idle_cores);
}

SCHEDSCAN_COUNTER_MAP(counters, SISSCAN_NR_COUNTERS);

/* Breakdowns: enum sis_breakdown, and -P. */
const volatile __u32 breakdown = SIS_BY_LLC;
const volatile bool per_process;

/* Keyed by group = LLC index or CPU; sized by user space. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sisscan_group);
} group_counters SEC(".maps");

/*
 * -P: one row per process shared by every CPU (atomic adds), not per CPU:
 * a per-CPU hash would cost max_entries x CPUs of memory.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SISSCAN_MAX_PROCESSES);
	__type(key, __u32);
	__type(value, struct sisscan_process);
} process_counters SEC(".maps");

/* SMT core index of each CPU (from sysfs; -1 unknown): S7's siblings. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SCHEDSCAN_MAX_CPUS);
	__type(key, __u32);
	__type(value, __s32);
} smt_core SEC(".maps");

/* A count histogram: the value is its own slot. */
static __always_inline void count_value(__u32 bank, __u32 base, __u32 value)
{
	hist_record_if(bank, &counters, base, SISSCAN_COUNT_SLOTS, value, value);
}

/* A nanosecond histogram in log2 slots. */
static __always_inline void count_ns(__u32 bank, __u32 base, __u64 ns)
{
	hist_record_if(bank, &counters, base, SISSCAN_TIME_SLOTS, log2_slot(ns), ns);
}

/* The breakdown row of a CPU's group (its LLC, or itself with --per-cpu). */
static __always_inline struct sisscan_group *group_row(int cpu)
{
	int group = breakdown == SIS_BY_CPU ? cpu : llc_of(cpu);
	__u32 key = group;

	if (group < 0)
		return NULL;
	return bpf_map_lookup_elem(&group_counters, &key);
}

/* The wakee's process row, created on its first wakeup. */
static __always_inline struct sisscan_process *process_row(__u32 bank,
							  struct task_struct *p)
{
	struct sisscan_process *row, zero = {};
	__u32 tgid;

	if (!per_process)
		return NULL;
	tgid = BPF_CORE_READ(p, tgid);
	row = bpf_map_lookup_elem(&process_counters, &tgid);
	if (row)
		return row;
	BPF_CORE_READ_STR_INTO(&zero.comm, p, group_leader, comm);
	return table_row_if(bank, &process_counters, &tgid, &zero, SISSCAN_PROCESS_DROPS);
}

/* One placement's breakdown counts, the same in every tier. */
struct breakdown_counts {
	int target, chosen;
	bool domain_search, failed, unoccupied, missed;
	__u32 depth;
	__u32 bank;		/* the bank this wakeup counts in (counting()), 0: none */
};

__noinline int count_breakdown(__u64 task, const struct breakdown_counts *b)
{
	struct sisscan_process *row;
	struct sisscan_group *group;
	__u32 bank;

	if (!b || !b->bank)
		return 0;
	bank = b->bank;
	row = process_row(bank, (struct task_struct *)task);
	group = b->target >= 0 ? group_row(b->target) : NULL;
	if (group) {
		group->counts[SCHEDSCAN_SLOT(SG_SIS_SEARCH, bank)]++;
		group->counts[SCHEDSCAN_SLOT(SG_DOMAIN_SEARCH, bank)] += b->domain_search;
		group->counts[SCHEDSCAN_SLOT(SG_DOMAIN_SCANNED, bank)] +=
			b->domain_search ? b->depth : 0;
		group->counts[SCHEDSCAN_SLOT(SG_FAILED, bank)] += b->failed;
	}
	group = group_row(b->chosen);
	if (group) {
		group->counts[SCHEDSCAN_SLOT(SG_PLACEMENTS, bank)]++;
		group->counts[SCHEDSCAN_SLOT(SG_PLACED_UNOCCUPIED, bank)] += b->unoccupied;
		group->counts[SCHEDSCAN_SLOT(SG_MISSED_IDLE, bank)] += b->missed;
	}
	if (!row)
		return 0;
	if (b->target >= 0) {
		__sync_fetch_and_add(&row->counts[SCHEDSCAN_SLOT(SG_SIS_SEARCH, bank)], 1);
		if (b->domain_search) {
			__sync_fetch_and_add(&row->counts[SCHEDSCAN_SLOT(SG_DOMAIN_SEARCH, bank)], 1);
			__sync_fetch_and_add(&row->counts[SCHEDSCAN_SLOT(SG_DOMAIN_SCANNED, bank)],
					     b->depth);
		}
		if (b->failed)
			__sync_fetch_and_add(&row->counts[SCHEDSCAN_SLOT(SG_FAILED, bank)], 1);
	}
	__sync_fetch_and_add(&row->counts[SCHEDSCAN_SLOT(SG_PLACEMENTS, bank)], 1);
	if (b->unoccupied)
		__sync_fetch_and_add(&row->counts[SCHEDSCAN_SLOT(SG_PLACED_UNOCCUPIED, bank)], 1);
	if (b->missed)
		__sync_fetch_and_add(&row->counts[SCHEDSCAN_SLOT(SG_MISSED_IDLE, bank)], 1);
	return 0;
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
 * The bpf_loop() steps of every walk over an LLC's CPUs (placement check,
 * allowed-CPU count, filter audit), summed for make bench: how a wakeup's
 * work grows with the LLC size, exactly, where a TCG guest's timing is
 * too noisy to show it (docs/performance.md, section 4). Read with
 * bpftool; not a metric.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} llc_walk_steps SEC(".maps");

/* bpf_loop() returns the steps it made (or a negative error). */
static __always_inline void count_walk_steps(long steps)
{
	__u32 zero = 0;
	__u64 *total = bpf_map_lookup_elem(&llc_walk_steps, &zero);

	if (total && steps > 0)
		*total += steps;
}

/*
 * One pass over LLC(chosen) & the task's allowed CPUs, a CPU per
 * bpf_loop() step (one verification of the body, whatever the LLC
 * size): is any other CPU unoccupied (missed idle), and where does
 * chosen sit in for_each_cpu_wrap(target + 1) order (the domain scan's
 * visiting order; target < 0: not wanted).
 */
struct llc_walk {
	const struct cpumask *cpus_allowed;	/* p->cpus_ptr, read once */
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
	if (!cpumask_has(walk->cpus_allowed, cpu))
		return 0;
	if (walk->target >= 0 &&
	    wrap_position(cpu, walk->target) <= wrap_position(walk->chosen, walk->target))
		walk->depth++;
	if (walk->find_unoccupied && !walk->found && cpu != walk->chosen &&
	    cpu_unoccupied(cpu))
		walk->found = true;
	return walk->found && walk->target < 0;
}

static __always_inline __u64 pack_cpus(int high, int low)
{
	return (__u64)(__u32)high << 32 | (__u32)low;
}

struct placement {
	bool chosen_unoccupied, missed_idle;
	__u32 depth;		/* chosen's wrap position from target + 1 */
};

/*
 * enqueued: the wakee is already on chosen's runqueue (sched_wakeup), so
 * it does not count against chosen being unoccupied. A global function
 * (verified once, not at each caller): the task comes as a plain address,
 * read with BPF_CORE_READ like any kernel pointer.
 */
__noinline int check_placement(__u64 task, int chosen, int target,
			       __u32 enqueued, struct placement *out)
{
	struct task_struct *p = (struct task_struct *)task;
	struct llc_walk walk = { .chosen = chosen, .target = target };
	unsigned int wakee_idle;
	struct rq *rq;

	if (!out)
		return 0;
	enqueued = !!enqueued;
	wakee_idle = enqueued && BPF_CORE_READ(p, policy) == SCHED_IDLE;
	rq = cpu_rq_of(chosen);
	out->chosen_unoccupied = rq && rq_unoccupied(rq, enqueued, wakee_idle);
	out->missed_idle = false;
	out->depth = 0;
	if (out->chosen_unoccupied && target < 0)
		return 0;
	if (llc_of(chosen) < 0)
		return 0;
	walk.cpus_allowed = BPF_CORE_READ(p, cpus_ptr);
	walk.first = llc_first_index(chosen);
	walk.find_unoccupied = !out->chosen_unoccupied;
	count_walk_steps(bpf_loop(llc_weight(chosen), llc_walk_cpu, &walk, 0));
	out->missed_idle = walk.found;
	out->depth = walk.depth;
	return 0;
}

/*
 * Filter audit (--filter). Each modelled filter keeps one bit per CPU,
 * updated when its patch would update it; at each audited placement every
 * CPU of target's LLC that the wakee may use is checked against the truth
 * (unoccupied now). Definitions: docs/metrics.md, "Filter audit".
 */
const volatile __u32 audit_filters;	/* bit f: enum sis_filter f audited */
const volatile __u64 audit_delay_ns;	/* SIS_FILTER_DELAYED's lag */
const volatile __u64 tick_function;	/* the tick's hrtimer callback */
/*
 * The real masks of a patched kernel (--filter real): v4's idle_cpus
 * (set = scanned) and the draft's or seed 001's overloaded mask (set =
 * skipped), by their offsets in sched_domain_shared (-1: absent), each
 * with the sched feature that switches it on in schedscan's test ports
 * (-1: none, the mask as posted, always on). A kernel may carry both;
 * at each wakeup the one whose feature is on is audited, v4 first.
 */
const volatile __s32 real_idle_offset = -1;
const volatile __s32 real_idle_feature = -1;
const volatile __s32 real_state_offset = -1;	/* v4: the LLC's enum sd_state */
const volatile __u32 real_busy_value;		/* its sd_is_busy */
const volatile __s32 real_over_offset = -1;
const volatile __s32 real_over_feature = -1;
const volatile bool emit_events;

struct cpu_filter_state {
	__u64 v4_ts;		/* last change of the v4 bit */
	__u64 unoccupied_ts;	/* last write of the tick model's bit */
	__u64 overloaded_ts;	/* last write of the draft bit */
	__u64 change_ts;	/* last unoccupied <-> occupied change seen */
	__u8 v4_bit;		/* v4: in the LLC's idle_cpus[] (scanned) */
	__u8 unoccupied_bit;	/* v1-v3: in the filter (scanned) */
	__u8 overloaded_bit;	/* draft: in the overloaded mask (skipped) */
	__u8 occupied;		/* state as of change_ts */
	__u8 seeded;		/* a tick, switch or audit has set the bits */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SCHEDSCAN_MAX_CPUS);
	__type(key, __u32);
	__type(value, struct cpu_filter_state);
} cpu_filter_states SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 << 20);
} events SEC(".maps");

static __always_inline struct cpu_filter_state *filter_state_of(int cpu)
{
	__u32 key = cpu;

	return bpf_map_lookup_elem(&cpu_filter_states, &key);
}

static __always_inline bool auditing(unsigned int filter)
{
	return audit_filters & (1U << filter);
}

/*
 * The v4 model (filter_v4.h): a state per SMT core, the LLC's busy state,
 * and each CPU's bit of idle_cpus[] in its cpu_filter_state. Cores are
 * the sysfs core indexes of smt_core, their CPUs filled by user space.
 */
const volatile __u32 sd_share_cpucapacity;	/* SD_SHARE_CPUCAPACITY, from BTF */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SCHEDSCAN_MAX_CPUS);
	__type(key, __u32);
	__type(value, struct v4_core);
} v4_cores SEC(".maps");

/* By LLC index: sd_is_busy after a complete scan found nothing. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SCHEDSCAN_MAX_CPUS);
	__type(key, __u32);
	__type(value, __u32);
} v4_llc_busy SEC(".maps");

static __always_inline __u32 *v4_busy_of(int cpu)
{
	__u32 llc = llc_of(cpu);

	return (int)llc < 0 ? NULL : bpf_map_lookup_elem(&v4_llc_busy, &llc);
}

/* A sibling as update_sg_lb_stats() and sd_update_state() read it. */
static __always_inline void v4_view(int cpu, struct v4_cpu_view *v)
{
	struct rq *rq = cpu_rq_of(cpu);
	unsigned int nr, nr_idle;

	v->cpu = cpu;
	v->unoccupied = v->idle = v->sched_idle = 0;
	if (!rq)
		return;
	nr = BPF_CORE_READ(rq, nr_running);
	nr_idle = cfs_rq_h_nr_idle(&rq->cfs);
	v->unoccupied = nr == nr_idle;
	v->idle = !nr && rq_idle(rq, 0);
	v->sched_idle = nr && nr == nr_idle;
}

static __always_inline void v4_set_bit(int cpu, __u8 bit, __u64 now)
{
	struct cpu_filter_state *state = filter_state_of(cpu);

	if (state && state->v4_bit != bit) {
		state->v4_bit = bit;
		state->v4_ts = now;
	}
}

/* The siblings' walk: bpf_loop() verifies the step once, not per sibling. */
struct v4_walk {
	const struct v4_core *core;
	__u32 start, n;
	int dst;
	struct v4_classify classify;
	struct v4_cpu_view dst_view;
};

static long v4_walk_cpu(__u64 k, void *ctx)
{
	struct v4_walk *walk = ctx;
	struct v4_cpu_view view;
	__u32 i = (walk->start + (__u32)k) % walk->n;

	if (i >= V4_MAX_SIBLINGS)
		return 1;
	v4_view(walk->core->cpus[i], &view);
	v4_classify_cpu(&walk->classify, &view, view.cpu == walk->dst);
	if (view.cpu == walk->dst)
		walk->dst_view = view;
	return 0;
}

/* The update's effect on the core's bits of idle_cpus[], a CPU per step. */
struct v4_apply_ctx {
	const struct v4_core *core;
	const struct v4_update *update;
	bool seeding;
	__u64 now;
};

static long v4_apply_cpu(__u64 k, void *ctx)
{
	struct v4_apply_ctx *a = ctx;
	int cpu;

	if (k >= V4_MAX_SIBLINGS)
		return 1;
	cpu = a->core->cpus[k];
	if (a->update->clear_core || (a->seeding && cpu != a->update->set_cpu))
		v4_set_bit(cpu, 0, a->now);
	else if (cpu == a->update->set_cpu)
		v4_set_bit(cpu, 1, a->now);
	return 0;
}

static __always_inline void v4_apply(const struct v4_core *core, __u32 n,
				     const struct v4_update *update, bool seeding, __u64 now)
{
	struct v4_apply_ctx a = { core, update, seeding, now };

	bpf_loop(n, v4_apply_cpu, &a, 0);
}

/*
 * One SMT-level balance of the core by dst (dst < 0: an audit wants the
 * core's bits). A global function: verified once.
 */
__noinline int v4_core_balance(__u32 core_id, int dst)
{
	struct v4_core *core = bpf_map_lookup_elem(&v4_cores, &core_id);
	struct v4_walk walk = {};
	struct v4_update update;
	bool seeding;
	__u32 *busy;
	__u64 now;

	if (!core || core->nr < 2)
		return 0;	/* no SMT domain: v4 never writes this core */
	/* Parallel updating can hardly contribute accuracy (P6). */
	if (__sync_val_compare_and_swap(&core->updating, 0, 1))
		return 0;
	walk.core = core;
	walk.n = core->nr < V4_MAX_SIBLINGS ? core->nr : V4_MAX_SIBLINGS;
	now = bpf_ktime_get_ns();
	/*
	 * A core's first touch since the attach seeds it, balance or audit:
	 * a balance for none of its CPUs, from the runqueues as they are.
	 */
	seeding = !core->seeded;
	walk.dst = seeding ? -1 : dst;
	/* dst's group first, then the ring (for_each_cpu_wrap from dst). */
	for (__u32 k = 0; k < V4_MAX_SIBLINGS; k++)
		if (k < walk.n && core->cpus[k] == walk.dst)
			walk.start = k;
	v4_classify_begin(&walk.classify);
	bpf_loop(walk.n, v4_walk_cpu, &walk, 0);
	/*
	 * dst_view stays zero (neither idle nor sched-idle) when no sibling
	 * is dst: the same as no dst, without a maybe-NULL pointer that clang
	 * turns into arithmetic the 6.1 verifier rejects.
	 */
	v4_update_state(seeding ? V4_IS_BUSY : core->state, &walk.classify,
			&walk.dst_view, &update);
	core->state = update.state;
	core->seeded = 1;
	v4_apply(core, walk.n, &update, seeding, now);
	busy = v4_busy_of(core->cpus[0]);
	if (busy && update.llc_idle && !seeding)
		*busy = 0;
	core->updating = 0;
	return 0;
}

/*
 * load_balance() (sched_balance_rq() since 6.10) at the SMT level: v4's
 * update runs in update_sd_lb_stats(), once should_we_balance() let the
 * balance go on. At the SMT level that is always so for a periodic
 * balance (dst's group is dst alone); a newly idle one stops if dst got
 * a task or a wakeup meanwhile (6.1-6.18).
 */
static __always_inline int v4_load_balance(int this_cpu, struct rq *this_rq,
					   struct sched_domain *sd, int idle)
{
	__s32 *core;
	__u32 key = this_cpu;

	if (!auditing(SIS_FILTER_UNOCCUPIED) || !sd || !this_rq ||
	    schedscan_mutation.kind == MUTATION_FREEZE_FILTERS ||
	    !(BPF_CORE_READ(sd, flags) & sd_share_cpucapacity))
		return 0;
	counter_add(&counters, SISSCAN_V4_BALANCES, 1);
	if (idle == bpf_core_enum_value(enum cpu_idle_type, CPU_NEWLY_IDLE) &&
	    (BPF_CORE_READ(this_rq, nr_running) || BPF_CORE_READ(this_rq, ttwu_pending)))
		return 0;
	core = bpf_map_lookup_elem(&smt_core, &key);
	if (!core || *core < 0)
		return 0;
	counter_add(&counters, SISSCAN_V4_UPDATES, 1);
	return v4_core_balance(*core, this_cpu);
}

SEC("fentry/sched_balance_rq")
int BPF_PROG(load_balance__fentry, int this_cpu, struct rq *this_rq,
	     struct sched_domain *sd, enum cpu_idle_type idle)
{
	return v4_load_balance(this_cpu, this_rq, sd, idle);
}

SEC("kprobe/sched_balance_rq")
int BPF_KPROBE(load_balance__kprobe, int this_cpu, struct rq *this_rq,
	       struct sched_domain *sd, int idle)
{
	return v4_load_balance(this_cpu, this_rq, sd, idle);
}

/*
 * Seed 000 L3674-3689, the SIS_FILTER draft's rq_overloaded(): more than
 * one non-idle task, and utilisation or runnable load past the LLC's
 * imbalance_pct. cpu_util_cfs() is util_avg raised to util_est with
 * UTIL_EST on, then clamped to the CPU's capacity; the clamp cannot
 * change the verdict (the threshold, 1024 * 100 / imbalance_pct, is below
 * any capacity of a symmetric machine), so it is left out.
 */
static __always_inline bool rq_overloaded(struct rq *rq)
{
	struct sched_domain *llc = rq_llc_domain(rq);
	unsigned long util = BPF_CORE_READ(rq, cfs.avg.util_avg), util_est;
	unsigned long runnable = BPF_CORE_READ(rq, cfs.avg.runnable_avg);
	unsigned int pct = llc ? BPF_CORE_READ(llc, imbalance_pct) : 117;

	if (BPF_CORE_READ(rq, nr_running) - cfs_rq_h_nr_idle(&rq->cfs) <= 1)
		return false;
	if (sched_feature_on(util_est_feature)) {
		util_est = cfs_rq_util_est(&rq->cfs);
		if (util_est > util)
			util = util_est;
	}
	return 1024UL * 100 < util * pct || 1024UL * pct < runnable * 100;
}

/* The state the delayed filter follows: occupied or not, since when. */
static __always_inline void note_occupancy(int cpu, __u64 now, __u8 occupied)
{
	struct cpu_filter_state *state = filter_state_of(cpu);

	if (state && state->occupied != occupied) {
		state->occupied = occupied;
		state->change_ts = now;
	}
}

/*
 * The tick (hrtimer_expire_entry for the tick's own timer, on its CPU):
 * the draft recomputes its overloaded bit here; the v4 filter's periodic
 * balancing also starts from the tick, so its bit is refreshed too.
 */
static __always_inline int filter_tick(struct hrtimer *timer)
{
	int cpu = bpf_get_smp_processor_id();
	struct cpu_filter_state *state;
	struct rq *rq;
	__u64 now;

	if (!audit_filters || (__u64)BPF_CORE_READ(timer, function) != tick_function ||
	    schedscan_mutation.kind == MUTATION_FREEZE_FILTERS)
		return 0;
	state = filter_state_of(cpu);
	rq = cpu_rq_of(cpu);
	if (!state || !rq)
		return 0;
	now = bpf_ktime_get_ns();
	state->overloaded_bit = rq_overloaded(rq);
	state->overloaded_ts = now;
	state->unoccupied_bit = rq_unoccupied(rq, 0, 0);
	state->unoccupied_ts = now;
	state->seeded = 1;
	note_occupancy(cpu, now, !state->unoccupied_bit);
	return 0;
}

/*
 * A CPU no tick or switch has touched since the attach (a tick-less idle
 * CPU) is in the state it was in at the attach: seed its bits from its
 * runqueue, as the patches' masks start from the runqueues, rather than
 * count it wrong until its first event.
 */
static __always_inline void seed_filter_state(struct cpu_filter_state *state,
					      int cpu, bool unoccupied, __u64 now)
{
	struct rq *rq = cpu_rq_of(cpu);

	state->seeded = 1;
	state->unoccupied_bit = unoccupied;
	state->unoccupied_ts = now;
	state->overloaded_bit = rq && rq_overloaded(rq);
	state->overloaded_ts = now;
	state->occupied = !unoccupied;
}

/*
 * A context switch: entering idle follows a failed newly-idle balance,
 * where v4 marks the CPU unoccupied; either way, occupancy may change.
 */
static __always_inline int filter_switch(struct task_struct *next)
{
	int cpu = bpf_get_smp_processor_id();
	struct cpu_filter_state *state;
	struct rq *rq;
	__u8 occupied;
	__u64 now;

	if (!audit_filters || schedscan_mutation.kind == MUTATION_FREEZE_FILTERS)
		return 0;
	now = bpf_ktime_get_ns();
	rq = cpu_rq_of(cpu);
	if (!rq)
		return 0;
	/* rq->curr is still the outgoing task here: judge by next. */
	if (BPF_CORE_READ(next, pid) == 0) {
		occupied = 0;
		state = filter_state_of(cpu);
		if (state) {
			/* Idle: not overloaded either, whatever the bit said. */
			if (!state->seeded)
				state->overloaded_ts = now;
			state->seeded = 1;
			state->unoccupied_bit = 1;
			state->unoccupied_ts = now;
		}
	} else {
		occupied = BPF_CORE_READ(rq, nr_running) != cfs_rq_h_nr_idle(&rq->cfs);
	}
	note_occupancy(cpu, now, occupied);
	return 0;
}

struct audit_walk {
	const struct cpumask *cpus_allowed;	/* the wakee's p->cpus_ptr */
	__u32 bank;				/* audit_facts.bank */
	struct sched_domain_shared *shared;	/* target LLC's, for the real mask */
	__u64 now;
	__u32 first, n;
	int target;
	bool has_idle_core;			/* as SIS began */
	__u8 real_kind;				/* enum sis_real_mask applied now */
	bool real_hides_all;			/* v4: the LLC is sd_is_busy */
	__s32 real_offset;			/* of that mask in sched_domain_shared */
	__u8 v4_scan;				/* enum v4_scan */
	__u32 unoccupied_count, cpus;
	__u64 allowed, unoccupied;		/* by LLC position, first 64 */
	/* Per filter, indexed f & 7 so the verifier sees the bound. */
	__u64 passed[8];
	__u32 pass_count[8], fp[8], fn[8];
	__u32 pass_and_free[8];
	__u32 best[8];				/* wrap position of the first hit */
	__u8 verdict[8];			/* on the CPU being audited */
	__u32 disagree_real[8];			/* verdicts unlike the real mask's */
};

/* The walk state lives here, not on the 512-byte BPF stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct audit_walk);
} audit_walks SEC(".maps");

/* v4's sd_is_busy in the LLC's real state: SIS returns target unscanned. */
static __always_inline bool real_llc_busy(int cpu)
{
	struct sched_domain_shared *shared;
	int state = 0;

	if (real_state_offset < 0 || !(shared = llc_shared(cpu)))
		return false;
	bpf_probe_read_kernel(&state, sizeof(state), (void *)shared + real_state_offset);
	return (__u32)state == real_busy_value;
}

/*
 * The real mask the kernel applies at this wakeup: SIS_REAL_NONE when
 * the LLC has an idle core (every port scans the whole LLC then) or no
 * port's feature is on.
 */
static __always_inline __u8 real_mask_applied(bool has_idle_core, __s32 *offset)
{
	if (has_idle_core)
		return SIS_REAL_NONE;
	if (real_idle_offset >= 0 && sched_feature_on(real_idle_feature)) {
		*offset = real_idle_offset;
		return SIS_REAL_IDLE_CPUS;
	}
	if (real_over_offset >= 0 && sched_feature_on(real_over_feature)) {
		*offset = real_over_offset;
		return SIS_REAL_OVERLOADED_CPUS;
	}
	return SIS_REAL_NONE;
}

static __always_inline bool real_mask_passes(const struct audit_walk *walk, int cpu)
{
	__u64 word = 0;

	if (walk->real_kind == SIS_REAL_NONE || !walk->shared)
		return true;
	if (walk->real_hides_all)
		return false;
	/* The patch's array, at the offset the kernel's BTF gives. */
	bpf_probe_read_kernel(&word, sizeof(word),
			      (void *)walk->shared + walk->real_offset +
			      ((__u32)cpu / 64) * sizeof(word));
	word = (word >> ((__u32)cpu % 64)) & 1;
	return walk->real_kind == SIS_REAL_IDLE_CPUS ? word : !word;
}

/* What v4's select_idle_cpu() scans at this wakeup. */
enum v4_scan {
	V4_SCAN_MASK,		/* idle_cpus[] & p->cpus_ptr */
	V4_SCAN_LLC,		/* an idle core: the whole LLC, as unpatched */
	V4_SCAN_NONE,		/* the LLC is sd_is_busy: SIS returns target */
};

static __always_inline bool filter_passes(unsigned int f, int cpu, bool truth,
					  struct cpu_filter_state *state,
					  struct audit_walk *walk, __u64 *age)
{
	*age = 0;
	switch (f) {
	case SIS_FILTER_IDEAL:
		return truth;
	case SIS_FILTER_UNOCCUPIED:
		if (walk->v4_scan != V4_SCAN_MASK)
			return walk->v4_scan == V4_SCAN_LLC;
		*age = walk->now - state->v4_ts;
		return state->v4_bit;
	case SIS_FILTER_UNOCCUPIED_TICK:
		*age = walk->now - state->unoccupied_ts;
		return state->unoccupied_bit;
	case SIS_FILTER_OVERLOADED:
		/* The draft applies its mask only without an idle core. */
		if (walk->has_idle_core)
			return true;
		*age = walk->now - state->overloaded_ts;
		return !state->overloaded_bit;
	case SIS_FILTER_DELAYED:
		/* A change younger than the delay is not published yet. */
		*age = walk->now - state->change_ts;
		if (*age < audit_delay_ns)
			return state->occupied;
		return truth;
	default:
		return real_mask_passes(walk, cpu);
	}
}

/*
 * One filter's verdict on one CPU. A global function: the verifier checks
 * it once, not once per filter per path of the LLC walk around it.
 */
__noinline int audit_filter_cpu(struct audit_walk *walk, __u32 f, int cpu,
				__u32 index, __u32 pos_truth)
{
	struct cpu_filter_state *state = filter_state_of(cpu);
	__u32 pos = pos_truth >> 1;
	bool truth = pos_truth & 1;
	__u64 age;
	bool pass;

	f &= 7;
	if (!walk || !state || f >= SIS_NR_FILTERS)
		return 0;
	/* Seeding is an update too: the freeze mutation skips it. */
	if (!state->seeded && schedscan_mutation.kind != MUTATION_FREEZE_FILTERS)
		seed_filter_state(state, cpu, truth, walk->now);
	pass = filter_passes(f, cpu, truth, state, walk, &age);
	walk->verdict[f] = pass;
	if (pass) {
		walk->pass_count[f]++;
		if (index < 64)
			walk->passed[f] |= 1ULL << index;
	}
	if (pass && truth) {
		walk->pass_and_free[f]++;
		if (pos < walk->best[f])
			walk->best[f] = pos;
	}
	if (pass == truth)
		return 0;
	if (pass)
		walk->fp[f]++;
	else
		walk->fn[f]++;
	/* How long the wrong bit had stood (ideal and real: unknown). */
	if (f != SIS_FILTER_IDEAL && f != SIS_FILTER_REAL)
		count_ns(walk->bank, SISSCAN_FILTER_BASE + f * SIS_FC_STRIDE + SIS_FC_AGE_HIST,
			 age);
	return 0;
}

/* bpf_loop() wants its context on the stack: a pointer to the map value. */
struct audit_ctx {
	struct audit_walk *walk;
};

static long audit_cpu(__u64 index, void *ctx)
{
	struct audit_walk *walk = ((struct audit_ctx *)ctx)->walk;
	int cpu = llc_cpu_at(walk->first, index);
	__u32 pos;
	bool truth;

	if (cpu < 0)
		return 1;
	if (!cpumask_has(walk->cpus_allowed, cpu))
		return 0;
	truth = cpu_unoccupied(cpu);
	pos = wrap_position(cpu, walk->target);
	walk->cpus++;
	if (index < 64) {
		walk->allowed |= 1ULL << index;
		if (truth)
			walk->unoccupied |= 1ULL << index;
	}
	if (truth)
		walk->unoccupied_count++;
	/*
	 * The v4 model's core, seeded before its verdict. Called from here,
	 * not from audit_filter_cpu(): 6.1 allows 512 bytes of stack for the
	 * whole call chain.
	 */
	if (auditing(SIS_FILTER_UNOCCUPIED) && schedscan_mutation.kind != MUTATION_FREEZE_FILTERS) {
		__u32 key = cpu;
		__s32 *core_id = bpf_map_lookup_elem(&smt_core, &key);
		struct v4_core *core = NULL;

		if (core_id && *core_id >= 0) {
			key = *core_id;
			core = bpf_map_lookup_elem(&v4_cores, &key);
		}
		if (core && !core->seeded)
			v4_core_balance(key, -1);
	}
	for (__u32 f = 0; f < SIS_NR_FILTERS; f++)
		if (auditing(f))
			audit_filter_cpu(walk, f, cpu, index, pos << 1 | truth);
	/* Each model against the patched kernel's own mask, CPU by CPU. */
	if (auditing(SIS_FILTER_REAL))
		for (__u32 f = 0; f < SIS_FILTER_REAL; f++)
			if (auditing(f) && walk->verdict[f] != walk->verdict[SIS_FILTER_REAL])
				walk->disagree_real[f]++;
	return 0;
}

/* Second pass, by LLC position: each filter's scan depth in wrap order. */
struct depth_walk {
	struct audit_walk *audit;
	__u32 depth[SIS_NR_FILTERS];
};

/*
 * Does filter f's scan visit LLC position index (wrap position pos)? A
 * global function, so that the walk below adds its verdicts without a
 * branch per filter (each would double the states the verifier keeps).
 */
__noinline int audit_depth_visits(const struct audit_walk *walk, __u32 f, __u32 index,
				  __u32 pos)
{
	f &= 7;
	if (!walk || index >= 64)
		return 0;
	return ((walk->passed[f] >> index) & 1) && pos <= walk->best[f];
}

static long audit_depth_cpu(__u64 index, void *ctx)
{
	struct depth_walk *dw = ctx;
	struct audit_walk *walk = dw->audit;
	int cpu;
	__u32 pos;

	if (index >= 64)
		return 1;
	cpu = llc_cpu_at(walk->first, index);
	if (cpu < 0)
		return 1;
	pos = wrap_position(cpu, walk->target);
	/* A scan visits what the filter passes, up to its first hit. */
	for (unsigned int f = 0; f < SIS_NR_FILTERS; f++)
		if (auditing(f))
			dw->depth[f] += audit_depth_visits(walk, f, (__u32)index, pos);
	return 0;
}

/*
 * v4's select_idle_cpu() leaves the LLC sd_is_busy when a complete scan
 * found nothing (filter_v4.h): with an idle core, over the whole LLC;
 * without, over what the mask passed, if SIS_UTIL's limit let it finish.
 */
static __always_inline void v4_after_scan(const struct audit_walk *walk,
					  const struct depth_walk *dw,
					  const struct audit_facts *facts)
{
	const unsigned int f = SIS_FILTER_UNOCCUPIED;
	int limit = facts->nr_idle_scan;
	bool found, complete;
	__u32 *busy;

	if (!facts->domain_search || walk->v4_scan == V4_SCAN_NONE || walk->n > 64)
		return;
	found = walk->pass_and_free[f] &&
		(walk->v4_scan == V4_SCAN_LLC || limit < 0 || dw->depth[f] <= (__u32)limit);
	complete = limit < 0 || (limit > 0 && walk->pass_count[f] <= (__u32)limit);
	busy = v4_busy_of(walk->target);
	if (busy && v4_scan_leaves_busy(walk->v4_scan == V4_SCAN_LLC, found, complete))
		*busy = 1;
}

/* waker_prev: waker << 32 | prev. */
__noinline int audit_placement(__u64 task, __u64 waker_prev, int target,
			       int chosen, const struct audit_facts *facts)
{
	struct task_struct *p = (struct task_struct *)task;
	int waker = (int)(waker_prev >> 32), prev = (int)(__u32)waker_prev;
	struct depth_walk dw = {};
	struct audit_walk *walk;
	struct audit_ctx actx;
	bool domain_search;
	__u32 zero = 0, *busy;

	if (!audit_filters || !facts || target < 0 || llc_of(target) < 0)
		return 0;
	domain_search = facts->domain_search;
	walk = bpf_map_lookup_elem(&audit_walks, &zero);
	if (!walk)
		return 0;
	__builtin_memset(walk, 0, sizeof(*walk));
	walk->cpus_allowed = BPF_CORE_READ(p, cpus_ptr);
	walk->bank = facts->bank;
	walk->now = bpf_ktime_get_ns();
	walk->target = target;
	walk->first = llc_first_index(target);
	walk->n = llc_weight(target);
	walk->has_idle_core = facts->has_idle_core;
	busy = auditing(SIS_FILTER_UNOCCUPIED) ? v4_busy_of(target) : NULL;
	if (facts->has_idle_core) {
		/* v4 keeps has_idle_cores in its state: sd_has_icores, not busy. */
		walk->v4_scan = V4_SCAN_LLC;
		if (busy && schedscan_mutation.kind != MUTATION_FREEZE_FILTERS)
			*busy = 0;
	} else if ((decode_flags & SIS_DECODE_SMT) && busy && *busy) {
		/* The bail-out sits in SIS's sched_smt_active() block. */
		walk->v4_scan = V4_SCAN_NONE;
	}
	for (unsigned int f = 0; f < SIS_NR_FILTERS; f++)
		walk->best[f] = ~0U;
	if (real_idle_offset >= 0 || real_over_offset >= 0) {
		walk->shared = llc_shared(target);
		/* Once per wakeup, not per CPU. */
		walk->real_kind = real_mask_applied(facts->has_idle_core, &walk->real_offset);
		/* v4's bail-out sits in SIS's sched_smt_active() block, as the model's. */
		walk->real_hides_all = walk->real_kind == SIS_REAL_IDLE_CPUS &&
				       (decode_flags & SIS_DECODE_SMT) && facts->real_llc_busy;
	}
	actx.walk = walk;
	count_walk_steps(bpf_loop(walk->n, audit_cpu, &actx, 0));
	counter_add_if(walk->bank, &counters, SISSCAN_AUDITS, 1);
	counter_add_if(walk->bank, &counters, SISSCAN_AUDIT_CPUS, walk->cpus);
	counter_add_if(walk->bank, &counters, SISSCAN_AUDIT_UNOCCUPIED, walk->unoccupied_count);
	if (domain_search && walk->n <= 64) {
		dw.audit = walk;
		count_walk_steps(bpf_loop(walk->n, audit_depth_cpu, &dw, 0));
	} else if (domain_search) {
		counter_add_if(walk->bank, &counters, SISSCAN_AUDIT_TRUNCATED, 1);
	}
	if (auditing(SIS_FILTER_UNOCCUPIED) &&
	    schedscan_mutation.kind != MUTATION_FREEZE_FILTERS)
		v4_after_scan(walk, &dw, facts);
	for (unsigned int f = 0; f < SIS_NR_FILTERS; f++) {
		__u32 base = SISSCAN_FILTER_BASE + f * SIS_FC_STRIDE;

		if (!auditing(f))
			continue;
		counter_add_if(walk->bank, &counters, base + SIS_FC_PASSED, walk->pass_count[f]);
		counter_add_if(walk->bank, &counters, base + SIS_FC_FP, walk->fp[f]);
		counter_add_if(walk->bank, &counters, base + SIS_FC_FN, walk->fn[f]);
		if (walk->unoccupied_count && !walk->pass_and_free[f])
			counter_add_if(walk->bank, &counters, base + SIS_FC_HID_ALL, 1);
		if (auditing(SIS_FILTER_REAL))
			counter_add_if(walk->bank, &counters, base + SIS_FC_DISAGREE_REAL,
				       walk->disagree_real[f]);
		if (domain_search && walk->n <= 64)
			count_value(walk->bank, base + SIS_FC_DEPTH_HIST, dw.depth[f]);
	}
	/* The wakeup's one look at the flag: each record is counted, each count has its record. */
	if (emit_events && walk->bank) {
		struct sisscan_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

		if (!e) {
			counter_add_decided(walk->bank, &counters, SISSCAN_EVENTS_DROPPED, 1);
			return 0;
		}
		e->ts_ns = walk->now;
		e->pid = BPF_CORE_READ(p, pid);
		e->tgid = BPF_CORE_READ(p, tgid);
		e->waker = waker;
		e->prev = prev;
		e->target = target;
		e->chosen = chosen;
		e->llc = llc_of(target);
		e->nr_cpus = walk->n;
		e->domain_search = domain_search;
		e->domain_depth = facts->depth;
		e->allowed = walk->allowed;
		e->unoccupied = walk->unoccupied;
		for (unsigned int f = 0; f < SIS_NR_FILTERS; f++)
			e->passed[f] = walk->passed[f];
		bpf_ringbuf_submit(e, 0);
		counter_add_decided(walk->bank, &counters, SISSCAN_EVENTS, 1);
	}
	return 0;
}

static __always_inline int count_wakeup(struct task_struct *wakee);

TRACEPOINT_HOOK(sched_waking, count_wakeup(wakee), struct task_struct *wakee)

/*
 * The classic tracepoint carries no task pointer, so user space never
 * picks this flavour when a task filter is set (lib/hooks.c), and it
 * cannot start a placement estimate.
 */
SEC("tracepoint/sched/sched_waking")
int sched_waking__tp(struct trace_event_raw_sched_wakeup_template *ctx)
{
	/* The record's target_cpu is task_cpu(p) at this point: prev. */
	if (!cpu_selected(BPF_CORE_READ(ctx, target_cpu)))
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
	__u32 active;
	/*
	 * sd_llc_shared(target)->nr_idle_scan when S1 named target; -1: none
	 * or SIS_UTIL off. has_idle_cores, read at the same moment.
	 */
	int nr_idle_scan;
	bool has_idle_core;
	bool real_llc_busy;	/* v4's LLC state, read with has_idle_cores */
	bool target_seen;
};

SCHEDSCAN_PERCPU_STATE(select_states, struct select_state, this_select_state)

static __always_inline int select_enter(struct task_struct *wakee, int prev_cpu,
					int wake_flags)
{
	struct select_state *state;

	if (!cpu_selected(prev_cpu) || !task_selected(wakee))
		return 0;
	counter_add(&counters, SISSCAN_SELECT_CALLS, 1);
	/* Fork and exec balancing (WF_FORK, WF_EXEC) do not run SIS. */
	if (!(wake_flags & WF_TTWU))
		return 0;
	state = this_select_state();
	if (!state)
		return 0;
	sis_decode_begin(&state->decoder, bpf_get_smp_processor_id(), prev_cpu,
			 BPF_CORE_READ(wakee, recent_used_cpu), decode_flags);
	state->wakee = wakee;
	state->nr_idle_scan = -1;
	state->has_idle_core = false;
	state->real_llc_busy = false;
	state->target_seen = false;
	state->active = 1;
	state->start_ns = bpf_ktime_get_ns();
	return 0;
}

static __always_inline int idle_probe_seen(int cpu, int idle)
{
	struct select_state *state = this_select_state();

	if (!state || !state->active)
		return 0;
	sis_decode_probe(&state->decoder, cpu, idle,
			 same_core(cpu, state->decoder.prev));
	/*
	 * SIS_UTIL's budget as SIS starts (docs/sis-decoding.md), not at the
	 * exit, by when load balancing may have rewritten it.
	 */
	if (!state->target_seen && state->decoder.target >= 0) {
		state->target_seen = true;
		state->nr_idle_scan = sis_util_limit(state->decoder.target);
		state->has_idle_core = (decode_flags & SIS_DECODE_SMT) &&
				       llc_has_idle_cores(state->decoder.target);
		state->real_llc_busy = real_llc_busy(state->decoder.target);
	}
	return 0;
}

static __always_inline int share_cache_seen(int a, int b, bool shared)
{
	struct select_state *state = this_select_state();

	if (state && state->active)
		sis_decode_share_cache(&state->decoder, a, b, shared);
	return 0;
}

/*
 * S3: a per-CPU kthread waking a task whose prev is its own CPU, with
 * nothing else queued there, gets prev back with no probe (6.1-6.18
 * is_per_cpu_kthread(current) && in_task(); in_task() is not checked
 * here, an interrupt on a kthread's CPU is rare). Not a scan skipped by
 * SIS_UTIL.
 */
static __always_inline bool kthread_stacked(const struct sis_decoder *dec,
					    int chosen)
{
	struct task_struct *current = (struct task_struct *)bpf_get_current_task();
	struct rq *rq;

	if (chosen != dec->prev || dec->prev != dec->waker)
		return false;
	if (!(BPF_CORE_READ(current, flags) & PF_KTHREAD) ||
	    BPF_CORE_READ(current, nr_cpus_allowed) != 1)
		return false;
	rq = cpu_rq_of(dec->waker);
	return rq && BPF_CORE_READ(rq, nr_running) <= 1;
}

static __always_inline bool outcome_is_domain_search(unsigned int outcome,
						      int nr_idle_scan,
						      bool stacked)
{
	/* A scan SIS_UTIL cut to zero CPUs still entered select_idle_cpu(). */
	return outcome == SIS_OUT_DOMAIN_HIT || outcome == SIS_OUT_DOMAIN_FAILED ||
	       (outcome == SIS_OUT_SCAN_SKIPPED && nr_idle_scan == 0 && !stacked);
}

struct allowed_count {
	const struct cpumask *cpus_allowed;
	__u32 first, count;
};

static long count_allowed_cpu(__u64 index, void *ctx)
{
	struct allowed_count *walk = ctx;
	int cpu = llc_cpu_at(walk->first, index);

	if (cpu < 0)
		return 1;
	walk->count += cpumask_has(walk->cpus_allowed, cpu);
	return 0;
}

/* |LLC(cpu) & p->cpus_ptr|: the CPUs select_idle_cpu() may visit. */
static __always_inline __u32 llc_allowed_cpus(struct task_struct *p, int cpu)
{
	struct allowed_count walk = {};
	__u32 weight = llc_weight(cpu);

	if (BPF_CORE_READ(p, nr_cpus_allowed) >= nr_online_cpus)
		return weight;
	walk.cpus_allowed = BPF_CORE_READ(p, cpus_ptr);
	walk.first = llc_first_index(cpu);
	count_walk_steps(bpf_loop(weight, count_allowed_cpu, &walk, 0));
	return walk.count;
}

/*
 * SIS_UTIL's limit, not the end of LLC & allowed, stopped a failed scan:
 * nr_idle_scan CPUs probed out of more. An idle-core scan is never cut
 * (select_idle_cpu() decrements nr only without one).
 */
static __always_inline bool scan_cut_by_limit(const struct sis_decoder *dec,
					      struct task_struct *wakee,
					      int nr_idle_scan)
{
	if (nr_idle_scan <= 0 || dec->domain_probes < (unsigned int)nr_idle_scan ||
	    sis_decode_idle_core_scan(dec))
		return false;
	return (unsigned int)nr_idle_scan < llc_allowed_cpus(wakee, dec->target);
}

/* placed_prev, placed_waker, placed_recent or placed_other: the first chosen is. */
static __always_inline __u32 placement_class(int chosen, int prev, int waker, int recent)
{
	if (chosen == prev)
		return SISSCAN_TP_PREV;
	if (chosen == waker)
		return SISSCAN_TP_WAKER;
	if (chosen == recent)
		return SISSCAN_TP_RECENT;
	return SISSCAN_TP_OTHER;
}

/*
 * 7.3 inlines choose_idle_cpu() into select_idle_cpu()'s loop (it stays a
 * call at S1, S2 and S4): the domain scan's probes are not seen, and a
 * scan ends the decode as if none ran. Estimate it as the tracepoint tier
 * does: a returned CPU of target's LLC that no fast-path stage named was
 * found by the scan, at its wrap position from target + 1; target
 * returned after a scan SIS_UTIL let run is a failed scan of SIS_UTIL's
 * limit, or of LLC & allowed without it. The metrics say "estimated"
 * there (sisscan.c). dec->domain_probes takes the estimated depth.
 */
static __always_inline unsigned int scan_estimated(struct select_state *state,
						   int chosen, unsigned int outcome)
{
	struct sis_decoder *dec = &state->decoder;
	struct placement placed;
	int depth, allowed;

	if (!(decode_flags & SIS_DECODE_CHOOSE_IDLE) || outcome != SIS_OUT_SCAN_SKIPPED ||
	    dec->domain_probes || dec->target < 0)
		return outcome;
	if (chosen != dec->target && chosen != dec->prev &&
	    (chosen != dec->recent || !dec->recent_probed) &&
	    same_llc(chosen, dec->target)) {
		check_placement((__u64)state->wakee, chosen, dec->target, 0, &placed);
		dec->domain_probes = placed.depth;
		return SIS_OUT_DOMAIN_HIT;
	}
	if (state->nr_idle_scan == 0 || kthread_stacked(dec, chosen))
		return outcome;
	depth = state->nr_idle_scan;
	if (depth < 0 && sched_feature_on(sis_util_feature))
		return outcome;
	allowed = llc_allowed_cpus(state->wakee, dec->target);
	if (depth < 0 || depth > allowed)
		depth = allowed;
	dec->domain_probes = depth;
	return SIS_OUT_DOMAIN_FAILED;
}

static __always_inline int select_exit(int chosen)
{
	struct select_state *state = this_select_state();
	struct breakdown_counts counts = { .target = -1, .chosen = chosen };
	struct audit_facts facts = {};
	struct sis_decoder *dec;
	struct placement placed;
	unsigned int outcome;
	int nr_idle_scan;
	__u64 elapsed;

	if (!state || !state->active)
		return 0;
	/* One look at the window for every count of this wakeup. */
	counts.bank = counting();
	elapsed = bpf_ktime_get_ns() - state->start_ns;
	state->active = 0;
	/* A decode hook is missing: the tracepoints place this wakeup. */
	if (tp_placement)
		return 0;
	dec = &state->decoder;
	check_placement((__u64)state->wakee, chosen, -1, 0, &placed);
	counter_add_if(counts.bank, &counters, SISSCAN_PLACEMENTS, 1);
	if (placed.chosen_unoccupied)
		counter_add_if(counts.bank, &counters, SISSCAN_PLACED_UNOCCUPIED, 1);
	if (placed.missed_idle)
		counter_add_if(counts.bank, &counters, SISSCAN_MISSED_IDLE, 1);
	counts.unoccupied = placed.chosen_unoccupied;
	counts.missed = placed.missed_idle;
	/* The tracepoint tier's classes, exact here (no placement is lost). */
	counter_add_if(counts.bank, &counters,
		       placement_class(chosen, dec->prev, dec->waker, dec->recent), 1);
	outcome = sis_decode_finish(dec, chosen, placed.chosen_unoccupied);
	outcome = scan_estimated(state, chosen, outcome);
	if (outcome >= SIS_NR_OUTCOMES)
		return 0;
	counter_add_if(counts.bank, &counters, SISSCAN_OUTCOME + outcome, 1);
	if (outcome == SIS_OUT_NO_SIS) {
		count_breakdown((__u64)state->wakee, &counts);
		return 0;
	}
	counter_add_if(counts.bank, &counters, SISSCAN_IDLE_PROBES, dec->probes);
	count_value(counts.bank, SISSCAN_PROBES_HIST, dec->probes);
	count_ns(counts.bank, SISSCAN_SELECT_TIME_HIST, elapsed);
	/* Mel Gorman's sis_scanned: the fast path counts as one scan. */
	counter_add_if(counts.bank, &counters, SISSCAN_SIS_SCANNED,
		    1 + dec->smt_probes + dec->domain_probes);
	if (dec->recent_probed && outcome != SIS_OUT_RECENT_HIT)
		counter_add_if(counts.bank, &counters, SISSCAN_SIS_RECENT_MISS, 1);
	nr_idle_scan = state->nr_idle_scan;
	counts.target = dec->target;
	counts.domain_search = outcome_is_domain_search(outcome, nr_idle_scan,
							outcome == SIS_OUT_SCAN_SKIPPED &&
							kthread_stacked(dec, chosen));
	counts.failed = counts.domain_search && outcome != SIS_OUT_DOMAIN_HIT;
	counts.depth = dec->domain_probes;
	count_breakdown((__u64)state->wakee, &counts);
	facts.depth = dec->domain_probes;
	facts.domain_search = counts.domain_search;
	facts.has_idle_core = state->has_idle_core;
	facts.real_llc_busy = state->real_llc_busy;
	facts.nr_idle_scan = nr_idle_scan;
	facts.bank = counts.bank;
	audit_placement((__u64)state->wakee, pack_cpus(dec->waker, dec->prev),
			dec->target, chosen, &facts);
	/* All of this wakeup's counts went to one bank: user space reads whole wakeups. */
	counter_add_if(counts.bank, &counters, SISSCAN_SIS_SEARCH, 1);
	if (!counts.domain_search)
		return 0;
	counter_add_if(counts.bank, &counters, SISSCAN_SIS_DOMAIN_SEARCH, 1);
	counter_add_if(counts.bank, &counters, SISSCAN_SIS_DOMAIN_SCANNED, dec->domain_probes);
	count_value(counts.bank, SISSCAN_DEPTH_HIST, dec->domain_probes);
	if (nr_idle_scan >= 0)
		count_value(counts.bank, SISSCAN_NR_IDLE_SCAN_HIST, nr_idle_scan);
	if (!counts.failed)
		return 0;
	counter_add_if(counts.bank, &counters, SISSCAN_SIS_FAILED, 1);
	if (outcome == SIS_OUT_SCAN_SKIPPED)
		counter_add_if(counts.bank, &counters, SISSCAN_SIS_UTIL_SKIPPED, 1);
	else if (scan_cut_by_limit(dec, state->wakee, nr_idle_scan))
		counter_add_if(counts.bank, &counters, SISSCAN_SIS_UTIL_LIMITED, 1);
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

/*
 * fexit hands over the whole return register: the x86-64 ABI defines only
 * its low 32 bits for an int and its low 8 for a bool, and the rest can
 * hold anything (cpus_share_cache() ends in a sete, so a false result
 * often read as true: 40% of hackbench's searches undecoded on the SMT
 * guest). Take the register whole and keep the bits the type defines.
 */
SEC("fexit/available_idle_cpu")
int BPF_PROG(available_idle_cpu__fexit, int cpu)
{
	__u64 ret = 0;

	/* by helper: choose_idle_cpu() has a second argument before it */
	bpf_get_func_ret(ctx, &ret);
	return idle_probe_seen(cpu, (__u32)ret != 0);
}

/*
 * kprobe tier: entry probes only. A kretprobe would replace the caller's
 * return address by its trampoline for every call, which also hides the
 * caller from any other tracer (the guest tests count the calls made from
 * select_task_rq_fair() by that address). The result is what the function
 * computes at that instant: idle_cpu() from the runqueue (without the
 * paravirt vcpu_is_preempted() term) ...
 */
SEC("kprobe/available_idle_cpu")
int BPF_KPROBE(available_idle_cpu__kprobe, int cpu)
{
	struct select_state *state = this_select_state();
	struct rq *rq;

	if (!state || !state->active)
		return 0;
	rq = cpu_rq_of(cpu);
	/* choose_idle_cpu() also takes a sched-idle CPU for a normal wakee */
	return idle_probe_seen(cpu, rq && (rq_idle(rq, 0) ||
					   ((decode_flags & SIS_DECODE_CHOOSE_IDLE) &&
					    rq_sched_idle_for(rq, state->wakee))));
}

/*
 * 7.3: select_idle_core(p, core, cpus, idle_cpu) is a function, and the
 * available_idle_cpu() calls it makes on the core's siblings are inlined.
 * Replay them at its entry from the runqueues, in fair.c's order, so the
 * decoder sees the sequence the earlier kernels show it: each sibling
 * probed until a busy one ends the walk (a busy one is passed over while
 * no idle CPU is remembered, and a sched-idle allowed one is remembered
 * and ends it). The kernel reads the same runqueues a moment later.
 */
static __always_inline int idle_core_replay(struct task_struct *p, int core,
					    const struct cpumask *cpus, int *idle_cpu_at)
{
	struct select_state *state = this_select_state();
	const struct v4_core *siblings;
	__u32 key = core;
	__s32 *index;
	int idle_cpu = -1;

	if (!state || !state->active || !(decode_flags & SIS_DECODE_CHOOSE_IDLE))
		return 0;
	index = bpf_map_lookup_elem(&smt_core, &key);
	if (!index || *index < 0)
		return 0;
	key = *index;
	siblings = bpf_map_lookup_elem(&v4_cores, &key);
	if (!siblings)
		return 0;
	bpf_probe_read_kernel(&idle_cpu, sizeof(idle_cpu), idle_cpu_at);
	for (int i = 0; i < V4_MAX_SIBLINGS; i++) {
		int cpu;
		struct rq *rq;
		bool idle;

		if (i >= siblings->nr)
			break;
		cpu = siblings->cpus[i];
		rq = cpu_rq_of(cpu);
		idle = rq && rq_idle(rq, 0);
		idle_probe_seen(cpu, idle);
		if (!idle) {
			if (idle_cpu != -1)
				break;
			if (rq && rq_sched_idle_for(rq, p) && cpumask_has(cpus, cpu))
				break;
			continue;
		}
		if (idle_cpu == -1 && cpumask_has(cpus, cpu))
			idle_cpu = cpu;
	}
	return 0;
}

SEC("fentry/select_idle_core")
int BPF_PROG(select_idle_core__fentry, struct task_struct *p, int core,
	     struct cpumask *cpus, int *idle_cpu)
{
	return idle_core_replay(p, core, cpus, idle_cpu);
}

SEC("kprobe/select_idle_core")
int BPF_KPROBE(select_idle_core__kprobe, struct task_struct *p, int core,
	       struct cpumask *cpus, int *idle_cpu)
{
	return idle_core_replay(p, core, cpus, idle_cpu);
}

SEC("fexit/cpus_share_cache")
int BPF_PROG(cpus_share_cache__fexit, int a, int b, __u64 ret)
{
	return share_cache_seen(a, b, (__u8)ret != 0);
}

/* ... and sd_llc_id equality, i.e. the same learnt LLC. */
SEC("kprobe/cpus_share_cache")
int BPF_KPROBE(cpus_share_cache__kprobe, int a, int b)
{
	return share_cache_seen(a, b, same_llc(a, b));
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
	bool want_affine;		/* select_task_rq_fair() will try wake_affine() */
};

/*
 * Pending placements, direct-mapped by PID: sched_wakeup of a queued
 * remote wakeup runs on the chosen CPU, so a per-CPU slot of the waker
 * would not be found there. A collision (two wakeups in flight whose PIDs
 * share a slot) loses the older one: placements_lost counts those.
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

/* The kernel's HZ for record_wakee()'s decay (user space: the config, or 250). */
const volatile __u32 kernel_hz = 250;

/*
 * want_affine as select_task_rq_fair() will compute it for this wakeup
 * (6.1-6.18): !wake_wide(p) and the waker's CPU allowed. sched_waking
 * runs before it, so record_wakee() is replayed first: the waker's
 * wakee_flips halve once a second has passed since its last decay, and
 * grow by one when it wakes a different task than last time.
 */
static __always_inline bool tp_want_affine(struct task_struct *p, int waker_cpu)
{
	struct task_struct *current = (struct task_struct *)bpf_get_current_task();
	unsigned int master = BPF_CORE_READ(current, wakee_flips);
	unsigned int slave = BPF_CORE_READ(p, wakee_flips), factor = llc_weight(waker_cpu);
	unsigned long decay_ts = BPF_CORE_READ(current, wakee_flip_decay_ts);
	unsigned long hz = kernel_hz;

	if (!cpumask_has(BPF_CORE_READ(p, cpus_ptr), waker_cpu))
		return false;
	if ((long)(bpf_jiffies64() - (decay_ts + hz)) > 0)
		master >>= 1;
	if (BPF_CORE_READ(current, last_wakee) != p)
		master++;
	if (master < slave) {
		unsigned int t = master;

		master = slave;
		slave = t;
	}
	/* wake_wide(): sd_llc_size of the waker's CPU is the factor. */
	return slave < factor || master < slave * factor;
}

static __always_inline int count_wakeup(struct task_struct *wakee)
{
	struct tp_wakeup *pending;

	/* -C selects the wakee by the CPU it last ran on, as the filters do. */
	if (!cpu_selected(task_cpu_of(wakee)) || !task_selected(wakee))
		return 0;
	/*
	 * Still on a runqueue (6.12+: often a delayed dequeue): after this
	 * tracepoint try_to_wake_up() takes ttwu_runnable() and selects no
	 * CPU, so these never reach select_task_rq_fair().
	 */
	if (task_on_rq(wakee))
		counter_add(&counters, SISSCAN_WAKEUPS_IN_PLACE, 1);
	counter_add(&counters, SISSCAN_WAKEUPS, 1);
	if (!tp_placement)
		return 0;
	pending = tp_slot(wakee);
	if (!pending)
		return 0;
	/* Still queued (ttwu_runnable()) or waking itself: no selection. */
	if (task_on_rq(wakee) ||
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
	pending->want_affine = tp_want_affine(wakee, pending->waker);
	/* Read before select_idle_sibling() overwrites it with prev. */
	pending->recent = BPF_CORE_READ(wakee, recent_used_cpu);
	return 0;
}

/*
 * SIS's target: prev without want_affine (wake_wide(), or the waker's CPU
 * not allowed); otherwise wake_affine()'s pick, taken as the waker when it
 * shares chosen's LLC (the scan stays in target's LLC). Its WF_SYNC and
 * load comparisons, which may keep prev, are not visible here.
 */
static __always_inline int tp_scan_target(const struct tp_wakeup *wakeup,
					  int chosen)
{
	if (wakeup->want_affine && same_llc(chosen, wakeup->waker))
		return wakeup->waker;
	return wakeup->prev;
}

/*
 * enqueued: at sched_wakeup, the wakee already on chosen's runqueue.
 * queued: that sched_wakeup runs on chosen for a wakeup queued by another
 * CPU, possibly tens of microseconds after the choice.
 */
static __always_inline void tp_place(const struct tp_wakeup *wakeup, int chosen,
				     bool enqueued, bool queued)
{
	/* From the map, a plain address: what the global functions take. */
	__u64 task = (__u64)wakeup->wakee;
	struct breakdown_counts counts = {
		.chosen = chosen, .target = tp_scan_target(wakeup, chosen),
	};
	struct audit_facts facts = {};
	struct placement placed;
	int target = -1, depth = 0;
	__u32 class;

	/* One look at the window for every count of this wakeup. */
	counts.bank = counting();
	class = placement_class(chosen, wakeup->prev, wakeup->waker, wakeup->recent);
	/* Where chosen sits in the scan order: wanted off the fast path only. */
	if (class == SISSCAN_TP_OTHER)
		target = counts.target;
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
		check_placement(task, chosen, target, enqueued, &placed);
	}
	counter_add_if(counts.bank, &counters, class, 1);
	counter_add_if(counts.bank, &counters, SISSCAN_TP_PLACEMENTS, 1);
	if (placed.chosen_unoccupied)
		counter_add_if(counts.bank, &counters, SISSCAN_TP_PLACED_UNOCCUPIED, 1);
	if (placed.missed_idle)
		counter_add_if(counts.bank, &counters, SISSCAN_TP_MISSED_IDLE, 1);
	/* An unoccupied prev, waker or recent CPU: the fast path took it. */
	counts.domain_search = class == SISSCAN_TP_OTHER || !placed.chosen_unoccupied;
	if (counts.domain_search) {
		counter_add_if(counts.bank, &counters, SISSCAN_TP_DOMAIN_SEARCH, 1);
		if (class == SISSCAN_TP_OTHER && placed.chosen_unoccupied) {
			depth = placed.depth;
		} else {
			/*
			 * A failed scan probed up to SIS_UTIL's limit, or all of
			 * LLC & allowed with SIS_UTIL off.
			 */
			counter_add_if(counts.bank, &counters, SISSCAN_TP_FAILED, 1);
			counts.failed = true;
			depth = sis_util_limit(chosen);
			if (depth < 0 && !sched_feature_on(sis_util_feature))
				depth = llc_allowed_cpus((struct task_struct *)task, chosen);
			if (depth < 0)
				depth = 0;
		}
		count_value(counts.bank, SISSCAN_TP_DEPTH_HIST, depth);
	}
	counter_add_if(counts.bank, &counters, SISSCAN_TP_SCANNED, 1 + depth);
	counts.unoccupied = placed.chosen_unoccupied;
	counts.missed = placed.missed_idle;
	counts.depth = depth;
	count_breakdown(task, &counts);
	/* After the choice, not as SIS began: the estimate's own approximation. */
	facts.depth = depth;
	facts.domain_search = counts.domain_search;
	facts.has_idle_core = (decode_flags & SIS_DECODE_SMT) && llc_has_idle_cores(counts.target);
	facts.real_llc_busy = real_llc_busy(counts.target);
	facts.nr_idle_scan = sis_util_limit(counts.target);
	facts.bank = counts.bank;
	audit_placement(task, pack_cpus(wakeup->waker, wakeup->prev),
			counts.target, chosen, &facts);
	counter_add_if(counts.bank, &counters, SISSCAN_TP_SIS_SEARCH, 1);
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
	if (!pending || pending->wakee != p || task_on_rq(p) ||
	    pending->waker != (int)bpf_get_smp_processor_id())
		return 0;
	tp_place(pending, dest_cpu, false, false);
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
	tp_place(pending, task_cpu_of(p), true,
		 pending->waker != (int)bpf_get_smp_processor_id());
	pending->wakee = NULL;
	return 0;
}

/* Attached only until every CPU's runqueue is known (lib/cpustate.c). */
TRACEPOINT_HOOK(sched_update_nr_running_tp, learn_rq(rq), struct rq *rq)

TRACEPOINT_HOOK(sched_migrate_task, tp_migrate(p, dest_cpu),
		struct task_struct *p, int dest_cpu)
TRACEPOINT_HOOK(sched_wakeup, tp_wakeup(p), struct task_struct *p)

/* Filter audit updates: attached only with --filter. */
TRACEPOINT_HOOK(hrtimer_expire_entry, filter_tick(timer), struct hrtimer *timer)
TRACEPOINT_HOOK(sched_switch, filter_switch(next), bool preempt,
		struct task_struct *prev, struct task_struct *next)
