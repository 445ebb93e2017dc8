/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The "unoccupied" filter of Abel Wu's SIS filter v4 (seed 000, patches
 * 5-7), as posted: a per-LLC mask of unoccupied CPUs (idle_cpus[]) that
 * select_idle_cpu() scans instead of the LLC when the LLC has no idle
 * core, kept by the SMT-level load balancing of each core.
 *
 * Plain C, shared as sis_decode.h is: the BPF program runs these steps
 * at load_balance() and at each audited wakeup, and
 * tests/unit/test_filter_v4.c runs the same code on the cases written
 * down from the patch. No loops over unknown bounds, no globals.
 */
#ifndef SCHEDSCAN_FILTER_V4_H
#define SCHEDSCAN_FILTER_V4_H

/*
 * enum sd_state of the patch (P7 L881-894), for an SMT domain. The
 * domain starts busy (P5 topology.c: "Initialize SMT domains to be
 * busy"), so nothing reaches the mask before the core's first balance.
 */
enum v4_core_state {
	V4_HAS_ICPUS = 1,	/* an unoccupied CPU was propagated */
	V4_MAY_IDLE = 2,	/* P7: between has_icpus and busy */
	V4_IS_BUSY = 3,
};

/* The most SMT siblings modelled per core (SMT8). */
#define V4_MAX_SIBLINGS 8

/* One sibling as update_sg_lb_stats() reads it. */
struct v4_cpu_view {
	int cpu;
	unsigned char unoccupied;	/* unoccupied_rq(): nr_running == idle_h_nr_running */
	unsigned char idle;		/* !nr_running && idle_cpu() */
	unsigned char sched_idle;	/* sched_idle_cpu() */
};

/* What one SMT-level balance does to the LLC's mask and state. */
struct v4_update {
	int set_cpu;		/* set in idle_cpus[], or -1 */
	unsigned char clear_core;	/* clear the core's CPUs from idle_cpus[] */
	unsigned char llc_idle;	/* set_idle_cpus(dst, true): the LLC is not busy */
	unsigned char state;	/* the core's state afterwards */
};

/* sd_classify() as it walks the siblings (init_sd_lb_stats(): busy, -1). */
struct v4_classify {
	unsigned char state;
	int idle_cpu;
};

static inline void v4_classify_begin(struct v4_classify *c)
{
	c->state = V4_IS_BUSY;
	c->idle_cpu = -1;
}

/* One sibling; is_dst: P7 L771-772 skips dst, which may be fed tasks soon. */
static inline void v4_classify_cpu(struct v4_classify *c, const struct v4_cpu_view *v,
				   int is_dst)
{
	if (is_dst)
		return;
	/* P6 sd_classify(): the first unoccupied CPU... */
	if (c->state != V4_HAS_ICPUS && v->unoccupied) {
		c->idle_cpu = v->cpu;
		c->state = V4_HAS_ICPUS;
	}
	/* ... unless an idle one comes after: the last idle CPU wins. */
	if (v->idle)
		c->idle_cpu = v->cpu;
}

/*
 * sd_update_state() with the core's state before it; dst: dst's view,
 * NULL for the seeding at the attach (a balance for no CPU in particular).
 *
 * As posted, P7 computes icpu = dst for a core whose only unoccupied CPU
 * is dst (sd_may_idle) but still passes sds->idle_cpu, which is -1 then,
 * to sd_update_icpus(): the core is cleared from the mask (L990). The
 * model does what the patch does.
 */
static inline void v4_update_state(unsigned char core_state, const struct v4_classify *c,
				   const struct v4_cpu_view *dst, struct v4_update *out)
{
	unsigned char state = c->state;

	out->set_cpu = -1;
	out->clear_core = 0;
	out->llc_idle = 0;
	out->state = core_state;
	if (state == V4_IS_BUSY && dst && (dst->idle || dst->sched_idle))
		state = V4_MAY_IDLE;	/* icpu = dst, unused as posted */
	if (state != V4_IS_BUSY) {
		out->llc_idle = 1;
	} else {
		if (core_state == V4_IS_BUSY)
			return;			/* nothing changes */
		if (core_state == V4_HAS_ICPUS) {
			out->state = V4_MAY_IDLE;	/* false positives may stay a while */
			return;
		}
	}
	/* sd_update_icpus(dst, sds->idle_cpu) */
	if (c->idle_cpu < 0)
		out->clear_core = 1;
	else
		out->set_cpu = c->idle_cpu;
	out->state = state;
}

/*
 * One SMT-level load_balance() by dst (sd_classify() over the core, then
 * sd_update_state()). The siblings come in the order the domain's groups
 * are visited: dst's group first, then the others (for_each_cpu_wrap from
 * dst). dst_index < 0: the seeding. The BPF side runs the same steps from
 * a bpf_loop() callback.
 */
static inline void v4_balance(unsigned char core_state,
			      const struct v4_cpu_view *cpus, int n, int dst_index,
			      struct v4_update *out)
{
	struct v4_classify c;

	v4_classify_begin(&c);
	for (int k = 0; k < n && k < V4_MAX_SIBLINGS; k++)
		v4_classify_cpu(&c, &cpus[k], k == dst_index);
	v4_update_state(core_state, &c,
			dst_index >= 0 && dst_index < n ? &cpus[dst_index] : 0, out);
}

/*
 * The LLC side, at a wakeup that reaches select_idle_cpu() in the patched
 * kernel: the state it leaves (P5 L741-747). has_idle_core: the scan was
 * over the whole LLC; found: it found an unoccupied CPU; complete: it
 * visited every CPU it had (SIS_UTIL's limit returns -1 before the write).
 * Returns 1 when the LLC becomes busy (sd_is_busy).
 */
static inline int v4_scan_leaves_busy(int has_idle_core, int found, int complete)
{
	if (found)
		return 0;
	/* An idle-core scan is never cut; a filtered one writes only if whole. */
	return has_idle_core || complete;
}

#endif
