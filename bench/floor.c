// SPDX-License-Identifier: GPL-2.0
/*
 * floor FLAVOUR:HOOK...: attaches an empty BPF program on each hook, as
 * the tool it stands beside does (FLAVOUR tp_btf, raw_tp or tp; a tp
 * HOOK is CATEGORY/NAME), prints "ready" once all are attached and holds
 * them until SIGINT or SIGTERM. make bench's floor (bench/bench.py).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "floor.skel.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* One empty program on one hook; the skeleton stays loaded until exit. */
static int attach_one(const char *spec, struct floor_bpf **out)
{
	const char *colon = strchr(spec, ':');
	struct bpf_program *keep, *progs[3];
	struct floor_bpf *skel;
	struct bpf_link *link;
	char flavour[16], hook[128];
	int err;

	if (!colon || colon - spec >= (long)sizeof(flavour) || strlen(colon + 1) >= sizeof(hook)) {
		fprintf(stderr, "floor: '%s' is not FLAVOUR:HOOK\n", spec);
		return -EINVAL;
	}
	snprintf(flavour, sizeof(flavour), "%.*s", (int)(colon - spec), spec);
	snprintf(hook, sizeof(hook), "%s", colon + 1);
	skel = floor_bpf__open();
	if (!skel) {
		fprintf(stderr, "floor: opening the BPF object failed: %s\n", strerror(errno));
		return -errno;
	}
	progs[0] = skel->progs.floor_tp_btf;
	progs[1] = skel->progs.floor_raw_tp;
	progs[2] = skel->progs.floor_tp;
	if (!strcmp(flavour, "tp_btf"))
		keep = progs[0];
	else if (!strcmp(flavour, "raw_tp"))
		keep = progs[1];
	else if (!strcmp(flavour, "tp"))
		keep = progs[2];
	else {
		fprintf(stderr, "floor: flavour '%s' is not tp_btf, raw_tp or tp\n", flavour);
		floor_bpf__destroy(skel);
		return -EINVAL;
	}
	for (int i = 0; i < 3; i++)
		bpf_program__set_autoload(progs[i], progs[i] == keep);
	if (keep == progs[0]) {
		err = bpf_program__set_attach_target(keep, 0, hook);
		if (err) {
			fprintf(stderr, "floor: the kernel has no tracepoint %s for tp_btf: %s\n",
				hook, strerror(-err));
			floor_bpf__destroy(skel);
			return err;
		}
	}
	err = floor_bpf__load(skel);
	if (err) {
		fprintf(stderr, "floor: loading the program for %s failed: %s\n", spec, strerror(-err));
		floor_bpf__destroy(skel);
		return err;
	}
	if (keep == progs[0]) {
		link = bpf_program__attach(keep);
	} else if (keep == progs[1]) {
		link = bpf_program__attach_raw_tracepoint(keep, hook);
	} else {
		char *slash = strchr(hook, '/');

		if (!slash) {
			fprintf(stderr, "floor: a tp hook is CATEGORY/NAME, not '%s'\n", hook);
			floor_bpf__destroy(skel);
			return -EINVAL;
		}
		*slash = '\0';
		link = bpf_program__attach_tracepoint(keep, hook, slash + 1);
	}
	if (!link) {
		err = -errno;
		fprintf(stderr, "floor: attaching to %s failed: %s\n", spec, strerror(errno));
		floor_bpf__destroy(skel);
		return err;
	}
	skel->links.floor_tp_btf = keep == progs[0] ? link : NULL;
	skel->links.floor_raw_tp = keep == progs[1] ? link : NULL;
	skel->links.floor_tp = keep == progs[2] ? link : NULL;
	*out = skel;
	return 0;
}

int main(int argc, char **argv)
{
	struct floor_bpf **skels;
	int ret = 0, n = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: floor FLAVOUR:HOOK...\n");
		return 2;
	}
	sigset_t ending, before;

	/* Held until sigsuspend(), so a signal cannot slip in before the wait. */
	sigemptyset(&ending);
	sigaddset(&ending, SIGINT);
	sigaddset(&ending, SIGTERM);
	sigprocmask(SIG_BLOCK, &ending, &before);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	skels = calloc(argc - 1, sizeof(*skels));
	if (!skels)
		return 1;
	for (int i = 1; i < argc && !ret; i++)
		if (attach_one(argv[i], &skels[n]) == 0)
			n++;
		else
			ret = 1;
	if (!ret) {
		if (printf("ready\n") < 0 || fflush(stdout)) {
			fprintf(stderr, "floor: writing 'ready' failed: %s\n", strerror(errno));
			ret = 1;
		}
		while (!ret && !stop)
			sigsuspend(&before);
	}
	for (int i = 0; i < n; i++)
		floor_bpf__destroy(skels[i]);
	free(skels);
	return ret;
}
