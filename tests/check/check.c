// SPDX-License-Identifier: GPL-2.0
/*
 * check: runs the registered checks (check.h) and prints TAP, one line a
 * result keyed by the check's id and tier:
 *
 *   ok 3 - idlebal.known.overload.pinned_llc [tracepoint]: 99.41 in
 *     [98.10, 101.00], margin 1.31 = 1.31x the tolerance 1 (...) [known answer]
 *
 * then the ten results closest to their tolerance, "N passed, N failed,
 * N skipped" and the plan. Exit 0 when nothing failed, 1 otherwise, 2 on a
 * usage error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <ftw.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "util.h"

extern const struct check_def *const __start_schedscan_checks[];
extern const struct check_def *const __stop_schedscan_checks[];

struct check_env check_env;

enum result_state { RESULT_NONE, RESULT_PASS, RESULT_FAIL, RESULT_SKIP };

struct check_run {
	const struct check_def *def;
	enum check_tier tier;
	enum result_state state;
};

/* What the summary needs of each result with a tolerance. */
struct margin_row {
	char *id;
	double ratio;		/* margin / tolerance: 0 at the edge, < 0 failed */
	double margin, tolerance;
};
static struct margin_row *margins;
static size_t nr_margins, margins_cap;
static int nr_results, nr_passed, nr_failed, nr_skipped;

static const char *const kind_names[] = {
	[KIND_GROUND_TRUTH] = "ground truth",
	[KIND_KNOWN_ANSWER] = "known answer",
	[KIND_CONSISTENCY] = "consistency",
	[KIND_BEHAVIOUR] = "behaviour",
};
/* --kind takes the id's second word. */
static const char *const kind_words[] = {
	[KIND_GROUND_TRUTH] = "truth",
	[KIND_KNOWN_ANSWER] = "known",
	[KIND_CONSISTENCY] = "consistency",
	[KIND_BEHAVIOUR] = "behaviour",
};

const char *check_tier_name(enum check_tier tier)
{
	switch (tier) {
	case TIER_FENTRY:
		return "fentry";
	case TIER_KPROBE:
		return "kprobe";
	case TIER_TRACEPOINT:
		return "tracepoint";
	}
	return "?";
}

enum check_tier check_tier(const struct check_run *r)
{
	return r->tier;
}

static void print_result(struct check_run *r, enum result_state state, const char *directive,
			 const char *fmt, va_list ap)
{
	if (r->state != RESULT_NONE) {
		/* One result a check and tier: a second is a bug of the check. */
		fprintf(stdout, "# %s [%s]: a second result, ignored\n", r->def->id,
			check_tier_name(r->tier));
		return;
	}
	r->state = state;
	nr_results++;
	printf("%s %d - %s [%s]: ", state == RESULT_FAIL ? "not ok" : "ok", nr_results, r->def->id,
	       check_tier_name(r->tier));
	vprintf(fmt, ap);
	printf(" [%s]%s\n", kind_names[r->def->kind], directive ? directive : "");
	fflush(stdout);
	if (state == RESULT_PASS)
		nr_passed++;
	else if (state == RESULT_FAIL)
		nr_failed++;
	else
		nr_skipped++;
}

static void print_fmt(struct check_run *r, enum result_state s, const char *d, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void print_fmt(struct check_run *r, enum result_state s, const char *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	print_result(r, s, d, fmt, ap);
	va_end(ap);
}

/*
 * One bounded result: value against [lo, hi], its margin (negative when
 * outside) and what the margin is read against (0: exact, no margin row).
 */
static void bounds_result(struct check_run *r, double value, double lo, double hi,
			  double margin, double tolerance, const char *detail)
{
	bool ok = value >= lo && value <= hi && !isnan(value);
	struct strbuf text = { 0 };

	if (isinf(lo) && lo < 0)
		strbuf_printf(&text, "%.4g, at most %.4g, margin %.3g", value, hi, margin);
	else if (isinf(hi))
		strbuf_printf(&text, "%.4g, at least %.4g, margin %.3g", value, lo, margin);
	else
		strbuf_printf(&text, "%.4g in [%.4g, %.4g], margin %.3g", value, lo, hi, margin);
	if (tolerance > 0)
		strbuf_printf(&text, " = %.2fx the tolerance %.3g", margin / tolerance, tolerance);
	strbuf_printf(&text, " (%s)", detail ? detail : "?");
	if (tolerance > 0 && !grow_array((void **)&margins, &margins_cap, nr_margins + 1,
					  sizeof(*margins))) {
		struct margin_row *m = &margins[nr_margins];

		if (asprintf(&m->id, "%s [%s]", r->def->id, check_tier_name(r->tier)) >= 0) {
			m->ratio = isnan(value) ? -INFINITY : margin / tolerance;
			m->margin = margin;
			m->tolerance = tolerance;
			nr_margins++;
		}
	}
	check_pass(r, ok, "%s", text.buf ? text.buf : "");
	strbuf_free(&text);
}

void check_bounds(struct check_run *r, double value, double lo, double hi, double tolerance,
		  const char *fmt, ...)
{
	char *detail = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&detail, fmt, ap) < 0)
		detail = NULL;
	va_end(ap);
	bounds_result(r, value, lo, hi, fmin(value - lo, hi - value), tolerance, detail);
	free(detail);
}

void check_near(struct check_run *r, double value, double ref, double below, double above,
		const char *fmt, ...)
{
	double lo = ref - below, hi = ref + above;
	/* the side that limits: the smaller share of its room left */
	double ratio_lo = below > 0 ? (value - lo) / below : INFINITY;
	double ratio_hi = above > 0 ? (hi - value) / above : INFINITY;
	double margin, tolerance;
	char *detail = NULL;
	va_list ap;

	if (value < ref && !(below > 0)) {
		/* past an exact side: failed by that much */
		margin = value - ref;
		tolerance = fmax(below, above);
	} else if (value > ref && !(above > 0)) {
		margin = ref - value;
		tolerance = fmax(below, above);
	} else if (ratio_lo <= ratio_hi) {
		margin = value - lo;
		tolerance = below;
	} else {
		margin = hi - value;
		tolerance = above;
	}
	va_start(ap, fmt);
	if (vasprintf(&detail, fmt, ap) < 0)
		detail = NULL;
	va_end(ap);
	bounds_result(r, value, lo, hi, margin, tolerance, detail);
	free(detail);
}

void check_pass(struct check_run *r, bool ok, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	print_result(r, ok ? RESULT_PASS : RESULT_FAIL, NULL, fmt, ap);
	va_end(ap);
}

void check_percent(struct check_run *r, double pct, const char *name, double part,
		   double whole, bool whole_may_be_0)
{
	if (check_absent(r, pct, name) || check_absent(r, part, "the percentage's part") ||
	    check_absent(r, whole, "the percentage's whole"))
		return;
	if (!(whole > 0)) {
		if (whole_may_be_0)
			check_skip(r, "nothing to take a share of (%.0f)", whole);
		else
			check_pass(r, false, "%s: nothing to take a share of (%.0f)", name, whole);
		return;
	}
	/*
	 * 0.01: the tool's rounding to two decimals, not noise: it can never
	 * be used up, so it has no margin among the closest.
	 */
	check_bounds(r, pct, 100 * part / whole - 0.01, 100 * part / whole + 0.01, 0,
		     "%s against 100 x %.0f / %.0f", name, part, whole);
}

bool check_absent(struct check_run *r, double value, const char *what)
{
	if (!isnan(value))
		return false;
	check_pass(r, false, "%s reported no %s", r->def->tool, what);
	return true;
}

void check_skip(struct check_run *r, const char *fmt, ...)
{
	char *why = NULL;
	char directive[600];
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&why, fmt, ap) < 0)
		why = NULL;
	va_end(ap);
	snprintf(directive, sizeof(directive), " # SKIP %s", why ? why : "?");
	free(why);
	print_fmt(r, RESULT_SKIP, directive, "%s", r->def->what);
}

void check_diag(struct check_run *r, const char *fmt, ...)
{
	va_list ap;

	(void)r;
	printf("#   ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* ------------------------------------------------------------ scenarios */

struct scenario_result {
	const struct scenario *s;
	enum check_tier tier;
	void *data;
	char err[512];
	int ret;
};
static struct scenario_result *scenario_results;
static size_t nr_scenario_results, scenario_results_cap;

const void *scenario_get(struct check_run *r, const struct scenario *s)
{
	return scenario_get_tier(r, s, r->tier);
}

const void *scenario_get_tier(struct check_run *r, const struct scenario *s,
			      enum check_tier tier)
{
	struct scenario_result *sr = NULL;

	for (size_t i = 0; i < nr_scenario_results; i++)
		if (scenario_results[i].s == s && scenario_results[i].tier == tier)
			sr = &scenario_results[i];
	if (!sr) {
		double t0 = monotonic_seconds();

		if (grow_array((void **)&scenario_results, &scenario_results_cap,
			       nr_scenario_results + 1, sizeof(*scenario_results))) {
			check_pass(r, false, "scenario %s: out of memory", s->name);
			return NULL;
		}
		sr = &scenario_results[nr_scenario_results++];
		memset(sr, 0, sizeof(*sr));
		sr->s = s;
		sr->tier = tier;
		sr->data = calloc(1, s->size);
		if (!sr->data) {
			sr->ret = -1;
			snprintf(sr->err, sizeof(sr->err), "out of memory");
		} else {
			sr->ret = s->run(tier, sr->data, sr->err, sizeof(sr->err));
		}
		printf("# time: scenario %s [%s] %.1f s\n", s->name, check_tier_name(tier),
		       monotonic_seconds() - t0);
	}
	if (sr->ret) {
		check_pass(r, false, "scenario %s [%s] did not run: %s", s->name,
			   check_tier_name(tier), sr->err);
		return NULL;
	}
	return sr->data;
}

/* ------------------------------------------------------------ selection */

static bool list_has(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; p && *p;) {
		size_t len = strcspn(p, ",");

		if (len == n && !strncmp(p, word, n))
			return true;
		p += len;
		p += *p == ',';
	}
	return false;
}

static bool id_selected(const char *patterns, const char *id)
{
	char *copy, *save = NULL;
	bool hit = false;

	if (!patterns)
		return true;
	copy = strdup(patterns);
	if (!copy)
		return false;
	for (char *p = strtok_r(copy, ",", &save); p && !hit; p = strtok_r(NULL, ",", &save))
		hit = !fnmatch(p, id, 0);
	free(copy);
	return hit;
}

/* --id, --skip and --kind. */
static bool selected(const struct check_def *def, const char *ids, const char *skips,
		     const char *kinds)
{
	return id_selected(ids, def->id) && !(skips && id_selected(skips, def->id)) &&
	       !(kinds && !list_has(kinds, kind_words[def->kind]));
}

/* The reason the machine cannot run the check, or NULL. */
static const char *needs_unmet(unsigned int needs)
{
	const struct topology *t = &check_env.topo;

	if ((needs & NEED_ROOT) && geteuid())
		return "needs root";
	if (needs & NEED_CPUS4) {
		for (int cpu = 0; cpu < 4; cpu++)
			if (cpu >= t->nr_cpu_ids || t->llc_of_cpu[cpu] < 0 ||
			    t->llc_of_cpu[cpu] != t->llc_of_cpu[0])
				return "needs CPUs 0-3 online in one LLC";
	}
	if ((needs & NEED_LLCS2) && t->nr_llcs < 2)
		return "needs two LLCs";
	if (needs & NEED_NODES2) {
		bool on[2] = { false, false };

		for (int cpu = 0; cpu < t->nr_cpu_ids; cpu++)
			if (t->node_of_cpu[cpu] == 0 || t->node_of_cpu[cpu] == 1)
				on[t->node_of_cpu[cpu]] = true;
		if (!on[0] || !on[1])
			return "needs NUMA nodes 0 and 1 with CPUs";
	}
	return NULL;
}

static const char *tiers_text(unsigned int tiers, char *buf, size_t len)
{
	buf[0] = '\0';
	for (unsigned int t = TIER_FENTRY; t <= TIER_TRACEPOINT; t <<= 1)
		if (tiers & t)
			snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? "," : "",
				 check_tier_name((enum check_tier)t));
	return buf;
}

/* The registry in id order (the linker's section order is the compiler's). */
static const struct check_def **registry;
static size_t nr_registry;

static int cmp_id(const void *a, const void *b)
{
	return strcmp((*(const struct check_def *const *)a)->id,
		      (*(const struct check_def *const *)b)->id);
}

static int load_registry(void)
{
	/* the linker places the section's entries between its two symbols */
	// cppcheck-suppress comparePointers
	nr_registry = (size_t)(__stop_schedscan_checks - __start_schedscan_checks);
	registry = malloc((nr_registry ? nr_registry : 1) * sizeof(*registry));
	if (!registry)
		return -1;
	memcpy(registry, __start_schedscan_checks, nr_registry * sizeof(*registry));
	qsort(registry, nr_registry, sizeof(*registry), cmp_id);
	for (size_t i = 1; i < nr_registry; i++)
		if (!strcmp(registry[i]->id, registry[i - 1]->id)) {
			fprintf(stderr, "check: two checks are registered as %s\n", registry[i]->id);
			return -1;
		}
	return 0;
}

static const char *needs_text(unsigned int needs, char *buf, size_t len)
{
	static const char *const names[] = { "root", "cpus4", "llcs2", "nodes2" };

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (needs & (1u << i))
			snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? "," : "",
				 names[i]);
	if (!buf[0])
		snprintf(buf, len, "-");
	return buf;
}

static int cmp_margin(const void *a, const void *b)
{
	const struct margin_row *x = a, *y = b;

	return x->ratio < y->ratio ? -1 : x->ratio > y->ratio;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: check [--list] [--id GLOB[,GLOB]] [--skip GLOB[,GLOB]] [--tier TIER[,TIER]]\n"
		"             [--kind KIND[,KIND]]"
" [--bin DIR] [--workloads DIR] [--work DIR]\n"
		"Runs schedscan's registered checks and prints TAP keyed by check id.\n"
		"  --list        print the registry: id, tool, tiers, kind, needs, tolerance\n"
		"                (with --id and --kind: the checks they select)\n"
		"  --id          only the checks whose id matches a glob\n"
		"  --skip        not the checks whose id matches a glob\n"
		"  --tier        fentry, kprobe, tracepoint (default: all three)\n"
		"  --kind        truth, known, consistency, behaviour\n"
		"  --bin         the tools' directory ($SCHEDSCAN_BIN, default build)\n"
		"  --workloads   the workloads' directory ($SCHEDSCAN_BUILD/workloads, else\n"
		"                BIN/workloads)\n"
		"  --work        the scratch directory (default a new one in /tmp, removed)\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "list", no_argument, NULL, 'l' },   { "id", required_argument, NULL, 'i' },
		{ "skip", required_argument, NULL, 's' },
		{ "tier", required_argument, NULL, 't' }, { "kind", required_argument, NULL, 'k' },
		{ "bin", required_argument, NULL, 'b' }, { "workloads", required_argument, NULL, 'w' },
		{ "work", required_argument, NULL, 'W' }, { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *ids = NULL, *skips = NULL, *tiers = "fentry,kprobe,tracepoint", *kinds = NULL;
	char err[256], buf[64], needs[64], *workloads = NULL, work[] = "/tmp/schedscan-check.XXXXXX";
	const char *work_dir = NULL;
	bool list = false;
	int opt;

	setvbuf(stdout, NULL, _IOLBF, 0);
	check_env.bin = getenv("SCHEDSCAN_BIN") ? getenv("SCHEDSCAN_BIN") : "build";
	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'l': list = true; break;
		case 'i': ids = optarg; break;
		case 's': skips = optarg; break;
		case 't': tiers = optarg; break;
		case 'k': kinds = optarg; break;
		case 'b': check_env.bin = optarg; break;
		case 'w': check_env.workloads = optarg; break;
		case 'W': work_dir = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "check: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	for (const char *p = tiers; *p;) {
		size_t len = strcspn(p, ",");

		if (!((len == 6 && !strncmp(p, "fentry", 6)) || (len == 6 && !strncmp(p, "kprobe", 6)) ||
		      (len == 10 && !strncmp(p, "tracepoint", 10)))) {
			fprintf(stderr, "check: unknown tier '%.*s' in --tier (fentry, kprobe, tracepoint)\n",
				(int)len, p);
			return 2;
		}
		p += len;
		p += *p == ',';
	}
	for (const char *p = kinds; p && *p;) {
		size_t len = strcspn(p, ",");
		bool known = false;

		for (size_t k = 0; k < sizeof(kind_words) / sizeof(kind_words[0]); k++)
			known |= strlen(kind_words[k]) == len && !strncmp(p, kind_words[k], len);
		if (!known) {
			fprintf(stderr, "check: unknown kind '%.*s' in --kind (truth, known, consistency, behaviour)\n",
				(int)len, p);
			return 2;
		}
		p += len;
		p += *p == ',';
	}

	if (load_registry())
		return 1;
	if (list) {
		int width = 2;	/* the longest id's, so that the columns line up */

		for (const struct check_def **d = registry; d < registry + nr_registry; d++)
			if (selected(*d, ids, skips, kinds) && (int)strlen((*d)->id) > width)
				width = (int)strlen((*d)->id);
		printf("%-*s %-8s %-24s %-11s %-16s %s\n", width, "ID", "TOOL", "TIERS", "KIND",
		       "NEEDS", "TOLERANCE");
		for (const struct check_def **d = registry; d < registry + nr_registry; d++) {
			if (!selected(*d, ids, skips, kinds))
				continue;
			printf("%-*s %-8s %-24s %-11s %-16s %s\n", width, (*d)->id, (*d)->tool,
			       tiers_text((*d)->tiers, buf, sizeof(buf)), kind_words[(*d)->kind],
			       needs_text((*d)->needs, needs, sizeof(needs)), (*d)->tolerance);
		}
		free(registry);
		return 0;
	}

	if (topology_load(&check_env.topo, NULL, err, sizeof(err))) {
		fprintf(stderr, "check: %s\n", err);
		return 1;
	}
	if (!check_env.workloads) {
		/* make check's: SCHEDSCAN_BUILD/workloads, whatever the tools' build */
		const char *build = getenv("SCHEDSCAN_BUILD");

		if (asprintf(&workloads, "%s/workloads", build && *build ? build : check_env.bin) < 0)
			return 1;
		check_env.workloads = workloads;
	}
	if (work_dir) {
		check_env.work = work_dir;
		if (mkdir(work_dir, 0700) && errno != EEXIST) {
			fprintf(stderr, "check: cannot create %s: %s\n", work_dir, strerror(errno));
			return 1;
		}
	} else {
		/* mkdtemp: a fresh directory of ours, never one planted for us */
		if (!mkdtemp(work)) {
			fprintf(stderr, "check: cannot create a scratch directory: %s\n", strerror(errno));
			return 1;
		}
		check_env.work = work;
	}

	for (const struct check_def **d = registry; d < registry + nr_registry; d++) {
		const struct check_def *def = *d;
		const char *unmet;

		if (!selected(def, ids, skips, kinds))
			continue;
		unmet = needs_unmet(def->needs);
		for (unsigned int t = TIER_FENTRY; t <= TIER_TRACEPOINT; t <<= 1) {
			struct check_run r = { .def = def, .tier = (enum check_tier)t };

			if (!(def->tiers & t) || !list_has(tiers, check_tier_name(r.tier)))
				continue;
			if (unmet) {
				check_skip(&r, "%s", unmet);
				continue;
			}
			def->run(&r);
			if (r.state == RESULT_NONE)
				print_fmt(&r, RESULT_FAIL, NULL, "the check reported no result");
		}
	}

	if (nr_margins) {
		qsort(margins, nr_margins, sizeof(*margins), cmp_margin);
		printf("# closest to their tolerance (margin / tolerance):\n");
		for (size_t i = 0; i < nr_margins && i < 10; i++)
			printf("#   %6.2f  %s (margin %.3g of %.3g)\n", margins[i].ratio, margins[i].id,
			       margins[i].margin, margins[i].tolerance);
	}
	printf("# %d passed, %d failed, %d skipped\n", nr_passed, nr_failed, nr_skipped);
	printf("1..%d\n", nr_results);
	for (size_t i = 0; i < nr_margins; i++)
		free(margins[i].id);
	free(margins);
	for (size_t i = 0; i < nr_scenario_results; i++)
		free(scenario_results[i].data);
	free(scenario_results);
	free(registry);
	free(workloads);
	topology_free(&check_env.topo);
	/* our own scratch: removed, unless a failure's files are worth a look */
	if (!work_dir && nr_failed)
		printf("# the failed checks' files are kept in %s\n", work);
	else if (!work_dir)
		nftw(work, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	return nr_failed ? 1 : 0;
}
