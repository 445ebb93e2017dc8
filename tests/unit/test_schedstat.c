/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tests for lib/schedstat.c.
 *
 * The hand-made samples (tests/fixtures/schedstat/v1[567]-sample.txt) give
 * every counter a value that encodes where it sits on the line:
 *
 *   cpu line:    (cpu index + 1) * 1000 + column (1-based; the two ns
 *                columns add 9000000000000 so they need 64 bits)
 *   domain line: (cpu index + 1) * 1000000 + level * 100000
 *                + (kernel column group + 1) * 1000 + column in group (1-based)
 *                trailing 12 values: same base + 4000 + 1..12
 *
 * so a parser that reads any column in the wrong place, or maps a column
 * group to the wrong idle type, fails with a value that says which one.
 * The expected kernel layouts are written out again here, independently of
 * the tables in schedstat.c.
 *
 * Real captures (tests/fixtures/schedstat/debian-*.txt) are checked against
 * what the kernel guarantees about its own counters.
 */
#include <errno.h>
#include <glob.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schedstat.h"
#include "unit.h"

const char *unit_suite_name = "schedstat";

/* ---- helpers ----------------------------------------------------------- */

static int load_fixture(const char *rel, struct schedstat *s, char *err,
			size_t errlen)
{
	char path[4096];

	unit_fixture_path(path, sizeof(path), rel);
	return schedstat_read(path, s, err, errlen);
}

static char *slurp_fixture(const char *rel)
{
	char path[4096];
	size_t len = 0, cap = 0;
	char *buf = NULL;
	FILE *f;

	unit_fixture_path(path, sizeof(path), rel);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	for (;;) {
		size_t n;

		if (len + 4097 > cap) {
			char *p = realloc(buf, cap ? cap * 2 : 8192);

			if (!p)
				break;
			buf = p;
			cap = cap ? cap * 2 : 8192;
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
		if (!n)
			break;
	}
	fclose(f);
	if (buf)
		buf[len] = '\0';
	return buf;
}

/* Replace the first @from in @text by @to; returns a new string. */
static char *replace_first(const char *text, const char *from, const char *to)
{
	const char *at = strstr(text, from);
	size_t flen = strlen(from), tlen = strlen(to), len = strlen(text);
	char *out;

	if (!at)
		return NULL;
	out = malloc(len - flen + tlen + 1);
	if (!out)
		return NULL;
	memcpy(out, text, (size_t)(at - text));
	memcpy(out + (at - text), to, tlen);
	strcpy(out + (at - text) + tlen, at + flen);
	return out;
}

/* Expected value of the hand-made samples, see the comment on top. */
static uint64_t sample_lb(int cpu_index, int level, int kernel_group, int col)
{
	return (uint64_t)(cpu_index + 1) * 1000000 + (uint64_t)level * 100000 +
	       (uint64_t)(kernel_group + 1) * 1000 + (uint64_t)col;
}

static uint64_t sample_trailing(int cpu_index, int level, int col)
{
	return (uint64_t)(cpu_index + 1) * 1000000 + (uint64_t)level * 100000 +
	       4000 + (uint64_t)col;
}

/*
 * Kernel column group holding each of our idle types. v15: enum
 * cpu_idle_type was CPU_IDLE, CPU_NOT_IDLE, CPU_NEWLY_IDLE; from v16 it is
 * __CPU_NOT_IDLE, CPU_IDLE, CPU_NEWLY_IDLE.
 */
static int kernel_group_of(int version, enum schedstat_idle_type t)
{
	if (version == 15)
		return t == SS_IDLE ? 0 : t == SS_BUSY ? 1 : 2;
	return t == SS_BUSY ? 0 : t == SS_IDLE ? 1 : 2;
}

/* 1-based column inside a group, or 0 when the version lacks the field. */
static int column_of(int version, enum schedstat_lb_field f)
{
	static const int v15[SS_LB_NR_FIELDS] = {
		[SS_LB_COUNT] = 1, [SS_LB_BALANCED] = 2, [SS_LB_FAILED] = 3,
		[SS_LB_IMBALANCE] = 4, [SS_LB_GAINED] = 5,
		[SS_LB_HOT_GAINED] = 6, [SS_LB_NOBUSYQ] = 7,
		[SS_LB_NOBUSYG] = 8,
	};
	static const int v17[SS_LB_NR_FIELDS] = {
		[SS_LB_COUNT] = 1, [SS_LB_BALANCED] = 2, [SS_LB_FAILED] = 3,
		[SS_LB_IMBALANCE_LOAD] = 4, [SS_LB_IMBALANCE_UTIL] = 5,
		[SS_LB_IMBALANCE_TASK] = 6, [SS_LB_IMBALANCE_MISFIT] = 7,
		[SS_LB_GAINED] = 8, [SS_LB_HOT_GAINED] = 9,
		[SS_LB_NOBUSYQ] = 10, [SS_LB_NOBUSYG] = 11,
	};

	return version >= 17 ? v17[f] : v15[f];
}

/* Check every counter of a hand-made sample against the encoding. */
static void check_sample_columns(const struct schedstat *s)
{
	size_t ci, li;
	int t, f;

	for (ci = 0; ci < s->nr_cpus; ci++) {
		const struct schedstat_cpu *c = &s->cpus[ci];
		uint64_t base = (uint64_t)(ci + 1) * 1000;

		CHECK_U64(c->yld_count, base + 1);
		CHECK_U64(c->sched_count, base + 3);
		CHECK_U64(c->sched_goidle, base + 4);
		CHECK_U64(c->ttwu_count, base + 5);
		CHECK_U64(c->ttwu_local, base + 6);
		CHECK_U64(c->rq_cpu_time, 9000000000000ULL + base + 7);
		CHECK_U64(c->run_delay, 9000000000000ULL + base + 8);
		CHECK_U64(c->pcount, base + 9);

		for (li = 0; li < c->nr_domains; li++) {
			const struct schedstat_domain *d = &c->domains[li];
			int level = (int)li;

			CHECK_INT(d->level, level);
			for (t = 0; t < SS_NR_IDLE_TYPES; t++) {
				int g = kernel_group_of(s->version, t);
				uint64_t split = 0;

				for (f = 0; f < SS_LB_NR_FIELDS; f++) {
					int col = column_of(s->version, f);
					uint64_t want = col ? sample_lb((int)ci, level, g, col) : 0;

					if (f == SS_LB_IMBALANCE && s->version >= 17)
						continue;
					if (schedstat_lb_value(&d->lb[t], f) != want)
						UNIT_FAIL("v%d cpu%d domain%d %s %s = %llu, want %llu",
							  s->version, c->cpu, level,
							  schedstat_idle_type_name(t),
							  schedstat_lb_field_name(f),
							  (unsigned long long)schedstat_lb_value(&d->lb[t], f),
							  (unsigned long long)want);
				}
				if (s->version >= 17) {
					for (f = SS_LB_IMBALANCE_LOAD; f <= SS_LB_IMBALANCE_MISFIT; f++)
						split += sample_lb((int)ci, level, g,
								   column_of(17, f));
					CHECK_U64(d->lb[t].imbalance, split);
				}
			}
			for (f = 0; f < SS_DOM_NR_FIELDS; f++)
				if (schedstat_domain_value(d, f) !=
				    sample_trailing((int)ci, level, f + 1))
					UNIT_FAIL("v%d cpu%d domain%d %s = %llu",
						  s->version, c->cpu, level,
						  schedstat_domain_field_name(f),
						  (unsigned long long)schedstat_domain_value(d, f));
		}
	}
}

/* ---- hand-made samples ------------------------------------------------- */

static void test_v15_sample(void)
{
	char err[256];
	struct schedstat s;
	const struct schedstat_domain *d;

	CHECK_INT(load_fixture("schedstat/v15-sample.txt", &s, err, sizeof(err)), 0);
	CHECK_STR(err, "");
	CHECK_INT(s.version, 15);
	CHECK_U64(s.timestamp, 4295000000ULL);
	CHECK(!s.imbalance_split);
	CHECK(!s.has_domain_names);
	CHECK_INT(s.nr_cpus, 2);
	if (s.nr_cpus != 2) {
		schedstat_free(&s);
		return;
	}
	CHECK_INT(s.cpus[0].cpu, 0);
	CHECK_INT(s.cpus[1].cpu, 1);
	CHECK_INT(s.cpus[0].nr_domains, 2);
	CHECK_INT(s.cpus[1].nr_domains, 2);
	CHECK_INT(schedstat_nr_levels(&s), 2);

	/* v15: the first group is CPU_IDLE, the second CPU_NOT_IDLE. */
	d = &s.cpus[0].domains[0];
	CHECK_STR(d->name, "");
	CHECK_STR(d->cpumask, "03");
	CHECK_STR(s.cpus[0].domains[1].cpumask, "ff");
	CHECK_U64(d->lb[SS_IDLE].count, 1001001);
	CHECK_U64(d->lb[SS_BUSY].count, 1002001);
	CHECK_U64(d->lb[SS_NEWLY_IDLE].count, 1003001);
	CHECK_U64(d->lb[SS_IDLE].imbalance, 1001004);
	CHECK_U64(d->lb[SS_IDLE].imbalance_load, 0);
	CHECK_U64(d->lb[SS_IDLE].imbalance_misfit, 0);
	CHECK_U64(d->lb[SS_NEWLY_IDLE].nobusyg, 1003008);
	CHECK_U64(d->alb_count, 1004001);
	CHECK_U64(d->ttwu_wake_remote, 1004010);
	CHECK_U64(d->ttwu_move_balance, 1004012);
	CHECK_U64(s.cpus[1].domains[1].lb[SS_BUSY].gained, 2102005);

	check_sample_columns(&s);
	schedstat_free(&s);
	CHECK_INT(s.nr_cpus, 0);
	CHECK(s.cpus == NULL);
}

static void test_v16_sample(void)
{
	char err[256];
	struct schedstat s;
	const struct schedstat_cpu *c;

	CHECK_INT(load_fixture("schedstat/v16-sample.txt", &s, err, sizeof(err)), 0);
	CHECK_INT(s.version, 16);
	CHECK(!s.imbalance_split);
	CHECK_INT(s.nr_cpus, 2);
	if (s.nr_cpus != 2) {
		schedstat_free(&s);
		return;
	}
	/* cpu1 is offline in this sample: ids are kept, not renumbered. */
	CHECK_INT(s.cpus[1].cpu, 2);
	CHECK(schedstat_find_cpu(&s, 1) == NULL);
	CHECK(schedstat_find_cpu(&s, -1) == NULL);
	CHECK(schedstat_find_cpu(&s, 3) == NULL);
	c = schedstat_find_cpu(&s, 2);
	CHECK(c == &s.cpus[1]);
	CHECK(schedstat_find_cpu(&s, 0) == &s.cpus[0]);

	/* v16: the first group is now __CPU_NOT_IDLE, the second CPU_IDLE. */
	CHECK_U64(s.cpus[0].domains[0].lb[SS_BUSY].count, 1001001);
	CHECK_U64(s.cpus[0].domains[0].lb[SS_IDLE].count, 1002001);
	CHECK_U64(s.cpus[0].domains[0].lb[SS_NEWLY_IDLE].count, 1003001);
	CHECK_U64(s.cpus[0].domains[0].lb[SS_IDLE].balanced, 1002002);
	CHECK_U64(s.cpus[0].domains[0].lb[SS_BUSY].imbalance, 1001004);
	if (c)
		CHECK_U64(c->domains[1].lb[SS_IDLE].hot_gained, 2102006);

	check_sample_columns(&s);
	schedstat_free(&s);
}

static void test_v17_sample(void)
{
	char err[256];
	struct schedstat s;
	const struct schedstat_domain *d;

	CHECK_INT(load_fixture("schedstat/v17-sample.txt", &s, err, sizeof(err)), 0);
	CHECK_INT(s.version, 17);
	CHECK(s.imbalance_split);
	CHECK(s.has_domain_names);
	CHECK_INT(s.nr_cpus, 2);
	if (s.nr_cpus != 2) {
		schedstat_free(&s);
		return;
	}
	/* cpu0's SMT sibling is offline, so it has one domain less. */
	CHECK_INT(s.cpus[0].nr_domains, 2);
	CHECK_INT(s.cpus[1].nr_domains, 3);
	CHECK_INT(schedstat_nr_levels(&s), 3);
	CHECK_STR(s.cpus[0].domains[0].name, "MC");
	CHECK_STR(s.cpus[0].domains[0].cpumask, "0f");
	CHECK_STR(s.cpus[0].domains[1].name, "PKG");
	CHECK_STR(s.cpus[1].domains[0].name, "SMT");
	CHECK_STR(s.cpus[1].domains[0].cpumask, "03");
	CHECK_STR(s.cpus[1].domains[2].name, "PKG");

	d = &s.cpus[0].domains[0];
	CHECK_U64(d->lb[SS_BUSY].count, 1001001);
	CHECK_U64(d->lb[SS_BUSY].balanced, 1001002);
	CHECK_U64(d->lb[SS_BUSY].failed, 1001003);
	CHECK_U64(d->lb[SS_BUSY].imbalance_load, 1001004);
	CHECK_U64(d->lb[SS_BUSY].imbalance_util, 1001005);
	CHECK_U64(d->lb[SS_BUSY].imbalance_task, 1001006);
	CHECK_U64(d->lb[SS_BUSY].imbalance_misfit, 1001007);
	CHECK_U64(d->lb[SS_BUSY].imbalance, 1001004 + 1001005 + 1001006 + 1001007);
	CHECK_U64(d->lb[SS_BUSY].gained, 1001008);
	CHECK_U64(d->lb[SS_BUSY].hot_gained, 1001009);
	CHECK_U64(d->lb[SS_BUSY].nobusyq, 1001010);
	CHECK_U64(d->lb[SS_BUSY].nobusyg, 1001011);
	CHECK_U64(d->lb[SS_IDLE].count, 1002001);
	CHECK_U64(d->lb[SS_NEWLY_IDLE].imbalance_misfit, 1003007);
	CHECK_U64(d->alb_count, 1004001);
	CHECK_U64(d->ttwu_move_balance, 1004012);

	check_sample_columns(&s);
	schedstat_free(&s);
}

/*
 * The same line read as v15 and as v16 must swap idle and busy and nothing
 * else: the only difference between the two versions.
 */
static void test_v15_v16_same_text(void)
{
	char *v15_text = slurp_fixture("schedstat/v15-sample.txt");
	char *v16_text = v15_text ? replace_first(v15_text, "version 15",
						  "version 16") : NULL;
	struct schedstat a, b;
	size_t i, j;

	CHECK(v16_text != NULL);
	if (!v16_text) {
		free(v15_text);
		return;
	}
	CHECK_INT(schedstat_parse(v15_text, &a, NULL, 0), 0);
	CHECK_INT(schedstat_parse(v16_text, &b, NULL, 0), 0);
	CHECK_INT(a.nr_cpus, b.nr_cpus);
	for (i = 0; i < a.nr_cpus && i < b.nr_cpus; i++) {
		for (j = 0; j < a.cpus[i].nr_domains; j++) {
			const struct schedstat_domain *da = &a.cpus[i].domains[j];
			const struct schedstat_domain *db = &b.cpus[i].domains[j];

			CHECK(!memcmp(&da->lb[SS_IDLE], &db->lb[SS_BUSY],
				      sizeof(da->lb[0])));
			CHECK(!memcmp(&da->lb[SS_BUSY], &db->lb[SS_IDLE],
				      sizeof(da->lb[0])));
			CHECK(!memcmp(&da->lb[SS_NEWLY_IDLE],
				      &db->lb[SS_NEWLY_IDLE], sizeof(da->lb[0])));
			CHECK_U64(da->ttwu_wake_remote, db->ttwu_wake_remote);
		}
	}
	schedstat_free(&a);
	schedstat_free(&b);
	free(v15_text);
	free(v16_text);
}

static void test_sums(void)
{
	struct schedstat s;
	uint64_t by_type;
	int t, f, level;

	CHECK_INT(load_fixture("schedstat/v17-sample.txt", &s, NULL, 0), 0);

	/* Level 0 is MC on cpu0 and SMT on cpu1. */
	CHECK_U64(schedstat_sum_lb(&s, 0, SS_NEWLY_IDLE, SS_LB_COUNT),
		  1003001 + 2003001);
	CHECK_U64(schedstat_sum_lb(&s, 2, SS_NEWLY_IDLE, SS_LB_COUNT), 2203001);
	CHECK_U64(schedstat_sum_lb(&s, 3, SS_NEWLY_IDLE, SS_LB_COUNT), 0);
	CHECK_U64(schedstat_sum_lb(&s, SCHEDSTAT_ALL_LEVELS, SS_NEWLY_IDLE,
				   SS_LB_COUNT),
		  1003001 + 1103001 + 2003001 + 2103001 + 2203001);
	/* By name, MC is level 0 on cpu0 but level 1 on cpu1. */
	CHECK_U64(schedstat_sum_lb_by_name(&s, "MC", SS_NEWLY_IDLE, SS_LB_COUNT),
		  1003001 + 2103001);
	CHECK_U64(schedstat_sum_lb_by_name(&s, "NUMA", SS_IDLE, SS_LB_COUNT), 0);
	CHECK_U64(schedstat_sum_lb_by_name(&s, "SMT", SS_BUSY, SS_LB_GAINED),
		  2001008);
	CHECK_U64(schedstat_sum_lb(&s, 1, SS_IDLE, SS_LB_IMBALANCE),
		  (1102004ULL + 1102005 + 1102006 + 1102007) +
		  (2102004ULL + 2102005 + 2102006 + 2102007));
	CHECK_U64(schedstat_sum_lb_all_types(&s, 0, SS_LB_COUNT),
		  1001001 + 1002001 + 1003001 + 2001001 + 2002001 + 2003001);

	CHECK_U64(schedstat_sum_domain(&s, SCHEDSTAT_ALL_LEVELS,
				       SS_DOM_TTWU_WAKE_REMOTE),
		  1004010 + 1104010 + 2004010 + 2104010 + 2204010);
	CHECK_U64(schedstat_sum_domain(&s, 1, SS_DOM_ALB_PUSHED),
		  1104003 + 2104003);
	CHECK_U64(schedstat_sum_domain_by_name(&s, "PKG", SS_DOM_ALB_COUNT),
		  1104001 + 2204001);

	CHECK_U64(schedstat_sum_cpu(&s, SS_CPU_TTWU_COUNT), 1005 + 2005);
	CHECK_U64(schedstat_sum_cpu(&s, SS_CPU_RUN_DELAY),
		  9000000001008ULL + 9000000002008ULL);

	/* The all-types and all-levels sums agree with their parts. */
	for (f = 0; f < SS_LB_NR_FIELDS; f++) {
		for (level = SCHEDSTAT_ALL_LEVELS; level < 3; level++) {
			by_type = 0;
			for (t = 0; t < SS_NR_IDLE_TYPES; t++)
				by_type += schedstat_sum_lb(&s, level, t, f);
			CHECK_U64(schedstat_sum_lb_all_types(&s, level, f), by_type);
		}
	}

	/* Out-of-range selectors give 0 rather than reading off the end. */
	CHECK_U64(schedstat_sum_lb(&s, 0, SS_NR_IDLE_TYPES, SS_LB_COUNT), 0);
	CHECK_U64(schedstat_sum_lb(&s, 0, SS_IDLE, SS_LB_NR_FIELDS), 0);
	CHECK_U64(schedstat_sum_cpu(&s, SS_CPU_NR_FIELDS), 0);
	CHECK_U64(schedstat_sum_domain(&s, 0, SS_DOM_NR_FIELDS), 0);
	CHECK_STR(schedstat_idle_type_name(SS_NEWLY_IDLE), "newidle");
	CHECK_STR(schedstat_idle_type_name(SS_BUSY), "busy");
	CHECK_STR(schedstat_lb_field_name(SS_LB_NOBUSYG), "lb_nobusyg");
	CHECK_STR(schedstat_domain_field_name(SS_DOM_SBF_PUSHED), "sbf_pushed");
	CHECK_STR(schedstat_cpu_field_name(SS_CPU_PCOUNT), "pcount");
	CHECK_STR(schedstat_lb_field_name(SS_LB_NR_FIELDS), "?");
	schedstat_free(&s);
}

/* ---- delta ------------------------------------------------------------- */

/*
 * A two-CPU v17 snapshot; @lb_count_busy goes into cpu1 domain0 busy
 * lb_count and @misfit into its lb_imbalance_misfit.
 */
static char *v17_snapshot(uint64_t timestamp, uint64_t lb_count_busy,
			  uint64_t misfit, const char *cpu1_mask)
{
	static const char fmt[] =
		"version 17\n"
		"timestamp %llu\n"
		"cpu0 1 0 10 4 7 3 1000 500 9\n"
		"domain0 MC ff 5 4 1 10 20 30 40 1 0 0 2 "
		"6 5 0 0 0 0 0 0 0 1 0 "
		"7 6 0 0 0 0 0 0 0 0 1 "
		"0 0 0 0 0 0 0 0 0 3 2 0\n"
		"cpu1 2 0 20 8 14 6 2000 1000 18\n"
		"domain0 MC %s %llu 4 1 10 20 30 %llu 1 0 0 2 "
		"6 5 0 0 0 0 0 0 0 1 0 "
		"7 6 0 0 0 0 0 0 0 0 1 "
		"2 1 1 0 0 0 0 0 0 3 2 0\n";
	char *buf = malloc(4096);

	if (buf)
		snprintf(buf, 4096, fmt, (unsigned long long)timestamp,
			 cpu1_mask, (unsigned long long)lb_count_busy,
			 (unsigned long long)misfit);
	return buf;
}

static void test_delta(void)
{
	char *t0 = v17_snapshot(4295000000ULL, 4294967290ULL, 4294967295ULL, "ff");
	char *t1 = v17_snapshot(4295000250ULL, 5, 9, "ff");
	struct schedstat a, b, d;
	char err[256];

	CHECK_INT(schedstat_parse(t0, &a, err, sizeof(err)), 0);
	CHECK_INT(schedstat_parse(t1, &b, err, sizeof(err)), 0);
	CHECK_INT(schedstat_delta(&a, &b, &d, err, sizeof(err)), 0);
	CHECK_STR(err, "");
	CHECK_INT(d.version, 17);
	CHECK_U64(d.timestamp, 250);
	CHECK(d.imbalance_split);
	CHECK_INT(d.nr_cpus, 2);
	if (d.nr_cpus == 2 && d.cpus[1].nr_domains == 1) {
		const struct schedstat_domain *dd = &d.cpus[1].domains[0];

		/* lb_count wrapped 2^32 - 6 -> 5: 11 balance calls. */
		CHECK_U64(dd->lb[SS_BUSY].count, 11);
		CHECK_U64(dd->lb[SS_BUSY].imbalance_misfit, 10);
		/* The sum is rebuilt from the component deltas. */
		CHECK_U64(dd->lb[SS_BUSY].imbalance, 10);
		CHECK_U64(dd->lb[SS_BUSY].balanced, 0);
		CHECK_U64(dd->lb[SS_IDLE].count, 0);
		CHECK_STR(dd->name, "MC");
		CHECK_STR(dd->cpumask, "ff");
		CHECK_INT(dd->level, 0);
		CHECK_INT(d.cpus[1].cpu, 1);
		CHECK_U64(d.cpus[1].rq_cpu_time, 0);
	}
	schedstat_free(&d);
	schedstat_free(&a);
	schedstat_free(&b);
	free(t0);
	free(t1);
}

static void test_delta_of_files(void)
{
	struct schedstat a, b, d;
	char err[256];
	size_t i, j;
	int t;

	CHECK_INT(load_fixture("schedstat/v15-sample.txt", &a, NULL, 0), 0);
	CHECK_INT(load_fixture("schedstat/v15-sample.txt", &b, NULL, 0), 0);
	/* Make "later" values: every counter +7, rq_cpu_time +1e9. */
	for (i = 0; i < b.nr_cpus; i++) {
		b.cpus[i].sched_count += 7;
		b.cpus[i].rq_cpu_time += 1000000000ULL;
		for (j = 0; j < b.cpus[i].nr_domains; j++) {
			for (t = 0; t < SS_NR_IDLE_TYPES; t++)
				b.cpus[i].domains[j].lb[t].gained += 7;
			b.cpus[i].domains[j].ttwu_move_affine += 7;
		}
	}
	b.timestamp += 100;
	CHECK_INT(schedstat_delta(&a, &b, &d, err, sizeof(err)), 0);
	CHECK_INT(d.nr_cpus, a.nr_cpus);
	CHECK(!d.imbalance_split);
	CHECK_U64(d.timestamp, 100);
	CHECK_U64(schedstat_sum_cpu(&d, SS_CPU_SCHED_COUNT), 7 * a.nr_cpus);
	CHECK_U64(schedstat_sum_cpu(&d, SS_CPU_RQ_CPU_TIME), 1000000000ULL * a.nr_cpus);
	CHECK_U64(schedstat_sum_cpu(&d, SS_CPU_TTWU_COUNT), 0);
	CHECK_U64(schedstat_sum_lb(&d, SCHEDSTAT_ALL_LEVELS, SS_NEWLY_IDLE,
				   SS_LB_GAINED), 7 * 4);
	CHECK_U64(schedstat_sum_lb_all_types(&d, SCHEDSTAT_ALL_LEVELS,
					     SS_LB_COUNT), 0);
	CHECK_U64(schedstat_sum_domain(&d, 1, SS_DOM_TTWU_MOVE_AFFINE), 7 * 2);
	if (d.nr_cpus == 2 && d.cpus[1].nr_domains == 2) {
		CHECK_STR(d.cpus[1].domains[1].cpumask, "ff");
		CHECK_STR(d.cpus[1].domains[1].name, "");
	}
	schedstat_free(&d);
	schedstat_free(&a);
	schedstat_free(&b);
}

static void check_delta_fails(const struct schedstat *a,
			      const struct schedstat *b, const char *why)
{
	struct schedstat d;
	char err[256];

	CHECK_INT(schedstat_delta(a, b, &d, err, sizeof(err)), -EINVAL);
	CHECK_CONTAINS(err, why);
	CHECK_INT(d.nr_cpus, 0);
	CHECK(d.cpus == NULL);
	schedstat_free(&d);
}

static void test_delta_shape_mismatch(void)
{
	struct schedstat v15, v16, v17, other_mask, later;
	char *t0 = v17_snapshot(100, 1, 1, "ff");
	char *t1 = v17_snapshot(200, 2, 2, "0f");
	char *renamed = t0 ? replace_first(t0, "domain0 MC ff 5", "domain0 LLC ff 5") : NULL;
	char *backwards = t0 ? replace_first(t0, "cpu1 2 0 20 8 14 6 2000",
					     "cpu1 2 0 20 8 14 6 1999") : NULL;
	char *hotplug = t0 ? replace_first(t0, "cpu1 ", "cpu2 ") : NULL;
	struct schedstat s_renamed, s_backwards, s_hotplug;

	CHECK_INT(load_fixture("schedstat/v15-sample.txt", &v15, NULL, 0), 0);
	CHECK_INT(load_fixture("schedstat/v16-sample.txt", &v16, NULL, 0), 0);
	CHECK_INT(load_fixture("schedstat/v17-sample.txt", &v17, NULL, 0), 0);
	CHECK_INT(schedstat_parse(t0, &later, NULL, 0), 0);
	CHECK_INT(schedstat_parse(t1, &other_mask, NULL, 0), 0);
	CHECK_INT(schedstat_parse(renamed, &s_renamed, NULL, 0), 0);
	CHECK_INT(schedstat_parse(backwards, &s_backwards, NULL, 0), 0);
	CHECK_INT(schedstat_parse(hotplug, &s_hotplug, NULL, 0), 0);

	check_delta_fails(&v15, &v16, "version 15, then 16");
	v16.version = 15;
	check_delta_fails(&v15, &v16,
			  "cpu0 domain0 changed from \"03\" to \"05\" (sched domains rebuilt)");
	v16.version = 16;
	check_delta_fails(&later, &s_hotplug, "cpu1 in one snapshot, cpu2 in the other");
	check_delta_fails(&later, &v17, "cpu0: 1 domains, then 2");
	check_delta_fails(&later, &other_mask,
			  "cpu1 domain0 changed from \"MC ff\" to \"MC 0f\"");
	check_delta_fails(&s_renamed, &later, "from \"LLC ff\" to \"MC ff\"");
	check_delta_fails(&v17, &other_mask, "timestamp went backwards");
	/* Same jiffies, but a 64-bit counter shrank: not the same boot. */
	check_delta_fails(&later, &s_backwards, "cpu1: rq_cpu_time went backwards");
	later.nr_cpus--;
	check_delta_fails(&later, &s_backwards, "1 CPUs, then 2");
	later.nr_cpus++;

	schedstat_free(&v15);
	schedstat_free(&v16);
	schedstat_free(&v17);
	schedstat_free(&later);
	schedstat_free(&other_mask);
	schedstat_free(&s_renamed);
	schedstat_free(&s_backwards);
	schedstat_free(&s_hotplug);
	free(hotplug);
	free(t0);
	free(t1);
	free(renamed);
	free(backwards);
}

/* ---- errors ------------------------------------------------------------ */

static void test_unknown_versions(void)
{
	struct schedstat s;
	char err[256];

	CHECK_INT(load_fixture("schedstat/v14-unknown.txt", &s, err, sizeof(err)),
		  -ENOTSUP);
	CHECK_CONTAINS(err, "line 1: unsupported /proc/schedstat version 14");
	CHECK_CONTAINS(err, "v14-unknown.txt");
	CHECK_INT(s.nr_cpus, 0);
	schedstat_free(&s);

	CHECK_INT(load_fixture("schedstat/v18-unknown.txt", &s, err, sizeof(err)),
		  -ENOTSUP);
	CHECK_CONTAINS(err, "version 18");
	schedstat_free(&s);

	CHECK_INT(schedstat_parse("version 99999999999999999999\n", &s, err,
				  sizeof(err)), -EINVAL);
	CHECK_CONTAINS(err, "line 1: malformed 'version' line");
	CHECK_INT(schedstat_parse("version 4294967311\ntimestamp 1\n", &s, err,
				  sizeof(err)), -ENOTSUP);
	CHECK_CONTAINS(err, "4294967311");
}

/* Expect @text to be rejected with @ret and an error containing @msg. */
static void check_rejects(const char *text, int ret, const char *msg)
{
	struct schedstat s;
	char err[256];

	memset(&s, 0xa5, sizeof(s));
	CHECK_INT(schedstat_parse(text, &s, err, sizeof(err)), ret);
	CHECK_CONTAINS(err, msg);
	CHECK_INT(s.nr_cpus, 0);
	CHECK(s.cpus == NULL);
	schedstat_free(&s);
}

#define HDR "version 16\ntimestamp 5\n"
#define CPU0 "cpu0 1 0 2 3 4 5 6 7 8\n"
#define ZEROS35 \
	" 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0"
/* @x is "domain<N> <mask> <first value>"; 35 more values make 36. */
#define V16_COUNTERS(x) x ZEROS35

static void test_malformed(void)
{
	struct schedstat s;
	char err[256];

	CHECK_INT(load_fixture("schedstat/malformed-short-domain.txt", &s, err,
			       sizeof(err)), -EINVAL);
	CHECK_CONTAINS(err, "line 8: domain1 of cpu2 has 37 fields, version 16 has 38");
	schedstat_free(&s);

	CHECK_INT(load_fixture("schedstat/sis-patched-v16.txt", &s, err,
			       sizeof(err)), -EINVAL);
	CHECK_CONTAINS(err, "line 3: cpu0 has 13 values, version 16 has 9");
	CHECK_CONTAINS(err, "out-of-tree");
	schedstat_free(&s);

	check_rejects(NULL, -EINVAL, "no text");
	check_rejects("", -EINVAL, "no 'version' line");
	check_rejects("\n\n  \n", -EINVAL, "no 'version' line");
	check_rejects("timestamp 5\nversion 16\n", -EINVAL,
		      "line 1: \"timestamp\" before the 'version' line");
	check_rejects("version 16\n", -EINVAL, "no 'timestamp' line");
	check_rejects(HDR, -EINVAL, "no cpu lines");
	check_rejects("version 16\n" CPU0, -EINVAL,
		      "line 2: cpu line before 'timestamp'");
	check_rejects(HDR "version 16\n", -EINVAL, "line 3: second 'version'");
	check_rejects(HDR "timestamp 6\n", -EINVAL, "line 3: second 'timestamp'");
	check_rejects(HDR CPU0 "timestamp 6\n", -EINVAL,
		      "line 4: second 'timestamp'");
	check_rejects("version\ntimestamp 5\n", -EINVAL,
		      "line 1: malformed 'version'");
	check_rejects("version 16\ntimestamp -5\n", -EINVAL,
		      "line 2: malformed 'timestamp'");
	check_rejects(HDR "cpu0 1 0 2 3 4 5 6 7\n", -EINVAL,
		      "line 3: cpu0 has 8 values, version 16 has 9");
	check_rejects(HDR "cpu0 1 0 2 3 4 5 6 7 x8\n", -EINVAL,
		      "line 3: cpu0 counter 9 (\"x8\") is not a decimal");
	check_rejects(HDR "cpu0 1 0 2 3 4 5 6 7 -8\n", -EINVAL,
		      "cpu0 counter 9 (\"-8\") is not a decimal");
	/* yld_count is an unsigned int in the kernel. */
	check_rejects(HDR "cpu0 4294967296 0 2 3 4 5 6 7 8\n", -EINVAL,
		      "line 3: cpu0 counter 1 (\"4294967296\") is out of range");
	check_rejects(HDR "cpu0 1 0 2 3 4 5 18446744073709551616 7 8\n", -EINVAL,
		      "cpu0 counter 7 (\"18446744073709551616\") is out of range");
	check_rejects(HDR "cpu0 1 5 2 3 4 5 6 7 8\n", -EINVAL,
		      "line 3: cpu0 counter 2 is 5, the kernel always prints 0");
	check_rejects(HDR "cpu1 1 0 2 3 4 5 6 7 8\n" CPU0, -EINVAL,
		      "line 4: cpu0 after cpu1");
	check_rejects(HDR CPU0 CPU0, -EINVAL, "line 4: cpu0 after cpu0");
	check_rejects(HDR "cpux 1 0 2 3 4 5 6 7 8\n", -EINVAL,
		      "line 3: unrecognised line starting \"cpux\"");
	check_rejects(HDR "cpu 1 0 2 3 4 5 6 7 8\n", -EINVAL,
		      "unrecognised line starting \"cpu\"");
	check_rejects(HDR V16_COUNTERS("domain0 ff 0") "\n", -EINVAL,
		      "line 3: domain line before any cpu line");
	check_rejects(HDR CPU0 V16_COUNTERS("domain1 ff 0") "\n", -EINVAL,
		      "line 4: domain1 of cpu0 where domain0 was expected");
	check_rejects(HDR CPU0 V16_COUNTERS("domain0 ff 0") "\n"
		      V16_COUNTERS("domain0 ff 0") "\n", -EINVAL,
		      "line 5: domain0 of cpu0 where domain1 was expected");
	check_rejects(HDR CPU0 V16_COUNTERS("domain0 fg 0") "\n", -EINVAL,
		      "line 4: domain0 of cpu0: \"fg\" is not a cpumask");
	/* A v17 line (with a name) in a v16 file has 39 fields. */
	check_rejects(HDR CPU0 V16_COUNTERS("domain0 MC ff 0") "\n", -EINVAL,
		      "line 4: domain0 of cpu0 has 39 fields, version 16 has 38");
	check_rejects(HDR CPU0 V16_COUNTERS("domain0 ff 4294967296") "\n",
		      -EINVAL, "line 4: domain0 counter 1 (\"4294967296\") is out of range");
	check_rejects(HDR CPU0 V16_COUNTERS("domain0 ff 1.5") "\n", -EINVAL,
		      "line 4: domain0 counter 1 (\"1.5\") is not a decimal number");
	check_rejects(HDR CPU0 "domain0 ff" ZEROS35 " 0x1\n", -EINVAL,
		      "line 4: domain0 counter 36 (\"0x1\") is not a decimal number");
	check_rejects(HDR CPU0 "sis 1 2 3\n", -EINVAL,
		      "line 4: unrecognised line starting \"sis\"");

	/* The error buffer is optional and is never overrun. */
	CHECK_INT(schedstat_parse("garbage\n", &s, NULL, 0), -EINVAL);
	memset(err, 'x', sizeof(err));
	CHECK_INT(schedstat_parse("garbage\n", &s, err, 8), -EINVAL);
	CHECK_STR(err, "line 1:");
	CHECK_INT(err[8], 'x');
}

static void test_read_errors(void)
{
	struct schedstat s;
	char err[256];

	CHECK_INT(schedstat_read("/nonexistent/schedstat", &s, err, sizeof(err)),
		  -ENOENT);
	CHECK_CONTAINS(err, "/nonexistent/schedstat");
	CHECK_INT(s.nr_cpus, 0);
	schedstat_free(&s);
	CHECK_INT(schedstat_read("/", &s, err, sizeof(err)), -EISDIR);
	schedstat_free(&s);
}

static void test_whitespace(void)
{
	struct schedstat s;
	static const char text[] =
		"\n"
		"version 15\r\n"
		"timestamp\t77\n"
		"\n"
		"cpu3  1 0 2 3 4 5 6 7 8   \n"
		"\tdomain0 3,00000000 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 "
		"17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36";

	CHECK_INT(schedstat_parse(text, &s, NULL, 0), 0);
	CHECK_INT(s.nr_cpus, 1);
	CHECK_U64(s.timestamp, 77);
	if (s.nr_cpus == 1 && s.cpus[0].nr_domains == 1) {
		CHECK_INT(s.cpus[0].cpu, 3);
		CHECK_STR(s.cpus[0].domains[0].cpumask, "3,00000000");
		CHECK_U64(s.cpus[0].domains[0].lb[SS_IDLE].count, 1);
		CHECK_U64(s.cpus[0].domains[0].lb[SS_BUSY].count, 9);
		CHECK_U64(s.cpus[0].domains[0].ttwu_move_balance, 36);
	}
	schedstat_free(&s);
}

/* Far more CPUs, domains and line length than any fixed buffer would hold. */
static void test_large_topology(void)
{
	const int nr_cpus = 1500, nr_domains = 5, mask_words = 600;
	const size_t mask_len = 8 + (size_t)(mask_words - 1) * 9;
	size_t cap = 32 << 20, len = 0;
	char *text = malloc(cap), *mask = malloc(mask_len + 1), *m;
	struct schedstat s;
	char err[256];
	int c, d, i;

	CHECK(text && mask);
	if (!text || !mask) {
		free(text);
		free(mask);
		return;
	}
	/* A 19200-CPU span for the top level: lines of more than 5 KiB. */
	m = mask + sprintf(mask, "ffffffff");
	for (i = 1; i < mask_words; i++)
		m += sprintf(m, ",ffffffff");

	len += (size_t)snprintf(text + len, cap - len, "version 17\ntimestamp 1\n");
	for (c = 0; c < nr_cpus; c++) {
		len += (size_t)snprintf(text + len, cap - len,
					"cpu%d 1 0 2 3 4 5 6 7 8\n", c * 2);
		for (d = 0; d < nr_domains; d++) {
			len += (size_t)snprintf(text + len, cap - len,
						"domain%d LEVEL%d %s", d, d,
						d == nr_domains - 1 ? mask : "ff");
			for (i = 0; i < 45; i++)
				len += (size_t)snprintf(text + len, cap - len,
							" %d", i == 22 ? c : 1);
			text[len++] = '\n';
		}
	}
	text[len] = '\0';

	CHECK_INT(schedstat_parse(text, &s, err, sizeof(err)), 0);
	CHECK_STR(err, "");
	CHECK_INT(s.nr_cpus, nr_cpus);
	CHECK_INT(schedstat_nr_levels(&s), nr_domains);
	if (s.nr_cpus == (size_t)nr_cpus) {
		CHECK_INT(s.cpus[nr_cpus - 1].cpu, (nr_cpus - 1) * 2);
		CHECK_INT(s.cpus[nr_cpus - 1].nr_domains, nr_domains);
		CHECK_STR(s.cpus[7].domains[4].name, "LEVEL4");
		CHECK_INT(strlen(s.cpus[7].domains[4].cpumask), mask_len);
		CHECK_STR(s.cpus[7].domains[3].cpumask, "ff");
		CHECK(schedstat_find_cpu(&s, 2 * 777) == &s.cpus[777]);
		CHECK(schedstat_find_cpu(&s, 2 * 777 + 1) == NULL);
	}
	/* Value 23 of the line is the first of the newidle group. */
	CHECK_U64(schedstat_sum_lb(&s, 2, SS_NEWLY_IDLE, SS_LB_COUNT),
		  (uint64_t)nr_cpus * (nr_cpus - 1) / 2);
	CHECK_U64(schedstat_sum_lb_by_name(&s, "LEVEL3", SS_IDLE, SS_LB_COUNT),
		  (uint64_t)nr_cpus);
	schedstat_free(&s);
	free(text);
	free(mask);
}

/* ---- real captures ----------------------------------------------------- */

/*
 * The kernel updates these counters without locks while show_schedstat()
 * prints them one after another, so a balance pass or wakeup that finishes
 * in between can push a "later" field past an "earlier" one by a pass or
 * two. Allow that much; a column mix-up is off by far more.
 */
#define SNAPSHOT_SLACK 2

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return 0;
}

/* Nibble @n (0 = CPUs 0-3) of a %*pb mask such as "3,ffffffff". */
static int mask_nibble(const char *mask, size_t n)
{
	size_t i = strlen(mask), seen = 0;

	while (i--) {
		if (mask[i] == ',')
			continue;
		if (seen++ == n)
			return hex_digit(mask[i]);
	}
	return 0;
}

static size_t mask_nibbles(const char *mask)
{
	size_t n = 0;

	for (; *mask; mask++)
		n += *mask != ',';
	return n;
}

static bool mask_has_cpu(const char *mask, int cpu)
{
	return mask_nibble(mask, (size_t)cpu / 4) & (1 << (cpu % 4));
}

static bool mask_subset(const char *small, const char *big)
{
	size_t n, len = mask_nibbles(small);

	for (n = 0; n < len; n++)
		if (mask_nibble(small, n) & ~mask_nibble(big, n))
			return false;
	return true;
}

/* Which schedstat version a Debian kernel "MAJOR.MINOR" prints. */
static int version_for_kernel(int major, int minor)
{
	if (major < 6 || (major == 6 && minor <= 9))
		return 15;
	if (major == 6 && minor <= 13)
		return 16;
	return 17;
}

static void check_real_capture(const char *path)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	struct schedstat s;
	char err[512];
	int major = 0, minor = 0, ret;
	size_t i, j;

	ret = schedstat_read(path, &s, err, sizeof(err));
	if (ret) {
		UNIT_FAIL("%s: %s", base, err);
		return;
	}
	if (sscanf(base, "debian-%d.%d", &major, &minor) == 2)
		CHECK_INT(s.version, version_for_kernel(major, minor));
	else
		UNIT_FAIL("%s: cannot tell the kernel version from the name", base);
	CHECK_INT(s.nr_cpus, 8);
	CHECK(s.imbalance_split == (s.version >= 17));

	for (i = 0; i < s.nr_cpus; i++) {
		const struct schedstat_cpu *c = &s.cpus[i];
		uint64_t wake_remote = 0;

		if (!c->nr_domains)
			UNIT_FAIL("%s: cpu%d has no sched domain", base, c->cpu);
		/* ttwu_stat() bumps ttwu_local only together with ttwu_count. */
		if (c->ttwu_local > c->ttwu_count + SNAPSHOT_SLACK)
			UNIT_FAIL("%s: cpu%d ttwu_local %llu > ttwu_count %llu",
				  base, c->cpu, (unsigned long long)c->ttwu_local,
				  (unsigned long long)c->ttwu_count);

		for (j = 0; j < c->nr_domains; j++) {
			const struct schedstat_domain *d = &c->domains[j];
			int t;

			CHECK_INT(d->level, (int)j);
			if (!mask_has_cpu(d->cpumask, c->cpu))
				UNIT_FAIL("%s: cpu%d domain%zu span %s lacks the cpu",
					  base, c->cpu, j, d->cpumask);
			if (j && !mask_subset(c->domains[j - 1].cpumask, d->cpumask))
				UNIT_FAIL("%s: cpu%d domain%zu span %s does not contain domain%zu's %s",
					  base, c->cpu, j, d->cpumask, j - 1,
					  c->domains[j - 1].cpumask);
			if (s.version >= 17 && !*d->name)
				UNIT_FAIL("%s: cpu%d domain%zu has no name", base,
					  c->cpu, j);
			if (s.version < 17 && *d->name)
				UNIT_FAIL("%s: cpu%d domain%zu has a name", base,
					  c->cpu, j);

			for (t = 0; t < SS_NR_IDLE_TYPES; t++) {
				const struct schedstat_lb *lb = &d->lb[t];

				/*
				 * sched_balance_rq()/load_balance() bumps
				 * lb_count on entry and leaves through at most
				 * one of lb_balanced (out_balanced or
				 * out_all_pinned) and lb_failed; lb_nobusyg
				 * and lb_nobusyq are each followed by
				 * goto out_balanced.
				 */
				if (lb->balanced + lb->failed > lb->count + SNAPSHOT_SLACK)
					UNIT_FAIL("%s: cpu%d domain%zu %s: balanced %llu + failed %llu > count %llu",
						  base, c->cpu, j,
						  schedstat_idle_type_name(t),
						  (unsigned long long)lb->balanced,
						  (unsigned long long)lb->failed,
						  (unsigned long long)lb->count);
				if (lb->nobusyg + lb->nobusyq > lb->balanced + SNAPSHOT_SLACK)
					UNIT_FAIL("%s: cpu%d domain%zu %s: nobusyg %llu + nobusyq %llu > balanced %llu",
						  base, c->cpu, j,
						  schedstat_idle_type_name(t),
						  (unsigned long long)lb->nobusyg,
						  (unsigned long long)lb->nobusyq,
						  (unsigned long long)lb->balanced);
				if (s.version < 17 &&
				    (lb->imbalance_load || lb->imbalance_util ||
				     lb->imbalance_task || lb->imbalance_misfit))
					UNIT_FAIL("%s: split imbalance set before v17", base);
				if (s.version >= 17)
					CHECK_U64(lb->imbalance,
						  lb->imbalance_load + lb->imbalance_util +
						  lb->imbalance_task + lb->imbalance_misfit);
			}
			/* active_load_balance_cpu_stop(): count, then pushed or failed. */
			if (d->alb_pushed + d->alb_failed > d->alb_count + SNAPSHOT_SLACK)
				UNIT_FAIL("%s: cpu%d domain%zu alb_pushed + alb_failed > alb_count",
					  base, c->cpu, j);
			/* Documented "not used": a non-zero means shifted columns. */
			if (d->sbe_count || d->sbe_balanced || d->sbe_pushed ||
			    d->sbf_count || d->sbf_balanced || d->sbf_pushed)
				UNIT_FAIL("%s: cpu%d domain%zu: sbe_*/sbf_* not zero",
					  base, c->cpu, j);
			wake_remote += d->ttwu_wake_remote;
		}
		/*
		 * ttwu_stat() credits a non-local wakeup to at most one domain
		 * (the first whose span holds the target). Domain counters
		 * restart when domains are rebuilt, rq counters do not, so
		 * this holds even after a rebuild.
		 */
		if (wake_remote > c->ttwu_count - c->ttwu_local + SNAPSHOT_SLACK)
			UNIT_FAIL("%s: cpu%d sum ttwu_wake_remote %llu > ttwu_count - ttwu_local %llu",
				  base, c->cpu, (unsigned long long)wake_remote,
				  (unsigned long long)(c->ttwu_count - c->ttwu_local));
	}

	/* The helpers agree with a plain walk over the structs. */
	{
		int f, t, level;

		for (f = 0; f < SS_LB_NR_FIELDS; f++) {
			uint64_t walk[SS_NR_IDLE_TYPES] = { 0 }, all = 0;

			for (i = 0; i < s.nr_cpus; i++)
				for (j = 0; j < s.cpus[i].nr_domains; j++)
					for (t = 0; t < SS_NR_IDLE_TYPES; t++)
						walk[t] += schedstat_lb_value(
							&s.cpus[i].domains[j].lb[t], f);
			for (t = 0; t < SS_NR_IDLE_TYPES; t++) {
				uint64_t by_level = 0;

				CHECK_U64(schedstat_sum_lb(&s, SCHEDSTAT_ALL_LEVELS, t, f),
					  walk[t]);
				for (level = 0; level < schedstat_nr_levels(&s); level++)
					by_level += schedstat_sum_lb(&s, level, t, f);
				CHECK_U64(by_level, walk[t]);
				all += walk[t];
			}
			CHECK_U64(schedstat_sum_lb_all_types(&s, SCHEDSTAT_ALL_LEVELS, f),
				  all);
		}
	}

	/* A snapshot minus itself is all zeros and keeps the shape. */
	{
		struct schedstat d;

		CHECK_INT(schedstat_delta(&s, &s, &d, err, sizeof(err)), 0);
		CHECK_INT(d.nr_cpus, s.nr_cpus);
		CHECK_U64(schedstat_sum_lb_all_types(&d, SCHEDSTAT_ALL_LEVELS,
						     SS_LB_COUNT), 0);
		CHECK_U64(schedstat_sum_cpu(&d, SS_CPU_SCHED_COUNT), 0);
		schedstat_free(&d);
	}

	printf("#   %s: version %d, %zu cpus, %d levels, newidle lb_count %llu\n",
	       base, s.version, s.nr_cpus, schedstat_nr_levels(&s),
	       (unsigned long long)schedstat_sum_lb(&s, SCHEDSTAT_ALL_LEVELS,
						    SS_NEWLY_IDLE, SS_LB_COUNT));
	schedstat_free(&s);
}

/* Captured from the tests/vm guests (6.1 and 6.12) and committed. */
static void test_real_captures(void)
{
	unit_for_each_fixture("schedstat/debian-*.txt", check_real_capture);
}

UNIT_MAIN(UNIT_TEST(test_v15_sample),
	  UNIT_TEST(test_v16_sample),
	  UNIT_TEST(test_v17_sample),
	  UNIT_TEST(test_v15_v16_same_text),
	  UNIT_TEST(test_sums),
	  UNIT_TEST(test_delta),
	  UNIT_TEST(test_delta_of_files),
	  UNIT_TEST(test_delta_shape_mismatch),
	  UNIT_TEST(test_unknown_versions),
	  UNIT_TEST(test_malformed),
	  UNIT_TEST(test_read_errors),
	  UNIT_TEST(test_whitespace),
	  UNIT_TEST(test_large_topology),
	  UNIT_TEST(test_real_captures))
