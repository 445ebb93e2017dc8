/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Decoding one select_idle_sibling() pass from the calls it makes.
 *
 * select_idle_sibling() and its helpers are inlined into
 * select_task_rq_fair() on the kernels we target, so sisscan cannot hook
 * its stages. It sees, in order, every available_idle_cpu(cpu) call (with
 * its result) and every cpus_share_cache(a, b) call (with its result)
 * made inside one select_task_rq_fair() call, then the CPU it returns.
 * The stages are told apart by who is probed and by the cache checks
 * between them; docs/sis-decoding.md derives the grammar from the 6.1,
 * 6.12 and 6.18 sources.
 *
 * This file is plain C on purpose: the BPF program runs sis_decode_probe()
 * and sis_decode_share_cache() from its hooks and sis_decode_finish() at
 * the function's exit, and tests/unit/test_sis_decode.c runs the very
 * same code on call sequences written down from the kernel source.
 * No loops, no globals, no library calls.
 */
#ifndef SCHEDSCAN_SIS_DECODE_H
#define SCHEDSCAN_SIS_DECODE_H

/* Where the decoder is: the stage the next event can belong to. */
enum sis_stage {
	SIS_ST_BEGIN,		/* nothing seen yet */
	SIS_ST_WA_WAKER,	/* wake_affine_idle() probed the waker CPU */
	SIS_ST_WA_SHARE,	/* ... and checked it shares the LLC with prev */
	SIS_ST_WA_PREV,		/* ... and probed prev: the next probe is S1 */
	SIS_ST_TARGET,		/* S1 probed target */
	SIS_ST_PREV_SHARE,	/* S2 cache check (prev, target) */
	SIS_ST_PREV,		/* S2 probed prev */
	SIS_ST_RECENT_SHARE,	/* S4 cache check (recent, target) */
	SIS_ST_RECENT,		/* S4 probed recent_used_cpu */
	SIS_ST_SMT_SHARE,	/* S7 cache check before select_idle_smt() */
	SIS_ST_SMT,		/* S7 probing prev's SMT siblings */
	SIS_ST_DOMAIN,		/* S8 select_idle_cpu() probing the LLC */
	SIS_ST_UNDECODED,	/* a call the grammar does not allow */
};

/* Outcome classes: docs/metrics.md, "sisscan outcome classes". */
enum sis_outcome {
	SIS_OUT_TARGET_IDLE,
	SIS_OUT_PREV_IDLE,
	SIS_OUT_RECENT_HIT,
	SIS_OUT_SMT_HIT,
	SIS_OUT_DOMAIN_HIT,
	SIS_OUT_DOMAIN_FAILED,
	SIS_OUT_SCAN_SKIPPED,
	SIS_OUT_UNDECODED,
	SIS_OUT_NO_SIS,		/* select_task_rq_fair() returned before SIS */
	SIS_NR_OUTCOMES,
};

struct sis_decoder {
	int waker, prev, recent;	/* read at select_task_rq_fair() entry */
	int target;			/* S1's CPU; -1 before */
	int last_probe_cpu;
	int smt_last_cpu;		/* last S7 probe; -1 before */
	int domain_first_idle;		/* first S8 probe that found idle; -1 */
	unsigned int stage;		/* enum sis_stage */
	unsigned int last_probe_stage;	/* stage of the last probe */
	unsigned int probes;		/* every available_idle_cpu() call */
	unsigned int smt_probes, domain_probes;
	int waker_idle;			/* wake_affine_idle()'s first probe */
	int wa_shared;			/* ... and its (W, prev) cache check */
	int last_probe_idle;
	int recent_probed;		/* S4 probed recent_used_cpu */
	int prev_check_seen;		/* S2's (prev, target) check was made */
};

static inline void sis_decode_begin(struct sis_decoder *d, int waker, int prev,
				    int recent)
{
	d->waker = waker;
	d->prev = prev;
	d->recent = recent;
	d->target = -1;
	d->last_probe_cpu = -1;
	d->smt_last_cpu = -1;
	d->domain_first_idle = -1;
	d->stage = SIS_ST_BEGIN;
	d->last_probe_stage = SIS_ST_BEGIN;
	d->probes = 0;
	d->smt_probes = 0;
	d->domain_probes = 0;
	d->waker_idle = 0;
	d->wa_shared = 0;
	d->last_probe_idle = 0;
	d->recent_probed = 0;
	d->prev_check_seen = 0;
}

static inline unsigned int sis_probe_stage(const struct sis_decoder *d, int cpu,
					   int smt_sibling_of_prev)
{
	switch (d->stage) {
	case SIS_ST_BEGIN:
		/* wake_affine_idle() always starts with the waker (W != prev). */
		if (d->waker != d->prev && cpu == d->waker)
			return SIS_ST_WA_WAKER;
		return cpu == d->prev ? SIS_ST_TARGET : SIS_ST_UNDECODED;
	case SIS_ST_WA_WAKER:
		/* An idle waker is followed by the (W, prev) cache check. */
		if (d->waker_idle)
			return SIS_ST_UNDECODED;
		/* Sync shortcut returned W, so S1 probes W; else W probes prev. */
		return cpu == d->waker ? SIS_ST_TARGET :
		       cpu == d->prev ? SIS_ST_WA_PREV : SIS_ST_UNDECODED;
	case SIS_ST_WA_SHARE:
		/* Shared: wake_affine_idle() probes prev and returns. */
		if (d->wa_shared)
			return cpu == d->prev ? SIS_ST_WA_PREV : SIS_ST_UNDECODED;
		return cpu == d->waker ? SIS_ST_TARGET :
		       cpu == d->prev ? SIS_ST_WA_PREV : SIS_ST_UNDECODED;
	case SIS_ST_WA_PREV:
		return cpu == d->waker || cpu == d->prev ? SIS_ST_TARGET :
		       SIS_ST_UNDECODED;
	case SIS_ST_PREV_SHARE:
		/* A true (prev, target) check is followed by prev's probe. */
		return cpu == d->prev ? SIS_ST_PREV : SIS_ST_UNDECODED;
	case SIS_ST_RECENT_SHARE:
		return cpu == d->recent ? SIS_ST_RECENT : SIS_ST_UNDECODED;
	case SIS_ST_SMT_SHARE:
	case SIS_ST_SMT:
		/* select_idle_smt() walks prev's siblings in ascending order. */
		if (smt_sibling_of_prev && cpu > d->smt_last_cpu)
			return SIS_ST_SMT;
		return SIS_ST_DOMAIN;
	case SIS_ST_TARGET:
	case SIS_ST_PREV:
	case SIS_ST_RECENT:
	case SIS_ST_DOMAIN:
		return SIS_ST_DOMAIN;
	default:
		return SIS_ST_UNDECODED;
	}
}

/*
 * available_idle_cpu(cpu) returned idle. smt_sibling_of_prev: cpu and
 * prev are SMT siblings (cpu == prev included), from user space topology.
 */
static inline void sis_decode_probe(struct sis_decoder *d, int cpu, int idle,
				    int smt_sibling_of_prev)
{
	unsigned int stage = sis_probe_stage(d, cpu, smt_sibling_of_prev);

	d->probes++;
	switch (stage) {
	case SIS_ST_WA_WAKER:
		d->waker_idle = idle;
		break;
	case SIS_ST_TARGET:
		d->target = cpu;
		break;
	case SIS_ST_RECENT:
		d->recent_probed = 1;
		break;
	case SIS_ST_SMT:
		d->smt_probes++;
		d->smt_last_cpu = cpu;
		break;
	case SIS_ST_DOMAIN:
		d->domain_probes++;
		if (idle && d->domain_first_idle < 0)
			d->domain_first_idle = cpu;
		break;
	}
	d->stage = stage;
	d->last_probe_stage = stage;
	d->last_probe_cpu = cpu;
	d->last_probe_idle = idle;
}

/* The stage a cpus_share_cache(a, b) call belongs to, from d->stage. */
static inline unsigned int sis_share_stage(const struct sis_decoder *d, int a,
					   int b)
{
	int target = d->target;
	int s2 = a == d->prev && b == target && d->prev != target &&
		 !d->prev_check_seen;
	int s4 = a == d->recent && b == target && d->recent != d->prev &&
		 d->recent != target;
	int s7 = a == d->prev && b == target;

	switch (d->stage) {
	case SIS_ST_WA_WAKER:
		return d->waker_idle && a == d->waker && b == d->prev ?
		       SIS_ST_WA_SHARE : SIS_ST_UNDECODED;
	case SIS_ST_TARGET:
		/* S2 checks (prev, target) only when they differ. */
		return s2 ? SIS_ST_PREV_SHARE : s4 ? SIS_ST_RECENT_SHARE :
		       s7 ? SIS_ST_SMT_SHARE : SIS_ST_UNDECODED;
	case SIS_ST_PREV:
		return s4 ? SIS_ST_RECENT_SHARE : s7 ? SIS_ST_SMT_SHARE :
		       SIS_ST_UNDECODED;
	case SIS_ST_RECENT:
		/* S7 checks (prev, target) again, even when prev == target. */
		return s7 ? SIS_ST_SMT_SHARE : SIS_ST_UNDECODED;
	default:
		return SIS_ST_UNDECODED;
	}
}

/* cpus_share_cache(a, b) returned shared. */
static inline void sis_decode_share_cache(struct sis_decoder *d, int a, int b,
					  int shared)
{
	unsigned int stage = sis_share_stage(d, a, b);

	switch (stage) {
	case SIS_ST_WA_SHARE:
		d->wa_shared = shared;
		break;
	case SIS_ST_PREV_SHARE:
		d->prev_check_seen = 1;
		/* A false check makes no probe: S2 is over. */
		if (!shared)
			stage = SIS_ST_PREV;
		break;
	case SIS_ST_RECENT_SHARE:
		if (!shared)
			stage = SIS_ST_RECENT;
		break;
	case SIS_ST_SMT_SHARE:
		/* No select_idle_smt(): what follows is the domain scan. */
		if (!shared)
			stage = SIS_ST_DOMAIN;
		break;
	}
	d->stage = stage;
}

/* What each stage's hit is called. */
static inline unsigned int sis_stage_outcome(unsigned int stage)
{
	switch (stage) {
	case SIS_ST_TARGET:
		return SIS_OUT_TARGET_IDLE;
	case SIS_ST_PREV:
		return SIS_OUT_PREV_IDLE;
	case SIS_ST_RECENT:
		return SIS_OUT_RECENT_HIT;
	case SIS_ST_SMT:
		return SIS_OUT_SMT_HIT;
	case SIS_ST_DOMAIN:
		return SIS_OUT_DOMAIN_HIT;
	default:
		return SIS_OUT_UNDECODED;
	}
}

/*
 * select_task_rq_fair() returned ret. returned_unoccupied: ret was idle or
 * sched-idle when read at the exit (sched_idle_cpu() is static and makes
 * no call we can see, so a sched-idle hit shows as a busy probe).
 */
static inline unsigned int sis_decode_finish(const struct sis_decoder *d, int ret,
					     int returned_unoccupied)
{
	if (d->stage == SIS_ST_UNDECODED)
		return SIS_OUT_UNDECODED;
	/* No S1 probe: WF_CURRENT_CPU or energy-aware placement. */
	if (d->target < 0)
		return d->probes ? SIS_OUT_UNDECODED : SIS_OUT_NO_SIS;
	/* Every stage returns at once on a hit, so the last probe decides. */
	if (ret == d->last_probe_cpu && (d->last_probe_idle || returned_unoccupied))
		return sis_stage_outcome(d->last_probe_stage);
	/* select_idle_core() returns a remembered idle CPU, not the last one. */
	if (d->domain_probes && ret == d->domain_first_idle)
		return SIS_OUT_DOMAIN_HIT;
	if (d->domain_probes)
		return SIS_OUT_DOMAIN_FAILED;
	return SIS_OUT_SCAN_SKIPPED;
}

#endif
