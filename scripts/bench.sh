#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make bench: what the tools cost, measured on this machine and printed
# side by side with bcc's libbpf-tools runqlat on the same hooks:
#   - ns/event of each BPF program (kernel bpf_prog_info run_time_ns/run_cnt)
#   - slowdown of a wakeup-heavy benchmark (pingpong round trips/s)
#   - start-up time (exec -> attached banner) and peak RSS
# Nothing here is a pass/fail test; the numbers go to stdout.
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
ROUND_TRIPS=${BENCH_ROUND_TRIPS:-200000}
REPEAT=${BENCH_REPEAT:-3}

[ "$(id -u)" -eq 0 ] || { echo "bench: run as root" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Median wall time (s) of REPEAT pingpong runs.
pingpong_seconds() {
	for _ in $(seq 1 "$REPEAT"); do
		s=$(date +%s%N)
		"$BUILD/workloads/pingpong" -n "$ROUND_TRIPS" >/dev/null
		echo "$(( $(date +%s%N) - s ))"
	done | sort -n | awk '{ v[NR] = $1 } END { printf "%.3f", v[int((NR + 1) / 2)] / 1e9 }'
}

# run_traced CMD...: pingpong time while CMD (a tracer) runs.
run_traced() {
	"$@" >"$work/tracer.out" 2>&1 &
	local tracer=$!
	sleep 1.5
	pingpong_seconds
	kill -INT $tracer 2>/dev/null
	wait $tracer 2>/dev/null
}

echo "schedscan bench on $(uname -r), $(nproc) CPUs, pingpong $ROUND_TRIPS round trips, median of $REPEAT"
base=$(pingpong_seconds)
printf '%-34s %9s s  %8s\n' "pingpong, nothing attached" "$base" "-"

# sisscan: every program's ns/event, and their total per wakeup
# (the sum of run_time_ns over the wakeups counted).
sisscan_run() {	# sisscan_run LABEL ARGS...
	local label=$1 time
	shift
	time=$(run_traced "$BUILD/sisscan" --stats "$@")
	printf '%-34s %9s s  %+7.1f%%\n' "$label" "$time" \
		"$(awk -v a="$time" -v b="$base" 'BEGIN { print (a / b - 1) * 100 }')"
	awk '/^wakeups / { wakeups = $3 }
	     /__(tp_btf|raw_tp|tp|fentry|fexit|kprobe|kretprobe) / { printf "  %s: %s ns/event\n", $1, $4; total += $3 }
	     END { if (wakeups) printf "  all programs: %.0f ns per wakeup\n", total / wakeups }' "$work/tracer.out"
}
sisscan_run "pingpong under sisscan"
sisscan_run "pingpong under sisscan --filter x4" --filter ideal,unoccupied,overloaded,delayed

if command -v runqlat >/dev/null; then
	sysctl -q kernel.bpf_stats_enabled=1
	runqlat >"$work/runqlat.out" 2>&1 &
	rq=$!
	sleep 1.5
	rq_time=$(pingpong_seconds)
	bpftool prog show -j >"$work/progs.json"
	kill -INT $rq
	wait $rq 2>/dev/null
	sysctl -q kernel.bpf_stats_enabled=0
	printf '%-34s %9s s  %+7.1f%%\n' "pingpong under runqlat (bcc)" "$rq_time" \
		"$(awk -v a="$rq_time" -v b="$base" 'BEGIN { print (a / b - 1) * 100 }')"
	jq -r '[.[] | select(.name == "sched_wakeup" or .name == "sched_switch" or .name == "handle_sched_wakeup" or .name == "handle_sched_switch") |
		select(.run_cnt > 0)] |
		(.[] | "  runqlat \(.name): \(.run_time_ns / .run_cnt | floor) ns/event"),
		"  all programs: \(([.[].run_time_ns] | add) / ([.[] | select(.name | test("wakeup")) | .run_cnt] | add) | floor) ns per wakeup"' "$work/progs.json"
else
	echo "  (libbpf-tools not installed: no runqlat comparison)"
fi

for tool in sisscan idlebal numascan; do
	times=()
	for _ in 1 2 3 4 5; do
		s=$(date +%s%N)
		"$BUILD/$tool" >"$work/start.txt" 2>&1 &
		pid=$!
		while ! grep -q '^Tracing' "$work/start.txt" && kill -0 $pid 2>/dev/null; do sleep 0.002; done
		times+=($(( ($(date +%s%N) - s) / 1000000 )))
		kill -INT $pid
		wait $pid
	done
	median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 3p)
	rss=$(/usr/bin/time -f %M "$BUILD/$tool" -d 0.3 2>&1 >/dev/null | tail -1)
	printf '%-10s start-up (exec -> attached) median %4s ms, peak RSS %s KB\n' "$tool" "$median" "$rss"
done
