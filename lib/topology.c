/* SPDX-License-Identifier: GPL-2.0 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "topology.h"

/* Fits the longest cpulist of CPUMASK_MAX_CPUS CPUs ("0,2,4,..." ~24 KiB). */
#define SYSFS_TEXT_MAX 65536

/* Far above the kernel's MAX_NUMNODES (1024): a larger id means a broken tree. */
#define TOPOLOGY_MAX_NODES 4096

/* cache/indexN directories are few; the cap only guards against loops. */
#define MAX_CACHE_INDEXES 64

struct loader {
	const char *root;
	char path[PATH_MAX];
	char *text;		/* SYSFS_TEXT_MAX bytes, holds the last file read */
	char *err;
	size_t errlen;
	struct topology *t;
};

__attribute__((format(printf, 2, 3)))
static int load_fail(struct loader *ld, const char *fmt, ...)
{
	va_list ap;

	if (ld->err && ld->errlen) {
		va_start(ap, fmt);
		vsnprintf(ld->err, ld->errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* Point ld->path at <root>/<suffix>. */
__attribute__((format(printf, 2, 3)))
static int set_path(struct loader *ld, const char *fmt, ...)
{
	size_t root_len = strlen(ld->root);
	va_list ap;
	int n;

	if (root_len >= sizeof(ld->path))
		return load_fail(ld, "the sysfs root \"%.64s...\" is too long",
				 ld->root);
	memcpy(ld->path, ld->root, root_len);
	va_start(ap, fmt);
	n = vsnprintf(ld->path + root_len, sizeof(ld->path) - root_len, fmt,
		      ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(ld->path) - root_len)
		return load_fail(ld, "the sysfs root \"%.64s...\" is too long",
				 ld->root);
	return 0;
}

/*
 * Read ld->path into ld->text. Returns 0, or -1 with errno set and err
 * untouched, so callers can decide whether a missing file is an error.
 */
static int read_text(struct loader *ld)
{
	size_t used = 0;
	int fd, saved_errno;

	fd = open(ld->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	for (;;) {
		ssize_t n = read(fd, ld->text + used, SYSFS_TEXT_MAX - 1 - used);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto fail;
		if (n == 0)
			break;
		used += n;
		if (used == SYSFS_TEXT_MAX - 1) {
			errno = EFBIG;
			goto fail;
		}
	}
	close(fd);
	ld->text[used] = '\0';
	return 0;
fail:
	saved_errno = errno;
	close(fd);
	errno = saved_errno;
	return -1;
}

static bool file_is_missing(void)
{
	/* A CPU's sysfs directory vanishes under us if it goes offline. */
	return errno == ENOENT || errno == ENOTDIR;
}

/*
 * Read the cpulist at ld->path. Returns 0 on success, 1 if the file does not
 * exist (the caller has a fallback), -1 on any other problem.
 */
static int read_cpulist(struct loader *ld, struct cpumask *m)
{
	char why[256];

	if (read_text(ld)) {
		if (file_is_missing())
			return 1;
		return load_fail(ld, "cannot read %s: %s", ld->path,
				 strerror(errno));
	}
	if (cpulist_parse(ld->text, m, why, sizeof(why)))
		return load_fail(ld, "%s: %s", ld->path, why);
	return 0;
}

static int read_required_cpulist(struct loader *ld, struct cpumask *m)
{
	int ret = read_cpulist(ld, m);

	if (ret == 1)
		return load_fail(ld, "cannot read %s: %s", ld->path,
				 strerror(ENOENT));
	return ret;
}

/*
 * Try the sysfs files @names[] of @cpu's topology directory in order and read
 * the first that exists into @m. Returns 1 if none exists.
 */
static int read_cpu_topology_list(struct loader *ld, int cpu,
				  const char *const *names, struct cpumask *m)
{
	for (; *names; names++) {
		int ret;

		if (set_path(ld, "/devices/system/cpu/cpu%d/topology/%s", cpu,
			     *names))
			return -1;
		ret = read_cpulist(ld, m);
		if (ret != 1)
			return ret;
	}
	return 1;
}

static int *alloc_cpu_index(int nr_cpu_ids)
{
	int *index = malloc(nr_cpu_ids * sizeof(*index));

	if (index)
		for (int cpu = 0; cpu < nr_cpu_ids; cpu++)
			index[cpu] = -1;
	return index;
}

static int load_cpus(struct loader *ld)
{
	struct topology *t = ld->t;

	if (set_path(ld, "/devices/system/cpu/possible") ||
	    read_required_cpulist(ld, &t->possible))
		return -1;
	if (cpumask_empty(&t->possible))
		return load_fail(ld, "%s lists no CPUs", ld->path);
	t->nr_cpu_ids = cpumask_last(&t->possible) + 1;

	if (set_path(ld, "/devices/system/cpu/online") ||
	    read_required_cpulist(ld, &t->online))
		return -1;
	cpumask_and(&t->online, &t->online, &t->possible);
	if (cpumask_empty(&t->online))
		return load_fail(ld, "%s lists no possible CPU", ld->path);

	t->core_of_cpu = alloc_cpu_index(t->nr_cpu_ids);
	t->llc_of_cpu = alloc_cpu_index(t->nr_cpu_ids);
	t->node_of_cpu = alloc_cpu_index(t->nr_cpu_ids);
	if (!t->core_of_cpu || !t->llc_of_cpu || !t->node_of_cpu)
		return load_fail(ld, "out of memory for %d CPUs",
				 t->nr_cpu_ids);
	return 0;
}

/*
 * Turn @members, the group sysfs reports for @cpu, into group number @group:
 * keep only online CPUs that no earlier group claimed. Sysfs can be briefly
 * inconsistent during hotplug, and this keeps the groups a partition of the
 * online CPUs no matter what it says.
 */
static void claim_group(const struct topology *t, int *group_of_cpu,
			struct cpumask *members, int cpu, int group)
{
	cpumask_and(members, members, &t->online);
	cpumask_set(members, cpu);
	for (int c = cpumask_next(members, -1); c >= 0;
	     c = cpumask_next(members, c)) {
		if (group_of_cpu[c] >= 0)
			cpumask_unset(members, c);
		else
			group_of_cpu[c] = group;
	}
}

/* Give back the unused tail of an array sized for one group per CPU. */
static struct cpumask *shrink_groups(struct cpumask *groups, int nr)
{
	struct cpumask *smaller = realloc(groups, nr * sizeof(*groups));

	if (!smaller)	/* harmless: keep the bigger block */
		return groups;
	return smaller;
}

static int load_cores(struct loader *ld)
{
	/* core_cpus_list is the newer name, thread_siblings_list the old one */
	static const char *const sibling_files[] = {
		"core_cpus_list", "thread_siblings_list", NULL
	};
	struct topology *t = ld->t;
	int cpu;

	t->core_cpus = calloc(cpumask_weight(&t->online), sizeof(*t->core_cpus));
	if (!t->core_cpus)
		return load_fail(ld, "out of memory for the core table");

	for (cpu = cpumask_next(&t->online, -1); cpu >= 0;
	     cpu = cpumask_next(&t->online, cpu)) {
		struct cpumask *siblings = &t->core_cpus[t->nr_cores];
		int ret;

		if (t->core_of_cpu[cpu] >= 0)
			continue;
		ret = read_cpu_topology_list(ld, cpu, sibling_files, siblings);
		if (ret < 0)
			return -1;
		if (ret == 1)	/* no topology directory: assume no SMT */
			cpumask_clear(siblings);
		claim_group(t, t->core_of_cpu, siblings, cpu, t->nr_cores);
		if (cpumask_weight(siblings) > t->smt_width)
			t->smt_width = cpumask_weight(siblings);
		t->nr_cores++;
	}
	t->core_cpus = shrink_groups(t->core_cpus, t->nr_cores);
	return 0;
}

static void trim_trailing_space(char *s)
{
	size_t len = strlen(s);

	while (len && (s[len - 1] == '\n' || s[len - 1] == ' ' ||
		       s[len - 1] == '\t' || s[len - 1] == '\r'))
		s[--len] = '\0';
}

/*
 * Find @cpu's last-level cache: the highest-level Unified or Data cache in
 * cpuN/cache/index*. Instruction caches never count, whatever their level.
 * Returns 0 with the sharing CPUs in @shared, 1 if the CPU exposes no
 * cache information, -1 on error.
 */
static int read_cpu_llc(struct loader *ld, int cpu, struct cpumask *shared,
			int *llc_level)
{
	int best_level = 0;

	for (int index = 0; index < MAX_CACHE_INDEXES; index++) {
		char *end;
		long level;
		int ret;

		if (set_path(ld, "/devices/system/cpu/cpu%d/cache/index%d/level",
			     cpu, index))
			return -1;
		if (read_text(ld)) {
			if (file_is_missing())
				break;	/* indexes are numbered without gaps */
			return load_fail(ld, "cannot read %s: %s", ld->path,
					 strerror(errno));
		}
		errno = 0;
		level = strtol(ld->text, &end, 10);
		trim_trailing_space(end);
		if (errno || end == ld->text || *end || level < 1 ||
		    level > 100)
			return load_fail(ld, "%s holds \"%.32s\" instead of a cache level",
					 ld->path, ld->text);
		if (level <= best_level)
			continue;

		if (set_path(ld, "/devices/system/cpu/cpu%d/cache/index%d/type",
			     cpu, index))
			return -1;
		if (read_text(ld))
			return load_fail(ld, "cannot read %s: %s", ld->path,
					 strerror(errno));
		trim_trailing_space(ld->text);
		if (strcmp(ld->text, "Unified") && strcmp(ld->text, "Data"))
			continue;

		if (set_path(ld, "/devices/system/cpu/cpu%d/cache/index%d/shared_cpu_list",
			     cpu, index))
			return -1;
		ret = read_required_cpulist(ld, shared);
		if (ret)
			return ret;
		best_level = level;
	}
	if (!best_level)
		return 1;
	*llc_level = best_level;
	return 0;
}

static int load_llcs(struct loader *ld)
{
	/* what to treat as the LLC when the kernel exposes no caches (VMs) */
	static const char *const package_files[] = {
		"package_cpus_list", "core_siblings_list", NULL
	};
	struct topology *t = ld->t;
	int cpu;

	t->llc_cpus = calloc(cpumask_weight(&t->online), sizeof(*t->llc_cpus));
	if (!t->llc_cpus)
		return load_fail(ld, "out of memory for the LLC table");

	for (cpu = cpumask_next(&t->online, -1); cpu >= 0;
	     cpu = cpumask_next(&t->online, cpu)) {
		struct cpumask *shared = &t->llc_cpus[t->nr_llcs];
		int level = 0, ret;

		if (t->llc_of_cpu[cpu] >= 0)
			continue;
		ret = read_cpu_llc(ld, cpu, shared, &level);
		if (ret == 1)
			ret = read_cpu_topology_list(ld, cpu, package_files,
						     shared);
		if (ret < 0)
			return -1;
		if (ret == 1)	/* nothing known: share with no one */
			cpumask_clear(shared);
		claim_group(t, t->llc_of_cpu, shared, cpu, t->nr_llcs);
		if (level > t->llc_level)
			t->llc_level = level;
		t->nr_llcs++;
	}
	t->llc_cpus = shrink_groups(t->llc_cpus, t->nr_llcs);
	return 0;
}

/* Parse a "nodeN" directory name; other entries (has_cpu, online...) are -1. */
static int node_dir_id(const char *name)
{
	char *end;
	long id;

	if (strncmp(name, "node", 4) || name[4] < '0' || name[4] > '9')
		return -1;
	errno = 0;
	id = strtol(name + 4, &end, 10);
	if (errno || *end || id > INT_MAX)
		return -1;
	return (int)id;
}

/* Highest nodeN id below devices/system/node, -1 if none, -2 on error. */
static int find_highest_node(struct loader *ld)
{
	struct dirent *entry;
	int highest = -1;
	DIR *dir;

	if (set_path(ld, "/devices/system/node"))
		return -2;
	dir = opendir(ld->path);
	if (!dir) {
		if (file_is_missing())
			return -1;	/* kernel built without NUMA */
		load_fail(ld, "cannot open %s: %s", ld->path, strerror(errno));
		return -2;
	}
	while ((entry = readdir(dir))) {
		int id = node_dir_id(entry->d_name);

		if (id > highest)
			highest = id;
	}
	closedir(dir);
	if (highest >= TOPOLOGY_MAX_NODES) {
		load_fail(ld, "%s/node%d is beyond the %d NUMA nodes we support",
			  ld->path, highest, TOPOLOGY_MAX_NODES);
		return -2;
	}
	return highest;
}

static int load_nodes(struct loader *ld)
{
	struct topology *t = ld->t;
	int highest, node, cpu;

	highest = find_highest_node(ld);
	if (highest == -2)
		return -1;
	t->nr_nodes = highest >= 0 ? highest + 1 : 1;
	t->node_cpus = calloc(t->nr_nodes, sizeof(*t->node_cpus));
	if (!t->node_cpus)
		return load_fail(ld, "out of memory for %d NUMA nodes",
				 t->nr_nodes);

	for (node = 0; node <= highest; node++) {
		struct cpumask *cpus = &t->node_cpus[node];

		/* ids can have holes: a missing node keeps an empty mask */
		if (set_path(ld, "/devices/system/node/node%d/cpulist", node) ||
		    read_cpulist(ld, cpus) < 0)
			return -1;
		cpumask_and(cpus, cpus, &t->online);
		for (cpu = cpumask_next(cpus, -1); cpu >= 0;
		     cpu = cpumask_next(cpus, cpu)) {
			if (t->node_of_cpu[cpu] >= 0)
				cpumask_unset(cpus, cpu);	/* listed twice */
			else
				t->node_of_cpu[cpu] = node;
		}
	}

	/*
	 * Without NUMA information (or for an online CPU the node files
	 * forgot) use node 0, so callers can index node_cpus[] by the node
	 * of any online CPU without checking for -1.
	 */
	for (cpu = cpumask_next(&t->online, -1); cpu >= 0;
	     cpu = cpumask_next(&t->online, cpu)) {
		if (t->node_of_cpu[cpu] < 0) {
			t->node_of_cpu[cpu] = 0;
			cpumask_set(&t->node_cpus[0], cpu);
		}
	}
	return 0;
}

/*
 * Asymmetric CPU capacity, the condition under which the scheduler builds
 * an SD_ASYM_CPUCAPACITY domain and select_idle_sibling() runs
 * select_idle_capacity(): the online CPUs' cpu_capacity files differ.
 * Only arm64 and RISC-V write the files; x86 hybrid parts do not, and
 * their kernels do not enable the asymmetric path either.
 */
static int load_capacity(struct loader *ld)
{
	struct topology *t = ld->t;
	long first = -1;

	for (int cpu = cpumask_next(&t->online, -1); cpu >= 0;
	     cpu = cpumask_next(&t->online, cpu)) {
		long capacity;
		char *end;

		if (set_path(ld, "/devices/system/cpu/cpu%d/cpu_capacity", cpu))
			return -1;
		if (read_text(ld)) {
			if (file_is_missing())
				return 0;
			return load_fail(ld, "reading %s failed: %s", ld->path,
					 strerror(errno));
		}
		capacity = strtol(ld->text, &end, 10);
		if (end == ld->text)
			return load_fail(ld, "%s does not hold a number", ld->path);
		if (first < 0)
			first = capacity;
		else if (capacity != first)
			t->asym_capacity = true;
	}
	return 0;
}

int topology_load(struct topology *t, const char *sysfs_root, char *err,
		  size_t errlen)
{
	struct loader ld = {
		.root = sysfs_root,
		.err = err,
		.errlen = errlen,
		.t = t,
	};
	int ret;

	memset(t, 0, sizeof(*t));
	if (err && errlen)
		err[0] = '\0';
	if (!ld.root) {
		ld.root = getenv("SCHEDSCAN_SYSFS");
		if (!ld.root || !*ld.root)
			ld.root = "/sys";
	}

	ld.text = malloc(SYSFS_TEXT_MAX);
	if (!ld.text)
		return load_fail(&ld, "out of memory for reading sysfs");
	ret = load_cpus(&ld);
	if (!ret)
		ret = load_cores(&ld);
	if (!ret)
		ret = load_llcs(&ld);
	if (!ret)
		ret = load_nodes(&ld);
	if (!ret)
		ret = load_capacity(&ld);
	free(ld.text);
	if (ret)
		topology_free(t);
	return ret;
}

void topology_free(struct topology *t)
{
	free(t->core_of_cpu);
	free(t->llc_of_cpu);
	free(t->node_of_cpu);
	free(t->core_cpus);
	free(t->llc_cpus);
	free(t->node_cpus);
	memset(t, 0, sizeof(*t));
}
