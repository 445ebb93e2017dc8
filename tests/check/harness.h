/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a scenario does to the machine: workloads started and stopped, a
 * tool run with window cuts, the kernel's per-task counters.
 */
#ifndef SCHEDSCAN_CHECK_HARNESS_H
#define SCHEDSCAN_CHECK_HARNESS_H

#define _GNU_SOURCE
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "check.h"
#include "jsonparse.h"

/* The CPUs a scenario keeps per-CPU numbers for. */
#define MAX_CPUS 64

/* The end of a variadic argument list: a null pointer of the type read. */
#define ARGS_END ((char *)NULL)

/*
 * Starts check_env.workloads/NAME with the NULL-terminated arguments,
 * output to /dev/null; workloads_stop() kills every one started. The pid,
 * or -1 with a sentence in err.
 */
pid_t workload_start(char *err, size_t errlen, const char *name, ...)
	__attribute__((sentinel));
void workloads_stop(void);
/*
 * Runs check_env.workloads/NAME with args (NULL-terminated) to its end
 * (120 s at most, then SIGKILL), stdout and stderr into out_path: its
 * exit status, or -1 with a sentence in err.
 */
int workload_run(const char *out_path, const char *name, const char *const args[], char *err,
		 size_t errlen);
/*
 * The same in two steps, for a scenario that reads the workload's state
 * while it runs: workload_spawn() starts it (a workload, killed by
 * workloads_stop() until waited for) and returns its pid or -1 with a
 * sentence; workload_wait() waits for its end as workload_run() does.
 */
pid_t workload_spawn(const char *out_path, const char *name, const char *const args[],
		     char *err, size_t errlen);
int workload_wait(pid_t pid, const char *name, char *err, size_t errlen);
/* The same for check_env.bin/TOOL, a run that ends by itself (--compare). */
int tool_run(const char *out_path, const char *tool, const char *const args[], char *err,
	     size_t errlen);

/* Writes a word to the sched features ("NO_SIS_UTIL", "SIS_UTIL"); 0 or -1 with a sentence. */
int sched_feature(const char *word, char *err, size_t errlen);
/* Whether this kernel has the sched feature NAME (on or off). */
bool sched_feature_exists(const char *name);

/*
 * An ftrace session in an instance of its own (instances/NAME), so that
 * nothing of the machine's own tracing is touched: a 4 MiB buffer a CPU,
 * the mono clock, the events enabled each with its filter (NULL: none).
 * trace_end() stops it, copies its text to path, counts the events lost
 * (overruns and drops) and removes the instance.
 */
struct trace_event {
	const char *event;	/* "sched/sched_waking" */
	const char *filter;	/* "comm == \"wakeloop\"", or NULL */
};
struct trace_session {
	char dir[200];
	const struct trace_event *events;
	int nr_events;
};
int trace_begin(struct trace_session *s, const char *name, const struct trace_event *events,
		int nr_events, char *err, size_t errlen);
int trace_end(struct trace_session *s, const char *path, long *lost, char *err, size_t errlen);
/*
 * Reading ftrace's text lines, "comm-PID  [CPU] flags  SECONDS: event: fields":
 * the CPU (-1: not an event line; *bracket at its '['), the task's PID
 * before it, a " name=NUMBER" field (def when absent), the timestamp
 * (-1: none), whether the event is the one named.
 */
int trace_line_cpu(const char *line, const char **bracket);
long trace_line_task_pid(const char *line, const char *bracket);
long trace_line_field(const char *line, const char *name, long def);
double trace_line_seconds(const char *line);
bool trace_line_event(const char *line, const char *event);

/* Whether tracefs has the event ("sched/sched_skip_vma_numa"). */
bool trace_event_exists(const char *event);
/*
 * A kprobe event schedscan/NAME (kprobe_events: type 'p' at a function's
 * entry, 'r' at its return; spec the function and its fetch arguments,
 * "change_prot_numa start=+0(%di):u64"), for a trace_begin() to enable as
 * "schedscan/NAME"; 0 or -1 with a sentence. kprobe_event_remove()
 * deletes it once no session has it enabled.
 */
int kprobe_event_add(char type, const char *name, const char *spec, char *err, size_t errlen);
void kprobe_event_remove(const char *name);

/*
 * A kernel setting (a sysctl, a debugfs knob) changed for a scenario:
 * setting_replace() writes value to the first of paths (NULL-terminated)
 * that exists, keeping the old value; setting_restore() puts it back.
 * 0, or -1 with a sentence in err.
 */
struct saved_setting {
	char path[200];
	char value[64];
	bool saved;
};
int setting_replace(const char *const paths[], const char *value, struct saved_setting *saved,
		    char *err, size_t errlen);
int setting_restore(struct saved_setting *saved, char *err, size_t errlen);

/* Sleeps s seconds, through signals. */
void sleep_seconds(double s);
/* Pins the calling thread to cpu, the old mask saved in old; 0 or -1. */
int pin_self(int cpu, cpu_set_t *old);
void unpin_self(const cpu_set_t *old);

/* A tool running with --json --ready-fd, its stdout in a file. */
struct tool_run {
	pid_t pid;
	char out[256], err[256];
	int status;		/* exit status after tool_stop(), -1 if killed */
};
/*
 * Starts check_env.bin/TOOL --mode TIER --json --ready-fd N ARGS... (NULL
 * terminated) pinned to cpu (-1: anywhere), and waits (60 s at most) until
 * it says it is tracing. tag names its files in check_env.work.
 */
int tool_start(struct tool_run *t, const char *tool, enum check_tier tier, int cpu,
	       const char *tag, char *err, size_t errlen, ...) __attribute__((sentinel));
/* SIGUSR1: ends the tool's interval, and waits for its record (30 s at most). */
int tool_cut(struct tool_run *t, char *err, size_t errlen);
/* SIGINT, then waits for its exit (30 s, then SIGKILL). */
int tool_stop(struct tool_run *t);

/* The tool's records, one parsed JSON object a line. */
struct records {
	size_t n;
	struct jv *rec;
};
int records_read(const char *path, struct records *out, char *err, size_t errlen);
void records_free(struct records *r);
/* The k-th record of type ("interval", "summary"), counting from 0; -1: the last. */
const struct jv *record_of_type(const struct records *r, const char *type, long k);
/* A record's window, end - start, in seconds (0 if absent). */
double record_seconds(const struct jv *rec);
/* A metric's value in a record (metrics.NAME.value), NAN when absent or null. */
double record_metric(const struct jv *rec, const char *name);
/* The count of a histogram metric's slot [low, low] (linear), 0 if none, NAN if no histogram. */
double record_hist_slot(const struct jv *rec, const char *name, unsigned long long low);
/* The rows array of a record's table, or NULL when the record has none. */
const struct jv *table_rows(const struct jv *rec, const char *table);
/* A row's column as a number, NAN when the row (NULL) or the column is absent. */
double row_number(const struct jv *row, const char *column);
/* Sums column of the rows of table whose key column equals key (key < 0: every row). */
double table_sum(const struct jv *rec, const char *table, const char *key_column, long key,
		 const char *column);

/* A task's run time and wait time so far (/proc/PID/schedstat), ns; 0 or -1. */
int task_schedstat(pid_t pid, uint64_t *run_ns, uint64_t *wait_ns);
/*
 * The run time and wait time (run_delay) so far of each task on the
 * machine but the runner's own (this process, its workloads, its tool),
 * by TID: where the other tasks could have occupied a CPU.
 */
struct task_snapshot {
	size_t n, cap;
	struct task_times {
		pid_t tid;
		uint64_t run_ns, wait_ns;
	} *task;
};
int tasks_snapshot(struct task_snapshot *s);
/* The run and wait times between two snapshots: per task, a new task's all of it. */
void tasks_between(const struct task_snapshot *before, const struct task_snapshot *after,
		   uint64_t *run_ns, uint64_t *wait_ns);
void tasks_free(struct task_snapshot *s);

#endif
