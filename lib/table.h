/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Keyed tables: rows of counters (or of time integrals, "durations")
 * keyed by a 1-D or 2-D key (CPU, LLC, domain x idle type, pid,
 * (pid, VMA), node x node), kept cumulative in a BPF map and differenced
 * here per window, so that interval rows add up to the summary exactly
 * (the rule the scalar metrics keep). One renderer for every table: 80
 * column text (sorted, --top), JSON (docs/json.md "Tables") and
 * OpenMetrics (docs/openmetrics.md).
 *
 * BPF side: lib/bpf/table.bpf.h (rows created with table_row(), which
 * counts the rows a full map could not take; durations with
 * duration_set()).
 */
#ifndef SCHEDSCAN_TABLE_H
#define SCHEDSCAN_TABLE_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include "bpf/table.h"
#include "maps.h"

struct json_writer;
struct strbuf;
struct table;

#define TABLE_MAX_KEY_FIELDS 4
#define TABLE_MAX_KEY_SIZE 32
#define TABLE_MAX_LABELS 2
#define TABLE_LABEL_LEN 64
#define TABLE_MAX_VALUES 24
#define TABLE_MAX_COLUMNS 24
#define TABLE_MAX_INTEGRALS 8

/* One integer field of the map key, shown as a key column. */
struct table_key_field {
	const char *name;	/* JSON key and label name */
	const char *heading;	/* text heading */
	unsigned int offset, size;	/* size 4 or 8 */
	bool is_signed;
	int width;
};

enum table_column_kind {
	COLUMN_COUNT,		/* values[value] */
	COLUMN_DURATION,	/* values[value] in ns: text ms, JSON ns */
	/* Text only, derived from the row: */
	COLUMN_PERCENT,		/* 100 * values[value] / values[denominator] */
	COLUMN_MEAN,		/* values[value] / values[denominator] */
	COLUMN_SHARE,		/* 100 * values[value] ns / window length */
};

struct table_column {
	const char *name;	/* COUNT/DURATION: JSON key, docs/metrics.md name */
	const char *heading;	/* NULL: not in the text table */
	int width;
	enum table_column_kind kind;
	unsigned int value, denominator;
};

/* Where a row's values come from in the map value. */
enum table_source {
	/*
	 * nr_values __u64 counters from value_offset in both banks (value v
	 * of bank b at slot SCHEDSCAN_SLOT(v, b), lib/bpf/table.h), summed
	 * over CPUs for per-CPU maps.
	 */
	TABLE_COUNTERS,
	/*
	 * nr_values / 2 struct schedscan_duration from value_offset: values
	 * 2k (ns, closed at the read time) and 2k + 1 (episodes).
	 */
	TABLE_DURATIONS,
};

struct table_spec {
	const char *name;	/* JSON key of the table object */
	const char *row;	/* OpenMetrics infix: schedscan_<tool>_<row>_<column> */
	const struct table_key_field *keys;
	int nr_keys;
	/* String labels (cpus, comm, ...); a label of width 0 is not in the text. */
	const char *const *label_names;
	const char *const *label_headings;
	const int *label_widths;
	int nr_labels;
	/*
	 * Fills the labels of a new row from its key and its map entry i
	 * (NULL: none); a label left empty is asked for again at the next
	 * read. d is NULL for a row a supplement created (no map entry yet).
	 */
	void (*labels)(void *ctx, const void *key, const struct map_dump *d,
		       unsigned int i, char (*out)[TABLE_LABEL_LEN]);
	enum table_source source;
	unsigned int value_offset, nr_values;
	/*
	 * TABLE_COUNTERS: the last nr_integrals of the nr_values are time
	 * integrals, not banked counters: __s64 words at integral_offset,
	 * written lock-free by several CPUs (lib/bpf/table.h,
	 * SCHEDSCAN_INTEGRAL_SCALE), read as the ns since the run started.
	 */
	unsigned int integral_offset, nr_integrals;
	/*
	 * nr_supplied values after the map's (a reference, such as the
	 * kernel's own counters), filled by supplement() with table_supply():
	 * at the start (start true; it returns whether it has anything to
	 * supply) and after every read of the map. Their COUNT columns go
	 * into a JSON object named supplied_name in each row, not into
	 * OpenMetrics.
	 */
	unsigned int nr_supplied;
	const char *supplied_name;
	bool (*supplement)(void *ctx, struct table *t, bool start);
	/* Text rendering of its own (NULL: rows as lines, keys first). */
	void (*text)(struct table *t, FILE *out, int top);
	const struct table_column *columns;
	int nr_columns;
	int sort_value;		/* descending by this value; -1: by key */
	bool all_rows;		/* also rows with nothing in the window (e.g. every CPU) */
	int text_rows;		/* rows shown in text unless --top; 0: all */
	/*
	 * Text leaves out the rows whose shown counts are all 0 (kept for a
	 * JSON-only column) and says how many there were, and why.
	 */
	bool text_shown_counts_only;
	int drop_slot;		/* its slot in the object's table_drops map; -1: none */
};

struct table_row {
	unsigned char key[TABLE_MAX_KEY_SIZE];
	char labels[TABLE_MAX_LABELS][TABLE_LABEL_LEN];
	/* Cumulative at the last read and at the last window; the window's. */
	unsigned long long now[TABLE_MAX_VALUES], last[TABLE_MAX_VALUES],
		win[TABLE_MAX_VALUES];
	/* TABLE_COUNTERS: each bank's values as last read. */
	unsigned long long seen[SCHEDSCAN_BANKS][TABLE_MAX_VALUES];
	/* Integrals at the run's start. */
	long long base[TABLE_MAX_INTEGRALS];
};

struct table {
	const struct table_spec *spec;
	void *ctx;		/* for spec->labels */
	const char *tier;
	bool estimated;
	struct map_dump dump;
	struct map_dump drops;	/* the object's table_drops map, or fd < 0 */
	bool have_drops;
	struct table_row *rows;
	size_t nr_rows, cap_rows;
	size_t *index;		/* open addressing: row index + 1, 0 empty */
	size_t index_size;
	unsigned long long dropped_now, dropped_last, dropped_win;
	int drop_error;		/* the last refused insert's errno, 0: none */
	unsigned long long torn_reads;	/* duration entries re-read (diagnostics) */
	double window_s;	/* of the last window, for COLUMN_SHARE */
	unsigned long long start_ns;	/* the run's start: durations count from it */
	bool supplied;		/* spec->supplement has values for this run */
};

/* Which of a row's value sets to use. */
enum table_values { TABLE_WINDOW, TABLE_CUMULATIVE_NOW, TABLE_CUMULATIVE_LAST };

/*
 * map_fd: the loaded map; drops_fd: its object's table_drops map (-1:
 * none). 0 or -errno; the spec is checked (0 or -EINVAL).
 */
int table_init(struct table *t, const struct table_spec *spec, int map_fd,
	       int drops_fd, void *ctx);
void table_free(struct table *t);
/*
 * The run starts at start_ns (CLOCK_MONOTONIC): durations and integrals
 * count from it, the supplement takes its baseline. 0 or -errno.
 */
int table_start(struct table *t, unsigned long long start_ns);
/*
 * For a supplement: adds amount to value (an index >= spec->nr_values)
 * of key's row, cumulative since the start; table_supply_reset() first
 * sets every row's supplied values to 0.
 */
int table_supply(struct table *t, const void *key, unsigned int value,
		 unsigned long long amount);
void table_supply_reset(struct table *t);
/* Every value of a row: the map's, then the supplied ones. */
static inline unsigned int table_nr_values(const struct table_spec *s)
{
	return s->nr_values + s->nr_supplied;
}
/*
 * Reads the map into every row's now[]: table_read_time() the durations
 * and integrals closed at read_ns (CLOCK_MONOTONIC: the instant the
 * reading cuts, taken before the read), table_read_counts() the counters
 * of bank (1 or 2), the one the BPF side no longer writes (lib/tool.c
 * switched it and waited for the programs that chose it), the supplied
 * values and the drops. Time values need no wait: read right at the cut,
 * they end where the bank's events end. table_read() does both.
 */
int table_read_time(struct table *t, unsigned long long read_ns);
int table_read_counts(struct table *t, unsigned int bank);
int table_read(struct table *t, unsigned long long read_ns, unsigned int bank);

enum table_window_kind {
	WINDOW_INTERVAL,	/* win = now - last; last = now */
	WINDOW_RUN,		/* a summary read afresh: win = now; last = now */
	WINDOW_RUN_AFTER_INTERVALS,	/* a summary after intervals: win = last */
};
void table_window(struct table *t, enum table_window_kind kind, double window_s);

/* Sum of one value over all rows. */
unsigned long long table_total(const struct table *t, unsigned int value,
			       enum table_values which);
/* The window's rows (with any non-zero value unless all_rows), sorted as the spec says. */
size_t table_sorted_rows(struct table *t, const struct table_row ***rows);

void table_text(struct table *t, FILE *out, int top);
/* The rows as lines, keys first: table_text() without the spec's own text. */
void table_text_rows(struct table *t, FILE *out, int top);
/*
 * The two tables' windows hold the same rows: the same labels, in key
 * order, with the same values (as many as both have).
 */
bool table_window_same(struct table *a, struct table *b);
/* The text of one cell of a row (any column kind). */
void table_cell_text(const struct table *t, const struct table_column *c,
		     const unsigned long long *values, char *buf, size_t len);
/* A key field of a row, as an integer. */
unsigned long long table_key_value(const struct table_key_field *f, const void *key);
void table_json(struct table *t, struct json_writer *w);
/* OpenMetrics families of the table, cumulative (which: NOW or LAST). */
void table_openmetrics(const struct table *t, const char *tool,
		       enum table_values which, struct strbuf *out);

/*
 * A spec->labels for rows whose map value starts with a task name
 * (char comm[16]), written by whichever CPU created the row.
 */
void table_label_comm(void *ctx, const void *key, const struct map_dump *d,
		      unsigned int i, char (*out)[TABLE_LABEL_LEN]);

/* A "cpus" label (a CPU list, e.g. "0-3"). In a struct table_spec initializer. */
extern const char *const table_cpus_label[1];
extern const char *const table_cpus_heading[1];
extern const int table_cpus_width[1];
#define TABLE_CPUS_LABEL                                                       \
	.label_names = table_cpus_label, .label_headings = table_cpus_heading, \
	.label_widths = table_cpus_width, .nr_labels = 1

/*
 * Rows per process: keyed by a __u32 tgid, labelled with the leader's
 * name from the start of the map value. In a struct table_spec
 * initializer: { .name = ..., TABLE_BY_PROCESS, ... }.
 */
extern const struct table_key_field table_tgid_key[1];
extern const char *const table_comm_label[1];
extern const char *const table_comm_heading[1];
extern const int table_comm_width[1];
#define TABLE_BY_PROCESS                                                       \
	.row = "process", .keys = table_tgid_key, .nr_keys = 1,               \
	.label_names = table_comm_label, .label_headings = table_comm_heading, \
	.label_widths = table_comm_width, .nr_labels = 1,                     \
	.labels = table_label_comm

/*
 * The cumulative time of a duration from start_ns to read_ns, as the BPF
 * side closes episodes (exposed for unit tests).
 */
unsigned long long duration_cumulative_ns(const struct schedscan_duration *d,
					  unsigned long long start_ns,
					  unsigned long long read_ns);
/* An integral word's time up to read_ns, in ns since boot (exposed for unit tests). */
long long integral_value_ns(__s64 word, unsigned long long read_ns);

#endif
