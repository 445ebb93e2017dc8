#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The tracepoint tier's last fallback, the classic tracepoint, exercised on
# this kernel by skipping tp_btf and raw_tp (SCHEDSCAN_SKIP_FLAVOURS); the
# raw_tp fallback is checked against perf in test_counts.sh.
source "$(dirname "$0")/lib.sh"

ensure_tracefs
"$BUILD/workloads/pingpong" -n 100000000 >/dev/null &
at_exit "kill $!"
skip_all=tp_btf,raw_tp

for pair in sisscan:wakeups:sched_waking idlebal:migrations:sched_migrate_task; do
	IFS=: read -r tool metric tp <<<"$pair"
	SCHEDSCAN_SKIP_FLAVOURS=$skip_all "$BIN/$tool" --json -i 0.5 -d 2 >"$WORK/out" 2>"$WORK/err"
	status=$?
	check "$tool, classic tracepoint only: exit 0" [ $status -eq 0 ]
	check "$tool, classic tracepoint only: $metric reported with tier tracepoint" \
		[ "$(tier_of "$WORK/out" $metric)" = tracepoint ]
	json_valid "$tool, classic tracepoint only: JSON valid, intervals add up" "$WORK/out"
	# The classic record has no task pointer: a task filter is refused, not ignored.
	expect_error 1 "^$tool: cannot attach to tracepoint $tp: .*tracepoint: cannot filter by PID, task name or cgroup" \
		"$tool -p with only the classic tracepoint: exit 1, filter refused with the reason" \
		env SCHEDSCAN_SKIP_FLAVOURS=$skip_all "$BIN/$tool" -p $$ -d 0.5
done
# sisscan under load must have seen wakeups through the classic flavour.
SCHEDSCAN_SKIP_FLAVOURS=$skip_all "$BIN/sisscan" --json -d 1 >"$WORK/out" 2>/dev/null
check "sisscan classic tracepoint counts wakeups under load ($(metric "$WORK/out" wakeups))" \
	[ "$(metric "$WORK/out" wakeups)" -gt 1000 ]

# numascan's page_fault_user has no classic flavour: a clear error.
expect_error 1 "^numascan: cannot attach to tracepoint page_fault_user: tp_btf: skipped" \
	"numascan without tp_btf and raw_tp: exit 1 naming page_fault_user" \
	env SCHEDSCAN_SKIP_FLAVOURS=$skip_all "$BIN/numascan" -d 0.5
finish
