/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tests/check: the check runner shared by the host and the guests.
 *
 * A check is a C function registered under a stable dotted id
 * (TOOL.KIND.SCENARIO.QUANTITY, e.g. "idlebal.known.overload.pinned_llc"),
 * with the tiers it runs in, its kind, what it needs of the machine and its
 * tolerance. It runs once per selected tier and reports one result: the
 * measured value, the bounds the reference and the tolerance give, and the
 * margin left to them. Checks that share a workload share a scenario, run
 * once per tier and cached (scenario_get()).
 *
 * Modelled on the kernel's selftests/bpf test_progs (tests registered by
 * name, selected with globs) and sched_ext's REGISTER_SCX_TEST.
 */
#ifndef SCHEDSCAN_CHECK_H
#define SCHEDSCAN_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "topology.h"

enum check_tier {
	TIER_FENTRY = 1 << 0,
	TIER_KPROBE = 1 << 1,
	TIER_TRACEPOINT = 1 << 2,
};
#define TIER_ALL (TIER_FENTRY | TIER_KPROBE | TIER_TRACEPOINT)

/* The kinds, as tests/run-suites.sh counts them ("[known answer]"). */
enum check_kind {
	KIND_GROUND_TRUTH,
	KIND_KNOWN_ANSWER,
	KIND_CONSISTENCY,
	KIND_BEHAVIOUR,
};

/* What a check needs of the machine; a check whose needs fail is a SKIP. */
enum check_need {
	NEED_ROOT = 1 << 0,
	NEED_CPUS4 = 1 << 1,	/* CPUs 0-3 online, in one LLC */
	NEED_LLCS2 = 1 << 2,	/* at least two LLCs */
	NEED_NODES2 = 1 << 3,	/* NUMA nodes 0 and 1, each with CPUs */
};

struct check_run;

struct check_def {
	const char *id;		/* stable: the matrix and the mutation selftest key on it */
	const char *tool;
	unsigned int tiers;	/* enum check_tier */
	enum check_kind kind;
	unsigned int needs;	/* enum check_need */
	const char *tolerance;	/* one phrase: "1 point of the window's share" */
	const char *what;	/* one sentence: what holds when it passes */
	void (*run)(struct check_run *r);
};

/*
 * CHECK(name, .id = ..., ...) { body }: defines and registers one check.
 * The registry is an array of pointers in the "schedscan_checks" section,
 * which the linker brackets with __start_/__stop_ symbols, in static
 * builds too.
 */
#define CHECK(name, ...)							\
	static void name##_run(struct check_run *r);				\
	static const struct check_def name##_def = { .run = name##_run, __VA_ARGS__ }; \
	static const struct check_def *const name##_ptr				\
		__attribute__((used, section("schedscan_checks"))) = &name##_def; \
	static void name##_run(struct check_run *r)

/* The environment a check runs in (set once by main). */
struct check_env {
	const char *bin;	/* the tools' directory */
	const char *workloads;	/* the workloads' directory */
	const char *work;	/* scratch directory */
	struct topology topo;
	bool verbose;
};
extern struct check_env check_env;

/* The tier a check runs in now, and its name ("tracepoint"). */
enum check_tier check_tier(const struct check_run *r);
const char *check_tier_name(enum check_tier tier);

/*
 * The one result of a check: pass iff lo <= value <= hi. tolerance is the
 * slack the bounds include (the margin is read against it; 0 for an exact
 * check), detail says what was measured against what. A side that is no
 * tolerance (a share cannot be below 0) is -INFINITY or INFINITY: "at
 * most", "at least", and the margin is the other side's.
 */
void check_bounds(struct check_run *r, double value, double lo, double hi, double tolerance,
		  const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/*
 * The one result of a check against a reference: pass iff ref - below <=
 * value <= ref + above. A side of 0 is exact: a value on it is right, not
 * close to failing, so the margin is read on the sides with room, each
 * against its own room (a check that may lose 1% and never gain sits at
 * 1.00x when it loses nothing).
 */
void check_near(struct check_run *r, double value, double ref, double below, double above,
		const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/*
 * A percentage the tool computed, pct = 100 part / whole, within 0.01
 * points ("TOOL reported no NAME" when absent). A whole of 0 is a SKIP
 * when whole_may_be_0 (nothing to take a share of), else a failure.
 */
void check_percent(struct check_run *r, double pct, const char *name, double part,
		   double whole, bool whole_may_be_0);
/* A pass or fail without a number (an exit status, a record's presence). */
void check_pass(struct check_run *r, bool ok, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * A value the check needs (NAN: the tool's record lacked it): false if
 * present, else the check fails with "TOOL reported no WHAT" and true.
 */
bool check_absent(struct check_run *r, double value, const char *what);
/* The check could not run here: a SKIP with the reason. */
void check_skip(struct check_run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A diagnostic line ("# ...") printed under the result. */
void check_diag(struct check_run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * A scenario: the workloads, the tool's run and the kernel's reads around
 * it, written once and run at most once per tier. run() fills data (size
 * bytes, zeroed first) and returns 0, or -1 with a sentence in err; every
 * check that asks for a failed scenario fails with that sentence.
 */
struct scenario {
	const char *name;
	size_t size;
	int (*run)(enum check_tier tier, void *data, char *err, size_t errlen);
};
/* The scenario's data for the check's tier, or NULL (the check has failed). */
const void *scenario_get(struct check_run *r, const struct scenario *s);
/*
 * The same for another tier: a consistency check holds its tier's run
 * against a reference tier's (run now if it has not been).
 */
const void *scenario_get_tier(struct check_run *r, const struct scenario *s,
			      enum check_tier tier);

#endif
