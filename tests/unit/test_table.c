// SPDX-License-Identifier: GPL-2.0
/*
 * Keyed tables (lib/table.c) on real BPF maps created here: interval
 * rows add up to the summary, a duration open across a window boundary
 * is split exactly, and a bounded map fed more keys than it holds
 * reports every row it could not take (through the BPF side's
 * table_row(), run with BPF_PROG_TEST_RUN). Needs root, as make check.
 */
#include <errno.h>
#include <stddef.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "json.h"
#include "selection.h"
#include "table.h"
#include "table.skel.h"
#include "unit.h"
#include "util.h"


/* Three counters in two banks: value v of bank b at SCHEDSCAN_SLOT(v, b). */
struct counts3 {
	__u64 slot[3 * SCHEDSCAN_BANKS];
};

static struct counts3 bank_values(unsigned int bank, __u64 a, __u64 b, __u64 c)
{
	struct counts3 v = {};

	v.slot[SCHEDSCAN_SLOT(0, bank)] = a;
	v.slot[SCHEDSCAN_SLOT(1, bank)] = b;
	v.slot[SCHEDSCAN_SLOT(2, bank)] = c;
	return v;
}

static const struct table_key_field id_key[] = {
	{ .name = "id", .heading = "ID", .size = 4, .width = 4 },
};

static const struct table_column three[] = {
	{ "a", "A", 8, COLUMN_COUNT, 0, 0 },
	{ "b", "B", 8, COLUMN_COUNT, 1, 0 },
	{ "c", NULL, 0, COLUMN_COUNT, 2, 0 },
	{ "a_pct", "A%", 6, COLUMN_PERCENT, 0, 1 },
};

static const struct table_spec counters_spec = {
	.name = "things", .row = "thing", .keys = id_key, .nr_keys = 1,
	.source = TABLE_COUNTERS, .nr_values = 3,
	.columns = three, .nr_columns = 4, .sort_value = 0, .drop_slot = -1,
};

static int nr_cpus(void)
{
	return libbpf_num_possible_cpus();
}

/* Sets key's per-CPU values in bank 1: CPU 0 gets (a, b, c), every other CPU 1 each. */
static void set_percpu(int fd, __u32 key, __u64 a, __u64 b, __u64 c)
{
	int n = nr_cpus();
	struct counts3 *v = calloc(n, sizeof(*v));

	v[0] = bank_values(1, a, b, c);
	for (int cpu = 1; cpu < n; cpu++)
		v[cpu] = bank_values(1, 1, 1, 1);
	CHECK(bpf_map_update_elem(fd, &key, v, BPF_ANY) == 0);
	free(v);
}

static const struct table_row *find_row(const struct table *t, __u32 id)
{
	for (size_t r = 0; r < t->nr_rows; r++) {
		__u32 key;

		memcpy(&key, t->rows[r].key, sizeof(key));
		if (key == id)
			return &t->rows[r];
	}
	return NULL;
}

static void test_interval_rows_add_up_to_the_summary(void)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_HASH, "t_counters", sizeof(__u32),
				sizeof(struct counts3), 64, NULL);
	unsigned long long sum[2][3] = {};
	int others = nr_cpus() - 1;
	struct table t;

	if (fd < 0) {
		UNIT_FAIL("creating a per-CPU hash map failed: %s (run as root)", strerror(errno));
		return;
	}
	CHECK_INT(table_init(&t, &counters_spec, fd, -1, NULL), 0);
	/* Three windows; key 2 appears only in the second, key 1 stops growing. */
	set_percpu(fd, 1, 10, 5, 0);
	CHECK_INT(table_read(&t, 0, 1), 0);
	table_window(&t, WINDOW_INTERVAL, 1.0);
	for (int v = 0; v < 3; v++)
		sum[0][v] += find_row(&t, 1)->win[v];
	CHECK_U64(find_row(&t, 1)->win[0], 10 + others);
	set_percpu(fd, 1, 25, 5, 7);
	set_percpu(fd, 2, 3, 0, 0);
	CHECK_INT(table_read(&t, 0, 1), 0);
	table_window(&t, WINDOW_INTERVAL, 1.0);
	CHECK_U64(find_row(&t, 1)->win[0], 15);
	CHECK_U64(find_row(&t, 1)->win[1], 0);
	CHECK_U64(find_row(&t, 2)->win[0], 3 + others);
	for (int v = 0; v < 3; v++) {
		sum[0][v] += find_row(&t, 1)->win[v];
		sum[1][v] += find_row(&t, 2)->win[v];
	}
	CHECK_INT(table_read(&t, 0, 1), 0);
	table_window(&t, WINDOW_INTERVAL, 1.0);
	CHECK_U64(find_row(&t, 1)->win[0], 0);
	/* The summary after intervals: the sum of the interval rows, exactly. */
	table_window(&t, WINDOW_RUN_AFTER_INTERVALS, 3.0);
	for (int v = 0; v < 3; v++) {
		CHECK_U64(find_row(&t, 1)->win[v], sum[0][v]);
		CHECK_U64(find_row(&t, 2)->win[v], sum[1][v]);
	}
	CHECK_U64(table_total(&t, 0, TABLE_WINDOW), 25 + others + 3 + others);
	CHECK_INT(t.nr_rows, 2);
	table_free(&t);
	close(fd);
}

/*
 * Two banks: a reading takes what the bank it reads gained since it was
 * last read, never what the other one holds; a window's counts are the
 * sum of the banks' gains, so nothing is lost or taken twice.
 */
static void test_banks_are_read_one_at_a_time(void)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_HASH, "t_banks", sizeof(__u32),
				sizeof(struct counts3), 8, NULL);
	struct counts3 v = {};
	__u32 key = 9;
	struct table t;

	if (fd < 0) {
		UNIT_FAIL("creating a hash map failed: %s", strerror(errno));
		return;
	}
	CHECK_INT(table_init(&t, &counters_spec, fd, -1, NULL), 0);
	v.slot[SCHEDSCAN_SLOT(0, 1)] = 5;
	v.slot[SCHEDSCAN_SLOT(0, 2)] = 100;	/* counting in bank 2: not read yet */
	CHECK(bpf_map_update_elem(fd, &key, &v, BPF_ANY) == 0);
	CHECK_INT(table_read(&t, 0, 1), 0);
	table_window(&t, WINDOW_INTERVAL, 1.0);
	CHECK_U64(find_row(&t, 9)->win[0], 5);
	/* Bank 1 gains 3 more while bank 2 is read: 100 now, 3 at the next read of bank 1. */
	v.slot[SCHEDSCAN_SLOT(0, 1)] = 8;
	CHECK(bpf_map_update_elem(fd, &key, &v, BPF_ANY) == 0);
	CHECK_INT(table_read(&t, 0, 2), 0);
	table_window(&t, WINDOW_INTERVAL, 1.0);
	CHECK_U64(find_row(&t, 9)->win[0], 100);
	CHECK_INT(table_read(&t, 0, 1), 0);
	table_window(&t, WINDOW_INTERVAL, 1.0);
	CHECK_U64(find_row(&t, 9)->win[0], 3);
	CHECK_U64(find_row(&t, 9)->now[0], 108);
	CHECK_INT(table_read(&t, 0, 3), -EINVAL);
	table_free(&t);
	close(fd);
}

/* Kernels without batch lookups: the key-by-key reader gives the same rows. */
static void test_key_by_key_reader_matches_batch(void)
{
	int hash = bpf_map_create(BPF_MAP_TYPE_PERCPU_HASH, "t_fallback", sizeof(__u32),
				  sizeof(struct counts3), 300, NULL);
	struct table batch, each;

	if (hash < 0) {
		UNIT_FAIL("creating a map failed: %s", strerror(errno));
		return;
	}
	for (__u32 k = 0; k < 257; k++)
		set_percpu(hash, k * 7919, k, 2 * k, 3 * k);
	CHECK_INT(table_init(&batch, &counters_spec, hash, -1, NULL), 0);
	CHECK_INT(table_init(&each, &counters_spec, hash, -1, NULL), 0);
	each.dump.no_batch = true;
	CHECK_INT(table_read(&batch, 0, 1), 0);
	CHECK_INT(table_read(&each, 0, 1), 0);
	CHECK_INT(batch.nr_rows, 257);
	CHECK_INT(each.nr_rows, 257);
	for (__u32 k = 0; k < 257; k++) {
		const struct table_row *a = find_row(&batch, k * 7919), *b = find_row(&each, k * 7919);

		if (!a || !b) {
			UNIT_FAIL("key %u missing (batch %p, key by key %p)", k * 7919, (void *)a, (void *)b);
			break;
		}
		for (int v = 0; v < 3; v++)
			CHECK_U64(a->now[v], b->now[v]);
	}
	CHECK_U64(table_total(&batch, 2, TABLE_CUMULATIVE_NOW),
		  table_total(&each, 2, TABLE_CUMULATIVE_NOW));
	table_free(&batch);
	table_free(&each);
	close(hash);
}

static void test_rows_sorted_and_limited_in_text(void)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_HASH, "t_sorted", sizeof(__u32),
				sizeof(struct counts3), 64, NULL);
	char *text = NULL;
	size_t len = 0;
	FILE *out;
	struct table t;

	if (fd < 0) {
		UNIT_FAIL("creating a map failed: %s", strerror(errno));
		return;
	}
	CHECK_INT(table_init(&t, &counters_spec, fd, -1, NULL), 0);
	for (__u32 k = 1; k <= 5; k++)
		set_percpu(fd, k, 100 * k, 200, 0);
	CHECK_INT(table_read(&t, 0, 1), 0);
	table_window(&t, WINDOW_RUN, 1.0);
	out = open_memstream(&text, &len);
	table_text(&t, out, 2);
	fclose(out);
	/* Largest A first, two rows, then how many were left out. */
	CHECK_CONTAINS(text, "ID          A        B     A%\n5         501      201 249.25\n");
	CHECK(strstr(text, "\n4         401") != NULL);
	CHECK(strstr(text, "\n3    ") == NULL);
	CHECK_CONTAINS(text, "(3 more rows: --top N or --json)");
	for (char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
		CHECK(strcspn(line, "\n") <= 80);
	free(text);
	table_free(&t);
	close(fd);
}

static const struct table_column timed[] = {
	{ "busy_ns", "BUSY_MS", 9, COLUMN_DURATION, 0, 0 },
	{ "busy_episodes", "EPISODES", 8, COLUMN_COUNT, 1, 0 },
	{ "busy_share", "BUSY%", 6, COLUMN_SHARE, 0, 0 },
};

static const struct table_spec durations_spec = {
	.name = "busy", .row = "cpu", .keys = id_key, .nr_keys = 1,
	.source = TABLE_DURATIONS, .nr_values = 2,
	.columns = timed, .nr_columns = 3, .sort_value = -1, .drop_slot = -1,
};

static void set_duration(int fd, __u32 key, bool on, __u64 since, __u64 total,
			 __u64 episodes)
{
	struct schedscan_duration d = {
		.seq_begin = 7, .since = since, .total_ns = total,
		.episodes = episodes, .on = on, .seq_end = 7,
	};

	CHECK(bpf_map_update_elem(fd, &key, &d, BPF_ANY) == 0);
}

static void test_duration_split_across_windows(void)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "t_durations", sizeof(__u32),
				sizeof(struct schedscan_duration), 2, NULL);
	const struct table_row *row;
	struct table t;

	if (fd < 0) {
		UNIT_FAIL("creating an array map failed: %s", strerror(errno));
		return;
	}
	CHECK_INT(table_init(&t, &durations_spec, fd, -1, NULL), 0);
	t.start_ns = 500;	/* the run started before the episode */
	/* An episode from t=1000 that is still on at the first two reads. */
	set_duration(fd, 0, true, 1000, 0, 1);
	CHECK_INT(table_read(&t, 1600, 1), 0);
	table_window(&t, WINDOW_INTERVAL, 1.0);
	row = find_row(&t, 0);
	CHECK_U64(row->win[0], 600);
	CHECK_U64(row->win[1], 1);
	CHECK_INT(table_read(&t, 2500, 1), 0);
	table_window(&t, WINDOW_INTERVAL, 1.0);
	CHECK_U64(find_row(&t, 0)->win[0], 900);
	CHECK_U64(find_row(&t, 0)->win[1], 0);	/* no new episode */
	/* It ends at 2800 (1800 ns in all), a second one runs 3000..3100. */
	set_duration(fd, 0, false, 3000, 1900, 2);
	CHECK_INT(table_read(&t, 4000, 1), 0);
	table_window(&t, WINDOW_INTERVAL, 1.0);
	CHECK_U64(find_row(&t, 0)->win[0], 400);
	CHECK_U64(find_row(&t, 0)->win[1], 1);
	table_window(&t, WINDOW_RUN_AFTER_INTERVALS, 3.0);
	CHECK_U64(find_row(&t, 0)->win[0], 1900);
	CHECK_U64(find_row(&t, 0)->win[1], 2);
	/* An episode that began after the read time adds nothing yet. */
	{
		struct schedscan_duration later = { .since = 5000, .on = 1, .total_ns = 1900 };

		CHECK_U64(duration_cumulative_ns(&later, 1, 4500), 1900);
		CHECK_U64(duration_cumulative_ns(&later, 1, 5250), 2150);
		/* Open since before the run's start: only the part after it counts. */
		CHECK_U64(duration_cumulative_ns(&later, 5100, 5250), 2050);
		/* Before the start (0: counting has not begun), nothing. */
		CHECK_U64(duration_cumulative_ns(&later, 0, 5250), 1900);
	}
	table_free(&t);
	close(fd);
}

static void test_torn_duration_is_read_again(void)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "t_torn", sizeof(__u32),
				sizeof(struct schedscan_duration), 1, NULL);
	struct schedscan_duration torn = { .seq_begin = 3, .seq_end = 2, .total_ns = 5 };
	__u32 key = 0;
	struct table t;

	if (fd < 0) {
		UNIT_FAIL("creating an array map failed: %s", strerror(errno));
		return;
	}
	CHECK(bpf_map_update_elem(fd, &key, &torn, BPF_ANY) == 0);
	CHECK_INT(table_init(&t, &durations_spec, fd, -1, NULL), 0);
	CHECK_INT(table_read(&t, 100, 1), 0);
	/* A writer that never finishes: read again a bounded number of times. */
	CHECK(t.torn_reads > 0 && t.torn_reads <= 8);
	table_free(&t);
	close(fd);
}

static const struct table_column hits[] = {
	{ "hits", "HITS", 8, COLUMN_COUNT, 0, 0 },
};

static const struct table_spec bounded_spec = {
	.name = "bounded", .row = "key", .keys = id_key, .nr_keys = 1,
	.source = TABLE_COUNTERS, .nr_values = 1,
	.columns = hits, .nr_columns = 1, .sort_value = 0, .drop_slot = 3,
};

static void test_full_map_counts_dropped_rows(void)
{
	struct table_bpf *obj = table_bpf__open_and_load();
	struct json_writer w;
	struct table t;

	if (!obj) {
		UNIT_FAIL("loading tests/unit/table.bpf.c failed: %s (run as root)", strerror(errno));
		return;
	}
	/* As tool_run() does: nothing is counted before the run starts. */
	obj->data_run->schedscan_run.counting = 1;
	/* A map sized 4 fed 10 keys: 4 rows, 6 dropped. */
	for (__u32 key = 100; key < 110; key++) {
		struct { __u32 key; } args = { key };
		DECLARE_LIBBPF_OPTS(bpf_test_run_opts, run, .ctx_in = &args,
				    .ctx_size_in = sizeof(args));

		CHECK_INT(bpf_prog_test_run_opts(bpf_program__fd(obj->progs.feed), &run), 0);
	}
	CHECK_INT(table_init(&t, &bounded_spec, bpf_map__fd(obj->maps.rows),
			     bpf_map__fd(obj->maps.table_drops), NULL), 0);
	CHECK_INT(table_read(&t, 0, 1), 0);
	table_window(&t, WINDOW_RUN, 1.0);
	CHECK_INT(t.nr_rows, 4);
	CHECK_U64(t.dropped_win, 6);
	/* a full prealloc hash refuses with E2BIG, tried twice per key */
	CHECK_INT(t.drop_error, E2BIG);
	CHECK_U64(table_total(&t, 0, TABLE_WINDOW), 4);
	json_init(&w);
	json_begin_object(&w);
	table_json(&t, &w);
	json_end_object(&w);
	CHECK(!w.failed);
	CHECK_CONTAINS(w.buf, "\"rows_dropped\":6,\"rows_dropped_error\":\"E2BIG\"");
	json_free(&w);
	table_free(&t);
	table_bpf__destroy(obj);
}


/* A time integral word as the BPF side's integral_switch() builds it. */
static void integral_switch_word(__s64 *word, bool on, __u64 now)
{
	__s64 step = (__s64)now * SCHEDSCAN_INTEGRAL_SCALE - 1;

	*word += on ? -step : step;
}

static void test_integral_value_in_any_order(void)
{
	__s64 w = 0;

	/* On at 1000, off at 1600, on at 2000: 600 ns closed, then open. */
	integral_switch_word(&w, true, 1000);
	CHECK(integral_value_ns(w, 1500) == 500);
	integral_switch_word(&w, false, 1600);
	CHECK(integral_value_ns(w, 1900) == 600);
	integral_switch_word(&w, true, 2000);
	CHECK(integral_value_ns(w, 2500) == 1100);
	/*
	 * Two CPUs' switches that cross: an "on" at 3100 lands before the
	 * "off" at 3000 that preceded it (c is briefly 2). Once both have
	 * landed the word is the same whatever the order; in between, the
	 * value is off by the gap between the two clock reads (50 ns here).
	 */
	{
		__s64 a = w, b = w;

		integral_switch_word(&a, false, 3000);
		integral_switch_word(&a, true, 3100);
		integral_switch_word(&b, true, 3100);
		CHECK(integral_value_ns(b, 3050) == 1650 - 50);
		integral_switch_word(&b, false, 3000);
		CHECK(a == b);
		CHECK(integral_value_ns(a, 3300) == 600 + 1000 + 200);
	}
	/* Large times (a year of uptime) keep their precision. */
	w = 0;
	integral_switch_word(&w, true, 31536000000000000ULL);
	CHECK(integral_value_ns(w, 31536000000000123ULL) == 123);
}

struct integral_entry {
	__u64 episodes[SCHEDSCAN_BANKS];
	__s64 time[2];
};

static const struct table_column integral_columns[] = {
	{ "episodes", "EPISODES", 8, COLUMN_COUNT, 0, 0 },
	{ "on_ns", "ON_MS", 8, COLUMN_DURATION, 1, 0 },
	{ "half_ns", NULL, 0, COLUMN_DURATION, 2, 0 },
};

static const struct table_spec integrals_spec = {
	.name = "states", .row = "state", .keys = id_key, .nr_keys = 1,
	.source = TABLE_COUNTERS, .nr_values = 3,
	.value_offset = offsetof(struct integral_entry, episodes),
	.integral_offset = offsetof(struct integral_entry, time), .nr_integrals = 2,
	.columns = integral_columns, .nr_columns = 3, .sort_value = -1, .drop_slot = -1,
};

/*
 * A one-entry array of e, whose integral 0 is on since 1000, read by t
 * from a run started at start_ns; its fd, or -1 after a failure.
 */
static int integral_table(const char *name, struct table *t, struct integral_entry *e,
			  unsigned long long start_ns)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, name, sizeof(__u32),
				sizeof(struct integral_entry), 1, NULL);
	__u32 key = 0;

	if (fd < 0) {
		UNIT_FAIL("creating an array map failed: %s", strerror(errno));
		return -1;
	}
	integral_switch_word(&e->time[0], true, 1000);
	CHECK(bpf_map_update_elem(fd, &key, e, BPF_ANY) == 0);
	CHECK_INT(table_init(t, &integrals_spec, fd, -1, NULL), 0);
	CHECK_INT(table_start(t, start_ns), 0);
	return fd;
}

static void test_integral_split_across_windows(void)
{
	struct integral_entry e = {};
	__u32 key = 0;
	struct table t;
	/* On since 1000, before the run starts at 1500: only the part after counts. */
	int fd = integral_table("t_integrals", &t, &e, 1500);

	if (fd < 0)
		return;
	CHECK_INT(table_read(&t, 2000, 1), 0);
	table_window(&t, WINDOW_INTERVAL, 1.0);
	CHECK_U64(find_row(&t, 0)->win[1], 500);
	CHECK_U64(find_row(&t, 0)->win[0], 0);
	/* Off at 2600, a new episode (counted, bank 1) 2800..3000, read at 3500. */
	integral_switch_word(&e.time[0], false, 2600);
	integral_switch_word(&e.time[0], true, 2800);
	integral_switch_word(&e.time[1], true, 2800);
	integral_switch_word(&e.time[0], false, 3000);
	integral_switch_word(&e.time[1], false, 3000);
	e.episodes[SCHEDSCAN_SLOT(0, 1)] = 1;
	CHECK(bpf_map_update_elem(fd, &key, &e, BPF_ANY) == 0);
	CHECK_INT(table_read(&t, 3500, 1), 0);
	table_window(&t, WINDOW_INTERVAL, 1.5);
	CHECK_U64(find_row(&t, 0)->win[1], 800);
	CHECK_U64(find_row(&t, 0)->win[2], 200);
	CHECK_U64(find_row(&t, 0)->win[0], 1);
	table_window(&t, WINDOW_RUN_AFTER_INTERVALS, 2.0);
	CHECK_U64(find_row(&t, 0)->win[1], 1300);
	table_free(&t);
	close(fd);
}

/*
 * lib/tool.c reads a table in two parts around the wait for programs in
 * flight: the time values at the cut, the counts of the bank it left
 * after. What changes in between (an episode that ends, a count that
 * lands late in the old bank) goes to the part it belongs to: the time
 * read at the cut keeps the cut's value, the late count is taken.
 */
static void test_time_at_the_cut_counts_after_the_wait(void)
{
	struct integral_entry e = { .episodes[SCHEDSCAN_SLOT(0, 1)] = 1 };
	__u32 key = 0;
	struct table t;
	int fd = integral_table("t_split", &t, &e, 1000);

	if (fd < 0)
		return;
	/* The cut at 2000: the state is still on. */
	CHECK_INT(table_read_time(&t, 2000), 0);
	/* During the wait: it goes off at 2600, a late event lands in bank 1. */
	integral_switch_word(&e.time[0], false, 2600);
	e.episodes[SCHEDSCAN_SLOT(0, 1)] = 2;
	CHECK(bpf_map_update_elem(fd, &key, &e, BPF_ANY) == 0);
	CHECK_INT(table_read_counts(&t, 1), 0);
	table_window(&t, WINDOW_INTERVAL, 1.0);
	CHECK_U64(find_row(&t, 0)->win[1], 1000);	/* to the cut, not to 2600 */
	CHECK_U64(find_row(&t, 0)->win[0], 2);
	/* The next cut takes the rest of the episode. */
	CHECK_INT(table_read(&t, 3000, 2), 0);
	table_window(&t, WINDOW_INTERVAL, 1.0);
	CHECK_U64(find_row(&t, 0)->win[1], 600);
	CHECK_U64(find_row(&t, 0)->win[0], 0);
	CHECK_INT(table_read_counts(&t, 0), -EINVAL);
	table_free(&t);
	close(fd);
}

/* A supplement that adds 10 per read to value 1 of key 7, and nothing at the start. */
static int supplied_reads;

static bool supply_ten(void *ctx, struct table *t, bool start)
{
	__u32 key = 7;

	if (start)
		return true;
	supplied_reads++;
	table_supply_reset(t);
	table_supply(t, &key, 1, 10ULL * supplied_reads);
	return true;
}

static const struct table_column supplied_columns[] = {
	{ "hits", "HITS", 8, COLUMN_COUNT, 0, 0 },
	{ "hits", "KERNEL", 8, COLUMN_COUNT, 1, 0 },
};

static const struct table_spec supplied_spec = {
	.name = "supplied", .row = "thing", .keys = id_key, .nr_keys = 1,
	.source = TABLE_COUNTERS, .nr_values = 1, .nr_supplied = 1,
	.supplied_name = "kernel", .supplement = supply_ten,
	.columns = supplied_columns, .nr_columns = 2, .sort_value = -1, .drop_slot = -1,
};

static void test_supplied_values_beside_the_tools(void)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_HASH, "t_supplied", sizeof(__u32),
				SCHEDSCAN_BANKS * sizeof(__u64), 4, NULL);
	__u64 v[SCHEDSCAN_BANKS] = {};
	struct json_writer w;
	__u32 key = 7;
	struct table t;

	if (fd < 0) {
		UNIT_FAIL("creating a hash map failed: %s", strerror(errno));
		return;
	}
	v[SCHEDSCAN_SLOT(0, 1)] = 4;
	CHECK(bpf_map_update_elem(fd, &key, v, BPF_ANY) == 0);
	CHECK_INT(table_init(&t, &supplied_spec, fd, -1, NULL), 0);
	supplied_reads = 0;
	CHECK_INT(table_start(&t, 1), 0);
	CHECK(t.supplied);
	CHECK_INT(table_read(&t, 2, 1), 0);
	table_window(&t, WINDOW_INTERVAL, 1.0);
	CHECK_INT(table_read(&t, 3, 1), 0);
	table_window(&t, WINDOW_INTERVAL, 1.0);
	/* The supplied value is differenced per window like the map's. */
	CHECK_U64(find_row(&t, 7)->win[1], 10);
	CHECK_U64(find_row(&t, 7)->win[0], 0);
	json_init(&w);
	json_begin_object(&w);
	table_json(&t, &w);
	json_end_object(&w);
	CHECK(!w.failed);
	CHECK_CONTAINS(w.buf, "\"kernel\":{\"hits\":10}");
	json_free(&w);
	/* A bad layout: supplied values without a supplement. */
	{
		struct table_spec bad = supplied_spec;
		struct table t2;

		bad.supplement = NULL;
		CHECK_INT(table_init(&t2, &bad, fd, -1, NULL), -EINVAL);
		table_free(&t2);
	}
	table_free(&t);
	close(fd);
}

UNIT_MAIN(UNIT_TEST(test_interval_rows_add_up_to_the_summary),
	  UNIT_TEST(test_banks_are_read_one_at_a_time),
	  UNIT_TEST(test_key_by_key_reader_matches_batch),
	  UNIT_TEST(test_rows_sorted_and_limited_in_text),
	  UNIT_TEST(test_duration_split_across_windows),
	  UNIT_TEST(test_torn_duration_is_read_again),
	  UNIT_TEST(test_full_map_counts_dropped_rows),
	  UNIT_TEST(test_integral_value_in_any_order),
	  UNIT_TEST(test_integral_split_across_windows),
	  UNIT_TEST(test_time_at_the_cut_counts_after_the_wait),
	  UNIT_TEST(test_supplied_values_beside_the_tools))
