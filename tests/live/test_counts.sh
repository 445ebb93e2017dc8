#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The tracepoint-tier counts of the three tools against ground truth the
# tools did not compute: perf's own tracepoint counter, the number of
# migrations a workload forces, and the kernel's rusage fault count.
source "$(dirname "$0")/lib.sh"

ensure_tracefs

# sisscan: wakeups of one process = perf stat's count of sched_waking
# with the same wakee, over the same window (tolerance 1%), in the tp_btf
# flavour and, with tp_btf skipped, in the raw_tp flavour.
wakeups_against_perf() {   # wakeups_against_perf FLAVOUR
	local flavour=$1 skip= pp parent perf_pid status want got
	[ "$flavour" = raw_tp ] && skip=tp_btf
	"$BUILD/workloads/pingpong" -n 20000 -w 1500 >"$WORK/pp.out" &
	pp=$!
	sleep 0.3
	parent=$(awk '/pingpong pid/ { print $3 }' "$WORK/pp.out")
	perf stat -x, -e sched:sched_waking --filter "pid == $parent" -a -o "$WORK/perf.csv" -- sleep 5 &
	perf_pid=$!
	SCHEDSCAN_SKIP_FLAVOURS=$skip "$BIN/sisscan" -p "$parent" --json -i 1 -d 5 \
		>"$WORK/sisscan.jsonl" 2>"$WORK/sisscan.err"
	status=$?
	wait $perf_pid 2>/dev/null
	wait $pp
	want=$(awk -F, '/sched:sched_waking/ { print $1 }' "$WORK/perf.csv")
	got=$(metric "$WORK/sisscan.jsonl" wakeups)
	check "sisscan ($flavour) exits 0" [ $status -eq 0 ]
	check "sisscan reports tier $flavour" [ "$(tier_of "$WORK/sisscan.jsonl" wakeups)" = "$flavour" ]
	# Not every round trip wakes the parent (the byte may arrive before it sleeps).
	kind "ground truth"
	if [ -n "$want" ] && [ "$want" -gt 5000 ] 2>/dev/null && within "$got" "$want" 1; then
		pass "sisscan -p ($flavour): wakeups $got = perf sched_waking $want (within 1%)"
	else
		fail "sisscan -p ($flavour): wakeups vs perf" "sisscan $got, perf '$want' (expected > 5000)"
	fi
	kind consistency
	json_valid "sisscan --json -i 1 -d 5 ($flavour): 5 intervals + summary, valid against docs/json.md, intervals add up" "$WORK/sisscan.jsonl" --expect-intervals 5
	kind behaviour
}
wakeups_against_perf tp_btf
wakeups_against_perf raw_tp

# sisscan -c: the wakees of a cgroup (parent and child) against perf.
cg2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
cg=$cg2/schedscan-live-$$
if [ -n "$cg2" ] && mkdir "$cg" 2>/dev/null; then
	at_exit "rmdir $cg"
	(echo $BASHPID >"$cg/cgroup.procs" && exec "$BUILD/workloads/pingpong" -n 10000 -w 1500) >"$WORK/pp2.out" &
	pp=$!
	sleep 0.3
	parent=$(awk '/pingpong pid/ { print $3 }' "$WORK/pp2.out")
	child=$(awk '/pingpong pid/ { print $5 }' "$WORK/pp2.out")
	perf stat -x, -e sched:sched_waking --filter "pid == $parent || pid == $child" -a \
		-o "$WORK/perf2.csv" -- sleep 4 &
	perf_pid=$!
	"$BIN/sisscan" -c "$cg" --json -d 4 >"$WORK/cg.jsonl" 2>"$WORK/cg.err"
	wait $perf_pid
	wait $pp
	want=$(awk -F, '/sched:sched_waking/ { print $1 }' "$WORK/perf2.csv")
	got=$(metric "$WORK/cg.jsonl" wakeups)
	kind "ground truth"
	if [ -n "$want" ] && [ "$want" -gt 10000 ] 2>/dev/null && within "$got" "$want" 1; then
		pass "sisscan -c CGROUP: wakeups $got = perf $want for the cgroup's tasks (within 1%)"
	else
		fail "sisscan -c CGROUP: wakeups vs perf" "sisscan $got, perf '$want'"
	fi
else
	fail "sisscan -c: cannot create a test cgroup in the cgroup2 mount ('$cg2')"
fi

# idlebal: migrations of a spinner whose affinity is flipped between two
# CPUs, against perf's count of sched_migrate_task for it. perf starts
# first and stops last so both windows hold every flip.
flips=40
"$BUILD/workloads/spinner" -c 0 -s 60 &
spin=$!
at_exit "kill $spin"
perf stat -x, -e sched:sched_migrate_task --filter "pid == $spin" -a \
	-o "$WORK/perf3.csv" -- sleep 60 &
perf_pid=$!
at_exit "kill $perf_pid"
sleep 1.5
"$BIN/idlebal" -p "$spin" --json >"$WORK/idlebal.jsonl" 2>"$WORK/idlebal.err" &
tracer=$!
sleep 1
for i in $(seq 1 $flips); do
	taskset -p -c $((i % 2)) "$spin" >/dev/null
	sleep 0.03
done
sleep 0.5
# Ctrl-C ends the run with a summary (end_reason "signal").
kill -INT $tracer
wait $tracer
status=$?
sleep 0.5
kill -INT $(pgrep -P $perf_pid sleep) 2>/dev/null || kill -INT $perf_pid
wait $perf_pid 2>/dev/null
kill $spin 2>/dev/null
want=$(awk -F, '/sched:sched_migrate_task/ { print $1 }' "$WORK/perf3.csv")
got=$(metric "$WORK/idlebal.jsonl" migrations)
check "idlebal exits 0 on SIGINT" [ $status -eq 0 ]
check "idlebal's summary says it ended by a signal" \
	[ "$(jq -r 'select(.type == "summary") | .end_reason' "$WORK/idlebal.jsonl")" = signal ]
# Each flip migrates the spinner at most once; a flip can find it already
# moving, so perf is the reference, not the number of flips.
kind "ground truth"
if [ -n "$want" ] && [ "$want" -ge $((flips / 2)) ] 2>/dev/null && [ "$want" -le $flips ] &&
	within "$got" "$want" 0 1; then
	pass "idlebal -p: migrations $got = perf sched_migrate_task $want (+-1) for $flips affinity flips"
else
	fail "idlebal -p: migrations vs perf" "idlebal $got, perf '$want', flips $flips"
fi
# Each of those migrations moves the running spinner off a CPU it may no
# longer use: every one is an affinity move (sched_setaffinity()).
affinity=$(jq -r 'select(.type == "summary") | [.migration_causes.rows[] |
	select(.cause == "affinity") | .migrations] | add // 0' "$WORK/idlebal.jsonl")
kind "known answer"
if [ -n "$got" ] && [ "$got" -gt 0 ] 2>/dev/null && [ "$affinity" = "$got" ]; then
	pass "idlebal -p: migration_causes: all $got migrations of the flipped spinner are affinity moves"
else
	fail "idlebal -p: the flipped spinner's migrations are affinity moves" \
		"affinity '$affinity' of '$got': $(jq -c 'select(.type == "summary") | .migration_causes.rows' "$WORK/idlebal.jsonl")"
fi
kind consistency
json_valid "idlebal JSON valid against docs/json.md" "$WORK/idlebal.jsonl"
kind behaviour

# numascan: page faults of a process = the kernel's rusage count for it
# (minflt + majflt, all threads, from before its first touch to exit).
memtouch_start
"$BIN/numascan" -p "$pid" --json -i 0.5 -d 3 >"$WORK/numascan.jsonl" 2>"$WORK/numascan.err"
status=$?
memtouch_wait
got=$(metric "$WORK/numascan.jsonl" user_page_faults)
check "numascan exits 0" [ $status -eq 0 ]
kind "ground truth"
if [ -n "$want" ] && [ "$want" -ge 8192 ] 2>/dev/null && within "$got" "$want" 1 20; then
	pass "numascan -p: user_page_faults $got = rusage faults $want (within 1% + 20)"
else
	fail "numascan -p: user_page_faults vs rusage" "numascan $got, rusage '$want'"
fi
kind consistency
json_valid "numascan JSON valid against docs/json.md, intervals add up" "$WORK/numascan.jsonl" --expect-intervals 6
kind behaviour
check "numascan reports the tier of each metric" [ "$(tier_of "$WORK/numascan.jsonl" user_page_faults)" = tp_btf ]
finish
