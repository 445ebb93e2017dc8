/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Deliberate miscounting, for the mutation selftest only
 * (tests/selftest-mutations.sh): a check of the test suite that none of
 * these makes fail is not ground truth. Only a test build of lib/
 * (-DSCHEDSCAN_TEST_BUILD, lib/mutation.c) ever sets it, from
 * SCHEDSCAN_MUTATION; in every other build it stays zero in .rodata and
 * the verifier removes the branches that test it.
 */
#ifndef SCHEDSCAN_MUTATION_H
#define SCHEDSCAN_MUTATION_H

enum schedscan_mutation_kind {
	MUTATION_NONE,
	MUTATION_DROP,		/* lose 1 event in 20 (counters and table rows) */
	MUTATION_SHIFT_HIST,	/* record every histogram sample one bucket up */
	MUTATION_COUNT_AS,	/* count counter slot from as slot to */
	MUTATION_FREEZE_FILTERS,	/* sisscan: filter models never update */
	MUTATION_STRETCH_DURATIONS,	/* durations' episodes 1/8 too long */
};

struct schedscan_mutation {
	__u32 kind;
	__u32 from, to;		/* MUTATION_COUNT_AS */
};

#endif
