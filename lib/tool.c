// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bpfstats.h"
#include "httpd.h"
#include "mutation.h"
#include "openmetrics.h"
#include "output.h"
#include "plot.h"
#include "preflight.h"
#include "probe.h"
#include "runloop.h"
#include "tool.h"
#include "util.h"

/*
 * How long in-flight BPF programs get to finish once the bank changes or
 * counting stops, where the kernel cannot say when they have (below).
 */
#define COUNTING_DRAIN_US 5000

/*
 * Returns once every BPF program that read schedscan_run.counting before
 * the caller changed it has finished. Each tracing program runs in an RCU
 * read-side section (the trampoline's rcu_read_lock(), bpf_trace_run()'s,
 * the kprobe handler's disabled preemption), and
 * membarrier(MEMBARRIER_CMD_GLOBAL) is synchronize_rcu(): it waits for
 * them all however long one was preempted or its vCPU descheduled. A
 * fixed 5 ms was not enough in an 8-vCPU TCG guest on 2 host CPUs: one
 * hint fault's scalar and its table row fell in different readings. The
 * sleep is left for kernels that refuse the call (nohz_full: EINVAL).
 */
static void wait_for_programs_in_flight(void)
{
	if (syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0) == 0)
		return;
	usleep(COUNTING_DRAIN_US);
}

/* log2 slots needed to hold value (slot k = [2^(k-1), 2^k - 1]). */
static unsigned int log2_slots_for(unsigned long long value)
{
	unsigned int slots = 1;

	while (value) {
		value >>= 1;
		slots++;
	}
	return slots;
}

static int fail(const struct tool *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(const struct tool *t, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", t->desc.name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

static unsigned int metric_slots(const struct metric_spec *m)
{
	if (m->ratio[0])
		return 0;
	return (m->nr_slots ? m->nr_slots : 1) + (m->has_sum ? 1 : 0);
}

const struct bpf_object_open_opts *tool_open_opts(const struct common_opts *opts)
{
	static struct bpf_object_open_opts open_opts;

	open_opts = (struct bpf_object_open_opts){
		.sz = sizeof(open_opts),
		.btf_custom_path = opts->btf_path,
	};
	return &open_opts;
}

int tool_init(struct tool *t, const struct tool_desc *desc,
	      const struct common_opts *opts)
{
	memset(t, 0, sizeof(*t));
	t->desc = *desc;
	t->opts = opts;
	t->stats_fd = -1;
	pthread_mutex_init(&t->lock, NULL);
	report_init(&t->report, desc->name, probe_mode_name(opts->mode), opts->json,
		    opts->timestamp, stdout);
	if (opts->svg_path)
		t->report.capture = &t->svg_records;
	if (desc->nr_hooks > TOOL_MAX_HOOKS || desc->nr_metrics > TOOL_MAX_METRICS)
		return fail(t, "too many hooks or metrics for the tool library");
	t->now = calloc(desc->nr_counters, sizeof(*t->now));
	t->last = calloc(desc->nr_counters, sizeof(*t->last));
	t->win = calloc(desc->nr_counters, sizeof(*t->win));
	t->counted = calloc(desc->nr_counters, sizeof(*t->counted));
	t->raw = calloc(SCHEDSCAN_BANKS * desc->nr_counters, sizeof(*t->raw));
	t->bank_seen = calloc(SCHEDSCAN_BANKS * desc->nr_counters, sizeof(*t->bank_seen));
	t->bank = 1;
	if (!t->now || !t->last || !t->win || !t->counted || !t->raw || !t->bank_seen)
		return fail(t, "out of memory");
	for (int i = 0; i < desc->nr_metrics; i++) {
		const struct metric_spec *m = &desc->metrics[i];
		int ret;

		if (!m->ratio[0] && m->counter + metric_slots(m) > desc->nr_counters)
			return fail(t, "metric %s: counter out of range", m->name);
		if (m->fallback_needs && !m->ratio[0] &&
		    m->fallback_counter + metric_slots(m) > desc->nr_counters)
			return fail(t, "metric %s: fallback counter out of range", m->name);
		if (!m->nr_slots)
			continue;
		if (m->counts && !opts->linear)
			/* Enough log2 slots for the largest value, nr_slots - 1. */
			ret = hist_init_log2(&t->hists[i], log2_slots_for(m->nr_slots - 1));
		else if (m->kind == HIST_LOG2 && !m->counts)
			ret = hist_init_log2(&t->hists[i], m->nr_slots);
		else
			ret = hist_init_linear(&t->hists[i], 0, 1, m->nr_slots);
		if (ret)
			return fail(t, "histogram %s: %s", m->name, strerror(-ret));
	}
	return 0;
}

struct metric_source *tool_available_source(struct tool *t, const char *name)
{
	for (int i = 0; i < t->desc.nr_metrics; i++)
		if (!strcmp(t->desc.metrics[i].name, name))
			return t->sources[i].available ? &t->sources[i] : NULL;
	return NULL;
}

bool tool_has_hooks(const struct tool *t, unsigned int needs)
{
	for (int h = 0; h < t->desc.nr_hooks; h++)
		if ((needs & HOOK_BIT(h)) && t->hooks[h].flavour == FLAVOUR_NONE)
			return false;
	return needs != 0;
}

const char *tool_tier(const struct tool *t, unsigned int needs)
{
	enum flavour best = NR_FLAVOURS;

	for (int h = 0; h < t->desc.nr_hooks; h++)
		if ((needs & HOOK_BIT(h)) && t->hooks[h].flavour != FLAVOUR_NONE &&
		    t->hooks[h].flavour < best)
			best = t->hooks[h].flavour;
	return flavour_name(best == NR_FLAVOURS ? FLAVOUR_NONE : best);
}

static const char *missing_why(const struct tool *t, unsigned int needs)
{
	for (int h = 0; h < t->desc.nr_hooks; h++)
		if ((needs & HOOK_BIT(h)) && t->hooks[h].flavour == FLAVOUR_NONE)
			return t->hooks[h].why[0] ? t->hooks[h].why : "not attached";
	return "no hook measures it";
}

static int metric_index(const struct tool *t, const char *name, int before)
{
	for (int i = 0; i < before; i++)
		if (!strcmp(t->desc.metrics[i].name, name))
			return i;
	return -1;
}

/* The counter slot a measured metric is read from (mutation_apply). */
static int counter_of(const char *name, void *ctx)
{
	const struct tool *t = ctx;

	for (int i = 0; i < t->desc.nr_metrics; i++)
		if (!strcmp(t->desc.metrics[i].name, name) && t->sources[i].available &&
		    !t->desc.metrics[i].ratio[0])
			return (int)t->sources[i].counter;
	return -1;
}

int tool_choose_hooks(struct tool *t, struct bpf_object *obj)
{
	char err[512];

	if (hooks_prepare(obj, t->desc.hooks, t->desc.nr_hooks, t->opts, t->hooks,
			  err, sizeof(err)))
		return fail(t, "%s", err);
	for (int i = 0; i < t->desc.nr_metrics; i++) {
		const struct metric_spec *m = &t->desc.metrics[i];
		struct metric_source *src = &t->sources[i];

		memset(src, 0, sizeof(*src));
		for (int p = 0; p < 4; p++) {
			src->ratio[p] = m->ratio[p] ? metric_index(t, m->ratio[p], i) : -1;
			if (m->ratio[p] && src->ratio[p] < 0)
				return fail(t, "ratio %s: %s is not an earlier metric",
					    m->name, m->ratio[p]);
		}
		if (m->ratio[0]) {
			if (src->ratio[2] < 0)
				return fail(t, "ratio %s has no denominator", m->name);
			continue;
		}
		if (m->procfs) {
			src->available = true;
			src->tier = "procfs";
			src->counter = m->counter;
		} else if (tool_has_hooks(t, m->needs)) {
			src->available = true;
			src->tier = tool_tier(t, m->needs);
			src->counter = m->counter;
		} else if (m->fallback_needs && tool_has_hooks(t, m->fallback_needs)) {
			src->available = true;
			src->estimated = !m->fallback_exact;
			src->tier = tool_tier(t, m->fallback_needs);
			src->counter = m->fallback_counter;
		} else {
			src->tier = "none";
			src->why = missing_why(t, m->needs);
		}
	}
	if (mutation_apply(obj, counter_of, t, err, sizeof(err)))
		return fail(t, "%s", err);
	return 0;
}

/*
 * SCHEDSCAN_VERIFIER_STATS=1: each loaded program's verifier statistics
 * (instructions processed of the 1M limit, states) on stderr, to see how
 * close a program is to the limit on this kernel (tests print them).
 */
static void verifier_stats(struct bpf_object *obj, bool after)
{
	static char logs[64][16384];
	struct bpf_program *prog;
	int i = 0;

	if (!getenv("SCHEDSCAN_VERIFIER_STATS"))
		return;
	bpf_object__for_each_program(prog, obj) {
		if (i == 64)
			break;
		if (!after) {
			bpf_program__set_log_level(prog, 4);	/* BPF_LOG_STATS */
			bpf_program__set_log_buf(prog, logs[i], sizeof(logs[i]));
		} else if (bpf_program__autoload(prog)) {
			char *line = strstr(logs[i], "processed ");

			fprintf(stderr, "verifier: %s: %.*s\n", bpf_program__name(prog),
				line ? (int)strcspn(line, "\n") : 0, line ? line : "");
		}
		i++;
	}
}

/* The object's struct schedscan_run (lib/bpf/table.h), mapped after the load. */
static int find_run_section(struct tool *t, struct bpf_object *obj)
{
	struct bpf_map *map = bpf_object__find_map_by_name(obj, ".data.run");
	size_t size = 0;

	/* libbpf maps it over the kernel's map at the load: it is live. */
	if (map)
		t->run = (struct schedscan_run *)(uintptr_t)bpf_map__initial_value(map, &size);
	if (!t->run || size < sizeof(*t->run))
		return fail(t, "the BPF object has no mapped .data.run section");
	return 0;
}

int tool_load(struct tool *t, struct bpf_object_skeleton *skeleton,
	      struct bpf_map *counters)
{
	char err[512];
	int ret;

	/*
	 * libbpf parses the kernel's BTF again for the targets and the load:
	 * the probes' copy goes first (their choices are made), or the peak
	 * holds both (5.5 MB of raw BTF each on 6.18; a later probe parses
	 * it anew).
	 */
	probe_release();
	if (hooks_set_targets(t->hooks, t->desc.nr_hooks, err, sizeof(err)))
		return fail(t, "%s", err);
	verifier_stats(*skeleton->obj, false);
	if (bpf_object__load_skeleton(skeleton))
		return fail(t, "loading the BPF programs failed: %s (run with -v for the whole verifier log)",
			    strerror(errno));
	verifier_stats(*skeleton->obj, true);
	ret = find_run_section(t, *skeleton->obj);
	if (ret)
		return ret;
	ret = percpu_sums_init(&t->counters, bpf_map__fd(counters));
	if (ret)
		return fail(t, "reading the counter map failed: %s", strerror(-ret));
	if (t->counters.dump.max_entries != SCHEDSCAN_BANKS * t->desc.nr_counters)
		return fail(t, "the counter map has %u slots, the metrics need %u in each of %d banks",
			    t->counters.dump.max_entries, t->desc.nr_counters, SCHEDSCAN_BANKS);
	return 0;
}

int tool_add_table(struct tool *t, struct table *table,
		   const struct table_spec *spec, struct bpf_map *map,
		   struct bpf_map *drops, void *ctx, const char *tier,
		   bool estimated)
{
	int ret;

	if (t->nr_tables == TOOL_MAX_TABLES)
		return fail(t, "too many tables");
	ret = table_init(table, spec, bpf_map__fd(map), drops ? bpf_map__fd(drops) : -1, ctx);
	if (ret) {
		table_free(table);
		return fail(t, "table %s: %s", spec->name,
			    ret == -EINVAL ? "its layout does not match its map" : strerror(-ret));
	}
	table->tier = tier;
	table->estimated = estimated;
	t->tables[t->nr_tables++] = table;
	return 0;
}

void tool_table_unavailable(struct tool *t, const char *name, unsigned int needs)
{
	report_table_missing(&t->report, name, missing_why(t, needs));
}

void tool_table_unavailable_why(struct tool *t, const char *name, const char *why)
{
	report_table_missing(&t->report, name, why);
}

int tool_attach(struct tool *t)
{
	char err[512];

	if (t->opts->stats) {
		t->stats_fd = bpfstats_enable(err, sizeof(err));
		if (t->stats_fd == -1)
			return fail(t, "%s", err);
	}
	if (hooks_attach(t->hooks, t->desc.nr_hooks, err, sizeof(err)))
		return fail(t, "%s", err);
	return 0;
}

static void fill_hist(struct tool *t, int i, unsigned int c,
		      const unsigned long long *counts)
{
	const struct metric_spec *m = &t->desc.metrics[i];
	struct hist *h = &t->hists[i];

	if (!m->counts || h->kind == HIST_LINEAR) {
		for (unsigned int k = 0; k < m->nr_slots; k++)
			h->slots[k] = counts[c + k];
		return;
	}
	for (unsigned int k = 0; k < h->nr_slots; k++)
		h->slots[k] = 0;
	for (unsigned int k = 0; k < m->nr_slots; k++)
		hist_add(h, k, counts[c + k]);
}

static void fill_ratio(struct tool *t, int i, struct metric_value *values)
{
	const int *parts = t->sources[i].ratio;
	double num, den;

	values[i].available = true;
	values[i].estimated = false;
	for (int p = 0; p < 4; p++) {
		if (parts[p] < 0)
			continue;
		if (!values[parts[p]].available) {
			values[i].available = false;
			values[i].why = values[parts[p]].why;
			return;
		}
		values[i].estimated |= values[parts[p]].estimated;
	}
	values[i].tier = values[parts[0]].tier;
	num = (double)values[parts[0]].value -
	      (parts[1] >= 0 ? (double)values[parts[1]].value : 0);
	den = (double)values[parts[2]].value +
	      (parts[3] >= 0 ? (double)values[parts[3]].value : 0);
	values[i].is_ratio = true;
	values[i].ratio = den > 0 ? 100.0 * num / den : NAN;
	values[i].denominator = (unsigned long long)den;
}

/* The metrics of one set of counter values (a window's, or cumulative). */
static void fill_metrics(struct tool *t, const unsigned long long *counts,
			 struct metric_value *values)
{
	for (int i = 0; i < t->desc.nr_metrics; i++) {
		const struct metric_spec *m = &t->desc.metrics[i];
		const struct metric_source *src = &t->sources[i];

		values[i] = (struct metric_value){
			.name = m->name,
			.tier = src->tier,
			.available = src->available,
			.estimated = src->estimated,
			.why = src->why,
			.help = m->help,
			.same_as = m->text_same_as,
			.kind = m->ratio[0] ? METRIC_RATIO :
				m->nr_slots ? METRIC_HISTOGRAM : METRIC_COUNTER,
		};
		if (m->ratio[0] || !src->available)
			continue;
		values[i].value = counts[src->counter];
		if (!m->nr_slots)
			continue;
		fill_hist(t, i, src->counter, counts);
		values[i].hist = &t->hists[i];
		values[i].unit = m->unit;
		values[i].has_sum = m->has_sum;
		if (m->has_sum)
			values[i].sum = counts[src->counter + m->nr_slots];
	}
	for (int i = 0; i < t->desc.nr_metrics; i++)
		if (t->desc.metrics[i].ratio[0])
			fill_ratio(t, i, values);
}

int tool_list_metrics(struct tool *t)
{
	struct metric_value values[TOOL_MAX_METRICS];

	fill_metrics(t, t->now, values);
	errno = 0;
	if (report_list(&t->report, values, t->desc.nr_metrics, t->tables, t->nr_tables)) {
		fprintf(stderr, "%s: writing the list of metrics to stdout failed: %s\n",
			t->desc.name, errno ? strerror(errno) : "short write");
		return 1;
	}
	return 0;
}

static void take_cut(struct tool *t)
{
	t->cut.ns = monotonic_ns();
	t->cut.real = realtime_seconds();
	t->cut.mono = t->cut.ns / 1e9;
}

/* Cuts here: the durations and integrals closed now, needing no wait. */
static int cut_time_values(struct tool *t)
{
	take_cut(t);
	for (int i = 0; i < t->nr_tables; i++) {
		int ret = table_read_time(t->tables[i], t->cut.ns);

		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Reads the counters and every table into their now[]: while counting,
 * the BPF side is switched to the other bank first, and the bank it
 * leaves is read once the programs that chose it have finished, so the
 * reading is a consistent cut (lib/bpf/table.h). The durations are read
 * at the switch itself: waiting first would close them up to the wait's
 * end (5-16 ms on the host, hundreds in a TCG guest) past the events'.
 * Once counting has stopped the cut is the stop, whose durations
 * stop_counting() read.
 */
static int read_all(struct tool *t)
{
	unsigned int bank = t->bank;
	int ret = 0;

	if (__atomic_load_n(&t->run->counting, __ATOMIC_SEQ_CST)) {
		t->bank = bank == 1 ? 2 : 1;
		__atomic_store_n(&t->run->counting, t->bank, __ATOMIC_SEQ_CST);
		ret = cut_time_values(t);
		wait_for_programs_in_flight();
	} else if (!t->stopped) {
		ret = cut_time_values(t);
	} else {
		ret = t->stop_error;
	}
	if (ret)
		return fail(t, "reading the durations failed: %s", strerror(-ret));
	ret = percpu_sums_read(&t->counters, t->raw);
	if (ret)
		return fail(t, "reading the counters failed: %s", strerror(-ret));
	for (unsigned int c = 0; c < t->desc.nr_counters; c++) {
		unsigned int slot = SCHEDSCAN_SLOT(c, bank);

		t->counted[c] += t->raw[slot] - t->bank_seen[slot];
		t->bank_seen[slot] = t->raw[slot];
	}
	memcpy(t->now, t->counted, t->desc.nr_counters * sizeof(*t->now));
	if (t->desc.adjust)
		t->desc.adjust(t->desc.ctx, t->now);
	for (int i = 0; i < t->nr_tables; i++) {
		ret = table_read_counts(t->tables[i], bank);
		if (ret)
			return fail(t, "reading the %s table failed: %s",
				    t->tables[i]->spec->name, strerror(-ret));
	}
	return 0;
}

/* Cumulative since the attach, as the JSON summary counts. */
static void render_openmetrics(struct tool *t, const unsigned long long *counts,
			       enum table_values which, struct strbuf *out)
{
	struct metric_value values[TOOL_MAX_METRICS];

	fill_metrics(t, counts, values);
	report_openmetrics(&t->report, values, t->desc.nr_metrics, out);
	for (int i = 0; i < t->nr_tables; i++)
		table_openmetrics(t->tables[i], t->desc.name, which, out);
}

/* GET /metrics: the maps read afresh, cumulative since the attach. */
static char *scrape(void *ctx, size_t *len)
{
	struct tool *t = ctx;
	struct strbuf out = {};

	pthread_mutex_lock(&t->lock);
	if (read_all(t)) {
		pthread_mutex_unlock(&t->lock);
		return NULL;
	}
	render_openmetrics(t, t->now, TABLE_CUMULATIVE_NOW, &out);
	pthread_mutex_unlock(&t->lock);
	if (out.failed) {
		strbuf_free(&out);
		return NULL;
	}
	*len = out.len;
	return out.buf;
}

/* node_exporter's textfile collector must never see half a file (lib/output.h). */
static int write_prometheus_file(struct tool *t)
{
	const char *path = t->opts->prometheus_file;
	struct strbuf out = {};
	char err[512];
	int ret;

	render_openmetrics(t, t->last, TABLE_CUMULATIVE_LAST, &out);
	if (out.failed) {
		strbuf_free(&out);
		return fail(t, "out of memory rendering %s", path);
	}
	ret = output_file_replace("--prometheus-file", path, out.buf, out.len, err, sizeof(err));
	strbuf_free(&out);
	return ret ? fail(t, "%s", err) : 0;
}

static int report_window_locked(struct tool *t, struct run_window *window)
{
	struct metric_value values[TOOL_MAX_METRICS];
	struct prog_stat stats[TOOL_MAX_HOOKS * HOOK_MAX_PROGS];
	enum table_window_kind kind;
	size_t n = t->desc.nr_counters * sizeof(*t->now);
	int nr_stats = 0, ret;

	/*
	 * A summary after interval records is the last reading, so the
	 * intervals add up to it exactly.
	 */
	if (window->final && window->intervals) {
		kind = WINDOW_RUN_AFTER_INTERVALS;
		memcpy(t->win, t->last, n);
	} else {
		if (read_all(t))
			return -EIO;
		kind = window->final ? WINDOW_RUN : WINDOW_INTERVAL;
		/* The window ends where its reading cut, not where it was asked for. */
		window->end = t->cut.real;
		window->end_mono = t->cut.mono;
		for (unsigned int c = 0; c < t->desc.nr_counters; c++)
			t->win[c] = window->final ? t->now[c] : t->now[c] - t->last[c];
		memcpy(t->last, t->now, n);
	}
	for (int i = 0; i < t->nr_tables; i++)
		table_window(t->tables[i], kind, window->end_mono - window->start_mono);
	fill_metrics(t, t->win, values);
	if (window->final && t->opts->stats)
		nr_stats = bpfstats_collect(t->hooks, t->desc.nr_hooks, stats,
					    sizeof(stats) / sizeof(stats[0]));
	/*
	 * The run signals may interrupt the writes: a reader that stopped
	 * reading (a pager left alone) blocks them, and Ctrl-C must still end
	 * the tool.
	 */
	errno = 0;
	run_allow_signals(true);
	ret = report_window(&t->report, window, values, t->desc.nr_metrics, t->tables,
			    t->nr_tables, t->opts->top, stats, nr_stats);
	run_allow_signals(false);
	if (ret && errno == EINTR && run_interrupted()) {
		/* What stdio still holds would block exit() too. */
		__fpurge(stdout);
		return fail(t, "the report was not written: stdout was not being read when the signal came");
	}
	if (ret)
		return fail(t, "writing the report failed: %s", strerror(errno ? errno : EIO));
	if (t->opts->prometheus_file && write_prometheus_file(t))
		return -EIO;
	return 0;
}

static int report_one_window(void *ctx, struct run_window *window)
{
	struct tool *t = ctx;
	int ret;

	pthread_mutex_lock(&t->lock);
	ret = report_window_locked(t, window);
	pthread_mutex_unlock(&t->lock);
	return ret;
}

/*
 * The ready line, without dying of SIGPIPE when nobody reads the pipe:
 * that is an error to say (EPIPE), not a silent end. 0 or -1 (errno).
 */
static int write_ready(int fd, const char *line, size_t len)
{
	sigset_t pipe_signal, saved;
	struct timespec none = { 0, 0 };
	ssize_t n;
	int saved_errno;

	sigemptyset(&pipe_signal);
	sigaddset(&pipe_signal, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_signal, &saved);
	n = write(fd, line, len);
	saved_errno = errno;
	/* The SIGPIPE the failed write raised stays pending: take it. */
	if (n < 0 && saved_errno == EPIPE)
		sigtimedwait(&pipe_signal, NULL, &none);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	errno = n < 0 ? saved_errno : EIO;
	return n == (ssize_t)len ? 0 : -1;
}

/*
 * The first window opens: counting starts (the BPF side counted nothing
 * while the tool learnt its state), durations count from now.
 */
static int start_counting(void *ctx, struct run_window *window)
{
	struct tool *t = ctx;
	unsigned long long now;

	if (t->desc.start && t->desc.start(t->desc.ctx))
		return -1;
	/* Under the lock, as stop_counting(): a scrape reads t->bank. */
	pthread_mutex_lock(&t->lock);
	take_cut(t);
	now = t->cut.ns;
	/* The first window opens when counting does, after desc.start's work. */
	window->start = t->cut.real;
	window->start_mono = t->cut.mono;
	t->run->start_ns = now;
	__atomic_store_n(&t->run->counting, t->bank, __ATOMIC_SEQ_CST);
	for (int i = 0; i < t->nr_tables; i++) {
		int ret = table_start(t->tables[i], now);

		if (ret) {
			pthread_mutex_unlock(&t->lock);
			return fail(t, "starting the %s table failed: %s",
				    t->tables[i]->spec->name, strerror(-ret));
		}
	}
	pthread_mutex_unlock(&t->lock);
	/* Scripts start their workload on this: everything is attached and counting. */
	if (t->opts->ready_fd >= 0) {
		char ready[128];
		int len;

		/* With --listen ADDR:0 and --json, the only place the port is told. */
		if (t->httpd)
			len = snprintf(ready, sizeof(ready), "ready listen=%s\n",
				       httpd_address(t->httpd));
		else
			len = snprintf(ready, sizeof(ready), "ready\n");
		if (write_ready(t->opts->ready_fd, ready, (size_t)len))
			return fail(t, "writing to --ready-fd %d failed: %s%s", t->opts->ready_fd,
				    strerror(errno),
				    errno == EPIPE ? " (nobody reads that pipe)" : "");
		close(t->opts->ready_fd);
	}
	return 0;
}

/*
 * Before the last reading: no event is counted from here on, so the
 * summary's scalars, its tables and the --events records describe the
 * same events, once the programs that saw the flag set have finished.
 */
static void stop_counting(void *ctx)
{
	struct tool *t = ctx;

	/* Under the lock: a scrape switching banks must not reopen the window. */
	pthread_mutex_lock(&t->lock);
	__atomic_store_n(&t->run->counting, 0, __ATOMIC_SEQ_CST);
	t->stopped = true;
	/* The durations end with the events: closed now, not after the wait. */
	t->stop_error = cut_time_values(t);
	wait_for_programs_in_flight();
	pthread_mutex_unlock(&t->lock);
	if (t->desc.finish)
		t->desc.finish(t->desc.ctx);
}

int tool_run(struct tool *t)
{
	struct metric_value values[TOOL_MAX_METRICS];
	char err[512];

	fill_metrics(t, t->now, values);
	/* Before the banner, which says where it serves. */
	if (t->opts->listen_fd >= 0) {
		t->httpd = httpd_start(t->opts->listen_fd, scrape, t, err, sizeof(err));
		if (!t->httpd) {
			fail(t, "%s", err);
			return 1;
		}
	}
	report_banner(&t->report, t->desc.what, t->httpd ? httpd_address(t->httpd) : NULL,
		      t->desc.banner_note, values, t->desc.nr_metrics);
	/* The textfile collector sees the tool's series from the start. */
	pthread_mutex_lock(&t->lock);
	if (t->opts->prometheus_file && write_prometheus_file(t)) {
		pthread_mutex_unlock(&t->lock);
		return 1;
	}
	pthread_mutex_unlock(&t->lock);
	struct run_callbacks cb = { report_one_window, start_counting, stop_counting, t };

	if (run_loop(t->opts, &cb))
		return 1;
	if (t->opts->svg_path &&
	    plot_run_text(t->desc.name, t->svg_records.buf, t->svg_records.len, t->opts->svg_path,
			  err, sizeof(err))) {
		fail(t, "%s", err);
		return 1;
	}
	return 0;
}

void tool_destroy(struct tool *t)
{
	httpd_stop(t->httpd);
	t->httpd = NULL;
	hooks_detach(t->hooks, t->desc.nr_hooks);
	probe_release();
	if (t->stats_fd >= 0)
		close(t->stats_fd);
	t->stats_fd = -1;
	report_free(&t->report);
	strbuf_free(&t->svg_records);
	for (int i = 0; i < t->desc.nr_metrics; i++)
		hist_free(&t->hists[i]);
	for (int i = 0; i < t->nr_tables; i++)
		table_free(t->tables[i]);
	t->nr_tables = 0;
	free(t->now);
	free(t->last);
	free(t->win);
	free(t->counted);
	free(t->raw);
	free(t->bank_seen);
	t->now = t->last = t->win = t->counted = t->raw = t->bank_seen = NULL;
	percpu_sums_free(&t->counters);
	pthread_mutex_destroy(&t->lock);
}
