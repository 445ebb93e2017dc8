#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make demo: runs each tool for a few seconds on this machine while a
# bundled workload runs, and prints what they report.
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
SECONDS_PER_TOOL=${DEMO_SECONDS:-4}

if [ "$(id -u)" -ne 0 ]; then
	echo "demo: the tools load BPF programs: run as root" >&2
	exit 1
fi
pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null; }
trap cleanup EXIT

banner() { printf '\n==== %s ====\n' "$*"; }

banner "sisscan -i 1 -d $SECONDS_PER_TOOL   (pingpong: two processes waking each other over pipes)"
"$BUILD/workloads/pingpong" -n 100000000 >/dev/null &
pids+=($!)
"$BUILD/sisscan" -T --stats 1 "$SECONDS_PER_TOOL"
kill "${pids[@]}" 2>/dev/null
pids=()

banner "idlebal -d $SECONDS_PER_TOOL   (a spinner whose affinity flips between CPUs, plus pingpong)"
"$BUILD/workloads/spinner" -c 0 -s $((SECONDS_PER_TOOL + 2)) &
spin=$!
pids+=($spin)
"$BUILD/workloads/pingpong" -n 100000000 >/dev/null &
pids+=($!)
(for i in $(seq 1 $((SECONDS_PER_TOOL * 10))); do
	taskset -p -c $((i % $(nproc))) $spin >/dev/null 2>&1
	sleep 0.1
done) &
pids+=($!)
"$BUILD/idlebal" --stats -d "$SECONDS_PER_TOOL"
kill "${pids[@]}" 2>/dev/null
pids=()

# NUMA balancing scans only when it is on; restore the setting after.
if [ -w /proc/sys/kernel/numa_balancing ]; then
	old_numa=$(cat /proc/sys/kernel/numa_balancing)
	echo 1 >/proc/sys/kernel/numa_balancing
	trap 'cleanup; echo "$old_numa" >/proc/sys/kernel/numa_balancing' EXIT
fi
banner "numascan --json -i 2 -d $SECONDS_PER_TOOL   (memtouch: 4 threads writing 64 MiB, numa_balancing=1)"
"$BUILD/workloads/memtouch" -t 4 -m 64 -s "$SECONDS_PER_TOOL" >/dev/null &
pids+=($!)
"$BUILD/numascan" --json -i 2 -d "$SECONDS_PER_TOOL"
