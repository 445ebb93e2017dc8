/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /proc/vmstat parser. The kernel (mm/vmstat.c, vmstat_show()) prints one
 * "<name> <unsigned decimal>" per line, so the format is checked strictly:
 * anything else means we are not reading what we think we are.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vmstat.h"
#include "util.h"

static const char *const numa_counter_names[VMSTAT_NUMA_NR_COUNTERS] = {
	[VMSTAT_NUMA_PTE_UPDATES]	= "numa_pte_updates",
	[VMSTAT_NUMA_HUGE_PTE_UPDATES]	= "numa_huge_pte_updates",
	[VMSTAT_NUMA_HINT_FAULTS]	= "numa_hint_faults",
	[VMSTAT_NUMA_HINT_FAULTS_LOCAL]	= "numa_hint_faults_local",
	[VMSTAT_NUMA_PAGES_MIGRATED]	= "numa_pages_migrated",
	[VMSTAT_PGFAULT]		= "pgfault",
};



static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static int parse_u64(const char *s, size_t len, uint64_t *val)
{
	uint64_t acc = 0;
	size_t i;

	if (!len)
		return -EINVAL;
	for (i = 0; i < len; i++) {
		unsigned int digit;

		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		digit = (unsigned int)(s[i] - '0');
		if (acc > (UINT64_MAX - digit) / 10)
			return -ERANGE;
		acc = acc * 10 + digit;
	}
	*val = acc;
	return 0;
}

static int cmp_entry_ptr(const void *a, const void *b)
{
	const struct vmstat_entry *const *ea = a, *const *eb = b;

	return strcmp((*ea)->name, (*eb)->name);
}

/* Sort the lookup index; a name twice would make lookups ambiguous. */
static int build_index(struct vmstat *s, char *err, size_t errlen)
{
	size_t i;

	if (!s->nr)
		return 0;
	s->by_name = malloc(s->nr * sizeof(*s->by_name));
	if (!s->by_name) {
		errmsg(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < s->nr; i++)
		s->by_name[i] = &s->entries[i];
	qsort(s->by_name, s->nr, sizeof(*s->by_name), cmp_entry_ptr);
	for (i = 1; i < s->nr; i++) {
		if (!strcmp(s->by_name[i - 1]->name, s->by_name[i]->name)) {
			errmsg(err, errlen, "counter \"%.64s\" appears twice",
				s->by_name[i]->name);
			return -EINVAL;
		}
	}
	return 0;
}

static const struct vmstat_entry *find(const struct vmstat *s,
				       const char *name)
{
	size_t lo = 0, hi = s->nr;

	if (!name || !s->by_name)
		return NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(name, s->by_name[mid]->name);

		if (!c)
			return s->by_name[mid];
		if (c > 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

void vmstat_free(struct vmstat *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nr; i++)
		free(s->entries[i].name);
	free(s->entries);
	free(s->by_name);
	memset(s, 0, sizeof(*s));
}

/* Append one entry, taking a copy of the @len bytes of @name. */
static int add_entry(struct vmstat *s, size_t *cap, const char *name,
		     size_t len, uint64_t value)
{
	char *copy;

	if (grow_array((void **)&s->entries, cap, s->nr + 1, sizeof(*s->entries)))
		return -ENOMEM;
	copy = strndup(name, len);
	if (!copy)
		return -ENOMEM;
	s->entries[s->nr].name = copy;
	s->entries[s->nr].value = value;
	s->nr++;
	return 0;
}

int vmstat_parse(const char *text, struct vmstat *out, char *err,
		 size_t errlen)
{
	const char *line = text;
	unsigned int lineno = 0;
	size_t cap = 0;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	errmsg(err, errlen, "%s", "");
	if (!text) {
		errmsg(err, errlen, "no text");
		return -EINVAL;
	}

	while (line && *line) {
		const char *nl = strchr(line, '\n');
		const char *end = nl ? nl : line + strlen(line);
		const char *name, *num, *p = line;
		size_t name_len, num_len;
		uint64_t value;

		lineno++;
		line = nl ? nl + 1 : NULL;

		while (p < end && is_blank(*p))
			p++;
		if (p == end)
			continue;	/* blank line */
		name = p;
		while (p < end && !is_blank(*p))
			p++;
		name_len = (size_t)(p - name);
		while (p < end && is_blank(*p))
			p++;
		num = p;
		while (p < end && !is_blank(*p))
			p++;
		num_len = (size_t)(p - num);
		while (p < end && is_blank(*p))
			p++;

		if (!num_len || p != end) {
			errmsg(err, errlen, "line %u: expected \"<name> <value>\"",
				lineno);
			ret = -EINVAL;
			break;
		}
		ret = parse_u64(num, num_len, &value);
		if (ret) {
			errmsg(err, errlen, "line %u: %.*s: \"%.*s\" is %s",
				lineno, (int)(name_len > 64 ? 64 : name_len),
				name, (int)(num_len > 32 ? 32 : num_len), num,
				ret == -ERANGE ? "out of range" :
				"not an unsigned decimal number");
			ret = -EINVAL;
			break;
		}
		ret = add_entry(out, &cap, name, name_len, value);
		if (ret) {
			errmsg(err, errlen, "out of memory");
			break;
		}
	}
	if (!ret && !out->nr) {
		errmsg(err, errlen, "no counters");
		ret = -EINVAL;
	}
	if (!ret)
		ret = build_index(out, err, errlen);
	if (ret)
		vmstat_free(out);
	return ret;
}


int vmstat_read(const char *path, struct vmstat *out, char *err,
		size_t errlen)
{
	char *text = NULL, msg[256];
	int ret;

	memset(out, 0, sizeof(*out));
	errmsg(err, errlen, "%s", "");
	if (!path)
		path = VMSTAT_DEFAULT_PATH;
	ret = read_text_file(path, &text, err, errlen);
	if (ret)
		return ret;
	ret = vmstat_parse(text, out, msg, sizeof(msg));
	if (ret)
		errmsg(err, errlen, "%s: %s", path, msg);
	free(text);
	return ret;
}

int vmstat_get(const struct vmstat *s, const char *name, uint64_t *value)
{
	const struct vmstat_entry *e = find(s, name);

	if (!e)
		return -ENOENT;
	if (value)
		*value = e->value;
	return 0;
}

bool vmstat_has(const struct vmstat *s, const char *name)
{
	return find(s, name) != NULL;
}

int vmstat_delta(const struct vmstat *before, const struct vmstat *after,
		 struct vmstat *delta, char *err, size_t errlen)
{
	size_t i, cap = 0;
	int ret = 0;

	memset(delta, 0, sizeof(*delta));
	errmsg(err, errlen, "%s", "");
	for (i = 0; i < after->nr; i++) {
		const struct vmstat_entry *a = &after->entries[i];
		const struct vmstat_entry *b = find(before, a->name);

		if (!b)
			continue;
		ret = add_entry(delta, &cap, a->name, strlen(a->name),
				a->value - b->value);
		if (ret) {
			errmsg(err, errlen, "out of memory");
			break;
		}
	}
	if (!ret)
		ret = build_index(delta, err, errlen);
	if (ret)
		vmstat_free(delta);
	return ret;
}

void vmstat_numa_fill(const struct vmstat *s, struct vmstat_numa *out)
{
	uint64_t *slot[VMSTAT_NUMA_NR_COUNTERS] = {
		[VMSTAT_NUMA_PTE_UPDATES]	= &out->numa_pte_updates,
		[VMSTAT_NUMA_HUGE_PTE_UPDATES]	= &out->numa_huge_pte_updates,
		[VMSTAT_NUMA_HINT_FAULTS]	= &out->numa_hint_faults,
		[VMSTAT_NUMA_HINT_FAULTS_LOCAL]	= &out->numa_hint_faults_local,
		[VMSTAT_NUMA_PAGES_MIGRATED]	= &out->numa_pages_migrated,
		[VMSTAT_PGFAULT]		= &out->pgfault,
	};
	int c;

	memset(out, 0, sizeof(*out));
	for (c = 0; c < VMSTAT_NUMA_NR_COUNTERS; c++)
		if (!vmstat_get(s, numa_counter_names[c], slot[c]))
			out->present |= 1u << c;
}

bool vmstat_numa_has(const struct vmstat_numa *n, enum vmstat_numa_counter c)
{
	return (unsigned int)c < VMSTAT_NUMA_NR_COUNTERS &&
	       (n->present & (1u << c));
}

bool vmstat_numa_balancing_present(const struct vmstat_numa *n)
{
	unsigned int numa_bits = ((1u << VMSTAT_NUMA_NR_COUNTERS) - 1) &
				 ~(1u << VMSTAT_PGFAULT);

	return (n->present & numa_bits) == numa_bits;
}

const char *vmstat_numa_counter_name(enum vmstat_numa_counter c)
{
	return (unsigned int)c < VMSTAT_NUMA_NR_COUNTERS ?
	       numa_counter_names[c] : "?";
}
