/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /proc/schedstat parser. See schedstat.h for the model.
 *
 * Where each layout comes from (kernel/sched/stats.c, show_schedstat()).
 * Read in: the v15 show_schedstat() that v5.x up to v6.9 share (v6.1
 * included); the v16 one as quoted (blob 78e48f5426ee) by the v17 patch
 * series; torvalds/linux at 011b3a14dc66 and the tip commits named below.
 *
 * cpu<N> line, identical in v15, v16 and v17:
 * "cpu%d %u 0 %u %u %u %u %llu %llu %lu" = yld_count, a literal 0 (the
 * O(1) scheduler's array expiry count, kept for ABI), sched_count,
 * sched_goidle, ttwu_count, ttwu_local, rq_cpu_time,
 * rq_sched_info.run_delay, rq_sched_info.pcount.
 *
 * v15 (SCHEDSTAT_VERSION 15, e.g. v6.1): "domain%d %*pb" then, for itype
 * from CPU_IDLE to CPU_MAX_IDLE_TYPES, " %u" x 8 = lb_count, lb_balanced,
 * lb_failed, lb_imbalance, lb_gained, lb_hot_gained, lb_nobusyq, lb_nobusyg;
 * then " %u" x 12 = alb_count, alb_failed, alb_pushed, sbe_count,
 * sbe_balanced, sbe_pushed, sbf_count, sbf_balanced, sbf_pushed,
 * ttwu_wake_remote, ttwu_move_affine, ttwu_move_balance. The itype order is
 * include/linux/sched/idle.h: CPU_IDLE, CPU_NOT_IDLE, CPU_NEWLY_IDLE.
 *
 * v16 (v6.10 to v6.13, e.g. v6.12): byte-for-byte the same printf, but
 * "sched/fair: Change 'enum cpu_idle_type' to have more natural definitions"
 * (Ingo Molnar, Mar 2024, merged for v6.10) made the enum __CPU_NOT_IDLE = 0,
 * CPU_IDLE, CPU_NEWLY_IDLE, so the first column group is now the busy one;
 * "sched/debug: Increase SCHEDSTAT_VERSION to 16" marks exactly this.
 *
 * v17 (v6.14 on; tip sched/core Dec 2024): "sched: Report the different
 * kinds of imbalances in /proc/schedstat" (3b2a793ea70f) replaced
 * lb_imbalance by lb_imbalance_load, _util, _task, _misfit in that order,
 * between lb_failed and lb_gained (11 per itype); "sched/stats: Print domain
 * name in /proc/schedstat" (011b3a14dc66) made the prefix
 * "domain%d %s %*pb" (name before the mask); "sched: Move sched domain name
 * out of CONFIG_SCHED_DEBUG" (1c055a0f5d3b) means the name is always there,
 * whatever Documentation/scheduler/sched-stats.rst still says; "docs: Update
 * Schedstat version to 17" (7c8cd569ff66) bumped the version. The trailing
 * 12 fields are unchanged.
 *
 * Out-of-tree kernels reused version numbers (Mel Gorman's select_idle_sibling
 * counters, never merged, appended 4 to 8 values to the cpu line as "16",
 * "17" and "18"), so the field count of every line is checked too.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "schedstat.h"
#include "util.h"

#define CPU_LINE_VALUES		9	/* numbers after "cpu<N>" */
#define TRAILING_DOMAIN_VALUES	12	/* alb_* .. ttwu_move_balance */

/* Kernel column group g (enum cpu_idle_type value g) is our type order[g]. */
static const enum schedstat_idle_type v15_group_order[SS_NR_IDLE_TYPES] = {
	SS_IDLE, SS_BUSY, SS_NEWLY_IDLE,
};

static const enum schedstat_idle_type v16_group_order[SS_NR_IDLE_TYPES] = {
	SS_BUSY, SS_IDLE, SS_NEWLY_IDLE,
};

static const enum schedstat_lb_field lb_fields_v15[] = {
	SS_LB_COUNT, SS_LB_BALANCED, SS_LB_FAILED, SS_LB_IMBALANCE,
	SS_LB_GAINED, SS_LB_HOT_GAINED, SS_LB_NOBUSYQ, SS_LB_NOBUSYG,
};

static const enum schedstat_lb_field lb_fields_v17[] = {
	SS_LB_COUNT, SS_LB_BALANCED, SS_LB_FAILED,
	SS_LB_IMBALANCE_LOAD, SS_LB_IMBALANCE_UTIL, SS_LB_IMBALANCE_TASK,
	SS_LB_IMBALANCE_MISFIT,
	SS_LB_GAINED, SS_LB_HOT_GAINED, SS_LB_NOBUSYQ, SS_LB_NOBUSYG,
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct layout {
	int version;
	bool has_name;
	const enum schedstat_idle_type *group_order;
	const enum schedstat_lb_field *lb_fields;
	size_t nr_lb_fields;
};

static const struct layout layouts[] = {
	{ 15, false, v15_group_order, lb_fields_v15, ARRAY_SIZE(lb_fields_v15) },
	{ 16, false, v16_group_order, lb_fields_v15, ARRAY_SIZE(lb_fields_v15) },
	{ 17, true,  v16_group_order, lb_fields_v17, ARRAY_SIZE(lb_fields_v17) },
};

/* Marks the cpu line's always-zero legacy column. */
#define CPU_LEGACY_ZERO SS_CPU_NR_FIELDS

static const enum schedstat_cpu_field cpu_line_fields[CPU_LINE_VALUES] = {
	SS_CPU_YLD_COUNT, CPU_LEGACY_ZERO, SS_CPU_SCHED_COUNT,
	SS_CPU_SCHED_GOIDLE, SS_CPU_TTWU_COUNT, SS_CPU_TTWU_LOCAL,
	SS_CPU_RQ_CPU_TIME, SS_CPU_RUN_DELAY, SS_CPU_PCOUNT,
};

static const size_t lb_offset[SS_LB_NR_FIELDS] = {
	[SS_LB_COUNT]		 = offsetof(struct schedstat_lb, count),
	[SS_LB_BALANCED]	 = offsetof(struct schedstat_lb, balanced),
	[SS_LB_FAILED]		 = offsetof(struct schedstat_lb, failed),
	[SS_LB_IMBALANCE]	 = offsetof(struct schedstat_lb, imbalance),
	[SS_LB_IMBALANCE_LOAD]	 = offsetof(struct schedstat_lb, imbalance_load),
	[SS_LB_IMBALANCE_UTIL]	 = offsetof(struct schedstat_lb, imbalance_util),
	[SS_LB_IMBALANCE_TASK]	 = offsetof(struct schedstat_lb, imbalance_task),
	[SS_LB_IMBALANCE_MISFIT] = offsetof(struct schedstat_lb, imbalance_misfit),
	[SS_LB_GAINED]		 = offsetof(struct schedstat_lb, gained),
	[SS_LB_HOT_GAINED]	 = offsetof(struct schedstat_lb, hot_gained),
	[SS_LB_NOBUSYQ]		 = offsetof(struct schedstat_lb, nobusyq),
	[SS_LB_NOBUSYG]		 = offsetof(struct schedstat_lb, nobusyg),
};

static const char *const lb_names[SS_LB_NR_FIELDS] = {
	[SS_LB_COUNT]		 = "lb_count",
	[SS_LB_BALANCED]	 = "lb_balanced",
	[SS_LB_FAILED]		 = "lb_failed",
	[SS_LB_IMBALANCE]	 = "lb_imbalance",
	[SS_LB_IMBALANCE_LOAD]	 = "lb_imbalance_load",
	[SS_LB_IMBALANCE_UTIL]	 = "lb_imbalance_util",
	[SS_LB_IMBALANCE_TASK]	 = "lb_imbalance_task",
	[SS_LB_IMBALANCE_MISFIT] = "lb_imbalance_misfit",
	[SS_LB_GAINED]		 = "lb_gained",
	[SS_LB_HOT_GAINED]	 = "lb_hot_gained",
	[SS_LB_NOBUSYQ]		 = "lb_nobusyq",
	[SS_LB_NOBUSYG]		 = "lb_nobusyg",
};

/* Also the order of the 12 trailing values on a domain line. */
static const size_t domain_offset[SS_DOM_NR_FIELDS] = {
	[SS_DOM_ALB_COUNT]	   = offsetof(struct schedstat_domain, alb_count),
	[SS_DOM_ALB_FAILED]	   = offsetof(struct schedstat_domain, alb_failed),
	[SS_DOM_ALB_PUSHED]	   = offsetof(struct schedstat_domain, alb_pushed),
	[SS_DOM_SBE_COUNT]	   = offsetof(struct schedstat_domain, sbe_count),
	[SS_DOM_SBE_BALANCED]	   = offsetof(struct schedstat_domain, sbe_balanced),
	[SS_DOM_SBE_PUSHED]	   = offsetof(struct schedstat_domain, sbe_pushed),
	[SS_DOM_SBF_COUNT]	   = offsetof(struct schedstat_domain, sbf_count),
	[SS_DOM_SBF_BALANCED]	   = offsetof(struct schedstat_domain, sbf_balanced),
	[SS_DOM_SBF_PUSHED]	   = offsetof(struct schedstat_domain, sbf_pushed),
	[SS_DOM_TTWU_WAKE_REMOTE]  = offsetof(struct schedstat_domain, ttwu_wake_remote),
	[SS_DOM_TTWU_MOVE_AFFINE]  = offsetof(struct schedstat_domain, ttwu_move_affine),
	[SS_DOM_TTWU_MOVE_BALANCE] = offsetof(struct schedstat_domain, ttwu_move_balance),
};

static const char *const domain_names[SS_DOM_NR_FIELDS] = {
	[SS_DOM_ALB_COUNT]	   = "alb_count",
	[SS_DOM_ALB_FAILED]	   = "alb_failed",
	[SS_DOM_ALB_PUSHED]	   = "alb_pushed",
	[SS_DOM_SBE_COUNT]	   = "sbe_count",
	[SS_DOM_SBE_BALANCED]	   = "sbe_balanced",
	[SS_DOM_SBE_PUSHED]	   = "sbe_pushed",
	[SS_DOM_SBF_COUNT]	   = "sbf_count",
	[SS_DOM_SBF_BALANCED]	   = "sbf_balanced",
	[SS_DOM_SBF_PUSHED]	   = "sbf_pushed",
	[SS_DOM_TTWU_WAKE_REMOTE]  = "ttwu_wake_remote",
	[SS_DOM_TTWU_MOVE_AFFINE]  = "ttwu_move_affine",
	[SS_DOM_TTWU_MOVE_BALANCE] = "ttwu_move_balance",
};

static const size_t cpu_offset[SS_CPU_NR_FIELDS] = {
	[SS_CPU_YLD_COUNT]    = offsetof(struct schedstat_cpu, yld_count),
	[SS_CPU_SCHED_COUNT]  = offsetof(struct schedstat_cpu, sched_count),
	[SS_CPU_SCHED_GOIDLE] = offsetof(struct schedstat_cpu, sched_goidle),
	[SS_CPU_TTWU_COUNT]   = offsetof(struct schedstat_cpu, ttwu_count),
	[SS_CPU_TTWU_LOCAL]   = offsetof(struct schedstat_cpu, ttwu_local),
	[SS_CPU_RQ_CPU_TIME]  = offsetof(struct schedstat_cpu, rq_cpu_time),
	[SS_CPU_RUN_DELAY]    = offsetof(struct schedstat_cpu, run_delay),
	[SS_CPU_PCOUNT]	      = offsetof(struct schedstat_cpu, pcount),
};

static const char *const cpu_names[SS_CPU_NR_FIELDS] = {
	[SS_CPU_YLD_COUNT]    = "yld_count",
	[SS_CPU_SCHED_COUNT]  = "sched_count",
	[SS_CPU_SCHED_GOIDLE] = "sched_goidle",
	[SS_CPU_TTWU_COUNT]   = "ttwu_count",
	[SS_CPU_TTWU_LOCAL]   = "ttwu_local",
	[SS_CPU_RQ_CPU_TIME]  = "rq_cpu_time",
	[SS_CPU_RUN_DELAY]    = "run_delay",
	[SS_CPU_PCOUNT]	      = "pcount",
};

/*
 * Counters the kernel keeps in an unsigned int (printed with %u). They wrap
 * at 2^32, which schedstat_delta() must undo; the rest are u64 or unsigned
 * long and are treated as never wrapping.
 */
static bool cpu_field_is_u32(enum schedstat_cpu_field f)
{
	return f != SS_CPU_RQ_CPU_TIME && f != SS_CPU_RUN_DELAY &&
	       f != SS_CPU_PCOUNT;
}

static uint64_t *field_at(void *base, size_t offset)
{
	return (uint64_t *)((char *)base + offset);
}

static uint64_t field_get(const void *base, size_t offset)
{
	return *(const uint64_t *)((const char *)base + offset);
}


struct parser {
	const char *next;	/* start of the next unread line, or NULL */
	unsigned int lineno;
	char *line;		/* private copy of the current line */
	size_t line_cap;
	char **tok;		/* tokens of the current line, in @line */
	size_t tok_cap;
	size_t ntok;
	char *err;
	size_t errlen;
	const struct layout *layout;
	bool seen_timestamp;
	size_t cpus_cap;
	size_t domains_cap;	/* of the last CPU, the only one still growing */
	struct schedstat *out;
};

/* Grow *@buf to hold at least @need elements of @size bytes. */

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Load the next line into p->line and split it. Returns 0 at end of text. */
static int next_line(struct parser *p)
{
	const char *start = p->next, *nl;
	size_t len, i;
	char *s;

	if (!start || !*start)
		return 0;
	nl = strchr(start, '\n');
	len = nl ? (size_t)(nl - start) : strlen(start);
	p->next = nl ? nl + 1 : NULL;
	p->lineno++;

	if (len >= PTRDIFF_MAX)
		return -ENOMEM;
	if (grow_array((void **)&p->line, &p->line_cap, len + 1, 1))
		return -ENOMEM;
	memcpy(p->line, start, len);
	p->line[len] = '\0';

	p->ntok = 0;
	s = p->line;
	for (i = 0; i < len;) {
		while (i < len && is_blank(s[i]))
			s[i++] = '\0';
		if (i == len)
			break;
		if (grow_array((void **)&p->tok, &p->tok_cap, p->ntok + 1,
			 sizeof(*p->tok)))
			return -ENOMEM;
		p->tok[p->ntok++] = &s[i];
		while (i < len && !is_blank(s[i]))
			i++;
	}
	return 1;
}

static int parse_u64(const char *s, uint64_t *val)
{
	uint64_t acc = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		unsigned int digit;

		if (*s < '0' || *s > '9')
			return -EINVAL;
		digit = (unsigned int)(*s - '0');
		if (acc > (UINT64_MAX - digit) / 10)
			return -ERANGE;
		acc = acc * 10 + digit;
	}
	*val = acc;
	return 0;
}

/* "cpu12" with @prefix "cpu" gives 12. */
static bool parse_indexed(const char *tok, const char *prefix, int *index)
{
	size_t plen = strlen(prefix);
	uint64_t v;

	if (strncmp(tok, prefix, plen) != 0)
		return false;
	if (parse_u64(tok + plen, &v) || v > INT32_MAX)
		return false;
	*index = (int)v;
	return true;
}

static int parse_error(struct parser *p, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int parse_error(struct parser *p, int ret, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	errmsg(p->err, p->errlen, "line %u: %s", p->lineno, msg);
	return ret;
}

/*
 * Parse token @i as a counter of at most @max. @nth numbers the counters of
 * the line from 1, as Documentation/scheduler/sched-stats.rst does.
 */
static int parse_counter(struct parser *p, size_t i, size_t nth, uint64_t max,
			 uint64_t *val)
{
	int ret = parse_u64(p->tok[i], val);

	if (ret == -ERANGE || (!ret && *val > max))
		return parse_error(p, -EINVAL,
				   "%s counter %zu (\"%.32s\") is out of range",
				   p->tok[0], nth, p->tok[i]);
	if (ret)
		return parse_error(p, -EINVAL,
				   "%s counter %zu (\"%.32s\") is not a decimal number",
				   p->tok[0], nth, p->tok[i]);
	return 0;
}

static const struct layout *find_layout(int version)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(layouts); i++)
		if (layouts[i].version == version)
			return &layouts[i];
	return NULL;
}

static int parse_version(struct parser *p)
{
	uint64_t v;

	if (p->layout)
		return parse_error(p, -EINVAL, "second 'version' line");
	if (p->ntok != 2 || parse_u64(p->tok[1], &v))
		return parse_error(p, -EINVAL, "malformed 'version' line");
	p->layout = find_layout(v <= INT32_MAX ? (int)v : -1);
	if (!p->layout)
		return parse_error(p, -ENOTSUP,
				   "unsupported /proc/schedstat version %llu (this reader knows 15, 16 and 17)",
				   (unsigned long long)v);
	p->out->version = p->layout->version;
	p->out->imbalance_split = p->layout->version >= 17;
	p->out->has_domain_names = p->layout->has_name;
	return 0;
}

static int parse_timestamp(struct parser *p)
{
	if (p->seen_timestamp)
		return parse_error(p, -EINVAL, "second 'timestamp' line");
	if (p->out->nr_cpus)
		return parse_error(p, -EINVAL, "'timestamp' after the cpu lines");
	if (p->ntok != 2 || parse_u64(p->tok[1], &p->out->timestamp))
		return parse_error(p, -EINVAL, "malformed 'timestamp' line");
	p->seen_timestamp = true;
	return 0;
}

static int parse_cpu(struct parser *p, int cpu)
{
	struct schedstat *s = p->out;
	struct schedstat_cpu *c;
	size_t i;
	int ret;

	if (!p->seen_timestamp)
		return parse_error(p, -EINVAL, "cpu line before 'timestamp'");
	if (p->ntok - 1 != CPU_LINE_VALUES)
		return parse_error(p, -EINVAL,
				   "cpu%d has %zu values, version %d has %d%s",
				   cpu, p->ntok - 1, s->version, CPU_LINE_VALUES,
				   p->ntok - 1 > CPU_LINE_VALUES ?
				   " (out-of-tree schedstat patch?)" : "");
	/* The kernel walks cpu_online_mask upwards; anything else is damage. */
	if (s->nr_cpus && cpu <= s->cpus[s->nr_cpus - 1].cpu)
		return parse_error(p, -EINVAL, "cpu%d after cpu%d", cpu,
				   s->cpus[s->nr_cpus - 1].cpu);

	if (grow_array((void **)&s->cpus, &p->cpus_cap, s->nr_cpus + 1,
		 sizeof(*s->cpus)))
		return -ENOMEM;
	c = &s->cpus[s->nr_cpus];
	memset(c, 0, sizeof(*c));
	c->cpu = cpu;
	s->nr_cpus++;
	p->domains_cap = 0;

	for (i = 0; i < CPU_LINE_VALUES; i++) {
		enum schedstat_cpu_field f = cpu_line_fields[i];
		uint64_t max = UINT64_MAX, v;

		if (f == CPU_LEGACY_ZERO || cpu_field_is_u32(f))
			max = UINT32_MAX;
		ret = parse_counter(p, i + 1, i + 1, max, &v);
		if (ret)
			return ret;
		/* A non-zero here means the columns are not the ones we know. */
		if (f == CPU_LEGACY_ZERO && v)
			return parse_error(p, -EINVAL,
					   "cpu%d counter 2 is %llu, the kernel always prints 0",
					   cpu, (unsigned long long)v);
		if (f != CPU_LEGACY_ZERO)
			*field_at(c, cpu_offset[f]) = v;
	}
	return 0;
}

/* The kernel prints spans with %*pb: hex digits in comma-separated words. */
static bool valid_cpumask(const char *s)
{
	bool digit = false;

	for (; *s; s++) {
		if ((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f') ||
		    (*s >= 'A' && *s <= 'F'))
			digit = true;
		else if (*s != ',')
			return false;
	}
	return digit;
}

static int parse_domain(struct parser *p, int level)
{
	const struct layout *l = p->layout;
	size_t prefix = l->has_name ? 3 : 2;	/* domainN [name] mask */
	size_t want = prefix + SS_NR_IDLE_TYPES * l->nr_lb_fields +
		      TRAILING_DOMAIN_VALUES;
	struct schedstat *s = p->out;
	struct schedstat_domain *d;
	struct schedstat_cpu *c;
	const char *name, *mask;
	size_t g, i, t;
	int ret;

	if (!s->nr_cpus)
		return parse_error(p, -EINVAL, "domain line before any cpu line");
	c = &s->cpus[s->nr_cpus - 1];
	if (p->ntok != want)
		return parse_error(p, -EINVAL,
				   "domain%d of cpu%d has %zu fields, version %d has %zu (domain<N>%s <cpumask> and %zu values)",
				   level, c->cpu, p->ntok, l->version, want,
				   l->has_name ? " <name>" : "", want - prefix);
	if ((size_t)level != c->nr_domains)
		return parse_error(p, -EINVAL,
				   "domain%d of cpu%d where domain%zu was expected",
				   level, c->cpu, c->nr_domains);

	name = l->has_name ? p->tok[1] : "";
	mask = p->tok[prefix - 1];
	if (!valid_cpumask(mask))
		return parse_error(p, -EINVAL,
				   "domain%d of cpu%d: \"%.32s\" is not a cpumask",
				   level, c->cpu, mask);

	if (grow_array((void **)&c->domains, &p->domains_cap, c->nr_domains + 1,
		 sizeof(*c->domains)))
		return -ENOMEM;
	d = &c->domains[c->nr_domains];
	memset(d, 0, sizeof(*d));
	d->level = level;
	d->name = strdup(name);
	d->cpumask = strdup(mask);
	c->nr_domains++;	/* now owned by @c, freed on any later error */
	if (!d->name || !d->cpumask)
		return -ENOMEM;

	t = prefix;
	for (g = 0; g < SS_NR_IDLE_TYPES; g++) {
		struct schedstat_lb *lb = &d->lb[l->group_order[g]];

		for (i = 0; i < l->nr_lb_fields; i++, t++) {
			ret = parse_counter(p, t, t - prefix + 1, UINT32_MAX,
					    field_at(lb, lb_offset[l->lb_fields[i]]));
			if (ret)
				return ret;
		}
		if (s->imbalance_split)
			lb->imbalance = lb->imbalance_load + lb->imbalance_util +
					lb->imbalance_task + lb->imbalance_misfit;
	}
	for (i = 0; i < TRAILING_DOMAIN_VALUES; i++, t++) {
		ret = parse_counter(p, t, t - prefix + 1, UINT32_MAX,
				    field_at(d, domain_offset[i]));
		if (ret)
			return ret;
	}
	return 0;
}

static int parse_line(struct parser *p)
{
	const char *key = p->tok[0];
	int index;

	if (!strcmp(key, "version"))
		return parse_version(p);
	if (!p->layout)
		return parse_error(p, -EINVAL,
				   "\"%.32s\" before the 'version' line", key);
	if (!strcmp(key, "timestamp"))
		return parse_timestamp(p);
	if (parse_indexed(key, "cpu", &index))
		return parse_cpu(p, index);
	if (parse_indexed(key, "domain", &index))
		return parse_domain(p, index);
	return parse_error(p, -EINVAL, "unrecognised line starting \"%.32s\"",
			   key);
}

void schedstat_free(struct schedstat *s)
{
	size_t i, j;

	if (!s)
		return;
	for (i = 0; i < s->nr_cpus; i++) {
		struct schedstat_cpu *c = &s->cpus[i];

		for (j = 0; j < c->nr_domains; j++) {
			free(c->domains[j].name);
			free(c->domains[j].cpumask);
		}
		free(c->domains);
	}
	free(s->cpus);
	memset(s, 0, sizeof(*s));
}

int schedstat_parse(const char *text, struct schedstat *out,
		    char *err, size_t errlen)
{
	struct parser p = {
		.next = text,
		.err = err,
		.errlen = errlen,
		.out = out,
	};
	int ret;

	memset(out, 0, sizeof(*out));
	errmsg(err, errlen, "%s", "");
	if (!text) {
		errmsg(err, errlen, "no text");
		return -EINVAL;
	}

	while ((ret = next_line(&p)) > 0) {
		if (!p.ntok)
			continue;
		ret = parse_line(&p);
		if (ret)
			break;
	}
	if (ret == -ENOMEM)
		parse_error(&p, ret, "out of memory");
	else if (!ret && !p.layout)
		ret = parse_error(&p, -EINVAL, "no 'version' line");
	else if (!ret && !p.seen_timestamp)
		ret = parse_error(&p, -EINVAL, "no 'timestamp' line");
	else if (!ret && !out->nr_cpus)
		ret = parse_error(&p, -EINVAL, "no cpu lines");

	free(p.line);
	free(p.tok);
	if (ret)
		schedstat_free(out);
	return ret;
}


int schedstat_read(const char *path, struct schedstat *out,
		   char *err, size_t errlen)
{
	char *text = NULL, msg[256];
	int ret;

	memset(out, 0, sizeof(*out));
	errmsg(err, errlen, "%s", "");
	if (!path)
		path = SCHEDSTAT_DEFAULT_PATH;
	ret = read_text_file(path, &text, err, errlen);
	if (ret)
		return ret;
	ret = schedstat_parse(text, out, msg, sizeof(msg));
	if (ret)
		errmsg(err, errlen, "%s: %s", path, msg);
	free(text);
	return ret;
}

/*
 * after - before for a counter the kernel keeps in 32 bits (modulo 2^32, so
 * one wrap between snapshots is undone) or in 64 bits (must not go back).
 */
static bool counter_diff(uint64_t before, uint64_t after, bool is_u32,
			 uint64_t *diff)
{
	if (is_u32) {
		*diff = (uint32_t)((uint32_t)after - (uint32_t)before);
		return true;
	}
	*diff = after - before;
	return after >= before;
}

static int delta_domain(const struct schedstat_domain *b,
			const struct schedstat_domain *a,
			struct schedstat_domain *d, bool split)
{
	size_t f;
	int t;

	for (t = 0; t < SS_NR_IDLE_TYPES; t++) {
		for (f = 0; f < SS_LB_NR_FIELDS; f++) {
			if (split && f == SS_LB_IMBALANCE)
				continue;	/* derived below */
			counter_diff(field_get(&b->lb[t], lb_offset[f]),
				     field_get(&a->lb[t], lb_offset[f]), true,
				     field_at(&d->lb[t], lb_offset[f]));
		}
		if (split)
			d->lb[t].imbalance = d->lb[t].imbalance_load +
					     d->lb[t].imbalance_util +
					     d->lb[t].imbalance_task +
					     d->lb[t].imbalance_misfit;
	}
	for (f = 0; f < SS_DOM_NR_FIELDS; f++)
		counter_diff(field_get(b, domain_offset[f]),
			     field_get(a, domain_offset[f]), true,
			     field_at(d, domain_offset[f]));
	d->level = a->level;
	d->name = strdup(a->name);
	d->cpumask = strdup(a->cpumask);
	return d->name && d->cpumask ? 0 : -ENOMEM;
}

static int delta_cpu(const struct schedstat_cpu *b,
		     const struct schedstat_cpu *a, struct schedstat_cpu *d,
		     bool split, char *err, size_t errlen)
{
	enum schedstat_cpu_field f;
	size_t i;
	int ret;

	if (b->cpu != a->cpu) {
		errmsg(err, errlen, "cpu%d in one snapshot, cpu%d in the other (CPU hotplug?)",
			b->cpu, a->cpu);
		return -EINVAL;
	}
	if (b->nr_domains != a->nr_domains) {
		errmsg(err, errlen, "cpu%d: %zu domains, then %zu (sched domains rebuilt)",
			a->cpu, b->nr_domains, a->nr_domains);
		return -EINVAL;
	}
	for (i = 0; i < a->nr_domains; i++) {
		const struct schedstat_domain *bd = &b->domains[i];
		const struct schedstat_domain *ad = &a->domains[i];

		if (strcmp(bd->name, ad->name) || strcmp(bd->cpumask, ad->cpumask)) {
			errmsg(err, errlen,
				"cpu%d domain%zu changed from \"%.32s%s%.64s\" to \"%.32s%s%.64s\" (sched domains rebuilt)",
				a->cpu, i, bd->name, *bd->name ? " " : "",
				bd->cpumask, ad->name, *ad->name ? " " : "",
				ad->cpumask);
			return -EINVAL;
		}
	}

	d->cpu = a->cpu;
	for (f = 0; f < SS_CPU_NR_FIELDS; f++) {
		if (!counter_diff(field_get(b, cpu_offset[f]),
				  field_get(a, cpu_offset[f]),
				  cpu_field_is_u32(f),
				  field_at(d, cpu_offset[f]))) {
			errmsg(err, errlen, "cpu%d: %s went backwards (different boot?)",
				a->cpu, cpu_names[f]);
			return -EINVAL;
		}
	}

	if (!a->nr_domains)
		return 0;
	d->domains = calloc(a->nr_domains, sizeof(*d->domains));
	if (!d->domains)
		goto nomem;
	for (i = 0; i < a->nr_domains; i++) {
		/* Count it first so schedstat_free() sees partial strings. */
		d->nr_domains++;
		ret = delta_domain(&b->domains[i], &a->domains[i],
				   &d->domains[i], split);
		if (ret)
			goto nomem;
	}
	return 0;
nomem:
	errmsg(err, errlen, "out of memory");
	return -ENOMEM;
}

int schedstat_delta(const struct schedstat *before,
		    const struct schedstat *after,
		    struct schedstat *delta, char *err, size_t errlen)
{
	size_t i;
	int ret;

	memset(delta, 0, sizeof(*delta));
	errmsg(err, errlen, "%s", "");
	if (before->version != after->version) {
		errmsg(err, errlen, "version %d, then %d", before->version,
			after->version);
		return -EINVAL;
	}
	if (before->nr_cpus != after->nr_cpus) {
		errmsg(err, errlen, "%zu CPUs, then %zu (CPU hotplug?)",
			before->nr_cpus, after->nr_cpus);
		return -EINVAL;
	}
	/* Also catches a reboot between the two reads. */
	if (after->timestamp < before->timestamp) {
		errmsg(err, errlen, "timestamp went backwards (%llu, then %llu)",
			(unsigned long long)before->timestamp,
			(unsigned long long)after->timestamp);
		return -EINVAL;
	}

	delta->version = after->version;
	delta->timestamp = after->timestamp - before->timestamp;
	delta->imbalance_split = after->imbalance_split;
	delta->has_domain_names = after->has_domain_names;
	delta->cpus = calloc(after->nr_cpus, sizeof(*delta->cpus));
	if (!delta->cpus) {
		errmsg(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < after->nr_cpus; i++) {
		delta->nr_cpus++;
		ret = delta_cpu(&before->cpus[i], &after->cpus[i],
				&delta->cpus[i], after->imbalance_split,
				err, errlen);
		if (ret) {
			schedstat_free(delta);
			return ret;
		}
	}
	return 0;
}

const struct schedstat_cpu *schedstat_find_cpu(const struct schedstat *s,
					       int cpu)
{
	size_t lo = 0, hi = s->nr_cpus;

	/* cpus[] is strictly ascending; the parser enforces it. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->cpus[mid].cpu == cpu)
			return &s->cpus[mid];
		if (s->cpus[mid].cpu < cpu)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

int schedstat_nr_levels(const struct schedstat *s)
{
	size_t i, max = 0;

	for (i = 0; i < s->nr_cpus; i++)
		if (s->cpus[i].nr_domains > max)
			max = s->cpus[i].nr_domains;
	return (int)max;
}

uint64_t schedstat_lb_value(const struct schedstat_lb *lb,
			    enum schedstat_lb_field field)
{
	if ((unsigned int)field >= SS_LB_NR_FIELDS)
		return 0;
	return field_get(lb, lb_offset[field]);
}

uint64_t schedstat_domain_value(const struct schedstat_domain *d,
				enum schedstat_domain_field field)
{
	if ((unsigned int)field >= SS_DOM_NR_FIELDS)
		return 0;
	return field_get(d, domain_offset[field]);
}

uint64_t schedstat_cpu_value(const struct schedstat_cpu *c,
			     enum schedstat_cpu_field field)
{
	if ((unsigned int)field >= SS_CPU_NR_FIELDS)
		return 0;
	return field_get(c, cpu_offset[field]);
}

/* Which domains a sum covers: one level, every level, or one name. */
struct domain_filter {
	int level;
	const char *name;
};

static bool domain_matches(const struct schedstat_domain *d,
			   const struct domain_filter *f)
{
	if (f->name)
		return !strcmp(d->name, f->name);
	return f->level == SCHEDSTAT_ALL_LEVELS || d->level == f->level;
}

static uint64_t sum_lb(const struct schedstat *s,
		       const struct domain_filter *filter,
		       enum schedstat_idle_type type,
		       enum schedstat_lb_field field)
{
	uint64_t sum = 0;
	size_t i, j;

	if ((unsigned int)type >= SS_NR_IDLE_TYPES)
		return 0;
	for (i = 0; i < s->nr_cpus; i++) {
		const struct schedstat_cpu *c = &s->cpus[i];

		for (j = 0; j < c->nr_domains; j++)
			if (domain_matches(&c->domains[j], filter))
				sum += schedstat_lb_value(&c->domains[j].lb[type],
							  field);
	}
	return sum;
}

static uint64_t sum_domain(const struct schedstat *s,
			   const struct domain_filter *filter,
			   enum schedstat_domain_field field)
{
	uint64_t sum = 0;
	size_t i, j;

	for (i = 0; i < s->nr_cpus; i++) {
		const struct schedstat_cpu *c = &s->cpus[i];

		for (j = 0; j < c->nr_domains; j++)
			if (domain_matches(&c->domains[j], filter))
				sum += schedstat_domain_value(&c->domains[j],
							      field);
	}
	return sum;
}

uint64_t schedstat_sum_lb(const struct schedstat *s, int level,
			  enum schedstat_idle_type type,
			  enum schedstat_lb_field field)
{
	struct domain_filter f = { .level = level };

	return sum_lb(s, &f, type, field);
}

uint64_t schedstat_sum_lb_all_types(const struct schedstat *s, int level,
				    enum schedstat_lb_field field)
{
	struct domain_filter f = { .level = level };
	uint64_t sum = 0;
	int t;

	for (t = 0; t < SS_NR_IDLE_TYPES; t++)
		sum += sum_lb(s, &f, (enum schedstat_idle_type)t, field);
	return sum;
}

uint64_t schedstat_sum_lb_by_name(const struct schedstat *s, const char *name,
				  enum schedstat_idle_type type,
				  enum schedstat_lb_field field)
{
	struct domain_filter f = { .name = name ? name : "" };

	return sum_lb(s, &f, type, field);
}

uint64_t schedstat_sum_domain(const struct schedstat *s, int level,
			      enum schedstat_domain_field field)
{
	struct domain_filter f = { .level = level };

	return sum_domain(s, &f, field);
}

uint64_t schedstat_sum_domain_by_name(const struct schedstat *s,
				      const char *name,
				      enum schedstat_domain_field field)
{
	struct domain_filter f = { .name = name ? name : "" };

	return sum_domain(s, &f, field);
}

uint64_t schedstat_sum_cpu(const struct schedstat *s,
			   enum schedstat_cpu_field field)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < s->nr_cpus; i++)
		sum += schedstat_cpu_value(&s->cpus[i], field);
	return sum;
}

const char *schedstat_idle_type_name(enum schedstat_idle_type type)
{
	switch (type) {
	case SS_IDLE:
		return "idle";
	case SS_BUSY:
		return "busy";
	case SS_NEWLY_IDLE:
		return "newidle";
	default:
		return "?";
	}
}

const char *schedstat_lb_field_name(enum schedstat_lb_field field)
{
	return (unsigned int)field < SS_LB_NR_FIELDS ? lb_names[field] : "?";
}

const char *schedstat_domain_field_name(enum schedstat_domain_field field)
{
	return (unsigned int)field < SS_DOM_NR_FIELDS ? domain_names[field] : "?";
}

const char *schedstat_cpu_field_name(enum schedstat_cpu_field field)
{
	return (unsigned int)field < SS_CPU_NR_FIELDS ? cpu_names[field] : "?";
}

void schedstat_clocks(long long *ktime_ns, long long *cpu_clock_ns)
{
	char line[256];
	double ms;
	FILE *f = fopen("/sys/kernel/debug/sched/debug", "r");

	*ktime_ns = *cpu_clock_ns = 0;
	if (!f)
		return;
	/* the header's lines; the per-CPU sections that follow are long */
	for (int i = 0; i < 8 && fgets(line, sizeof(line), f); i++) {
		if (sscanf(line, "ktime : %lf", &ms) == 1)
			*ktime_ns = (long long)(ms * 1e6);
		else if (sscanf(line, "cpu_clk : %lf", &ms) == 1)
			*cpu_clock_ns = (long long)(ms * 1e6);
	}
	fclose(f);
}
