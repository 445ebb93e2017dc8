/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The mutation selftest's switch (lib/bpf/mutation.h): in a test build
 * (-DSCHEDSCAN_TEST_BUILD), SCHEDSCAN_MUTATION names one deliberate
 * miscount that mutation_apply() writes into a BPF object's .rodata.
 * Release builds ignore the variable.
 *
 *   drop                 lose 1 event in 20
 *   shift-hist           every histogram sample one bucket up
 *   count-as:FROM:TO     count metric FROM as metric TO
 *   freeze-filters       sisscan's filter models never update
 *   stretch-durations    every ended episode 1/8 too long
 */
#ifndef SCHEDSCAN_MUTATION_LIB_H
#define SCHEDSCAN_MUTATION_LIB_H

#include <stddef.h>

struct bpf_object;

/*
 * lookup(name, ctx) gives a metric's counter slot (-1: none). 0, or -1
 * with a sentence in err.
 */
int mutation_apply(struct bpf_object *obj,
		   int (*lookup)(const char *name, void *ctx), void *ctx,
		   char *err, size_t errlen);

#endif
