// SPDX-License-Identifier: GPL-2.0
/*
 * idlebal BPF side: one program per flavour and hook, named
 * "<hook>__<flavour>" for lib/hooks.c. load_balance() was renamed
 * sched_balance_rq() in 6.10 (find_busiest_group() with it); user space
 * retargets the fentry programs and the kprobes to whichever the kernel
 * has. Every number is defined in docs/metrics.md.
 *
 * Balance passes are followed per CPU running them: a pass cannot nest
 * on a CPU (periodic and nohz balancing run in the SCHED softirq, newidle
 * balancing with interrupts off in __schedule()), so one per-CPU record
 * holds the pass in flight and its outcome is decided at its exit from
 * what the helpers it called saw (docs/metrics.md, "Balance passes").
 */
#include "schedscan.bpf.h"
#include "table.bpf.h"
#include "rq.bpf.h"
#include "idlebal.h"

SCHEDSCAN_COUNTER_MAP(counters, IDLEBAL_NR_COUNTERS);

/* Rows per domain (and CPU with --per-cpu): 1 with -1 as the CPU otherwise. */
const volatile bool per_cpu_rows = false;
/*
 * Runnable counts that change without an nr_running change (delayed
 * dequeue, 6.12+, h_nr_runnable): the overload state is then also
 * recomputed at sched_switch and sched_wakeup.
 */
const volatile bool track_runnable = false;
/* nohz_csd_func's address, for the csd tracepoints (0: not used). */
const volatile __u64 nohz_csd_func_addr = 0;
/* active_load_balance_cpu_stop() is hooked: other stopper moves are not active balancing. */
const volatile bool alb_hooked = false;
/*
 * need_active_balance() is inlined (7.3): a pass failed when it counted
 * its domain's lb_failed[idle] (schedstats on), read around the pass.
 */
const volatile bool failed_from_schedstats = false;

/* User space sets it once the CPUs' overload groups are filled in. */
volatile __u32 overload_ready;

/* Keyed by CPU; sized to nr_cpu_ids by user space. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct idlebal_cpu);
} cpu_states SEC(".maps");

/* Sized by user space: domains x idle types (x CPUs with --per-cpu). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 1);
	__type(key, struct idlebal_domain_key);
	__type(value, struct idlebal_domain_row);
} domains SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 1);
	__type(key, struct idlebal_alb_key);
	__type(value, struct idlebal_alb_row);
} active_balance SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, IDLEBAL_NR_CAUSES);
	__type(key, __u32);
	__type(value, struct idlebal_migration_row);
} migration_causes SEC(".maps");

/* Overload groups: written by every CPU of the group with atomics. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct idlebal_overload_group);
} overload_llc SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct idlebal_overload_group);
} overload_node SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct idlebal_overload_group);
} overload_system SEC(".maps");

/* Each CPU's groups and last state, written under that runqueue's lock. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct idlebal_rq_state);
} rq_states SEC(".maps");

/* Idle load balance per CPU, written only by that CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct idlebal_ilb_row);
} ilb_cpus SEC(".maps");

/*
 * Tasks that NUMA balancing (sched_move_numa, sched_swap_numa) or exec
 * balancing (sched_exec()) is about to move through the stopper: the
 * migration that follows, in the stopper or at the wakeup that ends the
 * caller's wait for it, is theirs.
 */
struct task_mark {
	__u64 ns;
	__u32 cause;
	__u32 pad;
};

#define MARK_TTL_NS (20ULL * 1000 * 1000)

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct task_mark);
} task_marks SEC(".maps");

/* include/linux/sched.h and kernel/sched/fair.c #defines (not in BTF). */
#define TASK_WAKING 0x00000200
#define TASK_ON_RQ_QUEUED 1
#define TASK_ON_RQ_MIGRATING 2
#define TASK_RUNNING 0x00000000
#define MAX_RT_PRIO 100
#define LBF_ACTIVE_LB 0x10
/* The softirq enum is anonymous, so no CO-RE name for it: stable since 2.6. */
#define SCHED_SOFTIRQ 7

struct lb_pass {
	__u64 start_ns;
	__u64 env;		/* struct lb_env * of the last find_busiest_group() */
	__s64 imbalance;	/* ... and its result */
	__u64 sd;
	__s32 cpu;
	__u32 domain, idle, bank, active;
	__u32 gained, hot_gained, nobusyg, nobusyq;
	__u32 group_found, busiest, failed, migration_type;
	__u32 lb_failed_at_entry, kernel_idle;
	__u64 imbalance_sum[4];
};

struct alb_run {
	__u32 active, bank, tried, pushed;
	__s32 cpu;		/* the target: the CPU whose domain it is */
	__u32 domain;
	__u64 sd;
};

struct newidle_run {
	__u64 start_ns;
	__u32 active, bank;
	__u32 entry_class;	/* IDLEBAL_NEWIDLE_SKIPPED_* decided at entry, or 0 */
	__u32 passes, pulled;
	__u32 nr_domains;
	__u32 calls[IDLEBAL_MAX_DOMAINS];	/* sd->newidle_call at entry */
	__u32 passes_at[IDLEBAL_MAX_DOMAINS];
	__u64 rq;
};

/* What the CPU running a program is in the middle of. */
struct cpu_context {
	struct lb_pass lb;
	struct alb_run alb;
	struct newidle_run newidle;
	__u32 in_sched_softirq;	/* SCHED_SOFTIRQ running here */
	__u32 nohz;		/* ... as the idle load balancer */
	__u32 in_kick;		/* nohz_csd_func() running here */
	__u32 pad;
};

SCHEDSCAN_PERCPU_STATE(cpu_contexts, struct cpu_context, this_context)

/* ------------------------------------------------------------ migrations */

/*
 * Seed 001's task_h_idle(): SCHED_IDLE, or queued below a cfs_rq of an
 * idle cgroup (cfs_rq->idle, FAIR_GROUP_SCHED).
 */
static __always_inline bool task_h_idle(struct task_struct *p)
{
	struct sched_entity *se = &p->se;

	if (BPF_CORE_READ(p, policy) == SCHED_IDLE)
		return true;
	if (!bpf_core_field_exists(se->cfs_rq) || !bpf_core_field_exists(p->se.cfs_rq->idle))
		return false;
	for (int depth = 0; depth < SCHEDSCAN_CGROUP_MAX_DEPTH && se; depth++) {
		if (BPF_CORE_READ(se, cfs_rq, idle) > 0)
			return true;
		se = BPF_CORE_READ(se, parent);
	}
	return false;
}

/* 6.12+: a sleeper whose dequeue was delayed stays queued. */
struct sched_entity___delayed {
	unsigned char sched_delayed;
} __attribute__((preserve_access_index));

static __always_inline bool dequeue_delayed(struct task_struct *p)
{
	struct sched_entity___delayed *se = (void *)&p->se;

	return bpf_core_field_exists(se->sched_delayed) && BPF_CORE_READ(se, sched_delayed);
}

/*
 * The runqueue's running task, when it is a runnable non-idle CFS task:
 * one of the runnable non-idle tasks, whatever the counters say. 7.3
 * ends a delayed dequeue (fair.c __dequeue_task()) by taking the task off
 * h_nr_runnable a second time, firing sched_update_nr_running_tp there,
 * and only then putting it back (clear_delayed()), so the count reads
 * one short at that event: a spinner's CPU whose delayed sleeper was
 * dequeued at a pick that kept the spinner read 0 runnable,
 * "unoccupied", until its next event. A task on its way to sleep is not
 * TASK_RUNNING, so it is not counted here.
 */
static __always_inline bool curr_runnable_nonidle(struct rq *rq)
{
	struct task_struct *curr = BPF_CORE_READ(rq, curr);
	unsigned int policy;

	if (!curr || BPF_CORE_READ(curr, pid) == 0)
		return false;
	policy = BPF_CORE_READ(curr, policy);
	if (policy != SCHED_NORMAL && policy != SCHED_BATCH)
		return false;
	return BPF_CORE_READ(curr, __state) == TASK_RUNNING &&
	       task_on_rq(curr) == TASK_ON_RQ_QUEUED && !dequeue_delayed(curr) &&
	       !task_h_idle(curr);
}

/*
 * Runnable non-idle CFS tasks, less the SCHED_IDLE ones (seed 001's
 * cfs_rq_overloaded() operand).
 */
static __always_inline __u32 rq_nonidle_runnable(struct rq *rq)
{
	/* (cfs_rq_h_nr_runnable() reads 7.3's count below zero as 0) */
	__u32 runnable = cfs_rq_h_nr_runnable(&rq->cfs), idle = cfs_rq_h_nr_idle(&rq->cfs);
	__u32 nonidle = runnable > idle ? runnable - idle : 0;

	return nonidle ? nonidle : curr_runnable_nonidle(rq);
}

/* A kernel thread whose name begins with prefix ("ksoftirqd/", ...). */
static __always_inline bool kthread_named(struct task_struct *p, const char *prefix,
					  int len)
{
	char comm[SCHEDSCAN_COMM_LEN];

	if (!(BPF_CORE_READ(p, flags) & PF_KTHREAD))
		return false;
	BPF_CORE_READ_STR_INTO(&comm, p, comm);
	for (int i = 0; i < len && i < SCHEDSCAN_COMM_LEN; i++)
		if (comm[i] != prefix[i])
			return false;
	return true;
}

/* The CPU's stopper thread, migration/N, runs active balancing and affinity moves. */
static __always_inline bool stopper_running(void)
{
	return kthread_named((struct task_struct *)bpf_get_current_task(), "migration/", 10);
}

static __always_inline __u32 balance_cause(const struct cpu_context *ctx)
{
	if (ctx->in_sched_softirq)
		return ctx->nohz ? CAUSE_NOHZ : CAUSE_PERIODIC;
	return CAUSE_NEWIDLE;
}

static __always_inline __u32 migration_cause(struct task_struct *p, int orig_cpu,
					     const struct cpu_context *ctx)
{
	__u32 pid = BPF_CORE_READ(p, pid);
	struct task_mark *mark = bpf_map_lookup_elem(&task_marks, &pid);
	bool waking = BPF_CORE_READ(p, __state) & TASK_WAKING;

	/*
	 * The marked move happens in the stopper, or at the wakeup that ends
	 * the caller's wait for it (migration_cpu_stop() only sets wake_cpu
	 * for a task that is not queued); a mark older than that is stale.
	 */
	if (mark) {
		__u32 cause = mark->cause;
		bool fresh = bpf_ktime_get_ns() - mark->ns < MARK_TTL_NS;

		bpf_map_delete_elem(&task_marks, &pid);
		if (fresh && (waking || stopper_running()))
			return cause;
	}
	/*
	 * First: a task that may no longer run where it is moves for that,
	 * also through the wakeup that ends its wait for the stopper (a
	 * task changing its own affinity sleeps while the stopper runs).
	 */
	if (orig_cpu < 0 || !cpumask_has(BPF_CORE_READ(p, cpus_ptr), orig_cpu))
		return CAUSE_AFFINITY;
	if (waking)
		return CAUSE_WAKEUP;
	if (BPF_CORE_READ(p, prio) < MAX_RT_PRIO)
		return CAUSE_OTHER;
	if (ctx->alb.active)
		return CAUSE_ACTIVE;
	if (stopper_running())
		/* Without the active-balance hook, the stopper's moves are taken for it. */
		return alb_hooked ? CAUSE_OTHER : CAUSE_ACTIVE;
	if (task_on_rq(p) == TASK_ON_RQ_MIGRATING)
		return balance_cause(ctx);
	return CAUSE_OTHER;
}

static __always_inline int count_migration(struct task_struct *task, int dest_cpu)
{
	struct idlebal_migration_row *row;
	struct cpu_context *ctx;
	__u32 bank, cause;
	int orig;

	if (!cpu_selected(dest_cpu) || !task_selected(task))
		return 0;
	bank = counting();
	if (!bank)
		return 0;
	counter_add_if(bank, &counters, IDLEBAL_MIGRATIONS, 1);
	ctx = this_context();
	if (!ctx)
		return 0;
	/* set_task_cpu() fires the tracepoint before it changes the CPU. */
	orig = task_cpu_of(task);
	cause = migration_cause(task, orig, ctx);
	row = bpf_map_lookup_elem(&migration_causes, &cause);
	if (!row || mutation_drops())
		return 0;
	table_row_add(row->values, MIG_MIGRATIONS, bank, 1);
	if (task_h_idle(task)) {
		table_row_add(row->values, MIG_IDLE_TASKS, bank, 1);
	} else if (cause == CAUSE_PERIODIC || cause == CAUSE_NEWIDLE || cause == CAUSE_NOHZ ||
		   cause == CAUSE_ACTIVE) {
		/* A load balancer's pull; dequeued already: what the source runqueue has left. */
		struct rq *src = cpu_rq_of(orig);

		if (src && !rq_nonidle_runnable(src))
			table_row_add(row->values, MIG_LAST_NONIDLE, bank, 1);
	}
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

static __always_inline int mark_task(struct task_struct *p, __u32 cause)
{
	__u32 pid;
	struct task_mark mark = { .ns = bpf_ktime_get_ns(), .cause = cause };

	if (!p)
		return 0;
	pid = BPF_CORE_READ(p, pid);
	bpf_map_update_elem(&task_marks, &pid, &mark, BPF_ANY);
	return 0;
}

TRACEPOINT_HOOK(sched_move_numa, mark_task(p, CAUSE_NUMA), struct task_struct *p)

TRACEPOINT_HOOK(sched_swap_numa,
		mark_task(src_tsk, CAUSE_NUMA) + mark_task(dst_tsk, CAUSE_NUMA),
		struct task_struct *src_tsk, int src_cpu, struct task_struct *dst_tsk)

/* sched_exec() returns once the stopper moved the task, or chose not to. */
static __always_inline int unmark_current(void)
{
	__u32 pid = bpf_get_current_pid_tgid();

	bpf_map_delete_elem(&task_marks, &pid);
	return 0;
}

SEC("fentry/sched_exec")
int BPF_PROG(sched_exec__fentry)
{
	return mark_task((struct task_struct *)bpf_get_current_task(), CAUSE_EXEC);
}

SEC("fexit/sched_exec")
int BPF_PROG(sched_exec__fexit)
{
	return unmark_current();
}

SEC("kprobe/sched_exec")
int BPF_KPROBE(sched_exec__kprobe)
{
	return mark_task((struct task_struct *)bpf_get_current_task(), CAUSE_EXEC);
}

SEC("kretprobe/sched_exec")
int BPF_KRETPROBE(sched_exec__kretprobe)
{
	return unmark_current();
}

/* ------------------------------------------------------- SCHED softirq */

/* One idle load balance event of a CPU: the scalar counter and its row. */
static __always_inline void ilb_count(__u32 cpu, __u32 bank, __u32 counter, __u32 value)
{
	struct idlebal_ilb_row *row = bpf_map_lookup_elem(&ilb_cpus, &cpu);

	counter_add_if(bank, &counters, counter, 1);
	if (row && !mutation_drops())
		table_row_add(row->values, value, bank, 1);
}

static __always_inline int softirq_enter(__u32 vec)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct cpu_context *ctx;
	struct rq *rq;

	if (vec != SCHED_SOFTIRQ)
		return 0;
	ctx = this_context();
	if (!ctx)
		return 0;
	ctx->in_sched_softirq = 1;
	rq = cpu_rq_of(cpu);
	/* nohz_idle_balance(): kick flags left by nohz_csd_func() on an idle CPU. */
	ctx->nohz = rq && BPF_CORE_READ(rq, nohz_idle_balance) &&
		    BPF_CORE_READ(rq, idle_balance);
	if (ctx->nohz && cpu_selected(cpu))
		ilb_count(cpu, counting(), IDLEBAL_ILB_RUNS, ILB_RUNS);
	return 0;
}

static __always_inline int softirq_leave(__u32 vec)
{
	struct cpu_context *ctx;

	if (vec != SCHED_SOFTIRQ)
		return 0;
	ctx = this_context();
	if (ctx)
		ctx->in_sched_softirq = ctx->nohz = 0;
	return 0;
}

TRACEPOINT_HOOK(softirq_entry, softirq_enter(vec_nr), unsigned int vec_nr)
TRACEPOINT_HOOK(softirq_exit, softirq_leave(vec_nr), unsigned int vec_nr)

SEC("tracepoint/irq/softirq_entry")
int softirq_entry__tp(struct trace_event_raw_softirq *ctx)
{
	return softirq_enter(BPF_CORE_READ(ctx, vec));
}

SEC("tracepoint/irq/softirq_exit")
int softirq_exit__tp(struct trace_event_raw_softirq *ctx)
{
	return softirq_leave(BPF_CORE_READ(ctx, vec));
}

/* ----------------------------------------------------- idle load balance */

static __always_inline int kick_enter(void)
{
	struct cpu_context *ctx = this_context();

	if (ctx)
		ctx->in_kick = 1;
	return 0;
}

/* nohz_csd_func() sets rq->idle_balance = idle_cpu(): 0 if it turned busy. */
static __always_inline int kick_leave(void)
{
	__u32 cpu = bpf_get_smp_processor_id(), bank;
	struct cpu_context *ctx = this_context();
	struct rq *rq;

	if (!ctx || !ctx->in_kick)
		return 0;
	ctx->in_kick = 0;
	bank = counting();
	if (!bank || !cpu_selected(cpu))
		return 0;
	rq = cpu_rq_of(cpu);
	ilb_count(cpu, bank, IDLEBAL_ILB_KICKS, ILB_KICKS);
	if (rq && !BPF_CORE_READ(rq, idle_balance))
		ilb_count(cpu, bank, IDLEBAL_ILB_BUSY, ILB_BUSY);
	return 0;
}

SEC("fentry/nohz_csd_func")
int BPF_PROG(nohz_csd_func__fentry)
{
	return kick_enter();
}

SEC("fexit/nohz_csd_func")
int BPF_PROG(nohz_csd_func__fexit)
{
	return kick_leave();
}

SEC("kprobe/nohz_csd_func")
int BPF_KPROBE(nohz_csd_func__kprobe)
{
	return kick_enter();
}

SEC("kretprobe/nohz_csd_func")
int BPF_KRETPROBE(nohz_csd_func__kretprobe)
{
	return kick_leave();
}

/*
 * 6.6+: the csd tracepoints name the function a CPU runs for another.
 * No tp_btf flavour: the verifier refuses reading a function pointer
 * argument there ("arg0 type FUNC_PROTO is not a struct").
 */
SEC("raw_tp/csd_function_entry")
int BPF_PROG(csd_function_entry__raw_tp, __u64 func)
{
	return func == nohz_csd_func_addr ? kick_enter() : 0;
}

SEC("raw_tp/csd_function_exit")
int BPF_PROG(csd_function_exit__raw_tp, __u64 func)
{
	return func == nohz_csd_func_addr ? kick_leave() : 0;
}

SEC("tracepoint/csd/csd_function_entry")
int csd_function_entry__tp(struct trace_event_raw_csd_function *ctx)
{
	return (__u64)BPF_CORE_READ(ctx, func) == nohz_csd_func_addr ? kick_enter() : 0;
}

SEC("tracepoint/csd/csd_function_exit")
int csd_function_exit__tp(struct trace_event_raw_csd_function *ctx)
{
	return (__u64)BPF_CORE_READ(ctx, func) == nohz_csd_func_addr ? kick_leave() : 0;
}

/* ksoftirqd is woken on its own CPU, so the waker's context is that CPU's. */
static __always_inline bool own_ksoftirqd(struct task_struct *p, __u32 cpu)
{
	return task_cpu_of(p) == (int)cpu && kthread_named(p, "ksoftirqd/", 10);
}

static __always_inline void count_ilb_wakeup(struct task_struct *p)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct cpu_context *ctx = this_context();

	if (!ctx || !(ctx->in_kick || ctx->nohz) || !own_ksoftirqd(p, cpu) ||
	    !cpu_selected(cpu))
		return;
	ilb_count(cpu, counting(), IDLEBAL_ILB_KSOFTIRQD_WAKEUPS, ILB_KSOFTIRQD_WAKEUPS);
}

/* ------------------------------------------------------ overloaded while idle */

static __always_inline __u32 overload_state(__u64 counts)
{
	__u32 overloaded = (__u32)counts, unoccupied = counts >> 32;

	if (!overloaded || !unoccupied)
		return 0;
	if (overloaded == 1)
		return OVERLOAD_BY_1;
	if (overloaded < 4)
		return OVERLOAD_BY_2;
	return overloaded < 8 ? OVERLOAD_BY_4 : OVERLOAD_BY_8;
}

/*
 * Adds delta to a group's counts; returns the counts before. The
 * fetch-and-add orders every CPU's change, so each change knows exactly
 * which state it left and entered.
 */
static __always_inline __u64 group_change(struct idlebal_overload_group *g, __u64 delta,
					  __u64 now, __u32 bank, __u32 hist, bool by_count)
{
	__u64 before = __sync_fetch_and_add(&g->counts, delta), after = before + delta;
	__u32 from = overload_state(before), to = overload_state(after);

	if (from == to)
		return before;
	if (!from) {
		g->since = now;
		integral_switch(&g->time[OVERLOAD_TIME], true, now);
		if (bank && !mutation_drops())
			__sync_fetch_and_add(&g->episodes[SCHEDSCAN_SLOT(0, bank)], 1);
	} else if (!to) {
		integral_switch(&g->time[OVERLOAD_TIME], false, now);
		if (now > g->since)
			hist_record_if(bank, &counters, hist, IDLEBAL_TIME_SLOTS,
				       log2_slot(now - g->since), now - g->since);
	}
	if (!by_count)
		return before;
	if (from && from < OVERLOAD_NR_WORDS)
		integral_switch(&g->time[from], false, now);
	if (to && to < OVERLOAD_NR_WORDS)
		integral_switch(&g->time[to], true, now);
	return before;
}

/* The change of "has overloaded" / "has unoccupied" of a group, for its parent. */
static __always_inline __u64 presence_delta(__u64 before, __u64 delta)
{
	__u64 after = before + delta;
	__s64 ov = (__s64)((__u32)after != 0) - ((__u32)before != 0);
	__s64 un = (__s64)((after >> 32) != 0) - ((before >> 32) != 0);

	return (__u64)ov + ((__u64)un << 32);
}

/*
 * Called with the runqueue's lock held (every caller is), so the CPU's
 * state has one writer at a time. A runqueue is overloaded with more
 * than one runnable non-idle CFS task, unoccupied when everything
 * runnable is SCHED_IDLE (nothing at all included): seed 001's
 * cfs_rq_overloaded() and need_pull_cfs_task() / seed 000's
 * unoccupied_rq(). A task whose dequeue was delayed (6.12+) sleeps: it
 * counts for neither, where the kernel's sched_idle_cpu() still counts
 * it in nr_running.
 */
static __always_inline void overload_update(struct rq *rq)
{
	struct idlebal_overload_group *g;
	struct idlebal_rq_state *s;
	__u32 cpu, zero = 0, bank;
	__s32 llc, node;
	__u64 delta, now, before;
	__s64 d_ov, d_un;
	__u32 nonidle;
	bool ov, un;

	if (!overload_ready)
		return;
	cpu = BPF_CORE_READ(rq, cpu);
	if (!cpu_selected(cpu))
		return;
	s = bpf_map_lookup_elem(&rq_states, &cpu);
	if (!s || s->llc < 0 || s->node < 0)
		return;
	nonidle = rq_nonidle_runnable(rq);
	ov = nonidle > 1;
	/* Nothing but CFS tasks queued, and none of them runnable and non-idle. */
	un = !nonidle && BPF_CORE_READ(rq, nr_running) == cfs_rq_h_nr_queued(&rq->cfs);
	if (s->known && s->overloaded == ov && s->unoccupied == un)
		return;
	d_ov = (__s64)ov - (s->known ? s->overloaded : 0);
	d_un = (__s64)un - (s->known ? s->unoccupied : 0);
	s->known = 1;
	s->overloaded = ov;
	s->unoccupied = un;
	delta = (__u64)d_ov + ((__u64)d_un << 32);
	if (!delta)
		return;
	now = bpf_ktime_get_ns();
	bank = counting();
	llc = s->llc;
	node = s->node;
	g = bpf_map_lookup_elem(&overload_llc, &llc);
	if (g)
		group_change(g, delta, now, bank, IDLEBAL_OVERLOAD_LLC_HIST, true);
	g = bpf_map_lookup_elem(&overload_node, &node);
	if (!g)
		return;
	before = group_change(g, delta, now, bank, IDLEBAL_OVERLOAD_NODE_HIST, true);
	/*
	 * The system's counts are of nodes that have an overloaded (an
	 * unoccupied) runqueue: one shared line written only when a node's
	 * presence flips, not at every CPU's change.
	 */
	delta = presence_delta(before, delta);
	g = bpf_map_lookup_elem(&overload_system, &zero);
	if (g && delta)
		group_change(g, delta, now, bank, IDLEBAL_OVERLOAD_SYSTEM_HIST, false);
}

/* Runqueue changes: learnt at start-up, then the overload state. */
static __always_inline int nr_running_changed(struct rq *rq)
{
	learn_rq(rq);
	overload_update(rq);
	return 0;
}

TRACEPOINT_HOOK(sched_update_nr_running_tp, nr_running_changed(rq), struct rq *rq)

/* ------------------------------------------------------------- idle time */

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

	/*
	 * Where delayed dequeue keeps sleepers queued, the runnable count
	 * changes without an nr_running change (a task that went to sleep
	 * delayed), and 7.3 fires the nr_running event of a delayed task's
	 * final dequeue with the count one short, put right after it: the
	 * overload state is recomputed at each switch, where the counts of
	 * the pick that ran just before are whole.
	 */
	if (track_runnable) {
		struct rq *rq = cpu_rq_of(cpu);

		if (rq)
			overload_update(rq);
	}
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

/* The classic record has no task_struct, which note_switch() does without. */
SEC("tracepoint/sched/sched_switch")
int sched_switch__tp(struct trace_event_raw_sched_switch *ctx)
{
	return note_switch(BPF_CORE_READ(ctx, next_pid));
}

/*
 * ttwu_runnable() puts a delayed task back without an nr_running change;
 * a ksoftirqd woken during an idle load balance kick is seed 003's cost.
 */
static __always_inline int note_wakeup(struct task_struct *p)
{
	if (track_runnable) {
		struct rq *rq = cpu_rq_of(task_cpu_of(p));

		if (rq)
			overload_update(rq);
	}
	count_ilb_wakeup(p);
	return 0;
}

TRACEPOINT_HOOK(sched_wakeup, note_wakeup(p), struct task_struct *p)

/* ------------------------------------------------------------ balance passes */

/* The kernel's enum cpu_idle_type (reordered in 6.10) as ours. */
static __always_inline __u32 idle_index(int idle)
{
	if (idle == bpf_core_enum_value(enum cpu_idle_type, CPU_NEWLY_IDLE))
		return IDLEBAL_NEWIDLE;
	if (idle == bpf_core_enum_value(enum cpu_idle_type, CPU_IDLE))
		return IDLEBAL_IDLE;
	return IDLEBAL_BUSY;
}

/* schedstat's N of domain<N>: sd's position above the CPU's base domain. */
static __always_inline __u32 domain_index(struct rq *rq, struct sched_domain *sd)
{
	struct sched_domain *cur = BPF_CORE_READ(rq, sd);

	for (__u32 i = 0; i < IDLEBAL_MAX_DOMAINS && cur; i++) {
		if (cur == sd)
			return i;
		cur = BPF_CORE_READ(cur, parent);
	}
	return IDLEBAL_MAX_DOMAINS;
}

static __always_inline void *named_row(void *map, const void *key, struct sched_domain *sd,
				       __u32 bank, void *zero_row, __u32 drop_slot)
{
	void *row = table_row_if(bank, map, key, zero_row, drop_slot);

	/* The first event names the row; every CPU's copy, for the reader. */
	if (row && !*(char *)row)
		bpf_probe_read_kernel_str(row, IDLEBAL_NAME_LEN, BPF_CORE_READ(sd, name));
	return row;
}

/* CONFIG_SCHEDSTATS's fields, absent from the vmlinux.h we build with. */
struct sched_domain___schedstats {
	unsigned int lb_failed[3];
} __attribute__((preserve_access_index));

/* sd->lb_failed[idle]: load_balance() counts it on its failed path only. */
static __always_inline __u32 domain_lb_failed(struct sched_domain *sd, __u32 idle)
{
	struct sched_domain___schedstats *stats = (void *)sd;
	__u32 v = 0;

	if (!bpf_core_field_exists(stats->lb_failed) || idle >= 3)
		return 0;
	bpf_core_read(&v, sizeof(v), &stats->lb_failed[idle]);
	return v;
}

static const struct idlebal_domain_row zero_domain_row;
static const struct idlebal_alb_row zero_alb_row;

static __always_inline int lb_enter(int this_cpu, struct rq *this_rq,
				    struct sched_domain *sd, int idle)
{
	struct cpu_context *ctx = this_context();
	struct lb_pass *pass;
	__u32 bank;

	if (!ctx)
		return 0;
	pass = &ctx->lb;
	pass->active = 0;
	bank = counting();
	if (!bank || !cpu_selected(this_cpu))
		return 0;
	__builtin_memset(pass, 0, sizeof(*pass));
	pass->domain = domain_index(this_rq, sd);
	if (pass->domain >= IDLEBAL_MAX_DOMAINS)
		return 0;
	pass->start_ns = bpf_ktime_get_ns();
	pass->sd = (__u64)sd;
	pass->cpu = this_cpu;
	pass->idle = idle_index(idle);
	pass->bank = bank;
	if (failed_from_schedstats) {
		pass->kernel_idle = idle;
		pass->lb_failed_at_entry = domain_lb_failed(sd, idle);
	}
	pass->active = 1;
	return 0;
}

/* The kernel's enum migration_type value, as an index of imbalance_sum[]. */
#define migration_slot(type) (bpf_core_enum_value(enum migration_type, type) & 3)

/*
 * One find_busiest_group() ... redo iteration ends: the kernel added the
 * imbalance if it found a busiest queue, else counted lb_nobusyq.
 * find_busiest_queue() is inlined everywhere, so "found" is inferred:
 * a task examined (can_migrate_task()), the failed path
 * (need_active_balance()), a task moved, or a redo (which only follows
 * a busiest queue whose tasks were all pinned).
 */
static __always_inline void lb_iteration_end(struct lb_pass *pass, bool found)
{
	__u32 type;

	if (!pass->group_found)
		return;
	pass->group_found = 0;
	if (!found && !pass->busiest) {
		pass->nobusyq++;
		return;
	}
	type = pass->migration_type & 3;
	pass->imbalance_sum[type] += pass->imbalance;
	if (type == migration_slot(migrate_load))
		hist_record_if(pass->bank, &counters, IDLEBAL_LB_IMBALANCE_LOAD_HIST,
			       IDLEBAL_TIME_SLOTS, log2_slot(pass->imbalance), pass->imbalance);
	else if (type == migration_slot(migrate_util))
		hist_record_if(pass->bank, &counters, IDLEBAL_LB_IMBALANCE_UTIL_HIST,
			       IDLEBAL_TIME_SLOTS, log2_slot(pass->imbalance), pass->imbalance);
	else if (type == migration_slot(migrate_task))
		hist_record_if(pass->bank, &counters, IDLEBAL_LB_IMBALANCE_TASK_HIST,
			       IDLEBAL_TIME_SLOTS, log2_slot(pass->imbalance), pass->imbalance);
}

static __always_inline struct lb_pass *active_pass(void)
{
	struct cpu_context *ctx = this_context();

	return ctx && ctx->lb.active ? &ctx->lb : NULL;
}

static __always_inline int fbg_enter(struct lb_env *env)
{
	struct lb_pass *pass = active_pass();

	if (pass)
		pass->env = (__u64)env;
	return 0;
}

static __always_inline int fbg_exit(struct lb_env *env, bool found)
{
	struct lb_pass *pass = active_pass();

	if (!pass)
		return 0;
	/* A second iteration: the first found a busiest queue, all pinned. */
	lb_iteration_end(pass, true);
	if (!found) {
		pass->nobusyg++;
		return 0;
	}
	pass->group_found = 1;
	pass->busiest = 0;
	pass->imbalance = BPF_CORE_READ(env, imbalance);
	pass->migration_type = BPF_CORE_READ(env, migration_type);
	return 0;
}

static __always_inline int lb_exit(int moved)
{
	struct cpu_context *ctx = this_context();
	struct idlebal_domain_key key;
	struct idlebal_domain_row *row;
	struct lb_pass *pass;
	__u32 bank;
	__u64 ns;

	if (!ctx || !ctx->lb.active)
		return 0;
	pass = &ctx->lb;
	pass->active = 0;
	bank = pass->bank;
	if (failed_from_schedstats && moved <= 0 &&
	    domain_lb_failed((struct sched_domain *)pass->sd, pass->kernel_idle) !=
	    pass->lb_failed_at_entry)
		pass->failed = pass->busiest = 1;
	lb_iteration_end(pass, moved > 0 || pass->failed);
	ns = bpf_ktime_get_ns() - pass->start_ns;
	counter_add_if(bank, &counters, IDLEBAL_LOAD_BALANCE_CALLS, 1);
	hist_record_if(bank, &counters, IDLEBAL_LB_PASS_HIST, IDLEBAL_TIME_SLOTS,
		       log2_slot(ns), ns);
	hist_record_if(bank, &counters, IDLEBAL_LB_MOVED_HIST, IDLEBAL_MOVED_SLOTS,
		       pass->gained, pass->gained);
	if (pass->idle == IDLEBAL_NEWIDLE && ctx->newidle.active) {
		struct newidle_run *ni = &ctx->newidle;

		ni->passes++;
		if (moved > 0)
			ni->pulled++;
		/* lb_enter() keeps domain below the bound; the mask tells the verifier. */
		ni->passes_at[pass->domain & (IDLEBAL_MAX_DOMAINS - 1)]++;
	}
	key = (struct idlebal_domain_key){ .cpu = per_cpu_rows ? pass->cpu : -1,
					   .domain = pass->domain, .idle = pass->idle };
	row = named_row(&domains, &key, (struct sched_domain *)pass->sd, bank,
			(void *)&zero_domain_row, IDLEBAL_DROPS_DOMAINS);
	if (!row)
		return 0;
	table_row_add(row->values, LB_COUNT, bank, 1);
	/* Constant indexes: 6.1's verifier loses a value chosen between two. */
	if (moved <= 0 && pass->failed)
		table_row_add(row->values, LB_FAILED, bank, 1);
	else if (moved <= 0)
		table_row_add(row->values, LB_BALANCED, bank, 1);
	table_row_add(row->values, LB_GAINED, bank, pass->gained);
	table_row_add(row->values, LB_HOT_GAINED, bank, pass->hot_gained);
	table_row_add(row->values, LB_NOBUSYG, bank, pass->nobusyg);
	table_row_add(row->values, LB_NOBUSYQ, bank, pass->nobusyq);
	table_row_add(row->values, LB_IMBALANCE_LOAD, bank,
		      pass->imbalance_sum[migration_slot(migrate_load)]);
	table_row_add(row->values, LB_IMBALANCE_UTIL, bank,
		      pass->imbalance_sum[migration_slot(migrate_util)]);
	table_row_add(row->values, LB_IMBALANCE_TASK, bank,
		      pass->imbalance_sum[migration_slot(migrate_task)]);
	table_row_add(row->values, LB_IMBALANCE_MISFIT, bank,
		      pass->imbalance_sum[migration_slot(migrate_misfit)]);
	return 0;
}

SEC("fentry/sched_balance_rq")
int BPF_PROG(load_balance__fentry, int this_cpu, struct rq *this_rq,
	     struct sched_domain *sd, enum cpu_idle_type idle)
{
	return lb_enter(this_cpu, this_rq, sd, idle);
}

SEC("fexit/sched_balance_rq")
int BPF_PROG(load_balance__fexit, int this_cpu, struct rq *this_rq,
	     struct sched_domain *sd, enum cpu_idle_type idle, int *continue_balancing,
	     __u64 ret)
{
	return lb_exit((int)ret);
}

SEC("kprobe/sched_balance_rq")
int BPF_KPROBE(load_balance__kprobe, int this_cpu, struct rq *this_rq,
	       struct sched_domain *sd, int idle)
{
	return lb_enter(this_cpu, this_rq, sd, idle);
}

SEC("kretprobe/sched_balance_rq")
int BPF_KRETPROBE(load_balance__kretprobe, int ret)
{
	return lb_exit(ret);
}

SEC("fexit/sched_balance_find_src_group")
int BPF_PROG(find_busiest_group__fexit, struct lb_env *env, struct sched_group *group)
{
	return fbg_exit(env, group != NULL);
}

SEC("kprobe/sched_balance_find_src_group")
int BPF_KPROBE(find_busiest_group__kprobe, struct lb_env *env)
{
	return fbg_enter(env);
}

SEC("kretprobe/sched_balance_find_src_group")
int BPF_KRETPROBE(find_busiest_group__kretprobe, void *group)
{
	struct lb_pass *pass = active_pass();

	return pass ? fbg_exit((struct lb_env *)pass->env, group != NULL) : 0;
}

/*
 * Tasks examined: a busiest queue was found (the pass), or an active
 * balance tried (the stopper's pass, LBF_ACTIVE_LB).
 */
static __always_inline int task_examined(struct lb_env *env)
{
	struct cpu_context *ctx = this_context();

	if (!ctx)
		return 0;
	if (ctx->alb.active && (BPF_CORE_READ(env, flags) & LBF_ACTIVE_LB)) {
		struct sched_domain *sd = BPF_CORE_READ(env, sd);

		ctx->alb.tried = 1;
		ctx->alb.sd = (__u64)sd;
		ctx->alb.cpu = BPF_CORE_READ(env, dst_cpu);
		ctx->alb.domain = domain_index(BPF_CORE_READ(env, dst_rq), sd);
	} else if (ctx->lb.active) {
		ctx->lb.busiest = 1;
	}
	return 0;
}

SEC("fentry/can_migrate_task")
int BPF_PROG(can_migrate_task__fentry, struct task_struct *p, struct lb_env *env)
{
	return task_examined(env);
}

SEC("kprobe/can_migrate_task")
int BPF_KPROBE(can_migrate_task__kprobe, struct task_struct *p, struct lb_env *env)
{
	return task_examined(env);
}

/* Called only on load_balance()'s failed path (ld_moved == 0 after a busiest queue). */
static __always_inline int pass_failed(void)
{
	struct lb_pass *pass = active_pass();

	if (pass)
		pass->failed = pass->busiest = 1;
	return 0;
}

SEC("fentry/need_active_balance")
int BPF_PROG(need_active_balance__fentry)
{
	return pass_failed();
}

SEC("kprobe/need_active_balance")
int BPF_KPROBE(need_active_balance__kprobe)
{
	return pass_failed();
}

/* Every task a balance moves: the pass's (detach_tasks()) or an active balance's. */
static __always_inline int task_detached(struct task_struct *p, struct lb_env *env)
{
	struct cpu_context *ctx = this_context();

	if (!ctx)
		return 0;
	if (ctx->alb.active && (BPF_CORE_READ(env, flags) & LBF_ACTIVE_LB)) {
		ctx->alb.pushed = 1;
		return task_examined(env);
	}
	if (!ctx->lb.active)
		return 0;
	ctx->lb.busiest = 1;
	ctx->lb.gained++;
	/* can_migrate_task() marked a cache-hot task it let go; detach_task() clears it. */
	if (BPF_CORE_READ_BITFIELD_PROBED(p, sched_task_hot))
		ctx->lb.hot_gained++;
	return 0;
}

SEC("fentry/detach_task")
int BPF_PROG(detach_task__fentry, struct task_struct *p, struct lb_env *env)
{
	return task_detached(p, env);
}

SEC("kprobe/detach_task")
int BPF_KPROBE(detach_task__kprobe, struct task_struct *p, struct lb_env *env)
{
	return task_detached(p, env);
}

static __always_inline int alb_enter(void)
{
	struct cpu_context *ctx = this_context();

	if (!ctx)
		return 0;
	__builtin_memset(&ctx->alb, 0, sizeof(ctx->alb));
	ctx->alb.bank = counting();
	ctx->alb.active = ctx->alb.bank != 0;
	return 0;
}

/*
 * active_load_balance_cpu_stop() counts alb_count once it has a domain
 * and a task to look at, alb_pushed when detach_one_task() moved one (as
 * lb_gained of the target's idle row), alb_failed otherwise.
 */
static __always_inline int alb_exit(void)
{
	struct cpu_context *ctx = this_context();
	struct idlebal_domain_key dkey;
	struct idlebal_domain_row *drow;
	struct idlebal_alb_key key;
	struct idlebal_alb_row *row;
	struct alb_run *alb;
	__u32 bank;

	if (!ctx || !ctx->alb.active)
		return 0;
	alb = &ctx->alb;
	alb->active = 0;
	bank = alb->bank;
	if (!alb->tried || alb->domain >= IDLEBAL_MAX_DOMAINS || !cpu_selected(alb->cpu))
		return 0;
	key = (struct idlebal_alb_key){ .cpu = per_cpu_rows ? alb->cpu : -1,
					.domain = alb->domain };
	row = named_row(&active_balance, &key, (struct sched_domain *)alb->sd, bank,
			(void *)&zero_alb_row, IDLEBAL_DROPS_ALB);
	if (row) {
		table_row_add(row->values, ALB_COUNT, bank, 1);
		if (alb->pushed)
			table_row_add(row->values, ALB_PUSHED, bank, 1);
		else
			table_row_add(row->values, ALB_FAILED, bank, 1);
	}
	if (!alb->pushed)
		return 0;
	dkey = (struct idlebal_domain_key){ .cpu = key.cpu, .domain = alb->domain,
					    .idle = IDLEBAL_IDLE };
	drow = named_row(&domains, &dkey, (struct sched_domain *)alb->sd, bank,
			 (void *)&zero_domain_row, IDLEBAL_DROPS_DOMAINS);
	if (drow)
		table_row_add(drow->values, LB_GAINED, bank, 1);
	return 0;
}

SEC("fentry/active_load_balance_cpu_stop")
int BPF_PROG(active_load_balance_cpu_stop__fentry)
{
	return alb_enter();
}

SEC("fexit/active_load_balance_cpu_stop")
int BPF_PROG(active_load_balance_cpu_stop__fexit)
{
	return alb_exit();
}

SEC("kprobe/active_load_balance_cpu_stop")
int BPF_KPROBE(active_load_balance_cpu_stop__kprobe)
{
	return alb_enter();
}

SEC("kretprobe/active_load_balance_cpu_stop")
int BPF_KRETPROBE(active_load_balance_cpu_stop__kretprobe)
{
	return alb_exit();
}

/* ------------------------------------------------------------ newidle balance */

/* The proportional newidle balance (6.19, stable backports) counts its calls. */
static __always_inline __u32 newidle_call_count(struct sched_domain *sd)
{
	if (!bpf_core_field_exists(sd->newidle_call))
		return 0;
	return BPF_CORE_READ(sd, newidle_call);
}

static __always_inline int newidle_enter(struct rq *rq)
{
	struct cpu_context *ctx = this_context();
	struct sched_domain *sd;
	struct newidle_run *ni;
	__u32 bank;

	if (!ctx)
		return 0;
	ni = &ctx->newidle;
	ni->active = 0;
	bank = counting();
	if (!bank || !cpu_selected(BPF_CORE_READ(rq, cpu)))
		return 0;
	__builtin_memset(ni, 0, sizeof(*ni));
	ni->start_ns = bpf_ktime_get_ns();
	ni->bank = bank;
	ni->active = 1;
	ni->rq = (__u64)rq;
	/* The checks sched_balance_newidle() makes before it walks the domains. */
	sd = BPF_CORE_READ(rq, sd);
	if (BPF_CORE_READ(rq, ttwu_pending) || !sd) {
		ni->entry_class = IDLEBAL_NEWIDLE_SKIPPED_OTHER;
		return 0;
	}
	if (!rd_overloaded(BPF_CORE_READ(rq, rd))) {
		ni->entry_class = IDLEBAL_NEWIDLE_SKIPPED_NO_OVERLOAD;
		return 0;
	}
	if (BPF_CORE_READ(rq, avg_idle) < BPF_CORE_READ(sd, max_newidle_lb_cost)) {
		ni->entry_class = IDLEBAL_NEWIDLE_SKIPPED_COST;
		return 0;
	}
	if (!bpf_core_field_exists(sd->newidle_call))
		return 0;
	/*
	 * Unrolled: 6.1's verifier refuses a loop whose back-edge is the
	 * fall-through after a helper call ("back-edge from insn").
	 */
#pragma clang loop unroll(full)
	for (__u32 i = 0; i < IDLEBAL_MAX_DOMAINS; i++) {
		if (!sd)
			continue;
		ni->calls[i] = newidle_call_count(sd);
		ni->nr_domains = i + 1;
		sd = BPF_CORE_READ(sd, parent);
	}
	return 0;
}

/*
 * Domain passes the NI_RANDOM dice skipped: update_newidle_stats() counts
 * each domain it visits once in newidle_call (halved when it reaches
 * 1024), for a pass or a dice skip alike.
 */
static __always_inline __u32 dice_skips(struct newidle_run *ni, struct rq *rq)
{
	struct sched_domain *sd = BPF_CORE_READ(rq, sd);
	__u32 skips = 0;

#pragma clang loop unroll(full)
	for (__u32 i = 0; i < IDLEBAL_MAX_DOMAINS; i++) {
		__u32 before, after, visits;

		if (!sd || i >= ni->nr_domains)
			continue;
		before = ni->calls[i];
		after = newidle_call_count(sd);
		visits = after == before + 1 || (before >= 1023 && after == (before + 1) / 2);
		if (visits > ni->passes_at[i])
			skips++;
		sd = BPF_CORE_READ(sd, parent);
	}
	return skips;
}

static __always_inline int newidle_exit(void)
{
	struct cpu_context *ctx = this_context();
	struct newidle_run *ni;
	__u32 bank, class, skips = 0;
	__u64 ns;

	if (!ctx || !ctx->newidle.active)
		return 0;
	ni = &ctx->newidle;
	ni->active = 0;
	bank = ni->bank;
	if (!ni->entry_class && ni->nr_domains)
		skips = dice_skips(ni, (struct rq *)ni->rq);
	if (ni->pulled)
		class = IDLEBAL_NEWIDLE_PULLED;
	else if (ni->passes)
		class = IDLEBAL_NEWIDLE_NO_PULL;
	else if (ni->entry_class)
		class = ni->entry_class;
	else if (skips)
		class = IDLEBAL_NEWIDLE_SKIPPED_RANDOM;
	else
		class = IDLEBAL_NEWIDLE_SKIPPED_OTHER;
	ns = bpf_ktime_get_ns() - ni->start_ns;
	counter_add_if(bank, &counters, IDLEBAL_NEWIDLE_CALLS, 1);
	counter_add_if(bank, &counters, class, 1);
	if (skips)
		counter_add_if(bank, &counters, IDLEBAL_NEWIDLE_RANDOM_SKIPS, skips);
	hist_record_if(bank, &counters, IDLEBAL_NEWIDLE_HIST, IDLEBAL_TIME_SLOTS,
		       log2_slot(ns), ns);
	return 0;
}

SEC("fentry/sched_balance_newidle")
int BPF_PROG(sched_balance_newidle__fentry, struct rq *this_rq)
{
	return newidle_enter(this_rq);
}

SEC("fexit/sched_balance_newidle")
int BPF_PROG(sched_balance_newidle__fexit)
{
	return newidle_exit();
}

SEC("kprobe/sched_balance_newidle")
int BPF_KPROBE(sched_balance_newidle__kprobe, struct rq *this_rq)
{
	return newidle_enter(this_rq);
}

SEC("kretprobe/sched_balance_newidle")
int BPF_KRETPROBE(sched_balance_newidle__kretprobe)
{
	return newidle_exit();
}
