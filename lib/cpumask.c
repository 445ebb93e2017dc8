/* SPDX-License-Identifier: GPL-2.0 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cpumask.h"
#include "util.h"

#define CPUMASK_WORDS (CPUMASK_MAX_CPUS / 64)

/* Longest piece of user input quoted back in an error message. */
#define ERR_QUOTE_MAX 48

void cpumask_clear(struct cpumask *m)
{
	memset(m->bits, 0, sizeof(m->bits));
}

static bool cpu_in_range(int cpu)
{
	return cpu >= 0 && cpu < CPUMASK_MAX_CPUS;
}

void cpumask_set(struct cpumask *m, int cpu)
{
	if (cpu_in_range(cpu))
		m->bits[cpu / 64] |= 1ULL << (cpu % 64);
}

void cpumask_unset(struct cpumask *m, int cpu)
{
	if (cpu_in_range(cpu))
		m->bits[cpu / 64] &= ~(1ULL << (cpu % 64));
}

bool cpumask_test(const struct cpumask *m, int cpu)
{
	if (!cpu_in_range(cpu))
		return false;
	return (m->bits[cpu / 64] >> (cpu % 64)) & 1;
}

int cpumask_weight(const struct cpumask *m)
{
	int weight = 0;

	for (int i = 0; i < CPUMASK_WORDS; i++)
		weight += __builtin_popcountll(m->bits[i]);
	return weight;
}

int cpumask_next(const struct cpumask *m, int prev)
{
	unsigned long long word;
	int cpu, w;

	if (prev >= CPUMASK_MAX_CPUS - 1)
		return -1;
	cpu = prev < 0 ? 0 : prev + 1;
	w = cpu / 64;
	word = m->bits[w] & (~0ULL << (cpu % 64));
	for (;;) {
		if (word)
			return w * 64 + __builtin_ctzll(word);
		if (++w == CPUMASK_WORDS)
			return -1;
		word = m->bits[w];
	}
}

int cpumask_last(const struct cpumask *m)
{
	for (int w = CPUMASK_WORDS - 1; w >= 0; w--)
		if (m->bits[w])
			return w * 64 + 63 - __builtin_clzll(m->bits[w]);
	return -1;
}

bool cpumask_empty(const struct cpumask *m)
{
	for (int i = 0; i < CPUMASK_WORDS; i++)
		if (m->bits[i])
			return false;
	return true;
}

bool cpumask_subset(const struct cpumask *sub, const struct cpumask *super)
{
	for (int i = 0; i < CPUMASK_WORDS; i++)
		if (sub->bits[i] & ~super->bits[i])
			return false;
	return true;
}

void cpumask_and(struct cpumask *dst, const struct cpumask *a,
		 const struct cpumask *b)
{
	for (int i = 0; i < CPUMASK_WORDS; i++)
		dst->bits[i] = a->bits[i] & b->bits[i];
}

void cpumask_or(struct cpumask *dst, const struct cpumask *a,
		const struct cpumask *b)
{
	for (int i = 0; i < CPUMASK_WORDS; i++)
		dst->bits[i] = a->bits[i] | b->bits[i];
}

bool cpumask_equal(const struct cpumask *a, const struct cpumask *b)
{
	return memcmp(a->bits, b->bits, sizeof(a->bits)) == 0;
}

/* ---- error reporting shared by both parsers ---- */

/*
 * The text being parsed, trimmed of surrounding whitespace, so messages
 * can quote what the user wrote without a stray sysfs newline.
 */
struct parse_input {
	const char *what;	/* "CPU list" or "CPU mask" */
	const char *begin, *end;
	bool multi_entry;	/* contains a comma: name the bad entry too */
	char *err;
	size_t errlen;
};

/*
 * Copy [begin, end) for quoting: control characters become '?' so a
 * message always stays on one line, and long input is cut with "...".
 */
static void quote_text(char *out, size_t outlen, const char *begin,
		       const char *end)
{
	size_t n = end - begin, i;
	bool cut = n > ERR_QUOTE_MAX;

	if (cut)
		n = ERR_QUOTE_MAX;
	if (n > outlen - 4)
		n = outlen - 4;
	for (i = 0; i < n; i++)
		out[i] = isprint((unsigned char)begin[i]) ? begin[i] : '?';
	out[i] = '\0';
	if (cut)
		strcat(out, "...");
}

/*
 * Fill err with 'invalid <what> "<input>": <detail>[ in "<entry>"]'. The
 * entry is only named when the input has several, since otherwise it
 * would just repeat the input.
 */
__attribute__((format(printf, 5, 6)))
static int parse_fail(const struct parse_input *in, const char *entry,
		      const char *entry_end, struct cpumask *m,
		      const char *fmt, ...)
{
	char input[ERR_QUOTE_MAX + 4], detail[160], where[ERR_QUOTE_MAX + 12];
	va_list ap;

	cpumask_clear(m);
	if (!in->err || !in->errlen)
		return -1;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);

	quote_text(input, sizeof(input), in->begin, in->end);
	where[0] = '\0';
	if (entry && in->multi_entry) {
		char quoted[ERR_QUOTE_MAX + 4];

		quote_text(quoted, sizeof(quoted), entry, entry_end);
		snprintf(where, sizeof(where), " in \"%s\"", quoted);
	}
	snprintf(in->err, in->errlen, "invalid %s \"%s\": %s%s", in->what,
		 input, detail, where);
	/* detail may quote the rest of the input as it is. */
	one_line(in->err);
	return -1;
}

static void parse_input_init(struct parse_input *in, const char *what,
			     const char *s, char *err, size_t errlen)
{
	in->what = what;
	in->begin = s;
	in->end = s + strlen(s);
	while (in->begin < in->end && isspace((unsigned char)*in->begin))
		in->begin++;
	while (in->end > in->begin && isspace((unsigned char)in->end[-1]))
		in->end--;
	in->multi_entry = memchr(in->begin, ',', in->end - in->begin) != NULL;
	in->err = err;
	in->errlen = errlen;
	if (err && errlen)
		err[0] = '\0';
}

/*
 * Find the next comma-separated entry starting at *pos, trimmed of the
 * whitespace the kernel tolerates around separators. Returns false once
 * the input is used up.
 */
static bool next_entry(const struct parse_input *in, const char **pos,
		       const char **entry, const char **entry_end)
{
	const char *p = *pos, *comma;

	if (p > in->end)
		return false;
	comma = memchr(p, ',', in->end - p);
	*entry_end = comma ? comma : in->end;
	*pos = *entry_end + 1;
	while (p < *entry_end && isspace((unsigned char)*p))
		p++;
	*entry = p;
	while (*entry_end > p && isspace((unsigned char)(*entry_end)[-1]))
		(*entry_end)--;
	return true;
}

static int empty_entry_fail(const struct parse_input *in, const char *entry,
			    struct cpumask *m, const char *noun)
{
	if (entry == in->begin)
		return parse_fail(in, NULL, NULL, m,
				  "it starts with a comma");
	if (entry == in->end)
		return parse_fail(in, NULL, NULL, m, "it ends with a comma");
	return parse_fail(in, NULL, NULL, m, "empty %s between commas", noun);
}

/* ---- cpulist ---- */

/*
 * Read a decimal number at *p (no sign, like the kernel). The value
 * saturates instead of wrapping so "99999999999999999999" is reported as
 * too large rather than silently becoming a small CPU number.
 */
static bool read_decimal(const char **p, const char *end,
			 unsigned long long *val)
{
	const char *q = *p;
	unsigned long long v = 0;

	if (q == end || !isdigit((unsigned char)*q))
		return false;
	for (; q < end && isdigit((unsigned char)*q); q++) {
		if (v < 1000000000000ULL)
			v = v * 10 + (*q - '0');
	}
	*p = q;
	*val = v;
	return true;
}

static const char *char_name(char c, char *buf, size_t len)
{
	if (isprint((unsigned char)c))
		snprintf(buf, len, "'%c'", c);
	else
		snprintf(buf, len, "character 0x%02x", (unsigned char)c);
	return buf;
}

struct list_entry {
	const char *begin, *end;
	unsigned long long first, last, used, group;
};

static int parse_cpu_number(const struct parse_input *in,
			    const struct list_entry *e, const char **p,
			    unsigned long long *cpu, struct cpumask *m)
{
	const char *start = *p;

	if (!read_decimal(p, e->end, cpu)) {
		if (*p == e->begin && **p == '-' && *p + 1 < e->end &&
		    isdigit((unsigned char)(*p)[1]))
			return parse_fail(in, e->begin, e->end, m,
					  "CPU numbers cannot be negative");
		return parse_fail(in, e->begin, e->end, m,
				  "expected a CPU number at \"%.*s\"",
				  (int)(e->end - *p), *p);
	}
	if (*cpu >= CPUMASK_MAX_CPUS)
		return parse_fail(in, e->begin, e->end, m,
				  "CPU %.*s is beyond the supported maximum of %d",
				  (int)(*p - start), start,
				  CPUMASK_MAX_CPUS - 1);
	return 0;
}

static int parse_stride_size(const struct parse_input *in,
			     const struct list_entry *e, const char **p,
			     unsigned long long *size, struct cpumask *m)
{
	if (!read_decimal(p, e->end, size))
		return parse_fail(in, e->begin, e->end, m,
				  "a stride must look like \"first-last:used/group\", e.g. \"0-7:2/4\"");
	return 0;
}

static int unexpected_char(const struct parse_input *in,
			   const struct list_entry *e, const char *p,
			   struct cpumask *m)
{
	char name[24];

	if (*p == ':')
		return parse_fail(in, e->begin, e->end, m,
				  "a stride needs a range, as in \"0-7:2/4\"");
	return parse_fail(in, e->begin, e->end, m,
			  "unexpected %s after \"%.*s\"",
			  char_name(*p, name, sizeof(name)),
			  (int)(p - e->begin), e->begin);
}

/* entry := CPU [ '-' CPU [ ':' USED '/' GROUP ] ] */
static int parse_list_entry(const struct parse_input *in,
			    struct list_entry *e, struct cpumask *m)
{
	const char *p = e->begin;

	if (parse_cpu_number(in, e, &p, &e->first, m))
		return -1;
	e->last = e->first;
	e->used = e->group = 1;
	if (p == e->end)
		return 0;
	if (*p != '-')
		return unexpected_char(in, e, p, m);
	p++;
	if (p == e->end)
		return parse_fail(in, e->begin, e->end, m,
				  "range \"%.*s\" has no end",
				  (int)(e->end - e->begin), e->begin);
	if (parse_cpu_number(in, e, &p, &e->last, m))
		return -1;
	if (e->last < e->first)
		return parse_fail(in, e->begin, e->end, m,
				  "range end is below its start");
	e->used = e->group = e->last - e->first + 1;
	if (p == e->end)
		return 0;
	if (*p != ':')
		return unexpected_char(in, e, p, m);
	p++;
	if (parse_stride_size(in, e, &p, &e->used, m))
		return -1;
	if (p == e->end || *p != '/')
		return parse_fail(in, e->begin, e->end, m,
				  "a stride must look like \"first-last:used/group\", e.g. \"0-7:2/4\"");
	p++;
	if (parse_stride_size(in, e, &p, &e->group, m))
		return -1;
	if (p != e->end)
		return unexpected_char(in, e, p, m);
	if (e->group == 0)
		return parse_fail(in, e->begin, e->end, m,
				  "the stride group size must be at least 1");
	if (e->used == 0)
		return parse_fail(in, e->begin, e->end, m,
				  "a stride that uses 0 CPUs per group selects nothing");
	if (e->used > e->group)
		return parse_fail(in, e->begin, e->end, m,
				  "the stride uses %llu CPUs per group but groups have only %llu",
				  e->used, e->group);
	return 0;
}

int cpulist_parse(const char *s, struct cpumask *m, char *err, size_t errlen)
{
	struct parse_input in;
	struct list_entry e;
	const char *pos;

	cpumask_clear(m);
	parse_input_init(&in, "CPU list", s, err, errlen);
	if (in.begin == in.end)
		return 0;

	pos = in.begin;
	while (next_entry(&in, &pos, &e.begin, &e.end)) {
		if (e.begin == e.end)
			return empty_entry_fail(&in, e.begin, m, "entry");
		if (parse_list_entry(&in, &e, m))
			return -1;
		for (unsigned long long g = e.first; g <= e.last; g += e.group)
			for (unsigned long long c = g;
			     c < g + e.used && c <= e.last; c++)
				cpumask_set(m, (int)c);
	}
	return 0;
}

int cpulist_format(const struct cpumask *m, char *buf, size_t len)
{
	size_t pos = 0;
	int first, last;

	if (!len)
		return -1;
	buf[0] = '\0';
	for (first = cpumask_next(m, -1); first >= 0;
	     first = cpumask_next(m, last)) {
		int n;

		last = first;
		while (cpumask_test(m, last + 1))
			last++;
		if (last > first)
			n = snprintf(buf + pos, len - pos, "%s%d-%d",
				     pos ? "," : "", first, last);
		else
			n = snprintf(buf + pos, len - pos, "%s%d",
				     pos ? "," : "", first);
		if (n < 0 || (size_t)n >= len - pos) {
			buf[0] = '\0';
			return -1;
		}
		pos += n;
	}
	return (int)pos;
}

/* ---- hex mask ---- */

int cpumask_parse_hex(const char *s, struct cpumask *m, char *err,
		      size_t errlen)
{
	const char *pos, *entry, *entry_end;
	struct parse_input in;
	int nr_groups = 0, group;

	cpumask_clear(m);
	parse_input_init(&in, "CPU mask", s, err, errlen);
	if (in.begin == in.end)
		return 0;

	/* Validate and count first: group 0 is the rightmost one. */
	pos = in.begin;
	while (next_entry(&in, &pos, &entry, &entry_end)) {
		char name[24];

		if (entry == entry_end)
			return empty_entry_fail(&in, entry, m, "group");
		for (const char *p = entry; p < entry_end; p++)
			if (!isxdigit((unsigned char)*p))
				return parse_fail(&in, entry, entry_end, m,
						  "%s is not a hex digit",
						  char_name(*p, name,
							    sizeof(name)));
		if (entry_end - entry > 8)
			return parse_fail(&in, entry, entry_end, m,
					  "group \"%.*s\" has more than 8 hex digits",
					  (int)(entry_end - entry), entry);
		nr_groups++;
	}

	group = nr_groups;
	pos = in.begin;
	while (next_entry(&in, &pos, &entry, &entry_end)) {
		unsigned long long value = 0;

		group--;
		for (const char *p = entry; p < entry_end; p++) {
			int c = tolower((unsigned char)*p);

			value = value << 4 |
				(unsigned)(isdigit(c) ? c - '0' : c - 'a' + 10);
		}
		if (!value)
			continue;
		/* Leading all-zero groups are harmless, set bits are not. */
		if (group >= CPUMASK_MAX_CPUS / 32)
			return parse_fail(&in, NULL, NULL, m,
					  "it sets CPUs beyond the supported maximum of %d",
					  CPUMASK_MAX_CPUS - 1);
		m->bits[group / 2] |= value << (group % 2 * 32);
	}
	return 0;
}
