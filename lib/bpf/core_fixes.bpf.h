/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CO-RE flavours for scheduler fields renamed across kernels. The
 * default vmlinux.h is generated from a 6.18 kernel, so the plain types
 * carry the new names and the ___pre_v614 flavours describe older
 * kernels (commit 736c55a02c47 and the "Rename h_nr_running into
 * h_nr_queued" series renamed these in 6.14).
 */
#ifndef SCHEDSCAN_CORE_FIXES_BPF_H
#define SCHEDSCAN_CORE_FIXES_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>

/* include/linux/sched.h: a #define, so not in BTF (stable since 2.6). */
#define PF_KTHREAD 0x00200000

/*
 * task_struct.on_rq: an int until 7.2, a u8 from 7.3 (packed with on_cpu
 * and is_blocked). BPF_CORE_READ() copies the size vmlinux.h gives, so on
 * 7.3 it took in the next three bytes and read every wakee as queued
 * (sisscan's tracepoint tier then saw no search); read at the kernel's size.
 */
static __always_inline unsigned int task_on_rq(struct task_struct *p)
{
	return BPF_CORE_READ_BITFIELD_PROBED(p, on_rq);
}

struct cfs_rq___pre_v614 {
	unsigned int nr_running;
	unsigned int h_nr_running;
	unsigned int idle_h_nr_running;
} __attribute__((preserve_access_index));

/* Tasks queued on this cfs_rq and its children (h_nr_running before 6.14). */
static __always_inline __u32 cfs_rq_h_nr_queued(struct cfs_rq *cfs_rq)
{
	struct cfs_rq___pre_v614 *old = (void *)cfs_rq;

	if (bpf_core_field_exists(cfs_rq->h_nr_queued))
		return BPF_CORE_READ(cfs_rq, h_nr_queued);
	return BPF_CORE_READ(old, h_nr_running);
}

/*
 * SCHED_IDLE tasks (or tasks in idle cgroups) queued below this cfs_rq:
 * idle_h_nr_running since 5.4, h_nr_idle since 6.14. Seed 000 defines an
 * "unoccupied" CPU as rq->nr_running == rq->cfs.idle_h_nr_running.
 */
static __always_inline __u32 cfs_rq_h_nr_idle(struct cfs_rq *cfs_rq)
{
	struct cfs_rq___pre_v614 *old = (void *)cfs_rq;

	if (bpf_core_field_exists(cfs_rq->h_nr_idle))
		return BPF_CORE_READ(cfs_rq, h_nr_idle);
	if (bpf_core_field_exists(old->idle_h_nr_running))
		return BPF_CORE_READ(old, idle_h_nr_running);
	return 0;
}

/*
 * Runnable tasks below this cfs_rq: h_nr_runnable where delayed dequeue
 * keeps sleepers queued (6.14, and 6.12's stable backport), which leaves
 * them out; the queued count before. 7.3's __dequeue_task() fires
 * sched_update_nr_running_tp in the middle of a delayed task's final
 * dequeue, with the task taken off h_nr_runnable twice until
 * clear_delayed() adds it back: on a runqueue whose last task it was, the
 * unsigned count reads 0 - 1 there (UINT_MAX runnable tasks: idlebal saw
 * an idle CPU "overloaded" 97.6% of a run). The true count is 0.
 */
struct cfs_rq___runnable {
	unsigned int h_nr_runnable;
} __attribute__((preserve_access_index));

static __always_inline __u32 cfs_rq_h_nr_runnable(struct cfs_rq *cfs_rq)
{
	struct cfs_rq___runnable *cfs = (void *)cfs_rq;

	if (bpf_core_field_exists(cfs->h_nr_runnable)) {
		__u32 runnable = BPF_CORE_READ(cfs, h_nr_runnable);

		return (__s32)runnable < 0 ? 0 : runnable;
	}
	return cfs_rq_h_nr_queued(cfs_rq);
}

/* root_domain::overload became overloaded in 6.10. */
struct root_domain___pre_v610 {
	int overload;
} __attribute__((preserve_access_index));

static __always_inline bool rd_overloaded(struct root_domain *rd)
{
	struct root_domain___pre_v610 *old = (void *)rd;

	if (bpf_core_field_exists(rd->overloaded))
		return BPF_CORE_READ(rd, overloaded);
	return BPF_CORE_READ(old, overload);
}

/*
 * The cfs_rq's util_est: a struct util_est whose enqueued field is the
 * sum, until 6.9 made it a plain unsigned int (the same value).
 */
struct util_est___pre_v69 {
	unsigned int enqueued;
} __attribute__((preserve_access_index));

struct sched_avg___pre_v69 {
	struct util_est___pre_v69 util_est;
} __attribute__((preserve_access_index));

static __always_inline unsigned long cfs_rq_util_est(struct cfs_rq *cfs_rq)
{
	struct sched_avg___pre_v69 *old = (void *)&cfs_rq->avg;

	if (bpf_core_field_exists(cfs_rq->avg.util_est))
		return BPF_CORE_READ(cfs_rq, avg.util_est);
	if (bpf_core_field_exists(old->util_est.enqueued))
		return BPF_CORE_READ(old, util_est.enqueued);
	return 0;
}

/* enum cpu_idle_type was reordered in 6.10: read the values by name. */
enum cpu_idle_type___pre_v610 {
	CPU_NOT_IDLE___pre_v610 = 1,
};

static __always_inline int cpu_idle_type_not_idle(void)
{
	if (bpf_core_enum_value_exists(enum cpu_idle_type, __CPU_NOT_IDLE))
		return bpf_core_enum_value(enum cpu_idle_type, __CPU_NOT_IDLE);
	return bpf_core_enum_value(enum cpu_idle_type___pre_v610,
				   CPU_NOT_IDLE___pre_v610);
}

#endif
