# SPDX-License-Identifier: GPL-2.0
# Helpers for the live tests (sourced). Each check prints one TAP line.
set -uo pipefail

BUILD=${SCHEDSCAN_BUILD:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/build}
# The tools under test: the release build, or the test build
# (build/san) that the mutation selftest runs with SCHEDSCAN_MUTATION.
BIN=${SCHEDSCAN_BIN:-$BUILD}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
WORK=$(mktemp -d /tmp/schedscan-live.XXXXXX)
TOOLS="sisscan idlebal numascan"
test_number=0
failures=0
cleanup_cmds=()

cleanup() {
	local i
	for ((i = ${#cleanup_cmds[@]} - 1; i >= 0; i--)); do
		eval "${cleanup_cmds[$i]}" >/dev/null 2>&1 || true
	done
	rm -rf "$WORK"
}
trap cleanup EXIT

at_exit() {
	cleanup_cmds+=("$1")
}

# The kind of the checks that follow, printed as a tag ("[ground truth]",
# "[known answer]", "[consistency]", "[environment]"; "behaviour" is
# untagged) and counted apart by tests/run-suites.sh:
#   ground truth  against a count the tool did not compute (perf, bpftrace,
#                 /proc, the workload's own count)
#   known answer  a scenario whose result follows from the kernel source
#   consistency   the tool against itself
#   environment   the machine, not the tool
kind=behaviour
kind() { kind=$1; }
tag() { [ "$kind" = behaviour ] && echo "$1" || echo "$1 [$kind]"; }

# pass DESC / fail DESC [DETAIL]
pass() {
	test_number=$((test_number + 1))
	echo "ok $test_number - $(tag "$1")"
}

# skip DESC WHY: a check that cannot run here, said and counted.
skip() {
	test_number=$((test_number + 1))
	echo "ok $test_number - $(tag "$1") # SKIP $2"
}

fail() {
	test_number=$((test_number + 1))
	failures=$((failures + 1))
	echo "not ok $test_number - $(tag "$1")"
	[ $# -gt 1 ] && echo "#   $2"
	return 0
}

# check DESC CMD...: pass if CMD succeeds.
check() {
	local desc=$1
	shift
	if "$@"; then pass "$desc"; else fail "$desc" "failed: $*"; fi
}

# within GOT WANT PERCENT [ABS]: |GOT-WANT| <= WANT*PERCENT/100 + ABS
within() {
	awk -v g="$1" -v w="$2" -v p="$3" -v a="${4:-0}" \
		'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d <= w * p / 100 + a) }'
}

# stop_bpftrace PID: SIGINT (bpftrace prints its maps and exits), again
# every second while it lives, SIGTERM after 30 s, then reaped. bpftrace
# 0.17 can lose a SIGINT: once a test_numascan run waited 15 minutes for a
# bpftrace whose probe had stopped firing (it exited at the SIGTERM of the
# test's cleanup), the SIGINT sent as the workload ended lost.
stop_bpftrace() {
	local pid=$1 tries
	for tries in $(seq 1 30); do
		kill -INT "$pid" 2>/dev/null || break
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			kill -0 "$pid" 2>/dev/null || break 2
			sleep 0.1
		done
		echo "# bpftrace $pid still running 1 s after SIGINT $tries; sending it again" >&2
	done
	kill -0 "$pid" 2>/dev/null && kill -TERM "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	return 0
}

# check_json FILE [ARGS]: validate against docs/json.md with Debian's python3
# and python3-jsonschema (make deps), whatever python3 comes first in PATH.
check_json() {
	/usr/bin/python3 "$ROOT/tests/check_json.py" "$@"
}

# json_valid DESC FILE [ARGS]: one TAP line for check_json's verdict.
json_valid() {
	local desc=$1 out
	shift
	if out=$(check_json "$@"); then pass "$desc"; else fail "$desc" "$out"; fi
}

# expect_error STATUS REGEX DESC CMD...: CMD must exit with STATUS and say
# REGEX (grep) on stderr; its output is left in $WORK/out and $WORK/err.
expect_error() {
	local want=$1 regex=$2 desc=$3 status
	shift 3
	"$@" >"$WORK/out" 2>"$WORK/err"
	status=$?
	if [ $status -eq "$want" ] && grep -q -- "$regex" "$WORK/err"; then
		pass "$desc"
	else
		fail "$desc" "status $status: $(head -c 300 "$WORK/err")"
	fi
}

# metric FILE NAME: the summary record's value of a counter metric.
metric() {
	jq -r --arg m "$2" 'select(.type == "summary") | .metrics[$m].value // "absent"' "$1"
}

tier_of() {
	jq -r --arg m "$2" 'select(.type == "summary") | .metrics[$m].tier // "absent"' "$1"
}

# Mounts tracefs for perf's tracepoint events, and unmounts it afterwards
# if it was not mounted before.
ensure_tracefs() {
	if [ ! -d /sys/kernel/tracing/events ]; then
		mount -t tracefs nodev /sys/kernel/tracing &&
			at_exit "umount /sys/kernel/tracing"
	fi
}

# trace_start / trace_stop FILE: the kernel's scheduler events in the
# ftrace buffer, on the monotonic clock (call ensure_tracefs first), saved
# to FILE: tests/live/ftrace_unoccupied.py rebuilds from them when a CPU
# was unoccupied, without a tool's runqueue counters. trace_stop sets
# mono_minus_real. mono_now: CLOCK_MONOTONIC, the trace's clock.
TRACEFS=/sys/kernel/tracing
SCHED_EVENTS="sched_switch sched_wakeup sched_wakeup_new sched_migrate_task"
trace_start() {
	local e
	echo 0 >"$TRACEFS/tracing_on"
	old_clock=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$TRACEFS/trace_clock")
	echo mono >"$TRACEFS/trace_clock"
	: >"$TRACEFS/trace"
	for e in $SCHED_EVENTS; do echo 1 >"$TRACEFS/events/sched/$e/enable"; done
	echo 1 >"$TRACEFS/tracing_on"
}
trace_stop() {
	local e
	echo 0 >"$TRACEFS/tracing_on"
	cat "$TRACEFS/trace" >"$1"
	for e in $SCHED_EVENTS; do echo 0 >"$TRACEFS/events/sched/$e/enable"; done
	: >"$TRACEFS/trace"
	echo "${old_clock:-local}" >"$TRACEFS/trace_clock"
	echo 1 >"$TRACEFS/tracing_on"
	# CLOCK_MONOTONIC - CLOCK_REALTIME, to put the tool's interval times
	# on the trace's clock.
	mono_minus_real=$(python3 -c 'import time; print(time.clock_gettime(time.CLOCK_MONOTONIC) - time.time())')
}
mono_now() { python3 -c 'import time; print(f"{time.monotonic():.6f}")'; }

# memtouch_start: a 2-thread, 32 MB memory toucher that waits 0.5 s before
# touching; sets mt and pid (its pid) once it has said it. memtouch_wait:
# waits for it (in this shell: not in $(...), whose subshell cannot wait)
# and sets want to its own rusage fault count (minflt + majflt).
memtouch_start() {
	"$BUILD/workloads/memtouch" -t 2 -m 32 -s 0.5 -w 1000 >"$WORK/mt.out" &
	mt=$!
	at_exit "kill $mt"
	sleep 0.3
	pid=$(awk '/memtouch pid/ { print $3 }' "$WORK/mt.out")
}

memtouch_wait() {
	wait $mt
	want=$(awk '/memtouch total faults/ { print $4 }' "$WORK/mt.out")
}

# start_tool OUT ERR TOOL ARGS...: TOOL (from $BIN) in the background,
# its pid in tool; returns once it says it is tracing (--ready-fd 3), so
# the workload that follows is wholly inside its window. Fails if the
# tool exits first or takes over 60 s.
start_tool() {
	local out=$1 err=$2 name=$3 i
	shift 3
	: >"$WORK/ready"
	"$BIN/$name" "$@" --ready-fd 3 3>"$WORK/ready" >"$out" 2>"$err" &
	tool=$!
	for ((i = 0; i < 600; i++)); do
		[ -s "$WORK/ready" ] && return 0
		kill -0 $tool 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# stop_tool: SIGINT to the tool start_tool started; its exit status in status.
stop_tool() {
	kill -INT $tool 2>/dev/null
	wait $tool
	status=$?
}

bpf_prog_count() {
	bpftool prog show 2>/dev/null | grep -c '^[0-9]*:'
}

# bpf_objects: the numbers of BPF programs, maps and links, on one line.
bpf_objects() {
	local kind
	for kind in prog map link; do
		bpftool $kind show 2>/dev/null | grep -c '^[0-9]*:'
	done | paste -s -d ' '
}

# bpf_objects_quiet: bpf_objects once two reads 0.2 s apart agree (up to
# 10 s): the baseline of a leak check, not a count caught while an earlier
# test's objects are still being freed (a CI run took "0 15 0" as sisscan's
# baseline, 15 maps of the test before it that were gone by its end).
bpf_objects_quiet() {
	local last now i
	last=$(bpf_objects)
	for ((i = 0; i < 50; i++)); do
		sleep 0.2
		now=$(bpf_objects)
		[ "$now" = "$last" ] && break
		last=$now
	done
	echo "$now"
}

# bpf_objects_within AFTER BEFORE: no kind of object (programs, maps,
# links) counts more after than before: nothing of the tool's stayed
# (fewer is another process's objects going away meanwhile).
bpf_objects_within() {
	local -a a=($1) b=($2)
	local k
	[ ${#a[@]} -eq 3 ] && [ ${#b[@]} -eq 3 ] || return 1
	for k in 0 1 2; do
		[ "${a[k]}" -le "${b[k]}" ] || return 1
	done
}

# bpf_objects_settled BEFORE: waits (up to 10 s: the kernel frees BPF
# objects asynchronously) until bpf_objects is within BEFORE again
# (bpf_objects_within, the leak checks' rule); prints it.
bpf_objects_settled() {
	local now i
	for ((i = 0; i < 100; i++)); do
		now=$(bpf_objects)
		bpf_objects_within "$now" "$1" && break
		sleep 0.1
	done
	echo "$now"
}

finish() {
	echo "1..$test_number"
	[ "$failures" -eq 0 ]
}
