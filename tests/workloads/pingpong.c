/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pingpong: two processes bounce one byte over a pair of pipes.
 * Every round trip is one wakeup of each side when the reader sleeps
 * before the byte arrives, which makes it the classic wakeup-heavy load
 * (like perf bench sched pipe). Prints the child's PID and the number
 * of round trips so tests can filter on the wakee.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "workload.h"

static void usage(void)
{
	fprintf(stderr, "usage: pingpong [-n ROUND_TRIPS] [-w START_DELAY_MS] [-s]\n"
			"  -s  start the two sides on two different CPUs\n");
	exit(2);
}

/*
 * Moves the caller onto the index-th CPU it may use, then allows all of
 * them again: a running task stays where it is, so the two sides start
 * apart and each sleeps on a CPU of its own.
 */
static void start_on(int index)
{
	cpu_set_t allowed, one;
	int seen = 0;

	if (sched_getaffinity(0, sizeof(allowed), &allowed))
		return;
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &allowed) || seen++ != index)
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		sched_setaffinity(0, sizeof(one), &one);
		break;
	}
	sched_setaffinity(0, sizeof(allowed), &allowed);
}

static void xfer(int rfd, int wfd, long n, int first_writes)
{
	char byte = 'x';

	for (long i = 0; i < n; i++) {
		if (first_writes && write(wfd, &byte, 1) != 1)
			exit(1);
		if (read(rfd, &byte, 1) != 1)
			exit(1);
		if (!first_writes && write(wfd, &byte, 1) != 1)
			exit(1);
	}
}

int main(int argc, char **argv)
{
	long round_trips = 100000, delay_ms = 0;
	int to_child[2], to_parent[2], opt, status, spread = 0;
	pid_t child;

	while ((opt = getopt(argc, argv, "n:w:s")) != -1) {
		switch (opt) {
		case 'n':
			round_trips = option_long(optarg, 1, 1000000000);
			break;
		case 'w':
			delay_ms = option_long(optarg, 0, 3600000);
			break;
		case 's':
			spread = 1;
			break;
		default:
			usage();
		}
	}
	if (pipe(to_child) || pipe(to_parent)) {
		perror("pipe");
		return 1;
	}
	child = fork();
	if (child < 0) {
		perror("fork");
		return 1;
	}
	/*
	 * Each side closes the ends it does not use, so that when one side
	 * dies the other reads EOF and exits instead of blocking forever.
	 */
	if (spread)
		start_on(child == 0 ? 1 : 0);
	if (child == 0) {
		close(to_child[1]);
		close(to_parent[0]);
		xfer(to_child[0], to_parent[1], round_trips, 0);
		_exit(0);
	}
	close(to_child[0]);
	close(to_parent[1]);
	printf("pingpong pid %d child %d round_trips %ld\n", getpid(), child,
	       round_trips);
	fflush(stdout);
	/* Lets a tracer attach with -p before the traffic starts. */
	if (delay_ms)
		usleep(delay_ms * 1000);
	xfer(to_parent[0], to_child[1], round_trips, 1);
	if (waitpid(child, &status, 0) < 0)
		return 1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
