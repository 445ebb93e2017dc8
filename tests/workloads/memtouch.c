/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memtouch: THREADS threads repeatedly write every page of one shared
 * buffer. A multi-threaded process is what NUMA balancing scans (the
 * kernel skips single-threaded private VMAs on the local node), so this
 * produces real NUMA hint faults and PTE updates when
 * kernel.numa_balancing=1.
 */
#define _GNU_SOURCE /* cpu_set_t in workload.h */
#include <fcntl.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"

static char *buffer;
static size_t buffer_size;
static double deadline;

static void *toucher(void *arg)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned char value = (unsigned char)(long)arg;

	while (now() < deadline) {
		for (size_t off = 0; off < buffer_size; off += page)
			buffer[off] = value++;
	}
	return NULL;
}

static void usage(void)
{
	fprintf(stderr, "usage: memtouch [-t THREADS] [-m MB] [-s SECONDS] [-w DELAY_MS] [-n NAME] [-f FILE]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	long threads = 4, megabytes = 64;
	double seconds = 5;
	long delay_ms = 0;
	struct rusage start, before, after;
	const char *file = NULL;
	pthread_t *tids;
	int opt, fd = -1;

	while ((opt = getopt(argc, argv, "t:m:s:w:n:f:")) != -1) {
		switch (opt) {
		case 'w':
			delay_ms = option_long(optarg, 0, 3600000);
			break;
		case 'n':
			/* Any bytes a task may call itself (the tests' hostile names). */
			prctl(PR_SET_NAME, optarg, 0, 0, 0);
			break;
		case 'f':
			/* A buffer mapped from FILE: its VMA carries that path's name. */
			file = optarg;
			break;
		default:
			if (!sizing_option(opt, 1, &threads, &megabytes, &seconds))
				usage();
		}
	}
	printf("memtouch pid %d\n", getpid());
	fflush(stdout);
	/* Lets a tracer attach with -p before the first fault. */
	if (delay_ms)
		usleep(delay_ms * 1000);
	getrusage(RUSAGE_SELF, &start);
	buffer_size = (size_t)megabytes << 20;
	if (file) {
		fd = open(file, O_RDWR | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || ftruncate(fd, (off_t)buffer_size)) {
			perror(file);
			return 1;
		}
	}
	/*
	 * A read-only view of FILE too: NUMA balancing skips it (shared_ro),
	 * so even the tracepoint tier has a row named by FILE's path.
	 */
	if (fd >= 0 && mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, fd, 0) ==
			       MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	/* Private either way: written pages are anonymous, as NUMA balancing scans them. */
	buffer = mmap(NULL, buffer_size, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | (fd < 0 ? MAP_ANONYMOUS : 0), fd, 0);
	if (buffer == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	/* 4 KiB pages, so the first touch costs exactly one fault per page. */
	madvise(buffer, buffer_size, MADV_NOHUGEPAGE);
	getrusage(RUSAGE_SELF, &before);
	memset(buffer, 1, buffer_size);
	getrusage(RUSAGE_SELF, &after);
	printf("memtouch first-touch faults %ld pages %zu\n",
	       (after.ru_minflt + after.ru_majflt) -
		       (before.ru_minflt + before.ru_majflt),
	       buffer_size / sysconf(_SC_PAGESIZE));
	fflush(stdout);
	deadline = now() + seconds;
	tids = calloc(threads, sizeof(*tids));
	if (!tids)
		return 1;
	for (long i = 0; i < threads; i++)
		start_thread(&tids[i], toucher, i);
	for (long i = 0; i < threads; i++)
		pthread_join(tids[i], NULL);
	/* The kernel's own count, to check tracers against (all threads). */
	getrusage(RUSAGE_SELF, &after);
	printf("memtouch total faults %ld\n",
	       (after.ru_minflt + after.ru_majflt) -
		       (start.ru_minflt + start.ru_majflt));
	free(tids);
	return 0;
}
