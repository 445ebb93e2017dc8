/* SPDX-License-Identifier: GPL-2.0 */
#ifndef IDLEBAL_H
#define IDLEBAL_H

/* Per-CPU counter slots, summed by user space; names in idlebal.c. */
enum idlebal_counter {
	IDLEBAL_MIGRATIONS,		/* sched_migrate_task of a selected task */
	IDLEBAL_LOAD_BALANCE_CALLS,	/* sched_balance_rq()/load_balance() */
	IDLEBAL_NR_COUNTERS,
};

#endif
