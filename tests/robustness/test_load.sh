#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Load: the three tools at once, 300 intervals of 0.1 s, while hackbench
# runs 500 tasks. Their counts of hackbench's events equal perf's within
# 1% (sched_waking and sched_migrate_task of tasks named hackbench: the
# wakee / migrated task, as the tools select with --comm), numascan's row
# of a memory toucher equals the toucher's own getrusage() within 1%,
# losses are counted (recursion misses, dropped rows), and each tool's
# RSS stays flat from interval 50 to interval 250.
source "$(dirname "$0")/../live/lib.sh"

ensure_tracefs
secs=30
perf stat -x, -a -o "$WORK/perf.csv" \
	-e sched:sched_waking --filter 'comm == "hackbench"' \
	-e sched:sched_migrate_task --filter 'comm == "hackbench"' -- sleep $((secs + 8)) &
perf=$!
at_exit "kill -INT $perf"
sleep 1

declare -A tool_pid
for tool in $TOOLS; do
	args=(--comm hackbench)
	[ $tool = numascan ] && args=()
	: >"$WORK/$tool.ready"
	"$BIN/$tool" "${args[@]}" --stats --json -i 0.1 -d $secs --ready-fd 3 3>"$WORK/$tool.ready" \
		>"$WORK/$tool.jsonl" 2>"$WORK/$tool.err" &
	tool_pid[$tool]=$!
	at_exit "kill ${tool_pid[$tool]}"
done
for tool in $TOOLS; do
	for ((i = 0; i < 300; i++)); do [ -s "$WORK/$tool.ready" ] && break; sleep 0.1; done
done
# 500 tasks: 10 groups of 25 senders and 25 receivers, stopped well
# inside the tools' window.
timeout -s INT $((secs - 6)) hackbench -g 10 -f 25 -l 100000000 -s 100 >/dev/null 2>&1 &
hb=$!
at_exit "pkill -P $hb; kill $hb"
"$BUILD/workloads/memtouch" -t 2 -m 64 -s 1 -w 1000 >"$WORK/mt.out" &
mt=$!
# rss_at TOOL N: the tool's RSS once its output holds N interval records
# (or when it exited, leaving none): read against the tool's own progress,
# not the wall clock. Sleeping 5 s and 22 s more read nothing in two
# clean-clone runs: under 500 hackbench tasks on two CPUs the tools had
# printed all 300 intervals and exited before the test's sleep returned.
rss_at() {
	local tool=$1 n=$2 i
	for ((i = 0; i < 600; i++)); do
		[ "$(grep -c '^{"type":"interval"' "$WORK/$tool.jsonl")" -ge "$n" ] && break
		kill -0 "${tool_pid[$tool]}" 2>/dev/null || break
		sleep 0.1
	done
	awk '/^VmRSS:/ { print $2 }' "/proc/${tool_pid[$tool]}/status" 2>/dev/null
}
declare -A rss_early rss_late
for tool in $TOOLS; do rss_early[$tool]=$(rss_at $tool 50); done
for tool in $TOOLS; do rss_late[$tool]=$(rss_at $tool 250); done
wait $mt
mt_pid=$(awk '/memtouch pid/ { print $3 }' "$WORK/mt.out")
mt_faults=$(awk '/memtouch total faults/ { print $4 }' "$WORK/mt.out")
wait $hb
for tool in $TOOLS; do
	wait ${tool_pid[$tool]}
	check "$tool under hackbench (500 tasks) with the other two: exit 0" [ $? -eq 0 ]
done
kill -INT $perf
wait $perf
perf_waking=$(awk -F, '/sched:sched_waking/ { print $1 }' "$WORK/perf.csv")
perf_migrate=$(awk -F, '/sched:sched_migrate_task/ { print $1 }' "$WORK/perf.csv")

kind "ground truth"
got=$(metric "$WORK/sisscan.jsonl" wakeups)
if within "$got" "$perf_waking" 1 && [ "${perf_waking:-0}" -gt 100000 ]; then
	pass "sisscan --comm hackbench: wakeups $got = perf's sched_waking $perf_waking within 1%"
else
	fail "sisscan wakeups vs perf under hackbench" "tool $got, perf $perf_waking"
fi
got=$(metric "$WORK/idlebal.jsonl" migrations)
if within "$got" "$perf_migrate" 1 && [ "${perf_migrate:-0}" -gt 100 ]; then
	pass "idlebal --comm hackbench: migrations $got = perf's sched_migrate_task $perf_migrate within 1%"
else
	fail "idlebal migrations vs perf under hackbench" "tool $got, perf $perf_migrate"
fi
got=$(jq -r --argjson p "${mt_pid:-0}" 'select(.type == "summary") | .processes.rows[] | select(.tgid == $p) | .user_page_faults' "$WORK/numascan.jsonl")
if [ -n "$got" ] && within "$got" "$mt_faults" 1 20 && [ "${mt_faults:-0}" -gt 10000 ]; then
	pass "numascan under hackbench: memtouch's row $got user_page_faults = its rusage $mt_faults within 1% + 20"
else
	fail "numascan memtouch row vs rusage under hackbench" "row '$got', rusage '$mt_faults'"
fi

kind behaviour
for tool in $TOOLS; do
	intervals=$(jq -r 'select(.type == "summary") | .intervals' "$WORK/$tool.jsonl")
	misses=$(jq -r 'select(.type == "summary") | [.prog_stats[].recursion_misses] | add' "$WORK/$tool.jsonl")
	dropped=$(jq -r 'select(.type == "summary") | [.. | objects | .rows_dropped? // empty] | add // 0' "$WORK/$tool.jsonl")
	check "$tool: $intervals intervals, losses counted: recursion misses $misses, rows dropped $dropped" \
		[ "${intervals:-0}" -ge 280 -a -n "$misses" ]
	early=${rss_early[$tool]:-0} late=${rss_late[$tool]:-0}
	check "$tool RSS flat: ${early} kB at interval 50, ${late} kB at 250 (within 5% + 512 kB)" \
		within "$late" "$early" 5 512
done
finish
