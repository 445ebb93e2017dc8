/* SPDX-License-Identifier: GPL-2.0 */
/*
 * BPF side of lib/table.h: bounded table maps whose full-map inserts are
 * counted (a full map must never lose rows silently), and durations
 * (time integrals of an on/off state). Include after schedscan.bpf.h.
 */
#ifndef SCHEDSCAN_TABLE_BPF_H
#define SCHEDSCAN_TABLE_BPF_H

/* Per table slot: inserts the kernel refused, then their last error. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2 * SCHEDSCAN_MAX_TABLES);
	__type(key, __u32);
	__type(value, __s64);
} table_drops SEC(".maps");

static __always_inline void table_drop(__u32 drop_slot, long err)
{
	__u32 error_slot = SCHEDSCAN_TABLE_DROP_ERROR(drop_slot);
	__s64 *drops = bpf_map_lookup_elem(&table_drops, &drop_slot);
	__s64 *last_error = bpf_map_lookup_elem(&table_drops, &error_slot);

	if (drops)
		*drops += 1;
	if (last_error)
		*last_error = err;
}

/*
 * The row of key in a hash table map, created from init if it is new
 * (bcc's bpf_map_lookup_or_try_init, counting failures in drop_slot).
 * NULL when the kernel refuses the insert (a full map: -E2BIG): the event
 * is then missing from the table (never from the tool's scalar counters)
 * and table_drops says how often and why. A refused insert is tried once
 * more: a 6.1 guest once refused one of 16384 inserts into a map with
 * three of its 4096 rows in use (the error was not recorded then).
 */
static __always_inline void *table_row_if(__u32 bank, void *map, const void *key,
					  const void *init, __u32 drop_slot)
{
	void *row;
	long err;

	if (!bank || mutation_drops())
		return NULL;
	row = bpf_map_lookup_elem(map, key);
	if (row)
		return row;
	err = bpf_map_update_elem(map, key, init, BPF_NOEXIST);
	if (err && err != -17 /* EEXIST: another CPU created it */) {
		row = bpf_map_lookup_elem(map, key);
		if (row)
			return row;
		err = bpf_map_update_elem(map, key, init, BPF_NOEXIST);
	}
	if (err && err != -17) {
		table_drop(drop_slot, err);
		return NULL;
	}
	return bpf_map_lookup_elem(map, key);
}

static __always_inline void *table_row(void *map, const void *key, const void *init,
				       __u32 drop_slot)
{
	return table_row_if(counting(), map, key, init, drop_slot);
}

/*
 * Adds delta to value `value` of bank `bank` in a row's values array
 * (lib/bpf/table.h's layout). Nothing when bank is 0, not counting:
 * SCHEDSCAN_SLOT(value, 0) is bank 2's slot, so a row found outside the
 * window would otherwise gain the event. The bound check after the
 * barrier is for 6.1's verifier, which loses the range of an index that
 * the compiler builds from two constants (a value chosen by a branch,
 * xor'ed with the bank's bit). table_row_add() is for rows one writer
 * updates at a time (a runqueue's lock, one CPU), table_row_add_atomic()
 * for rows that several CPUs update at once.
 */
#define __table_row_add(values, value, bank, delta, atomic)                    \
	do {                                                                   \
		__u32 __slot;                                                  \
                                                                               \
		if (!(bank))                                                   \
			break;                                                 \
		__slot = SCHEDSCAN_SLOT(value, bank);                          \
		barrier_var(__slot);                                           \
		if (__slot >= sizeof(values) / sizeof((values)[0]))            \
			break;                                                 \
		if (atomic)                                                    \
			__sync_fetch_and_add(&(values)[__slot], (delta));      \
		else                                                           \
			(values)[__slot] += (delta);                           \
	} while (0)
#define table_row_add(values, value, bank, delta)                              \
	__table_row_add(values, value, bank, delta, false)
#define table_row_add_atomic(values, value, bank, delta)                       \
	__table_row_add(values, value, bank, delta, true)

/*
 * Switches a duration on or off at now (bpf_ktime_get_ns()); returns the
 * length of the episode it closes, 0 otherwise. Callers serialise
 * updates of one duration (one CPU, or the lock of what it describes).
 */
static __always_inline __u64 duration_set(struct schedscan_duration *d, bool on,
					  __u64 now)
{
	__u64 ended = 0;

	if (d->on == (__u32)on)
		return 0;
	d->seq_begin++;
	asm volatile("" ::: "memory");
	if (on) {
		d->since = now;
		if (schedscan_run.start_ns)
			d->episodes++;
	} else if (now > d->since) {
		__u64 start = schedscan_run.start_ns;
		__u64 from = d->since > start ? d->since : start;

		/* The window's share: from the run's start, not the attach. */
		__u64 share = start && now > from ? now - from : 0;

		ended = now - d->since;
		if (schedscan_mutation.kind == MUTATION_STRETCH_DURATIONS) {
			ended += ended / 8;
			share += share / 8;
		}
		d->total_ns += share;
	}
	d->on = on;
	asm volatile("" ::: "memory");
	d->seq_end = d->seq_begin;
	return ended;
}

/* Switches a time integral (lib/bpf/table.h) on or off at now. */
static __always_inline void integral_switch(__s64 *word, bool on, __u64 now)
{
	__s64 step = (__s64)now * SCHEDSCAN_INTEGRAL_SCALE - 1;

	__sync_fetch_and_add(word, on ? -step : step);
}

#endif
