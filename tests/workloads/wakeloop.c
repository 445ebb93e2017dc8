/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wakeloop: a waker thread pinned to CPU C wakes a sleeper thread N
 * times through a pipe. Before each sleep the sleeper moves onto C and
 * then allows every CPU again, so each wakeup has waker CPU == prev CPU
 * == C (no wake_affine, select_idle_sibling() starts at C, which is busy
 * running the waker) and where the sleeper lands is SIS's choice alone.
 * With spinners on the other CPUs this gives wakeups with a known answer:
 * the domain scan's depth, or a miss when SIS_UTIL stops the scan.
 *
 * -p SLEEP_CPU: the sleeper sleeps on SLEEP_CPU instead (prev != waker,
 * so wake_affine() runs; pipe wakeups are WF_SYNC, so with the waker
 * alone on C it picks C as target). -b: the waker spins through the
 * settle time and polls for the sleeper instead of blocking, so C never
 * goes idle (its SMT core never looks idle to test_idle_cores()).
 * -a CPULIST: the sleeper sleeps allowed on CPULIST (e.g. "1-3") rather
 * than every CPU: with the waker's CPU left out, select_task_rq_fair()
 * has no want_affine and SIS starts from prev.
 *
 * With -t THREADS instead: THREADS threads, thread i started on the i-th
 * CPU, each sleeping N times for SETTLE_US: timer wakeups, each on the
 * sleeper's own (idle) CPU, a case where SIS has nothing to miss.
 * -P PHASE_US with -t: the threads keep a fixed phase instead of drifting:
 * thread i wakes at absolute times start + k * SETTLE_US + i * PHASE_US
 * (CLOCK_MONOTONIC, 1 ns timer slack) and goes back to its home CPU (the
 * i-th) before each sleep, so when one thread wakes, every other CPU went
 * idle a known time before ("thread I home C landed L" lines say how many
 * of its wakeups were on its home CPU).
 *
 * Prints "wakeloop: pid P sleeper T wakeups N" at the end, the CPUs the
 * sleeper woke up on ("landed CPU COUNT" lines) and those it went to
 * sleep on ("slept CPU COUNT").
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"

#define MAX_CPUS 1024

static int cpu = 0;
static int sleep_cpu = -1;	/* -p; -1: the waker's */
static int busy_settle;		/* -b */
static long wakeups = 1000;
static long settle_us = 300;
static int go_pipe[2], ready_pipe[2];
static long landed[MAX_CPUS], slept_on[MAX_CPUS];
static pid_t sleeper_tid;
static int timer_threads;
static long phase_us = -1;	/* -P; -1: drifting timers */
static long home_landed[64];
/* -P: wakeups that came more than LATE_US after their deadline, per thread */
#define LATE_US 200
static long late_wakeups[64];
static int home_cpu[64];
static cpu_set_t sleep_allowed;	/* -a; empty: every CPU */

static void usage(void)
{
	fprintf(stderr, "usage: wakeloop [-c CPU] [-p SLEEP_CPU] [-a CPULIST] [-b] [-n WAKEUPS] [-s SETTLE_US] [-t THREADS [-P PHASE_US]]\n");
	exit(2);
}

static void pin(int to)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	if (to >= 0) {
		CPU_SET(to, &set);
	} else {
		for (int c = 0; c < CPU_SETSIZE; c++)
			CPU_SET(c, &set);
	}
	if (sched_setaffinity(0, sizeof(set), &set) && to >= 0) {
		fprintf(stderr, "wakeloop: cannot run on CPU %d: %s\n", to,
			strerror(errno));
		exit(1);
	}
}

static void spin_for(const struct timespec *span)
{
	struct timespec start, now;
	long long ns = span->tv_sec * 1000000000LL + span->tv_nsec;

	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while ((now.tv_sec - start.tv_sec) * 1000000000LL +
		 (now.tv_nsec - start.tv_nsec) < ns);
}

static void *sleeper(void *arg)
{
	char byte = 0;

	(void)arg;
	sleeper_tid = syscall(SYS_gettid);
	for (long i = 0; i < wakeups; i++) {
		pin(sleep_cpu >= 0 ? sleep_cpu : cpu);
		if (CPU_COUNT(&sleep_allowed)) {
			if (sched_setaffinity(0, sizeof(sleep_allowed), &sleep_allowed)) {
				perror("wakeloop: -a");
				exit(1);
			}
		} else {
			pin(-1);
		}
		if (write(ready_pipe[1], &byte, 1) != 1)
			exit(1);
		/* Where it goes to sleep: balancing may have moved it since. */
		int where = sched_getcpu();

		if (where >= 0 && where < MAX_CPUS)
			slept_on[where]++;
		if (read(go_pipe[0], &byte, 1) != 1)
			exit(1);
		where = sched_getcpu();

		if (where >= 0 && where < MAX_CPUS)
			landed[where]++;
	}
	return NULL;
}

static struct timespec phased_start;

/* -P: absolute deadlines, so the phase between the threads never drifts. */
static void *phased_sleeper(long index, int home)
{
	long long first = phased_start.tv_sec * 1000000000LL + phased_start.tv_nsec +
			  index * phase_us * 1000LL;

	home_cpu[index] = home;
	prctl(PR_SET_TIMERSLACK, 1UL);
	for (long i = 0; i < wakeups; i++) {
		long long at = first + (i + 1) * settle_us * 1000LL;
		struct timespec deadline = { at / 1000000000LL, at % 1000000000LL }, woke;

		/* Home before each sleep: the wakeup's prev CPU is the home CPU. */
		pin(home);
		pin(-1);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, NULL) == EINTR)
			;
		clock_gettime(CLOCK_MONOTONIC, &woke);
		if (woke.tv_sec * 1000000000LL + woke.tv_nsec - at > LATE_US * 1000LL)
			late_wakeups[index]++;
		if (sched_getcpu() == home)
			home_landed[index]++;
	}
	return NULL;
}

/* Thread i: start on the i-th allowed CPU, then sleep on a timer N times. */
static void *timer_sleeper(void *arg)
{
	struct timespec nap = { settle_us / 1000000, (settle_us % 1000000) * 1000 };
	long index = (long)arg;
	int seen = 0, home = -1;

	for (int c = 0; c < CPU_SETSIZE; c++) {
		cpu_set_t all;

		if (sched_getaffinity(0, sizeof(all), &all) || !CPU_ISSET(c, &all))
			continue;
		if (seen++ == index) {
			home = c;
			pin(c);
			pin(-1);
			break;
		}
	}
	if (phase_us >= 0)
		return phased_sleeper(index, home);
	for (long i = 0; i < wakeups; i++)
		nanosleep(&nap, NULL);
	return NULL;
}

static int run_timer_threads(void)
{
	pthread_t threads[64];

	/* Far enough ahead that every thread is home before its first deadline. */
	clock_gettime(CLOCK_MONOTONIC, &phased_start);
	phased_start.tv_nsec += 20000000L;
	if (phased_start.tv_nsec >= 1000000000L) {
		phased_start.tv_sec++;
		phased_start.tv_nsec -= 1000000000L;
	}
	for (long t = 0; t < timer_threads; t++)
		if (pthread_create(&threads[t], NULL, timer_sleeper, (void *)t)) {
			fprintf(stderr, "wakeloop: cannot start thread %ld\n", t);
			return 1;
		}
	for (int t = 0; t < timer_threads; t++)
		pthread_join(threads[t], NULL);
	printf("wakeloop: pid %d threads %d wakeups %ld\n", getpid(),
	       timer_threads, wakeups * timer_threads);
	for (int t = 0; phase_us >= 0 && t < timer_threads; t++)
		printf("thread %d home %d landed %ld late %ld\n", t, home_cpu[t], home_landed[t],
		       late_wakeups[t]);
	return 0;
}

int main(int argc, char **argv)
{
	struct timespec settle;
	pthread_t thread;
	char byte = 0;
	int opt;

	while ((opt = getopt(argc, argv, "a:bc:n:p:P:s:t:")) != -1) {
		switch (opt) {
		case 'a':
			if (parse_cpulist(optarg, &sleep_allowed, MAX_CPUS))
				usage();
			break;
		case 'b':
			busy_settle = 1;
			break;
		case 'c':
			cpu = (int)option_long(optarg, 0, MAX_CPUS - 1);
			break;
		case 'p':
			sleep_cpu = (int)option_long(optarg, 0, MAX_CPUS - 1);
			break;
		case 'n':
			wakeups = option_long(optarg, 1, 1000000000);
			break;
		case 'P':
			phase_us = option_long(optarg, 0, 10000000);
			break;
		case 's':
			settle_us = option_long(optarg, 0, 10000000);
			break;
		case 't':
			timer_threads = (int)option_long(optarg, 1, 64);
			break;
		default:
			usage();
		}
	}
	if (cpu < 0 || cpu >= MAX_CPUS || wakeups <= 0 || settle_us < 0)
		usage();
	if (timer_threads)
		return run_timer_threads();
	if (pipe(go_pipe) || pipe(ready_pipe)) {
		perror("wakeloop: pipe");
		return 1;
	}
	pin(cpu);
	if (pthread_create(&thread, NULL, sleeper, NULL)) {
		fprintf(stderr, "wakeloop: cannot start the sleeper\n");
		return 1;
	}
	settle.tv_sec = settle_us / 1000000;
	settle.tv_nsec = (settle_us % 1000000) * 1000;
	if (busy_settle && fcntl(ready_pipe[0], F_SETFL, O_NONBLOCK)) {
		perror("wakeloop: fcntl");
		return 1;
	}
	for (long i = 0; i < wakeups; i++) {
		ssize_t got;

		while ((got = read(ready_pipe[0], &byte, 1)) < 0 && errno == EAGAIN)
			;
		if (got != 1)
			return 1;
		/* Let the sleeper block in read() before it is woken. */
		if (busy_settle)
			spin_for(&settle);
		else
			nanosleep(&settle, NULL);
		if (write(go_pipe[1], &byte, 1) != 1)
			return 1;
	}
	pthread_join(thread, NULL);
	printf("wakeloop: pid %d sleeper %d wakeups %ld\n", getpid(),
	       sleeper_tid, wakeups);
	for (int c = 0; c < MAX_CPUS; c++)
		if (landed[c])
			printf("landed %d %ld\n", c, landed[c]);
	for (int c = 0; c < MAX_CPUS; c++)
		if (slept_on[c])
			printf("slept %d %ld\n", c, slept_on[c]);
	return 0;
}
