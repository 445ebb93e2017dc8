// SPDX-License-Identifier: GPL-2.0
/*
 * numascan's hint faults and migrations against the kernel's own answer,
 * in the decoding tiers. numaremote -t 4 -m 64 -s 8 -c 0 -M 1: four
 * threads pinned to node 0 write 64 MiB placed on node 1 (mbind
 * MPOL_BIND for the first touch, then MPOL_DEFAULT) for 8 s, and say how
 * many pages sit on each node before and after (/proc/PID/numa_maps).
 * The kernel source's answer: every hint fault comes from a CPU of node
 * 0; the first ones are remote and migrate the page to node 0
 * (MPOL_F_MORON: the default policy moves a misplaced page to the
 * faulting CPU's node), later ones find it local; every page that moved
 * went 1 -> 0.
 *
 * The reference for the node_pairs rows is ftrace's own count of
 * numaremote's task_numa_fault() calls by CPU (a kprobe event): in about
 * one run of five one of 16000-68000 calls came from a node-1 CPU though
 * every thread is pinned to node 0 (6.12 fentry: a node-0 page moved to
 * node 1; the kprobe tier earlier). The count says whether the kernel
 * made that call or the tool misplaced it, and which thread it was.
 *
 * The kprobe tier loses an event now and then to another row (1 in
 * 10000; none in the other tiers): measured in the guests, one event in
 * 16000-68000, in about one run in five, in the vmas, migration_pairs and
 * node_pairs rows, never in the scalar counters (docs/metrics.md, "kprobe
 * tier"), so the rows' sums have that slack there.
 *
 * Ported from guest-tests.sh's numascan_remote (tests/README.md maps the
 * old descriptions to these ids).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "util.h"

#define CPU_NODE 0
#define MEM_NODE 1
#define MAX_INTERVALS 64
#define MAX_MAPS 256
/* numa_pages_migrated may count pages of other VMAs: the heap, the stacks */
#define OTHER_PAGES 64

struct mapping {
	unsigned long long lo, hi;
	char name[256];
};

struct numaremote_data {
	long pid;
	long placed, placed_on_mem;	/* its pages, and those on node 1, after the first touch */
	long moved;			/* on node 0 at its end */
	/* the summary's scalars (NAN: absent) */
	double faults, remote, local, migrated, passes, task_faults, migrated_faults;
	double local_pct, pte_fault_pct, pte_updates;
	/* node_pairs: faults from node-0 CPUs, from others, from node 0 on node-1 memory */
	double pairs_node0, pairs_other, pairs_node0_on_mem;
	int pairs_cpu_nodes, pairs_mem_nodes;
	/* migration_pairs: faults, pages, faults not 1 -> 0, rows migrating untimed */
	double moves_faults, moves_pages, moves_other;
	long moves_untimed;
	int moves_from_nodes, moves_to_nodes;
	long moves_dropped;
	char moves_dropped_error[32];
	double vma_faults;		/* the vmas rows' hint faults */
	/* the remote share of each interval with 50+ hint faults, % */
	int shares[MAX_INTERVALS], nr_shares;
	/* ftrace: task_numa_fault() calls from node-0 CPUs and from others */
	long ftrace_node0, ftrace_other;
	char ftrace_other_where[256];	/* "cpu C tid T; ..." */
	long trace_lost;
	/* --svg: its node matrices' cells, and the counts not labelled in it */
	long svg_cells;
	char svg_missing[128];
	/* the vmas rows of numaremote, against /proc/PID/maps while it ran */
	int name_rows, name_bad, name_anon, name_heap;
	char name_detail[256];
	bool maps_read;
	char tasks[256];		/* "tid:Cpus_allowed_list " */
};

/* ------------------------------------------------------------ the run's reads */

static int numaremote_read(const char *path, struct numaremote_data *d, char *err, size_t errlen)
{
	char line[256];
	FILE *f = fopen(path, "r");

	d->pid = d->placed = d->moved = -1;
	if (!f)
		return errmsg(err, errlen, "cannot read numaremote's output %s", path);
	while (fgets(line, sizeof(line), f)) {
		long a, b, c;

		if (sscanf(line, "numaremote pid %ld", &a) == 1)
			d->pid = a;
		else if (sscanf(line, "numaremote placed %ld on_mem_node %ld", &a, &b) == 2)
			d->placed = a, d->placed_on_mem = b;
		else if (sscanf(line, "numaremote end on_cpu_node %ld on_mem_node %ld pages %ld", &a,
				&b, &c) == 3)
			d->moved = a;
	}
	fclose(f);
	if (d->pid < 0 || d->placed < 0 || d->moved < 0)
		return errmsg(err, errlen, "numaremote printed no pid, placed or end line (%s)", path);
	return 0;
}

/* Whether numaremote has written its "placed" line (its pages are in place). */
static bool numaremote_placed(const char *path)
{
	char line[256];
	FILE *f = fopen(path, "r");
	bool placed = false;

	while (f && !placed && fgets(line, sizeof(line), f))
		placed = !strncmp(line, "numaremote placed ", 18);
	if (f)
		fclose(f);
	return placed;
}

/* /proc/PID/maps: each mapping's range and name ("[anon]" when it has none). */
static int maps_read(pid_t pid, struct mapping *maps, int max)
{
	char path[64], line[512];
	FILE *f;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (n < max && fgets(line, sizeof(line), f)) {
		char name[256] = "";

		if (sscanf(line, "%llx-%llx %*s %*s %*s %*s %255[^\n]", &maps[n].lo, &maps[n].hi,
			   name) < 2)
			continue;
		snprintf(maps[n].name, sizeof(maps[n].name), "%.255s", name[0] ? name : "[anon]");
		n++;
	}
	fclose(f);
	return n;
}

/* Each thread's "TID:Cpus_allowed_list" (/proc/PID/task/TID/status), for the diagnostics. */
static void tasks_read(pid_t pid, char *out, size_t len)
{
	char dir[64], line[256];
	struct dirent *e;
	DIR *tasks;
	size_t used = 0;

	out[0] = '\0';
	snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pid);
	tasks = opendir(dir);
	while (tasks && (e = readdir(tasks))) {
		char path[400], allowed[64] = "?";
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%.255s/status", dir, e->d_name);
		f = fopen(path, "r");
		while (f && fgets(line, sizeof(line), f))
			sscanf(line, "Cpus_allowed_list: %63s", allowed);
		if (f)
			fclose(f);
		if (used < len)
			used += (size_t)snprintf(out + used, len - used, "%s:%s ", e->d_name, allowed);
	}
	if (tasks)
		closedir(tasks);
}

/* How many distinct values a small set of node ids holds. */
static int distinct(const int *ids, int n)
{
	int count = 0;

	for (int i = 0; i < n; i++) {
		bool seen = false;

		for (int j = 0; j < i && !seen; j++)
			seen = ids[j] == ids[i];
		count += !seen;
	}
	return count;
}

static void node_pairs_read(const struct jv *s, struct numaremote_data *d)
{
	const struct jv *rows = table_rows(s, "node_pairs");
	int cpu_nodes[64], mem_nodes[64], n = 0;

	for (size_t i = 0; rows && i < rows->n; i++) {
		const struct jv *row = &rows->items[i];
		double cpu = row_number(row, "cpu_node"), mem = row_number(row, "mem_node");
		double faults = row_number(row, "numa_task_faults");

		if (isnan(faults))
			continue;
		if (cpu == CPU_NODE) {
			d->pairs_node0 += faults;
			if (mem == MEM_NODE)
				d->pairs_node0_on_mem += faults;
		} else {
			d->pairs_other += faults;
		}
		if (n < 64) {
			cpu_nodes[n] = (int)cpu;
			mem_nodes[n++] = (int)mem;
		}
	}
	d->pairs_cpu_nodes = distinct(cpu_nodes, n);
	d->pairs_mem_nodes = distinct(mem_nodes, n);
}

static void migration_pairs_read(const struct jv *s, struct numaremote_data *d)
{
	const struct jv *table = jv_get(s, "migration_pairs"), *rows = table_rows(s, "migration_pairs");
	int from_nodes[64], to_nodes[64], n = 0;
	double dropped;
	const char *error;

	for (size_t i = 0; rows && i < rows->n; i++) {
		const struct jv *row = &rows->items[i];
		double from = row_number(row, "from_node"), to = row_number(row, "to_node");
		double faults = row_number(row, "numa_hint_faults_migrated");
		double pages = row_number(row, "numa_hint_fault_pages_migrated");
		double ns = row_number(row, "numa_migration_ns");

		if (isnan(faults))
			continue;
		d->moves_faults += faults;
		d->moves_pages += isnan(pages) ? 0 : pages;
		if (from != MEM_NODE || to != CPU_NODE)
			d->moves_other += faults;
		if (faults > 0 && !(ns > 0))
			d->moves_untimed++;
		if (from >= 0 && n < 64) {
			from_nodes[n] = (int)from;
			to_nodes[n++] = (int)to;
		}
	}
	d->moves_from_nodes = distinct(from_nodes, n);
	d->moves_to_nodes = distinct(to_nodes, n);
	d->moves_dropped = jv_number(jv_get(table, "rows_dropped"), &dropped) ? (long)dropped : 0;
	error = jv_string(jv_get(table, "rows_dropped_error"));
	snprintf(d->moves_dropped_error, sizeof(d->moves_dropped_error), "%s", error ? error : "-");
}

/* numaremote's vmas rows against the mappings /proc/PID/maps listed while it ran. */
static void vma_names_check(const struct jv *s, const struct mapping *maps, int nr_maps,
			    struct numaremote_data *d)
{
	const struct jv *rows = table_rows(s, "vmas");
	size_t used = 0;

	for (size_t i = 0; rows && i < rows->n; i++) {
		const struct jv *row = &rows->items[i];
		unsigned long long start;
		const char *name = jv_string(jv_get(row, "name")), *want = "?";

		d->vma_faults += fmax(row_number(row, "numa_hint_faults"), 0);
		if (row_number(row, "tgid") != (double)d->pid ||
		    !jv_u64(jv_get(row, "start"), &start))
			continue;
		d->name_rows++;
		for (int k = 0; k < nr_maps; k++)
			if (maps[k].lo <= start && start < maps[k].hi) {
				want = maps[k].name;
				break;
			}
		if (!name || strcmp(name, want)) {
			d->name_bad++;
			if (used < sizeof(d->name_detail))
				used += (size_t)snprintf(d->name_detail + used,
							 sizeof(d->name_detail) - used,
							 "%llx=%s (maps %s) ", start,
							 name ? name : "null", want);
		}
		d->name_anon += name && !strcmp(name, "[anon]");
		d->name_heap += name && !strcmp(name, "[heap]");
	}
}

/* The remote share (%) of each interval with 50 or more hint faults. */
static void shares_read(const struct records *recs, struct numaremote_data *d)
{
	const struct jv *rec;

	for (long k = 0; (rec = record_of_type(recs, "interval", k)); k++) {
		double faults = record_metric(rec, "numa_hint_faults");
		double remote = record_metric(rec, "numa_hint_faults_remote");

		if (faults >= 50 && !isnan(remote) && d->nr_shares < MAX_INTERVALS)
			d->shares[d->nr_shares++] = (int)(100 * remote / faults);
	}
}

/* task_numa_fault() calls in the trace by the CPU's node. */
static int ftrace_faults(const char *path, struct numaremote_data *d)
{
	char line[512];
	const char *b;
	FILE *f = fopen(path, "r");
	size_t used = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		int cpu = trace_line_cpu(line, &b);

		if (cpu < 0 || !trace_line_event(line, "remote_fault"))
			continue;
		if (cpu < check_env.topo.nr_cpu_ids && check_env.topo.node_of_cpu[cpu] == CPU_NODE) {
			d->ftrace_node0++;
			continue;
		}
		d->ftrace_other++;
		if (used < sizeof(d->ftrace_other_where))
			used += (size_t)snprintf(d->ftrace_other_where + used,
						 sizeof(d->ftrace_other_where) - used,
						 "cpu %d tid %ld; ", cpu, trace_line_task_pid(line, b));
	}
	fclose(f);
	return 0;
}

/* --svg: the cells of its node matrices, and the rows' counts it does not label. */
static void svg_read(const char *path, const struct jv *s, struct numaremote_data *d)
{
	static const char *const labelled[][2] = {
		{ "node_pairs", "numa_task_faults" },
		{ "migration_pairs", "numa_hint_fault_pages_migrated" },
	};
	char *text = NULL;
	size_t used = 0;

	d->svg_cells = -1;
	if (read_text_file(path, &text, NULL, 0))
		return;
	d->svg_cells = 0;
	for (const char *p = text; (p = strstr(p, "class=\"cell\"")); p++)
		d->svg_cells++;
	for (size_t t = 0; t < sizeof(labelled) / sizeof(labelled[0]); t++) {
		const struct jv *rows = table_rows(s, labelled[t][0]);

		for (size_t i = 0; rows && i < rows->n; i++) {
			double v = row_number(&rows->items[i], labelled[t][1]);
			char label[48];
			const char *p;
			bool found = false;

			if (isnan(v) || (t == 1 && row_number(&rows->items[i], "from_node") < 0))
				continue;
			/* ">COUNT (PCT%)</text>" */
			snprintf(label, sizeof(label), ">%.0f (", v);
			for (p = text; !found && (p = strstr(p, label)); p++) {
				const char *q = p + strlen(label);

				q += strspn(q, "0123456789");
				found = !strncmp(q, "%)</text>", 9);
			}
			if (!found && used < sizeof(d->svg_missing))
				used += (size_t)snprintf(d->svg_missing + used,
							 sizeof(d->svg_missing) - used, "%.0f ", v);
		}
	}
	free(text);
}

static void summary_read(const struct jv *s, struct numaremote_data *d)
{
	d->faults = record_metric(s, "numa_hint_faults");
	d->remote = record_metric(s, "numa_hint_faults_remote");
	d->local = record_metric(s, "numa_hint_faults_local");
	d->migrated = record_metric(s, "numa_pages_migrated");
	d->passes = record_metric(s, "numa_scan_passes");
	d->task_faults = record_metric(s, "numa_task_faults");
	d->migrated_faults = record_metric(s, "numa_hint_faults_migrated");
	d->local_pct = record_metric(s, "numa_hint_local_pct");
	d->pte_fault_pct = record_metric(s, "numa_pte_fault_pct");
	d->pte_updates = record_metric(s, "numa_pte_updates");
	node_pairs_read(s, d);
	migration_pairs_read(s, d);
}

static int numaremote_run(enum check_tier tier, void *data, char *err, size_t errlen)
{
	static const struct trace_event events[] = {
		{ "schedscan/remote_fault", "comm == \"numaremote\"" },
	};
	static const char *const args[] = { "-t", "4", "-m", "64", "-s", "8", "-c", "0", "-M", "1",
					    NULL };
	struct numaremote_data *d = data;
	struct mapping *maps = calloc(MAX_MAPS, sizeof(*maps));
	struct records recs = { 0 };
	struct trace_session trace;
	struct tool_run tool;
	const struct jv *summary;
	char tag[64], wl_out[300], trace_path[300], svg[300];
	int ret = -1, status, nr_maps = 0;
	pid_t pid;

	if (!maps)
		return errmsg(err, errlen, "out of memory");
	snprintf(tag, sizeof(tag), "numaremote.%s", check_tier_name(tier));
	snprintf(wl_out, sizeof(wl_out), "%s/%s.wl", check_env.work, tag);
	snprintf(trace_path, sizeof(trace_path), "%s/%s.trace", check_env.work, tag);
	snprintf(svg, sizeof(svg), "%s/%s.svg", check_env.work, tag);
	if (kprobe_event_add('p', "remote_fault", "task_numa_fault", err, errlen))
		goto out;
	if (trace_begin(&trace, "schedscan-check", events, 1, err, errlen))
		goto kprobe_out;
	if (tool_start(&tool, "numascan", tier, -1, tag, err, errlen, "--comm", "numaremote", "-i",
		       "1", "-d", "300", "--svg", svg, ARGS_END)) {
		trace_end(&trace, trace_path, &d->trace_lost, NULL, 0);
		goto kprobe_out;
	}
	pid = workload_spawn(wl_out, "numaremote", args, err, errlen);
	if (pid > 0) {
		/* its mappings while its threads run, to hold the VMA names against */
		for (int i = 0; i < 200 && !numaremote_placed(wl_out); i++)
			sleep_seconds(0.1);
		sleep_seconds(1);
		nr_maps = maps_read(pid, maps, MAX_MAPS);
		d->maps_read = nr_maps > 0;
		tasks_read(pid, d->tasks, sizeof(d->tasks));
		status = workload_wait(pid, "numaremote", err, errlen);
	} else {
		status = -1;
	}
	tool_stop(&tool);
	if (status > 0)
		errmsg(err, errlen, "numaremote exited with status %d (%s)", status, wl_out);
	if (trace_end(&trace, trace_path, &d->trace_lost, status ? NULL : err, errlen) || status)
		goto kprobe_out;
	if (tool.status != 0) {
		errmsg(err, errlen, "numascan exited with status %d (%s)", tool.status, tool.err);
		goto kprobe_out;
	}
	if (numaremote_read(wl_out, d, err, errlen) || records_read(tool.out, &recs, err, errlen))
		goto kprobe_out;
	summary = record_of_type(&recs, "summary", -1);
	if (!summary) {
		errmsg(err, errlen, "numascan wrote no summary (%s)", tool.out);
		goto kprobe_out;
	}
	if (ftrace_faults(trace_path, d)) {
		errmsg(err, errlen, "cannot read the trace %s", trace_path);
		goto kprobe_out;
	}
	summary_read(summary, d);
	vma_names_check(summary, maps, nr_maps, d);
	shares_read(&recs, d);
	svg_read(svg, summary, d);
	ret = 0;
	printf("#   numaremote [%s]: %.0f hint faults (%.0f remote) in %.0f passes; numa_pages_migrated %.0f; numaremote placed %ld (%ld on node %d), %ld on node %d at its end; node_pairs: node %d %.0f, others %.0f; ftrace: node %d %ld, others %ld (%s); threads (tid:CPUs): %s\n",
	       check_tier_name(tier), d->faults, d->remote, d->passes, d->migrated, d->placed,
	       d->placed_on_mem, MEM_NODE, d->moved, CPU_NODE, CPU_NODE, d->pairs_node0,
	       d->pairs_other, CPU_NODE, d->ftrace_node0, d->ftrace_other,
	       d->ftrace_other_where[0] ? d->ftrace_other_where : "none", d->tasks);
kprobe_out:
	records_free(&recs);
	kprobe_event_remove("remote_fault");
out:
	workloads_stop();
	free(maps);
	return ret;
}

static const struct scenario sc_numaremote = { "numaremote", sizeof(struct numaremote_data),
					       numaremote_run };

#define NUMAREMOTE_TIERS (TIER_FENTRY | TIER_KPROBE)
#define NEEDS_NUMAREMOTE (NEED_ROOT | NEED_NODES2)

/*
 * The run, when its pages were all placed on node 1 (else a SKIP: the
 * scenario's premise failed, not the tool), or NULL.
 */
static const struct numaremote_data *numaremote_get(struct check_run *r)
{
	const struct numaremote_data *d = scenario_get(r, &sc_numaremote);

	if (d && (d->placed <= 0 || d->placed != d->placed_on_mem)) {
		check_skip(r, "numaremote's pages were not all placed on node %d (%ld of %ld)",
			   MEM_NODE, d->placed_on_mem, d->placed);
		return NULL;
	}
	return d;
}

/* The kprobe tier's slack for a sum of rows: 1 in 10000 (above). */
static double kprobe_slack(struct check_run *r, double n)
{
	return check_tier(r) == TIER_KPROBE ? floor(n / 10000) : 0;
}

CHECK(pages_migrated, .id = "numascan.known.numaremote.pages_migrated", .tool = "numascan",
      .tiers = NUMAREMOTE_TIERS, .kind = KIND_KNOWN_ANSWER, .needs = NEEDS_NUMAREMOTE,
      .tolerance = "64 pages of other VMAs above",
      .what = "threads on node 0, memory on node 1: remote hint faults, and "
	      "numa_pages_migrated = the pages the kernel moved to node 0")
{
	const struct numaremote_data *d = numaremote_get(r);

	if (!d || check_absent(r, d->remote, "numa_hint_faults_remote") ||
	    check_absent(r, d->migrated, "numa_pages_migrated"))
		return;
	if (!(d->remote > 0 && d->moved > 0)) {
		check_pass(r, false, "remote hint faults %.0f of %.0f, pages moved %ld (some of each needed)",
			   d->remote, d->faults, d->moved);
		return;
	}
	check_near(r, d->migrated, (double)d->moved, 0, OTHER_PAGES,
		   "numa_pages_migrated against the %ld of %ld pages numa_maps saw move to node %d (remote %.0f of %.0f hint faults, %.0f passes)",
		   d->moved, d->placed, CPU_NODE, d->remote, d->faults, d->passes);
}

CHECK(share_falls, .id = "numascan.known.numaremote.remote_share_falls", .tool = "numascan",
      .tiers = NUMAREMOTE_TIERS, .kind = KIND_KNOWN_ANSWER, .needs = NEEDS_NUMAREMOTE,
      .tolerance = "below the first interval's",
      .what = "the remote share falls as the pages move: the first interval with 50+ hint "
	      "faults at least 50% remote, the last below it")
{
	const struct numaremote_data *d = numaremote_get(r);
	char shares[MAX_INTERVALS * 5] = "";
	size_t used = 0;

	if (!d)
		return;
	for (int i = 0; i < d->nr_shares && used < sizeof(shares); i++)
		used += (size_t)snprintf(shares + used, sizeof(shares) - used, "%d ", d->shares[i]);
	if (d->nr_shares < 2 || d->shares[0] < 50) {
		check_pass(r, false, "remote %% per interval of 50+ hint faults: %s(two needed, the first at least 50)",
			   shares);
		return;
	}
	check_bounds(r, d->shares[d->nr_shares - 1], -INFINITY, d->shares[0] - 1, 0,
		     "the last interval's remote %% against the first's; per interval: %s", shares);
}

CHECK(pairs_node0, .id = "numascan.truth.numaremote.node_pairs_node0", .tool = "numascan",
      .tiers = NUMAREMOTE_TIERS, .kind = KIND_GROUND_TRUTH, .needs = NEEDS_NUMAREMOTE,
      .tolerance = "exact (1 in 10000 in the kprobe tier)",
      .what = "node_pairs: the hint faults from node-0 CPUs = ftrace's count of numaremote's "
	      "task_numa_fault() calls there")
{
	const struct numaremote_data *d = numaremote_get(r);
	double slack;

	if (!d)
		return;
	if (d->trace_lost || d->ftrace_node0 <= 0) {
		check_pass(r, false, "ftrace counted %ld calls on node %d, %ld events lost",
			   d->ftrace_node0, CPU_NODE, d->trace_lost);
		return;
	}
	slack = kprobe_slack(r, d->pairs_node0 + d->pairs_other);
	check_bounds(r, d->pairs_node0, (double)d->ftrace_node0 - slack,
		     (double)d->ftrace_node0 + slack, slack,
		     "node_pairs' faults from node %d CPUs against ftrace's %ld calls", CPU_NODE,
		     d->ftrace_node0);
}

CHECK(pairs_other, .id = "numascan.truth.numaremote.node_pairs_other_nodes", .tool = "numascan",
      .tiers = NUMAREMOTE_TIERS, .kind = KIND_GROUND_TRUTH, .needs = NEEDS_NUMAREMOTE,
      .tolerance = "exact (1 in 10000 in the kprobe tier)",
      .what = "node_pairs: the hint faults from other nodes' CPUs = ftrace's count of "
	      "numaremote's task_numa_fault() calls there")
{
	const struct numaremote_data *d = numaremote_get(r);
	double slack;

	if (!d)
		return;
	if (d->trace_lost) {
		check_pass(r, false, "ftrace lost %ld events", d->trace_lost);
		return;
	}
	slack = kprobe_slack(r, d->pairs_node0 + d->pairs_other);
	check_bounds(r, d->pairs_other, (double)d->ftrace_other - slack,
		     (double)d->ftrace_other + slack, slack,
		     "node_pairs' faults from other nodes against ftrace's %ld calls (%s)",
		     d->ftrace_other, d->ftrace_other_where[0] ? d->ftrace_other_where : "none");
}

CHECK(pairs_pinned, .id = "numascan.known.numaremote.node_pairs_pinned", .tool = "numascan",
      .tiers = NUMAREMOTE_TIERS, .kind = KIND_KNOWN_ANSWER, .needs = NEEDS_NUMAREMOTE,
      .tolerance = "1 in 10000 from other nodes, each seen by ftrace too",
      .what = "node_pairs: hint faults from node-0 CPUs, where numaremote's threads are "
	      "pinned, some on node-1 memory")
{
	const struct numaremote_data *d = numaremote_get(r);
	double all, slack;

	if (!d)
		return;
	all = d->pairs_node0 + d->pairs_other;
	slack = kprobe_slack(r, all);
	if (!(d->pairs_node0_on_mem > 0) || d->pairs_other > (double)d->ftrace_other + slack) {
		check_pass(r, false, "faults from node %d on node %d memory %.0f (some needed), from other nodes %.0f against ftrace's %ld (%s); threads (tid:CPUs): %s",
			   CPU_NODE, MEM_NODE, d->pairs_node0_on_mem, d->pairs_other,
			   d->ftrace_other, d->ftrace_other_where, d->tasks);
		return;
	}
	check_bounds(r, d->pairs_other, -INFINITY, floor(all / 10000), floor(all / 10000),
		     "node_pairs' faults from other nodes of %.0f (node %d on node %d memory: %.0f); threads (tid:CPUs): %s",
		     all, CPU_NODE, MEM_NODE, d->pairs_node0_on_mem, d->tasks);
}

CHECK(moves_faults, .id = "numascan.consistency.numaremote.migration_pairs_faults",
      .tool = "numascan", .tiers = NUMAREMOTE_TIERS, .kind = KIND_CONSISTENCY,
      .needs = NEEDS_NUMAREMOTE,
      .tolerance = "exact (1 in 10000 in the kprobe tier); refused inserts at most 1 in 10000",
      .what = "migration_pairs: the rows and the inserts the table says it was refused add "
	      "up to numa_hint_faults_migrated")
{
	const struct numaremote_data *d = numaremote_get(r);
	double slack;

	if (!d || check_absent(r, d->migrated_faults, "numa_hint_faults_migrated"))
		return;
	if (!(d->moves_faults > 0) || d->moves_dropped > (long)(d->migrated_faults / 10000)) {
		check_pass(r, false, "migration_pairs' faults %.0f (some needed), refused inserts %ld (%s; at most %.0f)",
			   d->moves_faults, d->moves_dropped, d->moves_dropped_error,
			   floor(d->migrated_faults / 10000));
		return;
	}
	slack = kprobe_slack(r, d->migrated_faults);
	check_near(r, d->moves_faults + (double)d->moves_dropped, d->migrated_faults, slack, 0,
		   "migration_pairs' faults %.0f and %ld refused inserts (%s) against numa_hint_faults_migrated",
		   d->moves_faults, d->moves_dropped, d->moves_dropped_error);
}

CHECK(moves_direction, .id = "numascan.known.numaremote.migration_pairs_direction",
      .tool = "numascan", .tiers = NUMAREMOTE_TIERS, .kind = KIND_KNOWN_ANSWER,
      .needs = NEEDS_NUMAREMOTE,
      .tolerance = "the calls ftrace saw from other nodes (1 in 10000 more in the kprobe tier)",
      .what = "migration_pairs: every migrated hint fault moved its page 1 -> 0, but for a "
	      "call from a node-1 CPU")
{
	const struct numaremote_data *d = numaremote_get(r);
	double slack;

	if (!d)
		return;
	slack = kprobe_slack(r, d->migrated_faults);
	check_bounds(r, d->moves_other, -INFINITY, (double)d->ftrace_other + slack, slack,
		     "migrated faults not %d -> %d of %.0f, against ftrace's %ld calls from other nodes",
		     MEM_NODE, CPU_NODE, d->moves_faults, d->ftrace_other);
}

CHECK(moves_pages, .id = "numascan.known.numaremote.migration_pairs_pages", .tool = "numascan",
      .tiers = NUMAREMOTE_TIERS, .kind = KIND_KNOWN_ANSWER, .needs = NEEDS_NUMAREMOTE,
      .tolerance = "64 pages of other VMAs above; the refused inserts (and 1 in 10000 in the "
		   "kprobe tier) below",
      .what = "migration_pairs: the rows' pages = what numa_maps saw move")
{
	const struct numaremote_data *d = numaremote_get(r);
	double slack;

	if (!d)
		return;
	slack = kprobe_slack(r, d->migrated_faults) + (double)d->moves_dropped;
	check_near(r, d->moves_pages, (double)d->moved, slack, OTHER_PAGES,
		   "migration_pairs' pages against the %ld pages numa_maps saw move", d->moved);
}

CHECK(moves_timed, .id = "numascan.consistency.numaremote.migration_pairs_timed",
      .tool = "numascan", .tiers = NUMAREMOTE_TIERS, .kind = KIND_CONSISTENCY,
      .needs = NEEDS_NUMAREMOTE, .tolerance = "exact",
      .what = "migration_pairs: each row that migrated has its time (numa_migration_ns > 0)")
{
	const struct numaremote_data *d = numaremote_get(r);

	if (d)
		check_bounds(r, (double)d->moves_untimed, 0, 0, 0,
			     "rows with migrated faults and no numa_migration_ns");
}

CHECK(svg_cells, .id = "numascan.consistency.numaremote.svg_cells", .tool = "numascan",
      .tiers = NUMAREMOTE_TIERS, .kind = KIND_CONSISTENCY, .needs = NEEDS_NUMAREMOTE,
      .tolerance = "exact",
      .what = "--svg: a cell per CPU node x memory node of node_pairs and per source x "
	      "destination of migration_pairs, each labelled with its count")
{
	const struct numaremote_data *d = numaremote_get(r);
	long want;

	if (!d)
		return;
	want = (long)d->pairs_cpu_nodes * d->pairs_mem_nodes +
	       (long)d->moves_from_nodes * d->moves_to_nodes;
	if (d->pairs_cpu_nodes == 0 || d->moves_from_nodes == 0 || d->svg_missing[0]) {
		check_pass(r, false, "node_pairs over %d x %d nodes, migration_pairs over %d x %d (rows of each needed); counts not labelled in the SVG: '%s'",
			   d->pairs_cpu_nodes, d->pairs_mem_nodes, d->moves_from_nodes,
			   d->moves_to_nodes, d->svg_missing);
		return;
	}
	check_bounds(r, (double)d->svg_cells, (double)want, (double)want, 0,
		     "the SVG's cells against %d x %d + %d x %d nodes, every count labelled",
		     d->pairs_cpu_nodes, d->pairs_mem_nodes, d->moves_from_nodes,
		     d->moves_to_nodes);
}

CHECK(local_pct, .id = "numascan.consistency.numaremote.hint_local_pct", .tool = "numascan",
      .tiers = NUMAREMOTE_TIERS, .kind = KIND_CONSISTENCY, .needs = NEEDS_NUMAREMOTE,
      .tolerance = "0.01 points",
      .what = "numa_hint_local_pct = 100 numa_hint_faults_local / numa_hint_faults")
{
	const struct numaremote_data *d = numaremote_get(r);

	if (d)
		check_percent(r, d->local_pct, "numa_hint_local_pct", d->local, d->faults, false);
}

CHECK(fault_pct, .id = "numascan.consistency.numaremote.pte_fault_pct", .tool = "numascan",
      .tiers = NUMAREMOTE_TIERS, .kind = KIND_CONSISTENCY, .needs = NEEDS_NUMAREMOTE,
      .tolerance = "0.01 points",
      .what = "numa_pte_fault_pct = 100 numa_hint_faults / numa_pte_updates")
{
	const struct numaremote_data *d = numaremote_get(r);

	if (d)
		check_percent(r, d->pte_fault_pct, "numa_pte_fault_pct", d->faults, d->pte_updates,
			      false);
}

CHECK(vmas_sum, .id = "numascan.consistency.numaremote.vmas_faults", .tool = "numascan",
      .tiers = NUMAREMOTE_TIERS, .kind = KIND_CONSISTENCY, .needs = NEEDS_NUMAREMOTE,
      .tolerance = "exact (1 in 10000 in the kprobe tier)",
      .what = "the vmas rows' hint faults add up to numa_hint_faults")
{
	const struct numaremote_data *d = numaremote_get(r);
	double slack;

	if (!d || check_absent(r, d->faults, "numa_hint_faults"))
		return;
	slack = kprobe_slack(r, d->faults);
	check_near(r, d->vma_faults, d->faults, slack, 0,
		   "the vmas rows' hint faults against numa_hint_faults");
}

CHECK(task_share, .id = "numascan.consistency.numaremote.task_faults", .tool = "numascan",
      .tiers = NUMAREMOTE_TIERS, .kind = KIND_CONSISTENCY, .needs = NEEDS_NUMAREMOTE,
      .tolerance = "1% below",
      .what = "numa_task_faults is 99-100% of numa_hint_faults: task_numa_fault() follows "
	      "each but those whose failed migration found the PTE changed")
{
	const struct numaremote_data *d = numaremote_get(r);

	if (!d || check_absent(r, d->faults, "numa_hint_faults") ||
	    check_absent(r, d->task_faults, "numa_task_faults"))
		return;
	check_near(r, d->task_faults, d->faults, 0.01 * d->faults, 0,
		   "numa_task_faults against %.0f hint faults", d->faults);
}

CHECK(vma_names, .id = "numascan.known.numaremote.vma_names", .tool = "numascan",
      .tiers = NUMAREMOTE_TIERS, .kind = KIND_KNOWN_ANSWER, .needs = NEEDS_NUMAREMOTE,
      .tolerance = "exact",
      .what = "numaremote's vmas rows are named as its /proc/PID/maps, resolved before it "
	      "exited ([anon] buffer, [heap])")
{
	const struct numaremote_data *d = numaremote_get(r);

	if (!d)
		return;
	if (!d->maps_read || d->name_rows == 0 || d->name_anon == 0 || d->name_heap == 0) {
		check_pass(r, false, "/proc/PID/maps %s; %d rows of numaremote, %d [anon], %d [heap] (one of each needed)",
			   d->maps_read ? "read" : "not read", d->name_rows, d->name_anon,
			   d->name_heap);
		return;
	}
	check_bounds(r, d->name_bad, 0, 0, 0, "rows named otherwise than maps of %d (%d [anon], %d [heap]) %s",
		     d->name_rows, d->name_anon, d->name_heap, d->name_detail);
}
