// SPDX-License-Identifier: GPL-2.0
/*
 * numascan BPF side: one program per flavour and hook, named
 * "<hook>__<flavour>" for lib/hooks.c. Every hook runs in the context of
 * the task whose memory is concerned (the faulting task, the task whose
 * task_work scans its own mm, the task whose fault migrates a page), so
 * current is the task the filters select.
 */
#include "schedscan.bpf.h"
#include "table.bpf.h"
#include "numascan.h"

/* include/linux/sched/numa_balancing.h: #defines, not in BTF. */
#define TNF_MIGRATED 0x01
#define TNF_FAULT_LOCAL 0x08
#define TNF_MIGRATE_FAIL 0x10
/* include/linux/mm.h: the pid bits of a cpupid. */
#define LAST__PID_MASK 0xff

/*
 * Set by user space: the hint-fault VMA hook's second argument is a
 * struct vm_fault (numa_migrate_check(), and numa_migrate_prep() since
 * 6.10) rather than the VMA itself; the cpupid value that means "no
 * access recorded yet" (-1 & LAST_CPUPID_MASK, from CONFIG_NR_CPUS).
 */
const volatile bool hint_vma_in_vmf = false;
const volatile __u32 cpupid_unset = 0;

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

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, NUMASCAN_MAX_VMAS);
	__type(key, struct numascan_vma_key);
	__type(value, struct numascan_vma);
} vma_counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, NUMASCAN_MAX_NODE_PAIRS);
	__type(key, struct numascan_node_pair_key);
	__type(value, struct numascan_node_pair);
} node_pair_counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, NUMASCAN_MAX_MIGRATION_PAIRS);
	__type(key, struct numascan_migration_pair_key);
	__type(value, struct numascan_migration_pair);
} migration_pair_counters SEC(".maps");

/*
 * What a thread is in the middle of, from a function's entry to its exit
 * (or from the fault path's VMA hook to task_numa_fault()). LRU: a thread
 * that dies in between leaves an entry that the map recycles.
 */
struct scan_pass {
	__u64 start_ns;
	__u64 next_scan;	/* mm->numa_next_scan at the entry */
};

struct vma_span {
	__u64 start, end;
};

/* A hint fault's migration, from the source node's check to task_numa_fault(). */
struct migration {
	__s32 from_node;	/* -1: not seen */
	__u32 pad;
	__u64 start_ns;		/* migrate_misplaced_folio()'s entry */
	__u64 ns;		/* ... and how long it took */
};

#define THREAD_STATES 16384
#define THREAD_STATE_MAP(name, value_type)                                     \
	struct {                                                               \
		__uint(type, BPF_MAP_TYPE_LRU_HASH);                           \
		__uint(max_entries, THREAD_STATES);                            \
		__type(key, __u32);                                            \
		__type(value, value_type);                                     \
	} name SEC(".maps")

/*
 * Per thread and VMA of its process: whether it took a hint fault there
 * since the tool started, so that a scan by a thread that never touched
 * the VMA can be told apart (seed 002: the other threads' scans of a
 * thread's private VMA), and its last scan decision there, pending until
 * its next one (the audit, docs/metrics.md). LRU: under pressure the
 * oldest pairs go; a scan by their thread then counts as unfaulted until
 * its next fault there, and their pending decision is not audited.
 */
struct thread_vma_state {
	__u8 faulted;
	__u8 scan_pending;	/* scanned for it, no fault by it since */
	__u8 skip_pending;	/* skipped for it (skip slot + 1), no fault since */
	__u8 pad[5];
	__u64 skip_ns;
	__u64 decision_pass;	/* the pass (start time) of its last decision there */
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, NUMASCAN_MAX_THREAD_VMAS);
	__type(key, struct numascan_thread_vma);
	__type(value, struct thread_vma_state);
} thread_vmas SEC(".maps");

THREAD_STATE_MAP(scan_passes, struct scan_pass);
THREAD_STATE_MAP(scan_vmas, struct vma_span);
THREAD_STATE_MAP(migrations, struct migration);

static __always_inline struct task_struct *current_task(void)
{
	return (struct task_struct *)bpf_get_current_task();
}

static __always_inline __u32 current_tid(void)
{
	return (__u32)bpf_get_current_pid_tgid();
}

/* The bank to count current's event in, 0 if it is not counted. */
static __always_inline __u32 current_bank(void)
{
	if (!cpu_selected(bpf_get_smp_processor_id()) || !task_selected(current_task()))
		return 0;
	return counting();
}

static __always_inline struct numascan_process *process_row(__u32 bank)
{
	struct task_struct *task = current_task();
	struct numascan_process zero = {}, *row;
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;

	/*
	 * Bank 0 is not counting: table_row_add*() would add nothing (they
	 * guard the bug of 53ad565, where SCHEDSCAN_SLOT() of bank 0 counted
	 * into bank 2), so return before the hash lookup and the comm read.
	 */
	if (!bank)
		return NULL;
	row = bpf_map_lookup_elem(&process_counters, &tgid);
	if (row)
		return row;
	BPF_CORE_READ_STR_INTO(&zero.comm, task, group_leader, comm);
	return table_row_if(bank, &process_counters, &tgid, &zero, NUMASCAN_PROCESS_DROPS);
}

static __always_inline void count_process(__u32 bank, __u32 counter, __u64 delta)
{
	struct numascan_process *row = process_row(bank);

	if (row && !mutation_drops())
		table_row_add_atomic(row->counts, counter, bank, delta);
}

static __always_inline struct numascan_vma *vma_row(__u32 bank, __u64 start, __u64 end)
{
	struct numascan_vma_key key = { .tgid = bpf_get_current_pid_tgid() >> 32,
					.start = start };
	struct numascan_vma zero = { .end = end }, *row;

	if (!bank)
		return NULL;
	row = bpf_map_lookup_elem(&vma_counters, &key);
	if (row)
		return row;
	return table_row_if(bank, &vma_counters, &key, &zero, NUMASCAN_VMA_DROPS);
}

/*
 * A row keeps the name its process had at its first event: a shell that
 * forks, faults and then execs the workload would stay "bash". exec()
 * names the process anew (current is its new leader, renamed by then).
 */
static __always_inline int process_exec(void)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	struct numascan_process *row = bpf_map_lookup_elem(&process_counters, &tgid);

	if (row)
		bpf_get_current_comm(row->comm, sizeof(row->comm));
	return 0;
}

TRACEPOINT_HOOK(sched_process_exec, process_exec(), struct task_struct *p, pid_t old_pid,
		struct linux_binprm *bprm)

/* ------------------------------------------- per task, tracepoint tier */

/*
 * Where task_numa_fault() cannot be hooked (lib/hooks.c's redundant_with
 * attaches sched_switch only then), the pages of a task's hint faults are
 * what its own numa_faults_locality[] grew by: task_numa_fault() adds
 * every fault's pages there (local as it decides: TNF_FAULT_LOCAL, or a
 * shared fault within its group's active nodes). update_task_scan_period()
 * zeroes it once per scan sequence, inside a fault, before that fault's
 * pages are added: read at every user page fault's entry (and at every
 * switch, for the last faults before a switch or exit), a smaller value
 * is that reset plus the one fault, and nothing is lost; a task that
 * faulted from kernel mode (get_user_pages()) across a reset loses those
 * faults (docs/metrics.md).
 */
struct task_numa_seen {
	__u64 remote, local;
};

THREAD_STATE_MAP(task_numa_seen, struct task_numa_seen);

/*
 * Set by user space: CLOCK_MONOTONIC at load, as task_struct.start_time;
 * whether the sched_switch hook is attached (and the page faults sample).
 */
const volatile __u64 tool_start_ns = 0;
const volatile bool sample_task_faults = false;

static __always_inline __u64 grown(__u64 now, __u64 before)
{
	return now >= before ? now - before : now;
}

static __always_inline int sample_task(void)
{
	struct task_struct *task = current_task();
	unsigned long locality[3] = {};
	struct task_numa_seen now, *seen, d;
	__u32 tid = current_tid(), bank;

	/* Not !mm: a thread's last switch, at its exit, comes after exit_mm(). */
	if (!sample_task_faults)
		return 0;
	if (!bpf_core_field_exists(task->numa_faults_locality) ||
	    (BPF_CORE_READ(task, flags) & PF_KTHREAD))
		return 0;
	if (!cpu_selected(bpf_get_smp_processor_id()) || !task_selected(task))
		return 0;
	BPF_CORE_READ_INTO(&locality, task, numa_faults_locality);
	now.remote = locality[0];
	now.local = locality[1];
	seen = bpf_map_lookup_elem(&task_numa_seen, &tid);
	if (seen) {
		/* A smaller value: a reset, or a new thread with a reused TID. */
		d.remote = grown(now.remote, seen->remote);
		d.local = grown(now.local, seen->local);
		*seen = now;
	} else {
		bpf_map_update_elem(&task_numa_seen, &tid, &now, BPF_ANY);
		/*
		 * A task older than the tool: its counts so far are not ours.
		 * A task with no hint fault yet (numa_faults NULL) holds what it
		 * inherited at fork (init_numa_balancing() leaves the array);
		 * its first fault zeroes it.
		 */
		if (BPF_CORE_READ(task, start_time) < tool_start_ns || !BPF_CORE_READ(task, numa_faults))
			return 0;
		d = now;
	}
	bank = counting();
	if (!bank || !(d.remote | d.local))
		return 0;
	counter_add_if(bank, &counters, NUMASCAN_SWITCH_FAULT_PAGES, d.remote + d.local);
	counter_add_if(bank, &counters, NUMASCAN_SWITCH_FAULT_PAGES_LOCAL, d.local);
	count_process(bank, NP_HINT_FAULT_PAGES, d.remote + d.local);
	count_process(bank, NP_HINT_FAULT_PAGES_LOCAL, d.local);
	return 0;
}

/* At a switch, current is the task leaving the CPU. */
TRACEPOINT_HOOK(sched_switch, sample_task(), bool preempt, struct task_struct *prev,
		struct task_struct *next)

/* ------------------------------------------------------------ page faults */

static __always_inline int user_page_fault(void)
{
	__u32 bank = current_bank();

	counter_add_if(bank, &counters, NUMASCAN_USER_PAGE_FAULTS, 1);
	count_process(bank, NP_USER_PAGE_FAULTS, 1);
	return sample_task();
}

/* x86's exceptions:page_fault_user; no classic flavour (no vmlinux type). */
TRACEPOINT_HOOK(page_fault_user, user_page_fault())

/* ------------------------------------------------------------ hint faults */

/*
 * A hint fault is counted where /proc/vmstat counts it: in
 * numa_migrate_prep(page, vma, addr, page_nid, int *flags) (6.1),
 * numa_migrate_check(folio, vmf, addr, int *flags, ...) (6.12), which
 * sets TNF_FAULT_LOCAL in *flags when the page is on the faulting CPU's
 * node, as it counts numa_hint_faults_local. The fault path then calls
 * task_numa_fault(), except after a failed migration whose PTE changed
 * meanwhile (seen: 0.05-0.2% of the faults of threads racing for pages).
 */
struct hint_call {
	__u64 start, end;	/* the VMA */
	__u64 flags;		/* the int *flags the function fills */
};

THREAD_STATE_MAP(hint_calls, struct hint_call);

static __always_inline int hint_enter(void *vma_or_vmf, void *flags)
{
	struct vm_area_struct *vma = vma_or_vmf;
	struct hint_call call = { .flags = (__u64)flags };
	__u32 tid = current_tid();

	if (hint_vma_in_vmf)
		vma = BPF_CORE_READ((struct vm_fault *)vma_or_vmf, vma);
	call.start = BPF_CORE_READ(vma, vm_start);
	call.end = BPF_CORE_READ(vma, vm_end);
	bpf_map_update_elem(&hint_calls, &tid, &call, BPF_ANY);
	return 0;
}

/*
 * The bit a thread sets in vma_numab_state.pids_active when it faults on
 * the VMA (vma_set_access_pid_bit(): hash_32(current->pid,
 * ilog2(BITS_PER_LONG))): two threads with one bit are one thread to the
 * PID filter.
 */
static __always_inline __u64 tid_hash_bit(__u32 tid)
{
	return 1ULL << ((tid * 0x61C88647U) >> (32 - 6));
}

static __always_inline void count_faulting_tid(struct numascan_vma *vma, __u32 bank, __u32 tid)
{
	__u64 bit = tid_hash_bit(tid);

	table_row_add_atomic(vma->counts, NV_FAULTING_TIDS, bank, 1);
	if (__sync_fetch_and_or(&vma->tid_hash_bits, bit) & bit)
		table_row_add_atomic(vma->counts, NV_TID_HASH_COLLISIONS, bank, 1);
}

/*
 * The audit of scan decisions (sched_skip_vma_numa's and the scans that
 * follow vma_is_accessed()): each thread's last decision on a VMA stays
 * pending until its next one there, or until it takes a hint fault there.
 */

/* The thread's fault on the VMA: its pending decision was followed by one. */
static __always_inline bool fault_resolves(struct thread_vma_state *state, __u32 bank)
{
	bool skip_followed = false;

	if (state->scan_pending) {
		counter_add_if(bank, &counters, NUMASCAN_SCANS_AUDITED, 1);
		state->scan_pending = 0;
	}
	if (state->skip_pending) {
		__u64 ns = bpf_ktime_get_ns() - state->skip_ns;
		__u32 slot = state->skip_pending - 1;

		counter_add_if(bank, &counters, NUMASCAN_SKIPS_AUDITED, 1);
		counter_add_if(bank, &counters, NUMASCAN_SKIPS_FAULTED_AFTER, 1);
		if (slot < NUMASCAN_NR_SKIP_REASONS)
			counter_add_if(bank, &counters,
				       NUMASCAN_SKIPS_FAULTED_AFTER_BY_REASON + slot, 1);
		hist_record_if(bank, &counters, NUMASCAN_SKIP_FAULT_DELAY_HIST,
			       NUMASCAN_TIME_SLOTS, log2_slot(ns), ns);
		state->skip_pending = 0;
		skip_followed = true;
	}
	return skip_followed;
}

/* A new decision: the pending one had no fault after it. */
static __always_inline void decision_resolves(struct thread_vma_state *state, __u32 bank,
					      struct numascan_vma *vma)
{
	if (state->scan_pending) {
		counter_add_if(bank, &counters, NUMASCAN_SCANS_AUDITED, 1);
		counter_add_if(bank, &counters, NUMASCAN_SCANS_UNFAULTED_AFTER, 1);
		if (vma)
			table_row_add_atomic(vma->counts, NV_SCANS_UNFAULTED_AFTER, bank, 1);
		state->scan_pending = 0;
	}
	if (state->skip_pending) {
		counter_add_if(bank, &counters, NUMASCAN_SKIPS_AUDITED, 1);
		state->skip_pending = 0;
	}
}

/* The thread's task_numa_work() run now in progress (its start time), 0 if none. */
static __always_inline __u64 current_pass_id(__u32 tid)
{
	struct scan_pass *pass = bpf_map_lookup_elem(&scan_passes, &tid);

	return pass ? pass->start_ns : 0;
}

/*
 * A pass decides once per VMA: since 6.7 a pass that skipped VMAs as
 * pid_inactive retries the list (retry_pids), scanning the first one it
 * can and skipping the VMAs it already scanned as seq_completed. So a
 * later skip in the pass that decided leaves the decision as it was, and
 * a later scan there turns a skip into a scan (the pass scanned it).
 */
static __always_inline bool decided_in_pass(const struct thread_vma_state *state, __u64 pass_id)
{
	return pass_id && state->decision_pass == pass_id;
}

/* The thread's state for the VMA, created empty if it has none. */
static __always_inline struct thread_vma_state *thread_vma(__u32 tid, __u64 start)
{
	struct numascan_thread_vma pair = { .tid = tid, .start = start };
	struct thread_vma_state *state = bpf_map_lookup_elem(&thread_vmas, &pair);
	struct thread_vma_state fresh = {};

	if (state)
		return state;
	bpf_map_update_elem(&thread_vmas, &pair, &fresh, BPF_NOEXIST);
	return bpf_map_lookup_elem(&thread_vmas, &pair);
}

static __always_inline int hint_leave(void)
{
	__u32 tid = current_tid(), bank = current_bank();
	struct hint_call *call = bpf_map_lookup_elem(&hint_calls, &tid);
	struct numascan_process *process;
	struct numascan_vma *vma;
	int flags = 0;
	bool local;

	if (!call)
		return 0;
	bpf_probe_read_kernel(&flags, sizeof(flags), (void *)call->flags);
	local = flags & TNF_FAULT_LOCAL;
	if (bank) {
		struct thread_vma_state *state = thread_vma(tid, call->start);
		bool first = !state || !state->faulted, skip_followed = false;

		if (state) {
			skip_followed = fault_resolves(state, bank);
			state->faulted = 1;
		}
		counter_add_if(bank, &counters, NUMASCAN_HINT_FAULTS, 1);
		counter_add_if(bank, &counters,
			       local ? NUMASCAN_HINT_FAULTS_LOCAL : NUMASCAN_HINT_FAULTS_REMOTE, 1);
		process = process_row(bank);
		if (process && !mutation_drops()) {
			table_row_add_atomic(process->counts, NP_HINT_FAULTS, bank, 1);
			if (local)
				table_row_add_atomic(process->counts, NP_HINT_FAULTS_LOCAL, bank, 1);
		}
		vma = vma_row(bank, call->start, call->end);
		if (vma) {
			table_row_add_atomic(vma->counts, NV_HINT_FAULTS, bank, 1);
			if (local)
				table_row_add_atomic(vma->counts, NV_HINT_FAULTS_LOCAL, bank, 1);
			if (first)
				count_faulting_tid(vma, bank, tid);
			if (skip_followed)
				table_row_add_atomic(vma->counts, NV_SKIPS_FAULTED_AFTER, bank, 1);
		}
	}
	bpf_map_delete_elem(&hint_calls, &tid);
	return 0;
}

/*
 * Set by user space: the position of int *flags, found by its name in
 * the kernel's BTF (5th on 6.1, 4th on 6.12); whether the hook above is
 * attached (else task_numa_fault() feeds the rows, and the VMA is
 * unknown: the row of start 0).
 */
const volatile __u32 hint_flags_arg = 4;
const volatile bool hint_at_prep = false;

SEC("fentry/numa_migrate_check")
int BPF_PROG(hint_vma__fentry)
{
	__u64 flags;

	if (hint_flags_arg == 3) {
		flags = ctx[3];
		barrier_var(flags);
	} else {
		flags = ctx[4];
		barrier_var(flags);
	}
	return hint_enter((void *)ctx[1], (void *)flags);
}

SEC("fexit/numa_migrate_check")
int BPF_PROG(hint_vma__fexit)
{
	return hint_leave();
}

SEC("kprobe/numa_migrate_check")
int BPF_KPROBE(hint_vma__kprobe, void *folio, void *vma_or_vmf, unsigned long addr,
	       void *arg3, void *arg4)
{
	return hint_enter(vma_or_vmf, hint_flags_arg == 3 ? arg3 : arg4);
}

SEC("kretprobe/numa_migrate_check")
int BPF_KRETPROBE(hint_vma__kretprobe)
{
	return hint_leave();
}

/*
 * task_numa_fault()'s rule (kernel/sched/fair.c): a fault is private when
 * no access was recorded yet or the last one was by a task with the same
 * pid bits. The group logic that may turn a shared fault private
 * (task_numa_group()) is not followed: see docs/metrics.md.
 */
static __always_inline bool fault_is_private(int last_cpupid)
{
	__u32 cpupid = (__u32)last_cpupid;
	__u32 pid = BPF_CORE_READ(current_task(), pid);

	if (cpupid_unset && cpupid == cpupid_unset)
		return true;
	return (cpupid & LAST__PID_MASK) == (pid & LAST__PID_MASK);
}

static __always_inline void count_node_pair(__u32 bank, int mem_node, int pages,
					    int flags)
{
	struct numascan_node_pair_key key = { .cpu_node = bpf_get_numa_node_id(),
					      .mem_node = mem_node };
	struct numascan_node_pair zero = {}, *row;

	row = table_row_if(bank, &node_pair_counters, &key, &zero,
			   NUMASCAN_NODE_PAIR_DROPS);
	if (!row)
		return;
	table_row_add_atomic(row->counts, NN_TASK_FAULTS, bank, 1);
	table_row_add_atomic(row->counts, NN_TASK_FAULT_PAGES, bank, pages);
	if (flags & TNF_MIGRATED)
		table_row_add_atomic(row->counts, NN_TASK_FAULTS_MIGRATED, bank, 1);
}

/*
 * Set by user space: should_numa_migrate_memory() is hooked, so every
 * migrating hint fault has its source node (migration_pairs).
 */
const volatile bool migration_sources = false;

/*
 * The end of a hint fault: one that migrated its page to to_node (pages of
 * them) is counted by source and destination; either way the source the
 * fault recorded must not outlive it.
 */
static __always_inline void migration_done(__u32 bank, int to_node, int pages, int flags)
{
	struct numascan_migration_pair_key key = { .from_node = -1, .to_node = to_node };
	struct numascan_migration_pair zero = {}, *row;
	__u32 tid = current_tid();
	struct migration *migration = bpf_map_lookup_elem(&migrations, &tid);
	__u64 ns = 0;

	if (migration) {
		key.from_node = migration->from_node;
		ns = migration->ns;
		bpf_map_delete_elem(&migrations, &tid);
	}
	if (!(flags & TNF_MIGRATED))
		return;
	row = table_row_if(bank, &migration_pair_counters, &key, &zero,
			   NUMASCAN_MIGRATION_PAIR_DROPS);
	if (!row)
		return;
	table_row_add_atomic(row->counts, NM_HINT_FAULTS_MIGRATED, bank, 1);
	table_row_add_atomic(row->counts, NM_HINT_FAULT_PAGES_MIGRATED, bank, pages);
	table_row_add_atomic(row->counts, NM_MIGRATION_NS, bank, ns);
}

/* The fault as task_numa_fault() accounts it to the task. */
static __always_inline int task_fault(int last_cpupid, int mem_node, int pages, int flags)
{
	__u32 bank = current_bank();
	bool local = flags & TNF_FAULT_LOCAL;
	struct numascan_process *process;

	if (!bank)
		return 0;
	counter_add_if(bank, &counters, NUMASCAN_TASK_FAULTS, 1);
	counter_add_if(bank, &counters,
		       local ? NUMASCAN_TASK_FAULTS_LOCAL : NUMASCAN_TASK_FAULTS_REMOTE, 1);
	counter_add_if(bank, &counters,
		       fault_is_private(last_cpupid) ? NUMASCAN_HINT_FAULTS_PRIVATE
						     : NUMASCAN_HINT_FAULTS_SHARED, 1);
	counter_add_if(bank, &counters, NUMASCAN_HINT_FAULT_PAGES, pages);
	if (local)
		counter_add_if(bank, &counters, NUMASCAN_HINT_FAULT_PAGES_LOCAL, pages);
	if (flags & TNF_MIGRATED)
		counter_add_if(bank, &counters, NUMASCAN_HINT_FAULTS_MIGRATED, 1);
	if (flags & TNF_MIGRATE_FAIL)
		counter_add_if(bank, &counters, NUMASCAN_HINT_FAULTS_MIGRATE_FAILED, 1);
	process = process_row(bank);
	if (process && !mutation_drops()) {
		table_row_add_atomic(process->counts, NP_HINT_FAULT_PAGES, bank, pages);
		if (local)
			table_row_add_atomic(process->counts, NP_HINT_FAULT_PAGES_LOCAL, bank, pages);
		if (flags & TNF_MIGRATED)
			table_row_add_atomic(process->counts, NP_HINT_FAULTS_MIGRATED, bank, 1);
		/* The rows' hint faults from here when the VMA hook is missing. */
		if (!hint_at_prep) {
			table_row_add_atomic(process->counts, NP_HINT_FAULTS, bank, 1);
			if (local)
				table_row_add_atomic(process->counts, NP_HINT_FAULTS_LOCAL, bank, 1);
		}
	}
	if (!hint_at_prep) {
		struct numascan_vma *vma = vma_row(bank, 0, 0);

		if (vma) {
			table_row_add_atomic(vma->counts, NV_HINT_FAULTS, bank, 1);
			if (local)
				table_row_add_atomic(vma->counts, NV_HINT_FAULTS_LOCAL, bank, 1);
		}
	}
	count_node_pair(bank, mem_node, pages, flags);
	if (migration_sources)
		migration_done(bank, mem_node, pages, flags);
	return 0;
}

SEC("fentry/task_numa_fault")
int BPF_PROG(task_numa_fault__fentry, int last_cpupid, int mem_node, int pages, int flags)
{
	return task_fault(last_cpupid, mem_node, pages, flags);
}

SEC("kprobe/task_numa_fault")
int BPF_KPROBE(task_numa_fault__kprobe, int last_cpupid, int mem_node, int pages, int flags)
{
	return task_fault(last_cpupid, mem_node, pages, flags);
}

/* ---------------------------------------------------------------- scanning */

/*
 * task_numa_work() returns early unless it is this mm's time to scan and
 * this thread wins the cmpxchg on mm->numa_next_scan: a pass is a run
 * after which numa_next_scan has moved. The mm's first run only sets it
 * (from 0) and returns.
 */
static __always_inline unsigned long current_next_scan(void)
{
	return BPF_CORE_READ(current_task(), mm, numa_next_scan);
}

static __always_inline int scan_work_enter(void)
{
	struct scan_pass pass = { .start_ns = bpf_ktime_get_ns(),
				  .next_scan = current_next_scan() };
	__u32 tid = current_tid();

	bpf_map_update_elem(&scan_passes, &tid, &pass, BPF_ANY);
	return 0;
}

static __always_inline int scan_work_leave(void)
{
	__u32 tid = current_tid(), bank = current_bank();
	struct scan_pass *pass = bpf_map_lookup_elem(&scan_passes, &tid);
	__u64 ns;

	if (!pass)
		return 0;
	ns = bpf_ktime_get_ns() - pass->start_ns;
	counter_add_if(bank, &counters, NUMASCAN_SCAN_WORK_CALLS, 1);
	if (pass->next_scan && pass->next_scan != current_next_scan()) {
		counter_add_if(bank, &counters, NUMASCAN_SCAN_PASSES, 1);
		hist_record_if(bank, &counters, NUMASCAN_SCAN_PASS_HIST, NUMASCAN_TIME_SLOTS,
			       log2_slot(ns), ns);
		count_process(bank, NP_SCAN_PASSES, 1);
	}
	bpf_map_delete_elem(&scan_passes, &tid);
	return 0;
}

SEC("fentry/task_numa_work")
int BPF_PROG(task_numa_work__fentry)
{
	return scan_work_enter();
}

SEC("fexit/task_numa_work")
int BPF_PROG(task_numa_work__fexit)
{
	return scan_work_leave();
}

SEC("kprobe/task_numa_work")
int BPF_KPROBE(task_numa_work__kprobe)
{
	return scan_work_enter();
}

SEC("kretprobe/task_numa_work")
int BPF_KRETPROBE(task_numa_work__kretprobe)
{
	return scan_work_leave();
}

/*
 * change_prot_numa(vma, addr, end): one chunk of one VMA; its result is
 * what the kernel adds to numa_pte_updates (when positive).
 */
static __always_inline int prot_numa_enter(struct vm_area_struct *vma)
{
	struct vma_span span = { .start = BPF_CORE_READ(vma, vm_start),
				 .end = BPF_CORE_READ(vma, vm_end) };
	__u32 tid = current_tid();

	bpf_map_update_elem(&scan_vmas, &tid, &span, BPF_ANY);
	return 0;
}

static __always_inline int prot_numa_leave(long updated)
{
	__u32 tid = current_tid(), bank = current_bank();
	struct vma_span *span = bpf_map_lookup_elem(&scan_vmas, &tid);
	struct thread_vma_state *state = NULL;
	struct numascan_vma *row;
	__u64 pass_id;
	bool unfaulted = false;

	if (!span)
		return 0;
	if (updated < 0)
		updated = 0;
	pass_id = current_pass_id(tid);
	/* Without the VMA hook no fault names its VMA: nothing to tell. */
	if (hint_at_prep && bank) {
		state = thread_vma(tid, span->start);
		unfaulted = !state || !state->faulted;
	}
	counter_add_if(bank, &counters, NUMASCAN_SCAN_CHUNKS, 1);
	counter_add_if(bank, &counters, NUMASCAN_PTE_UPDATES, updated);
	if (unfaulted)
		counter_add_if(bank, &counters, NUMASCAN_PTE_UPDATES_UNFAULTED, updated);
	count_process(bank, NP_PTE_UPDATES, updated);
	row = vma_row(bank, span->start, span->end);
	/*
	 * Chunks of one pass are one scan decision; a scan after the pass
	 * skipped the VMA (the forced retry) makes the pass's decision a scan.
	 */
	if (state && !decided_in_pass(state, pass_id)) {
		decision_resolves(state, bank, row);
		state->scan_pending = 1;
		state->decision_pass = pass_id;
	} else if (state && !state->scan_pending) {
		state->skip_pending = 0;
		state->scan_pending = 1;
	}
	if (row) {
		/* Chunks of one pass are one scan of the VMA. */
		if (!pass_id || row->last_pass != pass_id) {
			row->last_pass = pass_id;
			table_row_add_atomic(row->counts, NV_SCANS, bank, 1);
			if (unfaulted)
				table_row_add_atomic(row->counts, NV_SCANS_UNFAULTED, bank, 1);
		}
		table_row_add_atomic(row->counts, NV_PTE_UPDATES, bank, updated);
		if (unfaulted)
			table_row_add_atomic(row->counts, NV_PTE_UPDATES_UNFAULTED, bank, updated);
	}
	bpf_map_delete_elem(&scan_vmas, &tid);
	return 0;
}

SEC("fentry/change_prot_numa")
int BPF_PROG(change_prot_numa__fentry, struct vm_area_struct *vma)
{
	return prot_numa_enter(vma);
}

SEC("fexit/change_prot_numa")
int BPF_PROG(change_prot_numa__fexit, struct vm_area_struct *vma, unsigned long addr,
	     unsigned long end, long ret)
{
	return prot_numa_leave(ret);
}

SEC("kprobe/change_prot_numa")
int BPF_KPROBE(change_prot_numa__kprobe, struct vm_area_struct *vma)
{
	return prot_numa_enter(vma);
}

SEC("kretprobe/change_prot_numa")
int BPF_KRETPROBE(change_prot_numa__kretprobe, long ret)
{
	return prot_numa_leave(ret);
}

/* The kernel's enum numa_vmaskip_reason value, in our fixed order. */
#define SKIP_REASON(kernel_name, ours)                                         \
	if (bpf_core_enum_value_exists(enum numa_vmaskip_reason, kernel_name) && \
	    reason == bpf_core_enum_value(enum numa_vmaskip_reason, kernel_name)) \
		return ours;

static __always_inline __u32 skip_slot(int reason)
{
	SKIP_REASON(NUMAB_SKIP_UNSUITABLE, NUMASCAN_SKIP_UNSUITABLE)
	SKIP_REASON(NUMAB_SKIP_SHARED_RO, NUMASCAN_SKIP_SHARED_RO)
	SKIP_REASON(NUMAB_SKIP_INACCESSIBLE, NUMASCAN_SKIP_INACCESSIBLE)
	SKIP_REASON(NUMAB_SKIP_SCAN_DELAY, NUMASCAN_SKIP_SCAN_DELAY)
	SKIP_REASON(NUMAB_SKIP_PID_INACTIVE, NUMASCAN_SKIP_PID_INACTIVE)
	SKIP_REASON(NUMAB_SKIP_IGNORE_PID, NUMASCAN_SKIP_IGNORE_PID)
	SKIP_REASON(NUMAB_SKIP_SEQ_COMPLETED, NUMASCAN_SKIP_SEQ_COMPLETED)
	return NUMASCAN_SKIP_OTHER;
}

static __always_inline int vma_skipped(struct vm_area_struct *vma, int reason)
{
	__u32 bank = current_bank(), slot = skip_slot(reason);
	struct thread_vma_state *state;
	struct numascan_vma *row;
	__u32 tid = current_tid();
	__u64 start, pass_id;

	if (!bank)
		return 0;
	counter_add_if(bank, &counters, NUMASCAN_VMA_SKIPS, 1);
	counter_add_if(bank, &counters, NUMASCAN_VMA_SKIPS_BY_REASON + slot, 1);
	count_process(bank, NP_VMA_SKIPS, 1);
	start = BPF_CORE_READ(vma, vm_start);
	row = vma_row(bank, start, BPF_CORE_READ(vma, vm_end));
	if (row)
		table_row_add_atomic(row->counts, NV_VMA_SKIPS, bank, 1);
	/* ignore_pid is no skip: vma_is_accessed() lets the scan go on. */
	if (!hint_at_prep || slot == NUMASCAN_SKIP_IGNORE_PID)
		return 0;
	state = thread_vma(tid, start);
	pass_id = current_pass_id(tid);
	if (state && !decided_in_pass(state, pass_id)) {
		decision_resolves(state, bank, row);
		state->skip_pending = slot + 1;
		state->skip_ns = bpf_ktime_get_ns();
		state->decision_pass = pass_id;
	}
	return 0;
}

TRACEPOINT_HOOK(sched_skip_vma_numa, vma_skipped(vma, reason), struct mm_struct *mm,
		struct vm_area_struct *vma, int reason)

/* -------------------------------------------------------------- migrations */

/*
 * mm_migrate_pages, in the migrating task's context (for NUMA
 * misplacement, the faulting task). 6.1's event has 7 arguments,
 * 6.12's 8 (large_folio_split before mode and reason): user space sets
 * the position of reason, and the verifier never visits the other
 * branch (rodata is known at load), so a read past the last argument is
 * never checked against the 7-argument tracepoint.
 */
const volatile __u32 migrate_reason_arg = 6;

static __always_inline int pages_migrated(__u64 succeeded, __u64 failed, int reason)
{
	__u32 bank;

	if (reason != bpf_core_enum_value(enum migrate_reason, MR_NUMA_MISPLACED))
		return 0;
	bank = current_bank();
	counter_add_if(bank, &counters, NUMASCAN_PAGES_MIGRATED, succeeded);
	counter_add_if(bank, &counters, NUMASCAN_PAGES_MIGRATE_FAILED, failed);
	return 0;
}

static __always_inline int migrate_pages_args(__u64 *args)
{
	__u64 reason;

	if (migrate_reason_arg == 7) {
		reason = args[7];
		barrier_var(reason);
	} else {
		reason = args[6];
		barrier_var(reason);
	}
	return pages_migrated(args[0], args[1], (int)reason);
}

SEC("tp_btf/mm_migrate_pages")
int mm_migrate_pages__tp_btf(__u64 *ctx)
{
	return migrate_pages_args(ctx);
}

SEC("raw_tp/mm_migrate_pages")
int mm_migrate_pages__raw_tp(struct bpf_raw_tracepoint_args *ctx)
{
	return migrate_pages_args(ctx->args);
}

/* The classic record, by field name with CO-RE. */
SEC("tracepoint/migrate/mm_migrate_pages")
int mm_migrate_pages__tp(struct trace_event_raw_mm_migrate_pages *ctx)
{
	return pages_migrated(ctx->succeeded, ctx->failed, ctx->reason);
}

/*
 * The page's node, where mpol_misplaced() asks whether to move it (every
 * policy that lets NUMA balancing migrate has MPOL_F_MORON): the source
 * of the migration that may follow in the same fault.
 */
static __always_inline int migration_source(int src_nid)
{
	struct migration migration = { .from_node = src_nid };
	__u32 tid = current_tid();

	if (!current_bank())
		return 0;
	bpf_map_update_elem(&migrations, &tid, &migration, BPF_ANY);
	return 0;
}

SEC("fentry/should_numa_migrate_memory")
int BPF_PROG(migration_source__fentry, void *p, void *folio, int src_nid)
{
	return migration_source(src_nid);
}

SEC("kprobe/should_numa_migrate_memory")
int BPF_KPROBE(migration_source__kprobe, void *p, void *folio, int src_nid)
{
	return migration_source(src_nid);
}

static __always_inline int migrate_enter(void)
{
	struct migration fresh = { .from_node = -1 }, *migration;
	__u64 now = bpf_ktime_get_ns();
	__u32 tid = current_tid();

	if (!current_bank())
		return 0;
	migration = bpf_map_lookup_elem(&migrations, &tid);
	if (migration) {
		migration->start_ns = now;
		migration->ns = 0;
		return 0;
	}
	fresh.start_ns = now;
	bpf_map_update_elem(&migrations, &tid, &fresh, BPF_ANY);
	return 0;
}

static __always_inline int migrate_leave(void)
{
	__u32 tid = current_tid(), bank = current_bank();
	struct migration *migration = bpf_map_lookup_elem(&migrations, &tid);
	__u64 ns;

	if (!migration || !migration->start_ns)
		return 0;
	ns = bpf_ktime_get_ns() - migration->start_ns;
	migration->start_ns = 0;
	migration->ns = ns;
	counter_add_if(bank, &counters, NUMASCAN_MIGRATE_CALLS, 1);
	hist_record_if(bank, &counters, NUMASCAN_MIGRATE_HIST, NUMASCAN_TIME_SLOTS,
		       log2_slot(ns), ns);
	/* Else task_numa_fault() takes it (migration_done()). */
	if (!migration_sources)
		bpf_map_delete_elem(&migrations, &tid);
	return 0;
}

SEC("fentry/migrate_misplaced_folio")
int BPF_PROG(migrate_misplaced__fentry)
{
	return migrate_enter();
}

SEC("fexit/migrate_misplaced_folio")
int BPF_PROG(migrate_misplaced__fexit)
{
	return migrate_leave();
}

SEC("kprobe/migrate_misplaced_folio")
int BPF_KPROBE(migrate_misplaced__kprobe)
{
	return migrate_enter();
}

SEC("kretprobe/migrate_misplaced_folio")
int BPF_KRETPROBE(migrate_misplaced__kretprobe)
{
	return migrate_leave();
}

/* ------------------------------------------------------- task placement */

static __always_inline int task_placed(struct task_struct *p, __u32 counter)
{
	if (!cpu_selected(bpf_get_smp_processor_id()) || !task_selected(p))
		return 0;
	counter_add(&counters, counter, 1);
	return 0;
}

TRACEPOINT_HOOK(sched_move_numa, task_placed(p, NUMASCAN_TASK_MOVES), struct task_struct *p)
TRACEPOINT_HOOK(sched_swap_numa, task_placed(p, NUMASCAN_TASK_SWAPS), struct task_struct *p)
TRACEPOINT_HOOK(sched_stick_numa, task_placed(p, NUMASCAN_TASK_STICKS), struct task_struct *p)
