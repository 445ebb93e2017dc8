/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hooks and their flavours. A tool lists the kernel functions and
 * tracepoints it needs; its BPF object carries one program per flavour,
 * named "<hook>__<suffix>":
 *
 *   function hooks:   __fentry, __fexit        (fentry tier)
 *                     __kprobe, __kretprobe    (kprobe tier)
 *   tracepoint hooks: __tp_btf, __raw_tp, __tp (tracepoint tier)
 *
 * hooks_prepare() runs between open and load: it probes what the kernel
 * can attach, picks one flavour and one target (renamed functions are
 * tried in order) per hook, and disables every other program.
 */
#ifndef SCHEDSCAN_HOOKS_H
#define SCHEDSCAN_HOOKS_H

#include <stdbool.h>
#include <stddef.h>
#include "options.h"

struct bpf_object;
struct bpf_program;
struct bpf_link;

enum flavour {
	FLAVOUR_NONE,
	FLAVOUR_FENTRY,
	FLAVOUR_KPROBE,
	FLAVOUR_TP_BTF,
	FLAVOUR_RAW_TP,
	FLAVOUR_TRACEPOINT,
	NR_FLAVOURS,
};

enum hook_kind { HOOK_FUNCTION, HOOK_TRACEPOINT };

/* A set of hooks, by their index in a tool's hook table. */
#define HOOK_BIT(hook) (1U << (hook))

#define HOOK_MAX_TARGETS 4
#define HOOK_MAX_PROGS 2

struct hook_spec {
	const char *name;
	enum hook_kind kind;
	/* Functions in order of preference (renames), or the tracepoint. */
	const char *targets[HOOK_MAX_TARGETS];
	const char *category;	/* classic tracepoint category */
	/* Absent on some kernels (e.g. sched_skip_vma_numa before 6.7). */
	bool optional;
	/*
	 * HOOK_BIT()s of earlier hooks that make this one redundant: when
	 * all of them attach, this one is left out (a tracepoint-tier
	 * estimate of what a function hook measures directly). 0: none.
	 */
	unsigned int redundant_with;
	/*
	 * The event is about the task that runs it (current): the classic
	 * tracepoint flavour can then filter by PID, name and cgroup too.
	 */
	bool about_current;
	/* Set at run time: not attached, for this reason (an unused option). */
	const char *skip_why;
};

/* Optional hooks in a hook table indexed by the tool's enum. */
#define HOOK_SPEC_TRACEPOINT(hook, tp, cat)                                    \
	[hook] = { .name = tp, .kind = HOOK_TRACEPOINT, .targets = { tp },     \
		   .category = cat, .optional = true }
/* prog: the programs' name; then the function and its older names. */
#define HOOK_SPEC_FUNCTION(hook, prog, ...)                                    \
	[hook] = { .name = prog, .kind = HOOK_FUNCTION,                        \
		   .targets = { __VA_ARGS__ }, .optional = true }

struct hook {
	const struct hook_spec *spec;
	enum flavour flavour;
	const char *target;
	struct bpf_program *progs[HOOK_MAX_PROGS];
	bool is_return[HOOK_MAX_PROGS];
	struct bpf_link *links[HOOK_MAX_PROGS];
	char why[512];		/* why flavour is FLAVOUR_NONE */
};

const char *flavour_name(enum flavour flavour);
/* The tier a flavour belongs to, as --mode names it. */
const char *flavour_tier(enum flavour flavour);

int hooks_prepare(struct bpf_object *obj, const struct hook_spec *specs,
		  int nr_hooks, const struct common_opts *opts,
		  struct hook *hooks, char *err, size_t errlen);
/*
 * Points the fentry and tp_btf programs at their targets, right before
 * the load: libbpf parses the kernel's BTF for it and keeps it until the
 * load ends.
 */
int hooks_set_targets(struct hook *hooks, int nr_hooks, char *err, size_t errlen);
int hooks_attach(struct hook *hooks, int nr_hooks, char *err, size_t errlen);
void hooks_detach(struct hook *hooks, int nr_hooks);
/* Detaches one hook early (a set-up helper such as the runqueue learner). */
void hook_detach(struct hook *hook);

#endif
