#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Keyed tables and durations on this host, against what the kernel counts
# itself: idlebal's per-CPU idle time (a duration) against /proc/stat's
# idle + iowait, numascan's per-process fault rows against getrusage(),
# and every table's interval rows adding up to its summary.
source "$(dirname "$0")/lib.sh"

# cpu_idle_ticks CPU: idle + iowait of one CPU in /proc/stat, USER_HZ ticks.
cpu_idle_ticks() {
	awk -v c="cpu$1" '$1 == c { print $5 + $6 }' /proc/stat
}

hz=$(getconf CLK_TCK)
ncpus=$(nproc)
last=$((ncpus - 1))

# 1. idlebal's idle time per CPU = the kernel's own idle accounting. A
# spinner keeps the last CPU busy, so one CPU has a known answer (about 0)
# and the others whatever the host does. /proc/stat is read just before
# the tool starts and just after it exits: the tool's window lies inside,
# so its idle time may be short of the kernel's by at most the time the
# bracket adds (start-up and exit), plus two ticks of /proc/stat rounding,
# plus 1% of the window: /proc/stat's NOHZ idle time starts and stops at
# the idle loop and leaves out interrupts, the tool's is the idle task's
# time on the CPU (seen: 0.5% apart; a bpftrace sum over sched_switch
# agreed with the tool within the bracket).
"$BUILD/workloads/spinner" -c "$last" -s 30 &
spin=$!
at_exit "kill $spin"
sleep 0.5
declare -a before after
for c in $(seq 0 "$last"); do before[$c]=$(cpu_idle_ticks "$c"); done
t0=$(date +%s.%N)
"$BUILD/idlebal" --json -i 1 -d 3 >"$WORK/idle.jsonl" 2>"$WORK/idle.err"
status=$?
t1=$(date +%s.%N)
for c in $(seq 0 "$last"); do after[$c]=$(cpu_idle_ticks "$c"); done
kill $spin 2>/dev/null
check "idlebal --json -i 1 -d 3 exits 0" [ $status -eq 0 ]
json_valid "idlebal records valid, the cpus table's interval rows add up to the summary" \
	"$WORK/idle.jsonl" --expect-intervals 3
window=$(jq -r 'select(.type == "summary") | .duration_s' "$WORK/idle.jsonl")
gap=$(awk -v a="$t0" -v b="$t1" -v w="$window" 'BEGIN { printf "%.3f", b - a - w }')
for c in $(seq 0 "$last"); do
	got=$(jq -r --argjson c "$c" 'select(.type == "summary") | .cpus.rows[] | select(.cpu == $c) | .idle_ns' \
		"$WORK/idle.jsonl")
	want=$(awk -v a="${before[$c]}" -v b="${after[$c]}" -v hz="$hz" 'BEGIN { printf "%.0f", (b - a) * 1e9 / hz }')
	tick=$(awk -v hz="$hz" 'BEGIN { printf "%.0f", 2e9 / hz }')
	# The bracket's width, printed: what the check cannot resolve.
	slack=$(awk -v w="$window" -v t="$tick" 'BEGIN { printf "%.0f", t + w * 1e9 / 100 }')
	width=$(awk -v g="$gap" -v s="$slack" -v w="$window" 'BEGIN { printf "%.1f", 100 * (g * 1e9 + 2 * s) / (w * 1e9) }')
	if [ -n "$got" ] && awk -v g="$got" -v w="$want" -v gap="$gap" -v s="$slack" \
		'BEGIN { exit !(g <= w + s && g >= w - gap * 1e9 - s) }'; then
		pass "idlebal cpu $c: idle_ns $got within /proc/stat's $want (bracket width $width% of the window)"
	else
		fail "idlebal cpu $c: idle_ns vs /proc/stat idle+iowait" \
			"idlebal '$got', /proc/stat $want ns, bracket gap ${gap}s, slack $slack ns"
	fi
done
# The spinner's CPU: its idle share is the known answer, near 0.
share=$(jq -r --argjson c "$last" --argjson w "$window" \
	'select(.type == "summary") | .cpus.rows[] | select(.cpu == $c) | 100 * .idle_ns / ($w * 1e9)' \
	"$WORK/idle.jsonl")
if awk -v s="$share" 'BEGIN { exit !(s != "" && s < 5) }'; then
	pass "idlebal: CPU $last, busy with a spinner, idle ${share}% of the window (< 5%)"
else
	fail "idlebal: the spinner's CPU shows idle time" "idle share '$share'%"
fi
episodes=$(jq -r 'select(.type == "summary") | [.cpus.rows[].idle_episodes] | add' "$WORK/idle.jsonl")
ended=$(jq -r 'select(.type == "summary") | .metrics.idle_episode_ns.hist.count' "$WORK/idle.jsonl")
# Every ended episode began in the window or was open at its start, and at
# most one per CPU is still open at the end.
if [ -n "$ended" ] && [ "$ended" -gt 0 ] && [ "$ended" -le $((episodes + ncpus)) ] &&
	[ "$ended" -ge $((episodes - ncpus)) ]; then
	pass "consistency: idle_episode_ns holds $ended ended episodes for $episodes begun (+-$ncpus open at the edges)"
else
	fail "consistency: idle episodes begun vs ended" "begun '$episodes', ended '$ended'"
fi

# 2. numascan's per-process rows: the workload's row = its own rusage.
"$BUILD/workloads/memtouch" -t 2 -m 32 -s 0.5 -w 1000 >"$WORK/mt.out" &
mt=$!
at_exit "kill $mt"
sleep 0.3
pid=$(awk '/memtouch pid/ { print $3 }' "$WORK/mt.out")
"$BUILD/numascan" --json -i 0.5 -d 3 >"$WORK/numa.jsonl" 2>"$WORK/numa.err"
status=$?
wait $mt
want=$(awk '/memtouch total faults/ { print $4 }' "$WORK/mt.out")
got=$(jq -r --argjson p "${pid:-0}" 'select(.type == "summary") | .processes.rows[] | select(.tgid == $p) | .user_page_faults' \
	"$WORK/numa.jsonl")
comm=$(jq -r --argjson p "${pid:-0}" 'select(.type == "summary") | .processes.rows[] | select(.tgid == $p) | .comm' \
	"$WORK/numa.jsonl")
check "numascan (all processes) exits 0" [ $status -eq 0 ]
if [ -n "$want" ] && [ "$want" -ge 8192 ] 2>/dev/null && [ -n "$got" ] && within "$got" "$want" 1 20 &&
	[ "$comm" = memtouch ]; then
	pass "numascan processes table: memtouch ($pid) row user_page_faults $got = rusage $want (within 1% + 20)"
else
	fail "numascan processes table row vs rusage" "row '$got' comm '$comm', rusage '$want'"
fi
json_valid "numascan records valid, process rows add up over intervals" "$WORK/numa.jsonl" --expect-intervals 6
consistent=$(jq -r 'select(.type == "summary") | ([.processes.rows[].user_page_faults] | add) <= .metrics.user_page_faults.value' \
	"$WORK/numa.jsonl")
check "consistency: the process rows never exceed the user_page_faults counter" [ "$consistent" = true ]
dropped=$(jq -r 'select(.type == "summary") | .processes.rows_dropped' "$WORK/numa.jsonl")
check "numascan reports rows_dropped ($dropped) for its bounded process table" [ "$dropped" = 0 ]
finish
