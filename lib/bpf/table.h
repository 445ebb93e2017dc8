/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Table layouts shared by the BPF programs and user space (lib/table.h,
 * lib/bpf/table.bpf.h).
 */
#ifndef SCHEDSCAN_BPF_TABLE_H
#define SCHEDSCAN_BPF_TABLE_H

/*
 * Slots of an object's table_drops map: one per bounded table, the count
 * of inserts the kernel refused; slot SCHEDSCAN_TABLE_DROP_ERROR(slot)
 * holds the error of the last one (a negative errno), so that a drop says
 * why (a full map is -E2BIG).
 */
#define SCHEDSCAN_MAX_TABLES 8
#define SCHEDSCAN_TABLE_DROP_ERROR(slot) (SCHEDSCAN_MAX_TABLES + (slot))

/*
 * A state that is on for a while (a runqueue overloaded, a CPU idle),
 * integrated over time. Written by whoever changes the state (callers
 * serialise, e.g. under the runqueue lock), read by user space without a
 * lock: seq_begin and seq_end differ while an update is under way, and
 * the reader then reads again.
 */
struct schedscan_duration {
	__u64 seq_begin;
	__u64 since;		/* bpf_ktime_get_ns() when it last turned on */
	__u64 total_ns;		/* closed episodes */
	__u64 episodes;		/* episodes started, the open one included */
	__u32 on;
	__u32 pad;
	__u64 seq_end;
};

/*
 * A time integral of a state that several CPUs switch, kept without a
 * lock in one __s64 word: each switch on at time t adds 1 - SCALE * t,
 * each switch off adds SCALE * t - 1 (t from bpf_ktime_get_ns()). The
 * word is SCALE * sum(+-t) + c, c being how many times it is on (0 or 1
 * between switches, briefly -1 or 2 while CPUs' switches cross), so the
 * time spent on up to now is sum(+-t) + c * now in whatever order the
 * additions land (lib/table.c integral_value_ns()).
 */
#define SCHEDSCAN_INTEGRAL_SCALE 16

/*
 * The window the counters cover, in each object's ".data.run" section:
 * user space turns counting on when the run starts and off before the
 * final reading (lib/tool.c), so events before the state they need is
 * learnt, and after the last reading, are counted nowhere; durations
 * count from start_ns.
 */
struct schedscan_run {
	__u32 counting;		/* 0: closed; 1 or 2: the bank counted in */
	__u32 pad;
	__u64 start_ns;		/* bpf_ktime_get_ns() at the start, 0 before */
};

/*
 * Counters come in two banks: each event reads schedscan_run.counting
 * once and counts all it counts (scalars, table rows, its --events
 * record) in that bank. To read, user space switches the BPF side to the
 * other bank, lets the programs in flight finish, and reads the bank
 * nothing writes any more: every reading is a consistent cut, every event
 * falls in exactly one window, whole (a ratio of two counters can never
 * go negative because one was read before an event and the other after).
 * Counter (or row value) i of bank b (1 or 2) is slot SCHEDSCAN_SLOT(i, b).
 */
#define SCHEDSCAN_BANKS 2
/* The mask keeps the offset in [0, 1] for the verifier (bank is 1 or 2). */
#define SCHEDSCAN_SLOT(index, bank) (SCHEDSCAN_BANKS * (index) + (((bank) - 1) & 1))

#endif
