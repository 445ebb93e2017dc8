/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers every schedscan BPF object shares: task/CPU selection from
 * .rodata, per-CPU event counters and histogram slot arithmetic.
 * Include this once per .bpf.c (it defines the object's filter rodata).
 */
#ifndef SCHEDSCAN_BPF_H
#define SCHEDSCAN_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "selection.h"
#include "table.h"
#include "mutation.h"
#include "core_fixes.bpf.h"

const volatile struct schedscan_filter schedscan_filter = {};
const volatile struct schedscan_mutation schedscan_mutation = {};
/* Its own section, so that user space finds it by name in any object. */
volatile struct schedscan_run schedscan_run SEC(".data.run") = {};

/* MUTATION_DROP: true for about 1 call in 20. */
static __always_inline bool mutation_drops(void)
{
	return schedscan_mutation.kind == MUTATION_DROP &&
	       bpf_get_prandom_u32() % 20 == 0;
}

static __always_inline bool cpu_selected(__u32 cpu)
{
	if (!schedscan_filter.use_cpus)
		return true;
	if (cpu >= SCHEDSCAN_MAX_CPUS)
		return false;
	/*
	 * clang turns the test above into "cpu & ~8191", from which the
	 * verifier learns no bound (idlebal -C was rejected: "invalid access
	 * to map value ... off=536870936"); the mask after the barrier
	 * survives the optimiser and bounds the index.
	 */
	barrier_var(cpu);
	cpu &= SCHEDSCAN_MAX_CPUS - 1;
	return (schedscan_filter.cpus[cpu / 64] >> (cpu % 64)) & 1;
}

static __always_inline bool comm_matches(struct task_struct *task)
{
	char comm[SCHEDSCAN_COMM_LEN];

	BPF_CORE_READ_STR_INTO(&comm, task, comm);
	for (int i = 0; i < SCHEDSCAN_COMM_LEN; i++) {
		if (comm[i] != schedscan_filter.comm[i])
			return false;
		if (!comm[i])
			break;
	}
	return true;
}

/* True if the task's cgroup v2 is the selected one or below it. */
static __always_inline bool cgroup_matches(struct task_struct *task)
{
	struct cgroup *cgrp = BPF_CORE_READ(task, cgroups, dfl_cgrp);

	for (int depth = 0; depth < SCHEDSCAN_CGROUP_MAX_DEPTH && cgrp; depth++) {
		if (BPF_CORE_READ(cgrp, kn, id) == schedscan_filter.cgroup_id)
			return true;
		/* css "self" is the first member: its parent is the parent cgroup. */
		cgrp = (struct cgroup *)BPF_CORE_READ(cgrp, self.parent);
	}
	return false;
}

/*
 * Selection applies to the task an event is about (the wakee, the
 * migrated task, the faulting task), never blindly to current: the
 * waker is current in sched_waking, which is bcc runqlat's cgroup bug.
 */
static __always_inline bool task_selected(struct task_struct *task)
{
	if (schedscan_filter.tgid &&
	    BPF_CORE_READ(task, tgid) != schedscan_filter.tgid)
		return false;
	if (schedscan_filter.use_comm && !comm_matches(task))
		return false;
	if (schedscan_filter.use_cgroup && !cgroup_matches(task))
		return false;
	return true;
}

/* Per-CPU counters: no shared cache line is written in the hot path. */
#define SCHEDSCAN_COUNTER_MAP(name, nr)                                        \
	struct {                                                               \
		__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);                       \
		__uint(max_entries, SCHEDSCAN_BANKS * (nr));                   \
		__type(key, __u32);                                            \
		__type(value, __u64);                                          \
	} name SEC(".maps")

/*
 * One per-CPU record of value_type, in map, and accessor(), which returns the
 * running CPU's (NULL only if the map is broken): the state a program
 * keeps for what this CPU is in the middle of.
 */
#define SCHEDSCAN_PERCPU_STATE(map, value_type, accessor)                      \
	struct {                                                               \
		__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);                       \
		__uint(max_entries, 1);                                        \
		__type(key, __u32);                                            \
		__type(value, value_type);                                     \
	} map SEC(".maps");                                                    \
	static __always_inline value_type *accessor(void)                      \
	{                                                                      \
		__u32 zero = 0;                                                \
                                                                               \
		return bpf_map_lookup_elem(&map, &zero);                       \
	}

/*
 * The bank an event counts in, 0 when the run's window is closed (see
 * struct schedscan_run). Read it once per event and pass it to the
 * *_if() updates: the bank changes while programs run, and one event's
 * counts must all land in the same one.
 */
static __always_inline __u32 counting(void)
{
	__u32 bank = schedscan_run.counting;

	return bank <= SCHEDSCAN_BANKS ? bank : 0;
}

/*
 * For a count already decided (an event record and its counter must
 * agree, whatever a mutation does to the other counters).
 */
static __always_inline void counter_add_decided(__u32 bank, void *map, __u32 index,
						__u64 delta)
{
	__u32 slot = SCHEDSCAN_SLOT(index, bank);
	__u64 *value;

	if (!bank)
		return;
	value = bpf_map_lookup_elem(map, &slot);
	if (value)
		*value += delta;
}

/* counter_add() for an event whose bank was read once. */
static __always_inline void counter_add_if(__u32 bank, void *map, __u32 index,
					   __u64 delta)
{
	if (!bank)
		return;
	if (schedscan_mutation.kind == MUTATION_COUNT_AS &&
	    index == schedscan_mutation.from)
		index = schedscan_mutation.to;
	if (mutation_drops())
		return;
	counter_add_decided(bank, map, index, delta);
}

/* An event with a single count: its own look at the bank is enough. */
static __always_inline void counter_add(void *map, __u32 index, __u64 delta)
{
	counter_add_if(counting(), map, index, delta);
}

/*
 * A histogram in counter slots: nr_slots buckets from base (slot clamped
 * to the last, open-ended one) and the sum of the recorded values in
 * base + nr_slots (OpenMetrics' _sum).
 */
static __always_inline void hist_record_if(__u32 bank, void *map, __u32 base,
					   __u32 nr_slots, __u32 slot, __u64 value)
{
	if (schedscan_mutation.kind == MUTATION_SHIFT_HIST)
		slot++;
	if (slot >= nr_slots)
		slot = nr_slots - 1;
	counter_add_if(bank, map, base + slot, 1);
	counter_add_if(bank, map, base + nr_slots, value);
}

static __always_inline void hist_record(void *map, __u32 base, __u32 nr_slots,
					__u32 slot, __u64 value)
{
	hist_record_if(counting(), map, base, nr_slots, slot, value);
}

/* floor(log2(value)) for value > 0, branch-free (no loop for the verifier). */
static __always_inline __u32 log2_floor(__u64 value)
{
	__u32 result, shift;

	result = (value > 0xFFFFFFFFULL) << 5;
	value >>= result;
	shift = (value > 0xFFFF) << 4;
	value >>= shift;
	result |= shift;
	shift = (value > 0xFF) << 3;
	value >>= shift;
	result |= shift;
	shift = (value > 0xF) << 2;
	value >>= shift;
	result |= shift;
	shift = (value > 0x3) << 1;
	value >>= shift;
	result |= shift;
	return result | (__u32)(value >> 1);
}

/* log2 slot: 0 -> 0, 1 -> 1, [2,3] -> 2, [4,7] -> 3, ... (as lib/hist.c). */
static __always_inline __u32 log2_slot(__u64 value)
{
	return value ? log2_floor(value) + 1 : 0;
}

/*
 * The tp_btf and raw_tp flavours of one tracepoint hook (lib/hooks.c
 * names them "<tracepoint>__tp_btf" and "<tracepoint>__raw_tp"), both
 * returning body; args... are the tracepoint's arguments, as many as body
 * needs. tp_btf hands typed pointers, raw_tp plain words: body must read
 * through them with BPF_CORE_READ so that it works with both.
 */
#define TRACEPOINT_HOOK(tp, body, args...)                                     \
	SEC("tp_btf/" #tp)                                                     \
	int BPF_PROG(tp##__tp_btf, ##args)                                     \
	{                                                                      \
		return body;                                                   \
	}                                                                      \
	SEC("raw_tp/" #tp)                                                     \
	int BPF_PROG(tp##__raw_tp, ##args)                                     \
	{                                                                      \
		return body;                                                   \
	}

char LICENSE[] SEC("license") = "GPL";

#endif
