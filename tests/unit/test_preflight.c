// SPDX-License-Identifier: GPL-2.0
#include "preflight.h"
#include "unit.h"

/* The log libbpf printed for idlebal -C before the cpu_selected() fix. */
static const char refused_log[] =
	"0: R1=ctx() R10=fp0\n"
	"; TRACEPOINT_HOOK(sched_migrate_task, count_migration(task, dest_cpu), @ idlebal.bpf.c:31\n"
	"16: (0f) r4 += r3\n"
	"invalid access to map value, value_size=1068 off=536870936 size=8\n"
	"R4 max value is outside of the allowed memory range\n"
	"processed 15 insns (limit 1000000) max_states_per_insn 0 total_states 0 "
	"peak_states 0 mark_read 0\n";

static void test_reason_is_the_last_two_lines_before_the_statistics(void)
{
	char out[256];

	verifier_log_reason(refused_log, out, sizeof(out));
	CHECK_STR(out, "invalid access to map value, value_size=1068 off=536870936 size=8; "
		       "R4 max value is outside of the allowed memory range");
}

static void test_reason_of_a_log_without_statistics(void)
{
	char out[256];

	/* A truncated log: its last lines are the best guess. */
	verifier_log_reason("a\nb\nc\n\n", out, sizeof(out));
	CHECK_STR(out, "b; c");
	verifier_log_reason("only line", out, sizeof(out));
	CHECK_STR(out, "only line");
	verifier_log_reason("", out, sizeof(out));
	CHECK_STR(out, "");
}

static void test_reason_is_cut_to_the_buffer(void)
{
	char out[12];

	verifier_log_reason(refused_log, out, sizeof(out));
	CHECK_STR(out, "invalid acc");
	verifier_log_reason(refused_log, out, 1);
	CHECK_STR(out, "");
}

UNIT_MAIN(UNIT_TEST(test_reason_is_the_last_two_lines_before_the_statistics),
	  UNIT_TEST(test_reason_of_a_log_without_statistics),
	  UNIT_TEST(test_reason_is_cut_to_the_buffer))
