// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "util.h"
#include "windowcut.h"

#define MAX_ARGS 32
#define MAX_WORKLOADS 64

static pid_t workload_pids[MAX_WORKLOADS];
static int nr_workloads;
static pid_t tool_pid;	/* the tool running now */

/* fork + exec path with argv, stdout to out_fd (-1: /dev/null), stderr to err_fd. */
static pid_t spawn(const char *path, char *const argv[], int out_fd, int err_fd, int ready_fd,
		   int cpu)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	/* the child: only async-signal-safe calls until exec */
	{
		int null = open("/dev/null", O_RDWR);

		if (null < 0)
			_exit(127);
		dup2(null, 0);
		dup2(out_fd >= 0 ? out_fd : null, 1);
		dup2(err_fd >= 0 ? err_fd : null, 2);
		if (ready_fd >= 0 && ready_fd != 3) {
			dup2(ready_fd, 3);
		}
		if (cpu >= 0) {
			cpu_set_t set;

			CPU_ZERO(&set);
			CPU_SET(cpu, &set);
			sched_setaffinity(0, sizeof(set), &set);
		} else {
			/* not the runner's pinning */
			cpu_set_t all;

			CPU_ZERO(&all);
			for (int c = 0; c < CPU_SETSIZE; c++)
				CPU_SET(c, &all);
			sched_setaffinity(0, sizeof(all), &all);
		}
		signal(SIGINT, SIG_DFL);
		signal(SIGUSR1, SIG_DFL);
		execv(path, argv);
		_exit(127);
	}
}

pid_t workload_start(char *err, size_t errlen, const char *name, ...)
{
	char *argv[MAX_ARGS + 2], *path = NULL;
	int argc = 0;
	va_list ap;
	pid_t pid;

	if (nr_workloads == MAX_WORKLOADS) {
		errmsg(err, errlen, "more than %d workloads at once", MAX_WORKLOADS);
		return -1;
	}
	if (asprintf(&path, "%s/%s", check_env.workloads, name) < 0)
		return -1;
	argv[argc++] = (char *)name;
	va_start(ap, name);
	for (char *a = va_arg(ap, char *); a && argc < MAX_ARGS; a = va_arg(ap, char *))
		argv[argc++] = a;
	va_end(ap);
	argv[argc] = NULL;
	if (access(path, X_OK)) {
		errmsg(err, errlen, "workload %s is missing (%s)", name, strerror(errno));
		free(path);
		return -1;
	}
	pid = spawn(path, argv, -1, -1, -1, -1);
	free(path);
	if (pid < 0) {
		errmsg(err, errlen, "cannot start workload %s: %s", name, strerror(errno));
		return -1;
	}
	workload_pids[nr_workloads++] = pid;
	return pid;
}

void workloads_stop(void)
{
	for (int i = 0; i < nr_workloads; i++)
		kill(workload_pids[i], SIGKILL);
	for (int i = 0; i < nr_workloads; i++)
		waitpid(workload_pids[i], NULL, 0);
	nr_workloads = 0;
}

int pin_self(int cpu, cpu_set_t *old)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(*old), old))
		return -1;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

void unpin_self(const cpu_set_t *old)
{
	sched_setaffinity(0, sizeof(*old), old);
}

static double now_s(void)
{
	return monotonic_seconds();
}

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

int tool_start(struct tool_run *t, const char *tool, enum check_tier tier, int cpu,
	       const char *tag, char *err, size_t errlen, ...)
{
	char *argv[MAX_ARGS + 8], *path = NULL;
	int argc = 0, out_fd, err_fd, pipe_fd[2];
	double deadline;
	va_list ap;

	memset(t, 0, sizeof(*t));
	t->pid = -1;
	snprintf(t->out, sizeof(t->out), "%s/%s.jsonl", check_env.work, tag);
	snprintf(t->err, sizeof(t->err), "%s/%s.err", check_env.work, tag);
	if (asprintf(&path, "%s/%s", check_env.bin, tool) < 0)
		return -1;
	argv[argc++] = (char *)tool;
	argv[argc++] = "--mode";
	argv[argc++] = (char *)check_tier_name(tier);
	argv[argc++] = "--json";
	argv[argc++] = "--ready-fd";
	argv[argc++] = "3";
	va_start(ap, errlen);
	for (char *a = va_arg(ap, char *); a && argc < MAX_ARGS; a = va_arg(ap, char *))
		argv[argc++] = a;
	va_end(ap);
	argv[argc] = NULL;
	out_fd = open(t->out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	err_fd = open(t->err, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (out_fd < 0 || err_fd < 0 || pipe2(pipe_fd, O_CLOEXEC)) {
		errmsg(err, errlen, "cannot open %s's output files in %s: %s", tool, check_env.work,
		       strerror(errno));
		goto fail;
	}
	/* the child's fd 3 must survive exec: dup2 clears O_CLOEXEC */
	t->pid = spawn(path, argv, out_fd, err_fd, pipe_fd[1], cpu);
	tool_pid = t->pid;
	close(pipe_fd[1]);
	if (t->pid < 0) {
		errmsg(err, errlen, "cannot start %s: %s", path, strerror(errno));
		close(pipe_fd[0]);
		goto fail;
	}
	deadline = now_s() + 60;
	for (;;) {
		struct pollfd p = { .fd = pipe_fd[0], .events = POLLIN };
		char c;
		int left = (int)((deadline - now_s()) * 1000);

		if (left <= 0 || poll(&p, 1, left) <= 0) {
			errmsg(err, errlen, "%s never said it was tracing in 60 s", tool);
			break;
		}
		if (read(pipe_fd[0], &c, 1) == 1) {
			close(pipe_fd[0]);
			close(out_fd);
			close(err_fd);
			free(path);
			return 0;
		}
		errmsg(err, errlen, "%s closed its --ready-fd without saying it was tracing", tool);
		break;
	}
	close(pipe_fd[0]);
	tool_stop(t);
	{
		char *text = NULL;

		if (!read_text_file(t->err, &text, NULL, 0) && text && *text) {
			one_line(text);
			snprintf(err + strlen(err), errlen - strlen(err), " (exit %d; stderr: %.200s)",
				 t->status, text);
		}
		free(text);
	}
fail:
	if (out_fd >= 0)
		close(out_fd);
	if (err_fd >= 0)
		close(err_fd);
	free(path);
	return -1;
}

int tool_cut(struct tool_run *t, char *err, size_t errlen)
{
	return window_cut(t->pid, t->out, err, errlen);
}

int tool_stop(struct tool_run *t)
{
	double deadline = now_s() + 30;
	int status;

	if (t->pid <= 0)
		return -1;
	kill(t->pid, SIGINT);
	for (;;) {
		pid_t got = waitpid(t->pid, &status, WNOHANG);

		if (got == t->pid)
			break;
		if (got < 0 && errno != EINTR) {
			status = -1;
			break;
		}
		if (now_s() > deadline) {
			kill(t->pid, SIGKILL);
			waitpid(t->pid, &status, 0);
			status = -1;
			break;
		}
		sleep_s(0.02);
	}
	t->status = status >= 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	t->pid = -1;
	tool_pid = 0;
	return t->status;
}

void records_free(struct records *r)
{
	for (size_t i = 0; i < r->n; i++)
		jv_free(&r->rec[i]);
	free(r->rec);
	memset(r, 0, sizeof(*r));
}

int records_read(const char *path, struct records *out, char *err, size_t errlen)
{
	char *text = NULL, *line, *save = NULL;
	size_t cap = 0;

	memset(out, 0, sizeof(*out));
	if (read_text_file(path, &text, err, errlen))
		return -1;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char perr[160];

		if (grow_array((void **)&out->rec, &cap, out->n + 1, sizeof(*out->rec)))
			goto nomem;
		if (jv_parse(line, strlen(line), &out->rec[out->n], perr, sizeof(perr))) {
			errmsg(err, errlen, "%s, record %zu: %s", path, out->n + 1, perr);
			free(text);
			records_free(out);
			return -1;
		}
		out->n++;
	}
	free(text);
	return 0;
nomem:
	free(text);
	records_free(out);
	return errmsg(err, errlen, "out of memory reading %s", path);
}

const struct jv *record_of_type(const struct records *r, const char *type, long k)
{
	long seen = 0;
	const struct jv *last = NULL;

	for (size_t i = 0; i < r->n; i++) {
		const char *t = jv_string(jv_get(&r->rec[i], "type"));

		if (!t || strcmp(t, type))
			continue;
		if (seen++ == k)
			return &r->rec[i];
		last = &r->rec[i];
	}
	return k < 0 ? last : NULL;
}

double record_seconds(const struct jv *rec)
{
	double start, end;

	if (!rec || !jv_number(jv_get(rec, "start"), &start) || !jv_number(jv_get(rec, "end"), &end))
		return 0;
	return end - start;
}

double table_sum(const struct jv *rec, const char *table, const char *key_column, long key,
		 const char *column)
{
	const struct jv *rows = jv_get(jv_get(rec, table), "rows");
	double sum = 0, v, k;

	if (!rows || rows->type != JV_ARRAY)
		return 0;
	for (size_t i = 0; i < rows->n; i++) {
		if (key >= 0 && (!jv_number(jv_get(&rows->items[i], key_column), &k) ||
				 k != (double)key))
			continue;
		if (jv_number(jv_get(&rows->items[i], column), &v))
			sum += v;
	}
	return sum;
}

int task_schedstat(pid_t pid, uint64_t *run_ns, uint64_t *wait_ns)
{
	char path[64];
	unsigned long long run, wait;
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	ok = fscanf(f, "%llu %llu", &run, &wait) == 2;
	fclose(f);
	if (!ok)
		return -1;
	*run_ns = run;
	*wait_ns = wait;
	return 0;
}

static bool ours(pid_t pid)
{
	if (pid == getpid() || (tool_pid > 0 && pid == tool_pid))
		return true;
	for (int i = 0; i < nr_workloads; i++)
		if (workload_pids[i] == pid)
			return true;
	return false;
}

static int cmp_tid(const void *a, const void *b)
{
	const struct task_times *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

void tasks_free(struct task_snapshot *s)
{
	free(s->task);
	memset(s, 0, sizeof(*s));
}

int tasks_snapshot(struct task_snapshot *s)
{
	DIR *proc = opendir("/proc");
	struct dirent *p;

	memset(s, 0, sizeof(*s));
	if (!proc)
		return -1;
	while ((p = readdir(proc))) {
		char path[300];
		struct dirent *t;
		DIR *tasks;
		pid_t pid = (pid_t)atoi(p->d_name);

		if (pid <= 0 || ours(pid))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
		tasks = opendir(path);
		if (!tasks)
			continue;	/* it has exited */
		while ((t = readdir(tasks))) {
			uint64_t run, wait;
			pid_t tid = (pid_t)atoi(t->d_name);

			if (tid <= 0 || task_schedstat(tid, &run, &wait))
				continue;
			if (grow_array((void **)&s->task, &s->cap, s->n + 1, sizeof(*s->task))) {
				closedir(tasks);
				closedir(proc);
				tasks_free(s);
				return -1;
			}
			s->task[s->n++] = (struct task_times){ tid, run, wait };
		}
		closedir(tasks);
	}
	closedir(proc);
	qsort(s->task, s->n, sizeof(*s->task), cmp_tid);
	return 0;
}

void tasks_between(const struct task_snapshot *before, const struct task_snapshot *after,
		   uint64_t *run_ns, uint64_t *wait_ns)
{
	*run_ns = *wait_ns = 0;
	for (size_t i = 0; i < after->n; i++) {
		const struct task_times *now = &after->task[i];
		const struct task_times *was = bsearch(now, before->task, before->n,
						       sizeof(*before->task), cmp_tid);

		*run_ns += now->run_ns - (was && was->run_ns <= now->run_ns ? was->run_ns : 0);
		*wait_ns += now->wait_ns - (was && was->wait_ns <= now->wait_ns ? was->wait_ns : 0);
	}
}
