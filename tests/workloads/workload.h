/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the test workloads share: strict option values and CPU lists.
 * Header only, so each workload stays one file and one static binary
 * that the guests run without a library. A workload that includes it
 * defines usage(), which prints its synopsis and exits 2, and
 * _GNU_SOURCE before its first include (cpu_set_t).
 */
#ifndef SCHEDSCAN_WORKLOAD_H
#define SCHEDSCAN_WORKLOAD_H

#include <pthread.h>
#include <stdbool.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static void usage(void) __attribute__((noreturn));

/* A whole number in [min, max], or usage(): "12x", "" and out of range refused. */
static inline long option_long(const char *text, long min, long max)
{
	char *end;
	long value = strtol(text, &end, 10);

	if (end == text || *end || value < min || value > max)
		usage();
	return value;
}

/* A positive number of seconds (fractions allowed), or usage(). */
static inline double option_seconds(const char *text)
{
	char *end;
	double value = strtod(text, &end);

	if (end == text || *end || !(value > 0))
		usage();
	return value;
}

/*
 * "1-3,5" (a trailing newline allowed, as sysfs writes it) into set, CPUs
 * below max_cpus: 0, or -1 on a malformed or empty list.
 */
static inline int parse_cpulist(const char *text, cpu_set_t *set, long max_cpus)
{
	char *end;

	CPU_ZERO(set);
	for (;;) {
		long lo = strtol(text, &end, 10), hi = lo;

		if (end == text || lo < 0 || lo >= max_cpus || lo >= CPU_SETSIZE)
			return -1;
		if (*end == '-') {
			text = end + 1;
			hi = strtol(text, &end, 10);
			if (end == text || hi < lo || hi >= max_cpus || hi >= CPU_SETSIZE)
				return -1;
		}
		for (long c = lo; c <= hi; c++)
			CPU_SET(c, set);
		if (!*end || (*end == '\n' && !end[1]))
			return 0;
		if (*end != ',')
			return -1;
		text = end + 1;
	}
}

/*
 * -t THREADS (min_threads to 1024), -m MB, -s SECONDS, as the memory
 * workloads share them: true if opt was one of them (its value stored).
 */
static inline bool sizing_option(int opt, long min_threads, long *threads, long *megabytes,
				 double *seconds)
{
	switch (opt) {
	case 't':
		*threads = option_long(optarg, min_threads, 1024);
		return true;
	case 'm':
		*megabytes = option_long(optarg, 1, 1L << 20);
		return true;
	case 's':
		*seconds = option_seconds(optarg);
		return true;
	default:
		return false;
	}
}

/* Seconds on the monotonic clock. */
static inline double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Starts fn(index) in *thread, or says why it could not and exits 1. */
static inline void start_thread(pthread_t *thread, void *(*fn)(void *), long index)
{
	if (pthread_create(thread, NULL, fn, (void *)index)) {
		perror("pthread_create");
		exit(1);
	}
}

/*
 * size bytes of anonymous memory in 4 KiB pages (a hint fault per page),
 * between two PROT_NONE guard pages, or NULL. The guards keep it one VMA
 * of its own: a thread stack mapped next to it would otherwise merge with
 * it where their flags match (6.7+ gives MAP_STACK VM_NOHUGEPAGE, as
 * madvise gives the buffer), and the VMA's start would move under the
 * tracer.
 */
static inline char *map_guarded(size_t size)
{
	long page = sysconf(_SC_PAGESIZE);
	char *base = mmap(NULL, size + 2 * page, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (base == MAP_FAILED || mprotect(base, page, PROT_NONE) ||
	    mprotect(base + page + size, page, PROT_NONE))
		return NULL;
	madvise(base + page, size, MADV_NOHUGEPAGE);
	return base + page;
}

#endif
