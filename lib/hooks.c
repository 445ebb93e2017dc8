// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "hooks.h"
#include "probe.h"
#include "util.h"

struct flavour_desc {
	const char *name, *tier;
	const char *suffix[HOOK_MAX_PROGS];
	bool is_return[HOOK_MAX_PROGS];
};

static const struct flavour_desc flavours[NR_FLAVOURS] = {
	[FLAVOUR_NONE] = { "none", "none", {}, {} },
	[FLAVOUR_FENTRY] = { "fentry", "fentry", { "fentry", "fexit" },
			     { false, true } },
	[FLAVOUR_KPROBE] = { "kprobe", "kprobe", { "kprobe", "kretprobe" },
			     { false, true } },
	[FLAVOUR_TP_BTF] = { "tp_btf", "tracepoint", { "tp_btf" }, {} },
	[FLAVOUR_RAW_TP] = { "raw_tp", "tracepoint", { "raw_tp" }, {} },
	[FLAVOUR_TRACEPOINT] = { "tracepoint", "tracepoint", { "tp" }, {} },
};

const char *flavour_name(enum flavour flavour)
{
	return flavour < NR_FLAVOURS ? flavours[flavour].name : "none";
}

const char *flavour_tier(enum flavour flavour)
{
	return flavour < NR_FLAVOURS ? flavours[flavour].tier : "none";
}

static struct bpf_program *find_prog(struct bpf_object *obj, const char *hook,
				     const char *suffix)
{
	char name[128];

	snprintf(name, sizeof(name), "%s__%s", hook, suffix);
	return bpf_object__find_program_by_name(obj, name);
}

static bool object_has_flavour(struct bpf_object *obj, const char *hook,
			       enum flavour flavour)
{
	for (int i = 0; i < HOOK_MAX_PROGS; i++)
		if (flavours[flavour].suffix[i] &&
		    find_prog(obj, hook, flavours[flavour].suffix[i]))
			return true;
	return false;
}

static enum probe_result kernel_can(enum flavour flavour, const struct hook_spec *spec,
				    const char *target, char *why, size_t whylen)
{
	switch (flavour) {
	case FLAVOUR_FENTRY:
		return probe_fentry(target, why, whylen);
	case FLAVOUR_KPROBE:
		return probe_kprobe(target, why, whylen);
	case FLAVOUR_TP_BTF:
		return probe_tp_btf(target, why, whylen);
	case FLAVOUR_RAW_TP:
		return probe_raw_tp(target, why, whylen);
	case FLAVOUR_TRACEPOINT:
		if (!spec->category) {
			errmsg(why, whylen, "%s is a bare tracepoint with no tracefs event",
			       target);
			return PROBE_ABSENT;
		}
		return probe_tracepoint(spec->category, target, why, whylen);
	default:
		return PROBE_REFUSED;
	}
}

/* Flavours to try for a hook under a --mode, best first, FLAVOUR_NONE-terminated. */
static void candidate_flavours(enum hook_kind kind, enum probe_mode mode,
			       enum flavour out[4])
{
	int n = 0;

	if (kind == HOOK_FUNCTION) {
		if (mode == MODE_AUTO || mode == MODE_FENTRY)
			out[n++] = FLAVOUR_FENTRY;
		if (mode == MODE_AUTO || mode == MODE_KPROBE)
			out[n++] = FLAVOUR_KPROBE;
	} else {
		out[n++] = FLAVOUR_TP_BTF;
		out[n++] = FLAVOUR_RAW_TP;
		out[n++] = FLAVOUR_TRACEPOINT;
	}
	out[n] = FLAVOUR_NONE;
}

/* NAME is one of the comma-separated words of the environment variable VAR. */
static bool env_list_has(const char *var, const char *name)
{
	const char *list = getenv(var);
	size_t len = strlen(name);

	while (list && *list) {
		size_t item = strcspn(list, ",");

		if (item == len && !strncmp(list, name, len))
			return true;
		list += item + (list[item] == ',');
	}
	return false;
}

/*
 * SCHEDSCAN_SKIP_FLAVOURS=tp_btf,raw_tp makes the tools behave as on a
 * kernel without those flavours, so the tests can exercise every
 * fallback on one kernel.
 */
static bool flavour_skipped(enum flavour flavour)
{
	return env_list_has("SCHEDSCAN_SKIP_FLAVOURS", flavours[flavour].name);
}

/*
 * SCHEDSCAN_SKIP_FUNCTIONS=choose_idle_cpu,available_idle_cpu makes the
 * tools behave as on a kernel that inlined those functions, so the tests
 * can exercise each alternative and fallback on the kernels they have.
 */
static bool function_skipped(const char *func)
{
	return env_list_has("SCHEDSCAN_SKIP_FUNCTIONS", func);
}

/* Appends "flavour: reason" to the hook's list of reasons. */
static void note_refusal(struct hook *hook, enum flavour flavour,
			 const char *why)
{
	size_t used = strlen(hook->why);
	char reason[sizeof(hook->why)];

	/* One missing kprobe PMU is one reason, whatever the targets. */
	snprintf(reason, sizeof(reason), "%s: %s", flavours[flavour].name, why);
	if (strstr(hook->why, reason))
		return;
	snprintf(hook->why + used, sizeof(hook->why) - used, "%s%s",
		 used ? "; " : "", reason);
}

/*
 * Why a flavour attaches none of a hook's targets: the kernel's refusal
 * of the flavour if any target exists (the names it does not have are
 * beside the point), else every name tried, newest first, none present.
 */
static void note_targets_refused(struct hook *hook, enum flavour flavour,
				 const char *refusal, const char *only_absence,
				 int nr_absent)
{
	const struct hook_spec *spec = hook->spec;
	char names[256] = "";
	size_t used = 0;

	if (refusal) {
		note_refusal(hook, flavour, refusal);
		return;
	}
	if (nr_absent == 1) {
		note_refusal(hook, flavour, only_absence);
		return;
	}
	for (int t = 0; t < HOOK_MAX_TARGETS && spec->targets[t] && used < sizeof(names); t++)
		used += snprintf(names + used, sizeof(names) - used, "%s%s()", t ? ", " : "",
				 spec->targets[t]);
	snprintf(hook->why + strlen(hook->why), sizeof(hook->why) - strlen(hook->why),
		 "%s%s: none of %s is %s (inlined, renamed or absent)",
		 hook->why[0] ? "; " : "", flavours[flavour].name, names,
		 flavour == FLAVOUR_FENTRY ? "in the kernel BTF" : "a kernel symbol");
}

static void choose_flavour(struct bpf_object *obj, struct hook *hook,
			   const struct common_opts *opts)
{
	const struct hook_spec *spec = hook->spec;
	enum flavour candidates[4];
	char why[256], refusal[256], absence[256];

	if (spec->kind == HOOK_FUNCTION && opts->mode == MODE_TRACEPOINT) {
		snprintf(hook->why, sizeof(hook->why),
			 "--mode tracepoint attaches no kernel function hooks");
		return;
	}
	candidate_flavours(spec->kind, opts->mode, candidates);
	for (int c = 0; candidates[c] != FLAVOUR_NONE; c++) {
		enum flavour flavour = candidates[c];
		bool have_refusal = false;
		int nr_absent = 0;

		if (!object_has_flavour(obj, spec->name, flavour))
			continue;
		if (flavour_skipped(flavour)) {
			note_refusal(hook, flavour, "skipped (SCHEDSCAN_SKIP_FLAVOURS)");
			continue;
		}
		/* The classic record has no task pointer to filter on. */
		if (flavour == FLAVOUR_TRACEPOINT && !spec->about_current &&
		    (opts->pid || opts->cgroup_path || opts->comm[0])) {
			note_refusal(hook, flavour,
				     "cannot filter by PID, task name or cgroup");
			continue;
		}
		for (int t = 0; t < HOOK_MAX_TARGETS && spec->targets[t]; t++) {
			enum probe_result can = PROBE_ABSENT;

			if (spec->kind == HOOK_FUNCTION && function_skipped(spec->targets[t]))
				snprintf(why, sizeof(why), "%s() skipped (SCHEDSCAN_SKIP_FUNCTIONS)",
					 spec->targets[t]);
			else
				can = kernel_can(flavour, spec, spec->targets[t], why, sizeof(why));
			switch (can) {
			case PROBE_OK:
				hook->flavour = flavour;
				hook->target = spec->targets[t];
				hook->why[0] = '\0';
				return;
			case PROBE_ABSENT:
				if (!nr_absent++)
					snprintf(absence, sizeof(absence), "%s", why);
				break;
			case PROBE_REFUSED:
				if (!have_refusal)
					snprintf(refusal, sizeof(refusal), "%s", why);
				have_refusal = true;
				break;
			}
		}
		note_targets_refused(hook, flavour, have_refusal ? refusal : NULL, absence,
				     nr_absent);
	}
	if (!hook->why[0])
		snprintf(hook->why, sizeof(hook->why), "no program for this tier");
}

/* Every hook of the set is earlier than h and attaches. */
static bool redundant(const struct hook *hooks, int h, unsigned int set)
{
	if (!set || set >> h)
		return false;
	for (int i = 0; i < h; i++)
		if ((set & HOOK_BIT(i)) && hooks[i].flavour == FLAVOUR_NONE)
			return false;
	return true;
}

int hooks_prepare(struct bpf_object *obj, const struct hook_spec *specs,
		  int nr_hooks, const struct common_opts *opts,
		  struct hook *hooks, char *err, size_t errlen)
{
	bool forced = opts->mode == MODE_FENTRY || opts->mode == MODE_KPROBE;
	int first_refused = -1, functions_chosen = 0;

	for (int h = 0; h < nr_hooks; h++) {
		struct hook *hook = &hooks[h];
		const struct flavour_desc *desc;

		memset(hook, 0, sizeof(*hook));
		hook->spec = &specs[h];
		for (int f = FLAVOUR_FENTRY; f < NR_FLAVOURS; f++) {
			for (int i = 0; i < HOOK_MAX_PROGS; i++) {
				struct bpf_program *prog;

				if (!flavours[f].suffix[i])
					continue;
				prog = find_prog(obj, specs[h].name,
						 flavours[f].suffix[i]);
				if (prog)
					bpf_program__set_autoload(prog, false);
			}
		}
		if (specs[h].skip_why) {
			snprintf(hook->why, sizeof(hook->why), "%s", specs[h].skip_why);
			continue;
		}
		if (redundant(hooks, h, specs[h].redundant_with)) {
			snprintf(hook->why, sizeof(hook->why),
				 "not needed: %s is traced directly",
				 specs[__builtin_ctz(specs[h].redundant_with)].name);
			continue;
		}
		choose_flavour(obj, hook, opts);
		if (specs[h].kind == HOOK_FUNCTION) {
			functions_chosen += hook->flavour != FLAVOUR_NONE;
			if (hook->flavour == FLAVOUR_NONE && first_refused < 0)
				first_refused = h;
		}
		if (hook->flavour == FLAVOUR_NONE) {
			if (specs[h].optional)
				continue;
			if (specs[h].kind == HOOK_TRACEPOINT)
				return errmsg(err, errlen,
					      "cannot attach to tracepoint %s: %s",
					      specs[h].targets[0], hook->why);
			if (forced)
				return errmsg(err, errlen,
					      "--mode %s is not available for %s(): %s",
					      probe_mode_name(opts->mode),
					      specs[h].targets[0], hook->why);
			continue;
		}
		desc = &flavours[hook->flavour];
		for (int i = 0; i < HOOK_MAX_PROGS; i++) {
			struct bpf_program *prog;

			if (!desc->suffix[i])
				continue;
			prog = find_prog(obj, specs[h].name, desc->suffix[i]);
			if (!prog)
				continue;
			hook->progs[i] = prog;
			hook->is_return[i] = desc->is_return[i];
			bpf_program__set_autoload(prog, true);
		}
	}
	/*
	 * A tier asked for by name must bring what only it can: a tool whose
	 * function hooks are all optional would otherwise run on its
	 * tracepoints alone, labelled with a tier it does not use.
	 */
	if (forced && !functions_chosen && first_refused >= 0)
		return errmsg(err, errlen, "--mode %s is not available: %s(): %s",
			      probe_mode_name(opts->mode), specs[first_refused].targets[0],
			      hooks[first_refused].why);
	return 0;
}

int hooks_set_targets(struct hook *hooks, int nr_hooks, char *err, size_t errlen)
{
	for (int h = 0; h < nr_hooks; h++) {
		struct hook *hook = &hooks[h];

		if (hook->flavour != FLAVOUR_FENTRY && hook->flavour != FLAVOUR_TP_BTF)
			continue;
		for (int i = 0; i < HOOK_MAX_PROGS; i++) {
			int ret;

			if (!hook->progs[i])
				continue;
			ret = bpf_program__set_attach_target(hook->progs[i], 0, hook->target);
			if (ret)
				return errmsg(err, errlen, "cannot target %s at %s: %s",
					      bpf_program__name(hook->progs[i]), hook->target,
					      strerror(-ret));
		}
	}
	return 0;
}

static struct bpf_link *attach_one(struct hook *hook, int i)
{
	struct bpf_program *prog = hook->progs[i];

	switch (hook->flavour) {
	case FLAVOUR_FENTRY:
	case FLAVOUR_TP_BTF:
		return bpf_program__attach_trace(prog);
	case FLAVOUR_KPROBE:
		return bpf_program__attach_kprobe(prog, hook->is_return[i],
						  hook->target);
	case FLAVOUR_RAW_TP:
		return bpf_program__attach_raw_tracepoint(prog, hook->target);
	case FLAVOUR_TRACEPOINT:
		return bpf_program__attach_tracepoint(prog,
						      hook->spec->category,
						      hook->target);
	default:
		errno = EINVAL;
		return NULL;
	}
}

int hooks_attach(struct hook *hooks, int nr_hooks, char *err, size_t errlen)
{
	for (int h = 0; h < nr_hooks; h++) {
		for (int i = 0; i < HOOK_MAX_PROGS; i++) {
			if (!hooks[h].progs[i])
				continue;
			hooks[h].links[i] = attach_one(&hooks[h], i);
			if (!hooks[h].links[i]) {
				int saved = errno;

				hooks_detach(hooks, nr_hooks);
				return errmsg(err, errlen,
					      "attaching %s to %s failed: %s",
					      bpf_program__name(hooks[h].progs[i]),
					      hooks[h].target, strerror(saved));
			}
		}
	}
	return 0;
}

void hook_detach(struct hook *hook)
{
	for (int i = 0; i < HOOK_MAX_PROGS; i++) {
		bpf_link__destroy(hook->links[i]);
		hook->links[i] = NULL;
	}
}

void hooks_detach(struct hook *hooks, int nr_hooks)
{
	for (int h = 0; h < nr_hooks; h++)
		hook_detach(&hooks[h]);
}
