/* SPDX-License-Identifier: GPL-2.0 */
/*
 * spinner: a busy loop pinned to one CPU for a fixed time, optionally as
 * SCHED_IDLE. Pinned spinners build scenarios with a known answer, e.g.
 * "every CPU but one is busy".
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"

static void usage(void)
{
	fprintf(stderr, "usage: spinner [-c CPU] [-s SECONDS] [-i]\n"
			"  -i  run as SCHED_IDLE\n");
	exit(2);
}

int main(int argc, char **argv)
{
	double seconds = 5, end;
	int cpu = -1, sched_idle = 0, opt;
	volatile unsigned long spins = 0;

	while ((opt = getopt(argc, argv, "c:s:i")) != -1) {
		switch (opt) {
		case 'c':
			cpu = (int)option_long(optarg, 0, CPU_SETSIZE - 1);
			break;
		case 's':
			seconds = option_seconds(optarg);
			break;
		case 'i':
			sched_idle = 1;
			break;
		default:
			usage();
		}
	}
	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			perror("sched_setaffinity");
			return 1;
		}
	}
	if (sched_idle) {
		struct sched_param param = { 0 };

		if (sched_setscheduler(0, SCHED_IDLE, &param)) {
			perror("sched_setscheduler");
			return 1;
		}
	}
	end = now() + seconds;
	while (now() < end)
		for (int i = 0; i < 100000; i++)
			spins++;
	return 0;
}
