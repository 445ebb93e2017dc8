#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# bench/guest.sh: make bench's scaling runs, inside one QEMU guest (busybox
# sh; installed as the guest's test script by bench/bench.py). For each
# tracer, with an empty program attached beside it on the same tracepoints
# (bench/floor), the workload runs once and every new program's run_cnt and
# run_time_ns (kernel.bpf_stats_enabled, switched on by /init) are printed:
#   BENCH topology cpus=N llc=N llcs=N nodes=N
#   BENCH specs floor:LABEL FLAVOUR:HOOK...   (the floor's, in its program order)
#   BENCH prog LABEL NAME RUN_CNT RUN_TIME_NS
#   BENCH steps LABEL JSON                    (bpftool -j map dump of sisscan's llc_walk_steps)
#   BENCH error LABEL WHY
# bench.py turns them into ns per wakeup and ratios to the floor. TCG
# inflates every absolute figure: only ratios mean something.
B=/schedscan
WL=$B/workloads
export PATH=$B:$WL:$PATH
ROUNDS=${SCHEDSCAN_BENCH_ROUNDS:-20000}

cpus=$(grep -c '^processor' /proc/cpuinfo)
llc_list=$(cat /sys/devices/system/cpu/cpu0/cache/index3/shared_cpu_list 2>/dev/null)
# "0-3" or "0,2" or "0-3,8-11": the number of CPUs it names
llc=$(echo "${llc_list:-0}" | tr ',' '\n' | awk -F- '{ n += ($2 == "" ? 1 : $2 - $1 + 1) } END { print n }')
llcs=$(cat /sys/devices/system/cpu/cpu*/cache/index3/shared_cpu_list 2>/dev/null | sort -u | wc -l)
nodes=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l)
echo "BENCH topology cpus=$cpus llc=$llc llcs=$llcs nodes=$nodes"

prog_ids() { bpftool prog show 2>/dev/null | sed -n 's/^\([0-9]*\):.*/\1/p'; }
# Ids of sisscan's llc_walk_steps maps (a finished tracer's may linger a
# moment while the kernel frees it).
walk_map_ids() { bpftool map show 2>/dev/null | sed -n 's/^\([0-9]*\):.* name llc_walk_steps .*/\1/p'; }

# The workload: an unpinned ping-pong (wakeups within an LLC, the walk's
# case) and hackbench (many tasks over every CPU).
workload() {
    pingpong -n "$ROUNDS" >/dev/null 2>&1
    hackbench -g 2 -l 50 >/dev/null 2>&1
}

# start_attached READY CMD...: CMD in the background until it is attached
# (READY: "fd", it writes to --ready-fd 3; "line", it prints "ready");
# its pid in started. Fails with its last error line in /tmp/why.
start_attached() {
    ready=$1
    shift
    : >/tmp/ready
    if [ "$ready" = fd ]; then
        "$@" --ready-fd 3 3>/tmp/ready >/dev/null 2>/tmp/tracer.err &
    else
        "$@" >/tmp/ready 2>/tmp/tracer.err &
    fi
    started=$!
    i=0
    while [ ! -s /tmp/ready ] && kill -0 $started 2>/dev/null && [ $i -lt 1200 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    [ -s /tmp/ready ] && return 0
    tail -n 1 /tmp/tracer.err | tr -s ' ' | cut -c 1-160 >/tmp/why
    kill -INT $started 2>/dev/null
    wait $started
    return 1
}

# progs LABEL EXCLUDE: "BENCH prog LABEL NAME RUN_CNT RUN_TIME_NS" for the
# programs whose ids are not in EXCLUDE (" id id ... "), in id order.
progs() {
    bpftool prog show 2>/dev/null | awk -v label="$1" -v before="$2" '
        /^[0-9]+:/ {
            id = $1; sub(/:$/, "", id)
            if (index(before, " " id " ")) next
            name = "?"; cnt = 0; ns = 0
            for (k = 2; k < NF; k++) {
                if ($k == "name") name = $(k + 1)
                if ($k == "run_cnt") cnt = $(k + 1)
                if ($k == "run_time_ns") ns = $(k + 1)
            }
            print "BENCH prog " label " " name " " cnt " " ns
        }'
}

# run LABEL CMD...: the tracer and, attached beside it on the tracepoints
# its programs use (<hook>__<flavour> names), the floor, so that both see
# the same workload at the same time; then both programs' counts.
run() {
    label=$1
    shift
    before=" $(prog_ids | tr '\n' ' ') "
    walk_before=" $(walk_map_ids | tr '\n' ' ') "
    if ! start_attached fd "$@"; then
        echo "BENCH error $label $(cat /tmp/why)"
        return 1
    fi
    tracer=$started
    progs "$label" "$before" >/tmp/tracer.progs
    mine=" $(prog_ids | tr '\n' ' ') "
    specs=$(sed -nE "s/^BENCH prog $label ([a-z0-9_]*)__(tp_btf|raw_tp) .*/\2:\1/p" /tmp/tracer.progs | sort -u)
    floor=""
    if [ -n "$specs" ]; then
        # In the order the floor loads them, which is the order of its programs.
        echo "BENCH specs floor:$label" $specs
        if start_attached line "$B/floor" $specs; then
            floor=$started
        else
            echo "BENCH error floor:$label $(cat /tmp/why)"
        fi
    fi
    workload
    progs "$label" "$before" | grep -v " floor_" 
    for id in $(walk_map_ids); do
        case "$walk_before" in *" $id "*) continue ;; esac
        echo "BENCH steps $label $(bpftool -j map dump id "$id" 2>/dev/null | tr -d ' \n')"
    done
    [ -n "$floor" ] && progs "floor:$label" "$mine"
    [ -n "$floor" ] && kill -INT $floor 2>/dev/null && wait $floor
    kill -INT $tracer 2>/dev/null
    wait $tracer
}

run sisscan sisscan --mode tracepoint
run sisscan:fentry sisscan --mode fentry
run sisscan:fentry:filters sisscan --mode fentry --filter ideal,unoccupied_tick,overloaded,delayed
run idlebal idlebal --mode tracepoint
echo "BENCH done"
