// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "cpustate.h"
#include "util.h"

unsigned int cpustate_words(int nr_cpu_ids)
{
	return (nr_cpu_ids + 63) / 64;
}

int cpustate_size(const struct cpustate_maps *maps, int nr_cpu_ids, char *err,
		  size_t errlen)
{
	int ret;

	if (nr_cpu_ids <= 0 || nr_cpu_ids > CPUMASK_MAX_CPUS)
		return errmsg(err, errlen, "%d CPUs: at most %d are supported",
			      nr_cpu_ids, CPUMASK_MAX_CPUS);
	ret = bpf_map__set_max_entries(maps->llc_span_words,
				       nr_cpu_ids * cpustate_words(nr_cpu_ids));
	if (ret)
		return errmsg(err, errlen, "sizing the LLC span map failed: %s",
			      strerror(-ret));
	return 0;
}

void cpustate_free(struct cpustate *cs)
{
	free(cs->llc_of_cpu);
	free(cs->llc_cpus);
	memset(cs, 0, sizeof(*cs));
}

void cpustate_llc_label(void *ctx, const void *key, const struct map_dump *d,
			unsigned int i, char (*out)[TABLE_LABEL_LEN])
{
	const struct cpustate *cs = ctx;
	__u32 llc;

	memcpy(&llc, key, sizeof(llc));
	if ((int)llc >= cs->nr_llcs ||
	    cpulist_format(&cs->llc_cpus[llc], out[0], TABLE_LABEL_LEN) < 0)
		snprintf(out[0], TABLE_LABEL_LEN, "?");
}

int cpustate_group(struct cpustate *cs, int nr_cpu_ids,
		   const struct cpumask *online, const struct cpumask *spans)
{
	memset(cs, 0, sizeof(*cs));
	cs->nr_cpu_ids = nr_cpu_ids;
	cs->llc_of_cpu = malloc(nr_cpu_ids * sizeof(*cs->llc_of_cpu));
	cs->llc_cpus = calloc(nr_cpu_ids, sizeof(*cs->llc_cpus));
	if (!cs->llc_of_cpu || !cs->llc_cpus) {
		cpustate_free(cs);
		return -ENOMEM;
	}
	for (int cpu = 0; cpu < nr_cpu_ids; cpu++) {
		int llc;

		cs->llc_of_cpu[cpu] = -1;
		if (!cpumask_test(online, cpu))
			continue;
		for (llc = 0; llc < cs->nr_llcs; llc++)
			if (cpumask_test(&cs->llc_cpus[llc], cpu))
				break;
		if (llc == cs->nr_llcs) {
			/* A new LLC: its span, as this CPU's sd_llc has it. */
			cpumask_and(&cs->llc_cpus[llc], &spans[cpu], online);
			cpumask_set(&cs->llc_cpus[llc], cpu);
			cs->nr_llcs++;
		}
		cs->llc_of_cpu[cpu] = llc;
	}
	return 0;
}

static int put(struct bpf_map *map, __u32 key, const void *value)
{
	return bpf_map_update_elem(bpf_map__fd(map), &key, value, BPF_ANY);
}

static int fill_llc_maps(const struct cpustate *cs, const struct cpustate_maps *maps,
			 char *err, size_t errlen)
{
	__u32 index = 0;

	for (int cpu = 0; cpu < cs->nr_cpu_ids; cpu++) {
		__s32 llc = cs->llc_of_cpu[cpu];

		if (put(maps->llc_of_cpu, cpu, &llc))
			goto fail;
	}
	for (int llc = 0; llc < cs->nr_llcs; llc++) {
		__u32 count = cpumask_weight(&cs->llc_cpus[llc]);

		if (put(maps->llc_cpu_count, llc, &count) ||
		    put(maps->llc_first, llc, &index))
			goto fail;
		for (int cpu = cpumask_next(&cs->llc_cpus[llc], -1); cpu >= 0;
		     cpu = cpumask_next(&cs->llc_cpus[llc], cpu)) {
			__s32 value = cpu;

			if (put(maps->llc_cpus, index++, &value))
				goto fail;
		}
	}
	return 0;
fail:
	return errmsg(err, errlen, "filling the LLC maps failed: %s",
		      strerror(errno));
}

static bool rq_known(void *ctx, int cpu)
{
	const struct cpustate_maps *maps = ctx;
	__u32 key = cpu;
	__u64 rq = 0;

	return !bpf_map_lookup_elem(bpf_map__fd(maps->rq_of_cpu), &key, &rq) && rq;
}

/* Moving onto a CPU and sleeping there makes it switch tasks twice. */
int cpus_visit(const struct topology *t, bool (*done)(void *ctx, int cpu), void *ctx)
{
	cpu_set_t saved, one;
	int missing = -1;

	if (sched_getaffinity(0, sizeof(saved), &saved))
		return -2;
	for (int round = 0; round < (done ? 50 : 1); round++) {
		missing = -1;
		for (int cpu = 0; cpu < t->nr_cpu_ids; cpu++) {
			struct timespec nap = { 0, 200 * 1000 };

			if (!cpumask_test(&t->online, cpu) || (done && done(ctx, cpu)))
				continue;
			CPU_ZERO(&one);
			CPU_SET(cpu, &one);
			if (!sched_setaffinity(0, sizeof(one), &one))
				nanosleep(&nap, NULL);
			if (done && !done(ctx, cpu))
				missing = cpu;
		}
		if (missing < 0)
			break;
	}
	sched_setaffinity(0, sizeof(saved), &saved);
	return missing;
}

int cpustate_learn(struct cpustate *cs, const struct cpustate_maps *maps,
		   const struct topology *t, char *err, size_t errlen)
{
	unsigned int words = cpustate_words(t->nr_cpu_ids);
	struct cpumask *spans;
	int missing, ret;

	memset(cs, 0, sizeof(*cs));
	missing = cpus_visit(t, rq_known, (void *)maps);
	if (missing == -2)
		return errmsg(err, errlen, "reading this thread's CPU affinity failed: %s",
			      strerror(errno));
	if (missing >= 0)
		return errmsg(err, errlen,
			      "the runqueue of CPU %d was not seen on sched_update_nr_running_tp",
			      missing);
	spans = calloc(t->nr_cpu_ids, sizeof(*spans));
	if (!spans)
		return errmsg(err, errlen, "out of memory");
	for (int cpu = 0; cpu < t->nr_cpu_ids; cpu++) {
		if (!cpumask_test(&t->online, cpu))
			continue;
		for (unsigned int w = 0; w < words; w++) {
			__u32 key = cpu * words + w;
			__u64 word = 0;

			if (bpf_map_lookup_elem(bpf_map__fd(maps->llc_span_words),
						&key, &word)) {
				free(spans);
				return errmsg(err, errlen, "reading the LLC spans failed: %s",
					      strerror(errno));
			}
			for (int bit = 0; bit < 64; bit++)
				if (word >> bit & 1)
					cpumask_set(&spans[cpu], w * 64 + bit);
		}
	}
	ret = cpustate_group(cs, t->nr_cpu_ids, &t->online, spans);
	free(spans);
	if (ret)
		return errmsg(err, errlen, "out of memory");
	return fill_llc_maps(cs, maps, err, errlen);
}
