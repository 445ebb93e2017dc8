/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fixed-size CPU masks for user space, plus the two text forms the kernel
 * uses for them: cpulists ("0-3,8,10-11") and hex masks ("ff,ffffffff").
 *
 * The mask is a plain value type (1 KiB) so callers can keep it on the
 * stack, copy it with '=' and compare it with cpumask_equal(); 8192 bits
 * covers every CONFIG_NR_CPUS a distribution kernel ships with.
 */
#ifndef SCHEDSCAN_CPUMASK_H
#define SCHEDSCAN_CPUMASK_H

#include <stdbool.h>
#include <stddef.h>

#define CPUMASK_MAX_CPUS 8192

struct cpumask {
	unsigned long long bits[CPUMASK_MAX_CPUS / 64];
};

void cpumask_clear(struct cpumask *m);
/* Set/unset silently ignore a cpu outside [0, CPUMASK_MAX_CPUS). */
void cpumask_set(struct cpumask *m, int cpu);
void cpumask_unset(struct cpumask *m, int cpu);
/* False for a cpu outside [0, CPUMASK_MAX_CPUS). */
bool cpumask_test(const struct cpumask *m, int cpu);
int cpumask_weight(const struct cpumask *m);
/*
 * First set bit strictly above @prev, or -1. cpumask_next(m, -1) is the
 * first set bit, so a walk reads:
 *	for (cpu = cpumask_next(m, -1); cpu >= 0; cpu = cpumask_next(m, cpu))
 */
int cpumask_next(const struct cpumask *m, int prev);
/* Highest set bit, or -1 if the mask is empty. */
int cpumask_last(const struct cpumask *m);
bool cpumask_empty(const struct cpumask *m);
bool cpumask_subset(const struct cpumask *sub, const struct cpumask *super);
/* @dst may alias @a or @b. */
void cpumask_and(struct cpumask *dst, const struct cpumask *a,
		 const struct cpumask *b);
void cpumask_or(struct cpumask *dst, const struct cpumask *a,
		const struct cpumask *b);
bool cpumask_equal(const struct cpumask *a, const struct cpumask *b);

/*
 * Parse the kernel cpulist syntax: comma-separated CPUs and ranges, each
 * range optionally strided as "first-last:used/group" (from every group of
 * @group CPUs starting at @first, take the first @used), exactly like the
 * kernel's bitmap_parselist(): "0-7:2/4" is 0,1,4,5.
 *
 * Leading/trailing whitespace (e.g. the newline of a sysfs file) and
 * whitespace around commas are accepted; the empty string is the empty
 * mask. Deliberately stricter than the kernel, because these inputs are
 * typos rather than intent: empty entries ("1,,2", "1,"), a used size of 0
 * ("0-3:0/2"), and the "all"/"N" tokens, which only make sense relative to
 * the running kernel's nr_cpu_ids.
 *
 * Returns 0, or -1 with @m cleared and one sentence in @err (if non-NULL).
 */
int cpulist_parse(const char *s, struct cpumask *m, char *err, size_t errlen);

/*
 * Write the canonical kernel form ("0-3,8,10-11"; "" for an empty mask).
 * Returns the string length, or -1 if @buf (including the NUL) is too
 * small, in which case @buf holds an empty string if @len > 0.
 */
int cpulist_format(const struct cpumask *m, char *buf, size_t len);

/*
 * Parse the kernel hex mask form used by /proc/schedstat and sysfs "cpumap":
 * comma-separated groups of up to 8 hex digits, most significant group
 * first ("ff,ffffffff" is CPUs 0-39). Same whitespace rules and return
 * convention as cpulist_parse().
 */
int cpumask_parse_hex(const char *s, struct cpumask *m, char *err,
		      size_t errlen);

#endif
