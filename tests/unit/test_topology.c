/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Topology loading against the machine trees of tests/fixtures/mksysfs.sh.
 * Expected values come from each machine's specification (socket, core and
 * CCX layout, Linux CPU numbering), never from the parser's own output.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <ftw.h>
#include <limits.h>
#include <stdbool.h>
#include <unistd.h>

#include "cpumask.h"
#include "topology.h"
#include "unit.h"

struct machine {
	char root[PATH_MAX];
	struct topology t;
};

/*
 * The big trees are thousands of tiny files, which tmpfs creates about ten
 * times faster than a disk-backed /tmp, so prefer /dev/shm unless the user
 * chose a TMPDIR.
 */
static const char *scratch_dir(void)
{
	const char *tmp = getenv("TMPDIR");

	if (tmp && *tmp)
		return tmp;
	if (access("/dev/shm", W_OK | X_OK) == 0)
		return "/dev/shm";
	return "/tmp";
}

/* Generate @name's sysfs tree into a fresh temporary directory. */
static bool make_machine(const char *name, struct machine *m)
{
	char cmd[3 * PATH_MAX];

	memset(m, 0, sizeof(*m));
	snprintf(m->root, sizeof(m->root), "%s/schedscan-sysfs-XXXXXX",
		 scratch_dir());
	if (!mkdtemp(m->root)) {
		UNIT_FAIL("mkdtemp(%s) failed", m->root);
		m->root[0] = '\0';
		return false;
	}
	snprintf(cmd, sizeof(cmd), "sh '%s/mksysfs.sh' '%s' '%s'",
		 unit_fixtures_dir(), m->root, name);
	if (system(cmd) != 0) {
		UNIT_FAIL("%s failed (set SCHEDSCAN_FIXTURES?)", cmd);
		return false;
	}
	return true;
}

static bool load_machine(const char *name, struct machine *m)
{
	char err[512] = "";

	if (!make_machine(name, m))
		return false;
	if (topology_load(&m->t, m->root, err, sizeof(err))) {
		UNIT_FAIL("loading %s: %s", name, err);
		return false;
	}
	return true;
}

static int remove_entry(const char *path, const struct stat *sb, int type,
			struct FTW *ftw)
{
	(void)sb, (void)type, (void)ftw;
	return remove(path);
}

static void drop_machine(struct machine *m)
{
	topology_free(&m->t);
	if (m->root[0] &&
	    nftw(m->root, remove_entry, 16, FTW_DEPTH | FTW_PHYS) != 0)
		UNIT_FAIL("cannot remove %s", m->root);
}

/* Overwrite one file of a generated tree, to corrupt it on purpose. */
static void write_file(const struct machine *m, const char *rel,
		       const char *text)
{
	char path[2 * PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", m->root, rel);
	f = fopen(path, "w");
	if (!f) {
		UNIT_FAIL("cannot write %s", path);
		return;
	}
	fputs(text, f);
	fclose(f);
}

static const char *list(const struct cpumask *m)
{
	static char bufs[4][4096];
	static int next;
	char *buf = bufs[next++ % 4];

	if (cpulist_format(m, buf, sizeof(bufs[0])) < 0)
		return "(too long)";
	return buf;
}

/*
 * Properties every loaded topology must have, whatever the machine: each
 * online CPU sits in exactly one core, LLC and node, and offline CPUs in
 * none.
 */
static void check_invariants(const struct topology *t)
{
	int core_total = 0, llc_total = 0, node_total = 0, widest = 0;

	CHECK_INT(t->nr_cpu_ids, cpumask_last(&t->possible) + 1);
	CHECK(cpumask_subset(&t->online, &t->possible));
	CHECK(t->nr_cores >= 1 && t->nr_llcs >= 1 && t->nr_nodes >= 1);

	for (int cpu = 0; cpu < t->nr_cpu_ids; cpu++) {
		int core = t->core_of_cpu[cpu], llc = t->llc_of_cpu[cpu];
		int node = t->node_of_cpu[cpu];

		if (!cpumask_test(&t->online, cpu)) {
			if (core != -1 || llc != -1 || node != -1)
				UNIT_FAIL("offline cpu%d has core %d llc %d node %d",
					  cpu, core, llc, node);
			continue;
		}
		if (core < 0 || core >= t->nr_cores ||
		    !cpumask_test(&t->core_cpus[core], cpu))
			UNIT_FAIL("cpu%d has bad core %d", cpu, core);
		if (llc < 0 || llc >= t->nr_llcs ||
		    !cpumask_test(&t->llc_cpus[llc], cpu))
			UNIT_FAIL("cpu%d has bad LLC %d", cpu, llc);
		if (node < 0 || node >= t->nr_nodes ||
		    !cpumask_test(&t->node_cpus[node], cpu))
			UNIT_FAIL("cpu%d has bad node %d", cpu, node);
	}
	/* membership above plus matching totals means a partition */
	for (int i = 0; i < t->nr_cores; i++) {
		core_total += cpumask_weight(&t->core_cpus[i]);
		if (cpumask_weight(&t->core_cpus[i]) > widest)
			widest = cpumask_weight(&t->core_cpus[i]);
		CHECK(!cpumask_empty(&t->core_cpus[i]));
	}
	for (int i = 0; i < t->nr_llcs; i++) {
		llc_total += cpumask_weight(&t->llc_cpus[i]);
		CHECK(!cpumask_empty(&t->llc_cpus[i]));
	}
	for (int i = 0; i < t->nr_nodes; i++)
		node_total += cpumask_weight(&t->node_cpus[i]);
	CHECK_INT(core_total, cpumask_weight(&t->online));
	CHECK_INT(llc_total, cpumask_weight(&t->online));
	CHECK_INT(node_total, cpumask_weight(&t->online));
	CHECK_INT(t->smt_width, widest);
}

/* Dense indexes follow each group's lowest CPU. */
static void check_index_order(const struct topology *t)
{
	int next_core = 0, next_llc = 0;

	for (int cpu = cpumask_next(&t->online, -1); cpu >= 0;
	     cpu = cpumask_next(&t->online, cpu)) {
		if (t->core_of_cpu[cpu] == next_core)
			next_core++;
		else
			CHECK(t->core_of_cpu[cpu] < next_core);
		if (t->llc_of_cpu[cpu] == next_llc)
			next_llc++;
		else
			CHECK(t->llc_of_cpu[cpu] < next_llc);
	}
}

static void check_cores_inside_llcs(const struct topology *t)
{
	for (int core = 0; core < t->nr_cores; core++) {
		int first = cpumask_next(&t->core_cpus[core], -1);

		CHECK(cpumask_subset(&t->core_cpus[core],
				     &t->llc_cpus[t->llc_of_cpu[first]]));
	}
}

static const char *siblings_of(const struct topology *t, int cpu)
{
	return list(&t->core_cpus[t->core_of_cpu[cpu]]);
}

static const char *llc_of(const struct topology *t, int cpu)
{
	return list(&t->llc_cpus[t->llc_of_cpu[cpu]]);
}

/* 2 sockets x 24 cores x SMT2; siblings (n, n+48); LLC and node = socket. */
static void test_xeon_8260_2s(void)
{
	struct machine m;
	const struct topology *t = &m.t;

	if (load_machine("xeon-8260-2s", &m)) {
		check_invariants(t);
		check_index_order(t);
		check_cores_inside_llcs(t);
		CHECK_INT(t->nr_cpu_ids, 96);
		CHECK_INT(cpumask_weight(&t->online), 96);
		CHECK_INT(t->nr_cores, 48);
		CHECK_INT(t->smt_width, 2);
		CHECK_INT(t->nr_llcs, 2);
		CHECK_INT(t->llc_level, 3);
		CHECK_INT(t->nr_nodes, 2);
		CHECK_STR(siblings_of(t, 0), "0,48");
		CHECK_STR(siblings_of(t, 5), "5,53");
		CHECK_STR(siblings_of(t, 53), "5,53");
		CHECK_STR(siblings_of(t, 95), "47,95");
		CHECK_INT(t->core_of_cpu[0], 0);
		CHECK_INT(t->core_of_cpu[48], 0);
		CHECK_INT(t->core_of_cpu[1], 1);
		CHECK_STR(llc_of(t, 0), "0-23,48-71");
		CHECK_STR(llc_of(t, 30), "24-47,72-95");
		CHECK_STR(list(&t->node_cpus[0]), "0-23,48-71");
		CHECK_STR(list(&t->node_cpus[1]), "24-47,72-95");
		CHECK_INT(t->node_of_cpu[0], 0);
		CHECK_INT(t->node_of_cpu[30], 1);
		CHECK_INT(t->node_of_cpu[60], 0);
		CHECK_INT(t->node_of_cpu[90], 1);

		for (int cpu = 0; cpu < 96; cpu++) {
			int first = cpu % 48, socket = first / 24;

			CHECK_INT(t->node_of_cpu[cpu], socket);
			CHECK_INT(t->core_of_cpu[cpu], t->core_of_cpu[first]);
			CHECK_INT(cpumask_weight(&t->llc_cpus[t->llc_of_cpu[cpu]]), 48);
			CHECK_INT(t->llc_of_cpu[cpu], t->llc_of_cpu[socket * 24]);
		}
		CHECK(t->llc_of_cpu[0] != t->llc_of_cpu[24]);
	}
	drop_machine(&m);
}

/*
 * Zen3 2 x 64C/128T: siblings (n, n+128), CCX k = first threads 8k..8k+7 and
 * their siblings, so 16 LLCs of 16 CPUs.
 */
static void check_zen3_2s(const struct topology *t)
{
	check_invariants(t);
	check_index_order(t);
	check_cores_inside_llcs(t);
	CHECK_INT(t->nr_cpu_ids, 256);
	CHECK_INT(cpumask_weight(&t->online), 256);
	CHECK_INT(t->nr_cores, 128);
	CHECK_INT(t->smt_width, 2);
	CHECK_INT(t->nr_llcs, 16);
	CHECK_INT(t->llc_level, 3);
	for (int llc = 0; llc < t->nr_llcs; llc++)
		CHECK_INT(cpumask_weight(&t->llc_cpus[llc]), 16);

	CHECK_STR(siblings_of(t, 0), "0,128");
	CHECK_STR(siblings_of(t, 200), "72,200");
	CHECK_STR(llc_of(t, 0), "0-7,128-135");
	CHECK_STR(llc_of(t, 135), "0-7,128-135");
	CHECK_STR(llc_of(t, 200), "72-79,200-207");
	CHECK_STR(llc_of(t, 255), "120-127,248-255");
	CHECK(t->llc_of_cpu[7] != t->llc_of_cpu[8]);
	for (int cpu = 0; cpu < 256; cpu++) {
		int first = cpu % 128, ccx_first = first / 8 * 8;

		CHECK_INT(t->core_of_cpu[cpu], t->core_of_cpu[first]);
		CHECK_INT(t->llc_of_cpu[cpu], t->llc_of_cpu[ccx_first]);
	}
}

static void test_zen3_2s_nps1(void)
{
	struct machine m;
	const struct topology *t = &m.t;

	if (load_machine("zen3-2s-nps1", &m)) {
		check_zen3_2s(t);
		CHECK_INT(t->nr_nodes, 2);
		CHECK_STR(list(&t->node_cpus[0]), "0-63,128-191");
		CHECK_STR(list(&t->node_cpus[1]), "64-127,192-255");
		CHECK_INT(t->node_of_cpu[200], 1);
		for (int cpu = 0; cpu < 256; cpu++)
			CHECK_INT(t->node_of_cpu[cpu], cpu % 128 / 64);
	}
	drop_machine(&m);
}

/* NPS4: 4 nodes per socket of 16 cores (2 CCX) each. */
static void test_zen3_2s_nps4(void)
{
	struct machine m;
	const struct topology *t = &m.t;

	if (load_machine("zen3-2s-nps4", &m)) {
		check_zen3_2s(t);
		CHECK_INT(t->nr_nodes, 8);
		CHECK_STR(list(&t->node_cpus[0]), "0-15,128-143");
		CHECK_STR(list(&t->node_cpus[4]), "64-79,192-207");
		CHECK_INT(t->node_of_cpu[200], 4);
		CHECK_INT(t->node_of_cpu[255], 7);
		for (int cpu = 0; cpu < 256; cpu++)
			CHECK_INT(t->node_of_cpu[cpu], cpu % 128 / 16);
		for (int node = 0; node < 8; node++) {
			int lowest = node * 16;
			struct cpumask two_ccx;

			CHECK_INT(cpumask_weight(&t->node_cpus[node]), 32);
			cpumask_or(&two_ccx,
				   &t->llc_cpus[t->llc_of_cpu[lowest]],
				   &t->llc_cpus[t->llc_of_cpu[lowest + 8]]);
			CHECK(cpumask_equal(&two_ccx, &t->node_cpus[node]));
		}
	}
	drop_machine(&m);
}

/* No cache directories: the package (0-1) is the LLC, llc_level 0. */
static void test_host_2cpu(void)
{
	struct machine m;
	const struct topology *t = &m.t;

	if (load_machine("host-2cpu", &m)) {
		check_invariants(t);
		CHECK_INT(t->nr_cpu_ids, 2);
		CHECK_STR(list(&t->online), "0-1");
		CHECK_INT(t->nr_cores, 2);
		CHECK_INT(t->smt_width, 1);
		CHECK_STR(siblings_of(t, 1), "1");
		CHECK_INT(t->nr_llcs, 1);
		CHECK_STR(llc_of(t, 0), "0-1");
		CHECK_INT(t->llc_level, 0);
		CHECK_INT(t->nr_nodes, 1);
		CHECK_STR(list(&t->node_cpus[0]), "0-1");
	}
	drop_machine(&m);
}

/* 4C/8T, siblings (n, n+4), cpu5 offline; no NUMA directory. */
static void test_offline_hole(void)
{
	struct machine m;
	const struct topology *t = &m.t;

	if (load_machine("offline-hole", &m)) {
		check_invariants(t);
		check_index_order(t);
		CHECK_INT(t->nr_cpu_ids, 8);
		CHECK_STR(list(&t->possible), "0-7");
		CHECK_STR(list(&t->online), "0-4,6-7");
		CHECK_INT(t->nr_cores, 4);
		CHECK_INT(t->smt_width, 2);
		CHECK_INT(t->core_of_cpu[5], -1);
		CHECK_INT(t->llc_of_cpu[5], -1);
		CHECK_INT(t->node_of_cpu[5], -1);
		CHECK_STR(siblings_of(t, 0), "0,4");
		CHECK_STR(siblings_of(t, 1), "1");
		CHECK_STR(siblings_of(t, 7), "3,7");
		CHECK_INT(t->nr_llcs, 1);
		CHECK_INT(t->llc_level, 3);
		CHECK_STR(llc_of(t, 6), "0-4,6-7");
		CHECK_INT(t->nr_nodes, 1);
		CHECK_STR(list(&t->node_cpus[0]), "0-4,6-7");
		CHECK_INT(t->node_of_cpu[7], 0);
	}
	drop_machine(&m);
}

/* Stale lists naming an offline CPU must not pull it into a group. */
static void test_offline_cpu_in_stale_lists(void)
{
	struct machine m;
	const struct topology *t = &m.t;
	char err[512];

	if (make_machine("offline-hole", &m)) {
		write_file(&m, "devices/system/cpu/cpu1/topology/core_cpus_list",
			   "1,5\n");
		write_file(&m, "devices/system/cpu/cpu0/cache/index3/shared_cpu_list",
			   "0-7\n");
		CHECK_INT(topology_load(&m.t, m.root, err, sizeof(err)), 0);
		check_invariants(t);
		CHECK_STR(siblings_of(t, 1), "1");
		CHECK_STR(llc_of(t, 0), "0-4,6-7");
		CHECK_INT(t->core_of_cpu[5], -1);
	}
	drop_machine(&m);
}

/*
 * Hotplug slots 4-15 never present; the only caches are a per-CPU L1d and
 * a shared level-2 instruction cache, which must not be taken as the LLC;
 * node ids have a hole (node1) and a CPU-less node (node2).
 */
static void test_vm_hotplug_slots(void)
{
	struct machine m;
	const struct topology *t = &m.t;

	if (load_machine("vm-hotplug-slots", &m)) {
		check_invariants(t);
		CHECK_INT(t->nr_cpu_ids, 16);
		CHECK_STR(list(&t->possible), "0-15");
		CHECK_STR(list(&t->online), "0-3");
		CHECK_INT(t->core_of_cpu[10], -1);
		CHECK_INT(t->llc_of_cpu[15], -1);
		CHECK_INT(t->node_of_cpu[4], -1);
		CHECK_INT(t->nr_cores, 4);
		CHECK_INT(t->smt_width, 1);
		CHECK_INT(t->nr_llcs, 4);
		CHECK_INT(t->llc_level, 1);
		CHECK_STR(llc_of(t, 2), "2");
		CHECK_INT(t->nr_nodes, 3);
		CHECK_STR(list(&t->node_cpus[0]), "0-3");
		CHECK(cpumask_empty(&t->node_cpus[1]));
		CHECK(cpumask_empty(&t->node_cpus[2]));

		/* a node listing absent CPUs still only holds online ones */
		topology_free(&m.t);
		write_file(&m, "devices/system/node/node0/cpulist", "0-7\n");
		CHECK_INT(topology_load(&m.t, m.root, NULL, 0), 0);
		check_invariants(t);
		CHECK_STR(list(&t->node_cpus[0]), "0-3");
		CHECK_INT(t->node_of_cpu[5], -1);
	}
	drop_machine(&m);
}

/*
 * arm64 big.LITTLE: cpu_capacity 446 and 1024, the asymmetric-capacity
 * case sisscan cannot decode; the same tree with equal capacities, and
 * the x86 trees without the file, are symmetric.
 */
static void test_asym_capacity(void)
{
	struct machine m;
	const struct topology *t = &m.t;

	if (load_machine("arm-big-little", &m)) {
		check_invariants(t);
		CHECK(t->asym_capacity);
		CHECK_INT(t->smt_width, 1);
		CHECK_INT(t->nr_llcs, 1);
		topology_free(&m.t);
		for (int cpu = 4; cpu < 8; cpu++) {
			char path[64];

			snprintf(path, sizeof(path),
				 "devices/system/cpu/cpu%d/cpu_capacity", cpu);
			write_file(&m, path, "446\n");
		}
		CHECK_INT(topology_load(&m.t, m.root, NULL, 0), 0);
		CHECK(!t->asym_capacity);
		topology_free(&m.t);
		write_file(&m, "devices/system/cpu/cpu3/cpu_capacity", "big\n");
		CHECK_INT(topology_load(&m.t, m.root, NULL, 0), -1);
	}
	drop_machine(&m);
	if (load_machine("xeon-8260-2s", &m))
		CHECK(!t->asym_capacity);
	drop_machine(&m);
}

static int count_cpu_dirs(void)
{
	struct dirent *entry;
	int count = 0;
	DIR *dir = opendir("/sys/devices/system/cpu");

	if (!dir)
		return -1;
	while ((entry = readdir(dir))) {
		const char *p = entry->d_name;

		if (strncmp(p, "cpu", 3) || !p[3])
			continue;
		for (p += 3; *p >= '0' && *p <= '9'; p++)
			;
		count += !*p;
	}
	closedir(dir);
	return count;
}

static void test_real_host(void)
{
	struct topology t;
	char err[512] = "";
	long conf = sysconf(_SC_NPROCESSORS_CONF);

	if (topology_load(&t, "/sys", err, sizeof(err))) {
		UNIT_FAIL("loading /sys: %s", err);
		return;
	}
	check_invariants(&t);
	/*
	 * glibc counts either the cpuN directories (present CPUs) or the
	 * possible list, depending on version; both must agree with us.
	 */
	if (conf != cpumask_weight(&t.possible) && conf != count_cpu_dirs())
		UNIT_FAIL("sysconf(_SC_NPROCESSORS_CONF) = %ld, but possible is %s",
			  conf, list(&t.possible));
	CHECK_INT(cpumask_weight(&t.online), sysconf(_SC_NPROCESSORS_ONLN));
	CHECK(t.smt_width >= 1);
	topology_free(&t);
}

static void test_env_root(void)
{
	const char *saved = getenv("SCHEDSCAN_SYSFS");
	char *saved_copy = saved ? strdup(saved) : NULL;
	struct machine m;
	struct topology host;
	char err[512];

	if (make_machine("offline-hole", &m)) {
		setenv("SCHEDSCAN_SYSFS", m.root, 1);
		CHECK_INT(topology_load(&m.t, NULL, err, sizeof(err)), 0);
		CHECK_INT(m.t.nr_cpu_ids, 8);
		topology_free(&m.t);

		/* an explicit root wins over the environment */
		CHECK_INT(topology_load(&host, "/sys", err, sizeof(err)), 0);
		CHECK_INT(cpumask_weight(&host.online),
			  sysconf(_SC_NPROCESSORS_ONLN));
		topology_free(&host);

		/* empty means unset */
		setenv("SCHEDSCAN_SYSFS", "", 1);
		CHECK_INT(topology_load(&host, NULL, err, sizeof(err)), 0);
		CHECK_INT(cpumask_weight(&host.online),
			  sysconf(_SC_NPROCESSORS_ONLN));
		topology_free(&host);
	}
	if (saved_copy)
		setenv("SCHEDSCAN_SYSFS", saved_copy, 1);
	else
		unsetenv("SCHEDSCAN_SYSFS");
	free(saved_copy);
	drop_machine(&m);
}

static bool topology_is_zeroed(const struct topology *t)
{
	static const struct topology zero;

	return memcmp(t, &zero, sizeof(zero)) == 0;
}

static void test_missing_root(void)
{
	struct topology t;
	char err[512];

	CHECK_INT(topology_load(&t, "/nonexistent-schedscan", err, sizeof(err)),
		  -1);
	CHECK_STR(err, "cannot read /nonexistent-schedscan/devices/system/cpu/possible: No such file or directory");
	CHECK(topology_is_zeroed(&t));
	topology_free(&t);	/* harmless after a failure */
	topology_free(&t);
	CHECK_INT(topology_load(&t, "/nonexistent-schedscan", NULL, 0), -1);
}

static void expect_load_error(const char *machine, const char *rel,
			      const char *text, const char *want)
{
	struct machine m;
	char err[512] = "";

	if (make_machine(machine, &m)) {
		write_file(&m, rel, text);
		CHECK_INT(topology_load(&m.t, m.root, err, sizeof(err)), -1);
		CHECK(topology_is_zeroed(&m.t));
		CHECK_CONTAINS(err, m.root);
		CHECK_CONTAINS(err, rel);
		CHECK_CONTAINS(err, want);
		CHECK(!strchr(err, '\n'));
	}
	drop_machine(&m);
}

static void test_corrupt_files(void)
{
	expect_load_error("offline-hole", "devices/system/cpu/online",
			  "0-3,abc\n",
			  ": invalid CPU list \"0-3,abc\": expected a CPU number at \"abc\" in \"abc\"");
	expect_load_error("offline-hole", "devices/system/cpu/possible",
			  "\n", " lists no CPUs");
	expect_load_error("offline-hole", "devices/system/cpu/online",
			  "9\n", " lists no possible CPU");
	expect_load_error("offline-hole",
			  "devices/system/cpu/cpu0/topology/core_cpus_list",
			  "7-3\n", "range end is below its start");
	expect_load_error("offline-hole",
			  "devices/system/cpu/cpu0/cache/index2/level",
			  "two\n", " holds \"two\" instead of a cache level");
	expect_load_error("xeon-8260-2s",
			  "devices/system/node/node1/cpulist",
			  "24-47,72-99999\n", "CPU 99999 is beyond");
}

UNIT_MAIN(UNIT_TEST(test_xeon_8260_2s),
	  UNIT_TEST(test_zen3_2s_nps1),
	  UNIT_TEST(test_zen3_2s_nps4),
	  UNIT_TEST(test_host_2cpu),
	  UNIT_TEST(test_offline_hole),
	  UNIT_TEST(test_offline_cpu_in_stale_lists),
	  UNIT_TEST(test_vm_hotplug_slots),
	  UNIT_TEST(test_asym_capacity),
	  UNIT_TEST(test_real_host),
	  UNIT_TEST(test_env_root),
	  UNIT_TEST(test_missing_root),
	  UNIT_TEST(test_corrupt_files));
