/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ownvmas: THREADS threads, each with a private buffer of MB megabytes
 * (its own VMA, which no other thread touches), writing one byte per
 * page of it until SECONDS have passed. Seed 002's case: NUMA balancing
 * scans the whole mm from whichever thread runs task_numa_work(), so
 * the other threads' scans of a thread's buffer update PTEs that only
 * the owner will ever fault on.
 *
 * With -i N, the last N of them touch their buffer once and then sleep:
 * they never scan, and nobody ever takes a hint fault on their buffers
 * unless -L SECONDS: from then on thread 0 writes their buffers as well
 * as its own (a VMA its scans skipped, then faulted on: the scan audit's
 * false negative).
 * With -S N, N more threads share one more buffer, and ownvmas picks
 * their TIDs (through /proc/sys/kernel/ns_last_pid, as root) so that all
 * of them share one bit of the kernel's PID filter hash (hash_32(tid, 6),
 * vma_numab_state.pids_active): the filter cannot tell them apart.
 *
 * It reports, for tests to hold a tracer against:
 *   ownvmas pid PID
 *   ownvmas thread I tid TID start START end END   (once touched; decimal,
 *                                                    as numascan's JSON)
 *   ownvmas shared start START end END tids N bits B
 *   ownvmas late at SECONDS     (-L: when thread 0 started on the idle
 *                                buffers, CLOCK_MONOTONIC)
 * where B is the number of distinct hash bits among the N shared
 * threads' actual TIDs (N - B of them collide, whatever TIDs they got).
 * A PROT_NONE guard page ends every buffer, so that two buffers mapped
 * side by side never merge into one VMA.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"

static size_t buffer_size;
static double deadline;
static pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;
static char *shared_buffer;
static pid_t *shared_tids;

/* A buffer of its own VMA (workload.h), or exit. */
static char *map_buffer(void)
{
	char *buffer = map_guarded(buffer_size);

	if (!buffer) {
		perror("ownvmas: mmap");
		exit(1);
	}
	return buffer;
}

/* The PID filter's bit of a thread: include/linux/hash.h, hash_32(tid, 6). */
static unsigned int tid_hash_bit(pid_t tid)
{
	return ((uint32_t)tid * 0x61C88647U) >> (32 - 6);
}

/* One byte per page of a buffer. */
static void write_pages(char *buffer, unsigned char *value)
{
	long page = sysconf(_SC_PAGESIZE);

	for (size_t off = 0; off < buffer_size; off += page)
		buffer[off] = (*value)++;
}

static void *sharer(void *arg)
{
	long index = (long)arg;
	unsigned char value = (unsigned char)index;

	__atomic_store_n(&shared_tids[index], gettid(), __ATOMIC_RELEASE);
	while (now() < deadline)
		write_pages(shared_buffer, &value);
	return NULL;
}

/*
 * Asks for the next TID above the last one whose hash bit is bit: the
 * kernel hands out ns_last_pid + 1 next (if free and nobody forks first).
 * Best effort: the report says what the threads really got.
 */
static void aim_next_tid(unsigned int bit)
{
	FILE *f = fopen("/proc/sys/kernel/ns_last_pid", "r+");
	long last;

	if (!f)
		return;
	if (fscanf(f, "%ld", &last) == 1) {
		long next = last + 1;

		while (tid_hash_bit((pid_t)next) != bit && next < last + 100000)
			next++;
		rewind(f);
		fprintf(f, "%ld", next - 1);
	}
	fclose(f);
}

static long busy_owners, owners;
static char **owner_buffers;
static double late_at = -1;	/* -L: when thread 0 starts on the idle buffers */

/* Owners from busy_owners on touch their buffer once, then sleep. */
static void *owner(void *arg)
{
	long page = sysconf(_SC_PAGESIZE), index = (long)arg;
	unsigned char value = (unsigned char)index;
	char *buffer = map_buffer();

	for (size_t off = 0; off < buffer_size; off += page)
		buffer[off] = value;
	pthread_mutex_lock(&print_lock);
	printf("ownvmas thread %ld tid %d start %lu end %lu\n", index, gettid(),
	       (unsigned long)buffer, (unsigned long)(buffer + buffer_size));
	fflush(stdout);
	pthread_mutex_unlock(&print_lock);
	__atomic_store_n(&owner_buffers[index], buffer, __ATOMIC_RELEASE);
	if (index >= busy_owners) {
		double left = deadline - now();

		if (left > 0)
			usleep((useconds_t)(left * 1e6));
		return NULL;
	}
	while (now() < deadline) {
		write_pages(buffer, &value);
		if (index || late_at < 0 || now() < late_at)
			continue;
		if (late_at > 0) {
			pthread_mutex_lock(&print_lock);
			printf("ownvmas late at %.6f\n", now());
			fflush(stdout);
			pthread_mutex_unlock(&print_lock);
			late_at = 0;	/* said once; 0 stays past */
		}
		for (long i = busy_owners; i < owners; i++) {
			char *idle = __atomic_load_n(&owner_buffers[i], __ATOMIC_ACQUIRE);

			if (idle)
				write_pages(idle, &value);
		}
	}
	return NULL;
}

static void usage(void)
{
	fprintf(stderr, "usage: ownvmas [-t THREADS] [-i IDLE] [-m MB_PER_BUFFER] [-s SECONDS] [-S SHARERS] [-L SECONDS]\n"
			"  -i  the last IDLE of the THREADS touch their buffer once, then sleep\n"
			"  -L  after SECONDS, thread 0 writes the idle threads' buffers too\n");
	exit(2);
}

int main(int argc, char **argv)
{
	long threads = 2, idle = 0, sharers = 0, megabytes = 16;
	double seconds = 5;
	pthread_t *tids;
	int opt;

	while ((opt = getopt(argc, argv, "t:i:m:s:S:L:")) != -1) {
		switch (opt) {
		case 'L':
			late_at = option_seconds(optarg);
			break;
		case 'i':
			idle = option_long(optarg, 0, 1024);
			break;
		case 'S':
			sharers = option_long(optarg, 0, 64);
			break;
		default:
			if (!sizing_option(opt, 0, &threads, &megabytes, &seconds))
				usage();
		}
	}
	printf("ownvmas pid %d\n", getpid());
	fflush(stdout);
	if (threads + sharers == 0 || idle > threads)
		usage();
	busy_owners = threads - idle;
	owners = threads;
	buffer_size = (size_t)megabytes << 20;
	deadline = now() + seconds;
	if (late_at >= 0)
		late_at += now();
	owner_buffers = calloc(threads + 1, sizeof(*owner_buffers));
	if (!owner_buffers)
		return 1;
	tids = calloc(threads + sharers, sizeof(*tids));
	shared_tids = calloc(sharers + 1, sizeof(*shared_tids));
	if (!tids || !shared_tids)
		return 1;
	if (sharers) {
		long page = sysconf(_SC_PAGESIZE);

		shared_buffer = map_buffer();
		for (size_t off = 0; off < buffer_size; off += page)
			shared_buffer[off] = 1;
	}
	for (long i = 0; i < threads; i++)
		start_thread(&tids[i], owner, i);
	for (long i = 0; i < sharers; i++) {
		if (i)
			aim_next_tid(tid_hash_bit(shared_tids[0]));
		start_thread(&tids[threads + i], sharer, i);
		/* the next TID is aimed at this one's bit */
		while (!__atomic_load_n(&shared_tids[i], __ATOMIC_ACQUIRE))
			sched_yield();
	}
	if (sharers) {
		uint64_t bits = 0;

		for (long i = 0; i < sharers; i++)
			bits |= 1ULL << tid_hash_bit(shared_tids[i]);
		pthread_mutex_lock(&print_lock);
		printf("ownvmas shared start %lu end %lu tids %ld bits %d\n",
		       (unsigned long)shared_buffer, (unsigned long)(shared_buffer + buffer_size),
		       sharers, __builtin_popcountll(bits));
		fflush(stdout);
		pthread_mutex_unlock(&print_lock);
	}
	/* This thread sleeps: it runs no task_numa_work() meanwhile. */
	for (long i = 0; i < threads + sharers; i++)
		pthread_join(tids[i], NULL);
	free(tids);
	free(shared_tids);
	free(owner_buffers);
	return 0;
}
