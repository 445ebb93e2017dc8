// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE /* strerrorname_np() */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "escape.h"
#include <bpf/bpf.h>
#include "json.h"
#include "openmetrics.h"
#include "table.h"
#include "util.h"

/* A duration entry caught mid-update is read again this many times. */
#define DURATION_RETRIES 8

unsigned long long duration_cumulative_ns(const struct schedscan_duration *d,
					  unsigned long long start_ns,
					  unsigned long long read_ns)
{
	unsigned long long from = d->since > start_ns ? d->since : start_ns;

	/* An episode that began after read_ns adds nothing yet. */
	if (d->on && start_ns && read_ns > from)
		return d->total_ns + (read_ns - from);
	return d->total_ns;
}

long long integral_value_ns(__s64 word, unsigned long long read_ns)
{
	/* c in [-7, 8]: the word is SCALE * acc + c (lib/bpf/table.h). */
	long long c = (long long)(((unsigned long long)word + 7) &
				  (SCHEDSCAN_INTEGRAL_SCALE - 1)) - 7;
	long long acc = (word - c) / SCHEDSCAN_INTEGRAL_SCALE;

	return acc + c * (long long)read_ns;
}

static long long integral_word(const struct table *t, const unsigned char *value,
			       unsigned int k)
{
	__s64 word;

	memcpy(&word, value + t->spec->integral_offset + k * sizeof(word), sizeof(word));
	return word;
}

const struct table_key_field table_tgid_key[1] = {
	{ .name = "tgid", .heading = "TGID", .size = 4, .width = 8 },
};
const char *const table_cpus_label[1] = { "cpus" };
const char *const table_cpus_heading[1] = { "CPUS" };
const int table_cpus_width[1] = { 9 };
const char *const table_comm_label[1] = { "comm" };
const char *const table_comm_heading[1] = { "COMM" };
const int table_comm_width[1] = { 15 };

void table_label_comm(void *ctx, const void *key, const struct map_dump *d,
		      unsigned int i, char (*out)[TABLE_LABEL_LEN])
{
	for (int cpu = 0; d && cpu < d->nr_cpus && !out[0][0]; cpu++)
		snprintf(out[0], TABLE_LABEL_LEN, "%.16s",
			 (const char *)map_dump_value(d, i, cpu));
}

static int check_spec(const struct table_spec *s, __u32 key_size,
		      __u32 value_size)
{
	unsigned int need;

	if (key_size > TABLE_MAX_KEY_SIZE || s->nr_keys > TABLE_MAX_KEY_FIELDS ||
	    s->nr_labels > TABLE_MAX_LABELS || table_nr_values(s) > TABLE_MAX_VALUES ||
	    s->nr_columns > TABLE_MAX_COLUMNS || s->drop_slot >= SCHEDSCAN_MAX_TABLES ||
	    s->nr_integrals > TABLE_MAX_INTEGRALS || s->nr_integrals > s->nr_values ||
	    (s->nr_integrals && s->source != TABLE_COUNTERS) ||
	    (s->nr_supplied && (!s->supplement || !s->supplied_name)))
		return -EINVAL;
	for (int k = 0; k < s->nr_keys; k++)
		if ((s->keys[k].size != 4 && s->keys[k].size != 8) ||
		    s->keys[k].offset + s->keys[k].size > key_size)
			return -EINVAL;
	for (int c = 0; c < s->nr_columns; c++)
		if (s->columns[c].value >= table_nr_values(s) ||
		    ((s->columns[c].kind == COLUMN_PERCENT ||
		      s->columns[c].kind == COLUMN_MEAN) &&
		     s->columns[c].denominator >= table_nr_values(s)))
			return -EINVAL;
	if (s->sort_value >= (int)table_nr_values(s))
		return -EINVAL;
	if (s->source == TABLE_DURATIONS) {
		if (s->nr_values % 2)
			return -EINVAL;
		need = s->value_offset +
		       s->nr_values / 2 * sizeof(struct schedscan_duration);
	} else {
		need = s->value_offset +
		       SCHEDSCAN_BANKS * (s->nr_values - s->nr_integrals) * sizeof(__u64);
		if (s->nr_integrals &&
		    s->integral_offset + s->nr_integrals * sizeof(__s64) > value_size)
			return -EINVAL;
	}
	return need <= value_size ? 0 : -EINVAL;
}

int table_init(struct table *t, const struct table_spec *spec, int map_fd,
	       int drops_fd, void *ctx)
{
	int ret;

	memset(t, 0, sizeof(*t));
	t->spec = spec;
	t->ctx = ctx;
	t->tier = "none";
	ret = map_dump_init(&t->dump, map_fd);
	if (ret)
		return ret;
	ret = check_spec(spec, t->dump.key_size, t->dump.value_size);
	if (ret)
		return ret;
	if (spec->drop_slot >= 0 && drops_fd >= 0) {
		ret = map_dump_init(&t->drops, drops_fd);
		if (ret)
			return ret;
		t->have_drops = true;
	}
	return 0;
}

void table_free(struct table *t)
{
	map_dump_free(&t->dump);
	if (t->have_drops)
		map_dump_free(&t->drops);
	free(t->rows);
	free(t->index);
	memset(t, 0, sizeof(*t));
}

/* FNV-1a over the key bytes. */
static size_t key_hash(const void *key, size_t len)
{
	const unsigned char *p = key;
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 1099511628211ULL;
	}
	return (size_t)h;
}

static void index_insert(struct table *t, size_t row)
{
	size_t mask = t->index_size - 1,
	       slot = key_hash(t->rows[row].key, t->dump.key_size) & mask;

	while (t->index[slot])
		slot = (slot + 1) & mask;
	t->index[slot] = row + 1;
}

/* Keeps the index at most half full, so a probe ends quickly. */
static int index_grow(struct table *t)
{
	size_t size = t->index_size ? t->index_size * 2 : 64;
	size_t *index = calloc(size, sizeof(*index));

	if (!index)
		return -ENOMEM;
	free(t->index);
	t->index = index;
	t->index_size = size;
	for (size_t r = 0; r < t->nr_rows; r++)
		index_insert(t, r);
	return 0;
}

static struct table_row *row_for(struct table *t, const void *key, bool *created)
{
	size_t mask, slot;
	struct table_row *row;

	*created = false;
	if (t->index_size) {
		mask = t->index_size - 1;
		for (slot = key_hash(key, t->dump.key_size) & mask; t->index[slot];
		     slot = (slot + 1) & mask) {
			row = &t->rows[t->index[slot] - 1];
			if (!memcmp(row->key, key, t->dump.key_size))
				return row;
		}
	}
	if ((t->nr_rows + 1) * 2 > t->index_size && index_grow(t))
		return NULL;
	if (grow_array((void **)&t->rows, &t->cap_rows, t->nr_rows + 1, sizeof(*t->rows)))
		return NULL;
	row = &t->rows[t->nr_rows];
	memset(row, 0, sizeof(*row));
	memcpy(row->key, key, t->dump.key_size);
	index_insert(t, t->nr_rows++);
	*created = true;
	return row;
}

/* One entry's duration k, read again by key while caught mid-update. */
static struct schedscan_duration read_duration(struct table *t, const void *key,
					       const unsigned char *value,
					       unsigned int k)
{
	size_t offset = t->spec->value_offset + k * sizeof(struct schedscan_duration);
	struct schedscan_duration d;
	unsigned char *fresh = NULL;

	memcpy(&d, value + offset, sizeof(d));
	for (int retry = 0; d.seq_begin != d.seq_end && retry < DURATION_RETRIES; retry++) {
		t->torn_reads++;
		if (!fresh)
			fresh = malloc(t->dump.value_size);
		if (!fresh || bpf_map_lookup_elem(t->dump.fd, key, fresh))
			break;
		memcpy(&d, fresh + offset, sizeof(d));
	}
	free(fresh);
	return d;
}

/* What a read takes from the map: its time values, its counts, or both. */
enum table_part {
	TABLE_PART_TIME = 1,	/* durations and integrals, closed at read_ns */
	TABLE_PART_COUNTS = 2,	/* the banked counters of bank */
};

/*
 * A row's labels come from tasks and files nobody vouches for (a task
 * names itself): each is kept in its display form (lib/escape.h) from the
 * moment it is filled, so that no output format sees the raw bytes. A
 * label filled earlier is already in that form and is left alone.
 */
static void fill_labels(struct table *t, const void *key, const struct map_dump *d,
			unsigned int i, struct table_row *row)
{
	bool was_empty[TABLE_MAX_LABELS] = {};

	for (int l = 0; l < t->spec->nr_labels; l++)
		was_empty[l] = !row->labels[l][0];
	t->spec->labels(t->ctx, key, d, i, row->labels);
	for (int l = 0; l < t->spec->nr_labels; l++)
		if (was_empty[l])
			display_name_inplace(row->labels[l], TABLE_LABEL_LEN);
}

/* One map entry (key, its value per CPU) into its row's now[]. */
static int table_feed(struct table *t, const void *key, const struct map_dump *d,
		      unsigned int i, unsigned long long read_ns, unsigned int bank,
		      unsigned int parts)
{
	const struct table_spec *s = t->spec;
	struct table_row *row;
	bool created;

	row = row_for(t, key, &created);
	if (!row)
		return -ENOMEM;
	if (s->labels && (created || (s->nr_labels && !row->labels[0][0])))
		fill_labels(t, key, d, i, row);
	if (s->source == TABLE_COUNTERS) {
		unsigned int nr_counters = s->nr_values - s->nr_integrals;

		/* What the bank gained since it was last read: the events of the windows it took. */
		for (unsigned int v = 0; (parts & TABLE_PART_COUNTS) && v < nr_counters; v++) {
			unsigned long long sum = map_dump_sum_u64(
				d, i, s->value_offset + SCHEDSCAN_SLOT(v, bank) * sizeof(__u64));

			row->now[v] += sum - row->seen[bank - 1][v];
			row->seen[bank - 1][v] = sum;
		}
		for (unsigned int k = 0; (parts & TABLE_PART_TIME) && k < s->nr_integrals; k++) {
			long long ns = integral_value_ns(integral_word(t, map_dump_value(d, i, 0), k),
							 read_ns) - row->base[k];
			unsigned int v = nr_counters + k;

			/* Never backwards (switches crossing the read): a window is never negative. */
			if (ns > 0 && (unsigned long long)ns > row->now[v])
				row->now[v] = ns;
		}
		return 0;
	}
	for (unsigned int k = 0; (parts & TABLE_PART_TIME) && k < s->nr_values / 2; k++) {
		struct schedscan_duration dur = read_duration(t, key, map_dump_value(d, i, 0), k);
		unsigned long long ns = duration_cumulative_ns(&dur, t->start_ns, read_ns);

		/* Never backwards: a window is never negative. */
		row->now[2 * k] = ns > row->now[2 * k] ? ns : row->now[2 * k];
		row->now[2 * k + 1] = dur.episodes;
	}
	return 0;
}

int table_start(struct table *t, unsigned long long start_ns)
{
	const struct table_spec *s = t->spec;
	int ret;

	t->start_ns = start_ns;
	if (s->supplement)
		t->supplied = s->supplement(t->ctx, t, true);
	if (!s->nr_integrals)
		return 0;
	ret = map_dump_read(&t->dump);
	if (ret)
		return ret;
	for (__u32 i = 0; i < t->dump.count; i++) {
		const unsigned char *value = map_dump_value(&t->dump, i, 0);
		bool created;
		struct table_row *row = row_for(t, map_dump_key(&t->dump, i), &created);

		if (!row)
			return -ENOMEM;
		for (unsigned int k = 0; k < s->nr_integrals; k++)
			row->base[k] = integral_value_ns(integral_word(t, value, k), start_ns);
	}
	return 0;
}

void table_supply_reset(struct table *t)
{
	for (size_t r = 0; r < t->nr_rows; r++)
		for (unsigned int v = t->spec->nr_values; v < table_nr_values(t->spec); v++)
			t->rows[r].now[v] = 0;
}

int table_supply(struct table *t, const void *key, unsigned int value,
		 unsigned long long amount)
{
	bool created;
	struct table_row *row;

	if (value < t->spec->nr_values || value >= table_nr_values(t->spec))
		return -EINVAL;
	row = row_for(t, key, &created);
	if (!row)
		return -ENOMEM;
	/* Labels of a key the map has not had: from the key alone (no entry). */
	if (created && t->spec->labels)
		fill_labels(t, key, NULL, 0, row);
	row->now[value] += amount;
	return 0;
}

static int table_read_parts(struct table *t, unsigned long long read_ns, unsigned int bank,
			    unsigned int parts)
{
	int ret = map_dump_read(&t->dump);

	for (__u32 i = 0; !ret && i < t->dump.count; i++)
		ret = table_feed(t, map_dump_key(&t->dump, i), &t->dump, i, read_ns, bank, parts);
	return ret;
}

static bool table_has_time(const struct table_spec *s)
{
	return s->source == TABLE_DURATIONS || s->nr_integrals;
}

int table_read_time(struct table *t, unsigned long long read_ns)
{
	return table_has_time(t->spec) ? table_read_parts(t, read_ns, 0, TABLE_PART_TIME) : 0;
}

int table_read_counts(struct table *t, unsigned int bank)
{
	int ret;

	if (bank < 1 || bank > SCHEDSCAN_BANKS)
		return -EINVAL;
	if (t->spec->source == TABLE_COUNTERS) {
		ret = table_read_parts(t, 0, bank, TABLE_PART_COUNTS);
		if (ret)
			return ret;
	}
	if (t->supplied)
		t->spec->supplement(t->ctx, t, false);
	if (t->have_drops) {
		ret = map_dump_read(&t->drops);
		if (ret)
			return ret;
		for (__u32 i = 0; i < t->drops.count; i++) {
			__u32 key;

			memcpy(&key, map_dump_key(&t->drops, i), sizeof(key));
			if (key == (__u32)t->spec->drop_slot)
				t->dropped_now = map_dump_sum_u64(&t->drops, i, 0);
			if (key == SCHEDSCAN_TABLE_DROP_ERROR((__u32)t->spec->drop_slot))
				for (int cpu = 0; cpu < t->drops.nr_cpus; cpu++) {
					__s64 err;

					memcpy(&err, map_dump_value(&t->drops, i, cpu), sizeof(err));
					if (err < 0)
						t->drop_error = (int)-err;
				}
		}
	}
	return 0;
}

int table_read(struct table *t, unsigned long long read_ns, unsigned int bank)
{
	int ret;

	if (bank < 1 || bank > SCHEDSCAN_BANKS)
		return -EINVAL;
	ret = table_read_time(t, read_ns);
	return ret ? ret : table_read_counts(t, bank);
}

void table_window(struct table *t, enum table_window_kind kind, double window_s)
{
	size_t n = sizeof(t->rows[0].now);

	t->window_s = window_s;
	for (size_t r = 0; r < t->nr_rows; r++) {
		struct table_row *row = &t->rows[r];

		for (unsigned int v = 0; v < table_nr_values(t->spec); v++) {
			if (kind == WINDOW_INTERVAL)
				row->win[v] = row->now[v] - row->last[v];
			else if (kind == WINDOW_RUN)
				row->win[v] = row->now[v];
			else
				row->win[v] = row->last[v];
		}
		if (kind != WINDOW_RUN_AFTER_INTERVALS)
			memcpy(row->last, row->now, n);
	}
	if (kind == WINDOW_INTERVAL)
		t->dropped_win = t->dropped_now - t->dropped_last;
	else if (kind == WINDOW_RUN)
		t->dropped_win = t->dropped_now;
	else
		t->dropped_win = t->dropped_last;
	if (kind != WINDOW_RUN_AFTER_INTERVALS)
		t->dropped_last = t->dropped_now;
}

static const unsigned long long *row_values(const struct table_row *row,
					    enum table_values which)
{
	if (which == TABLE_CUMULATIVE_NOW)
		return row->now;
	return which == TABLE_CUMULATIVE_LAST ? row->last : row->win;
}

unsigned long long table_total(const struct table *t, unsigned int value,
			       enum table_values which)
{
	unsigned long long sum = 0;

	for (size_t r = 0; r < t->nr_rows; r++)
		sum += row_values(&t->rows[r], which)[value];
	return sum;
}

unsigned long long table_key_value(const struct table_key_field *f, const void *key)
{
	const unsigned char *p = (const unsigned char *)key + f->offset;

	if (f->size == 8) {
		__u64 v;

		memcpy(&v, p, sizeof(v));
		return v;
	}
	if (f->is_signed) {
		__s32 v;

		memcpy(&v, p, sizeof(v));
		return (unsigned long long)(long long)v;
	}
	{
		__u32 v;

		memcpy(&v, p, sizeof(v));
		return v;
	}
}

static void key_text(const struct table_key_field *f, const void *key,
		     char *buf, size_t len)
{
	unsigned long long v = table_key_value(f, key);

	if (f->is_signed)
		snprintf(buf, len, "%lld", (long long)v);
	else if (f->size == 8 && v > 0xffffffffULL)
		snprintf(buf, len, "0x%llx", v);
	else
		snprintf(buf, len, "%llu", v);
}

static bool all_zero(const unsigned long long *values, unsigned int nr_values)
{
	for (unsigned int v = 0; v < nr_values; v++)
		if (values[v])
			return false;
	return true;
}

/* qsort has no context argument: the spec of the table being sorted. */
static __thread const struct table *sorting;

static int compare_keys(const struct table_row *a, const struct table_row *b)
{
	const struct table_spec *s = sorting->spec;

	for (int k = 0; k < s->nr_keys; k++) {
		unsigned long long x = table_key_value(&s->keys[k], a->key),
				   y = table_key_value(&s->keys[k], b->key);

		if (s->keys[k].is_signed && (long long)x != (long long)y)
			return (long long)x < (long long)y ? -1 : 1;
		if (x != y)
			return x < y ? -1 : 1;
	}
	return memcmp(a->key, b->key, sorting->dump.key_size);
}

static int compare_rows(const void *pa, const void *pb)
{
	const struct table_row *a = *(const struct table_row *const *)pa,
			       *b = *(const struct table_row *const *)pb;
	int v = sorting->spec->sort_value;

	if (v >= 0 && a->win[v] != b->win[v])
		return a->win[v] < b->win[v] ? 1 : -1;
	return compare_keys(a, b);
}

size_t table_sorted_rows(struct table *t, const struct table_row ***out)
{
	const struct table_row **rows = calloc(t->nr_rows ? t->nr_rows : 1, sizeof(*rows));
	size_t n = 0;

	*out = rows;
	if (!rows)
		return 0;
	for (size_t r = 0; r < t->nr_rows; r++)
		if (t->spec->all_rows || !all_zero(t->rows[r].win, table_nr_values(t->spec)))
			rows[n++] = &t->rows[r];
	sorting = t;
	qsort(rows, n, sizeof(*rows), compare_rows);
	sorting = NULL;
	return n;
}

void table_cell_text(const struct table *t, const struct table_column *c,
		     const unsigned long long *v, char *buf, size_t len)
{
	double den;

	switch (c->kind) {
	case COLUMN_COUNT:
		snprintf(buf, len, "%llu", v[c->value]);
		break;
	case COLUMN_DURATION:
		snprintf(buf, len, "%.1f", v[c->value] / 1e6);
		break;
	case COLUMN_PERCENT:
		den = (double)v[c->denominator];
		snprintf(buf, len, "%.2f", den > 0 ? 100.0 * v[c->value] / den : 0.0);
		break;
	case COLUMN_MEAN:
		den = (double)v[c->denominator];
		snprintf(buf, len, "%.1f", den > 0 ? v[c->value] / den : 0.0);
		break;
	case COLUMN_SHARE:
		snprintf(buf, len, "%.1f",
			 t->window_s > 0 ? 100.0 * v[c->value] / (t->window_s * 1e9) : 0.0);
		break;
	}
}

static bool column_supplied(const struct table_spec *s, const struct table_column *c)
{
	return c->value >= s->nr_values;
}

/* In the text table: it has a heading, and its values exist in this run. */
static bool column_shown(const struct table *t, const struct table_column *c)
{
	return c->heading && (t->supplied || !column_supplied(t->spec, c));
}

bool table_window_same(struct table *a, struct table *b)
{
	const struct table_row **ra, **rb;
	size_t na = table_sorted_rows(a, &ra), nb = table_sorted_rows(b, &rb);
	unsigned int values = a->spec->nr_values < b->spec->nr_values ? a->spec->nr_values :
									 b->spec->nr_values;
	bool same = na == nb && a->spec->nr_labels == b->spec->nr_labels;

	for (size_t r = 0; same && r < na; r++) {
		for (int l = 0; l < a->spec->nr_labels; l++)
			same &= !strcmp(ra[r]->labels[l], rb[r]->labels[l]);
		same &= !memcmp(ra[r]->win, rb[r]->win, values * sizeof(ra[r]->win[0]));
	}
	free(ra);
	free(rb);
	return same;
}

void table_text(struct table *t, FILE *out, int top)
{
	if (t->spec->text)
		t->spec->text(t, out, top);
	else
		table_text_rows(t, out, top);
}

/*
 * Leaves out the rows whose every shown count is 0 (they are there for a
 * column only JSON has) and says how many and for which columns.
 */
static size_t drop_rows_of_hidden_counts(const struct table *t, const struct table_row **rows,
					 size_t n, struct strbuf *note)
{
	const struct table_spec *s = t->spec;
	bool why[TABLE_MAX_COLUMNS] = {};
	size_t kept = 0, dropped;

	for (size_t r = 0; r < n; r++) {
		bool shown = false;

		for (int c = 0; c < s->nr_columns && !shown; c++)
			shown = s->columns[c].heading && s->columns[c].kind <= COLUMN_DURATION &&
				rows[r]->win[s->columns[c].value];
		if (shown) {
			rows[kept++] = rows[r];
			continue;
		}
		for (int c = 0; c < s->nr_columns; c++)
			why[c] |= !s->columns[c].heading && rows[r]->win[s->columns[c].value];
	}
	dropped = n - kept;
	if (dropped) {
		strbuf_printf(note, "(%zu more row%s with only", dropped, dropped == 1 ? "" : "s");
		for (int c = 0, first = 1; c < s->nr_columns; c++)
			if (why[c]) {
				strbuf_printf(note, "%s %s", first ? "" : ",", s->columns[c].name);
				first = 0;
			}
		strbuf_printf(note, ", not shown here: --json)\n");
	}
	return kept;
}

void table_text_rows(struct table *t, FILE *out, int top)
{
	const struct table_spec *s = t->spec;
	const struct table_row **rows;
	struct strbuf hidden = {};
	size_t n, limit;
	char cell[64];

	n = table_sorted_rows(t, &rows);
	if (s->text_shown_counts_only)
		n = drop_rows_of_hidden_counts(t, rows, n, &hidden);
	limit = n;
	if (top > 0)
		limit = (size_t)top < n ? (size_t)top : n;
	else if (s->text_rows > 0 && (size_t)s->text_rows < n)
		limit = s->text_rows;
	fputc('\n', out);
	for (int k = 0; k < s->nr_keys; k++)
		if (s->keys[k].width)
			fprintf(out, "%-*s ", s->keys[k].width, s->keys[k].heading);
	for (int l = 0; l < s->nr_labels; l++)
		if (s->label_widths[l])
			fprintf(out, "%-*s ", s->label_widths[l], s->label_headings[l]);
	for (int c = 0, first = 1; c < s->nr_columns; c++) {
		if (!column_shown(t, &s->columns[c]))
			continue;
		fprintf(out, "%s%*s", first ? "" : " ", s->columns[c].width,
			s->columns[c].heading);
		first = 0;
	}
	fputc('\n', out);
	for (size_t r = 0; r < limit; r++) {
		for (int k = 0; k < s->nr_keys; k++) {
			if (!s->keys[k].width)
				continue;
			key_text(&s->keys[k], rows[r]->key, cell, sizeof(cell));
			fprintf(out, "%-*s ", s->keys[k].width, cell);
		}
		for (int l = 0; l < s->nr_labels; l++) {
			if (!s->label_widths[l])
				continue;
			/* A long label (a file's path) shows its end, the informative part. */
			print_text_cell(out, rows[r]->labels[l], s->label_widths[l]);
			fputc(' ', out);
		}
		for (int c = 0, first = 1; c < s->nr_columns; c++) {
			if (!column_shown(t, &s->columns[c]))
				continue;
			table_cell_text(t, &s->columns[c], rows[r]->win, cell, sizeof(cell));
			fprintf(out, "%s%*s", first ? "" : " ", s->columns[c].width, cell);
			first = 0;
		}
		fputc('\n', out);
	}
	if (limit < n)
		fprintf(out, "(%zu more row%s: --top N or --json)\n", n - limit,
			n - limit == 1 ? "" : "s");
	if (hidden.len)
		fputs(hidden.buf, out);
	strbuf_free(&hidden);
	if (t->dropped_win)
		fprintf(out, "%llu insert%s into the %s table failed (%s): its rows undercount\n",
			t->dropped_win, t->dropped_win == 1 ? "" : "s", s->name,
			t->drop_error == E2BIG ? "the map is full" : strerror(t->drop_error));
	free(rows);
}

/* The supplied values in one object (docs/json.md "Tables"). */
static void json_supplied(const struct table *t, const struct table_row *row,
			  struct json_writer *w)
{
	const struct table_spec *s = t->spec;

	if (!t->supplied)
		return;
	json_key(w, s->supplied_name);
	json_begin_object(w);
	for (int c = 0; c < s->nr_columns; c++) {
		const struct table_column *col = &s->columns[c];

		if (!column_supplied(s, col) ||
		    (col->kind != COLUMN_COUNT && col->kind != COLUMN_DURATION))
			continue;
		json_key(w, col->name);
		json_u64(w, row->win[col->value]);
	}
	json_end_object(w);
}

void table_json(struct table *t, struct json_writer *w)
{
	const struct table_spec *s = t->spec;
	const struct table_row **rows;
	size_t n = table_sorted_rows(t, &rows);
	char by[128] = "";

	for (int k = 0; k < s->nr_keys; k++)
		snprintf(by + strlen(by), sizeof(by) - strlen(by), "%s%s", k ? "+" : "",
			 s->keys[k].name);
	json_key(w, s->name);
	json_begin_object(w);
	json_key(w, "by");
	json_string(w, by);
	json_key(w, "tier");
	json_string(w, t->tier);
	json_key(w, "estimated");
	json_bool(w, t->estimated);
	json_key(w, "rows_dropped");
	json_u64(w, t->dropped_win);
	if (t->dropped_win && t->drop_error) {
		const char *name = strerrorname_np(t->drop_error);

		json_key(w, "rows_dropped_error");
		json_string(w, name ? name : "EUNKNOWN");
	}
	json_key(w, "rows");
	json_begin_array(w);
	for (size_t r = 0; r < n; r++) {
		json_begin_object(w);
		for (int k = 0; k < s->nr_keys; k++) {
			unsigned long long v = table_key_value(&s->keys[k], rows[r]->key);

			json_key(w, s->keys[k].name);
			if (s->keys[k].is_signed)
				json_i64(w, (long long)v);
			else
				json_u64(w, v);
		}
		for (int l = 0; l < s->nr_labels; l++) {
			json_key(w, s->label_names[l]);
			json_string(w, rows[r]->labels[l]);
		}
		for (int c = 0; c < s->nr_columns; c++) {
			const struct table_column *col = &s->columns[c];

			if ((col->kind != COLUMN_COUNT && col->kind != COLUMN_DURATION) ||
			    column_supplied(s, col))
				continue;
			json_key(w, col->name);
			json_u64(w, rows[r]->win[col->value]);
		}
		json_supplied(t, rows[r], w);
		json_end_object(w);
	}
	json_end_array(w);
	json_end_object(w);
	free(rows);
}

void table_openmetrics(const struct table *t, const char *tool,
		       enum table_values which, struct strbuf *out)
{
	const struct table_spec *s = t->spec;
	struct om_label labels[TABLE_MAX_KEY_FIELDS + TABLE_MAX_LABELS + 2];
	char keys[TABLE_MAX_KEY_FIELDS][32], family[160], help[256];
	int nr = 0;

	for (int c = 0; c < s->nr_columns; c++) {
		const struct table_column *col = &s->columns[c];
		double divisor;

		if ((col->kind != COLUMN_COUNT && col->kind != COLUMN_DURATION) ||
		    column_supplied(s, col))
			continue;
		/* A duration's name ends in _ns in JSON; Prometheus wants seconds. */
		divisor = om_family_name(family, sizeof(family), tool, s->row, col->name,
					 "_total");
		snprintf(help, sizeof(help), "%s per %s (docs/metrics.md), since the tool started",
			 col->name, s->row);
		om_header(out, family, "counter", help);
		for (size_t r = 0; r < t->nr_rows; r++) {
			const struct table_row *row = &t->rows[r];
			unsigned long long v = row_values(row, which)[col->value];

			/* A key that never had an event (an unused LLC index) is no series. */
			if (!s->all_rows && all_zero(row_values(row, which), s->nr_values))
				continue;

			nr = 0;
			for (int k = 0; k < s->nr_keys; k++) {
				key_text(&s->keys[k], row->key, keys[k], sizeof(keys[k]));
				labels[nr++] = (struct om_label){ s->keys[k].name, keys[k] };
			}
			for (int l = 0; l < s->nr_labels; l++)
				labels[nr++] = (struct om_label){ s->label_names[l], row->labels[l] };
			labels[nr++] = (struct om_label){ "tier", t->tier };
			labels[nr++] = (struct om_label){ "estimated", t->estimated ? "true" : "false" };
			if (divisor != 1.0)
				om_sample_double(out, family, NULL, labels, nr, v / divisor);
			else
				om_sample_u64(out, family, NULL, labels, nr, v);
		}
	}
	if (s->drop_slot >= 0) {
		om_family_name(family, sizeof(family), tool, s->row, "rows_dropped", "_total");
		om_header(out, family, "counter",
			  "inserts into the table's BPF map that the kernel refused, e.g. for a full map (its rows undercount)");
		om_sample_u64(out, family, NULL, NULL, 0,
			      which == TABLE_CUMULATIVE_NOW ? t->dropped_now : t->dropped_last);
	}
}
