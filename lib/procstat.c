// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "procstat.h"
#include "util.h"

void procstat_free(struct procstat *s)
{
	free(s->cpu);
	free(s->present);
	memset(s, 0, sizeof(*s));
}

/* Largest CPU number /proc/stat may name: far above any machine today. */
#define PROCSTAT_MAX_CPU 65535

int procstat_parse(const char *text, long ticks_per_s, struct procstat *out, char *err,
		   size_t errlen)
{
	const char *line = text;
	size_t cap = 0, pcap = 0;
	uint64_t ns_per_tick;
	int lineno = 0;

	memset(out, 0, sizeof(*out));
	if (ticks_per_s <= 0 || ticks_per_s > 1000000000L)
		return errmsg(err, errlen, "invalid USER_HZ %ld for /proc/stat", ticks_per_s);
	ns_per_tick = 1000000000ULL / (uint64_t)ticks_per_s;
	for (; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		unsigned long long v[8] = { 0 };
		int cpu, used = 0, fields;

		lineno++;
		if (strncmp(line, "cpu", 3) || line[3] < '0' || line[3] > '9')
			continue;
		/* Older kernels stop before steal; guest and guest_nice are in user. */
		fields = sscanf(line, "cpu%d %llu %llu %llu %llu %llu %llu %llu %llu%n", &cpu, &v[0],
				&v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &used);
		if (fields < 8 || cpu < 0 || cpu > PROCSTAT_MAX_CPU) {
			procstat_free(out);
			return errmsg(err, errlen, "/proc/stat line %d is not a cpuN line of 7 or more times",
				      lineno);
		}
		if (cpu >= out->nr_cpus) {
			if (grow_array((void **)&out->cpu, &cap, (size_t)cpu + 1, sizeof(*out->cpu)) ||
			    grow_array((void **)&out->present, &pcap, (size_t)cpu + 1, 1)) {
				procstat_free(out);
				return errmsg(err, errlen, "out of memory reading /proc/stat");
			}
			memset(out->cpu + out->nr_cpus, 0,
			       ((size_t)cpu + 1 - (size_t)out->nr_cpus) * sizeof(*out->cpu));
			memset(out->present + out->nr_cpus, 0, (size_t)cpu + 1 - (size_t)out->nr_cpus);
			out->nr_cpus = cpu + 1;
		}
		out->present[cpu] = 1;
		out->cpu[cpu] = (struct procstat_cpu){
			.user = v[0] * ns_per_tick, .nice = v[1] * ns_per_tick,
			.system = v[2] * ns_per_tick, .idle = v[3] * ns_per_tick,
			.iowait = v[4] * ns_per_tick, .irq = v[5] * ns_per_tick,
			.softirq = v[6] * ns_per_tick, .steal = v[7] * ns_per_tick,
		};
	}
	if (!out->nr_cpus)
		return errmsg(err, errlen, "/proc/stat has no cpuN line");
	return 0;
}

int procstat_read(const char *path, struct procstat *out, char *err, size_t errlen)
{
	char *text;
	int ret;

	memset(out, 0, sizeof(*out));
	if (read_text_file(path ? path : "/proc/stat", &text, err, errlen))
		return -1;
	ret = procstat_parse(text, sysconf(_SC_CLK_TCK), out, err, errlen);
	free(text);
	return ret;
}

uint64_t procstat_idle_ns(const struct procstat_cpu *c)
{
	return c->idle + c->iowait;
}

uint64_t procstat_idle_upper_ns(const struct procstat_cpu *c)
{
	return c->idle + c->iowait + c->irq + c->softirq + c->steal;
}
