// SPDX-License-Identifier: GPL-2.0
/*
 * --compare: see compare.h. Everything is computed from the summary
 * records; the tests are in lib/stats.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "compare.h"
#include "json.h"
#include "plot.h"
#include "stats.h"
#include "util.h"

#define COMPARE_TOP_DEFAULT 10
/* Counters of one table at most (idlebal's domains have the most, 11). */
#define TABLE_COUNTERS_MAX 32
#define BAR_WIDTH 18

/* A histogram bucket pooled over runs; also one run's, to check they agree. */
struct bucket_pair {
	unsigned long long low, high;
	bool open;		/* the last, open-ended bucket */
	double a, b;
};

/* "2-3", "0", or "8+" for the open last bucket. */
static void fmt_range(const struct bucket_pair *bk, char *buf, size_t len)
{
	if (bk->open)
		snprintf(buf, len, "%llu+", bk->low);
	else if (bk->low == bk->high)
		snprintf(buf, len, "%llu", bk->low);
	else
		snprintf(buf, len, "%llu-%llu", bk->low, bk->high);
}

/* Whether name is one of the key fields of a table's by ("cpu+domain"). */
static bool is_key_field(const char *by, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = by; (p = strstr(p, name)); p += n)
		if ((p == by || p[-1] == '+') && (p[n] == '\0' || p[n] == '+'))
			return true;
	return false;
}

/* ---------------------------------------------------------------- reading */

#define MIB (1024ULL * 1024)
/* The least read; the buffer doubles as a long line needs. */
#define READ_CHUNK (64 * 1024)

static const char *file_kind(mode_t mode)
{
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISSOCK(mode))
		return "a socket";
	return "not a file";
}

/* A size in MiB as the sentences give it: "64", or "0.5" for a test's bounds. */
static void fmt_mib(unsigned long long bytes, char *buf, size_t len)
{
	if (bytes % MIB)
		snprintf(buf, len, "%.3g", (double)bytes / MIB);
	else
		snprintf(buf, len, "%llu", bytes / MIB);
}

static int too_large(const char *path, unsigned long long max_file, char *err, size_t errlen)
{
	char mib[32];

	fmt_mib(max_file, mib, sizeof(mib));
	return errmsg(err, errlen, "%s is larger than %s MiB, the most --compare reads", path, mib);
}

static int too_long(const char *path, size_t line_no, size_t max_line, char *err, size_t errlen)
{
	char mib[32];

	fmt_mib(max_line, mib, sizeof(mib));
	return errmsg(err, errlen, "%s line %zu is longer than %s MiB, the longest line --compare reads",
		      path, line_no, mib);
}

/*
 * Opens path for reading if it is a regular file. stat() first, so that
 * a device is never opened (opening one can act: a tape rewinds); fstat()
 * after, as the path may have changed in between. O_NONBLOCK, so that
 * opening a FIFO that slipped in does not wait for a writer.
 */
static int open_regular(const char *path, unsigned long long max_file, char *err, size_t errlen)
{
	struct stat st;
	int fd, flags;

	if (stat(path, &st))
		return errmsg(err, errlen, "cannot read %s: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return errmsg(err, errlen, "%s is not a regular file (%s)", path, file_kind(st.st_mode));
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return errmsg(err, errlen, "cannot read %s: %s", path, strerror(errno));
	if (fstat(fd, &st)) {
		errmsg(err, errlen, "cannot read %s: %s", path, strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		errmsg(err, errlen, "%s is not a regular file (%s)", path, file_kind(st.st_mode));
		goto fail;
	}
	if ((unsigned long long)st.st_size > max_file) {
		too_large(path, max_file, err, errlen);
		goto fail;
	}
	flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK)) {
		errmsg(err, errlen, "cannot read %s: %s", path, strerror(errno));
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return -1;
}

int compare_read_lines(const char *path, unsigned long long max_file, size_t max_line,
		       compare_line_fn each_line, void *ctx, char *err, size_t errlen)
{
	/* buf[start, len): the lines not handed out yet; buf[start, scan) holds no '\n'. */
	size_t cap = 0, len = 0, start = 0, scan = 0, line_no = 0;
	unsigned long long total = 0;
	bool at_eof = false;
	char *buf = NULL;
	int fd = open_regular(path, max_file, err, errlen), ret = -1;

	if (fd < 0)
		return -1;
	for (;;) {
		char *newline = len > scan ? memchr(buf + scan, '\n', len - scan) : NULL;

		if (newline) {
			size_t end = (size_t)(newline - buf);

			if (end - start > max_line) {
				too_long(path, line_no + 1, max_line, err, errlen);
				goto out;
			}
			if (each_line(buf + start, end - start, ++line_no, ctx, err, errlen))
				goto out;
			start = scan = end + 1;
			continue;
		}
		scan = len;
		if (len - start > max_line) {
			too_long(path, line_no + 1, max_line, err, errlen);
			goto out;
		}
		if (at_eof)
			break;
		/* Only the line being read is kept: move it to the front. */
		if (start) {
			memmove(buf, buf + start, len - start);
			len -= start;
			scan -= start;
			start = 0;
		}
		if (grow_array((void **)&buf, &cap, len + READ_CHUNK, 1)) {
			errmsg(err, errlen, "cannot read %s: %s", path, strerror(ENOMEM));
			goto out;
		}
		/*
		 * Read with the caps, not st_size: the file may grow while read
		 * (a run still writing it), or say 0 and hold more. The buffer
		 * holds the line being read only, at most one byte past the
		 * longest line.
		 */
		size_t want = cap - len;

		if (want > max_line + 1 - len)
			want = max_line + 1 - len;
		if (want > max_file + 1 - total)
			want = (size_t)(max_file + 1 - total);
		ssize_t got = read(fd, buf + len, want);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			errmsg(err, errlen, "cannot read %s: %s", path, strerror(errno));
			goto out;
		}
		at_eof = got == 0;
		len += (size_t)got;
		total += (unsigned long long)got;
		if (total > max_file) {
			too_large(path, max_file, err, errlen);
			goto out;
		}
	}
	if (len > start && each_line(buf + start, len - start, ++line_no, ctx, err, errlen))
		goto out;
	ret = 0;
out:
	free(buf);
	close(fd);
	return ret;
}

/* ------------------------------------------------------------- validation */

/*
 * Every field --compare reads is checked against docs/json.md's schema
 * before a number is computed from it: a negative or string counter, a
 * ratio of 1e308, a histogram with a bucket twice would otherwise come out
 * as a plausible-looking comparison. Fields it does not read (version,
 * kernel, start, unavailable, prog_stats) are not required: a file is
 * refused only for what would make the comparison wrong. Integers are
 * taken as the tools write them, in digits (not 1e3 or 5.0).
 */

/* A record's place, for the sentence that refuses it. */
struct record_at {
	const char *file;
	size_t line;
};

static int refuse(const struct record_at *at, char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int refuse(const struct record_at *at, char *err, size_t errlen, const char *fmt, ...)
{
	char what[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return errmsg(err, errlen, "%s line %zu: %s", at->file, at->line, what);
}

/*
 * A field's path for a sentence ("metrics.x.hist.buckets[2].low"); a
 * crafted name longer than the buffer is cut, the sentence still says
 * where.
 */
static const char *field_path(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static const char *field_path(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return buf;
}

/* A value as a sentence quotes it: -5, 1e+308, the string "5", an object. */
static const char *shown(const struct jv *v, char *buf, size_t len)
{
	if (!v)
		return "absent";
	switch (v->type) {
	case JV_NULL:
		return "null";
	case JV_BOOL:
		return v->boolean ? "true" : "false";
	case JV_STRING:
		snprintf(buf, len, "the string \"%.24s%s\"", v->string,
			 strlen(v->string) > 24 ? "..." : "");
		return buf;
	case JV_ARRAY:
		return "an array";
	case JV_OBJECT:
		return "an object";
	case JV_NUMBER:
		break;
	}
	if (v->is_integer)
		snprintf(buf, len, "%s%llu", v->negative ? "-" : "", v->magnitude);
	else if (v->number == floor(v->number) && fabs(v->number) < 1e21)
		/* 2^64 in digits, not 1.84467e+19; 5e0 as 5.0, not as a "5" refused */
		snprintf(buf, len, fabs(v->number) < 18446744073709551616.0 ? "%.1f" : "%.0f",
			 v->number);
	else
		snprintf(buf, len, "%g", v->number);
	return buf;
}

/* A counter: an integer from 0 to 2^64 - 1, in digits. */
static int need_count(const struct jv *v, const struct record_at *at, const char *field,
		      unsigned long long *out, char *err, size_t errlen)
{
	unsigned long long u;
	char buf[64];

	if (!jv_u64(v, &u))
		return refuse(at, err, errlen, "%s is %s, not a count (an integer from 0 to 2^64 - 1, in digits)",
			      field, shown(v, buf, sizeof(buf)));
	if (out)
		*out = u;
	return 0;
}

/* A key field of a table row: an integer of 64 bits, -1 meaning "all" (docs/json.md). */
static int need_key(const struct jv *v, const struct record_at *at, const char *field,
		    char *err, size_t errlen)
{
	char buf[64];

	if (v->type == JV_NUMBER && v->is_integer && (!v->negative || v->magnitude <= 1ULL << 63))
		return 0;
	return refuse(at, err, errlen, "%s is %s, not an integer key of 64 bits", field,
		      shown(v, buf, sizeof(buf)));
}

static int need_bool(const struct jv *v, const struct record_at *at, const char *field,
		     char *err, size_t errlen)
{
	char buf[64];

	if (v && v->type == JV_BOOL)
		return 0;
	return refuse(at, err, errlen, "%s is %s, not true or false", field, shown(v, buf, sizeof(buf)));
}

/* One of names (NULL-terminated), listed in the sentence if not. */
static int need_one_of(const struct jv *v, const char *const *names, const struct record_at *at,
		       const char *field, char *err, size_t errlen)
{
	const char *s = jv_string(v);
	char buf[64], list[160] = "";
	size_t used = 0;

	for (int i = 0; names[i]; i++) {
		if (s && !strcmp(s, names[i]))
			return 0;
		used += (size_t)snprintf(list + used, used < sizeof(list) ? sizeof(list) - used : 0,
					 "%s%s", i ? ", " : "", names[i]);
	}
	return refuse(at, err, errlen, "%s is %s, not one of %s", field, shown(v, buf, sizeof(buf)),
		      list);
}

static int need_object(const struct jv *v, const struct record_at *at, const char *field,
		       char *err, size_t errlen)
{
	char buf[64];

	if (v && v->type == JV_OBJECT)
		return 0;
	return refuse(at, err, errlen, "%s is %s, not an object", field, shown(v, buf, sizeof(buf)));
}

static int need_array(const struct jv *v, const struct record_at *at, const char *field,
		      char *err, size_t errlen)
{
	char buf[64];

	if (v && v->type == JV_ARRAY)
		return 0;
	return refuse(at, err, errlen, "%s is %s, not an array", field, shown(v, buf, sizeof(buf)));
}

static int by_string(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/*
 * A name an object has twice, or NULL. JSON allows it, but a reader
 * takes one and --compare would take the other: a metric named twice
 * would be compared twice. Sorted past a few members (a crafted object
 * of 10^6 members must not cost 10^12 comparisons).
 */
static const char *repeated_name(const struct jv *obj)
{
	const char *found = NULL;
	char **sorted;

	if (obj->n <= 16) {
		for (size_t i = 0; i < obj->n; i++)
			for (size_t k = i + 1; k < obj->n; k++)
				if (!strcmp(obj->keys[i], obj->keys[k]))
					return obj->keys[i];
		return NULL;
	}
	sorted = malloc(obj->n * sizeof(*sorted));
	if (!sorted)
		return NULL;
	memcpy(sorted, obj->keys, obj->n * sizeof(*sorted));
	qsort(sorted, obj->n, sizeof(*sorted), by_string);
	for (size_t i = 1; i < obj->n && !found; i++)
		if (!strcmp(sorted[i - 1], sorted[i]))
			found = sorted[i];
	free(sorted);
	return found;
}

static int need_unique_names(const struct jv *obj, const struct record_at *at, const char *field,
			     char *err, size_t errlen)
{
	const char *name = repeated_name(obj);

	if (!name)
		return 0;
	return refuse(at, err, errlen, "%s has two members named %s", field, name);
}

/*
 * Names as the tools write them (docs/json.md's pattern of a row's
 * fields): they are printed as they are, in 80 columns, so a name with a
 * terminal escape or a newline must not get there.
 */
static bool plain_name(const char *name)
{
	if (*name < 'a' || *name > 'z')
		return false;
	for (const char *c = name; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_'))
			return false;
	return true;
}

static int need_plain_name(const char *name, const struct record_at *at, const char *what,
			   char *err, size_t errlen)
{
	if (plain_name(name))
		return 0;
	return refuse(at, err, errlen, "%s \"%.40s\": not a name of lower-case letters, digits and _",
		      what, name);
}

static const char *const metric_tiers[] = { "fentry", "kprobe", "tp_btf", "raw_tp", "tracepoint",
					    "procfs", NULL };
/* A table is fed by BPF programs: no procfs tier. */
static const char *const table_tiers[] = { "fentry", "kprobe", "tp_btf", "raw_tp", "tracepoint",
					   NULL };
static const char *const hist_kinds[] = { "log2", "linear", NULL };
static const char *const record_types[] = { "interval", "summary", NULL };

/*
 * A histogram object: its buckets non-empty, each once, in increasing
 * order (bucket k ends before bucket k + 1 starts), only the last one
 * open-ended; what --compare merges bucket by bucket across runs.
 */
static int check_hist(const struct jv *h, const struct record_at *at, const char *field,
		      char *err, size_t errlen)
{
	static const char *const counts[] = { "count", "p50", "p90", "p99", "max" };
	unsigned long long previous_high = 0;
	const struct jv *buckets;
	char f[256];

	if (need_object(h, at, field, err, errlen) || need_unique_names(h, at, field, err, errlen))
		return -1;
	field_path(f, sizeof(f), "%s.kind", field);
	if (need_one_of(jv_get(h, "kind"), hist_kinds, at, f, err, errlen))
		return -1;
	if (!jv_string(jv_get(h, "unit")))
		return refuse(at, err, errlen, "%s.unit is %s, not a string", field,
			      shown(jv_get(h, "unit"), f, sizeof(f)));
	for (size_t i = 0; i < ARRAY_SIZE(counts); i++) {
		field_path(f, sizeof(f), "%s.%s", field, counts[i]);
		if (need_count(jv_get(h, counts[i]), at, f, NULL, err, errlen))
			return -1;
	}
	buckets = jv_get(h, "buckets");
	field_path(f, sizeof(f), "%s.buckets", field);
	if (need_array(buckets, at, f, err, errlen))
		return -1;
	if (buckets->n > COMPARE_MAX_BUCKETS)
		return refuse(at, err, errlen, "%s has %zu buckets, more than the %d --compare takes",
			      f, buckets->n, COMPARE_MAX_BUCKETS);
	for (size_t i = 0; i < buckets->n; i++) {
		const struct jv *b = &buckets->items[i], *high;
		unsigned long long low = 0, high_value = 0, count = 0;

		field_path(f, sizeof(f), "%s.buckets[%zu]", field, i);
		if (need_object(b, at, f, err, errlen) || need_unique_names(b, at, f, err, errlen))
			return -1;
		field_path(f, sizeof(f), "%s.buckets[%zu].low", field, i);
		if (need_count(jv_get(b, "low"), at, f, &low, err, errlen))
			return -1;
		high = jv_get(b, "high");
		field_path(f, sizeof(f), "%s.buckets[%zu].high", field, i);
		if (!high || high->type != JV_NULL) {
			if (need_count(high, at, f, &high_value, err, errlen))
				return -1;
			if (high_value < low)
				return refuse(at, err, errlen, "%s is %llu, below the bucket's low %llu",
					      f, high_value, low);
		} else if (i + 1 < buckets->n) {
			return refuse(at, err, errlen,
				      "%s is null (open-ended) but the bucket is not the last", f);
		}
		if (i && low <= previous_high)
			return refuse(at, err, errlen,
				      "%s.buckets[%zu] starts at %llu, not after the previous bucket's end %llu: each bucket is listed once, in increasing order",
				      field, i, low, previous_high);
		field_path(f, sizeof(f), "%s.buckets[%zu].count", field, i);
		if (need_count(jv_get(b, "count"), at, f, &count, err, errlen))
			return -1;
		if (!count)
			return refuse(at, err, errlen, "%s is 0: only non-empty buckets are listed", f);
		previous_high = high_value;
	}
	return 0;
}

/*
 * A ratio: null when its denominator is 0, else a share of it in percent:
 * at least 0, and at most what a 64-bit count over the denominator can
 * give (not 100: numa_pte_fault_pct, hint faults per PTE update, passes
 * 100 when a window's faults trap PTEs an earlier window marked). Files
 * of versions before the denominator was written have none.
 */
static int check_ratio(const struct jv *m, const struct record_at *at, const char *field,
		       char *err, size_t errlen)
{
	const struct jv *value = jv_get(m, "value"), *den = jv_get(m, "denominator");
	/* 100 (2^64 - 1): the most percent of two 64-bit counts, 1 event the least denominator. */
	const double most = 100 * 18446744073709551615.0;
	unsigned long long events = 1;
	char f[256], buf[64];
	double pct;

	field_path(f, sizeof(f), "%s.unit", field);
	if (!jv_string(jv_get(m, "unit")) || strcmp(jv_string(jv_get(m, "unit")), "percent"))
		return refuse(at, err, errlen, "%s is %s, not \"percent\"", f,
			      shown(jv_get(m, "unit"), buf, sizeof(buf)));
	field_path(f, sizeof(f), "%s.denominator", field);
	if (den && need_count(den, at, f, &events, err, errlen))
		return -1;
	field_path(f, sizeof(f), "%s.value", field);
	if (value->type == JV_NULL) {
		if (den && events)
			return refuse(at, err, errlen,
				      "%s is null over a denominator of %llu events: null is a ratio of no event",
				      f, events);
		return 0;
	}
	if (!jv_number(value, &pct) || !(pct >= 0))
		return refuse(at, err, errlen, "%s is %s, not a percentage (a number of at least 0, or null)",
			      f, shown(value, buf, sizeof(buf)));
	if (pct > most)
		return refuse(at, err, errlen, "%s is %s, more than a ratio of 64-bit counts can be", f,
			      shown(value, buf, sizeof(buf)));
	if (!den)
		return 0;
	if (!events)
		return refuse(at, err, errlen, "%s is %s over a denominator of 0: a ratio of no event is null",
			      f, shown(value, buf, sizeof(buf)));
	if (pct * (double)events / 100 > 18446744073709551615.0)
		return refuse(at, err, errlen,
			      "%s is %s%% of %llu events, more than 2^64 - 1: not a ratio of counts", f,
			      shown(value, buf, sizeof(buf)), events);
	return 0;
}

/*
 * A metric object: a tier and estimated, then a counter's value, a
 * ratio's value with unit and denominator, or a histogram.
 */
static int check_metric(const struct jv *m, const char *name, const struct record_at *at,
			char *err, size_t errlen)
{
	const struct jv *value, *hist;
	char field[160], f[256];

	field_path(field, sizeof(field), "metrics.%s", name);
	if (need_plain_name(name, at, "metrics has a member", err, errlen) ||
	    need_object(m, at, field, err, errlen) || need_unique_names(m, at, field, err, errlen))
		return -1;
	field_path(f, sizeof(f), "%s.tier", field);
	if (need_one_of(jv_get(m, "tier"), metric_tiers, at, f, err, errlen))
		return -1;
	field_path(f, sizeof(f), "%s.estimated", field);
	if (need_bool(jv_get(m, "estimated"), at, f, err, errlen))
		return -1;
	value = jv_get(m, "value");
	hist = jv_get(m, "hist");
	if (!value == !hist)
		return refuse(at, err, errlen, "%s has %s: a metric has a value or a hist", field,
			      value ? "both value and hist" : "neither value nor hist");
	if (hist) {
		if (jv_get(m, "unit") || jv_get(m, "denominator"))
			return refuse(at, err, errlen, "%s has a hist and a unit or denominator", field);
		field_path(f, sizeof(f), "%s.hist", field);
		return check_hist(hist, at, f, err, errlen);
	}
	if (jv_get(m, "unit"))
		return check_ratio(m, at, field, err, errlen);
	if (jv_get(m, "denominator"))
		return refuse(at, err, errlen, "%s has a denominator but no unit: only a ratio has one",
			      field);
	field_path(f, sizeof(f), "%s.value", field);
	return need_count(value, at, f, NULL, err, errlen);
}

/*
 * A table: rows of key fields (integers, named in by), labels (strings)
 * and counters (counts; idlebal's schedstat, an object of counts).
 */
static int check_table(const struct jv *t, const char *name, const struct record_at *at,
		       char *err, size_t errlen)
{
	const struct jv *rows, *by = jv_get(t, "by");
	char f[256];

	if (need_plain_name(name, at, "the record has a table", err, errlen) ||
	    need_unique_names(t, at, name, err, errlen))
		return -1;
	/* Each row's fields are looked up in by: a short list of names. */
	if (!jv_string(by) || strlen(by->string) > 128 ||
	    strspn(by->string, "abcdefghijklmnopqrstuvwxyz_+") != strlen(by->string) ||
	    !by->string[0] || by->string[0] == '+' || strstr(by->string, "++") ||
	    by->string[strlen(by->string) - 1] == '+')
		return refuse(at, err, errlen,
			      "%s.by is not a list of key names joined by + (as \"cpu+domain\")", name);
	field_path(f, sizeof(f), "%s.tier", name);
	if (jv_get(t, "tier") && need_one_of(jv_get(t, "tier"), table_tiers, at, f, err, errlen))
		return -1;
	field_path(f, sizeof(f), "%s.estimated", name);
	if (jv_get(t, "estimated") && need_bool(jv_get(t, "estimated"), at, f, err, errlen))
		return -1;
	field_path(f, sizeof(f), "%s.rows_dropped", name);
	if (jv_get(t, "rows_dropped") && need_count(jv_get(t, "rows_dropped"), at, f, NULL, err, errlen))
		return -1;
	rows = jv_get(t, "rows");
	field_path(f, sizeof(f), "%s.rows", name);
	if (need_array(rows, at, f, err, errlen))
		return -1;
	for (size_t r = 0; r < rows->n; r++) {
		const struct jv *row = &rows->items[r];

		field_path(f, sizeof(f), "%s.rows[%zu]", name, r);
		if (need_object(row, at, f, err, errlen) || need_unique_names(row, at, f, err, errlen))
			return -1;
		for (size_t i = 0; i < row->n; i++) {
			const struct jv *v = &row->items[i];
			const char *field = row->keys[i];

			field_path(f, sizeof(f), "%s.rows[%zu] has a field", name, r);
			if (need_plain_name(field, at, f, err, errlen))
				return -1;
			field_path(f, sizeof(f), "%s.rows[%zu].%s", name, r, field);
			if (is_key_field(by->string, field)) {
				if (need_key(v, at, f, err, errlen))
					return -1;
			} else if (v->type == JV_STRING) {
				continue;	/* a label */
			} else if (!strcmp(field, "schedstat") && v->type == JV_OBJECT) {
				if (need_unique_names(v, at, f, err, errlen))
					return -1;
				for (size_t k = 0; k < v->n; k++) {
					char g[320];

					field_path(g, sizeof(g), "%s.%s", f, v->keys[k]);
					if (need_count(&v->items[k], at, g, NULL, err, errlen))
						return -1;
				}
			} else if (need_count(v, at, f, NULL, err, errlen)) {
				return -1;
			}
		}
	}
	return 0;
}

/* A record's own fields, its metrics and its tables (type, tool and metrics are there). */
static int check_record(const struct jv *record, const struct record_at *at, char *err,
			size_t errlen)
{
	const struct jv *metrics = jv_get(record, "metrics"), *duration = jv_get(record, "duration_s");
	bool summary;
	char buf[64];
	double seconds;

	if (need_unique_names(record, at, "the record", err, errlen) ||
	    need_one_of(jv_get(record, "type"), record_types, at, "type", err, errlen))
		return -1;
	summary = !strcmp(jv_string(jv_get(record, "type")), "summary");
	/*
	 * Counters are compared per second of the summary's duration: the
	 * tools write it in µs, so a positive one is at least 1 µs (a
	 * crafted 1e-300 would make any count a rate of 10^300).
	 */
	if (summary || duration) {
		if (!jv_number(duration, &seconds) || !isfinite(seconds) || seconds < 0 ||
		    (summary && seconds < 1e-6))
			return refuse(at, err, errlen, "duration_s is %s, not the %s's length in seconds%s",
				      shown(duration, buf, sizeof(buf)), summary ? "run" : "interval",
				      summary ? " (at least 0.000001)" : "");
	}
	if (metrics->n > COMPARE_MAX_METRICS)
		return refuse(at, err, errlen, "metrics has %zu members, more than the %d --compare takes",
			      metrics->n, COMPARE_MAX_METRICS);
	if (need_unique_names(metrics, at, "metrics", err, errlen))
		return -1;
	for (size_t i = 0; i < metrics->n; i++)
		if (check_metric(&metrics->items[i], metrics->keys[i], at, err, errlen))
			return -1;
	/* What compute() takes for a table: an object with rows or by. */
	for (size_t i = 0; i < record->n; i++) {
		const struct jv *t = &record->items[i];

		if (t->type == JV_OBJECT && (jv_get(t, "rows") || jv_get(t, "by")) &&
		    check_table(t, record->keys[i], at, err, errlen))
			return -1;
	}
	return 0;
}

/* ---------------------------------------------------------------- loading */

struct run_reader {
	struct compare_run *run;
	const char *tool;
	int summaries;
};

/* One line of a run's file: a schedscan record of the tool, valid; the summary is kept. */
static int load_line(const char *line, size_t len, size_t line_no, void *ctx, char *err,
		     size_t errlen)
{
	struct run_reader *reader = ctx;
	struct compare_run *run = reader->run;
	const struct record_at at = { run->file, line_no };
	const char *type, *their_tool;
	struct jv record;
	char why[200];

	if (!len)
		return 0;
	if (jv_parse_bounded(line, len, COMPARE_MAX_VALUES, &record, why, sizeof(why)))
		return errmsg(err, errlen, "%s is not schedscan output: line %zu: %s", run->file,
			      line_no, why);
	type = jv_string(jv_get(&record, "type"));
	their_tool = jv_string(jv_get(&record, "tool"));
	if (!type || !their_tool || !jv_get(&record, "metrics") ||
	    jv_get(&record, "metrics")->type != JV_OBJECT) {
		jv_free(&record);
		return errmsg(err, errlen,
			      "%s is not schedscan output: line %zu is not a record of a run (no type, tool or metrics)",
			      run->file, line_no);
	}
	if (strcmp(their_tool, reader->tool)) {
		errmsg(err, errlen, "%s is %s output: %s compares runs of %s only", run->file,
		       their_tool, reader->tool, reader->tool);
		jv_free(&record);
		return -1;
	}
	if (check_record(&record, &at, err, errlen)) {
		jv_free(&record);
		return -1;
	}
	if (strcmp(type, "summary")) {
		jv_free(&record);
		return 0;
	}
	if (++reader->summaries > 1) {
		jv_free(&record);
		return errmsg(err, errlen,
			      "%s holds more than one run (summary records at lines %zu and %zu): one run per file",
			      run->file, run->summary_line, line_no);
	}
	run->summary = record;
	run->summary_line = line_no;
	return 0;
}

/* One file: its lines are schedscan records of tool, with one summary. */
static int load_run(struct compare_run *run, const char *tool, char *err, size_t errlen)
{
	struct run_reader reader = { .run = run, .tool = tool };

	if (compare_read_lines(run->file, COMPARE_MAX_FILE_MIB * MIB, COMPARE_MAX_LINE_MIB * MIB,
			       load_line, &reader, err, errlen))
		return -1;
	if (!reader.summaries)
		return errmsg(err, errlen,
			      "%s has no summary record: not a complete run of %s --json", run->file, tool);
	return jv_number(jv_get(&run->summary, "duration_s"), &run->duration_s) ? 0 : -1;
}

static const struct jv *metrics_of(const struct compare_run *run)
{
	return jv_get(&run->summary, "metrics");
}

/* Names in one metric object and not in the other: the first, or NULL. */
static const char *missing_metric(const struct jv *from, const struct jv *in)
{
	for (size_t i = 0; i < from->n; i++)
		if (!jv_get(in, from->keys[i]))
			return from->keys[i];
	return NULL;
}

/* How compute() takes a metric. */
static const char *metric_kind(const struct jv *m)
{
	if (jv_get(m, "hist"))
		return "a histogram";
	return jv_get(m, "unit") ? "a ratio" : "a counter";
}

static const char *string_or_absent(const struct jv *v)
{
	return jv_string(v) ? jv_string(v) : "absent";
}

/* A field of one run that must be as the first A run's: its sentence if not. */
static int same_as_first(const char *mine, const char *theirs, const struct compare_run *run,
			 const struct compare_run *first, const char *field, char *err,
			 size_t errlen)
{
	const struct record_at at = { run->file, run->summary_line };

	if (!strcmp(mine, theirs))
		return 0;
	return refuse(&at, err, errlen,
		      "%s is %s where %s line %zu has %s: compare runs of one configuration and kernel tier",
		      field, mine, first->file, first->summary_line, theirs);
}

/*
 * Every run's metrics measured as the first A run's: the same kind,
 * tier, histogram kind and unit; its tables by the same tiers. Another
 * tier counts other events (a tracepoint's estimate, a kprobe's
 * measure), and the metric set alone does not tell (fentry and kprobe
 * measure the same metrics): docs/json.md refuses runs of another tier.
 */
static int same_measurement(const struct compare_run *first, const struct compare_run *run,
			    char *err, size_t errlen)
{
	const struct jv *metrics = metrics_of(first), *summary = &first->summary;
	char field[256];

	for (size_t i = 0; i < metrics->n; i++) {
		const struct jv *theirs = &metrics->items[i];
		const struct jv *mine = jv_get(metrics_of(run), metrics->keys[i]);

		field_path(field, sizeof(field), "metrics.%s", metrics->keys[i]);
		if (same_as_first(metric_kind(mine), metric_kind(theirs), run, first, field, err,
				  errlen))
			return -1;
		field_path(field, sizeof(field), "metrics.%s.tier", metrics->keys[i]);
		if (same_as_first(jv_string(jv_get(mine, "tier")), jv_string(jv_get(theirs, "tier")),
				  run, first, field, err, errlen))
			return -1;
		if (!jv_get(theirs, "hist"))
			continue;
		for (int k = 0; k < 2; k++) {
			const char *part = k ? "unit" : "kind";

			field_path(field, sizeof(field), "metrics.%s.hist.%s", metrics->keys[i], part);
			if (same_as_first(jv_string(jv_get(jv_get(mine, "hist"), part)),
					  jv_string(jv_get(jv_get(theirs, "hist"), part)), run, first,
					  field, err, errlen))
				return -1;
		}
	}
	for (size_t i = 0; i < summary->n; i++) {
		const struct jv *theirs = &summary->items[i];
		const struct jv *mine = jv_get(&run->summary, summary->keys[i]);

		if (theirs->type != JV_OBJECT || !jv_get(theirs, "rows") || !mine ||
		    mine->type != JV_OBJECT || !jv_get(mine, "rows"))
			continue;
		field_path(field, sizeof(field), "%s.tier", summary->keys[i]);
		if (same_as_first(string_or_absent(jv_get(mine, "tier")),
				  string_or_absent(jv_get(theirs, "tier")), run, first, field, err,
				  errlen))
			return -1;
	}
	return 0;
}

/* A bucket of one run, where it comes from. */
struct run_bucket {
	struct bucket_pair range;
	const struct compare_run *run;
	size_t index;
};

static int by_range(const void *x, const void *y)
{
	const struct bucket_pair *a = &((const struct run_bucket *)x)->range;
	const struct bucket_pair *b = &((const struct run_bucket *)y)->range;

	if (a->low != b->low)
		return a->low < b->low ? -1 : 1;
	if (a->open != b->open)
		return a->open ? 1 : -1;
	return a->high < b->high ? -1 : a->high > b->high;
}

/*
 * A histogram's buckets, pooled over every run, still buckets: the same
 * bounds in every run that has a bucket (each run's are in order, checked
 * as it was read), or --compare would add a run's 2-3 to another's 2-2.
 */
static int buckets_agree(const struct compare *c, const char *name, char *err, size_t errlen)
{
	struct run_bucket *all = NULL;
	size_t nr = 0, cap = 0;
	int ret = 0;

	for (int side = 0; side < 2; side++) {
		const struct compare_run *runs = side ? c->b : c->a;
		int nr_runs = side ? c->nr_b : c->nr_a;

		for (int r = 0; r < nr_runs; r++) {
			const struct jv *b = jv_get(jv_get(jv_get(metrics_of(&runs[r]), name), "hist"),
						   "buckets");

			for (size_t i = 0; i < b->n; i++) {
				const struct jv *high = jv_get(&b->items[i], "high");
				struct run_bucket *at;

				if (grow_array((void **)&all, &cap, nr + 1, sizeof(*all))) {
					free(all);
					return errmsg(err, errlen, "out of memory");
				}
				at = &all[nr++];
				memset(at, 0, sizeof(*at));
				jv_u64(jv_get(&b->items[i], "low"), &at->range.low);
				at->range.open = !jv_u64(high, &at->range.high);
				at->run = &runs[r];
				at->index = i;
			}
		}
	}
	if (nr)
		qsort(all, nr, sizeof(*all), by_range);
	for (size_t k = 1; k < nr && !ret; k++) {
		const struct run_bucket *before = &all[k - 1], *now = &all[k];
		bool same = !by_range(before, now);

		if (same || (!before->range.open && before->range.high < now->range.low))
			continue;
		const struct record_at at = { now->run->file, now->run->summary_line };
		char mine[48], theirs[48];

		fmt_range(&now->range, mine, sizeof(mine));
		fmt_range(&before->range, theirs, sizeof(theirs));
		ret = refuse(&at, err, errlen,
			     "metrics.%s.hist.buckets[%zu] is %s where %s line %zu has %s: compare runs of one configuration",
			     name, now->index, mine, before->run->file, before->run->summary_line,
			     theirs);
	}
	free(all);
	return ret;
}

static int load_side(struct compare_run **runs, int *nr, const struct compare_side *side,
		     const char *tool, char *err, size_t errlen)
{
	*runs = calloc((size_t)side->nr_files, sizeof(**runs));
	if (!*runs)
		return errmsg(err, errlen, "out of memory");
	for (int i = 0; i < side->nr_files; i++) {
		(*runs)[i].file = side->files[i];
		*nr = i + 1;
		if (load_run(&(*runs)[i], tool, err, errlen))
			return -1;
	}
	return 0;
}

int compare_load(struct compare *c, const char *tool, const struct compare_side *a,
		 const struct compare_side *b, char *err, size_t errlen)
{
	const struct compare_run *first;

	memset(c, 0, sizeof(*c));
	c->tool = tool;
	if (a->nr_files < 1 || b->nr_files < 1)
		return errmsg(err, errlen,
			       "needs runs on both sides: A.jsonl [A2.jsonl ...] -- B.jsonl [B2.jsonl ...]");
	if (load_side(&c->a, &c->nr_a, a, tool, err, errlen) ||
	    load_side(&c->b, &c->nr_b, b, tool, err, errlen))
		return -1;
	first = &c->a[0];
	for (int side = 0; side < 2; side++) {
		const struct compare_run *runs = side ? c->b : c->a;
		int nr = side ? c->nr_b : c->nr_a;

		for (int i = 0; i < nr; i++) {
			const char *name = missing_metric(metrics_of(first), metrics_of(&runs[i]));
			const char *lacking = runs[i].file;

			if (!name) {
				name = missing_metric(metrics_of(&runs[i]), metrics_of(first));
				lacking = first->file;
			}
			if (name)
				return errmsg(err, errlen,
					       "%s and %s measured different metrics (%s has no %s): compare runs of one configuration and kernel tier",
					       first->file, runs[i].file, lacking, name);
			if (same_measurement(first, &runs[i], err, errlen))
				return -1;
		}
	}
	for (size_t i = 0; i < metrics_of(first)->n; i++)
		if (jv_get(&metrics_of(first)->items[i], "hist") &&
		    buckets_agree(c, metrics_of(first)->keys[i], err, errlen))
			return -1;
	return 0;
}

void compare_free(struct compare *c)
{
	for (int i = 0; i < c->nr_a; i++)
		jv_free(&c->a[i].summary);
	for (int i = 0; i < c->nr_b; i++)
		jv_free(&c->b[i].summary);
	free(c->a);
	free(c->b);
	memset(c, 0, sizeof(*c));
}

/* ------------------------------------------------------------- computing */

struct sample {
	double *values;
	double *seconds;	/* each value's run's duration_s */
	/* Ratios: each value's denominator, the events it is a share of (0: unknown). */
	double *denominators;
	int n;
	double mean, sd;
};

/* Whether the runs differ at all (beyond the rounding of their mean). */
static bool spread(const struct sample *s)
{
	return s->sd > 1e-9 * (fabs(s->mean) + 1);
}

struct scalar_cmp {
	const char *name;
	bool percent;		/* a ratio in percent; else a counter per second */
	struct sample a, b;
	double change;		/* percent metrics: points; counters: % of A */
	/*
	 * Each side's least variance of a run's value: Poisson for a count
	 * of events, binomial for a ratio whose runs give its denominator.
	 */
	double min_var_a, min_var_b;
	bool tested, significant;
	double p, p_adjusted;
};

struct hist_side {
	double count;
	unsigned long long p50, p90, p99;
	/* The percentile fell in the open last bucket: its lower bound. */
	bool p50_open, p90_open, p99_open;
};

struct hist_cmp {
	const char *name, *unit, *kind;
	struct bucket_pair *buckets;
	size_t nr_buckets;
	struct hist_side a, b;
	double chi2, df, chi2_p, p, p_adjusted, cramers_v;
	/* Two runs or more a side: the runs' means, tested with Welch's t. */
	struct sample mean_a, mean_b;
	bool by_runs;
	bool tested, significant;
};

struct row_change {
	const char *table, *counter;
	char key[96], label[64];
	double a, b, score;
	/*
	 * Per side (0 A, 1 B): the lowest and highest per-run rate among the
	 * runs that have the row, and how many do (the others count 0).
	 * separation: how far the two sides' ranges lie apart, over the larger
	 * side's highest (> 0: every B run beyond every A run). Rows whose runs
	 * do not overlap come first: a one-row table's counter moves by all of
	 * its total (score 1) whether one noisy run or every run moved it.
	 */
	double lo[2], hi[2], separation;
	int runs_seen[2];
};

struct comparison {
	struct scalar_cmp *scalars;
	size_t nr_scalars;
	struct hist_cmp *hists;
	size_t nr_hists;
	struct row_change *rows;
	size_t nr_rows, cap_rows;
	/* Open addressing over rows: index + 1, 0 empty (tables of 10^4 rows). */
	size_t *index, index_size;
	size_t nr_tests;
};

static void sample_free(struct sample *s)
{
	free(s->values);
	free(s->seconds);
	free(s->denominators);
}

/* The metric's value in one run (counters per second); false if it has none. */
static bool run_value(const struct compare_run *run, const char *name, bool percent,
		      double *out)
{
	const struct jv *m = jv_get(metrics_of(run), name);
	double v;

	if (!jv_number(jv_get(m, "value"), &v))
		return false;
	*out = percent ? v : v / run->duration_s;
	return true;
}

/* What a sample reads from one run; false if the run has no such value. */
typedef bool (*run_reader)(const struct compare_run *run, const char *name, double *out);

static bool run_rate(const struct compare_run *run, const char *name, double *out)
{
	return run_value(run, name, false, out);
}

static bool run_ratio(const struct compare_run *run, const char *name, double *out)
{
	return run_value(run, name, true, out);
}

/* What a side's runs are weighed by: rates by seconds, ratios by denominators. */
static const double *weights_of(const struct sample *s, bool ratio)
{
	return ratio ? s->denominators : s->seconds;
}

/*
 * Both sides' runs together, each value weighed by its run's weight: the
 * common value if nothing changed (events per second, under which a run
 * of d seconds gives a rate of variance rate / d, a Poisson count; a
 * ratio's share, whose run over n events varies by p (1 - p) / n). -1 if
 * a run has no weight: a ratio of a file without denominators (older
 * versions).
 */
static double pooled_mean(const struct sample *a, const struct sample *b, bool ratio)
{
	double sum = 0, weight = 0;

	for (int side = 0; side < 2; side++) {
		const struct sample *s = side ? b : a;
		const double *w = weights_of(s, ratio);

		for (int i = 0; i < s->n; i++) {
			if (w[i] <= 0)
				return -1;
			sum += s->values[i] * w[i];
			weight += w[i];
		}
	}
	return weight > 0 ? sum / weight : -1;
}

/* The mean of 1 / weight over a side's runs. */
static double mean_inverse(const struct sample *s, bool ratio)
{
	const double *w = weights_of(s, ratio);
	double sum = 0;

	for (int i = 0; i < s->n; i++)
		sum += 1 / w[i];
	return s->n ? sum / s->n : 0;
}

/* One value per run that has it (read), with their mean and sd. */
static int fill_sample(struct sample *s, const struct compare_run *runs, int nr,
		       const char *name, run_reader read)
{
	s->values = calloc((size_t)nr + 1, sizeof(double));
	s->seconds = calloc((size_t)nr + 1, sizeof(double));
	s->denominators = calloc((size_t)nr + 1, sizeof(double));
	if (!s->values || !s->seconds || !s->denominators)
		return -1;
	for (int i = 0; i < nr; i++) {
		if (!read(&runs[i], name, &s->values[s->n]))
			continue;
		s->seconds[s->n] = runs[i].duration_s;
		if (!jv_number(jv_get(jv_get(metrics_of(&runs[i]), name), "denominator"),
			       &s->denominators[s->n]))
			s->denominators[s->n] = 0;
		s->n++;
	}
	stats_mean_sd(s->values, (size_t)s->n, &s->mean, &s->sd);
	return 0;
}

static int add_bucket(struct hist_cmp *h, size_t *cap, unsigned long long low,
		      unsigned long long high, bool open, double count, bool side_b)
{
	size_t i;

	for (i = 0; i < h->nr_buckets; i++)
		if (h->buckets[i].low == low)
			break;
	if (i == h->nr_buckets) {
		if (h->nr_buckets == *cap) {
			size_t n = *cap ? *cap * 2 : 16;
			struct bucket_pair *bigger = realloc(h->buckets, n * sizeof(*bigger));

			if (!bigger)
				return -1;
			h->buckets = bigger;
			*cap = n;
		}
		h->buckets[i] = (struct bucket_pair){ .low = low, .high = high, .open = open };
		h->nr_buckets++;
	}
	if (side_b)
		h->buckets[i].b += count;
	else
		h->buckets[i].a += count;
	return 0;
}

static int by_low(const void *x, const void *y)
{
	const struct bucket_pair *a = x, *b = y;

	return a->low < b->low ? -1 : a->low > b->low;
}

/* Nearest-rank percentile as the tools give it: the upper bound of its bucket. */
static unsigned long long merged_percentile(const struct hist_cmp *h, bool side_b,
					    double total, double p, bool *open)
{
	double rank = ceil(p * total), seen = 0;

	if (rank < 1)
		rank = 1;
	*open = false;
	for (size_t i = 0; i < h->nr_buckets; i++) {
		seen += side_b ? h->buckets[i].b : h->buckets[i].a;
		if (seen >= rank) {
			*open = h->buckets[i].open;
			return h->buckets[i].open ? h->buckets[i].low : h->buckets[i].high;
		}
	}
	return 0;
}

static void hist_side_fill(struct hist_cmp *h, bool side_b)
{
	struct hist_side *s = side_b ? &h->b : &h->a;

	s->count = 0;
	for (size_t i = 0; i < h->nr_buckets; i++)
		s->count += side_b ? h->buckets[i].b : h->buckets[i].a;
	s->p50 = merged_percentile(h, side_b, s->count, 0.50, &s->p50_open);
	s->p90 = merged_percentile(h, side_b, s->count, 0.90, &s->p90_open);
	s->p99 = merged_percentile(h, side_b, s->count, 0.99, &s->p99_open);
}

/* A run's histogram mean: each bucket at its middle (an open bucket at its low bound). */
static bool run_hist_mean(const struct compare_run *run, const char *name, double *out)
{
	const struct jv *b = jv_get(jv_get(jv_get(metrics_of(run), name), "hist"), "buckets");
	double sum = 0, n = 0;

	for (size_t i = 0; b && b->type == JV_ARRAY && i < b->n; i++) {
		unsigned long long low, high, count;
		double mid;

		if (!jv_u64(jv_get(&b->items[i], "low"), &low) ||
		    !jv_u64(jv_get(&b->items[i], "count"), &count))
			continue;
		mid = jv_u64(jv_get(&b->items[i], "high"), &high) ? ((double)low + (double)high) / 2 :
								     (double)low;
		sum += mid * (double)count;
		n += (double)count;
	}
	if (n <= 0)
		return false;
	*out = sum / n;
	return true;
}

static int fill_hist(struct hist_cmp *h, const struct compare *c)
{
	size_t cap = 0;
	double *a, *b;

	for (int side = 0; side < 2; side++) {
		const struct compare_run *runs = side ? c->b : c->a;
		int nr = side ? c->nr_b : c->nr_a;

		for (int r = 0; r < nr; r++) {
			const struct jv *hist = jv_get(jv_get(metrics_of(&runs[r]), h->name), "hist");
			const struct jv *buckets = jv_get(hist, "buckets");

			if (!h->unit)
				h->unit = jv_string(jv_get(hist, "unit"));
			if (!h->kind)
				h->kind = jv_string(jv_get(hist, "kind"));
			for (size_t i = 0; buckets && buckets->type == JV_ARRAY && i < buckets->n; i++) {
				const struct jv *bk = &buckets->items[i];
				unsigned long long low, high = 0, count;
				bool open = jv_get(bk, "high") && jv_get(bk, "high")->type == JV_NULL;

				if (!jv_u64(jv_get(bk, "low"), &low) || !jv_u64(jv_get(bk, "count"), &count) ||
				    (!open && !jv_u64(jv_get(bk, "high"), &high)))
					continue;
				if (add_bucket(h, &cap, low, high, open, (double)count, side))
					return -1;
			}
		}
	}
	qsort(h->buckets, h->nr_buckets, sizeof(*h->buckets), by_low);
	hist_side_fill(h, false);
	hist_side_fill(h, true);
	a = calloc(h->nr_buckets + 1, sizeof(double));
	b = calloc(h->nr_buckets + 1, sizeof(double));
	if (!a || !b) {
		free(a);
		free(b);
		return -1;
	}
	for (size_t i = 0; i < h->nr_buckets; i++) {
		a[i] = h->buckets[i].a;
		b[i] = h->buckets[i].b;
	}
	h->chi2_p = stats_chi2_homogeneity(a, b, h->nr_buckets, &h->chi2, &h->df);
	/* Cramer's V of a 2 x k table: sqrt(chi2 / N). */
	h->cramers_v = h->a.count + h->b.count > 0 ? sqrt(h->chi2 / (h->a.count + h->b.count)) : 0;
	free(a);
	free(b);
	/*
	 * Only runs tell a change from run-to-run noise, as for the counters:
	 * pooled buckets see the counting noise of one long sample only, and
	 * two runs of one workload differ by more than that (a host run saw
	 * scan_depth "change" between two sets of the same ping-pong; a guest
	 * run, 8 histograms between two runs of one saturated LLC). With one
	 * run a side the chi-squared test is printed, not used for a mark.
	 */
	if (fill_sample(&h->mean_a, c->a, c->nr_a, h->name, run_hist_mean) ||
	    fill_sample(&h->mean_b, c->b, c->nr_b, h->name, run_hist_mean))
		return -1;
	if (h->mean_a.n >= 2 && h->mean_b.n >= 2) {
		h->by_runs = true;
		h->tested = true;
		h->p = stats_welch(h->mean_a.values, (size_t)h->mean_a.n, h->mean_b.values,
				   (size_t)h->mean_b.n, NULL, NULL);
	}
	return 0;
}

/* The identity of a row: its key fields, "llc=0" or "domain=1 idle_type=2". */
static void row_identity(const struct jv *row, const char *by, char *key, size_t keylen,
			 char *label, size_t labellen)
{
	size_t used = 0;

	key[0] = label[0] = '\0';
	for (size_t i = 0; i < row->n; i++) {
		const struct jv *v = &row->items[i];
		unsigned long long u;
		double d;

		if (v->type == JV_STRING && !label[0])
			snprintf(label, labellen, "%s", v->string);
		if (!is_key_field(by, row->keys[i]) || v->type != JV_NUMBER)
			continue;
		if (jv_u64(v, &u))
			used += (size_t)snprintf(key + used, used < keylen ? keylen - used : 0, "%s%s=%llu",
						 used ? " " : "", row->keys[i], u);
		else if (jv_number(v, &d))
			used += (size_t)snprintf(key + used, used < keylen ? keylen - used : 0, "%s%s=%.0f",
						 used ? " " : "", row->keys[i], d);
	}
}

static size_t row_hash(const char *table, const char *counter, const char *key)
{
	/* FNV-1a over the three names. */
	size_t h = 1469598103934665603ULL;
	const char *parts[3] = { table, counter, key };

	for (int p = 0; p < 3; p++) {
		for (const char *c = parts[p]; *c; c++)
			h = (h ^ (unsigned char)*c) * 1099511628211ULL;
		h = (h ^ 0xff) * 1099511628211ULL;
	}
	return h;
}

static bool row_is(const struct row_change *r, const char *table, const char *counter,
		   const char *key)
{
	return r->table == table && !strcmp(r->counter, counter) && !strcmp(r->key, key);
}

static int index_grow(struct comparison *cmp)
{
	size_t n = cmp->index_size ? cmp->index_size * 2 : 256;
	size_t *index = calloc(n, sizeof(*index));

	if (!index)
		return -1;
	for (size_t i = 0; i < cmp->nr_rows; i++) {
		const struct row_change *r = &cmp->rows[i];
		size_t at = row_hash(r->table, r->counter, r->key) & (n - 1);

		while (index[at])
			at = (at + 1) & (n - 1);
		index[at] = i + 1;
	}
	free(cmp->index);
	cmp->index = index;
	cmp->index_size = n;
	return 0;
}

static struct row_change *row_slot(struct comparison *cmp, const char *table,
				   const char *counter, const char *key, const char *label)
{
	size_t at;

	if (2 * (cmp->nr_rows + 1) > cmp->index_size && index_grow(cmp))
		return NULL;
	at = row_hash(table, counter, key) & (cmp->index_size - 1);
	for (; cmp->index[at]; at = (at + 1) & (cmp->index_size - 1))
		if (row_is(&cmp->rows[cmp->index[at] - 1], table, counter, key))
			return &cmp->rows[cmp->index[at] - 1];
	if (cmp->nr_rows == cmp->cap_rows) {
		size_t n = cmp->cap_rows ? cmp->cap_rows * 2 : 64;
		struct row_change *bigger = realloc(cmp->rows, n * sizeof(*bigger));

		if (!bigger)
			return NULL;
		cmp->rows = bigger;
		cmp->cap_rows = n;
	}
	struct row_change *r = &cmp->rows[cmp->nr_rows];

	memset(r, 0, sizeof(*r));
	r->table = table;
	r->counter = counter;
	snprintf(r->key, sizeof(r->key), "%s", key);
	snprintf(r->label, sizeof(r->label), "%s", label);
	cmp->index[at] = ++cmp->nr_rows;
	return r;
}

/* Per table and counter: each row's mean rate on each side, scored by its share of the table. */
static int fill_table(struct comparison *cmp, const struct compare *c, const char *table)
{
	size_t first = cmp->nr_rows;

	for (int side = 0; side < 2; side++) {
		const struct compare_run *runs = side ? c->b : c->a;
		int nr = side ? c->nr_b : c->nr_a;

		for (int r = 0; r < nr; r++) {
			const struct jv *t = jv_get(&runs[r].summary, table);
			const struct jv *rows = jv_get(t, "rows");
			const char *by = jv_string(jv_get(t, "by"));

			if (!rows || rows->type != JV_ARRAY || !by)
				continue;
			for (size_t i = 0; i < rows->n; i++) {
				const struct jv *row = &rows->items[i];
				char key[96], label[64];

				row_identity(row, by, key, sizeof(key), label, sizeof(label));
				for (size_t k = 0; k < row->n; k++) {
					unsigned long long v;
					struct row_change *slot;

					if (is_key_field(by, row->keys[k]) || !jv_u64(&row->items[k], &v))
						continue;
					double rate = (double)v / runs[r].duration_s;

					slot = row_slot(cmp, table, row->keys[k], key, label);
					if (!slot)
						return -1;
					if (side)
						slot->b += rate / nr;
					else
						slot->a += rate / nr;
					if (!slot->runs_seen[side]++ || rate < slot->lo[side])
						slot->lo[side] = rate;
					if (slot->runs_seen[side] == 1 || rate > slot->hi[side])
						slot->hi[side] = rate;
				}
			}
		}
	}
	for (size_t i = first; i < cmp->nr_rows; i++) {
		struct row_change *row = &cmp->rows[i];
		double top;

		for (int side = 0; side < 2; side++)
			if (row->runs_seen[side] < (side ? c->nr_b : c->nr_a))
				row->lo[side] = fmin(row->lo[side], 0);
		top = fmax(row->hi[0], row->hi[1]);
		row->separation = top > 0 ? fmax(row->lo[1] - row->hi[0], row->lo[0] - row->hi[1]) / top : 0;
	}
	/* A row's change as a share of its counter's table total (the larger side's). */
	struct counter_total {
		const char *counter;
		double a, b;
	} totals[TABLE_COUNTERS_MAX];
	size_t nr_totals = 0, k;

	for (size_t i = first; i < cmp->nr_rows; i++) {
		for (k = 0; k < nr_totals && strcmp(totals[k].counter, cmp->rows[i].counter); k++)
			;
		if (k == nr_totals) {
			if (nr_totals == TABLE_COUNTERS_MAX)
				continue;
			totals[nr_totals++] = (struct counter_total){ cmp->rows[i].counter, 0, 0 };
		}
		totals[k].a += cmp->rows[i].a;
		totals[k].b += cmp->rows[i].b;
	}
	for (size_t i = first; i < cmp->nr_rows; i++) {
		double total = 0;

		for (k = 0; k < nr_totals; k++)
			if (!strcmp(totals[k].counter, cmp->rows[i].counter))
				total = fmax(totals[k].a, totals[k].b);
		cmp->rows[i].score = total > 0 ? fabs(cmp->rows[i].b - cmp->rows[i].a) / total : 0;
	}
	return 0;
}

static int by_score(const void *x, const void *y)
{
	const struct row_change *a = x, *b = y;

	if ((a->separation > 0) != (b->separation > 0))
		return a->separation > 0 ? -1 : 1;
	if (a->score != b->score)
		return a->score > b->score ? -1 : 1;
	return strcmp(a->key, b->key);
}

static void comparison_free(struct comparison *cmp)
{
	for (size_t i = 0; i < cmp->nr_scalars; i++) {
		sample_free(&cmp->scalars[i].a);
		sample_free(&cmp->scalars[i].b);
	}
	for (size_t i = 0; i < cmp->nr_hists; i++) {
		free(cmp->hists[i].buckets);
		sample_free(&cmp->hists[i].mean_a);
		sample_free(&cmp->hists[i].mean_b);
	}
	free(cmp->scalars);
	free(cmp->hists);
	free(cmp->rows);
	free(cmp->index);
	memset(cmp, 0, sizeof(*cmp));
}

static int compute(struct comparison *cmp, const struct compare *c)
{
	const struct jv *metrics = metrics_of(&c->a[0]);
	const struct jv *summary = &c->a[0].summary;
	double *p;
	size_t k = 0;

	memset(cmp, 0, sizeof(*cmp));
	cmp->scalars = calloc(metrics->n + 1, sizeof(*cmp->scalars));
	cmp->hists = calloc(metrics->n + 1, sizeof(*cmp->hists));
	if (!cmp->scalars || !cmp->hists)
		goto oom;
	for (size_t i = 0; i < metrics->n; i++) {
		const struct jv *m = &metrics->items[i];
		const char *name = metrics->keys[i];

		if (jv_get(m, "hist")) {
			struct hist_cmp *h = &cmp->hists[cmp->nr_hists++];

			h->name = name;
			if (fill_hist(h, c))
				goto oom;
			continue;
		}
		struct scalar_cmp *s = &cmp->scalars[cmp->nr_scalars++];

		s->name = name;
		s->percent = jv_string(jv_get(m, "unit")) != NULL;
		if (fill_sample(&s->a, c->a, c->nr_a, name, s->percent ? run_ratio : run_rate) ||
		    fill_sample(&s->b, c->b, c->nr_b, name, s->percent ? run_ratio : run_rate))
			goto oom;
		if (s->percent)
			s->change = s->b.mean - s->a.mean;
		else
			s->change = s->a.mean > 0 ? 100 * (s->b.mean - s->a.mean) / s->a.mean :
				    s->b.mean > 0 ? INFINITY : 0;
		/*
		 * Welch's t weighs a difference against the runs' spread; with
		 * none on either side (a ratio of whole events that came out the
		 * same in every run: 0 against 0.1 pt) there is nothing to weigh
		 * it against, and a certain "change" would be an artefact.
		 * A count's runs spread by at least its Poisson noise, which
		 * few events can hide (0 0 0 against 1 1 1 ilb_kicks in 1 s
		 * runs: the B rates spread by their durations alone, 0.002%).
		 */
		if (!s->percent && !metric_is_duration(name)) {
			double events = pooled_mean(&s->a, &s->b, false);

			if (events > 0) {
				s->min_var_a = events * mean_inverse(&s->a, false);
				s->min_var_b = events * mean_inverse(&s->b, false);
			}
		}
		/*
		 * A ratio's runs spread by at least its binomial noise, which
		 * few runs can hide: four host runs of ~80 scans a side gave
		 * search_efficiency_pct 81.2+-1.6 against 73.26+-1.1, Holm p
		 * 0.006, where 80 scans alone spread a run by 4.7 points.
		 */
		if (s->percent) {
			double pct = pooled_mean(&s->a, &s->b, true);

			if (pct >= 0) {
				double share = fmin(pct / 100, 1);
				double var = 1e4 * share * (1 - share);

				s->min_var_a = var * mean_inverse(&s->a, true);
				s->min_var_b = var * mean_inverse(&s->b, true);
			}
		}
		if (s->a.n >= 2 && s->b.n >= 2 &&
		    (spread(&s->a) || spread(&s->b) || s->min_var_a > 0 || s->min_var_b > 0)) {
			s->tested = true;
			s->p = stats_welch_floor(s->a.values, (size_t)s->a.n, s->min_var_a,
						 s->b.values, (size_t)s->b.n, s->min_var_b,
						 NULL, NULL);
		}
	}
	for (size_t i = 0; i < summary->n; i++) {
		const struct jv *t = &summary->items[i];

		if (t->type == JV_OBJECT && jv_get(t, "rows") && jv_get(t, "by") &&
		    fill_table(cmp, c, summary->keys[i]))
			goto oom;
	}
	/* Runs without tables: no rows, and qsort() must not see NULL. */
	if (cmp->nr_rows)
		qsort(cmp->rows, cmp->nr_rows, sizeof(*cmp->rows), by_score);

	/* Holm over every test of the comparison. */
	for (size_t i = 0; i < cmp->nr_scalars; i++)
		cmp->nr_tests += cmp->scalars[i].tested;
	for (size_t i = 0; i < cmp->nr_hists; i++)
		cmp->nr_tests += cmp->hists[i].tested;
	p = calloc(cmp->nr_tests + 1, sizeof(*p));
	if (!p)
		goto oom;
	for (size_t i = 0; i < cmp->nr_scalars; i++)
		if (cmp->scalars[i].tested)
			p[k++] = cmp->scalars[i].p;
	for (size_t i = 0; i < cmp->nr_hists; i++)
		if (cmp->hists[i].tested)
			p[k++] = cmp->hists[i].p;
	stats_holm(p, k);
	k = 0;
	for (size_t i = 0; i < cmp->nr_scalars; i++) {
		struct scalar_cmp *s = &cmp->scalars[i];

		if (!s->tested)
			continue;
		s->p_adjusted = p[k++];
		s->significant = s->p_adjusted < COMPARE_ALPHA;
	}
	for (size_t i = 0; i < cmp->nr_hists; i++) {
		struct hist_cmp *h = &cmp->hists[i];

		if (!h->tested)
			continue;
		h->p_adjusted = p[k++];
		h->significant = h->p_adjusted < COMPARE_ALPHA &&
				 h->cramers_v >= COMPARE_MIN_CRAMERS_V;
	}
	free(p);
	return 0;
oom:
	comparison_free(cmp);
	return -1;
}

/* ---------------------------------------------------------------- output */

/* Four significant digits with an SI suffix: 1234 -> "1234", 123456 -> "123.5k". */
static void fmt_si(double v, char *buf, size_t len)
{
	static const char *const suffix[] = { "", "k", "M", "G", "T" };
	int i = 0;

	if (!isfinite(v)) {
		snprintf(buf, len, "-");
		return;
	}
	while (fabs(v) >= 1e4 && i < 4) {
		v /= 1000;
		i++;
	}
	snprintf(buf, len, "%.4g%s", v, suffix[i]);
}

static void fmt_side(const struct scalar_cmp *s, const struct sample *side, char *buf,
		     size_t len)
{
	char mean[24];

	if (!side->n) {
		snprintf(buf, len, "-");
		return;
	}
	fmt_si(side->mean, mean, sizeof(mean));
	if (side->n < 2)
		snprintf(buf, len, "%s", mean);
	else if (s->percent)
		snprintf(buf, len, "%s+-%.2g", mean, side->sd);
	else
		snprintf(buf, len, "%s+-%.2g%%", mean, side->mean > 0 ? 100 * side->sd / side->mean : 0);
}

static void fmt_p(bool tested, double p, char *buf, size_t len)
{
	if (!tested)
		snprintf(buf, len, "-");
	else if (p < 0.0001)
		snprintf(buf, len, "<.0001");
	else
		snprintf(buf, len, "%.4f", p);
}

/* "A: 2 runs: a1.jsonl a2.jsonl", wrapped at 78 columns. */
static void print_side(FILE *out, const char *side, const struct compare_run *runs, int nr)
{
	int col = fprintf(out, "%s: %d run%s:", side, nr, nr > 1 ? "s" : "");

	for (int i = 0; i < nr; i++) {
		int len = (int)strlen(runs[i].file) + 1;

		if (col + len > 78 && col > 4)
			col = fprintf(out, "\n   ");
		col += fprintf(out, " %s", runs[i].file);
	}
	fprintf(out, "\n");
}

static void bar(double share, double max_share, char *buf)
{
	int n = max_share > 0 ? (int)lround(BAR_WIDTH * share / max_share) : 0;

	for (int i = 0; i < BAR_WIDTH; i++)
		buf[i] = i < n ? '*' : ' ';
	buf[BAR_WIDTH] = '\0';
}

static void print_hist_side(FILE *out, const char *side, const struct hist_side *s)
{
	fprintf(out, "    %s: %.0f samples, p50 %s%llu, p90 %s%llu, p99 %s%llu\n", side, s->count,
		s->p50_open ? ">=" : "", s->p50, s->p90_open ? ">=" : "", s->p90,
		s->p99_open ? ">=" : "", s->p99);
}

static void print_hist(const struct hist_cmp *h, FILE *out)
{
	double max_share = 0;
	char p[16];

	fprintf(out, "\n%s (%s, %s buckets)%s\n", h->name, h->unit ? h->unit : "?",
		h->kind ? h->kind : "?", h->significant ? "  *changed*" : "");
	print_hist_side(out, "A", &h->a);
	print_hist_side(out, "B", &h->b);
	fmt_p(h->tested, h->p_adjusted, p, sizeof(p));
	if (h->by_runs)
		fprintf(out, "    run means %.4g+-%.2g against %.4g+-%.2g: Welch Holm p %s;\n"
			     "    pooled chi-squared %.4g, df %.0f, Cramer's V %.3f\n",
			h->mean_a.mean, h->mean_a.sd, h->mean_b.mean, h->mean_b.sd, p, h->chi2, h->df,
			h->cramers_v);
	else if (h->df > 0)
		fprintf(out, "    one run a side, not tested; chi-squared %.4g, df %.0f, p %.2g\n"
			     "    (counting noise only), Cramer's V %.3f\n",
			h->chi2, h->df, h->chi2_p, h->cramers_v);
	else
		fprintf(out, "    not tested: one run a side, under two buckets with enough samples\n");
	for (size_t i = 0; i < h->nr_buckets; i++) {
		max_share = fmax(max_share, h->a.count ? h->buckets[i].a / h->a.count : 0);
		max_share = fmax(max_share, h->b.count ? h->buckets[i].b / h->b.count : 0);
	}
	fprintf(out, "    %-17s %6s  %-18s  %6s\n", "RANGE", "A%", "", "B%");
	for (size_t i = 0; i < h->nr_buckets; i++) {
		const struct bucket_pair *bk = &h->buckets[i];
		double sa = h->a.count ? bk->a / h->a.count : 0, sb = h->b.count ? bk->b / h->b.count : 0;
		char range[40], bar_a[BAR_WIDTH + 1], bar_b[BAR_WIDTH + 1];

		fmt_range(bk, range, sizeof(range));
		bar(sa, max_share, bar_a);
		bar(sb, max_share, bar_b);
		fprintf(out, "    %-17s %6.2f |%s| %6.2f |%s|\n", range, 100 * sa, bar_a, 100 * sb,
			bar_b);
	}
}

int compare_text(const struct compare *c, FILE *out, int top)
{
	struct comparison cmp;
	size_t shown = 0;

	if (compute(&cmp, c)) {
		fprintf(stderr, "%s: out of memory comparing the runs\n", c->tool);
		return -1;
	}
	fprintf(out, "Comparing %s runs\n", c->tool);
	print_side(out, "A", c->a, c->nr_a);
	print_side(out, "B", c->b, c->nr_b);
	fprintf(out, "Counters per second of each run, ratios in %%, mean+-sd over runs;\n"
		     "* = significant: Holm-adjusted p < %g over %zu tests (Welch's t-test on\n"
		     "the runs' values, a count's spread at least its Poisson noise, a ratio's\n"
		     "its binomial noise; histograms on the runs' means), which needs 2+ runs\n"
		     "a side; histograms also need Cramer's V >= %g.\n\n",
		COMPARE_ALPHA, cmp.nr_tests, COMPARE_MIN_CRAMERS_V);
	fprintf(out, "%-26s %14s %14s %9s %7s\n", "METRIC", "A", "B", "CHANGE", "P(ADJ)");
	for (size_t i = 0; i < cmp.nr_scalars; i++) {
		const struct scalar_cmp *s = &cmp.scalars[i];
		char a[48], b[48], change[24], p[16];

		fmt_side(s, &s->a, a, sizeof(a));
		fmt_side(s, &s->b, b, sizeof(b));
		if (!s->a.n || !s->b.n || !isfinite(s->change))
			snprintf(change, sizeof(change), "-");
		else
			snprintf(change, sizeof(change), s->percent ? "%+.2fpt" : "%+.1f%%", s->change);
		fmt_p(s->tested, s->p_adjusted, p, sizeof(p));
		if (strlen(s->name) > 26)
			fprintf(out, "%s\n%-26s", s->name, "");
		else
			fprintf(out, "%-26s", s->name);
		fprintf(out, " %14s %14s %9s %7s%s\n", a, b, change, p, s->significant ? " *" : "");
	}
	for (size_t i = 0; i < cmp.nr_hists; i++)
		print_hist(&cmp.hists[i], out);
	if (cmp.nr_rows && cmp.rows[0].score > 0) {
		fprintf(out, "\nTable rows that changed most (per second; SHARE: of the counter's total)\n");
		fprintf(out, "%-30s %-21s %8s %8s %6s\n", "TABLE ROW", "COUNTER", "A", "B", "SHARE");
		for (size_t i = 0; i < cmp.nr_rows && shown < (size_t)(top > 0 ? top : COMPARE_TOP_DEFAULT); i++) {
			const struct row_change *r = &cmp.rows[i];
			char a[24], b[24], row[200];

			if (r->score <= 0)
				break;
			fmt_si(r->a, a, sizeof(a));
			fmt_si(r->b, b, sizeof(b));
			snprintf(row, sizeof(row), "%s %s%s%s", r->table, r->key, r->label[0] ? " " : "",
				 r->label);
			fprintf(out, "%-30.30s %-21.21s %8s %8s %5.1f%%\n", row, r->counter, a, b,
				100 * r->score);
			shown++;
		}
	}
	comparison_free(&cmp);
	fflush(out);
	return ferror(out) ? -1 : 0;
}

static void json_sample(struct json_writer *w, const struct sample *s)
{
	json_begin_object(w);
	json_key(w, "mean");
	json_double(w, s->n ? s->mean : NAN, 6);
	json_key(w, "sd");
	json_double(w, s->n > 1 ? s->sd : NAN, 6);
	json_key(w, "values");
	json_begin_array(w);
	for (int i = 0; i < s->n; i++)
		json_double(w, s->values[i], 6);
	json_end_array(w);
	json_end_object(w);
}

static void json_side(struct json_writer *w, const char *key, const struct compare_run *runs,
		      int nr)
{
	json_key(w, key);
	json_begin_object(w);
	json_key(w, "files");
	json_begin_array(w);
	for (int i = 0; i < nr; i++)
		json_string(w, runs[i].file);
	json_end_array(w);
	json_key(w, "runs");
	json_u64(w, (unsigned long long)nr);
	json_end_object(w);
}

static void json_test(struct json_writer *w, bool tested, double p, double p_adjusted,
		      bool significant)
{
	json_key(w, "p");
	json_double(w, tested ? p : NAN, 8);
	json_key(w, "p_adjusted");
	json_double(w, tested ? p_adjusted : NAN, 8);
	json_key(w, "significant");
	json_bool(w, significant);
}

static void json_hist_side(struct json_writer *w, const char *key, const struct hist_side *s)
{
	json_key(w, key);
	json_begin_object(w);
	json_key(w, "count");
	json_double(w, s->count, 0);
	json_key(w, "p50");
	json_u64(w, s->p50);
	json_key(w, "p90");
	json_u64(w, s->p90);
	json_key(w, "p99");
	json_u64(w, s->p99);
	json_end_object(w);
}

int compare_json(const struct compare *c, FILE *out, int top)
{
	struct comparison cmp;
	struct json_writer w;
	size_t shown = 0;
	int ret;

	if (compute(&cmp, c)) {
		fprintf(stderr, "%s: out of memory comparing the runs\n", c->tool);
		return -1;
	}
	json_init(&w);
	json_begin_object(&w);
	json_key(&w, "type");
	json_string(&w, "compare");
	json_key(&w, "tool");
	json_string(&w, c->tool);
	json_key(&w, "alpha");
	json_double(&w, COMPARE_ALPHA, 4);
	json_key(&w, "tests");
	json_u64(&w, cmp.nr_tests);
	json_side(&w, "a", c->a, c->nr_a);
	json_side(&w, "b", c->b, c->nr_b);
	json_key(&w, "metrics");
	json_begin_object(&w);
	for (size_t i = 0; i < cmp.nr_scalars; i++) {
		const struct scalar_cmp *s = &cmp.scalars[i];

		json_key(&w, s->name);
		json_begin_object(&w);
		json_key(&w, "unit");
		json_string(&w, s->percent ? "percent" : "per_second");
		json_key(&w, "a");
		json_sample(&w, &s->a);
		json_key(&w, "b");
		json_sample(&w, &s->b);
		json_key(&w, s->percent ? "change_points" : "change_pct");
		json_double(&w, s->a.n && s->b.n ? s->change : NAN, 4);
		json_key(&w, "test");
		if (s->tested)
			json_string(&w, "welch_t");
		else
			json_null(&w);
		json_key(&w, s->percent ? "binomial_sd" : "poisson_sd");
		if (s->min_var_a > 0 || s->min_var_b > 0) {
			json_begin_object(&w);
			json_key(&w, "a");
			json_double(&w, sqrt(s->min_var_a), 6);
			json_key(&w, "b");
			json_double(&w, sqrt(s->min_var_b), 6);
			json_end_object(&w);
		} else {
			json_null(&w);
		}
		json_test(&w, s->tested, s->p, s->p_adjusted, s->significant);
		json_end_object(&w);
	}
	json_end_object(&w);
	json_key(&w, "histograms");
	json_begin_object(&w);
	for (size_t i = 0; i < cmp.nr_hists; i++) {
		const struct hist_cmp *h = &cmp.hists[i];

		json_key(&w, h->name);
		json_begin_object(&w);
		json_key(&w, "kind");
		json_string(&w, h->kind ? h->kind : "log2");
		json_key(&w, "unit");
		json_string(&w, h->unit ? h->unit : "");
		json_hist_side(&w, "a", &h->a);
		json_hist_side(&w, "b", &h->b);
		json_key(&w, "buckets");
		json_begin_array(&w);
		for (size_t k = 0; k < h->nr_buckets; k++) {
			json_begin_object(&w);
			json_key(&w, "low");
			json_u64(&w, h->buckets[k].low);
			json_key(&w, "high");
			if (h->buckets[k].open)
				json_null(&w);
			else
				json_u64(&w, h->buckets[k].high);
			/* Sums over runs: doubles, which may pass 2^64 (no cast). */
			json_key(&w, "a");
			json_double(&w, h->buckets[k].a, 0);
			json_key(&w, "b");
			json_double(&w, h->buckets[k].b, 0);
			json_end_object(&w);
		}
		json_end_array(&w);
		json_key(&w, "test");
		if (h->tested)
			json_string(&w, "welch_t_run_means");
		else
			json_null(&w);
		json_key(&w, "run_means_a");
		json_sample(&w, &h->mean_a);
		json_key(&w, "run_means_b");
		json_sample(&w, &h->mean_b);
		json_key(&w, "chi2");
		json_double(&w, h->df > 0 ? h->chi2 : NAN, 4);
		json_key(&w, "df");
		json_double(&w, h->df > 0 ? h->df : NAN, 0);
		json_key(&w, "chi2_p");
		json_double(&w, h->df > 0 ? h->chi2_p : NAN, 8);
		json_key(&w, "cramers_v");
		json_double(&w, h->df > 0 ? h->cramers_v : NAN, 6);
		json_test(&w, h->tested, h->p, h->p_adjusted, h->significant);
		json_end_object(&w);
	}
	json_end_object(&w);
	json_key(&w, "rows");
	json_begin_array(&w);
	for (size_t i = 0; i < cmp.nr_rows && shown < (size_t)(top > 0 ? top : COMPARE_TOP_DEFAULT); i++) {
		const struct row_change *r = &cmp.rows[i];

		if (r->score <= 0)
			break;
		json_begin_object(&w);
		json_key(&w, "table");
		json_string(&w, r->table);
		json_key(&w, "row");
		json_string(&w, r->key);
		json_key(&w, "label");
		json_string(&w, r->label);
		json_key(&w, "counter");
		json_string(&w, r->counter);
		json_key(&w, "a");
		json_double(&w, r->a, 6);
		json_key(&w, "b");
		json_double(&w, r->b, 6);
		json_key(&w, "share_pct");
		json_double(&w, 100 * r->score, 4);
		json_end_object(&w);
		shown++;
	}
	json_end_array(&w);
	json_end_object(&w);
	ret = json_emit_line(&w, out);
	json_free(&w);
	comparison_free(&cmp);
	return ret || ferror(out) ? -1 : 0;
}

int compare_main(const char *tool, const struct compare_side *a,
		 const struct compare_side *b, bool json, int top, const char *svg_path)
{
	struct compare c;
	char err[512];
	int ret;

	if (compare_load(&c, tool, a, b, err, sizeof(err))) {
		fprintf(stderr, "%s: --compare: %s\n", tool, err);
		compare_free(&c);
		return 2;
	}
	ret = json ? compare_json(&c, stdout, top) : compare_text(&c, stdout, top);
	if (ret) {
		fprintf(stderr, "%s: writing the comparison failed: %s\n", tool,
			errno ? strerror(errno) : "short write");
		compare_free(&c);
		return 1;
	}
	if (svg_path && plot_compare_file(&c, svg_path, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", tool, err);
		compare_free(&c);
		return 1;
	}
	compare_free(&c);
	return 0;
}

int compare_from_opts(const char *tool, const struct common_opts *opts)
{
	const struct compare_side a = { opts->compare_a, opts->nr_compare_a };
	const struct compare_side b = { opts->compare_b, opts->nr_compare_b };

	return compare_main(tool, &a, &b, opts->json, opts->top, opts->svg_path);
}
