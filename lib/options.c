// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "escape.h"
#include "httpd.h"
#include "options.h"
#include "output.h"
#include "util.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

/* A day is far beyond "attach for a few minutes"; larger values are typos. */
#define MAX_SECONDS (7 * 24 * 3600.0)

enum {
	OPT_JSON = 0x100,
	OPT_MODE,
	OPT_STATS,
	OPT_COMM,
	OPT_LINEAR,
	OPT_TOP,
	OPT_LISTEN,
	OPT_PROMETHEUS_FILE,
	OPT_READY_FD,
	OPT_BTF,
	OPT_COMPARE,
	OPT_SVG,
	OPT_LIST_METRICS,
};

static const struct argp_option common_options[] = {
	{ "pid", 'p', "PID", 0, "Trace this process only", 1 },
	{ "comm", OPT_COMM, "NAME", 0, "Trace tasks with this name only", 1 },
	{ "cgroup", 'c', "PATH", 0, "Trace tasks in this cgroup v2 only", 1 },
	{ "cpus", 'C', "LIST", 0, "Trace these CPUs only (e.g. 0-3,8)", 1 },
	{ "interval", 'i', "SEC", 0, "Print a report every SEC seconds", 2 },
	{ "duration", 'd', "SEC", 0, "Stop after SEC seconds", 2 },
	{ "timestamp", 'T', NULL, 0, "Print a timestamp with each report", 2 },
	{ "json", OPT_JSON, NULL, 0, "Print JSON Lines (see docs/json.md)", 2 },
	{ "linear", OPT_LINEAR, NULL, 0,
	  "Count histograms in linear slots (default: log2)", 2 },
	{ "top", OPT_TOP, "N", 0, "Show the N largest rows of each table", 2 },
	{ "listen", OPT_LISTEN, "ADDR:PORT", 0,
	  "Serve Prometheus metrics on http://ADDR:PORT/metrics (default address 127.0.0.1)", 2 },
	{ "prometheus-file", OPT_PROMETHEUS_FILE, "PATH", 0,
	  "Rewrite PATH atomically after each interval, for node_exporter's textfile collector", 2 },
	{ "svg", OPT_SVG, "FILE", 0,
	  "Draw the run (or --compare) as a self-contained SVG picture in FILE", 2 },
	{ "ready-fd", OPT_READY_FD, "FD", 0,
	  "Write \"ready\" (and where --listen serves) to FD once tracing, then close it", 2 },
	{ "mode", OPT_MODE, "MODE", 0,
	  "Probe tier: auto (default), fentry, kprobe or tracepoint", 3 },
	{ "btf", OPT_BTF, "FILE", 0,
	  "The kernel's BTF from FILE (e.g. btfhub's), for kernels built without it", 3 },
	{ "stats", OPT_STATS, NULL, 0,
	  "Print each BPF program's own cost at the end", 3 },
	{ "verbose", 'v', NULL, 0, "Print libbpf debug messages", 3 },
	/* Taken out of argv before argp sees it (split_compare()): listed for --help. */
	{ "compare", OPT_COMPARE, NULL, 0,
	  "--compare A.jsonl... -- B.jsonl...: compare runs recorded with --json, the"
	  " A runs, then --, then the B runs; traces nothing (other options first)", 4 },
	{ "list-metrics", OPT_LIST_METRICS, NULL, 0,
	  "Print what this kernel lets the tool measure: per metric and table its tier,"
	  " measured or estimated, or why not; loads and checks the programs, attaches"
	  " nothing", 4 },
	{ NULL, 'h', NULL, OPTION_HIDDEN, "Show this help", 3 },
	/* Negative positional values ("sisscan 1 -1"), for a clear message. */
#define NEGATIVE_NUMBER(d) { NULL, d, "N", OPTION_HIDDEN | OPTION_ARG_OPTIONAL, NULL, 3 }
	NEGATIVE_NUMBER('0'), NEGATIVE_NUMBER('1'), NEGATIVE_NUMBER('2'),
	NEGATIVE_NUMBER('3'), NEGATIVE_NUMBER('4'), NEGATIVE_NUMBER('5'),
	NEGATIVE_NUMBER('6'), NEGATIVE_NUMBER('7'), NEGATIVE_NUMBER('8'),
	NEGATIVE_NUMBER('9'),
#undef NEGATIVE_NUMBER
	{},
};

void common_opts_init(struct common_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->mode = MODE_AUTO;
	opts->ready_fd = -1;
	opts->listen_fd = -1;
	opts->proc_root = getenv("SCHEDSCAN_PROC") ?: "/proc";
	opts->sysfs_root = getenv("SCHEDSCAN_SYSFS") ?: "/sys";
}

const char *probe_mode_name(enum probe_mode mode)
{
	switch (mode) {
	case MODE_FENTRY:
		return "fentry";
	case MODE_KPROBE:
		return "kprobe";
	case MODE_TRACEPOINT:
		return "tracepoint";
	default:
		return "auto";
	}
}

int parse_decimal(const char *text, double *out)
{
	char *end;

	/* strtod() also takes hex ("0x1"), "inf" and "nan": none is a typo we want. */
	if (!*text || text[strspn(text, "0123456789.eE+-")])
		return -1;
	errno = 0;
	*out = strtod(text, &end);
	return *end || errno == ERANGE || !isfinite(*out) ? -1 : 0;
}

int parse_seconds(const char *what, const char *text, double *out,
		  char *err, size_t errlen)
{
	double value;

	if (parse_decimal(text, &value))
		return errmsg(err, errlen,
			    "invalid %s '%s': expected a number of seconds",
			    what, text);
	if (value <= 0)
		return errmsg(err, errlen, "invalid %s '%s': it must be above 0",
			    what, text);
	if (value > MAX_SECONDS || value < 0.001)
		return errmsg(err, errlen,
			    "%s '%s' is out of range (0.001 to %.0f seconds)",
			    what, text, MAX_SECONDS);
	*out = value;
	return 0;
}

int parse_count(const char *text, long *out, char *err, size_t errlen)
{
	char *end;
	long value;

	errno = 0;
	value = strtol(text, &end, 10);
	if (!*text || *end || errno == ERANGE)
		return errmsg(err, errlen,
			    "invalid count '%s': expected a whole number", text);
	if (value <= 0)
		return errmsg(err, errlen, "invalid count '%s': it must be above 0",
			    text);
	*out = value;
	return 0;
}

int parse_pid(const char *text, const char *proc_root, pid_t *out, char *err,
	      size_t errlen)
{
	char path[PATH_MAX], *end;
	long value;

	errno = 0;
	value = strtol(text, &end, 10);
	if (!*text || *end || errno == ERANGE)
		return errmsg(err, errlen, "invalid PID '%s': expected a number",
			    text);
	if (value <= 0 || value > INT_MAX)
		return errmsg(err, errlen, "invalid PID '%s': it must be above 0",
			    text);
	snprintf(path, sizeof(path), "%s/%ld", proc_root, value);
	if (access(path, F_OK))
		return errmsg(err, errlen, "no process with PID %ld exists", value);
	*out = (pid_t)value;
	return 0;
}

/* Field 9 of /proc/PID/stat (include/linux/sched.h). */
#define PF_KTHREAD 0x00200000

int pid_target(const char *proc_root, pid_t *pid, char *note, size_t notelen)
{
	char path[PATH_MAX], *text, *p, comm[64] = "?";
	unsigned long flags = 0;
	long tgid = 0;

	note[0] = 0;
	snprintf(path, sizeof(path), "%s/%d/status", proc_root, *pid);
	if (!read_text_file(path, &text, NULL, 0)) {
		p = strstr(text, "\nTgid:");
		if (p)
			tgid = strtol(p + 6, NULL, 10);
		if (!strncmp(text, "Name:", 5) && sscanf(text + 5, " %63[^\n]", comm) == 1)
			/* The task chose its name: no escape sequence reaches the terminal. */
			display_name_inplace(comm, sizeof(comm));
		free(text);
	}
	snprintf(path, sizeof(path), "%s/%d/stat", proc_root, *pid);
	if (!read_text_file(path, &text, NULL, 0)) {
		/* After the ")" that ends comm: state ppid pgrp session tty tpgid flags. */
		p = strrchr(text, ')');
		if (p)
			sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %lu", &flags);
		free(text);
	}
	if (flags & PF_KTHREAD) {
		snprintf(note, notelen,
			 "PID %d is the kernel thread '%s': only its own events are traced",
			 *pid, comm);
		return 1;
	}
	if (tgid > 0 && tgid != *pid) {
		snprintf(note, notelen,
			 "%d is a thread of process %ld ('%s'): -p selects processes, so all of its threads are traced",
			 *pid, tgid, comm);
		*pid = (pid_t)tgid;
		return 1;
	}
	return 0;
}

int parse_comm(const char *text, char *out, size_t outlen, char *err,
	       size_t errlen)
{
	size_t len = strlen(text);

	if (!len)
		return errmsg(err, errlen, "invalid task name '': it is empty");
	/* The kernel keeps 15 bytes of a task name (TASK_COMM_LEN - 1), not characters. */
	if (len >= outlen)
		return errmsg(err, errlen,
			    "task name '%s' is %zu bytes, longer than the kernel's %zu",
			    text, len, outlen - 1);
	memcpy(out, text, len + 1);
	return 0;
}

int parse_mode(const char *text, enum probe_mode *out, char *err,
	       size_t errlen)
{
	static const enum probe_mode modes[] = { MODE_AUTO, MODE_FENTRY,
						 MODE_KPROBE, MODE_TRACEPOINT };

	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		if (!strcmp(text, probe_mode_name(modes[i]))) {
			*out = modes[i];
			return 0;
		}
	}
	return errmsg(err, errlen,
		    "invalid mode '%s': expected auto, fentry, kprobe or tracepoint",
		    text);
}

static int read_cpulist_file(const char *path, struct cpumask *mask)
{
	char err[128], *text;
	int ret;

	if (read_text_file(path, &text, NULL, 0))
		return -1;
	ret = cpulist_parse(text, mask, err, sizeof(err));
	free(text);
	return ret;
}

int parse_cpus(const char *text, const char *sysfs_root, struct cpumask *out,
	       char *err, size_t errlen)
{
	struct cpumask present;
	char path[PATH_MAX], list[256];
	int cpu;

	if (cpulist_parse(text, out, err, errlen))
		return -1;
	if (cpumask_empty(out))
		return errmsg(err, errlen, "invalid CPU list '%s': it is empty",
			    text);
	snprintf(path, sizeof(path), "%s/devices/system/cpu/online", sysfs_root);
	if (read_cpulist_file(path, &present))
		return errmsg(err, errlen, "cannot read the online CPUs from %s",
			    path);
	for (cpu = cpumask_next(out, -1); cpu >= 0; cpu = cpumask_next(out, cpu)) {
		if (!cpumask_test(&present, cpu)) {
			if (cpulist_format(&present, list, sizeof(list)) < 0)
				strcpy(list, "?");
			return errmsg(err, errlen,
				    "CPU %d does not exist or is offline (online CPUs: %s)",
				    cpu, list);
		}
	}
	return 0;
}

int parse_cgroup(const char *path, unsigned long long *id, char *err,
		 size_t errlen)
{
	struct {
		struct file_handle handle;
		unsigned long long cgid;
	} fh;
	struct statfs fs;
	struct stat st;
	int mount_id;

	if (stat(path, &st))
		return errmsg(err, errlen, "cgroup '%s' does not exist", path);
	if (!S_ISDIR(st.st_mode) || statfs(path, &fs) ||
	    fs.f_type != CGROUP2_SUPER_MAGIC)
		return errmsg(err, errlen,
			    "'%s' is not a cgroup v2 directory (e.g. /sys/fs/cgroup/system.slice)",
			    path);
	/* The file handle of a cgroup2 directory is its 64-bit cgroup id. */
	fh.handle.handle_bytes = sizeof(fh.cgid);
	if (!name_to_handle_at(AT_FDCWD, path, &fh.handle, &mount_id, 0) &&
	    fh.handle.handle_bytes == sizeof(fh.cgid)) {
		memcpy(id, fh.handle.f_handle, sizeof(*id));
		return 0;
	}
	*id = st.st_ino;
	return 0;
}

int parse_size(const char *what, const char *text, unsigned long long *out,
	       char *err, size_t errlen)
{
	static const char suffixes[] = "KMG";
	unsigned long long value = 0;
	const char *p = text;
	int shift = 0;

	for (; *p >= '0' && *p <= '9'; p++) {
		if (value > (ULLONG_MAX - 9) / 10)
			return errmsg(err, errlen, "%s '%s' is too large", what, text);
		value = value * 10 + (unsigned)(*p - '0');
	}
	if (p != text && *p && strchr(suffixes, *p) && !p[1]) {
		shift = 10 * (int)(strchr(suffixes, *p) - suffixes + 1);
		p++;
	}
	if (p == text || *p)
		return errmsg(err, errlen,
			      "invalid %s '%s': expected bytes, optionally with K, M or G (e.g. 256M)",
			      what, text);
	if (shift && value > ULLONG_MAX >> shift)
		return errmsg(err, errlen, "%s '%s' is too large", what, text);
	*out = value << shift;
	return 0;
}

/* Silences libbpf while parse_btf_file() tries a file (its sentence says it). */
static int quiet_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	return 0;
}

int parse_btf_file(const char *path, char *err, size_t errlen)
{
	libbpf_print_fn_t saved;
	struct btf *btf;
	struct stat st;
	bool kernel;

	if (stat(path, &st))
		return errmsg(err, errlen, "--btf '%s': %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return errmsg(err, errlen, "--btf '%s' is not a file", path);
	saved = libbpf_set_print(quiet_print);
	btf = btf__parse(path, NULL);
	libbpf_set_print(saved);
	if (libbpf_get_error(btf))
		return errmsg(err, errlen, "--btf '%s' holds no BTF libbpf can read", path);
	/*
	 * A BPF object's BTF parses too, and a CO-RE one even has the structs
	 * it reads, but it describes no kernel to relocate against: it has
	 * the sections of a BPF object (maps, a license), which a kernel's
	 * BTF (a vmlinux, btfhub's files, bpftool's min_core_btf) never has.
	 */
	kernel = btf__find_by_name_kind(btf, "task_struct", BTF_KIND_STRUCT) > 0 &&
		 btf__find_by_name_kind(btf, "rq", BTF_KIND_STRUCT) > 0 &&
		 btf__find_by_name_kind(btf, "license", BTF_KIND_DATASEC) < 0 &&
		 btf__find_by_name_kind(btf, ".maps", BTF_KIND_DATASEC) < 0;
	btf__free(btf);
	if (!kernel)
		return errmsg(err, errlen,
			      "--btf '%s' does not describe a kernel: it is a BPF object's, or has no struct task_struct and struct rq",
			      path);
	return 0;
}

int parse_output_path(const char *what, const char *path, char *err,
		      size_t errlen)
{
	return output_path_check(what, path, err, errlen);
}

/*
 * The shortest interval the tools keep: every report switches the
 * counting bank, waits for the BPF programs in flight (an RCU grace
 * period, 1-10 ms on an idle 2-CPU host) and reads every map, so shorter
 * windows come out longer than asked and uneven (-i 0.001 gave 38 windows
 * of 1.1-15.8 ms in a second). perf stat -I has the same floor.
 */
#define MIN_INTERVAL_S 0.01

static int parse_interval(const char *text, double *out, char *err, size_t errlen)
{
	if (parse_seconds("interval", text, out, err, errlen))
		return -1;
	if (*out < MIN_INTERVAL_S)
		return errmsg(err, errlen,
			      "interval '%s' is shorter than %g s, the shortest the tools keep: each report waits for the BPF programs in flight and reads every map",
			      text, MIN_INTERVAL_S);
	return 0;
}

/* [interval] [count], in the order given. */
static int positional(struct common_opts *opts, const char *arg, char *err,
		      size_t errlen)
{
	int ret;

	if (opts->nr_positional == 0 && opts->interval_from_option)
		return errmsg(err, errlen,
			      "the interval was given twice (-i and a positional interval)");
	if (opts->nr_positional == 0)
		ret = parse_interval(arg, &opts->interval_s, err, errlen);
	else if (opts->nr_positional == 1)
		ret = parse_count(arg, &opts->count, err, errlen);
	else
		ret = errmsg(err, errlen,
			     "unexpected argument '%s': only [interval] [count] are taken", arg);
	opts->nr_positional++;
	return ret;
}

int option_given_once(unsigned long long *given, unsigned int bit, const char *name,
		      char *err, size_t errlen)
{
	if (*given & (1ULL << bit))
		return errmsg(err, errlen, "%s was given twice: give it once", name);
	*given |= 1ULL << bit;
	return 0;
}

/* The common options that take a value: each may be given once (bit: its index). */
static const struct {
	int key;
	const char *name;
} value_options[] = {
	{ 'p', "-p/--pid" }, { OPT_COMM, "--comm" }, { 'c', "-c/--cgroup" },
	{ 'C', "-C/--cpus" }, { 'i', "-i/--interval" }, { 'd', "-d/--duration" },
	{ OPT_TOP, "--top" }, { OPT_LISTEN, "--listen" },
	{ OPT_PROMETHEUS_FILE, "--prometheus-file" }, { OPT_SVG, "--svg" },
	{ OPT_READY_FD, "--ready-fd" }, { OPT_MODE, "--mode" }, { OPT_BTF, "--btf" },
};

/* 0, or -1 with a sentence when key is a value option seen before. */
static int value_option_once(struct common_opts *opts, int key, char *err, size_t errlen)
{
	for (unsigned int i = 0; i < ARRAY_SIZE(value_options); i++)
		if (value_options[i].key == key)
			return option_given_once(&opts->given, i, value_options[i].name, err,
						 errlen);
	return 0;
}

/* Reports go to stdout: a "ready" line there would break them. */
static int check_ready_fd(long fd, char *err, size_t errlen)
{
	struct stat ready, out;

	if (fcntl((int)fd, F_GETFD) < 0)
		return errmsg(err, errlen, "invalid --ready-fd %ld: no such open file descriptor",
			      fd);
	if (fd == STDOUT_FILENO ||
	    (!fstat((int)fd, &ready) && !fstat(STDOUT_FILENO, &out) &&
	     ready.st_dev == out.st_dev && ready.st_ino == out.st_ino))
		return errmsg(err, errlen,
			      "--ready-fd %ld is stdout, where the reports go: give another descriptor (--ready-fd 3 3>FILE)",
			      fd);
	return 0;
}

/* --list-metrics runs nothing: an option that only a run uses is a mistake. */
static int check_list_metrics(const struct common_opts *opts, char *err, size_t errlen)
{
	const char *run_option = opts->compare ? "--compare" :
				 opts->interval_s ? "an interval" :
				 opts->duration_s ? "--duration" :
				 opts->listen ? "--listen" :
				 opts->prometheus_file ? "--prometheus-file" :
				 opts->svg_path ? "--svg" :
				 opts->ready_fd >= 0 ? "--ready-fd" :
				 opts->stats ? "--stats" : NULL;

	if (!run_option)
		return 0;
	return errmsg(err, errlen, "--list-metrics traces nothing: %s has no meaning with it",
		      run_option);
}

static error_t parse_common(int key, char *arg, struct argp_state *state)
{
	struct common_opts *opts = state->input;
	char err[512], negative[64];
	int ret = 0;

	/* A repeated value is a mistake to point out, not to settle by taking the last. */
	if (value_option_once(opts, key, err, sizeof(err))) {
		argp_error(state, "%s", err);
		return EINVAL;
	}
	switch (key) {
	case 'p': {
		char note[256];

		ret = parse_pid(arg, opts->proc_root, &opts->pid, err, sizeof(err));
		if (!ret && pid_target(opts->proc_root, &opts->pid, note, sizeof(note)))
			fprintf(stderr, "%s: %s\n", program_invocation_short_name, note);
		break;
	}
	case OPT_COMM:
		ret = parse_comm(arg, opts->comm, sizeof(opts->comm), err,
				 sizeof(err));
		break;
	case 'c':
		ret = parse_cgroup(arg, &opts->cgroup_id, err, sizeof(err));
		opts->cgroup_path = arg;
		break;
	case 'C':
		ret = parse_cpus(arg, opts->sysfs_root, &opts->cpus, err,
				 sizeof(err));
		opts->have_cpus = true;
		break;
	case 'i':
		if (opts->nr_positional) {
			ret = errmsg(err, sizeof(err),
				     "the interval was given twice (-i and a positional interval)");
			break;
		}
		ret = parse_interval(arg, &opts->interval_s, err, sizeof(err));
		opts->interval_from_option = true;
		break;
	case 'd':
		ret = parse_seconds("duration", arg, &opts->duration_s, err,
				    sizeof(err));
		break;
	case 'T':
		opts->timestamp = true;
		break;
	case OPT_JSON:
		opts->json = true;
		break;
	case OPT_MODE:
		ret = parse_mode(arg, &opts->mode, err, sizeof(err));
		break;
	case OPT_STATS:
		opts->stats = true;
		break;
	case OPT_LINEAR:
		opts->linear = true;
		break;
	case OPT_TOP: {
		char *end;
		long top;

		errno = 0;
		top = strtol(arg, &end, 10);
		if (!*arg || *end || errno || top < 1 || top > 1000000)
			ret = errmsg(err, sizeof(err),
				     "invalid --top '%s': expected a number of rows from 1 to 1000000", arg);
		opts->top = (int)top;
		break;
	}
	case OPT_LISTEN: {
		struct sockaddr_storage addr;
		socklen_t len;

		opts->listen = arg;
		if (opts->compare) {
			/* A comparison serves nothing: the value is only checked. */
			ret = httpd_parse_listen(arg, &addr, &len, err, sizeof(err));
			break;
		}
		/* Bound now: a port in use or a foreign address is a usage error. */
		opts->listen_fd = httpd_listen(arg, err, sizeof(err));
		ret = opts->listen_fd < 0 ? -1 : 0;
		break;
	}
	case OPT_PROMETHEUS_FILE:
		ret = parse_output_path("--prometheus-file", arg, err, sizeof(err));
		opts->prometheus_file = arg;
		break;
	case OPT_SVG:
		ret = parse_output_path("--svg", arg, err, sizeof(err));
		opts->svg_path = arg;
		break;
	case OPT_READY_FD: {
		char *end;
		long fd;

		errno = 0;
		fd = strtol(arg, &end, 10);
		if (!*arg || *end || errno || fd < 0 || fd > 1000000)
			ret = errmsg(err, sizeof(err),
				     "invalid --ready-fd '%s': expected an open file descriptor number", arg);
		else
			ret = check_ready_fd(fd, err, sizeof(err));
		opts->ready_fd = (int)fd;
		break;
	}
	case OPT_BTF:
		ret = parse_btf_file(arg, err, sizeof(err));
		opts->btf_path = arg;
		break;
	case 'v':
		opts->verbose = true;
		break;
	case '0' ... '9':
		/* "-1" is a negative positional number, not an option. */
		snprintf(negative, sizeof(negative), "-%c%s", key, arg ? arg : "");
		ret = positional(opts, negative, err, sizeof(err));
		break;
	case 'h':
		argp_state_help(state, stdout, ARGP_HELP_STD_HELP);
		break;
	case ARGP_KEY_ARG:
		ret = positional(opts, arg, err, sizeof(err));
		break;
	case OPT_LIST_METRICS:
		opts->list_metrics = true;
		break;
	case ARGP_KEY_END:
		if (opts->count && !opts->interval_s)
			ret = errmsg(err, sizeof(err), "a count needs an interval");
		else if (opts->list_metrics)
			ret = check_list_metrics(opts, err, sizeof(err));
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	if (ret) {
		/* argp_error prints "prog: msg" plus a --help hint and exits 2. */
		argp_error(state, "%s", err);
		return EINVAL;
	}
	return 0;
}

const struct argp common_argp = {
	.options = common_options,
	.parser = parse_common,
};

struct tool_args {
	struct common_opts *opts;
	argp_parser_t parser;
	void *input;
};

/* Common options go to the child; the tool's own to its parser. */
static error_t parse_tool(int key, char *arg, struct argp_state *state)
{
	struct tool_args *args = state->input;
	error_t ret;

	if (key == ARGP_KEY_INIT)
		state->child_inputs[0] = args->opts;
	if (!args->parser)
		return ARGP_ERR_UNKNOWN;
	state->input = args->input;
	ret = args->parser(key, arg, state);
	state->input = args;
	return ret;
}

/*
 * "--compare A... -- B...": everything from --compare on is the two
 * sides' files, not options (a file may start with '-'); returns the
 * argc that argp parses. Exits 2 with a sentence when a side is empty.
 */
static int split_compare(int argc, char **argv, struct common_opts *opts)
{
	int at, sep;

	for (at = 1; at < argc && strcmp(argv[at], "--compare"); at++)
		if (!strcmp(argv[at], "--"))
			return argc;
	if (at == argc)
		return argc;
	for (sep = at + 1; sep < argc && strcmp(argv[sep], "--"); sep++)
		;
	opts->compare = true;
	opts->compare_a = (const char *const *)&argv[at + 1];
	opts->nr_compare_a = sep - at - 1;
	opts->compare_b = (const char *const *)&argv[sep < argc ? sep + 1 : argc];
	opts->nr_compare_b = sep < argc ? argc - sep - 1 : 0;
	if (sep == argc || !opts->nr_compare_a || !opts->nr_compare_b) {
		fprintf(stderr, "%s: --compare needs A runs, then --, then B runs: "
			"--compare A.jsonl [A2.jsonl ...] -- B.jsonl [B2.jsonl ...]\n",
			program_invocation_short_name);
		exit(OPTIONS_EXIT_USAGE);
	}
	return at;
}

void parse_tool_args(int argc, char **argv, const char *doc,
		     struct common_opts *opts)
{
	parse_tool_args_with(argc, argv, doc, opts, NULL, NULL, NULL);
}

void parse_tool_args_with(int argc, char **argv, const char *doc,
			  struct common_opts *opts,
			  const struct argp_option *options,
			  argp_parser_t parser, void *input)
{
	static const struct argp_child children[] = {
		{ &common_argp, 0, NULL, 0 },
		{},
	};
	const struct argp argp = {
		.options = options,
		.parser = parse_tool,
		.args_doc = "[interval] [count]",
		.doc = doc,
		.children = children,
	};
	static char version[64];
	struct tool_args args;

	char **named = calloc((size_t)argc + 1, sizeof(*named));

	common_opts_init(opts);
	/* Before the copy below: the files point into the caller's argv, which lives on. */
	argc = split_compare(argc, argv, opts);
	args = (struct tool_args){ opts, parser, input };
	snprintf(version, sizeof(version), "%s %s",
		 program_invocation_short_name, SCHEDSCAN_VERSION);
	argp_program_version = version;
	/* getopt's messages start with argv[0]: the tool's name, not "./build/sisscan". */
	if (named) {
		memcpy(named, argv, (size_t)argc * sizeof(*named));
		named[0] = program_invocation_short_name;
		argv = named;
	}
	/* In order: "1 -1" is a count of -1, seen after the interval. */
	argp_parse(&argp, argc, argv, ARGP_IN_ORDER, NULL, &args);
	free(named);
}

/* glibc's argp exits with this status on a usage error. */
__attribute__((constructor)) static void set_usage_exit_status(void)
{
	argp_err_exit_status = OPTIONS_EXIT_USAGE;
}
