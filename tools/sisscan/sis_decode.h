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
 * No loops, no globals, no library calls: zero a decoder once before its
 * first sis_decode_begin() (the BPF map values start zeroed), as the
 * per-word generations below rely on it.
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

/* sis_decode_begin() flags: what user space knows of the machine. */
enum sis_decode_flag {
	SIS_DECODE_SMT = 1,	/* sched_smt_active(): a core has siblings */
	SIS_DECODE_ASYM = 2,	/* asymmetric capacity: S5 replaces S7-S8 */
	/*
	 * The idle probe is choose_idle_cpu(cpu, p) (7.3): idle, or sched-idle
	 * for a wakee that is not SCHED_IDLE itself.
	 */
	SIS_DECODE_CHOOSE_IDLE = 4,
};

/*
 * The CPUs the domain scan probed, and found idle, as bitmaps: an idle
 * core scan returns the core the wrap loop reached, or the first idle
 * (or sched-idle) allowed CPU it remembered, which need not be the last
 * probe. A word is valid only when its generation is the decoder's, so
 * begin clears nothing.
 */
#define SIS_DECODE_WORDS 128	/* SCHEDSCAN_MAX_CPUS / 64 */

/*
 * Hides an index from the optimiser, so that the bound test and the
 * array access use the same register: the BPF verifier tracks the bound
 * on the register that was compared, and clang otherwise tests the CPU
 * number and recomputes the index from another copy. (GCC accepts it too.)
 */
#define SIS_DECODE_OPAQUE(x) __asm__ volatile("" : "+r"(x))

struct sis_domain_word {
	unsigned long long probed, idle;
	unsigned int generation;
	unsigned int pad;
};

struct sis_decoder {
	int waker, prev, recent;	/* read at select_task_rq_fair() entry */
	unsigned int flags;		/* enum sis_decode_flag */
	unsigned int generation;	/* of this pass, for domain_words */
	int target;			/* S1's CPU; -1 before */
	int last_probe_cpu;
	int smt_last_cpu;		/* last S7 probe; -1 before */
	unsigned int stage;		/* enum sis_stage */
	unsigned int last_probe_stage;	/* stage of the last probe */
	unsigned int probes;		/* every available_idle_cpu() call */
	unsigned int smt_probes, domain_probes;
	int waker_idle;			/* wake_affine_idle()'s first probe */
	int wa_shared;			/* ... and its (W, prev) cache check */
	int last_probe_idle;
	int recent_probed;		/* S4 probed recent_used_cpu */
	int prev_check_seen;		/* S2's (prev, target) check was made */
	int smt_check_seen;		/* S7's check: no idle core (SMT only) */
	int share_after_probe;		/* a cache check followed the last probe */
	struct sis_domain_word domain_words[SIS_DECODE_WORDS];
};

static inline void sis_decode_begin(struct sis_decoder *d, int waker, int prev,
				    int recent, unsigned int flags)
{
	d->generation++;
	d->flags = flags;
	d->waker = waker;
	d->prev = prev;
	d->recent = recent;
	d->target = -1;
	d->last_probe_cpu = -1;
	d->smt_last_cpu = -1;
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
	d->smt_check_seen = 0;
	d->share_after_probe = 0;
}

/* The domain-scan word of cpu, made current; NULL past SIS_DECODE_WORDS. */
static inline struct sis_domain_word *sis_domain_word(struct sis_decoder *d,
						      int cpu)
{
	unsigned int w = (unsigned int)cpu / 64;
	struct sis_domain_word *word;

	SIS_DECODE_OPAQUE(w);
	if (w >= SIS_DECODE_WORDS)
		return 0;
	word = &d->domain_words[w];
	if (word->generation != d->generation) {
		word->generation = d->generation;
		word->probed = 0;
		word->idle = 0;
	}
	return word;
}

static inline unsigned int sis_probe_stage(const struct sis_decoder *d, int cpu,
					   int smt_sibling_of_prev)
{
	switch (d->stage) {
	case SIS_ST_BEGIN:
		/*
		 * 7.3 inlines wake_affine_idle()'s available_idle_cpu() calls:
		 * the first probe seen is S1's, of wake_affine()'s W or prev.
		 */
		if (d->flags & SIS_DECODE_CHOOSE_IDLE)
			return cpu == d->waker || cpu == d->prev ? SIS_ST_TARGET :
			       SIS_ST_UNDECODED;
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
		/*
		 * select_idle_smt(p, sd, prev) walks prev's siblings in
		 * ascending order and skips prev itself (6.1, 6.12, 6.18).
		 */
		if (smt_sibling_of_prev && cpu != d->prev && cpu > d->smt_last_cpu)
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
	case SIS_ST_DOMAIN: {
		struct sis_domain_word *word = sis_domain_word(d, cpu);

		d->domain_probes++;
		if (!word) {
			stage = SIS_ST_UNDECODED;
			break;
		}
		word->probed |= 1ULL << ((unsigned int)cpu % 64);
		if (idle)
			word->idle |= 1ULL << ((unsigned int)cpu % 64);
		break;
	}
	}
	d->share_after_probe = 0;
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
	case SIS_ST_BEGIN:
		/* 7.3: the (W, prev) check after an unseen idle probe of W. */
		return (d->flags & SIS_DECODE_CHOOSE_IDLE) && a == d->waker &&
		       b == d->prev ? SIS_ST_BEGIN : SIS_ST_UNDECODED;
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

	/* The last probe's stage did not return: 6.12's prev_aff/recent. */
	d->share_after_probe = 1;
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
		/* Made only when test_idle_cores(target) said no. */
		d->smt_check_seen = 1;
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
 * The domain scan ran select_idle_core() on each core (test_idle_cores()
 * said yes), so SIS_UTIL's nr never counted down: S7's cache check is
 * made exactly when it said no, and on an SMT machine every pass that
 * reaches S8 passes S7 first.
 */
static inline int sis_decode_idle_core_scan(const struct sis_decoder *d)
{
	return (d->flags & SIS_DECODE_SMT) && !d->smt_check_seen;
}

/* The domain scan probed cpu, and found it idle (idle_too). */
static inline int sis_domain_probed(const struct sis_decoder *d, int cpu,
				    int idle_too)
{
	unsigned int w = (unsigned int)cpu / 64;
	const struct sis_domain_word *word;
	unsigned long long bit;

	SIS_DECODE_OPAQUE(w);
	if (w >= SIS_DECODE_WORDS)
		return 0;
	word = &d->domain_words[w];
	bit = 1ULL << ((unsigned int)cpu % 64);
	if (word->generation != d->generation || !(word->probed & bit))
		return 0;
	return !idle_too || (word->idle & bit);
}

/*
 * select_task_rq_fair() returned ret. returned_unoccupied: ret was idle or
 * sched-idle when read at the exit (sched_idle_cpu() is static and makes
 * no call we can see, so a sched-idle hit shows as a busy probe).
 */
static inline unsigned int sis_decode_finish(const struct sis_decoder *d, int ret,
					     int returned_unoccupied)
{
	unsigned int outcome;

	if (d->stage == SIS_ST_UNDECODED)
		return SIS_OUT_UNDECODED;
	/* No S1 probe: WF_CURRENT_CPU or energy-aware placement. */
	if (d->target < 0)
		return d->probes ? SIS_OUT_UNDECODED : SIS_OUT_NO_SIS;
	/*
	 * Every stage returns at once on a hit, so the last probe decides,
	 * unless a cache check followed it: then its stage went on (6.12+
	 * remembers an idle prev or recent outside target's cluster and
	 * returns it only after a failed scan).
	 */
	if (ret == d->last_probe_cpu && !d->share_after_probe &&
	    (d->last_probe_idle || returned_unoccupied))
		outcome = sis_stage_outcome(d->last_probe_stage);
	/* select_idle_core() returns a core or a remembered CPU, not the last. */
	else if (d->domain_probes &&
		 (sis_domain_probed(d, ret, 1) ||
		  (returned_unoccupied && sis_domain_probed(d, ret, 0))))
		outcome = SIS_OUT_DOMAIN_HIT;
	else if (d->domain_probes)
		outcome = SIS_OUT_DOMAIN_FAILED;
	else
		outcome = SIS_OUT_SCAN_SKIPPED;
	/* select_idle_capacity() replaces S7-S8: no grammar for it. */
	if ((d->flags & SIS_DECODE_ASYM) && outcome != SIS_OUT_TARGET_IDLE &&
	    outcome != SIS_OUT_PREV_IDLE && outcome != SIS_OUT_RECENT_HIT)
		return SIS_OUT_UNDECODED;
	return outcome;
}

#endif
