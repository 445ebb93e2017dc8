// SPDX-License-Identifier: GPL-2.0
/*
 * A BPF program for tests/unit/test_table.c: feeds one key into a
 * bounded table through table_row(), as the tools' programs do, so the
 * test sees what a full map does to rows and to the drop counter.
 */
#include "schedscan.bpf.h"
#include "table.bpf.h"

#define TEST_TABLE_SLOT 3

struct test_row {
	__u64 hits[SCHEDSCAN_BANKS];	/* SCHEDSCAN_SLOT(0, bank) */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, struct test_row);
} rows SEC(".maps");

struct feed_args {
	__u32 key;
};

SEC("syscall")
int feed(struct feed_args *args)
{
	struct test_row zero = {}, *row;
	__u32 key = args->key, bank = counting();

	row = table_row_if(bank, &rows, &key, &zero, TEST_TABLE_SLOT);
	if (row)
		__sync_fetch_and_add(&row->hits[SCHEDSCAN_SLOT(0, bank)], 1);
	return 0;
}
