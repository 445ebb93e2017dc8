#!/bin/sh
# guest-tests.sh: schedscan tests inside a QEMU guest (busybox sh, run by /init).
#
# Prints TAP on stdout: "ok N - desc" / "not ok N - desc", diagnostics as "# ..."
# lines, and the plan "1..N" at the end. It also dumps /proc/schedstat and
# /proc/vmstat between
#   === SCHEDSCAN FILE BEGIN <name>
#   === SCHEDSCAN FILE END <name> lines=<n> md5=<md5sum>
# markers so the host can save them as fixtures.
#
# Environment (set on the kernel command line, see run-guest.sh):
#   SCHEDSCAN_TOOLS     comma list, default sisscan,idlebal,numascan
#   SCHEDSCAN_MODES     comma list, default fentry,kprobe,tracepoint
#   SCHEDSCAN_BIN       where the tools are, default /schedscan
#   SCHEDSCAN_MUTATIONS comma list: run only the mutation selftest's checks,
#                       once per mutation (test-build tools, lib/mutation.h)
#   SCHEDSCAN_SMT=1     run only the SMT stage checks (sis_smt_checks; the
#                       guest must have SMT pairs {0,1} {2,3} in LLC {0-3})
#   SCHEDSCAN_SELECTION=1  with SCHEDSCAN_SMT=1: the selection options too
#                       (selection_checks; vmcheck asks one boot for them)
#   SCHEDSCAN_FILTER_REAL=1  run only the real SIS_FILTER checks
#                       (sis_filter_real_checks; the patched kernel)
#   SCHEDSCAN_FILTER_REAL_V4=1  the same for the v4 port (SIS_FILTER_V4,
#                       the patched kernel booted with SMT)
#   SCHEDSCAN_ONLY      comma list of FUNCTION[:ARG[:ARG]]: run only those check
#                       functions (a developer's narrowed boot, never CI's)

BIN=${SCHEDSCAN_BIN:-/schedscan}
WL=$BIN/workloads
TOOLS=$(echo "${SCHEDSCAN_TOOLS:-sisscan,idlebal,numascan}" | tr ',' ' ')
MODES=$(echo "${SCHEDSCAN_MODES:-fentry,kprobe,tracepoint}" | tr ',' ' ')
W=/tmp/schedscan-tests
mkdir -p "$W"

# ---------------------------------------------------------------- TAP helpers
N=0
FAILED=0
SKIPPED=0
# Each result is tagged with the kind of check it is (KIND, set before
# it): "ground truth" (against a count the tool did not compute),
# "known answer" (a scenario whose result follows from the kernel
# source), "consistency" (the tool against itself), "environment" (the
# guest, not the tool), "behaviour" (exit status, output, clean-up).
# tests/run-suites.sh counts them apart. MUTATION prefixes every
# description in a mutation run.
KIND=behaviour
MUTATION=""
tagged() {  # tagged DESC -> DESC with " [KIND]" before any " # " directive
    case "$1" in
        *" # "*) echo "${MUTATION:+mutation $MUTATION: }${1%% # *} [$KIND] # ${1#* # }" ;;
        *) echo "${MUTATION:+mutation $MUTATION: }$1 [$KIND]" ;;
    esac
}
ok()    { N=$((N + 1)); echo "ok $N - $(tagged "$*")"; }
notok() { N=$((N + 1)); FAILED=$((FAILED + 1)); echo "not ok $N - $(tagged "$*")"; }
# diag: stdin -> "# " lines (at most $1 lines, default 20)
diag()  { head -n "${1:-20}" | sed 's/^/#   /'; }
note()  { echo "# $*"; }
now()   { cut -d' ' -f1 /proc/uptime; }
# timed STAGE ARGS...: runs a stage and says how long it took (where a
# guest's time goes: vmcheck sums these per stage and kernel)
timed() {
    local timed_t0 timed_rc   # stages nest
    timed_t0=$(now)
    "$@"
    timed_rc=$?
    note "time: $* $(awk -v a="$timed_t0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }') s"
    return $timed_rc
}

# --------------------------------------------------------------- JSON helpers
# The tools print one JSON object per line:
#  {"type":"summary","tool":"sisscan",...,"metrics":{"wakeups":{"value":12,"tier":"tp_btf","estimated":false},...}}

# json_summary FILE: the last line with "type":"summary"
json_summary() { grep '"type" *: *"summary"' "$1" | tail -n 1; }

# json_str LINE KEY: the string value of a top-level "KEY":"..." (first match)
json_str() {
    printf '%s\n' "$1" | sed -n "s/.*\"$2\" *: *\"\\([^\"]*\\)\".*/\\1/p" | head -n 1
}

# json_metric LINE NAME: the value of one metric of a record ("" if absent)
json_metric() { json_metrics "$1" | awk -v k="$2" '$1 == k { print $3 }'; }

# json_metrics LINE: one "name tier value estimated" line per metric object
# (flat objects after "metrics":{ that carry a "tier"; value "-" if not numeric)
json_metrics() {
    printf '%s\n' "$1" | sed 's/.*"metrics" *: *{//' \
        | grep -o '"[^"]*" *: *[{][^{}]*[}]' \
        | awk '{
            name = $0; sub(/^"/, "", name); sub(/".*/, "", name)
            body = $0; sub(/^"[^"]*" *: *[{]/, "", body)
            tier = "-"; value = "-"; est = "-"
            if (match(body, /"tier" *: *"[^"]*"/)) {
                t = substr(body, RSTART, RLENGTH); sub(/.*: *"/, "", t); sub(/"$/, "", t); tier = t
            }
            if (match(body, /"value" *: *-?[0-9][0-9.eE+-]*/)) {
                v = substr(body, RSTART, RLENGTH); sub(/.*: */, "", v); value = v
            }
            if (match(body, /"estimated" *: *(true|false)/)) {
                e = substr(body, RSTART, RLENGTH); sub(/.*: */, "", e); est = e
            }
            if (tier != "-") print name, tier, value, est
        }'
}

# json_members LINE OBJECT: "name tier estimated" per member of the
# top-level object OBJECT of a record ("metrics", the list's "tables"),
# histograms included: a scan that follows strings and nesting.
json_members() {
    printf '%s\n' "$1" | awk -v obj="$2" '{
        i = index($0, "\"" obj "\":{"); if (!i) exit
        s = substr($0, i + length(obj) + 4); n = length(s); depth = 1; instr = 0
        for (p = 1; p <= n && depth > 0; p++) {
            c = substr(s, p, 1)
            if (instr) {
                if (c == "\\") { p++; continue }
                if (c != "\"") { tok = tok c; continue }
                instr = 0; last = tok
                if (depth == 2 && pending == "tier") tier = tok
                pending = ""
                continue
            }
            if (c == "\"") { instr = 1; tok = ""; continue }
            if (c == ":") {
                if (depth == 1) { name = last; tier = "-"; est = "-" }
                pending = depth == 2 ? last : ""
                continue
            }
            if (c == "{" || c == "[") { depth++; pending = ""; continue }
            if (c == "}" || c == "]") { depth--; if (depth == 1 && c == "}") print name, tier, est; continue }
            if (depth == 2 && pending == "estimated" && (c == "t" || c == "f")) {
                est = c == "t" ? "true" : "false"; pending = ""
            }
        }
    }'
}

# tiers_for_mode MODE: the tier names that count as MODE (egrep alternation)
tiers_for_mode() {
    case "$1" in
        tracepoint) echo 'tp_btf|raw_tp|tracepoint' ;;
        *) echo "$1" ;;
    esac
}

# positive_metrics LINE MODE: "name[tier]=value" for metrics of MODE's tiers with value > 0
positive_metrics() {
    json_metrics "$1" | awk -v re="^($(tiers_for_mode "$2"))\$" \
        '$2 ~ re && $3 != "-" && ($3 + 0) > 0 { printf "%s[%s]=%s\n", $1, $2, $3 }'
}

# TABLE_AWK: awk functions over a JSON record ($0): rows(TABLE) fills
# row[1..n] with each row of the table, its top-level fields as
# " name=value " (strings unquoted; the nested "schedstat" left out), and
# field(ROW, NAME) reads one; rec_time(KEY) a record's start or end;
# recursion_misses() the misses a summary record reports.
TABLE_AWK='
function rows(t,    i, s, e, n, k, r) {
    for (k in row) delete row[k]
    i = index($0, "\"" t "\":{"); if (!i) return 0
    s = substr($0, i); i = index(s, "\"rows\":["); if (!i) return 0
    s = substr(s, i + 8); e = index(s, "]}"); s = substr(s, 1, e - 1)
    if (s == "") return 0
    n = split(s, r, /\},\{/)
    for (k = 1; k <= n; k++) {
        sub(/"schedstat":\{[^}]*\}/, "", r[k]); gsub(/[{}"]/, "", r[k])
        gsub(/,/, " ", r[k]); gsub(/:/, "=", r[k]); row[k] = " " r[k] " "
    }
    return n
}
function field(r, name,    i, v) {
    i = index(r, " " name "="); if (!i) return ""
    v = substr(r, i + length(name) + 2); sub(/ .*/, "", v); return v
}
function rec_time(key,    x) {
    if (!match($0, "\"" key "\":[0-9.]+")) return -1
    x = substr($0, RSTART, RLENGTH); sub(/.*:/, "", x); return x + 0
}
# The events the programs missed because one was already running on that
# CPU (--stats, "recursion_misses" of each program): the kernel counts
# them, the tool cannot.
function recursion_misses(    line, x, n) {
    line = $0
    while (match(line, /"recursion_misses":[0-9]+/)) {
        x = substr(line, RSTART, RLENGTH); sub(/.*:/, "", x); n += x
        line = substr(line, RSTART + RLENGTH)
    }
    return n
}'

# ------------------------------------------------------- leftover BPF checks
HAVE_BPFTOOL=0
bpftool prog show >/dev/null 2>&1 && HAVE_BPFTOOL=1

# bpf_state: one line summarising what BPF/kprobe state exists system-wide
bpf_state() {
    if [ "$HAVE_BPFTOOL" = 1 ]; then
        p=$(bpftool prog show 2>/dev/null | grep -c '^[0-9][0-9]*:')
        l=$(bpftool link show 2>/dev/null | grep -c '^[0-9][0-9]*:')
    else
        # JITed programs appear in kallsyms as bpf_prog_<tag>_<name>
        p=$(grep -c ' bpf_prog_[0-9a-f]*_' /proc/kallsyms)
        l=-
    fi
    k=$(cat /sys/kernel/debug/kprobes/list 2>/dev/null | wc -l)
    pins=$(find /sys/fs/bpf -mindepth 1 2>/dev/null | wc -l)
    echo "progs=$p links=$l kprobes=$k pinned=$pins"
}

# wait_bpf_state WANT: BPF objects are freed asynchronously (RCU): wait up to ~10 s
wait_bpf_state() {
    i=0
    while [ $i -lt 20 ]; do
        [ "$(bpf_state)" = "$1" ] && return 0
        sleep 0.5; i=$((i + 1))
    done
    return 1
}

# ---------------------------------------------------------------- workloads
LOAD_PIDS=""
stop_load() {
    [ -n "$LOAD_PIDS" ] && kill $LOAD_PIDS 2>/dev/null
    # the loops' current children (this guest runs nothing else)
    for p in pingpong spinner memtouch wakeloop numaremote ownvmas; do
        killall -q "$p" 2>/dev/null
    done
    wait 2>/dev/null
    LOAD_PIDS=""
}

# ---------------------------------------------------------------- the tests
# run_judge TOOL MODE OUT ERR RC T0 BEFORE [WHY]: the checks of a tool's
# run in a tier, made on the run of its brackets (bracket_run: the tool
# attached, its load, a SIGINT): it ran and reported metrics of its tier
# (one TAP line that names the run, for vmcheck's matrix), sisscan's SIS
# probes, --list-metrics against what it reported, and nothing left
# attached. WHY: the run failed before its load (the tool never said it
# was tracing). Its variables are rj_*: bracket_judge reads the others.
run_judge() {
    rj_tool=$1 rj_mode=$2 rj_out=$3 rj_err=$4 rj_rc=$5 rj_t0=$6 rj_before=$7 rj_why=${8:-}
    rj_desc="$rj_tool --mode $rj_mode"
    rj_secs=$(awk -v a="$rj_t0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
    rj_summary=$(json_summary "$rj_out")
    if [ -n "$rj_why" ]; then
        rj_why="exit status $rj_rc, $rj_why"
    elif [ "$rj_rc" -ne 0 ]; then
        rj_why="exit status $rj_rc"
    elif [ -z "$rj_summary" ]; then
        rj_why="no \"type\":\"summary\" line on stdout"
    else
        rj_pos=$(positive_metrics "$rj_summary" "$rj_mode")
        [ -n "$rj_pos" ] || rj_why="no metric with tier $(tiers_for_mode "$rj_mode") and value > 0"
    fi
    KIND=behaviour
    if [ -z "$rj_why" ]; then
        ok "$rj_desc (${rj_secs}s; $(echo $rj_pos | tr ' ' ','))"
    else
        notok "$rj_desc # $rj_why"
        note "  command: $rj_tool --mode $rj_mode --json -i 600 -d 900 --stats ${BRACKET_ARGS:-}, stopped by SIGINT after its load (${rj_secs}s)"
        if [ -s "$rj_err" ]; then note "  stderr:"; tail -n 15 "$rj_err" | diag 15; fi
        if [ -n "$rj_summary" ]; then
            note "  summary metrics (name tier value estimated):"
            json_metrics "$rj_summary" | diag 30
        elif [ -s "$rj_out" ]; then
            note "  stdout (last lines):"; tail -n 5 "$rj_out" | cut -c1-400 | diag 5
        fi
    fi

    # SIS always probes its target first (select_idle_sibling() S1), so a
    # wakeup with no available_idle_cpu() probe means the accounting is off
    # (tolerance 1% for early returns: WF_CURRENT_CPU, EAS).
    if [ -z "$rj_why" ] && [ "$rj_tool" = sisscan ] && [ "$rj_mode" != tracepoint ]; then
        probes=$(printf '%s\n' "$rj_summary" | grep -o '"idle_probes_per_wakeup":{"hist":{[^]]*')
        total=$(printf '%s\n' "$probes" | sed -n 's/.*"count":\([0-9]*\),"p50".*/\1/p')
        zero=$(printf '%s\n' "$probes" | sed -n 's/.*{"low":0,"high":0,"count":\([0-9]*\)}.*/\1/p')
        search=$(json_metric "$rj_summary" sis_search)
        stats=$(printf '%s\n' "$probes" | grep -o '"p50":[0-9]*,"p90":[0-9]*,"p99":[0-9]*,"max":[0-9]*')
        # The summary reads its counters one after another while wakeups
        # go on: the histogram may hold a few more samples than sis_search.
        # The same program counts both: consistency, not ground truth.
        KIND=consistency
        if [ -n "$total" ] && [ "$total" -gt 0 ] && [ "$total" -ge "${search:-0}" ] &&
           [ "$total" -le $((search + search / 1000 + 5)) ] &&
           [ $(( ${zero:-0} * 100 )) -le "$total" ]; then
            ok "$rj_desc: every SIS search probed (${total} searches, ${zero:-0} without a probe, $stats)"
        else
            notok "$rj_desc: every SIS search probed # searches '$search', histogram count '$total', zero-probe '$zero'"
        fi
        # ping-pong on an otherwise idle guest: the wakee's previous CPU
        # (or the waker's) is idle, so SIS's fast path should decide.
        KIND="known answer"
        fast=$(json_metrics "$rj_summary" | awk '$1 == "sis_target_idle" || $1 == "sis_prev_idle" || $1 == "sis_recent_hit" { n += $3 } END { print n + 0 }')
        if [ "${search:-0}" -gt 0 ] && [ $((fast * 10)) -ge $((search * 9)) ]; then
            ok "$rj_desc: idle guest, the fast path decides ($fast of $search searches: target, prev or recent idle)"
        else
            notok "$rj_desc: idle guest, the fast path decides # $fast of '$search' searches"
        fi
    fi

    list_check "$rj_tool" "$rj_mode" "$rj_rc" "$rj_summary"

    # nothing may stay attached/loaded once the tool has exited (nor
    # after --list-metrics)
    KIND=behaviour
    if wait_bpf_state "$rj_before"; then
        ok "$rj_desc: nothing left attached ($rj_before)"
    else
        notok "$rj_desc: nothing left attached # before: $rj_before after: $(bpf_state)"
        if [ "$HAVE_BPFTOOL" = 1 ]; then
            bpftool prog show 2>&1 | diag 20
        fi
    fi
}

# list_check TOOL MODE RC SUMMARY: --list-metrics says what the run just
# reported (issue 33): the same metrics with the same tier and estimate,
# the same tables, the same unavailable ones and sentences; refused
# where the run was.
list_check() {
    lout=$W/$1-$2.list
    "$BIN/$1" --mode "$2" --list-metrics --json >"$lout" 2>"$lout.err"
    lrc=$?
    KIND=consistency
    ldesc="$1 --mode $2 --list-metrics"
    if [ "$3" -ne 0 ]; then
        if [ $lrc -eq "$3" ]; then
            ok "$ldesc: refused as the run was (exit $lrc)"
        else
            notok "$ldesc: refused as the run was # run exit $3, list exit $lrc"
        fi
        return
    fi
    [ -n "$4" ] || return
    if [ $lrc -ne 0 ]; then
        notok "$ldesc # exit $lrc: $(head -c 300 "$lout.err")"
        return
    fi
    list=$(cat "$lout")
    json_members "$list" metrics | sort >"$lout.m"
    json_members "$4" metrics | sort >"$lout.rm"
    json_members "$list" tables | sort >"$lout.t"
    printf '%s\n' "$4" | grep -o '"[a-z_]*":{"by":"[^"]*","tier":"[a-z_]*","estimated":[a-z]*' |
        sed 's/"\([a-z_]*\)":{"by":"[^"]*","tier":"\([a-z_]*\)","estimated":\([a-z]*\)/\1 \2 \3/' |
        sort >"$lout.rt"
    same=1
    cmp -s "$lout.m" "$lout.rm" || same=0
    cmp -s "$lout.t" "$lout.rt" || same=0
    for key in '"unavailable":{[^}]*}' '"tables_unavailable":{[^}]*}' '"unavailable_reasons":\[[^]]*\]'; do
        [ "$(printf '%s\n' "$list" | grep -o "$key")" = "$(printf '%s\n' "$4" | grep -o "$key")" ] ||
            same=0
    done
    if [ $same = 1 ] && [ -s "$lout.m" ]; then
        ok "$ldesc: the run reported the same $(wc -l <"$lout.m") metrics, $(wc -l <"$lout.t") tables, unavailable ones and reasons"
    else
        notok "$ldesc: the run reported the same"
        note "  listed (<) against run (>): metrics, then tables"
        diff "$lout.m" "$lout.rm" | diag 10
        diff "$lout.t" "$lout.rt" | diag 6
        printf '%s\n' "$list" | grep -o '"tables_unavailable":{[^}]*}\|"unavailable_reasons":\[[^]]*\]' | cut -c1-300 | diag 4
        printf '%s\n' "$4" | grep -o '"tables_unavailable":{[^}]*}\|"unavailable_reasons":\[[^]]*\]' | cut -c1-300 | diag 4
    fi
}

# spinners_around "CPUS" WORKLOAD...: a spinner pinned to each CPU of CPUS
# (a CPU twice: two), a second for their load to show in the CPUs' util
# (PELT) and in SIS_UTIL's scan limit (set at load balancing), WORKLOAD,
# then the spinners killed. For sisscan_around: the spinners start once
# the tool is tracing and end before it detaches, both of which took
# several times longer on busy CPUs under TCG.
spinners_around() {
    for c in $1; do
        "$WL/spinner" -c $c -s 600 >/dev/null 2>&1 &
        LOAD_PIDS="$LOAD_PIDS $!"
    done
    shift
    sleep 1
    "$@"
    sa_rc=$?
    [ -n "$LOAD_PIDS" ] && kill $LOAD_PIDS 2>/dev/null
    return $sa_rc
}
# sisscan_around OUT ERR "WORKLOAD" ARGS...: sisscan ARGS (JSON) attached
# before WORKLOAD starts (it says so on --ready-fd) and stopped by SIGINT
# once WORKLOAD has ended; its exit status in rc.
sisscan_around() {
    around_out=$1 around_err=$2 around_cmd=$3
    shift 3
    if tool_start "$around_out" "$around_err" sisscan "$@" -d 300; then
        eval "$around_cmd"
    fi
    kill -INT $tpid 2>/dev/null
    wait $tpid
    rc=$?
}

# ------------------------------------------- readiness and window cuts
# tool_start OUT ERR TOOL ARGS...: TOOL ARGS --json in the background
# (its pid in tpid), returning once it says it is tracing (--ready-fd)
# or has exited (90 s at most). Workloads start after it, never after a sleep.
tool_start() {
    ts_out=$1 ts_err=$2 ts_tool=$3
    shift 3
    : >"$ts_out"
    : >"$W/ready"
    "$BIN/$ts_tool" "$@" --json --ready-fd 3 3>"$W/ready" >"$ts_out" 2>"$ts_err" &
    tpid=$!
    i=0
    while [ ! -s "$W/ready" ] && kill -0 $tpid 2>/dev/null && [ $i -lt 900 ]; do
        sleep 0.1; i=$((i + 1))
    done
    [ -s "$W/ready" ]
}

# Finite workloads for the brackets, run in the foreground between the
# two kernel reads (they wait for their own children only: the tool is a
# child of this shell too).
load_sisscan() { "$WL/pingpong" -n 20000 >/dev/null 2>&1; }
load_idlebal() {
    # pinned spinners on both nodes (two on CPU 0: the root domain stays
    # overloaded, so every CPU that goes idle runs newidle passes, and
    # balancing meets tasks it may not move), two short unpinned ones
    # forked on one CPU and spread by balancing, and wakeups.
    # An idle row's width is the idle balance passes in the edges over the
    # row's count. The edges are a burst at each cut, whole idle load
    # balance runs (one run balances every idle CPU's domains): 17-45
    # passes of domain 0 over 6.1-7.3 (and 22-55 in 14 clean-clone runs on
    # 6.1/6.12), whatever the run's length. The rate of the passes in
    # between is the kernel's: per second of this load, domain 0's idle
    # row had 85-180 on 6.1 and 6.12, 95-115 on 7.3, but 57 (fentry) and
    # 32 (kprobe) on 6.18, whose 48 s then left 1519 passes against 33 in
    # the edges (2.17% wide). So the load runs until the kernel's own
    # count of that row reaches 4000 (an edge of 45 is then 1.1%), for 24 s
    # at least and 96 s at most, read with kstat every 4 s.
    min_secs=24 max_secs=96 target=4000
    "$WL/spinner" -c 0 -s $max_secs >/dev/null 2>&1 & l1=$!
    "$WL/spinner" -c 0 -s $max_secs >/dev/null 2>&1 & l0=$!
    "$WL/spinner" -c 4 -s $max_secs >/dev/null 2>&1 & l2=$!
    "$WL/pingpong" -n $((max_secs * 2500)) >/dev/null 2>&1 & l3=$!
    d0_first=$(d0_idle_passes)
    r=0 d0_passes=0
    while [ $r -lt $max_secs ]; do
        "$WL/spinner" -s 1 >/dev/null 2>&1 & s1=$!
        "$WL/spinner" -s 1 >/dev/null 2>&1
        wait $s1
        r=$((r + 1))
        if [ $((r % 4)) = 0 ]; then
            d0_passes=$(($(d0_idle_passes) - d0_first))
            [ $r -ge $min_secs ] && [ $d0_passes -ge $target ] && break
        fi
    done
    kill $l0 $l1 $l2 $l3 2>/dev/null
    wait $l0 $l1 $l2 $l3 2>/dev/null
    note "load_idlebal: ${r} s of load, domain 0's idle row ${d0_passes} passes by the kernel's count (target $target)"
    # The CPUs the load leaves idle rebalance in a burst (their intervals
    # were busy ones): let it pass inside the window, not in the cut after
    # it (seen: 25 idle passes of domain 0 in 38 ms of edges without this).
    sleep 1
}
d0_idle_passes() { "$WL/kstat" -q | awk '$1 == "lb_count_d0_idle" { n = $2 } END { print n + 0 }'; }
# Few context switches: schedstat's rq_cpu_time starts and ends each run
# at the scheduler clock of __schedule()'s start, not at the switch the
# tool sees, so each switch shifts the two idle times apart by its own
# scheduling overhead (seen: 0.25-0.5% with pingpong's 40000 switches).
# 12 s: the edges are idle on every CPU, and their share shrinks with the
# window (seen widths 0.6-2.0% over 4 s; over 8 s, 2.10% once on a new
# machine: 76 ms of edges and a 27 ms read on 8 CPUs against 35.9 s).
load_spinners() {
    "$WL/spinner" -c 0 -s 12 >/dev/null 2>&1 & l1=$!
    "$WL/spinner" -c 4 -s 12 >/dev/null 2>&1 & l2=$!
    for r in 1 2 3 4 5 6 7 8 9 10 11 12; do
        "$WL/spinner" -s 1 >/dev/null 2>&1 & s1=$!
        "$WL/spinner" -s 1 >/dev/null 2>&1
        wait $s1
    done
    wait $l1 $l2
}
# Events of other processes fall in the edges (a scan pass of some
# process's memory, 1500-1700 PTEs at once; 39 local hint faults): 8 s of
# 256 MB make every count large against them (64 MB for 4 s: PTE updates
# 3.97% wide; 128 MB for 8 s: 2.46% once on 6.12, 67392 PTE updates;
# 256 MB for 4 s on 6.1: 545 local faults, 6.68%, the pages still
# migrating; 256 MB for 8 s on 6.1: 901 local faults, 32 of them in the
# edges, 3.55%). So a second instance keeps its memory on its own node:
# local faults from the first scan pass on, tens of thousands of them.
load_numaremote() {
    "$WL/numaremote" -t 4 -m 128 -s 8 -c 1 -M 1 >/dev/null 2>&1 & local_wl=$!
    "$WL/numaremote" -t 4 -m 256 -s 8 -c 0 -M 1 >/dev/null 2>&1
    remote_status=$?
    wait $local_wl && return $remote_status
}

# ------------------------------------------- tool counts vs kernel counters
# bracket_check TOOL MODE METRIC COUNTER TOLERANCE [NAME=PATH...]: the
# kernel's own COUNTER (kstat) read twice, A and B, around the workload
# load_TOOL (or $BRACKET_LOAD), while TOOL runs; kstat -c makes the tool cut its interval
# (SIGUSR1) right before and right after each read and waits for the
# record, so the edges last milliseconds. The interval between the inner cuts
# lies within [A, B], so it saw a subset of the kernel's events; the
# three intervals from the cut before A to the cut after B cover [A, B],
# a superset:
#     inner <= kernel delta <= outer
# Outside the workload the guest is quiet, so outer - inner is the
# background of two short edges; that width, (outer - inner) / kernel, is
# printed and must not exceed TOLERANCE (percent): a check that cannot
# resolve a miscount of TOLERANCE is not made. METRIC is a metric name
# or TABLE.COLUMN (summed over the table's rows); METRIC and COUNTER count
# the same kernel events (docs/metrics.md). The check is named for the
# tier that really measured METRIC (a tracepoint hook runs in every
# --mode).
bracket_check() {
    bc_tool=$1 bc_mode=$2 bc_metric=$3 bc_counter=$4 bc_tol=$5
    shift 5
    bracket_run "$bc_tool" "$bc_mode" "$@" && bracket_judge "$bc_metric" "$bc_counter" "$bc_tol"
}
# bracket_run TOOL MODE [NAME=PATH...]: the tool and the two cut kernel
# reads around its load; its records in $W/bracket.out, the reads in
# $W/kstat.a and $W/kstat.b, $steps and $rc for bracket_judge (1 if the
# tool never said it was tracing: that is reported here). The run's own
# checks follow it (run_judge): each tool's one run in each tier.
bracket_run() {
    tool=$1 mode=$2
    shift 2   # the rest: NAME=PATH hist files for kstat
    out=$W/bracket.out
    KIND="ground truth"
    if [ ! -x "$WL/kstat" ]; then notok "$tool --mode $mode brackets # kstat missing"; return 1; fi
    note "running: $tool --mode $mode brackets"   # names the culprit of a hang
    br_before=$(bpf_state)
    br_t0=$(now)
    if ! tool_start "$out" "$W/bracket.err" "$tool" --mode "$mode" -i 600 -d 900 --stats ${BRACKET_ARGS:-}; then
        kill -INT $tpid 2>/dev/null; wait $tpid
        run_judge "$tool" "$mode" "$out" "$W/bracket.err" $? "$br_t0" "$br_before" \
            "before it said it was tracing"
        return 1
    fi
    steps=ok
    "$WL/kstat" -c "$tpid,$out" $KSTAT_ARGS "$@" >"$W/kstat.a" 2>"$W/kstat.err" && "${BRACKET_LOAD:-load_$tool}" &&
        "$WL/kstat" -c "$tpid,$out" $KSTAT_ARGS "$@" >"$W/kstat.b" 2>>"$W/kstat.err" ||
        steps="a cut or a kernel read failed: $(head -c 200 "$W/kstat.err")"
    kill -INT $tpid 2>/dev/null
    wait $tpid
    rc=$?
    run_judge "$tool" "$mode" "$out" "$W/bracket.err" "$rc" "$br_t0" "$br_before"
    return 0
}
# bracket_judge METRIC COUNTER TOLERANCE: one check of the last bracket_run.
bracket_judge() {
    metric=$1 counter=$2 tol=$3
    desc="$tool $metric within the kernel's $counter (--mode $mode)"
    KIND=${JUDGE_KIND:-ground truth}
    result=$(awk -v metric="$metric" -v counter="$counter" -v tol="$tol" -v excess_pct="${BRACKET_EXCESS:-0}" "$TABLE_AWK"'
        FILENAME ~ /kstat.a$/ { a[$1] = $2; next }
        FILENAME ~ /kstat.b$/ { b[$1] = $2; next }
        # Events a program missed (a wakeup from an interrupt during its run).
        /"type":"summary"/ { misses += recursion_misses() }
        /"type":"interval"/ {
            if (!match($0, /"start":[0-9.]+/)) next
            s = substr($0, RSTART + 8, RLENGTH - 8) + 0
            match($0, /"end":[0-9.]+/); e = substr($0, RSTART + 6, RLENGTH - 6) + 0
            v = 0
            if (index(metric, ".")) {
                # TABLE.COLUMN: every row of the table on this line
                col = substr(metric, index(metric, ".") + 1)
                line = $0; pat = "\"" col "\":[0-9]+"
                while (match(line, pat)) {
                    x = substr(line, RSTART, RLENGTH); sub(/.*:/, "", x); v += x
                    line = substr(line, RSTART + RLENGTH)
                }
                tier = "table"
                # per CPU too, for a state integral (below)
                line = $0
                while (match(line, /"cpu":[0-9]+,"idle_ns":[0-9]+/)) {
                    x = substr(line, RSTART, RLENGTH); c = x; sub(/,.*/, "", c); sub(/.*:/, "", c)
                    sub(/.*:/, "", x); percpu[n + 1, c] = x; cpus[c] = 1
                    line = substr(line, RSTART + RLENGTH)
                }
            } else {
                pat = "\"" metric "\":[{]\"value\":[0-9]+,\"tier\":\"[a-z_]+\""
                if (!match($0, pat)) next
                x = substr($0, RSTART, RLENGTH)
                t = x; sub(/.*"tier":"/, "", t); sub(/"$/, "", t); tier = t
                sub(/,"tier".*/, "", x); sub(/.*:/, "", x); v = x + 0
            }
            n++; start[n] = s; end[n] = e; val[n] = v
        }
        # ns of [s, e] inside [t1, t2]
        function overlap(s, e, t1, t2) {
            if (e > t2) e = t2
            if (s < t1) s = t1
            return e > s ? (e - s) * 1e9 : 0
        }
        END {
            if (counter == "sched_idle_ns") {
                # the CPUs time minus the time they ran other tasks
                # (schedstat rq_cpu_time); the reads happen somewhere
                # between realtime_before and realtime_after
                if (!("cpu_busy_ns" in a) || !("cpu_busy_ns" in b)) { print "fail: no cpu_busy_ns in /proc/schedstat"; exit }
                busy = b["cpu_busy_ns"] - a["cpu_busy_ns"]
                # rq_cpu_time runs on the scheduler clock (cpu_clk), the
                # tool on ktime: under TCG their rates differ (seen 0.7%)
                rate = 1
                if (b["cpu_clock_ns"] > a["cpu_clock_ns"] && b["ktime_ns"] > a["ktime_ns"])
                    rate = (b["ktime_ns"] - a["ktime_ns"]) / (b["cpu_clock_ns"] - a["cpu_clock_ns"])
                busy *= rate
                delta = a["nr_cpus"] * (b["realtime_before"] - a["realtime_after"]) * 1e9 - busy
                delta_high = a["nr_cpus"] * (b["realtime_after"] - a["realtime_before"]) * 1e9 - busy
                # Time the kernel counts busy and the tool idle: a wakeup
                # onto an idle CPU sets need_resched on the idle task, which
                # is on_rq, so check_preempt_curr() (wakeup_preempt() on
                # 6.12) skips the clock update of the next __schedule(), and
                # sched_info_arrive() dates the arrival at the clock of the
                # enqueue; leaving idle (IPI, halt exit: long under TCG) counts
                # busy there, idle in the tool, as does each __schedule().
                # Measured: the low bound 33-110 ms (0.07-0.22%) above the
                # low end of the kernel over 12 runs, once past the 0.1% allowed
                # until then (CI, 6.12): 0.5%, part of the width.
                delta_high += delta_high * 5 / 1000
            } else {
                if (!(counter in a) || !(counter in b)) { print "fail: no kernel counter " counter; exit }
                delta = b[counter] - a[counter]; delta_high = delta
            }
            if (n == 0 || start[1] > a["realtime_before"] || end[n] < b["realtime_after"]) {
                printf "fail: the tool'"'"'s %d intervals do not cover the two reads\n", n; exit
            }
            for (k = 1; k <= n; k++) {
                in_k = start[k] >= a["realtime_after"] && end[k] <= b["realtime_before"]
                if (in_k) { inner += val[k]; nin++ }
                if (end[k] > a["realtime_before"] && start[k] < b["realtime_after"]) {
                    outer += val[k]
                    if (!in_k) edges += end[k] - start[k]
                }
            }
            if (counter == "sched_idle_ns") {
                # Idle time accrues on every idle CPU through the edges
                # (hundreds of ms under TCG, where the tool waits for an RCU
                # grace period at each cut): whole edges would leave 8 CPUs
                # x the edges unresolved. Each CPU of each interval [s, e]
                # instead bounds its idle time I inside the window [T1, T2]:
                # at least I minus the part of [s, e] outside, at most I and
                # the part inside; exact for a CPU idle throughout. The
                # interval ends where the tool cut, its durations closed
                # there too (lib/tool.c). Low: the shortest window between
                # the reads, high: the longest.
                lo = 0; hi = 0
                for (k = 1; k <= n; k++) {
                    d = (end[k] - start[k]) * 1e9
                    in_lo = overlap(start[k], end[k], a["realtime_after"], b["realtime_before"])
                    in_hi = overlap(start[k], end[k], a["realtime_before"], b["realtime_after"])
                    for (c in cpus) {
                        v = percpu[k, c] + 0
                        lo += v - (d - in_lo) > 0 ? v - (d - in_lo) : 0
                        hi += v < in_hi ? v : in_hi
                    }
                }
                printf "note: %d CPUs, reads %.6f s apart, kernel busy %.0f ns (ktime/cpu_clk %.6f), whole inner intervals %.0f ns idle, per-CPU bounds %.0f..%.0f ns\n",
                    a["nr_cpus"], b["realtime_before"] - a["realtime_after"], busy, rate, inner, lo, hi
                inner = lo; outer = hi
            }
            width = delta > 0 ? 100 * (outer - inner + delta_high - delta) / delta : 100
            excess = delta * excess_pct / 100
            verdict = (nin >= 1 && inner > 0 && inner <= delta_high && delta <= outer + misses + excess && width <= tol) ? "pass" : "fail"
            kernel = delta == delta_high ? sprintf("%.0f", delta) : sprintf("%.0f..%.0f", delta, delta_high)
            printf "%s tier=%s inner=%.0f kernel=%s outer=%.0f%s width=%.2f%% (tolerance %s%%; edges %.0f ms)\n",
                verdict, tier, inner, kernel, outer, misses ? sprintf(" + %d recursion misses", misses) : "", width, tol, edges * 1000
        }' "$W/kstat.a" "$W/kstat.b" "$out")
    echo "$result" | grep '^note: ' | sed 's/^note: /# /'
    result=$(echo "$result" | grep -v '^note: ')
    tier=$(echo "$result" | sed -n 's/.* tier=\([a-z_]*\) .*/\1/p')
    [ -n "$tier" ] && [ "$tier" != table ] && desc="$tool $metric [$tier] within the kernel's $counter"
    [ "$tier" = table ] && desc="$tool $metric within the kernel's $counter (--mode $mode)"
    case "$steps:$rc:$result" in
        ok:0:pass*) ok "$desc (${result#pass tier=* })" ;;
        *)  notok "$desc # $steps, exit $rc: ${result:-no interval records}"
            tail -n 5 "$W/bracket.err" | diag 5 ;;
    esac
}

# ftrace hist triggers count events with no BPF involved: a kprobe event on
# a function, or an existing trace event. hist_on/hist_off EVENT_DIR; the
# keys are the CPU unless KEYS says more (the removal names the same keys).
TRACEFS=/sys/kernel/tracing
hist_on()  { echo "hist:keys=${3:-common_cpu}${2:+ $2}" >"$1/trigger"; }   # hist_on DIR [FILTER [KEYS]]
hist_off() { echo "!hist:keys=${2:-common_cpu}" >"$1/trigger" 2>/dev/null; }   # hist_off DIR [KEYS]
# kprobe_event_on NAME "FUNCTION [FETCHARGS]" [FILTER [KEYS]] -> events/schedscan/NAME
kprobe_event_on() {
    echo "p:schedscan/$1 $2" >>"$TRACEFS/kprobe_events" && hist_on "$TRACEFS/events/schedscan/$1" "${3:-}" "${4:-}"
}
kprobe_event_off() {  # kprobe_event_off NAME [KEYS]
    hist_off "$TRACEFS/events/schedscan/$1" "${2:-}"
    echo "-:schedscan/$1" >>"$TRACEFS/kprobe_events" 2>/dev/null
}

# func_range NAME: "START END" of a kernel function's text (hex, no 0x):
# its address and the next higher symbol's in /proc/kallsyms. Addresses
# are 16 hex digits, so comparing them as strings orders them.
func_range() {
    awk -v f="$1" '$3 == f && $2 ~ /^[tT]$/ { start = $1 }
        { addr[NR] = $1 }
        END {
            if (start == "") exit
            for (i = 1; i <= NR; i++)
                if (addr[i] > start && (end == "" || addr[i] < end)) end = addr[i]
            if (end != "") print start, end
        }' /proc/kallsyms
}

# -------------------------------------------------------------------- main
note "guest $(uname -r): $(nproc) CPUs, tools: $TOOLS, modes: $MODES"
[ "$HAVE_BPFTOOL" = 1 ] && note "bpftool: $(bpftool version 2>/dev/null | head -n 1)" \
    || note "bpftool not available: leftover check uses /proc/kallsyms + kprobes/list"

# the machine must look like what the tests assume
ncpu=$(grep -c '^processor' /proc/cpuinfo)
nnodes=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l)
KIND=environment
if [ "$ncpu" = 8 ] && [ "$nnodes" = 2 ]; then
    ok "guest topology: 8 CPUs, 2 NUMA nodes"
else
    notok "guest topology: 8 CPUs, 2 NUMA nodes # saw $ncpu CPUs, $nnodes nodes"
fi
if [ -r /sys/kernel/btf/vmlinux ] && [ "$(cat /proc/sys/kernel/sched_schedstats)" = 1 ] \
   && [ "$(cat /proc/sys/kernel/numa_balancing)" != 0 ]; then
    ok "guest setup: BTF, schedstats on, numa_balancing on"
else
    notok "guest setup: BTF, schedstats on, numa_balancing on # btf=$(ls /sys/kernel/btf/vmlinux 2>&1) schedstats=$(cat /proc/sys/kernel/sched_schedstats) numa_balancing=$(cat /proc/sys/kernel/numa_balancing)"
fi

# NUMA balancing without its start-up delay and with short scan periods, so
# hint faults flow for the whole of a short run (sysctl on 6.1, debugfs later).
for d in /proc/sys/kernel/numa_balancing_ /sys/kernel/debug/sched/numa_balancing/; do
    [ -w "${d}scan_delay_ms" ] && echo 0 >"${d}scan_delay_ms"
    [ -w "${d}scan_period_min_ms" ] && echo 100 >"${d}scan_period_min_ms"
done

# Each count against a counter of the same events that the kernel keeps
# itself (schedstat, vmstat, /proc/stat) or that ftrace keeps (hist
# triggers). A tracepoint metric runs the same program in every --mode,
# so it is checked once, in the tracepoint tier; function-tier metrics in
# fentry and kprobe. Tolerance 2%: a 1-in-20 loss must show (seen: widths
# 0-1%). A check that cannot run here
# says why (SKIP) or fails; none vanishes.
skip_vma=$TRACEFS/events/sched/sched_skip_vma_numa
skip() { N=$((N + 1)); SKIPPED=$((SKIPPED + 1)); echo "ok $N - $(tagged "$1 # SKIP $2")"; }
# sis_brackets MODE: sisscan's function-tier counts, one run against three
# kprobe events (ftrace, no BPF) counting the same calls:
#   strf       select_task_rq_fair() calls;
#   strf_ttwu  the wakeups among them (WF_TTWU = 0x08; wake_flags is the
#              3rd argument, %dx on x86-64);
#   aic        available_idle_cpu() calls made from inside
#              select_task_rq_fair(), where every SIS stage is inlined: the
#              caller is the return address on the stack at entry, kept
#              when it lies in the function's text. (sisscan puts no
#              kretprobe on available_idle_cpu: one would replace that
#              return address by its trampoline.) 7.3 inlines
#              available_idle_cpu() into choose_idle_cpu(), called once per
#              candidate instead.
sis_brackets() {
    sb_mode=$1
    probe_fn=available_idle_cpu
    grep -q " $probe_fn\$" /proc/kallsyms || probe_fn=choose_idle_cpu
    range=$(func_range select_task_rq_fair)
    sb_hists="" sb_on=""
    # sb_event NAME "FUNCTION [ARGS]" [FILTER]: one reference, or why not in sb_why_NAME
    sb_event() {
        if kprobe_event_on "$1" "$2" "${3:-}"; then
            sb_hists="$sb_hists ${1}_hits=$TRACEFS/events/schedscan/$1/hist"
            sb_on="$sb_on $1"
        else
            eval "sb_why_$1=\"cannot set the kprobe event '\$2' \${3:-}\""
        fi
    }
    sb_why_aic=""
    sb_event strf select_task_rq_fair
    sb_event strf_ttwu "select_task_rq_fair wake_flags=%dx:u32" "if wake_flags & 8"
    if [ -n "$range" ]; then
        sb_event aic "$probe_fn caller=\$stack0:x64" "if caller >= 0x${range% *} && caller < 0x${range#* }"
    else
        sb_why_aic="no select_task_rq_fair text range in kallsyms"
    fi
    # shellcheck disable=SC2086 # words intended
    if bracket_run sisscan "$sb_mode" $sb_hists; then
        for pair in select_task_rq_fair_calls:strf sis_search:strf_ttwu idle_probes:aic; do
            metric=${pair%:*} event=${pair#*:}
            case " $sb_on " in
                *" $event "*) bracket_judge "$metric" "${event}_hits" 2 ;;
                *) KIND="ground truth"
                   eval "why=\$sb_why_$event"
                   notok "sisscan $metric within the kernel's ${event}_hits (--mode $sb_mode) # $why" ;;
            esac
        done
    fi
    for event in $sb_on; do kprobe_event_off "$event"; done
}
run_brackets() {  # run_brackets MODES
    for mode in $1; do
        case " $TOOLS " in *" sisscan "*)
            if [ "$mode" = tracepoint ]; then
                bracket_check sisscan "$mode" wakeups ttwu_count 2
            else
                sis_brackets "$mode"
            fi ;;
        esac
        case " $TOOLS " in *" numascan "*)
            # numaremote: threads on node 0 writing memory placed on node 1,
            # so the window has remote and local hint faults, scan passes
            # and NUMA page migrations.
            BRACKET_LOAD=load_numaremote
            if [ "$mode" = tracepoint ]; then
                # sched_skip_vma_numa exists from 6.7 on
                skips=""
                if [ ! -d "$skip_vma" ]; then
                    skip "numascan numa_vma_skips within the kernel's skip_vma_hits" "no sched_skip_vma_numa before 6.7"
                elif hist_on "$skip_vma"; then
                    skips="skip_vma_hits=$skip_vma/hist"
                else
                    KIND="ground truth"
                    notok "numascan numa_vma_skips within the kernel's skip_vma_hits # cannot set a hist trigger on sched_skip_vma_numa"
                fi
                # the per-task estimate counts pages, /proc/vmstat faults: no
                # new THP (512 pages, one fault) while it runs (Debian's 6.12
                # has THP always: 1503 pages more than faults once)
                thp=/sys/kernel/mm/transparent_hugepage/enabled
                thp_was=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$thp" 2>/dev/null)
                [ -n "$thp_was" ] && echo never >"$thp"
                if bracket_run numascan "$mode" $skips; then
                    [ -n "$skips" ] && bracket_judge numa_vma_skips skip_vma_hits 2
                    bracket_judge numa_pages_migrated vmstat_numa_pages_migrated 2
                    # the tool's own /proc/vmstat deltas: its windows, not a measurement
                    JUDGE_KIND=consistency bracket_judge vmstat_numa_hint_faults vmstat_numa_hint_faults 2
                    # the per-task estimate (each task's numa_faults_locality read at
                    # its faults and switches) may lose up to 5%, never gain;
                    # numaremote's pages are 4 KiB: a page a fault
                    BRACKET_EXCESS=5 bracket_judge numa_hint_fault_pages vmstat_numa_hint_faults 2
                fi
                [ -n "$thp_was" ] && echo "$thp_was" >"$thp"
                [ -n "$skips" ] && hist_off "$skip_vma"
            else
                if bracket_run numascan "$mode"; then
                    bracket_judge numa_hint_faults vmstat_numa_hint_faults 2
                    bracket_judge numa_hint_faults_local vmstat_numa_hint_faults_local 2
                    bracket_judge numa_pte_updates vmstat_numa_pte_updates 2
                fi
            fi
            BRACKET_LOAD="" ;;
        esac
        case " $TOOLS " in *" idlebal "*)
            if [ "$mode" = tracepoint ]; then
                # Not /proc/stat's idle time: that stops at every interrupt
                # taken in the idle task and at the idle loop's own work
                # (seen: 4.4% less than the idle task ran under TCG).
                BRACKET_LOAD=load_spinners
                bracket_check idlebal "$mode" cpus.idle_ns sched_idle_ns 2
                BRACKET_LOAD=""
            else
                # One run for the passes, per domain too, and the newidle calls
                # (a kprobe event on the function: ftrace, no BPF).
                fn=sched_balance_newidle
                grep -q " $fn\$" /proc/kallsyms || fn=newidle_balance
                nib="" nib_gone=""
                if ! grep -q " $fn\$" /proc/kallsyms; then
                    nib_gone="$(uname -r) inlines sched_balance_newidle(): idlebal reports the newidle metrics unavailable"
                elif kprobe_event_on nib "$fn"; then
                    nib="nib_hits=$TRACEFS/events/schedscan/nib/hist"
                fi
                # Idle load balance kicks: nohz_csd_func() runs, from the csd
                # tracepoint (6.6+) or a kprobe event.
                ilb="" csd=$TRACEFS/events/csd/csd_function_entry
                addr=$(awk '$3 == "nohz_csd_func" { print $1; exit }' /proc/kallsyms)
                if [ -d "$csd" ] && [ -n "$addr" ] && hist_on "$csd" "if func == 0x$addr"; then
                    ilb="ilb_hits=$csd/hist"
                elif kprobe_event_on ilbk nohz_csd_func; then
                    ilb="ilb_hits=$TRACEFS/events/schedscan/ilbk/hist"
                fi
                # kstat -q: schedstat and the hist files only, short edges.
                KSTAT_ARGS=-q BRACKET_ARGS="--svg $W/bracket.svg"
                bracket_run idlebal "$mode" $nib $ilb
                brc=$?
                KSTAT_ARGS="" BRACKET_ARGS=""
                if [ $brc = 0 ]; then
                    bracket_judge load_balance_calls lb_count 2
                    if [ -n "$ilb" ]; then
                        bracket_judge ilb_kicks ilb_hits 2
                    else
                        KIND="ground truth"
                        notok "idlebal ilb_kicks within the kernel's ilb_hits (--mode $mode) # cannot count nohz_csd_func() with ftrace"
                    fi
                    if [ -n "$nib" ]; then
                        bracket_judge newidle_calls nib_hits 2
                    elif [ -n "$nib_gone" ]; then
                        KIND="ground truth"
                        skip "idlebal newidle_calls [$mode] within the kernel's nib_hits" "$nib_gone"
                    else
                        KIND="ground truth"
                        notok "idlebal newidle_calls within the kernel's nib_hits (--mode $mode) # cannot set a kprobe event on $fn"
                    fi
                    domain_judge
                    newidle_classes
                    domain_bars
                fi
                [ -n "$nib" ] && kprobe_event_off nib
                case "$ilb" in
                    *csd_function_entry*) hist_off "$csd" ;;
                    ?*) kprobe_event_off ilbk ;;
                esac
            fi ;;
        esac
    done
}

# ------------------------------------ idlebal: balance passes, overload

# domain_judge: idlebal's balance passes per domain and idle type against
# /proc/schedstat's, from the last bracket_run (the tool, kstat's cut
# reads and load_idlebal). For each of lb_count, lb_balanced, lb_failed,
# lb_gained, lb_hot_gained, lb_nobusyg, lb_nobusyq and lb_imbalance (the
# tool's four v17 parts added up), every (domain, idle type) cell: the tool's intervals
# between the reads count no more than the kernel's delta, the intervals
# around them no less, and their difference (the width) stays within 2%
# of the delta, the issue's tolerance: a cell's edges catch whole idle
# load balance runs (one run balances every idle CPU's domains), so the
# width is a few passes per cut: with kstat -q's short reads, cells of 300
# or more were at most 1.56% wide in 20 runs (34 of 2175 in an idle row),
# and a tool that lost 1 event in 20 ends below the kernel's delta with the
# whole edge on its side (0.95 x 1.02 < 1); cells under 400 events are
# pooled into one bracket per counter, at 3%: a cell of 3 cannot show a 2%
# loss, and the cuts' own scheduling adds 4-6 newidle passes to each
# newidle row's edges (a clean-clone run pooled 188 + 257 newidle passes
# with 9 in the edges: 2.02%; newidle cells of 313-324 reached 1.85-1.92%),
# so small rows cannot be bracketed to 2%; a pool under 400 gets the width
# a 400-event pool may have (12).
domain_judge() {
    KIND="ground truth"
    for counter in lb_count lb_balanced lb_failed lb_gained lb_hot_gained lb_nobusyg \
                   lb_nobusyq lb_imbalance; do
        # kprobe programs do not run while their CPU is inside a BPF syscall
        # (bpf_prog_active): a SCHED softirq at an interrupt during the
        # tool's own map reads, at each of the 4 cuts, balances unseen, and
        # kernels before 6.7 do not count such misses (seen: 1 busy pass of
        # 923 on 6.1, none in the edges). fentry counts its own, per program.
        cut_misses=0
        [ "$mode" = kprobe ] && cut_misses=4
        # Where need_active_balance() is inlined (7.3), a failed pass is
        # the one that raised the domain's lb_failed schedstat between its
        # entry and exit, counted at the exit: a pass under way at the
        # first read (raised before it, ended after) is counted inside, at
        # most one per CPU (a CPU runs one pass at a time).
        early=0
        if [ "$counter" = lb_failed ] && ! grep -q ' need_active_balance$' /proc/kallsyms; then
            early=$(nproc)
        fi
        result=$(awk -v c="$counter" -v tol=2 -v pool_tol=3 -v pool=400 -v cut_misses=$cut_misses -v early="$early" "$TABLE_AWK"'
            FILENAME ~ /kstat.a$/ { a[$1] = $2; next }
            FILENAME ~ /kstat.b$/ { b[$1] = $2; next }
            # Passes missed because a BPF program was already running on
            # that CPU (the softirq at an interrupt that came during one).
            /"type":"summary"/ { misses += recursion_misses() }
            /"type":"interval"/ {
                s = rec_time("start"); e = rec_time("end")
                inside = s >= a["realtime_after"] && e <= b["realtime_before"]
                around = e > a["realtime_before"] && s < b["realtime_after"]
                nin += inside
                n = rows("domains")
                for (k = 1; k <= n; k++) {
                    cell = c "_d" field(row[k], "domain") "_" field(row[k], "idle_type")
                    seen[cell] = 1
                    v = field(row[k], c)
                    # v17 splits the imbalance by migration type; the kernels here keep the sum
                    if (c == "lb_imbalance")
                        v = field(row[k], c "_load") + field(row[k], c "_util") + field(row[k], c "_task") + field(row[k], c "_misfit")
                    if (inside) inner[cell] += v
                    if (around) outer[cell] += v
                }
            }
            END {
                if (!nin || !("realtime_after" in a) || !("realtime_before" in b)) {
                    print "fail: no interval between the reads"; exit
                }
                if (cut_misses > misses) misses = cut_misses
                for (k in b) if (k ~ "^" c "_d[0-9]+_") seen[k] = 1
                fail = ""; cells = 0; worst = 0
                for (cell in seen) {
                    if (!(cell in b)) { fail = fail " " cell ": no kernel counter"; continue }
                    kd = b[cell] - a[cell]; i = inner[cell] + 0; o = outer[cell] + 0
                    detail = detail sprintf(" %s=%d[%d,%d]", substr(cell, length(c) + 3), kd, i, o)
                    if (kd < pool) { pk += kd; pi += i; po += o; continue }
                    cells++
                    w = 100 * (o - i) / kd; if (w > worst) worst = w
                    if (i > kd + early || kd > o + misses || w > tol) fail = fail sprintf(" %s: kernel %d, tool %d..%d (width %.2f%%)", cell, kd, i, o, w)
                }
                pw = pk ? 100 * (po - pi) / pk : 0
                if (pi > pk + early || pk > po + misses || (pk >= pool && pw > pool_tol) || (pk < pool && po - pi > pool * pool_tol / 100))
                    fail = fail sprintf(" pooled small cells: kernel %d, tool %d..%d", pk, pi, po)
                printf "%s %d cells of %d or more, worst width %.2f%% (tolerance %d%%); small cells pooled: kernel %d, tool %d..%d, width %.2f%% (tolerance %d%%);%s cells (kernel[inner,outer]):%s\n",
                    fail == "" ? "pass" : "fail:" fail " --", cells, pool, worst, tol, pk, pi, po, pw, pool_tol,
                    (misses ? sprintf(" %d missed events allowed;", misses) : "") \
                    (early ? sprintf(" %d passes under way at the first read allowed (inner - kernel: %d pooled);", early, pi - pk) : ""), detail
            }' "$W/kstat.a" "$W/kstat.b" "$W/bracket.out")
        desc="idlebal domains.$counter [$mode] per domain and idle type within /proc/schedstat's"
        case "$steps:$rc:$result" in
            ok:0:pass*) ok "$desc (${result#pass })" ;;
            *) notok "$desc # $steps, exit $rc: ${result:-no interval records}"
               tail -n 5 "$W/bracket.err" | diag 5 ;;
        esac
    done
}

# --svg's balance outcomes: three bars (lb_balanced, lb_failed,
# lb_gained) per row of the summary's domains table, at most 16 rows, each
# bar's tooltip ending in the row's count (the host has no domains table to
# draw: the tracepoint tier does not see load_balance()).
domain_bars() {
    KIND=consistency
    summary=$(json_summary "$W/bracket.out")
    want=$(echo "$summary" | awk "$TABLE_AWK"'{
        n = rows("domains"); m = n > 16 ? 16 : n
        for (k = 1; k <= m; k++)
            for (j = split("lb_balanced lb_failed lb_gained", c, " "); j > 0; j--) v = v " " field(row[k], c[j])
        print m * 3, v }')
    bars=$(grep -o 'class="bar"' "$W/bracket.svg" 2>/dev/null | wc -l)
    # Every count the rows hold is some bar's tooltip (": N" at its end).
    unlabelled=$(for v in ${want#* }; do grep -q ": $v</title>" "$W/bracket.svg" || echo "$v"; done | tr '\n' ' ')
    desc="idlebal --mode $mode --svg: three outcome bars per domain row of the summary, labelled with its counts"
    if [ "${want%% *}" -gt 0 ] && [ "$bars" = "${want%% *}" ] && [ -z "$unlabelled" ]; then
        ok "$desc ($bars bars)"
    else
        notok "$desc # bars $bars, want ${want%% *}; counts without a bar: ${unlabelled:-none}"
    fi
}

# Every newidle call ends in exactly one class (docs/metrics.md).
newidle_classes() {
    KIND=consistency
    if [ -n "$nib_gone" ]; then
        skip "idlebal [$mode]: the newidle classes add up to newidle_calls" "$nib_gone"
        return
    fi
    summary=$(json_summary "$W/bracket.out")
    calls=$(json_metric "$summary" newidle_calls)
    sum=0 detail=""
    for c in newidle_pulled newidle_no_pull newidle_skipped_no_overload newidle_skipped_cost \
             newidle_skipped_random newidle_skipped_other; do
        v=$(json_metric "$summary" $c)
        sum=$((sum + ${v:-0})) detail="$detail ${c#newidle_}=${v:-?}"
    done
    if [ -n "$calls" ] && [ "$calls" -gt 0 ] && [ "$sum" = "$calls" ]; then
        ok "idlebal [$mode]: the newidle classes add up to newidle_calls ($calls:$detail)"
    else
        notok "idlebal [$mode]: the newidle classes add up to newidle_calls # calls '$calls', classes$detail"
    fi
}

# overload_scenario TAG SECONDS "COMMANDS": idlebal (-i 0.5) around the
# scenario's commands, which run for SECONDS; sets ov_llc0 ov_llc1
# ov_system to the share (%) of the intervals inside the run (the first
# and last left out: their edges are start-up and stop) that each group
# spent overloaded while idle, ov_episodes to the episodes begun in
# them, ov_intervals to their number.
# run_checks ARGS...: the check runner (tests/check) with ARGS, its
# results renumbered into this stream (they carry their own [KIND]); a
# runner that crashes, or whose plan does not match its results, fails.
run_checks() {
    rc_out=$W/check.out
    "$BIN/check" --bin "$BIN" --work "$W/check" "$@" >"$rc_out" 2>"$W/check.err"
    rc_status=$?
    rc_plan=""
    rc_seen=0
    while IFS= read -r line; do
        case "$line" in
            "ok "[0-9]*" - "*)
                N=$((N + 1)); rc_seen=$((rc_seen + 1))
                case "$line" in *" # SKIP "*) SKIPPED=$((SKIPPED + 1)) ;; esac
                echo "ok $N - ${MUTATION:+mutation $MUTATION: }${line#ok * - }" ;;
            "not ok "[0-9]*" - "*)
                N=$((N + 1)); FAILED=$((FAILED + 1)); rc_seen=$((rc_seen + 1))
                echo "not ok $N - ${MUTATION:+mutation $MUTATION: }${line#not ok * - }" ;;
            1..[0-9]*) rc_plan=${line#1..} ;;
            *) echo "$line" ;;
        esac
    done <"$rc_out"
    if [ "$rc_status" -gt 1 ] || [ "$rc_plan" != "$rc_seen" ]; then
        KIND=behaviour
        notok "check $*: the runner finished # exit $rc_status, plan '${rc_plan}', $rc_seen results: $(head -c 300 "$W/check.err")"
    fi
}

idlebal_checks() {
    # Overloaded while idle (seed 001's rule) and migrations by cause
    # across LLCs: the runner's scenarios, written once for the host and
    # the guests (tests/check/idlebal_overload.c, idlebal_causes.c).
    run_checks --tier tracepoint --id 'idlebal.known.*,idlebal.consistency.*'
}

# ------------------------------------------------ numascan known answers

# trace_begin FILTER EVENT_DIR...: record those trace events (each with
# FILTER) into a 4 MiB-per-CPU buffer on the CLOCK_MONOTONIC trace clock
# (bpf_ktime_get_ns()'s, and comparable across CPUs). trace_end OUT: stop,
# copy the buffer to OUT, set trace_lost (events the buffer overwrote or
# dropped) and put the tracer back as it was.
trace_begin() {
    tb_filter=$1
    shift
    trace_events="$*"
    echo 0 >"$TRACEFS/tracing_on"
    echo >"$TRACEFS/trace"
    old_buffer=$(awk '{ print $1; exit }' "$TRACEFS/buffer_size_kb")
    echo 4096 >"$TRACEFS/buffer_size_kb"
    old_clock=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$TRACEFS/trace_clock")
    echo mono >"$TRACEFS/trace_clock"
    for e in $trace_events; do echo "$tb_filter" >"$e/filter"; echo 1 >"$e/enable"; done
    echo 1 >"$TRACEFS/tracing_on"
}
trace_end() {
    echo 0 >"$TRACEFS/tracing_on"
    cat "$TRACEFS/trace" >"$1"
    trace_lost=$(cat "$TRACEFS"/per_cpu/cpu*/stats 2>/dev/null | awk '$1 == "overrun:" || $1 == "dropped" { n += $NF } END { print n + 0 }')
    for e in $trace_events; do echo 0 >"$e/enable"; echo 0 >"$e/filter"; done
    echo "${old_clock:-local}" >"$TRACEFS/trace_clock"
    echo "${old_buffer:-1408}" >"$TRACEFS/buffer_size_kb"
    echo >"$TRACEFS/trace"
}

numascan_checks() {
    # numaremote's faults and migrations (tests/check/numascan_numaremote.c),
    # ownvmas' per-VMA scans and the PID hash (tests/check/numascan_ownvmas.c),
    # the scan audit against ftrace's replay (tests/check/numascan_audit.c)
    timed run_checks --tier "$(echo $MODES | tr ' ' ',')" \
        --id 'numascan.*.numaremote.*,numascan.*.ownvmas.*,numascan.*.pid_hash.*,numascan.*.audit.*'
}

# -------------------------------------- wakeloop scenarios, shared helpers
hist_slot() {  # hist_slot SUMMARY NAME VALUE -> the count of linear slot VALUE
    printf '%s\n' "$1" | grep -o "\"$2\":{\"hist\":{[^]]*" |
        sed -n "s/.*{\"low\":$3,\"high\":$3,\"count\":\([0-9]*\)}.*/\1/p"
}
wl_sleeper() {  # wl_sleeper FILE: the sleeper thread's TID wakeloop printed (-1: none)
    t=$(sed -n 's/.* sleeper \([0-9]*\) .*/\1/p' "$1" | head -n 1)
    echo "${t:--1}"
}
wl_count() {  # wl_count FILE landed|slept CPU
    awk -v k="$2" -v c="$3" '$1 == k && $2 == c { print $3 }' "$1"
}
within() {  # within A B: |A - B| <= 2% of B + 2
    [ $(( ($1 - $2) * 50 )) -le $(( $2 + 100 )) ] && [ $(( ($2 - $1) * 50 )) -le $(( $2 + 100 )) ]
}
within_range() {  # within_range A LO HI: LO - (2% of LO + 2) <= A <= HI + 2% of HI + 2
    [ $(( ($3 - $1) * 50 )) -ge $(( -($3 + 100) )) ] && [ $(( ($1 - $2) * 50 )) -ge $(( -($2 + 100) )) ]
}
cpu_occupants() {  # cpu_occupants CPU: the runnable tasks last on CPU, "pid comm" each
    for st in /proc/[0-9]*/task/[0-9]*/stat; do
        # the fields after "(comm) ": state is the 1st, processor the 37th
        sed 's/^\([0-9]*\) (\(.*\)) /\1 \2|/' "$st" 2>/dev/null
    done | awk -F'|' -v c="$1" '{ split($2, f, " "); if (f[1] == "R" && f[37] == c) printf "%s; ", $1 }'
}
wakeloop_scenario() {  # wakeloop_scenario MODE TAG "SPIN CPUS" NO_SIS_UTIL(0|1) WAKELOOP ARGS...
    sr_mode=$1 sr_tag=$2 sr_spin=$3 sr_noutil=$4
    shift 4
    if [ "$sr_noutil" = 1 ]; then echo NO_SIS_UTIL >"$FEATURES"; fi
    wl=$W/scenario.$sr_tag.$sr_mode.wl
    # shellcheck disable=SC2086 # SCENARIO_ARGS: more sisscan options
    sisscan_around "$W/scenario.$sr_tag.$sr_mode.json" "$W/scenario.err" \
        "spinners_around '$sr_spin' \"\$WL/wakeloop\" $* >\"$wl\" 2>&1" \
        --mode "$sr_mode" --comm wakeloop --linear ${SCENARIO_ARGS:-}
    stop_load
    # what the tool reads for sched_feat(SIS_UTIL), while it is off
    [ "$sr_noutil" = 1 ] && sr_features="sysctl_sched_features $(sed -n 's/.*sysctl_sched_features *: *//p' /sys/kernel/debug/sched/debug 2>/dev/null | head -n 1) at $(grep ' sysctl_sched_features$' /proc/kallsyms | tr '\n' ' ')"
    echo SIS_UTIL >"$FEATURES"
    summary=$(json_summary "$W/scenario.$sr_tag.$sr_mode.json")
    search=$(json_metric "$summary" sis_search)
    [ "$sr_noutil" = 1 ] && note "  SIS_UTIL off for $sr_tag: $sr_features"
    note "  $sr_mode $sr_tag: sis_search=$search target_idle=$(json_metric "$summary" sis_target_idle) prev_idle=$(json_metric "$summary" sis_prev_idle) smt_hit=$(json_metric "$summary" sis_smt_hit) domain_hit=$(json_metric "$summary" sis_domain_hit) domain_failed=$(json_metric "$summary" sis_domain_failed) scan_skipped=$(json_metric "$summary" sis_scan_skipped) undecoded=$(json_metric "$summary" sis_undecoded) sis_scanned=$(json_metric "$summary" sis_scanned) scan_depth $(hist_brief scan_depth) nr_idle_scan $(hist_brief nr_idle_scan); wakeloop: $(tr '\n' ' ' <"$wl")"
}
# hist_brief NAME: $summary's histogram NAME as "low:count ..." ("-": none)
hist_brief() {
    printf '%s\n' "$summary" | grep -o "\"$1\":{\"hist\":{[^]]*" |
        grep -o '"low":[0-9]*,"high":[0-9]*,"count":[0-9]*' |
        sed 's/"low":\([0-9]*\),"high":[0-9]*,"count":/\1:/' | tr '\n' ' ' | sed 's/ $//;s/^$/-/'
}
# scenario_verdict DESC DETAIL CHECK: ok or not ok by the CHECK function.
scenario_verdict() {
    if "$3"; then
        ok "$1 ($2)"
    else
        notok "$1 # exit $rc: $2"
        tail -n 3 "$W/scenario.err" | diag 3
    fi
}
# the scheduler's features (SIS_UTIL off for full scans)
FEATURES=/sys/kernel/debug/sched/features

sis_checks() {
    KIND=behaviour
    "$BIN/sisscan" --filter real -d 1 >/dev/null 2>"$W/real.err"
    rc=$?
    if [ "$rc" = 1 ] && grep -q "no SIS filter mask" "$W/real.err"; then
        ok "sisscan --filter real on a stock kernel: exit 1, the patches are not applied"
    else
        notok "sisscan --filter real on a stock kernel # exit $rc: $(head -c 200 "$W/real.err")"
    fi
    # the filter audit's accounting (tests/check/sisscan_audit.c); no
    # missed idle CPU (tests/check/sisscan_nomiss.c); wakeloop's known
    # answers, the tiers' agreement, the scan target without want_affine
    # and SIS_UTIL's effects (tests/check/sisscan_wakeloop.c, whose checks
    # fail when SIS_UTIL cannot be turned off)
    # and --compare's verdicts on SIS_UTIL on against off
    timed run_checks --tier "$(echo $MODES | tr ' ' ',')" \
        --id 'sisscan.known.*,sisscan.consistency.*'
}

# ------------------------------------------------ sisscan: the SMT stages
# The SMT boot (tests/vm/vmcheck.sh, -smp 8,sockets=2,cores=2,threads=2,
# SCHEDSCAN_SMT=1): cores {0,1} {2,3} share LLC {0-3}. Three wakeloop
# scenarios whose outcome the source of select_idle_sibling() fixes
# (6.1 fair.c select_idle_core() L6672-6697, select_idle_smt() L6703-6720,
# select_idle_cpu() L6751-6835, select_idle_sibling() L6910-7010; the same
# code in 6.12), in the tiers that decode the stages. The expected counts
# come from what wakeloop reports: the wakeups whose sleeper went to sleep
# where the scenario wants it ("slept CPU N"; balancing moves it now and
# then) and where it landed ("landed CPU N").
#   idle core:  waker and sleeper on CPU 0, the rest idle. S1 finds 0 busy;
#     test_idle_cores() is true (core {2,3} idle), so no S7 and the scan
#     runs select_idle_core() from 1: core {0,1} probes 0 (busy) and 1
#     (idle, remembered), core {2,3} probes 2 and 3, both idle: core 2 is
#     returned. A domain hit at depth 4 on CPU 2, neither the last probe
#     (3) nor the first idle one (1).
#   idle sibling: the same with spinners on 2 and 3 and a waker that never
#     idles (-b), so no core is ever idle: S7's select_idle_smt(prev = 0)
#     skips 0 and probes 1, idle: sis_smt_hit, on CPU 1.
#   prev skipped: waker spinning on 0, sleeper sleeping on 1 (-p 1) next to
#     a spinner, a spinner on 3, SIS_UTIL off. Pipe wakeups are sync and
#     the waker is alone on 0, so wake_affine() picks target 0; S2 probes
#     prev 1 (busy); S7 probes 0 only (prev skipped); the scan from 1
#     probes 1, then 2 (idle): depth 2 on CPU 2. A decoder that let S7
#     take prev would report depth 1.
# The v4 "unoccupied" filter model audits the first two (seed 000 P5-P7):
#   idle core: the LLC has an idle core, so v4 scans the whole LLC, not
#     its mask: it lets every CPU through, and busy CPU 0 (the waker) is
#     a false positive in 90-110% of the audits, with no false negative
#     (at most 2%). A model that used its mask here would hide CPU 0.
#   idle sibling: core {2,3} runs two spinners and CPU 0 the waker, so
#     every SMT-level balance of core {2,3} finds it busy (two in a row
#     clear its bits) and CPU 0 is never unoccupied: the mask holds no busy
#     CPU, false positives in at most 2% of the audits, and the model must
#     have updated (filter_unoccupied_updates > 0). CPU 1's bit is set by
#     CPU 0's balancing and cleared, as posted, by CPU 1's own (dst the
#     only unoccupied CPU: P7 computes icpu = dst but passes -1): its
#     false negatives follow which of the two balanced last, reported only.
# Each scenario's answer, its counts bound by what wakeloop reported.
idle_core_answer() {
    [ "$rc" = 0 ] && [ -n "$slept0" ] && [ -n "$landed2" ] && [ -n "$failed" ] &&
        [ $(( ${hit:-0} * 10 )) -ge $(( slept0 * 9 )) ] && [ $(( landed2 * 10 )) -ge $(( n * 9 )) ] &&
        within "${depth4:-0}" "$landed2" && [ $(( failed * 50 )) -le $(( ${search:-0} + 100 )) ]
}
# The answer follows what the workload saw: every wakeup from prev 0 that
# landed on CPU 1 is select_idle_smt()'s (those from prev 1 take the fast
# path), and those that found CPU 1 busy stay on target 0: the scan
# skipped (no idle core, LLC busy) or done and failed. Under TCG the
# kprobe tier leaves CPU 1 busy at up to 17% of the wakeups (seen 69 of
# 400: smt_hit 319 = 331 landed on 1 - 7 fast-path, scan_skipped 70 +
# domain_failed 1 = 69 landed on 0), so the scenario need only mostly
# happen (half the wakeups on CPU 1); a run where it did not (CPU 1 busy
# at 245 of 400, and some wakeups placed on 0 then pulled to idle CPU 1:
# smt_hit 142 against 155 - 8) is a SKIP that says so, not an answer.
# The wakeups SIS never saw (n - sis_search: the sleeper still queued on
# CPU 0 is woken in place by ttwu_runnable() without select_task_rq(), or
# the wakeup fell outside the tool's window) land on CPU 0 too, so CPU 0's
# landings lie between the scans that found nothing and those plus the
# unsearched wakeups (a CI run: 45 on CPU 0 = 39 skipped + 3 failed + 3 of
# the 4 unsearched), less those a balancer moved from CPU 0 to another CPU
# before they ran (they land on neither 0 nor 1: a run saw 118 skipped, 105
# on CPU 0 and 14 elsewhere, with CPU 1 busy at 117 of 400 wakeups).
# other_wakings TRACE SLEEPER [SHOW]: how many of SLEEPER's sched_waking
# events (each followed by its stacktrace trigger's "=> func" lines) did
# not come from a pipe write; with SHOW, the first SHOW of them, stacks
# included, instead of the count.
other_wakings() {
    awk -v sleeper="$2" -v show="${3:-0}" '
        function flush() { if (keep) { n++; if (n <= show) print blk } keep = 0 }
        / sched_waking: / { flush(); keep = index($0, " pid=" sleeper " ") > 0; blk = $0; next }
        /=> / { blk = blk "\n" $0; if ($0 ~ /pipe_write/) keep = 0 }
        END { flush(); if (!show) print n + 0 }' "$1"
}
# The sleeper's other wakings (6.18, 7.3: the waker's polling read of the
# ready pipe holds the pipe's mutex while the sleeper writes to it, and its
# unlock wakes the sleeper, blocked on CPU 1: one more search, prev idle)
# are $extra, counted by ftrace; each is a fast-path hit that landed
# nowhere the workload counts.
idle_sibling_answer() {
    [ "$rc" = 0 ] && [ -n "$slept0" ] && [ -n "$landed1" ] && [ -n "$smt" ] &&
        [ -n "$prev_idle" ] && [ -n "$skipped" ] && [ $(( landed1 * 2 )) -ge "$n" ] &&
        [ -n "$failed" ] && [ -n "$search" ] && [ "$search" -le $(( n + extra )) ] &&
        within "$smt" "$(( landed1 - prev_idle + extra ))" &&
        within_range "${landed0:-0}" "$(( skipped + failed - (n - ${landed0:-0} - landed1) ))" \
            "$(( skipped + failed + n + extra - search ))"
}
undecoded_rare() {
    [ "$rc" = 0 ] && [ "${search:-0}" -ge 5000 ] && [ -n "$undecoded" ] &&
        [ $(( undecoded * 1000 )) -le "$search" ]
}
v4_all_pass_answer() {
    [ "$rc" = 0 ] && [ -n "$vfp" ] && [ -n "$vfn" ] && [ "${audits:-0}" -ge $((n * 95 / 100)) ] &&
        [ $((vfp * 10)) -ge $((audits * 9)) ] && [ $((vfp * 10)) -le $((audits * 11)) ] &&
        [ $((vfn * 50)) -le "$audits" ]
}
# Busy cores stay hidden but for the stale spells the v4 model has by
# design: when a spinner's CPU is briefly idle (a kworker ran), its newidle
# balance marks the core unoccupied, and only the next busy SMT-level
# balance (every 16 x 2 ms or more, slower under TCG) hides it again, while
# the wakeups come every 2 ms. Measured: 0-6 of ~400 audits in most runs,
# 11 and 97 of ~397 once each; passing everything, as with an idle core,
# is ~100% (v4_all_pass_answer). The bound separates the two; how stale
# the model gets is what the audit measures, not a constant.
v4_busy_hidden_answer() {
    [ "$rc" = 0 ] && [ -n "$vfp" ] && [ "${audits:-0}" -ge $((n * 95 / 100)) ] &&
        [ $((vfp * 2)) -le "$audits" ] && [ "${vupd:-0}" -gt 0 ]
}
v4_counts() {  # sets vfp vfn vupd audits from $summary
    vfp=$(json_metric "$summary" filter_unoccupied_fp)
    vfn=$(json_metric "$summary" filter_unoccupied_fn)
    vupd=$(json_metric "$summary" filter_unoccupied_updates)
    audits=$(json_metric "$summary" audits)
}
# Every landing on CPU 2 of a wakee that did not sleep there is a scan
# that probed prev 1's sibling order and stopped at 2: a domain hit at
# depth 2. The wakeups that found CPU 2 busy too (TCG's vCPUs hold a
# migration thread or kworker there: 42 of 400 in a CI run) answer nothing.
prev_skipped_answer() {
    [ "$rc" = 0 ] && [ -n "$slept1" ] && [ -n "$landed2" ] && [ -n "$depth2" ] && [ -n "$hit" ] &&
        within "$hit" "$(( landed2 - ${slept2:-0} ))" &&
        within "$depth2" "$(( landed2 - ${slept2:-0} ))"
}
sis_smt_checks() {
    KIND="known answer"
    n=400
    siblings=$(cat /sys/devices/system/cpu/cpu0/topology/thread_siblings_list 2>/dev/null)
    if [ "$siblings" != "0-1" ] && [ "$siblings" != "0,1" ]; then
        for mode in fentry kprobe; do
            for what in "an idle core found by select_idle_core()" "no idle core: select_idle_smt()" \
                        "select_idle_smt() skips prev" "guest, pingpong and hackbench"; do
                skip "sisscan --mode $mode: SMT, $what" "CPU 0's siblings are '$siblings', not 0-1: this kernel shows the guest no SMT"
            done
            for what in "an idle core" "busy cores"; do
                skip "sisscan --mode $mode --filter unoccupied: SMT, $what" "CPU 0's siblings are '$siblings', not 0-1: this kernel shows the guest no SMT"
            done
        done
        return
    fi
    if [ ! -w "$FEATURES" ]; then
        notok "sisscan SMT known answers # no $FEATURES to turn SIS_UTIL off"
        return
    fi
    # The shell, the tool and their children start on the other node, so
    # that nothing of theirs holds CPU 1 or 2 at a wakeup; the workloads
    # pin themselves where each scenario wants them. The spinning waker
    # settles 2 ms, not 0.3: at 0.3 ms up to 23% of the wakeups found
    # CPU 1 busy, we think still moving the sleeper to CPU 0 (its stopper
    # thread), which TCG's round-robin vCPUs can delay that long.
    taskset -p -c 4-7 $$ >/dev/null
    for mode in fentry kprobe; do
        SCENARIO_ARGS="--filter unoccupied" wakeloop_scenario "$mode" core "" 0 -c 0 -n $n
        hit=$(json_metric "$summary" sis_domain_hit)
        failed=$(json_metric "$summary" sis_domain_failed)
        depth4=$(hist_slot "$summary" scan_depth 4)
        slept0=$(wl_count "$wl" slept 0); landed2=$(wl_count "$wl" landed 2)
        scenario_verdict "sisscan --mode $mode: SMT, an idle core found by select_idle_core() is a domain hit at depth 4" \
            "domain_hit '$hit', depth 4: '$depth4', failed '$failed' of '$search' searches; slept on 0: '$slept0', landed on CPU 2: '$landed2' of $n" \
            idle_core_answer
        v4_counts
        scenario_verdict "sisscan --mode $mode --filter unoccupied: SMT, an idle core: the v4 model scans the whole LLC (busy CPU 0 passes)" \
            "fp '$vfp' fn '$vfn' over '$audits' audits, $vupd SMT-level updates" \
            v4_all_pass_answer

        # One more try when CPU 1 was busy at most wakeups (a CI run: at
        # all 400 of them, on 6.1 fentry only; kprobe in the same boot
        # found it idle at 395): the scenario, not the tool, failed then,
        # and what ran on CPU 1 is printed.
        for attempt in 1 2; do
            # the wakings and their kernel stacks: which are not the pipe's
            trace_begin 'comm == "wakeloop"' "$TRACEFS/events/sched/sched_waking"
            echo 'stacktrace if comm == "wakeloop"' >"$TRACEFS/events/sched/sched_waking/trigger"
            SCENARIO_ARGS="--filter unoccupied" wakeloop_scenario "$mode" sibling "2 3" 0 -c 0 -b -s 2000 -n $n
            echo '!stacktrace' >"$TRACEFS/events/sched/sched_waking/trigger"
            trace_end "$W/sibling.$mode.trace"
            sleeper=$(wl_sleeper "$wl")
            extra=$(other_wakings "$W/sibling.$mode.trace" "$sleeper")
            landed1=$(wl_count "$wl" landed 1); landed1=${landed1:-0}
            [ $(( landed1 * 2 )) -ge "$n" ] && break
            note "  $mode sibling, try $attempt: CPU 1 busy at $(( n - landed1 )) of $n wakeups; runnable there now: $(cpu_occupants 1)"
        done
        smt=$(json_metric "$summary" sis_smt_hit)
        prev_idle=$(json_metric "$summary" sis_prev_idle)
        skipped=$(json_metric "$summary" sis_scan_skipped)
        failed=$(json_metric "$summary" sis_domain_failed)
        slept0=$(wl_count "$wl" slept 0)
        landed0=$(wl_count "$wl" landed 0)
        desc="sisscan --mode $mode: SMT, no idle core: select_idle_smt() finds prev's idle sibling (sis_smt_hit)"
        facts="smt_hit '$smt' of '$search' searches (landed on CPU 1 '$landed1' - fast path '$prev_idle' + other wakings '$extra'), scan_skipped '$skipped' + domain_failed '$failed' (landed on CPU 0 '${landed0:-0}', unsearched '$(( n + extra - ${search:-0} ))'), sis_scanned '$(json_metric "$summary" sis_scanned)'; slept on 0: '$slept0' of $n; trace: $trace_lost events lost"
        if [ $(( landed1 * 2 )) -lt "$n" ]; then
            skip "$desc" "not the scenario: CPU 1 was busy at $(( n - landed1 )) of $n wakeups ($facts)"
        else
            scenario_verdict "$desc" "$facts" idle_sibling_answer
        fi
        if [ "${search:-0}" -gt $(( n + extra )) ]; then
            # more searches than wakings: the other wakings' stacks
            other_wakings "$W/sibling.$mode.trace" "$sleeper" 2 | head -n 40 | cut -c 1-150 | diag 40
        fi
        v4_counts
        # The busy cores' answer holds for the scenario as designed: CPU 1
        # idle at nearly every wakeup; when it was not, the model's state
        # follows balances the scenario did not plan (seen fp 228 of 398
        # with 69 wakeups finding CPU 1 busy), and there is no answer.
        desc="sisscan --mode $mode --filter unoccupied: SMT, busy cores: the v4 model hides them and updates"
        if [ $(( landed1 * 10 )) -ge $(( n * 9 )) ]; then
            scenario_verdict "$desc" \
                "fp '$vfp' over '$audits' audits, fn '$vfn' (CPU 1, as posted), $vupd of $(json_metric "$summary" filter_unoccupied_balances) SMT-level balances updated" \
                v4_busy_hidden_answer
        else
            skip "$desc" "not the scenario: CPU 1 was busy at $(( n - landed1 )) of $n wakeups (fp '$vfp' of '$audits')"
        fi

        # As for the sibling: one more try when CPU 2 was busy at most
        # wakeups, then "not the scenario", with what ran there.
        for attempt in 1 2; do
            wakeloop_scenario "$mode" prevskip "1 3" 1 -c 0 -p 1 -b -s 2000 -n $n
            landed2=$(wl_count "$wl" landed 2); landed2=${landed2:-0}
            [ $(( landed2 * 2 )) -ge "$n" ] && break
            note "  $mode prevskip, try $attempt: CPU 2 busy at $(( n - landed2 )) of $n wakeups; runnable there now: $(cpu_occupants 2)"
        done
        hit=$(json_metric "$summary" sis_domain_hit)
        failed=$(json_metric "$summary" sis_domain_failed)
        depth2=$(hist_slot "$summary" scan_depth 2)
        slept1=$(wl_count "$wl" slept 1)
        # A wakee that slept on idle CPU 2 (the sleeper did not get back
        # to 1 in time) lands there on the fast path (prev idle), with no
        # scan: those landings are not depth 2 (seen 15 of 400 once).
        slept2=$(wl_count "$wl" slept 2)
        desc="sisscan --mode $mode: SMT, select_idle_smt() skips prev: the scan from target 0 probes prev 1 and finds 2 at depth 2"
        facts="depth 2: '$depth2' of '$search' searches, domain_hit '$hit', domain_failed '$failed'; slept on 1: '$slept1', on 2: '${slept2:-0}'; landed on CPU 2: '$landed2' of $n, less those that slept there: '$(( landed2 - ${slept2:-0} ))'"
        if [ $(( landed2 * 2 )) -lt "$n" ]; then
            skip "$desc" "not the scenario: CPU 2 was busy at $(( n - landed2 )) of $n wakeups ($facts)"
        else
            scenario_verdict "$desc" "$facts" prev_skipped_answer
            # where a wakeup found CPU 2 busy, what ran there
            [ $(( landed2 * 10 )) -lt $(( n * 9 )) ] &&
                note "  $mode prevskip: CPU 2 busy at $(( n - landed2 )) of $n wakeups; runnable there now: $(cpu_occupants 2)"
        fi
    done
    taskset -p -c 0-7 $$ >/dev/null
    # Ordinary loads on the SMT guest: the grammar covers what they do.
    for mode in fentry kprobe; do
        desc="sisscan --mode $mode: SMT, guest, pingpong and hackbench: sis_undecoded under 0.1% of searches"
        if ! command -v hackbench >/dev/null; then
            notok "$desc # no hackbench in the guest image (rt-tests on the host)"
            continue
        fi
        sisscan_around "$W/smt.mix.$mode.json" "$W/scenario.err" \
            "\"$WL/pingpong\" -n 10000 >/dev/null 2>&1; hackbench -g 2 -l 50 >/dev/null 2>&1; hackbench -g 2 -l 50 -T -s 64 >/dev/null 2>&1" \
            --mode "$mode"
        summary=$(json_summary "$W/smt.mix.$mode.json")
        search=$(json_metric "$summary" sis_search)
        undecoded=$(json_metric "$summary" sis_undecoded)
        scenario_verdict "$desc" "undecoded '$undecoded' of '$search' searches (at least 5000: a quarter of pingpong's 20000 wakeups, 6.12 handles many in place); smt_hit '$(json_metric "$summary" sis_smt_hit)', domain_hit '$(json_metric "$summary" sis_domain_hit)', domain_failed '$(json_metric "$summary" sis_domain_failed)'" \
            undecoded_rare
    done
}

# ------------------------------------ the real SIS_FILTER mask (issue 13)
# The boot of tests/vm/build-patched-kernel.sh's kernel: 6.1 with the
# SIS_FILTER draft of seed 000 ported (tests/vm/patches/), its "overloaded"
# mask behind the SIS_FILTER sched feature. sisscan audits the draft's
# model (--filter overloaded) and the kernel's own mask (--filter real) at
# the same wakeups, with the feature off and on, SIS_UTIL off throughout
# (the model's depth is the scan's without SIS_UTIL's limit).
#
# Agreement bound, 95% of the per-CPU verdicts: the model recomputes the
# bit from the same runqueue fields at the same tick
# (hrtimer_expire_entry of tick_sched_timer, on the CPU whose tick it is)
# as update_overloaded_rq() in scheduler_tick(), a few microseconds later,
# after update_rq_clock() and the task tick have refreshed PELT: the two
# can differ only when util or runnable crosses the imbalance_pct
# threshold within that tick, or a remote wakeup changes nr_running in
# between, and the real mask is read at the audit (SIS's exit), not at
# select_idle_cpu(). Each is rare against 250 ticks a second per CPU.
# The v4 port (SIS_FILTER_V4, the SMT boot) against --filter unoccupied:
# 95% too. The model runs the patch's steps at the entry of the same
# SMT-level load_balance() calls, from the runqueue fields that
# update_sg_lb_stats() reads microseconds later, and the LLC's busy state
# from the same scan outcomes; they differ when a runqueue changes in
# between, a redo pass updates again, two balances race for `updating`,
# or the mask changes between the scan and the audit (tests/vm/README.md).
hist_buckets() {  # hist_buckets SUMMARY NAME -> "LOW COUNT" per bucket
    printf '%s\n' "$1" | grep -o "\"$2\":{\"hist\":{[^]]*" |
        grep -o '"low":[0-9]*,"high":[0-9a-z]*,"count":[0-9]*' |
        awk -F'[:,]' '{ print $2, $6 }'
}
hist_sum() {  # hist_sum SUMMARY NAME -> "SUM COUNT" of a --linear count histogram
    hist_buckets "$1" "$2" | awk '{ s += $1 * $2; n += $2 } END { printf "%d %d\n", s, n }'
}
hist_mean100() {  # hist_mean100 SUMMARY NAME -> 100 x its mean ("" if empty)
    hist_sum "$1" "$2" | awk '$2 > 0 { printf "%d\n", 100 * $1 / $2 }'
}
# F, M (set by sis_filter_real_checks): the port's sched feature and the
# model it is held against (SIS_FILTER and overloaded, SIS_FILTER_V4 and
# unoccupied).
real_filter_run() {  # real_filter_run TAG FEATURE($F|NO_$F) SPIN_CPUS CMD [SISSCAN ARGS]
    rf_tag=$1 rf_feature=$2 rf_spin=$3 rf_cmd=$4
    shift 4
    echo NO_SIS_UTIL >"$FEATURES"
    echo "$rf_feature" >"$FEATURES"
    # v4's state has memory: a core that stays busy keeps its bits, and
    # the LLC stays sd_is_busy until a balance finds an unoccupied CPU,
    # so what the previous run left would be held against a model seeded
    # from the runqueues at the attach. A sched domain rebuild (CPU 7 off
    # and on) allocates fresh state: cores busy, mask empty, LLC not busy,
    # what each core's first balance after the attach starts from.
    if [ "$rf_feature" = SIS_FILTER_V4 ] && [ -w /sys/devices/system/cpu/cpu7/online ]; then
        echo 0 >/sys/devices/system/cpu/cpu7/online && echo 1 >/sys/devices/system/cpu/cpu7/online ||
            note "  CPU 7 offline/online failed: the v4 state is the previous run's"
    fi
    for c in $rf_spin; do
        "$WL/spinner" -c $c -s 600 >/dev/null 2>&1 &
        LOAD_PIDS="$LOAD_PIDS $!"
    done
    sisscan_around "$W/real.$rf_tag.$rf_feature.json" "$W/real.err" "$rf_cmd" \
        --mode fentry --linear --filter "$M,real" "$@"
    stop_load
    echo "NO_$F" >"$FEATURES"
    echo SIS_UTIL >"$FEATURES"
    summary=$(json_summary "$W/real.$rf_tag.$rf_feature.json")
    note "  $rf_tag $rf_feature: $(for m in audits audit_cpus sis_search sis_domain_search sis_scan_skipped sis_undecoded filter_${M}_fp filter_${M}_fn filter_real_fp filter_real_fn filter_${M}_disagree_real filter_${M}_agree_real_pct filter_${M}_balances filter_${M}_updates; do printf '%s=%s ' $m "$(json_metric "$summary" $m)"; done)depth x100: scan_depth=$(hist_mean100 "$summary" scan_depth) model=$(hist_mean100 "$summary" filter_${M}_scan_depth) real=$(hist_mean100 "$summary" filter_real_scan_depth)"
}
mean100() {  # mean100 SUM COUNT -> 100 x SUM / COUNT, 0 when COUNT is 0
    if [ "${2:-0}" -gt 0 ]; then echo $(( 100 * $1 / $2 )); else echo 0; fi; }
fmt100() {  # fmt100 X -> X / 100 with two decimals
    printf '%d.%02d' $(( $1 / 100 )) $(( $1 % 100 )); }
sis_filter_real_checks() {  # sis_filter_real_checks FEATURE MODEL
    F=$1 M=$2
    KIND=environment
    if ! grep -qw "$F" "$FEATURES" 2>/dev/null && ! grep -qw "NO_$F" "$FEATURES" 2>/dev/null; then
        notok "patched kernel: $F in $FEATURES # not there: $(head -c 300 "$FEATURES" 2>&1)"
        return
    fi
    ok "patched kernel: $F in $FEATURES (off at boot: $(grep -ow "NO_$F" "$FEATURES"))"
    n=400
    for w in spinners pingpong hackbench; do
        case $w/$F in
            # The draft (no SMT): CPUs 1 and 3 doubly loaded, CPU 2 idle.
            spinners/SIS_FILTER) spin="1 1 3 3"; args="--comm wakeloop"
                      cmd="\"$WL/wakeloop\" -c 0 -n $n >\"$W/real.wl\" 2>&1" ;;
            # v4 (SMT, cores {0,1} {2,3} in LLC 0): CPU 0 kept busy by the
            # polling waker (-b), spinners on 1 and 2: no idle core, CPU 3
            # the LLC's one idle CPU.
            spinners/SIS_FILTER_V4) spin="1 2"; args="--comm wakeloop --events $W/real.v4.ev"
                      cmd="\"$WL/wakeloop\" -c 0 -b -n $n >\"$W/real.wl\" 2>&1" ;;
            # Six pairs on eight CPUs: a wakee's prev is often busy, so
            # the domain scan runs (one pair is placed by the fast path
            # alone: two domain searches in 20000 wakeups). Waited for by
            # PID: the tool is this shell's child too.
            pingpong/*) spin=""; args="--comm pingpong"
                      cmd="pp=''; for i in 1 2 3 4 5 6; do \"$WL/pingpong\" -n 1000 >/dev/null 2>&1 & pp=\"\$pp \$!\"; done; wait \$pp" ;;
            hackbench/*) spin=""; args="--comm hackbench"
                       cmd="hackbench -g 2 -l 50 >/dev/null 2>&1" ;;
        esac
        # shellcheck disable=SC2086 # args: more sisscan options
        real_filter_run "$w" "NO_$F" "$spin" "$cmd" $args
        off_rc=$rc off=$summary
        # shellcheck disable=SC2086
        real_filter_run "$w" "$F" "$spin" "$cmd" $args
        on=$summary
        audits=$(json_metric "$on" audits)
        cpus=$(json_metric "$on" audit_cpus)
        dis=$(json_metric "$on" filter_${M}_disagree_real)
        agree=$(json_metric "$on" filter_${M}_agree_real_pct)
        rates="model fp $(json_metric "$on" filter_${M}_fp_pct)% fn $(json_metric "$on" filter_${M}_fn_pct)%, real fp $(json_metric "$on" filter_real_fp_pct)% fn $(json_metric "$on" filter_real_fn_pct)%"
        KIND="known answer"
        if [ "$rc" = 0 ] && [ "${audits:-0}" -ge 100 ] && [ -n "$dis" ] && [ "$cpus" -gt 0 ] &&
           [ $(( dis * 20 )) -le "$cpus" ]; then
            ok "sisscan --filter $M,real, $F on, $w: the model's verdicts agree with the kernel's mask in at least 95% ($agree% of $cpus verdicts at $audits wakeups; $rates)"
        else
            notok "sisscan --filter $M,real, $F on, $w: the model's verdicts agree with the kernel's mask in at least 95% # exit $rc: agree '$agree'% ('$dis' of '$cpus' differ, $audits audits; $rates)"
            tail -n 3 "$W/real.err" | diag 3
        fi
        # Off, the kernel does not use its mask: real passes every CPU.
        KIND=consistency
        offfn=$(json_metric "$off" filter_real_fn); offpassed=$(json_metric "$off" filter_real_passed)
        offcpus=$(json_metric "$off" audit_cpus)
        if [ "$off_rc" = 0 ] && [ "$offfn" = 0 ] && [ -n "$offcpus" ] && [ "$offpassed" = "$offcpus" ]; then
            ok "sisscan --filter real, $F off, $w: the kernel's mask is not applied, every CPU passes (passed $offpassed of $offcpus, fn 0)"
        else
            notok "sisscan --filter real, $F off, $w: every CPU passes # exit $off_rc: passed '$offpassed' of '$offcpus', fn '$offfn'"
        fi
        # Prediction vs reality: the mean depth the model predicts with
        # the feature off, the mean depth of the kernel's scans with it on,
        # over the searches that reached the domain scan. A filtered scan
        # with nothing left to probe makes no probe, so the decoder calls
        # it scan_skipped (SIS_UTIL, the other reason, is off): it counts
        # with depth 0, as the model's empty mask does. Two checks:
        # - at the same wakeups (feature on), the model's depth is the
        #   kernel's within 5% + 0.05 CPU: the model decides as the patch
        #   does (measured 0-2% apart);
        # - across runs, the model on the unfiltered kernel predicts the
        #   filtered kernel's depth within 10% of the unfiltered depth for
        #   the draft's spinner mix (1.01 for 1.02 against 2.04; 1.01 for
        #   1.00 against 2.02), whose every wakeup lands where the known
        #   answer below says. Within 50% of it for the other workloads,
        #   where the filter feeds back into the placement, which the
        #   unfiltered run cannot see: each wakeup the filter hides an idle
        #   CPU from stacks on a busy one and changes what is overloaded or
        #   unoccupied next. Where the saving is large the bound fails a
        #   model that predicts none; where it is small (the draft's
        #   ping-pong pairs, 3-45% of the unfiltered depth) it only bounds
        #   the error; for the draft's ping-pong it is printed, not
        #   asserted (below). Measured, as predicted
        #   for measured (unfiltered), off by, of the unfiltered depth:
        #   draft, hackbench: 0.37 for 0.31, 0.23 for 0.10, 0.37 for 0.15,
        #   0.33 for 0.95 (3.99), 1.5-15.5%; draft, six ping-pong pairs
        #   (the kernel's stale bits hid an idle CPU at 1.6-4.2% of the
        #   verdicts against 0.0-0.2% predicted, and the pairs' placement
        #   varies from run to run): 3.50 for 2.14, 2.64 for 1.66, 3.69 for
        #   3.28, 1.55 for 1.70, 3.69 for 1.50 (3.80-3.97), 4-57%; v4 (its busy LLC stacks
        #   wakees on target, which kicks the nohz idle balance, whose
        #   balances by the idle CPUs clear them from the mask: the known
        #   answer below): ping-pong 0.29 for 0.22 (3.85), the spinner mix
        #   0.30-0.55 for 0.01 (3.02-3.06), 2-18%; hackbench 0.00 for 0.00.
        KIND="known answer"
        r=$(hist_sum "$off" filter_${M}_scan_depth); psum=${r% *} pn=${r#* }
        r=$(hist_sum "$on" scan_depth); msum=${r% *}
        r=$(hist_sum "$on" filter_${M}_scan_depth); ssum=${r% *} sn=${r#* }
        ds=$(json_metric "$on" sis_domain_search); sk=$(json_metric "$on" sis_scan_skipped)
        mn=$(( ${ds:-0} + ${sk:-0} ))
        # (busybox's $(( )) evaluates both arms of ?:, so no division by 0 there)
        pred=$(mean100 "$psum" "$pn"); real=$(mean100 "$msum" "$mn")
        # the same wakeups: the model's depth is recorded for the scans
        # that probed (sis_domain_search), as is the kernel's. v4's busy
        # LLC makes SIS return target with no scan at all (most wakeups
        # here): the model's verdict there is "no scan" too, so both means
        # are taken over every search that reached the scan or the bail-out.
        if [ "$F" = SIS_FILTER_V4 ]; then
            sn=$mn same=$(mean100 "$ssum" "$mn"); realp=$(mean100 "$msum" "$mn")
        else
            same=$(mean100 "$ssum" "$sn"); realp=$(mean100 "$msum" "${ds:-0}")
        fi
        unf=$(hist_mean100 "$off" scan_depth); unf=${unf:-0}
        desc="sisscan --filter $M,real, $F on, $w: at the same wakeups the model's mean scan depth is the kernel's within 5% + 0.05"
        detail="model $(fmt100 "$same") over $sn scans, kernel $(fmt100 "$realp") over ${ds:-0} scans + ${sk:-0} skipped"
        if [ "$sn" -ge 50 ] && [ $(( (same - realp) * 20 )) -le $(( realp + 100 )) ] &&
           [ $(( (realp - same) * 20 )) -le $(( realp + 100 )) ]; then
            ok "$desc ($detail)"
        else
            notok "$desc # $detail (at least 50 scans)"
        fi
        tol=50 why=", where the filter feeds back into the placement"
        if [ "$w/$F" = spinners/SIS_FILTER ]; then tol=10 why=""; fi
        desc="sisscan, $w: the $M model's scan depth on the unfiltered kernel ($F off) predicts the filtered kernel's within $tol% of the unfiltered depth$why"
        detail="predicted $(fmt100 "$pred") over $pn scans, measured $(fmt100 "$real") over $mn, unfiltered $(fmt100 "$unf")"
        if [ "$w/$F" = pingpong/SIS_FILTER ]; then
            # Printed, not asserted (docs/metrics.md): the six pairs'
            # placement under the draft varies from run to run, and with
            # it the filtered depth (measured 1.50-3.28 for 3.50-3.69
            # predicted, -57% to +10% of the unfiltered 3.80-3.97), so no
            # tolerance both holds and would fail a wrong model; the
            # model's depth at the same wakeups (above) is its check here.
            note "  sisscan, $w: the $M model's scan depth on the unfiltered kernel ($F off) against the filtered kernel's, printed, not asserted: $detail"
        elif [ "$pn" -ge 50 ] && [ "$mn" -ge 50 ] && [ $(( (pred - real) * 100 )) -le $(( tol * unf )) ] &&
           [ $(( (real - pred) * 100 )) -le $(( tol * unf )) ]; then
            ok "$desc ($detail)"
        else
            notok "$desc # $detail (at least 50 scans each)"
        fi
        [ "$w" = spinners ] || continue
        d1=$(hist_slot "$on" scan_depth 1)
        search=$(json_metric "$on" sis_domain_search)
        rfp=$(json_metric "$on" filter_real_fp); rfn=$(json_metric "$on" filter_real_fn)
        if [ "$F" = SIS_FILTER_V4 ]; then
            # The port itself. CPUs 1 and 2 (the spinners) are occupied
            # throughout: no balance of their cores classifies them
            # unoccupied, so the mask never holds them (fp on them at
            # most 2% of the audits). CPU 0 (the polling waker) and CPU 3
            # are where the wakee comes and goes (an idle balance may
            # pull it to CPU 3 between its placement and its run), so
            # their fp verdicts are printed, not bounded. A scan of the
            # mask from CPU 0 probes CPU 3 alone (depth 1), or nothing
            # (depth 0, below).
            # Printed, not asserted: how often the LLC sits in
            # sd_is_busy and hides CPU 3. As posted, P7's sd_update_state()
            # passes sds->idle_cpu (-1) rather than icpu (dst) when dst is
            # its core's only unoccupied CPU, so a balance by idle CPU 3
            # itself (the nohz idle balance, kicked by the wakees stacked
            # on CPU 0) clears core {2,3} from the mask while leaving the
            # LLC not busy; the next scan, over an empty mask, probes
            # nothing (depth 0), fails and marks it busy until CPU 2's next
            # balance (measured: 96-100% of the wakeups). So the scans are
            # few (0-5 of 400) and a run may have only that one, at depth 0
            # (CI of stop 26: 1 scan, not at depth 1, 399 skipped). The
            # known answer is that no scan probes a busy CPU: depth 2 or
            # more in at most 10% of the scans, or each such scan matched
            # by a real fp verdict (a busy CPU in the mask), which is
            # bounded above. The depths seen are printed.
            # The fp verdicts per CPU, from the --events records (each
            # audit's unoccupied CPUs and what the kernel's mask let
            # through): on the spinners' CPUs 1 and 2 (bounded), on CPUs
            # 0 and 3 where the waker and the wakee come and go, and in
            # audits where every CPU passed (the LLC said it had an idle
            # core). d19 saw 11 fp in 400 audits where the bound on the
            # total was 2%, with nothing to say which CPUs they were.
            set -- $(awk '{
                    u = $0; sub(/.*"allowed":\[[^]]*\],"unoccupied":\[/, "", u); sub(/\].*/, "", u)
                    r = $0; if (!sub(/.*"real":\[/, "", r)) next
                    sub(/\].*/, "", r)
                    w = $0; sub(/.*"llc_cpus":/, "", w); sub(/[^0-9].*/, "", w)
                    for (k in un) delete un[k]
                    nu = split(u, ua, ","); for (i = 1; i <= nu; i++) un[ua[i]] = 1
                    nr = split(r, ra, ",")
                    ev++
                    if (nr == w + 0) { all++; for (i = 1; i <= nr; i++) if (!(ra[i] in un)) fpall++; next }
                    for (i = 1; i <= nr; i++) if (!(ra[i] in un)) fp[ra[i]]++
                } END { printf "%d %d %d %d %d %d %d\n", ev, fp[0], fp[1], fp[2], fp[3], all, fpall }' "$W/real.v4.ev" 2>/dev/null)
            ev=${1:-0} fp_spin=$(( ${3:-0} + ${4:-0} ))
            fp_cpus="events $ev: fp by CPU under the mask 0:${2:-?} 1:${3:-?} 2:${4:-?} 3:${5:-?}, every CPU passed in ${6:-?} audits (fp ${7:-?})"
            landed3=$(wl_count "$W/real.wl" landed 3)
            depths=$(hist_buckets "$on" scan_depth | tr ' \n' ': ')
            d0=$(hist_slot "$on" scan_depth 0)
            deep=$(( ${search:-0} - ${d0:-0} - ${d1:-0} ))
            desc="sisscan --filter real, $F on: the kernel's mask never holds the spinners' CPUs 1 and 2, and its scans from CPU 0 probe only idle CPU 3 (depth 1) or, over an empty mask, nothing (depth 0)"
            detail="real fp '$rfp' over '$audits' audits ($fp_cpus; on CPUs 1 and 2 at most 2% of the audits); depth 2 or more: $deep of '$search' scans (at most 10% or each a real fp; depth:count ${depths:-none}); LLC busy (no scan): '$sk' of '$audits'; CPU 3 hidden (real fn): '$rfn'; landed on CPU 3: '$landed3' of $n"
            if [ "$rc" = 0 ] && [ -n "$rfp" ] && [ "${audits:-0}" -ge 100 ] && [ "$ev" = "$audits" ] && [ $(( fp_spin * 50 )) -le "$audits" ] &&
               [ -n "$search" ] && { [ $(( deep * 10 )) -le "$search" ] || [ "$deep" -le "$rfp" ]; }; then
                ok "$desc ($detail)"
            else
                notok "$desc # exit $rc: $detail"
            fi
            continue
        fi
        # The port itself: CPUs 1 and 3 run two spinners each, so their
        # ticks put them in the mask; a wakeup from busy CPU 0 scans only
        # CPU 2 (depth 1), and the mask lets CPU 0 through (fp, 90-110%).
        landed2=$(wl_count "$W/real.wl" landed 2)
        desc="sisscan --filter real, $F on: the kernel hides the doubly loaded CPUs 1 and 3, and its scan from CPU 0 probes only idle CPU 2 (depth 1)"
        detail="depth 1: '$d1' of '$search' domain searches, landed on CPU 2: '$landed2' of $n; real fp '$rfp' fn '$rfn' over '$audits' audits"
        if [ "$rc" = 0 ] && [ -n "$d1" ] && [ -n "$search" ] && [ $(( d1 * 10 )) -ge $(( search * 9 )) ] &&
           [ -n "$rfp" ] && [ $(( rfp * 10 )) -ge $(( audits * 9 )) ] && [ $(( rfp * 10 )) -le $(( audits * 11 )) ] &&
           [ -n "$rfn" ] && [ $(( rfn * 50 )) -le "$audits" ]; then
            ok "$desc ($detail)"
        else
            notok "$desc # exit $rc: $detail"
        fi
    done
}

# The mutation selftest's guest boot (tests/vm/selftest-mutations.sh):
# the tools are test builds, and each mutation in SCHEDSCAN_MUTATIONS runs
# through the checks that cover what it breaks: every fentry-tier count
# for a lost event, the wakeloop known answer for a shifted histogram, a
# miscounted class and frozen filter models, the idle-time bracket for
# stretched durations. Each must make at least one of them fail.
run_mutations() {
    for m in $(echo "$SCHEDSCAN_MUTATIONS" | tr ',' ' '); do
        MUTATION=$m
        SCHEDSCAN_MUTATION=$m
        export SCHEDSCAN_MUTATION
        note "mutation $m"
        case $m in
            drop) run_brackets fentry ;;
            stretch-durations) all_tools=$TOOLS; TOOLS=idlebal; run_brackets tracepoint; TOOLS=$all_tools ;;
            *) run_checks --tier fentry --id 'sisscan.known.wakeloop.*' ;;
        esac
    done
    unset SCHEDSCAN_MUTATION
    MUTATION=""
}

# ------------------------------------------------ selection options (issue 32)
# Every tool with every selection option (-C a subset and all, -p,
# --comm, -c), text and JSON at once, in the fentry tier (the selection
# is one BPF-side filter whatever the tier; the host runs the same matrix
# in the tracepoint tier: tests/robustness/test_selection.sh). The
# workload is made stopped, so its PID and cgroup are known and the tools
# count before it runs; it is let go once both count.
sel_ready() {  # sel_ready FILE PID
    i=0
    while [ ! -s "$1" ] && kill -0 "$2" 2>/dev/null && [ $i -lt 900 ]; do
        sleep 0.1; i=$((i + 1))
    done
}

selection_checks() {
    KIND=behaviour
    grep -q ' cgroup2 ' /proc/mounts || mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null
    cg=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
    [ -n "$cg" ] && mkdir -p "$cg/selection" && cg=$cg/selection
    online=$(cat /sys/devices/system/cpu/online)
    for tool in $TOOLS; do
        case $tool in
            numascan) wl="memtouch -t 2 -m 16 -s 1" counter=user_page_faults ;;
            sisscan) wl="pingpong -n 3000" counter=wakeups ;;
            *) wl="pingpong -n 3000" counter="" ;;
        esac
        name=${wl%% *}
        for sel in "-C 0-3" "-C $online" -p --comm -c; do
            into=""
            case $sel in
                -p) sel="-p PID" ;;
                --comm) sel="--comm $name" ;;
                -c) [ -n "$cg" ] || { skip "$tool --mode fentry: selection -c" "no cgroup2 here"; continue; }
                    sel="-c $cg" into=$cg ;;
            esac
            sh -c '[ -z "$1" ] || echo $$ >"$1/cgroup.procs"; kill -STOP $$; shift; exec "$@"' \
                _ "$into" $WL/$wl >/dev/null 2>&1 &
            wpid=$!
            args=$(echo "$sel" | sed "s/PID/$wpid/")
            : >"$W/sel.ready.text"; : >"$W/sel.ready.json"
            "$BIN/$tool" --mode fentry $args --ready-fd 3 3>"$W/sel.ready.text" >"$W/sel.text" 2>"$W/sel.text.err" &
            tpid=$!
            "$BIN/$tool" --mode fentry $args --json --ready-fd 3 3>"$W/sel.ready.json" >"$W/sel.json" 2>"$W/sel.json.err" &
            jpid=$!
            sel_ready "$W/sel.ready.text" $tpid
            sel_ready "$W/sel.ready.json" $jpid
            kill -CONT $wpid
            wait $wpid
            kill -INT $tpid $jpid 2>/dev/null
            wait $tpid; trc=$?
            wait $jpid; jrc=$?
            desc="$tool --mode fentry: selection $args"
            if [ $trc = 0 ] && grep -q '^Summary: ' "$W/sel.text"; then
                ok "$desc, text: exit 0, a summary"
            else
                notok "$desc, text: exit 0, a summary (exit $trc)"
                diag 5 <"$W/sel.text.err"
            fi
            summary=$(json_summary "$W/sel.json")
            got=""
            [ -n "$counter" ] && got=$(json_metric "$summary" "$counter")
            if [ $jrc = 0 ] && [ -n "$summary" ] && { [ -z "$counter" ] || [ "${got:-0}" -gt 0 ]; }; then
                ok "$desc, JSON: exit 0, a summary${counter:+, $counter $got > 0 for the selected workload}"
            else
                notok "$desc, JSON: exit 0, a summary${counter:+, $counter > 0} (exit $jrc, ${counter:-} '$got')"
                diag 5 <"$W/sel.json.err"
            fi
        done
    done
}

if [ -n "${SCHEDSCAN_MUTATIONS:-}" ]; then
    timed run_mutations
elif [ "${SCHEDSCAN_SMT:-0}" = 1 ]; then
    timed sis_smt_checks
    [ "${SCHEDSCAN_SELECTION:-0}" = 1 ] && timed selection_checks
elif [ "${SCHEDSCAN_FILTER_REAL:-0}" = 1 ]; then
    timed sis_filter_real_checks SIS_FILTER overloaded
elif [ "${SCHEDSCAN_FILTER_REAL_V4:-0}" = 1 ]; then
    timed sis_filter_real_checks SIS_FILTER_V4 unoccupied
elif [ -n "${SCHEDSCAN_ONLY:-}" ]; then
    # a developer's narrowed boot (VM_CMDLINE=SCHEDSCAN_ONLY=...):
    # FUNCTION[:ARG...] items, comma separated, e.g. run_brackets:fentry
    for item in $(echo "$SCHEDSCAN_ONLY" | tr ',' ' '); do
        case $item in
            *:*) timed "${item%%:*}" $(echo "${item#*:}" | tr ':' ' ') ;;
            *) timed "$item" ;;
        esac
    done
else
    timed run_brackets "$MODES"
    case " $TOOLS " in *" sisscan "*) timed sis_checks ;; esac
    case " $TOOLS " in *" idlebal "*) timed idlebal_checks ;; esac
    case " $TOOLS " in *" numascan "*) timed numascan_checks ;; esac
fi

# tier_lists: what each tool measures on this kernel in each --mode, from
# --list-metrics, dumped for docs/kernels.md (vmcheck keeps the dumps,
# make kernels-doc renders them); and auto never reports fewer metrics
# than the tracepoint tier would (issue 33).
tier_lists() {
    KIND=consistency
    for tool in $TOOLS; do
        for mode in auto fentry kprobe tracepoint; do
            f=$W/kdoc-$tool-$mode
            if "$BIN/$tool" --mode $mode --list-metrics --json >"$f.json" 2>"$f.err"; then
                cp "$f.json" "$f.dump"
            else
                echo "refused: $(head -n 1 "$f.err")" >"$f.dump"
                : >"$f.json"
            fi
            json_members "$(cat "$f.json")" metrics | awk '{ print $1 }' | sort >"$f.names"
        done
        auto_covers "$tool" "$W/kdoc-$tool-auto.names"
    done
    # A kernel that inlined the idle probe's function (as 7.3 did
    # available_idle_cpu()): the decode is incomplete, and auto must fall
    # back to the tracepoint tier's estimates rather than lose them.
    case " $TOOLS " in *" sisscan "*)
        f=$W/skip-sisscan
        SCHEDSCAN_SKIP_FUNCTIONS=available_idle_cpu,choose_idle_cpu \
            "$BIN/sisscan" --list-metrics --json >"$f.json" 2>"$f.err"
        json_members "$(cat "$f.json")" metrics | awk '{ print $1 }' | sort >"$f.names"
        auto_covers sisscan "$f.names" ", the idle probe's function hidden"
    esac
}
# auto_covers TOOL AUTO_NAMES [WHAT]: every metric of the tracepoint tier's list is in AUTO_NAMES
auto_covers() {
    t=$W/kdoc-$1-tracepoint.names
    lost=$(grep -vxF -f "$2" "$t" | tr '\n' ' ')
    if [ -s "$t" ] && [ -z "$lost" ]; then
        ok "$1 --list-metrics${3:-}: auto reports every metric the tracepoint tier does ($(wc -l <"$2") against $(wc -l <"$t"))"
    else
        notok "$1 --list-metrics${3:-}: auto reports every metric the tracepoint tier does # auto $(wc -l <"$2"), tracepoint $(wc -l <"$t"); auto lacks: $lost"
    fi
}

if [ -z "${SCHEDSCAN_MUTATIONS:-}${SCHEDSCAN_SMT:-}${SCHEDSCAN_FILTER_REAL:-}${SCHEDSCAN_FILTER_REAL_V4:-}" ] &&
   [ "$MODES" = "fentry kprobe tracepoint" ]; then
    timed tier_lists
fi

# kernel log: no oops / BUG / WARNING / lockdep splat / verifier crash
KIND=behaviour
dmesg > $W/dmesg.txt
# A WARN() splat reads "WARNING: CPU: N PID: ..." (or "WARNING: at" on old
# kernels); boot-time notes such as "RETBleed: WARNING: ..." are not one.
splat='BUG:|WARNING: (CPU|at) |Oops|general protection|Call Trace:|RIP:|rcu_sched self-detected|soft lockup|hung_task'
if grep -E -q "$splat" $W/dmesg.txt; then
    notok "kernel log clean (no BUG/WARNING/Oops)"
    grep -E -B2 -A8 "$splat" $W/dmesg.txt | diag 40
else
    ok "kernel log clean (no BUG/WARNING/Oops)"
fi

# --------------------------------------------- fixtures for the host parsers
# dump_file NAME PATH: a stable copy between markers, with a checksum
dump_file() {
    cat "$2" > "$W/dump" || return 1
    echo "=== SCHEDSCAN FILE BEGIN $1"
    cat "$W/dump"
    echo "=== SCHEDSCAN FILE END $1 lines=$(wc -l < "$W/dump") md5=$(md5sum < "$W/dump" | cut -d' ' -f1)"
}
# a short wakeup + NUMA load so every counter has moved even if no tool ran
"$WL/pingpong" -n 5000 >/dev/null 2>&1
"$WL/memtouch" -t 4 -m 64 -s 2 >/dev/null 2>&1
KIND=environment
if [ -r /proc/schedstat ] && head -n 1 /proc/schedstat | grep -q '^version '; then
    ok "/proc/schedstat readable ($(head -n 1 /proc/schedstat))"
else
    notok "/proc/schedstat readable"
fi
dump_file schedstat /proc/schedstat
dump_file vmstat /proc/vmstat
for f in "$W"/kdoc-*.dump; do
    [ -f "$f" ] || continue
    name=${f##*/kdoc-}
    dump_file "list-${name%.dump}" "$f"
done

echo "1..$N"
note "guest $(uname -r): $((N - FAILED)) passed, $FAILED failed, $SKIPPED skipped"
[ "$FAILED" = 0 ]
