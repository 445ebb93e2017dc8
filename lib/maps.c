// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "maps.h"

/* The kernel's internal ENOTSUPP, which bpf(2) can leak to user space. */
#define KERNEL_ENOTSUPP 524

int map_dump_init(struct map_dump *d, int fd)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	int nr_cpus;

	memset(d, 0, sizeof(*d));
	d->fd = fd;
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	switch (info.type) {
	case BPF_MAP_TYPE_PERCPU_ARRAY:
		d->is_array = true;
		/* fallthrough */
	case BPF_MAP_TYPE_PERCPU_HASH:
	case BPF_MAP_TYPE_LRU_PERCPU_HASH:
		d->percpu = true;
		break;
	case BPF_MAP_TYPE_ARRAY:
		d->is_array = true;
		break;
	case BPF_MAP_TYPE_HASH:
	case BPF_MAP_TYPE_LRU_HASH:
		break;
	default:
		return -EINVAL;
	}
	nr_cpus = d->percpu ? libbpf_num_possible_cpus() : 1;
	if (nr_cpus <= 0)
		return nr_cpus ? nr_cpus : -EINVAL;
	d->nr_cpus = nr_cpus;
	d->key_size = info.key_size;
	d->value_size = d->percpu ? (info.value_size + 7) & ~7U : info.value_size;
	d->max_entries = info.max_entries;
	d->keys = calloc(d->max_entries ? d->max_entries : 1, d->key_size);
	d->values = calloc((size_t)(d->max_entries ? d->max_entries : 1) * nr_cpus,
			   d->value_size);
	return d->keys && d->values ? 0 : -ENOMEM;
}

void map_dump_free(struct map_dump *d)
{
	free(d->keys);
	free(d->values);
	memset(d, 0, sizeof(*d));
}

/*
 * One BPF_MAP_LOOKUP_BATCH pass. Arrays have every key; a hash map ends
 * with ENOENT. Hash maps are resized only by their own max_entries, so a
 * buffer of max_entries always holds the whole map.
 */
static int dump_batch(struct map_dump *d)
{
	DECLARE_LIBBPF_OPTS(bpf_map_batch_opts, opts);
	unsigned char token[8];		/* arrays: a __u32 key; hashes: a bucket */
	__u32 done = 0;

	while (done < d->max_entries) {
		__u32 count = d->max_entries - done;
		int ret;

		ret = bpf_map_lookup_batch(d->fd, done ? token : NULL, token,
					   d->keys + (size_t)done * d->key_size,
					   d->values + (size_t)done * d->nr_cpus * d->value_size,
					   &count, &opts);
		done += count;
		if (ret && errno == ENOENT)
			break;
		if (ret)
			return -errno;
		if (!count)
			break;
	}
	if (d->is_array && done != d->max_entries)
		return -EIO;
	d->count = done;
	return 0;
}

/* Kernels or map types without batch lookups: key by key. */
static int dump_each(struct map_dump *d)
{
	__u32 n = 0;

	if (d->is_array) {
		for (__u32 key = 0; key < d->max_entries; key++) {
			memcpy(d->keys + (size_t)key * d->key_size, &key, sizeof(key));
			if (bpf_map_lookup_elem(d->fd, &key,
						d->values + (size_t)key * d->nr_cpus * d->value_size))
				return -errno;
		}
		d->count = d->max_entries;
		return 0;
	}
	while (n < d->max_entries) {
		unsigned char *key = d->keys + (size_t)n * d->key_size;
		const void *prev = n ? d->keys + (size_t)(n - 1) * d->key_size : NULL;

		if (bpf_map_get_next_key(d->fd, prev, key))
			break;
		/* Deleted between the two calls: the next key takes its place. */
		if (bpf_map_lookup_elem(d->fd, key,
					d->values + (size_t)n * d->nr_cpus * d->value_size))
			continue;
		n++;
	}
	d->count = n;
	return 0;
}

int map_dump_read(struct map_dump *d)
{
	if (!d->no_batch) {
		int ret = dump_batch(d);

		if (!ret)
			return 0;
		if (ret != -EINVAL && ret != -ENOTSUP && ret != -EOPNOTSUPP &&
		    ret != -KERNEL_ENOTSUPP)
			return ret;
		d->no_batch = true;
	}
	return dump_each(d);
}

unsigned long long map_dump_sum_u64(const struct map_dump *d, __u32 i,
				    size_t offset)
{
	unsigned long long sum = 0;

	for (int cpu = 0; cpu < d->nr_cpus; cpu++) {
		__u64 v;

		memcpy(&v, (const unsigned char *)map_dump_value(d, i, cpu) + offset,
		       sizeof(v));
		sum += v;
	}
	return sum;
}

int percpu_sums_init(struct percpu_sums *r, int fd)
{
	return map_dump_init(&r->dump, fd);
}

int percpu_sums_read(struct percpu_sums *r, unsigned long long *sums)
{
	int ret = map_dump_read(&r->dump);

	if (ret)
		return ret;
	for (__u32 i = 0; i < r->dump.count; i++) {
		__u32 key;

		memcpy(&key, map_dump_key(&r->dump, i), sizeof(key));
		if (key < r->dump.max_entries)
			sums[key] = map_dump_sum_u64(&r->dump, i, 0);
	}
	return 0;
}

void percpu_sums_free(struct percpu_sums *r)
{
	map_dump_free(&r->dump);
}
