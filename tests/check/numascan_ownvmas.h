/* SPDX-License-Identifier: GPL-2.0 */
/*
 * numascan --comm ownvmas over one ownvmas run, the scenario behind
 * numascan's per-VMA known answers (numascan_ownvmas.c, numascan_audit.c).
 */
#ifndef SCHEDSCAN_CHECK_NUMASCAN_OWNVMAS_H
#define SCHEDSCAN_CHECK_NUMASCAN_OWNVMAS_H

#include "harness.h"

struct ownvmas_setup {
	const char *name;	/* tags the run's files */
	const char *args[16];	/* ownvmas', NULL-terminated */
	bool fast_scans;	/* a scan pass every 200 ms at most */
	/* kprobe events schedscan/NAME for the trace (kprobe_event_add()) */
	struct ownvmas_probe {
		char type;
		const char *name, *spec;
	} probes[4];
	int nr_probes;
	const struct trace_event *events;	/* ftrace over the run, or none */
	int nr_events;
};

struct ownvmas_output {
	struct records recs;	/* numascan's; records_free() them */
	const struct jv *summary;
	char wl_out[300], trace_path[300];
	long trace_lost;
};

/*
 * Sets the kernel up as setup says, runs ownvmas to its end under numascan
 * in tier (--comm ownvmas -i 1), and reads numascan's records; ownvmas'
 * output and the trace are left in out's files. 0, or -1 with a sentence.
 */
int ownvmas_under_numascan(const struct ownvmas_setup *setup, enum check_tier tier,
			   struct ownvmas_output *out, char *err, size_t errlen);
/*
 * ownvmas' "ownvmas thread I tid TID start START end END" lines for its
 * threads 0 .. nr_threads - 1 (tid[], start[]: the buffer's), and with
 * late its "ownvmas late at SECONDS" (-L); 0, or -1 with a sentence when
 * one is missing.
 */
int ownvmas_threads_read(const char *path, int nr_threads, long tid[], unsigned long long start[],
			 double *late, char *err, size_t errlen);
/* The vmas row of the buffer that starts at start, or NULL. */
const struct jv *vma_row(const struct jv *rec, unsigned long long start);

#endif
