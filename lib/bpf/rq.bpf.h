/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Runqueue state read from the kernel's own runqueues, so every tier
 * sees the same truth: what idle_cpu() and sched_idle_cpu() would answer
 * at that instant, not a model of it. Fill the maps with lib/cpustate.c.
 */
#ifndef SCHEDSCAN_RQ_BPF_H
#define SCHEDSCAN_RQ_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "core_fixes.bpf.h"
#include "selection.h"

/* include/uapi/linux/sched.h: #defines, so not in BTF. */
#define SCHED_NORMAL 0
#define SCHED_BATCH 3
#define SCHED_IDLE 5

/* Words of a CPU mask (nr_cpu_ids / 64 rounded up); set by user space. */
const volatile __u32 nr_cpu_words = 1;

#define SCHEDSCAN_MAX_CPU_WORDS (SCHEDSCAN_MAX_CPUS / 64)

/*
 * The runqueue of each CPU, learnt from sched_update_nr_running_tp,
 * which hands one over. The typed ksym &runqueues would be simpler, but
 * the verifier resolves per-CPU variables through kallsyms, which lists
 * them only with CONFIG_KALLSYMS_ALL (Debian has it; our host does not).
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SCHEDSCAN_MAX_CPUS);
	__type(key, __u32);
	__type(value, __u64);
} rq_of_cpu SEC(".maps");

/*
 * Each CPU's LLC as the scheduler sees it (the span of its sd_llc; sysfs
 * may list no caches at all, as in our VMs), recorded by learn_rq(): word
 * w of CPU c's at
 * c * nr_cpu_words + w. Sized by user space.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} llc_span_words SEC(".maps");

/* LLC index of each CPU, and the LLCs' CPUs: user space builds them from llc_span_words. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SCHEDSCAN_MAX_CPUS);
	__type(key, __u32);
	__type(value, __s32);
} llc_of_cpu SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SCHEDSCAN_MAX_CPUS);
	__type(key, __u32);
	__type(value, __u32);
} llc_cpu_count SEC(".maps");

/*
 * The CPUs of every LLC in ascending order, LLC after LLC: LLC l's are
 * llc_cpus[llc_first[l] .. llc_first[l] + llc_cpu_count[l] - 1].
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SCHEDSCAN_MAX_CPUS);
	__type(key, __u32);
	__type(value, __u32);
} llc_first SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SCHEDSCAN_MAX_CPUS);
	__type(key, __u32);
	__type(value, __s32);
} llc_cpus SEC(".maps");

/* Task's CPU: thread_info.cpu with THREAD_INFO_IN_TASK, else task->cpu. */
struct task_struct___no_ti_cpu {
	int cpu;
} __attribute__((preserve_access_index));

static __always_inline int task_cpu_of(struct task_struct *p)
{
	if (bpf_core_field_exists(p->thread_info.cpu))
		return BPF_CORE_READ(p, thread_info.cpu);
	return BPF_CORE_READ((struct task_struct___no_ti_cpu *)p, cpu);
}

/*
 * Only domains with SD_SHARE_LLC get a ->shared, so sd_llc is the highest
 * domain above rq->sd that has one; NULL when the CPU shares no cache.
 * (The per-CPU sd_llc pointer itself needs KALLSYMS_ALL, as above.)
 */
#define SCHEDSCAN_MAX_DOMAIN_LEVELS 8

static __always_inline struct sched_domain *rq_llc_domain(struct rq *rq)
{
	struct sched_domain *sd = BPF_CORE_READ(rq, sd), *llc = NULL;

	for (int level = 0; level < SCHEDSCAN_MAX_DOMAIN_LEVELS && sd; level++) {
		if (BPF_CORE_READ(sd, shared))
			llc = sd;
		sd = BPF_CORE_READ(sd, parent);
	}
	return llc;
}

/*
 * The span is a flexible array after struct sched_domain, which BTF does
 * not describe: its offset is the struct's size in the running kernel.
 */
static __always_inline __u64 domain_span_word(struct sched_domain *sd, __u32 w)
{
	__u64 word = 0;

	bpf_probe_read_kernel(&word, sizeof(word),
			      (void *)sd + bpf_core_type_size(struct sched_domain) +
			      w * sizeof(word));
	return word;
}

/* Start-up only: record the rq and its LLC span, the span first. */
static __always_inline int learn_rq(struct rq *rq)
{
	__u32 cpu = BPF_CORE_READ(rq, cpu);
	__u64 *slot = bpf_map_lookup_elem(&rq_of_cpu, &cpu);
	struct sched_domain *llc;

	if (!slot || *slot || cpu >= SCHEDSCAN_MAX_CPUS)
		return 0;
	llc = rq_llc_domain(rq);
	for (__u32 w = 0; w < SCHEDSCAN_MAX_CPU_WORDS && w < nr_cpu_words; w++) {
		__u32 key = cpu * nr_cpu_words + w;
		__u64 word;

		if (llc)
			word = domain_span_word(llc, w);
		else
			word = w == cpu / 64 ? 1ULL << (cpu % 64) : 0;
		bpf_map_update_elem(&llc_span_words, &key, &word, BPF_ANY);
	}
	*slot = (__u64)rq;
	return 0;
}

static __always_inline struct rq *cpu_rq_of(int cpu)
{
	__u32 key = cpu;
	__u64 *slot = bpf_map_lookup_elem(&rq_of_cpu, &key);

	return slot ? (struct rq *)*slot : NULL;
}

static __always_inline int llc_of(int cpu)
{
	__u32 key = cpu;
	__s32 *llc = bpf_map_lookup_elem(&llc_of_cpu, &key);

	return llc ? *llc : -1;
}

static __always_inline bool same_llc(int a, int b)
{
	int llc = llc_of(a);

	return a == b || (llc >= 0 && llc == llc_of(b));
}

/* CPUs in cpu's LLC, 0 if unknown. */
static __always_inline __u32 llc_weight(int cpu)
{
	__u32 key = llc_of(cpu);
	__u32 *count = bpf_map_lookup_elem(&llc_cpu_count, &key);

	return count ? *count : 0;
}

static __always_inline __u32 llc_first_index(int cpu)
{
	__u32 key = llc_of(cpu);
	__u32 *first = bpf_map_lookup_elem(&llc_first, &key);

	return first ? *first : 0;
}

/* The i-th CPU of an LLC, from its first index; -1 if out of range. */
static __always_inline int llc_cpu_at(__u32 first, __u32 i)
{
	__u32 key = first + i;
	__s32 *cpu = bpf_map_lookup_elem(&llc_cpus, &key);

	return cpu ? *cpu : -1;
}

/*
 * kernel/sched/syscalls.c idle_cpu(): the idle task runs, nothing is
 * queued and no remote wakeup is pending. not_counting: tasks on the rq
 * to ignore (a wakee already enqueued when the tracepoint fires).
 */
static __always_inline bool rq_idle(struct rq *rq, unsigned int not_counting)
{
	if (BPF_CORE_READ(rq, curr) != BPF_CORE_READ(rq, idle))
		return false;
	if (BPF_CORE_READ(rq, nr_running) > not_counting)
		return false;
	return !BPF_CORE_READ(rq, ttwu_pending) || not_counting;
}

/*
 * Seed 000 L663-674: unoccupied_rq() is nr_running == idle_h_nr_running,
 * i.e. idle or sched-idle ("idle_cpu(cpu) || sched_idle_cpu(cpu)").
 * not_counting / not_counting_idle: an enqueued wakee, and whether it is
 * itself a SCHED_IDLE task.
 */
static __always_inline bool rq_unoccupied(struct rq *rq, unsigned int not_counting,
					  unsigned int not_counting_idle)
{
	unsigned int nr = BPF_CORE_READ(rq, nr_running) - not_counting;
	unsigned int nr_idle = cfs_rq_h_nr_idle(&rq->cfs) - not_counting_idle;

	if (!nr)
		return rq_idle(rq, not_counting);
	return nr == nr_idle;
}

/*
 * fair.c choose_sched_idle_rq() (7.3; sched_idle_cpu() in select_idle_*()
 * before): only SCHED_IDLE tasks are queued, and the wakee is not one.
 */
static __always_inline bool rq_sched_idle_for(struct rq *rq, struct task_struct *p)
{
	unsigned int nr = BPF_CORE_READ(rq, nr_running);

	return nr && nr == cfs_rq_h_nr_idle(&rq->cfs) &&
	       BPF_CORE_READ(p, policy) != SCHED_IDLE;
}

static __always_inline bool cpu_unoccupied(int cpu)
{
	struct rq *rq = cpu_rq_of(cpu);

	return rq && rq_unoccupied(rq, 0, 0);
}

/* SIS_UTIL's limit for cpu's LLC, sd_llc_shared->nr_idle_scan, or -1. */
static __always_inline int llc_nr_idle_scan(int cpu)
{
	struct rq *rq = cpu_rq_of(cpu);
	struct sched_domain *llc = rq ? rq_llc_domain(rq) : NULL;

	if (!llc)
		return -1;
	return BPF_CORE_READ(llc, shared, nr_idle_scan);
}

/* cpu is in a kernel cpumask, e.g. p->cpus_ptr (one word read per call). */
static __always_inline bool cpumask_has(const struct cpumask *mask, int cpu)
{
	__u64 word = 0;

	bpf_probe_read_kernel(&word, sizeof(word),
			      (void *)mask + ((__u32)cpu / 64) * sizeof(word));
	return (word >> ((__u32)cpu % 64)) & 1;
}

#endif
