/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space side of lib/bpf/rq.bpf.h. At start-up a BPF program on
 * sched_update_nr_running_tp records each CPU's runqueue and the span of
 * its LLC domain (sd_llc) as the scheduler sees it; this file makes every
 * online CPU produce that event, then groups the spans into LLCs and
 * fills the maps the BPF side walks.
 */
#ifndef SCHEDSCAN_CPUSTATE_H
#define SCHEDSCAN_CPUSTATE_H

#include <stdbool.h>
#include <stddef.h>
#include "table.h"
#include "topology.h"

struct bpf_map;

struct cpustate_maps {
	struct bpf_map *rq_of_cpu, *llc_span_words;
	struct bpf_map *llc_of_cpu, *llc_cpu_count, *llc_first, *llc_cpus;
};

/* The maps of lib/bpf/rq.bpf.h in a skeleton. */
#define CPUSTATE_MAPS(skel)                                                    \
	((struct cpustate_maps){                                               \
		.rq_of_cpu = (skel)->maps.rq_of_cpu,                           \
		.llc_of_cpu = (skel)->maps.llc_of_cpu,                         \
		.llc_cpu_count = (skel)->maps.llc_cpu_count,                   \
		.llc_span_words = (skel)->maps.llc_span_words,                 \
		.llc_first = (skel)->maps.llc_first,                           \
		.llc_cpus = (skel)->maps.llc_cpus,                             \
	})

/* The scheduler's LLCs, as learnt. */
struct cpustate {
	int nr_cpu_ids;
	int nr_llcs;
	int *llc_of_cpu;		/* -1: offline */
	struct cpumask *llc_cpus;	/* [nr_llcs] */
};

/* 64-bit words in a mask of nr_cpu_ids CPUs. */
unsigned int cpustate_words(int nr_cpu_ids);
/* Before load: size llc_span_words. */
int cpustate_size(const struct cpustate_maps *maps, int nr_cpu_ids, char *err,
		  size_t errlen);
/*
 * After the learning program is attached: visit every online CPU (this
 * thread moves onto each in turn, which changes its nr_running) until
 * each one's runqueue is known, then build and fill the LLC maps.
 * Returns 0, or -1 with a sentence naming a CPU that stayed unknown.
 */
int cpustate_learn(struct cpustate *cs, const struct cpustate_maps *maps,
		   const struct topology *t, char *err, size_t errlen);
void cpustate_free(struct cpustate *cs);

/*
 * A table_spec labels() for rows keyed by a __u32 LLC index (ctx: the
 * struct cpustate): the LLC's CPUs as a list, with the TABLE_CPUS_LABEL
 * label.
 */
void cpustate_llc_label(void *ctx, const void *key, const struct map_dump *d,
			unsigned int i, char (*out)[TABLE_LABEL_LEN]);

/*
 * Moves this thread onto each online CPU in turn and naps there, so each
 * one switches tasks (what a tracepoint program learns a CPU's state
 * from). With done, repeats until done(ctx, cpu) holds for every online
 * CPU (50 rounds at most); without, one round. Returns -1 when all are
 * done, a CPU that is not, or -2 if the affinity could not be read.
 */
int cpus_visit(const struct topology *t, bool (*done)(void *ctx, int cpu), void *ctx);

/*
 * Groups per-CPU LLC spans into LLCs (exported for the unit tests):
 * spans[c] for each online CPU c; CPUs with equal spans share an LLC,
 * numbered by their lowest CPU.
 */
int cpustate_group(struct cpustate *cs, int nr_cpu_ids,
		   const struct cpumask *online, const struct cpumask *spans);

#endif
