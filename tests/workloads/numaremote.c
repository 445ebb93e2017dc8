/* SPDX-License-Identifier: GPL-2.0 */
/*
 * numaremote: THREADS threads (and the main one) pinned to the CPUs of
 * node CPU_NODE keep writing a buffer whose pages were placed on node
 * MEM_NODE (mbind MPOL_BIND for the first touch, then MPOL_DEFAULT so
 * that NUMA balancing may move them): remote hint faults, then
 * migrations MEM_NODE -> CPU_NODE, then local faults. No libnuma: raw
 * syscalls.
 *
 * It reports what the kernel says, for tests to hold a tracer against:
 *   numaremote pid PID
 *   numaremote placed PAGES on_mem_node N          (after the first touch)
 *   numaremote end on_cpu_node N on_mem_node M pages PAGES
 * (/proc/self/numa_maps's per-node counts of the buffer's VMA.) The
 * threads also write a small malloc'd array, so the process has a
 * [heap] VMA with hint faults.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/mempolicy.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"

static char *buffer, *heap;
static size_t buffer_size, heap_size = 64 << 10;
static double deadline;
static cpu_set_t node_cpus;

static void *toucher(void *arg)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned char value = (unsigned char)(long)arg;

	if (sched_setaffinity(0, sizeof(node_cpus), &node_cpus))
		perror("sched_setaffinity");
	while (now() < deadline) {
		for (size_t off = 0; off < buffer_size; off += page)
			buffer[off] = value++;
		for (size_t off = 0; off < heap_size; off += page)
			heap[off] = value;
	}
	return NULL;
}

/* The CPUs of a node, from /sys/devices/system/node/nodeN/cpulist. */
static int read_node_cpus(int node, cpu_set_t *set)
{
	char path[128], list[4096];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist", node);
	f = fopen(path, "r");
	if (!f || !fgets(list, sizeof(list), f)) {
		if (f)
			fclose(f);
		return -1;
	}
	fclose(f);
	return parse_cpulist(list, set, CPU_SETSIZE);
}

static long set_policy(void *addr, size_t len, int mode, int node)
{
	unsigned long mask = 1UL << node;

	return syscall(SYS_mbind, addr, len, mode, mode == MPOL_DEFAULT ? NULL : &mask,
		       mode == MPOL_DEFAULT ? 0 : sizeof(mask) * 8, 0);
}

/*
 * How many of the buffer's pages sit on node a and on node b, from
 * /proc/self/numa_maps: its walk of the page table counts a page the
 * scanner made PROT_NONE where it is, while move_pages(2) reports such a
 * page as an error (6404 of 16384 once on 6.1) and reading it to find out
 * takes the hint fault, which may move it.
 */
static int count_nodes(int a, int b, long *on_a, long *on_b, long *pages)
{
	FILE *f = fopen("/proc/self/numa_maps", "r");
	char line[4096], *field, *save;
	int found = 0;

	if (!f) {
		perror("numaremote: /proc/self/numa_maps");
		return -1;
	}
	*on_a = *on_b = *pages = 0;
	while (!found && fgets(line, sizeof(line), f)) {
		if (strtoul(line, NULL, 16) != (unsigned long)buffer)
			continue;
		found = 1;
		for (field = strtok_r(line, " \n", &save); field;
		     field = strtok_r(NULL, " \n", &save)) {
			int node;
			long n;

			if (sscanf(field, "N%d=%ld", &node, &n) != 2)
				continue;
			*pages += n;
			if (node == a)
				*on_a += n;
			if (node == b)
				*on_b += n;
		}
	}
	fclose(f);
	if (!found) {
		fprintf(stderr, "numaremote: the buffer is not in /proc/self/numa_maps\n");
		return -1;
	}
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: numaremote [-t THREADS] [-m MB] [-s SECONDS] [-c CPU_NODE] [-M MEM_NODE]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	long threads = 4, megabytes = 64, on_cpu, on_mem, pages;
	int cpu_node = 0, mem_node = 1, opt;
	double seconds = 5;
	pthread_t *tids;

	while ((opt = getopt(argc, argv, "t:m:s:c:M:")) != -1) {
		switch (opt) {
		case 'c':
			cpu_node = (int)option_long(optarg, 0, 63);
			break;
		case 'M':
			mem_node = (int)option_long(optarg, 0, 63);
			break;
		default:
			if (!sizing_option(opt, 1, &threads, &megabytes, &seconds))
				usage();
		}
	}
	if (read_node_cpus(cpu_node, &node_cpus)) {
		fprintf(stderr, "numaremote: node %d has no CPUs listed\n", cpu_node);
		return 1;
	}
	/*
	 * Every thread on CPU_NODE, this one too: it touches its heap and
	 * stack after the scanner marked them (count_nodes()'s line buffer).
	 */
	if (sched_setaffinity(0, sizeof(node_cpus), &node_cpus)) {
		perror("numaremote: sched_setaffinity");
		return 1;
	}
	printf("numaremote pid %d\n", getpid());
	fflush(stdout);
	buffer_size = (size_t)megabytes << 20;
	/* A VMA of its own (workload.h), so that numa_maps still has it at the end. */
	buffer = map_guarded(buffer_size);
	heap = malloc(heap_size);
	if (!buffer || !heap) {
		perror("numaremote: allocating");
		return 1;
	}
	if (set_policy(buffer, buffer_size, MPOL_BIND, mem_node)) {
		fprintf(stderr, "numaremote: mbind to node %d: %s\n", mem_node, strerror(errno));
		return 1;
	}
	memset(buffer, 1, buffer_size);
	memset(heap, 1, heap_size);
	/* The pages stay where they are; NUMA balancing may now move them. */
	if (set_policy(buffer, buffer_size, MPOL_DEFAULT, 0)) {
		fprintf(stderr, "numaremote: mbind default: %s\n", strerror(errno));
		return 1;
	}
	if (count_nodes(cpu_node, mem_node, &on_cpu, &on_mem, &pages))
		return 1;
	printf("numaremote placed %ld on_mem_node %ld\n", pages, on_mem);
	fflush(stdout);
	deadline = now() + seconds;
	tids = calloc(threads, sizeof(*tids));
	if (!tids)
		return 1;
	for (long i = 0; i < threads; i++)
		start_thread(&tids[i], toucher, i);
	for (long i = 0; i < threads; i++)
		pthread_join(tids[i], NULL);
	if (count_nodes(cpu_node, mem_node, &on_cpu, &on_mem, &pages))
		return 1;
	printf("numaremote end on_cpu_node %ld on_mem_node %ld pages %ld\n", on_cpu, on_mem,
	       pages);
	free(tids);
	return 0;
}
