/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Options every schedscan tool takes, parsed once by an argp child
 * parser (libbpf-tools conventions: [interval] [count], -T, -p, -c, -v,
 * plus --json, --mode, --stats, -C and -d). A bad value ends the program
 * with one sentence on stderr and exit status 2, before anything is
 * loaded or attached.
 */
#ifndef SCHEDSCAN_OPTIONS_H
#define SCHEDSCAN_OPTIONS_H

#include <argp.h>
#include <stdbool.h>
#include <sys/types.h>
#include "cpumask.h"

#define OPTIONS_EXIT_USAGE 2

enum probe_mode { MODE_AUTO, MODE_FENTRY, MODE_KPROBE, MODE_TRACEPOINT };

struct common_opts {
	pid_t pid;			/* 0: any */
	char comm[16];			/* "" : any */
	const char *cgroup_path;	/* NULL: any */
	unsigned long long cgroup_id;
	struct cpumask cpus;
	bool have_cpus;
	double interval_s;		/* 0: one report at the end */
	long count;			/* intervals to print, 0: unlimited */
	double duration_s;		/* 0: until Ctrl-C */
	bool timestamp, json, verbose, stats;
	bool linear;			/* count histograms: linear, not log2 */
	int top;			/* table rows in text, 0: each table's default */
	const char *listen;		/* --listen ADDR:PORT: serve /metrics */
	/*
	 * --listen's socket, bound and listening since the options were
	 * parsed (-1: none, or --compare); tool_run() hands it to the server.
	 */
	int listen_fd;
	const char *prometheus_file;	/* --prometheus-file PATH */
	const char *svg_path;		/* --svg FILE: pictures of the run */
	int ready_fd;			/* --ready-fd FD, -1: none */
	const char *btf_path;		/* --btf FILE: the kernel's types, if it has no BTF */
	enum probe_mode mode;
	/* Where to look things up; tests point these at fixtures. */
	const char *proc_root, *sysfs_root;
	/*
	 * --compare A... -- B...: the files of each side (pointers into
	 * argv); the tool compares them instead of tracing.
	 */
	bool compare;
	/* --list-metrics: what this kernel lets the tool measure; traces nothing. */
	bool list_metrics;
	const char *const *compare_a, *const *compare_b;
	int nr_compare_a, nr_compare_b;
	/* Internal: positional arguments seen, -i given, value options seen. */
	int nr_positional;
	bool interval_from_option;
	unsigned long long given;
};

/* Put in the tool's struct argp children; the input is a struct common_opts *. */
extern const struct argp common_argp;

void common_opts_init(struct common_opts *opts);
/*
 * Parses a tool's command line (common options only; the tool's doc
 * string gives USAGE and EXAMPLES); exits 2 on a bad value.
 */
void parse_tool_args(int argc, char **argv, const char *doc,
		     struct common_opts *opts);
/*
 * The same, with the tool's own options: parser gets them with
 * state->input = input (and sees ARGP_KEY_INIT/END etc. too); a bad value
 * should end with argp_error(), which exits 2.
 */
void parse_tool_args_with(int argc, char **argv, const char *doc,
			  struct common_opts *opts,
			  const struct argp_option *options,
			  argp_parser_t parser, void *input);
const char *probe_mode_name(enum probe_mode mode);

/*
 * Value checks, exported for the unit tests. Each returns 0 or -1 with
 * one sentence in err.
 */
/* A plain decimal number (no hex, inf or nan): 0, or -1. */
int parse_decimal(const char *text, double *out);
int parse_seconds(const char *what, const char *text, double *out,
		  char *err, size_t errlen);
int parse_count(const char *text, long *out, char *err, size_t errlen);
int parse_pid(const char *text, const char *proc_root, pid_t *out,
	      char *err, size_t errlen);
/*
 * What -p PID will trace: 1 and a sentence in note when that is not
 * simply the process PID (a kernel thread; a thread, replaced by its
 * process), else 0.
 */
int pid_target(const char *proc_root, pid_t *pid, char *note, size_t notelen);
int parse_comm(const char *text, char *out, size_t outlen, char *err,
	       size_t errlen);
int parse_mode(const char *text, enum probe_mode *out, char *err,
	       size_t errlen);
int parse_cpus(const char *text, const char *sysfs_root, struct cpumask *out,
	       char *err, size_t errlen);
int parse_cgroup(const char *path, unsigned long long *id, char *err,
		 size_t errlen);
/* A size in bytes with an optional K, M or G (binary) suffix; 0 allowed. */
int parse_size(const char *what, const char *text, unsigned long long *out,
	       char *err, size_t errlen);
/* A file holding BTF (ELF with .BTF, or raw BTF) that libbpf can parse. */
int parse_btf_file(const char *path, char *err, size_t errlen);
/*
 * For a tool's own value options: -1 with "NAME was given twice" in err
 * when bit is set in *given already, else sets it. Bits 0-31 are the
 * common options'; a tool's own take 32-63.
 */
int option_given_once(unsigned long long *given, unsigned int bit, const char *name,
		      char *err, size_t errlen);
/* A file the tool will (re)create: lib/output.h's rules (output_path_check()). */
int parse_output_path(const char *what, const char *path, char *err,
		      size_t errlen);

#endif
