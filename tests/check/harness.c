// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* DIR/NAME's path in *path (to free) and argv: NAME, then args; 0 or -1. */
static int program_argv(const char *dir, const char *name, const char *const args[],
			char **path, char *argv[MAX_ARGS + 2], char *err, size_t errlen)
{
	int argc = 0;

	if (asprintf(path, "%s/%s", dir, name) < 0) {
		*path = NULL;
		return errmsg(err, errlen, "out of memory");
	}
	if (access(*path, X_OK)) {
		errmsg(err, errlen, "%s is missing (%s)", *path, strerror(errno));
		free(*path);
		*path = NULL;
		return -1;
	}
	argv[argc++] = (char *)name;
	for (int i = 0; args && args[i] && argc < MAX_ARGS; i++)
		argv[argc++] = (char *)args[i];
	argv[argc] = NULL;
	return 0;
}

pid_t workload_start(char *err, size_t errlen, const char *name, ...)
{
	const char *args[MAX_ARGS + 1];
	char *argv[MAX_ARGS + 2], *path;
	int nr_args = 0;
	va_list ap;
	pid_t pid;

	if (nr_workloads == MAX_WORKLOADS) {
		errmsg(err, errlen, "more than %d workloads at once", MAX_WORKLOADS);
		return -1;
	}
	va_start(ap, name);
	for (const char *a = va_arg(ap, const char *); a && nr_args < MAX_ARGS;
	     a = va_arg(ap, const char *))
		args[nr_args++] = a;
	va_end(ap);
	args[nr_args] = NULL;
	if (program_argv(check_env.workloads, name, args, &path, argv, err, errlen))
		return -1;
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

static void on_alarm(int sig)
{
	(void)sig;	/* only to interrupt waitpid() */
}

/* DIR/NAME args..., stdout and stderr into out_path: its pid, or -1 with a sentence. */
static pid_t start_with_output(const char *dir, const char *out_path, const char *name,
			       const char *const args[], char *err, size_t errlen)
{
	char *argv[MAX_ARGS + 2], *path;
	int out_fd;
	pid_t pid;

	if (program_argv(dir, name, args, &path, argv, err, errlen))
		return -1;
	out_fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (out_fd < 0) {
		errmsg(err, errlen, "cannot open %s: %s", out_path, strerror(errno));
		free(path);
		return -1;
	}
	pid = spawn(path, argv, out_fd, out_fd, -1, -1);
	close(out_fd);
	free(path);
	if (pid < 0)
		errmsg(err, errlen, "cannot start %s: %s", name, strerror(errno));
	return pid;
}

/* Waits for pid's end (120 s at most, then SIGKILL): its exit status, or -1 with a sentence. */
static int wait_for_end(pid_t pid, const char *name, char *err, size_t errlen)
{
	struct sigaction alarm_action = { .sa_handler = on_alarm }, old_action;
	int status = -1;

	/* blocked in waitpid(), not polling: the workload's CPUs stay as it left them */
	sigaction(SIGALRM, &alarm_action, &old_action);
	alarm(120);
	if (waitpid(pid, &status, 0) != pid) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		alarm(0);
		sigaction(SIGALRM, &old_action, NULL);
		return errmsg(err, errlen, "%s did not end within 120 s", name);
	}
	alarm(0);
	sigaction(SIGALRM, &old_action, NULL);
	if (!WIFEXITED(status))
		return errmsg(err, errlen, "%s was killed by signal %d", name,
			      WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	return WEXITSTATUS(status);
}

/* DIR/NAME args... to its end, stdout and stderr into out_path. */
static int run_to_end(const char *dir, const char *out_path, const char *name,
		      const char *const args[], char *err, size_t errlen)
{
	pid_t pid = start_with_output(dir, out_path, name, args, err, errlen);

	return pid < 0 ? -1 : wait_for_end(pid, name, err, errlen);
}

pid_t workload_spawn(const char *out_path, const char *name, const char *const args[],
		     char *err, size_t errlen)
{
	pid_t pid;

	if (nr_workloads == MAX_WORKLOADS) {
		errmsg(err, errlen, "more than %d workloads at once", MAX_WORKLOADS);
		return -1;
	}
	pid = start_with_output(check_env.workloads, out_path, name, args, err, errlen);
	if (pid > 0)
		workload_pids[nr_workloads++] = pid;
	return pid;
}

int workload_wait(pid_t pid, const char *name, char *err, size_t errlen)
{
	for (int i = 0; i < nr_workloads; i++)
		if (workload_pids[i] == pid) {
			workload_pids[i] = workload_pids[--nr_workloads];
			break;
		}
	return wait_for_end(pid, name, err, errlen);
}

int workload_run(const char *out_path, const char *name, const char *const args[], char *err,
		 size_t errlen)
{
	return run_to_end(check_env.workloads, out_path, name, args, err, errlen);
}

int tool_run(const char *out_path, const char *tool, const char *const args[], char *err,
	     size_t errlen)
{
	return run_to_end(check_env.bin, out_path, tool, args, err, errlen);
}

#define SCHED_FEATURES "/sys/kernel/debug/sched/features"

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	size_t len = strlen(text);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, len);
	if (close(fd) || n != (ssize_t)len)
		return -1;
	return 0;
}

bool sched_feature_exists(const char *name)
{
	char *text = NULL, *save = NULL;
	bool found = false;

	if (read_text_file(SCHED_FEATURES, &text, NULL, 0))
		return false;
	for (char *w = strtok_r(text, " \n", &save); w && !found; w = strtok_r(NULL, " \n", &save))
		found = !strcmp(w, name) || (!strncmp(w, "NO_", 3) && !strcmp(w + 3, name));
	free(text);
	return found;
}

int sched_feature(const char *word, char *err, size_t errlen)
{
	if (write_file(SCHED_FEATURES, word))
		return errmsg(err, errlen, "cannot write %s to %s: %s", word, SCHED_FEATURES,
			      strerror(errno));
	return 0;
}

static const char *tracefs(void)
{
	return access("/sys/kernel/tracing/instances", F_OK) ? "/sys/kernel/debug/tracing"
							      : "/sys/kernel/tracing";
}

bool trace_event_exists(const char *event)
{
	char path[300];

	snprintf(path, sizeof(path), "%s/events/%s", tracefs(), event);
	return access(path, F_OK) == 0;
}

void kprobe_event_remove(const char *name)
{
	char path[200], probe[200];

	snprintf(path, sizeof(path), "%s/kprobe_events", tracefs());
	snprintf(probe, sizeof(probe), "-:schedscan/%s", name);
	write_file(path, probe);
}

int kprobe_event_add(char type, const char *name, const char *spec, char *err, size_t errlen)
{
	char path[200], probe[300];

	snprintf(path, sizeof(path), "%s/kprobe_events", tracefs());
	snprintf(probe, sizeof(probe), "%c:schedscan/%s %s", type, name, spec);
	kprobe_event_remove(name);	/* a killed run's */
	/* opened without O_TRUNC, which would delete every kprobe event */
	if (write_file(path, probe))
		return errmsg(err, errlen, "cannot add the kprobe event '%s' to %s: %s", probe, path,
			      strerror(errno));
	return 0;
}

int setting_replace(const char *const paths[], const char *value, struct saved_setting *saved,
		    char *err, size_t errlen)
{
	char *old = NULL;

	memset(saved, 0, sizeof(*saved));
	for (int i = 0; paths[i]; i++) {
		if (access(paths[i], F_OK))
			continue;
		if (read_text_file(paths[i], &old, NULL, 0))
			return errmsg(err, errlen, "cannot read %s: %s", paths[i], strerror(errno));
		snprintf(saved->path, sizeof(saved->path), "%s", paths[i]);
		snprintf(saved->value, sizeof(saved->value), "%.*s", (int)strcspn(old, "\n"), old);
		free(old);
		if (write_file(saved->path, value))
			return errmsg(err, errlen, "cannot write %s to %s: %s", value, saved->path,
				      strerror(errno));
		saved->saved = true;
		return 0;
	}
	return errmsg(err, errlen, "none of %s and the like exists on this kernel", paths[0]);
}

int setting_restore(struct saved_setting *saved, char *err, size_t errlen)
{
	if (!saved->saved)
		return 0;
	saved->saved = false;
	if (write_file(saved->path, saved->value))
		return errmsg(err, errlen, "cannot restore %s to %s: %s", saved->path, saved->value,
			      strerror(errno));
	return 0;
}

static int trace_setting(const struct trace_session *s, const char *file, const char *text,
			 char *err, size_t errlen)
{
	char path[400];

	snprintf(path, sizeof(path), "%s/%s", s->dir, file);
	if (write_file(path, text))
		return errmsg(err, errlen, "cannot write '%s' to %s: %s", text, path, strerror(errno));
	return 0;
}

static void trace_remove(struct trace_session *s)
{
	char file[300];

	for (int i = 0; i < s->nr_events; i++) {
		snprintf(file, sizeof(file), "events/%s/enable", s->events[i].event);
		trace_setting(s, file, "0", NULL, 0);
		snprintf(file, sizeof(file), "events/%s/filter", s->events[i].event);
		trace_setting(s, file, "0", NULL, 0);
	}
	rmdir(s->dir);
	s->dir[0] = '\0';
}

int trace_begin(struct trace_session *s, const char *name, const struct trace_event *events,
		int nr_events, char *err, size_t errlen)
{
	char file[300];

	memset(s, 0, sizeof(*s));
	snprintf(s->dir, sizeof(s->dir), "%s/instances/%s-%d", tracefs(), name, (int)getpid());
	if (mkdir(s->dir, 0700)) {
		errmsg(err, errlen, "cannot create the ftrace instance %s: %s", s->dir,
		       strerror(errno));
		s->dir[0] = '\0';
		return -1;
	}
	s->events = events;
	s->nr_events = nr_events;
	if (trace_setting(s, "tracing_on", "0", err, errlen) ||
	    trace_setting(s, "buffer_size_kb", "4096", err, errlen) ||
	    trace_setting(s, "trace_clock", "mono", err, errlen))
		goto fail;
	for (int i = 0; i < nr_events; i++) {
		if (events[i].filter) {
			snprintf(file, sizeof(file), "events/%s/filter", events[i].event);
			if (trace_setting(s, file, events[i].filter, err, errlen))
				goto fail;
		}
		snprintf(file, sizeof(file), "events/%s/enable", events[i].event);
		if (trace_setting(s, file, "1", err, errlen))
			goto fail;
	}
	if (trace_setting(s, "tracing_on", "1", err, errlen))
		goto fail;
	return 0;
fail:
	trace_remove(s);
	return -1;
}

int trace_end(struct trace_session *s, const char *path, long *lost, char *err, size_t errlen)
{
	char from[300], buf[65536];
	int in, out, ret = 0;
	ssize_t n;

	*lost = 0;
	if (!s->dir[0])
		return errmsg(err, errlen, "no ftrace session to end");
	trace_setting(s, "tracing_on", "0", NULL, 0);
	snprintf(from, sizeof(from), "%s/trace", s->dir);
	in = open(from, O_RDONLY | O_CLOEXEC);
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (in < 0 || out < 0) {
		ret = errmsg(err, errlen, "cannot copy %s to %s: %s", from, path, strerror(errno));
	} else {
		while ((n = read(in, buf, sizeof(buf))) > 0)
			if (write(out, buf, (size_t)n) != n) {
				ret = errmsg(err, errlen, "cannot write %s: %s", path, strerror(errno));
				break;
			}
		if (n < 0 && !ret)
			ret = errmsg(err, errlen, "cannot read %s: %s", from, strerror(errno));
	}
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out) && !ret)
		ret = errmsg(err, errlen, "cannot write %s: %s", path, strerror(errno));
	/* each CPU's stats: "overrun: N" and "dropped events: N" */
	for (int cpu = 0; cpu < check_env.topo.nr_cpu_ids; cpu++) {
		char stats[300], line[128];
		FILE *f;

		snprintf(stats, sizeof(stats), "%s/per_cpu/cpu%d/stats", s->dir, cpu);
		f = fopen(stats, "r");
		if (!f)
			continue;	/* an offline CPU */
		while (fgets(line, sizeof(line), f)) {
			long v;

			if (sscanf(line, "overrun: %ld", &v) == 1 ||
			    sscanf(line, "dropped events: %ld", &v) == 1)
				*lost += v;
		}
		fclose(f);
	}
	trace_remove(s);
	return ret;
}

int trace_line_cpu(const char *line, const char **bracket)
{
	const char *b = line[0] == '#' ? NULL : strchr(line, '[');
	char *end;
	long cpu;

	if (!b)
		return -1;
	cpu = strtol(b + 1, &end, 10);
	if (end == b + 1 || *end != ']' || cpu < 0 || cpu >= MAX_CPUS)
		return -1;
	*bracket = b;
	return (int)cpu;
}

long trace_line_task_pid(const char *line, const char *bracket)
{
	const char *p = bracket;

	while (p > line && p[-1] == ' ')
		p--;
	while (p > line && p[-1] >= '0' && p[-1] <= '9')
		p--;
	return strtol(p, NULL, 10);
}

long trace_line_field(const char *line, const char *name, long def)
{
	char key[40];
	const char *p;

	snprintf(key, sizeof(key), " %s=", name);
	p = strstr(line, key);
	return p ? strtol(p + strlen(key), NULL, 10) : def;
}

double trace_line_seconds(const char *line)
{
	const char *b;

	if (trace_line_cpu(line, &b) < 0)
		return -1;
	/* the first "DIGITS.DIGITS:" after the CPU (the flags have no ':') */
	for (const char *p = strchr(b, ']'); p && *p; p++) {
		char *end;
		double t;

		if (*p < '0' || *p > '9' || p[-1] != ' ')
			continue;
		t = strtod(p, &end);
		if (*end == ':' && strchr(p, '.') && strchr(p, '.') < end)
			return t;
	}
	return -1;
}

bool trace_line_event(const char *line, const char *event)
{
	char key[80];

	snprintf(key, sizeof(key), " %s: ", event);
	return strstr(line, key) != NULL;
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

void sleep_seconds(double s)
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
		sleep_seconds(0.02);
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

double record_metric(const struct jv *rec, const char *name)
{
	double v;

	if (!jv_number(jv_get(jv_get(jv_get(rec, "metrics"), name), "value"), &v))
		return NAN;
	return v;
}

double record_hist_slot(const struct jv *rec, const char *name, unsigned long long low)
{
	const struct jv *buckets = jv_get(jv_get(jv_get(jv_get(rec, "metrics"), name), "hist"),
					  "buckets");
	unsigned long long l, h, count;

	if (!buckets || buckets->type != JV_ARRAY)
		return NAN;
	for (size_t i = 0; i < buckets->n; i++)
		if (jv_u64(jv_get(&buckets->items[i], "low"), &l) && l == low &&
		    jv_u64(jv_get(&buckets->items[i], "high"), &h) && h == low &&
		    jv_u64(jv_get(&buckets->items[i], "count"), &count))
			return (double)count;
	return 0;
}

const struct jv *table_rows(const struct jv *rec, const char *table)
{
	const struct jv *rows = jv_get(jv_get(rec, table), "rows");

	return rows && rows->type == JV_ARRAY ? rows : NULL;
}

double row_number(const struct jv *row, const char *column)
{
	double v;

	return row && jv_number(jv_get(row, column), &v) ? v : NAN;
}

double table_sum(const struct jv *rec, const char *table, const char *key_column, long key,
		 const char *column)
{
	const struct jv *rows = table_rows(rec, table);
	double sum = 0, v, k;

	if (!rows)
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
