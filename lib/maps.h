/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading whole BPF maps from user space. A report reads every counter
 * and every table row; one syscall per key would be thousands of
 * syscalls per report (slow in the TCG guests, and at VMA scale
 * anywhere), so maps are copied with BPF_MAP_LOOKUP_BATCH where the
 * kernel has it, key by key only as a fallback (bcc's map_helpers.c
 * idea).
 */
#ifndef SCHEDSCAN_MAPS_H
#define SCHEDSCAN_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/*
 * A copy of every entry of a map: keys[i] and its value (one per
 * possible CPU for per-CPU maps, each rounded up to 8 bytes as the
 * kernel lays them out).
 */
struct map_dump {
	int fd;
	bool percpu, is_array;
	__u32 key_size, value_size;	/* value_size: one CPU's, rounded for per-CPU maps */
	__u32 max_entries;
	int nr_cpus;			/* values per entry */
	unsigned char *keys;		/* [max_entries][key_size] */
	unsigned char *values;		/* [max_entries][nr_cpus][value_size] */
	__u32 count;			/* entries in the last read */
	bool no_batch;			/* the kernel refused batch lookups */
};

/* Sizes the copy from the loaded map's own info. 0 or -errno. */
int map_dump_init(struct map_dump *d, int fd);
/* Copies the map; 0 or -errno. */
int map_dump_read(struct map_dump *d);
void map_dump_free(struct map_dump *d);

static inline const void *map_dump_key(const struct map_dump *d, __u32 i)
{
	return d->keys + (size_t)i * d->key_size;
}

static inline const void *map_dump_value(const struct map_dump *d, __u32 i,
					 int cpu)
{
	return d->values + ((size_t)i * d->nr_cpus + cpu) * d->value_size;
}

/*
 * Sum over CPUs of the n-th __u64 of entry i's value (n * 8 must be
 * inside the value).
 */
unsigned long long map_dump_sum_u64(const struct map_dump *d, __u32 i,
				    size_t offset);

/*
 * The per-CPU sums of every key of a BPF_MAP_TYPE_PERCPU_ARRAY of __u64
 * (keys 0 .. max_entries - 1), e.g. a tool's counter slots.
 */
struct percpu_sums {
	struct map_dump dump;
};

int percpu_sums_init(struct percpu_sums *r, int fd);
/* sums[key] for every key; 0 or -errno. */
int percpu_sums_read(struct percpu_sums *r, unsigned long long *sums);
void percpu_sums_free(struct percpu_sums *r);

#endif
