#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Keyed tables and durations on this host, against what the kernel counts
# itself: idlebal's per-CPU idle time (a duration) against /proc/stat's
# idle + iowait and a bpftrace sum, numascan's per-process fault rows
# against getrusage(), and every table's interval rows adding up to its
# summary.
source "$(dirname "$0")/lib.sh"
# bpftrace attaches its references to classic tracepoints: tracefs.
ensure_tracefs

hz=$(getconf CLK_TCK)
ncpus=$(nproc)
last=$((ncpus - 1))

# 1. idlebal's idle time per CPU against a bpftrace record of the same
# definition (time from sched_switch to pid 0 to the next switch away):
# every episode bpftrace saw between two marks, one just before the tool
# starts and one just after it exits, is printed, and the checks clip them
# to the tool's own window. A spinner keeps the last CPU busy, so one CPU
# has a known answer (about 0). Section 1b checks the same time against
# the kernel's own accounting.
"$BUILD/workloads/spinner" -c "$last" -s 30 &
spin=$!
at_exit "kill $spin"
{
	echo 'tracepoint:sched:sched_switch {'
	echo '	$entry = nsecs;'
	echo '	if (args->next_pid == 0) { @since[cpu] = nsecs; }'
	echo '	else if (args->prev_pid == 0 && @since[cpu] > 0) {'
	echo '		$len = nsecs - @since[cpu];'
	echo '		@idle[cpu] = @idle[cpu] + $len;'
	echo '		if (@marks == 1) { printf("EP %d %lld %lld\n", cpu, @since[cpu], nsecs); }'
	echo '		@since[cpu] = 0;'
	echo '		if (@marks == 1) { @cost[cpu] = @cost[cpu] + (nsecs - $entry); }'
	echo '	}'
	echo '}'
	# The tool's last membarrier() waits for the programs in flight
	# once counting has stopped (lib/tool.c), after its window's end.
	echo 'tracepoint:syscalls:sys_enter_membarrier /comm == "idlebal"/ { printf("CUT %lld\n", nsecs); }'
	echo 'tracepoint:syscalls:sys_enter_getppid /comm == "idlemark"/ {'
	echo '	@marks = @marks + 1;'
	echo '	printf("MARK %lld", nsecs);'
	for c in $(seq 0 "$last"); do
		echo "	printf(\" %lld\", @idle[$c] + (@since[$c] > 0 ? nsecs - @since[$c] : 0));"
	done
	echo '	printf("\n");'
	for c in $(seq 0 "$last"); do
		echo "	if (@marks == 2 && @since[$c] > 0) { printf(\"OPEN $c %lld\\n\", @since[$c]); }"
		echo "	if (@marks == 2) { printf(\"COST $c %lld\\n\", @cost[$c]); }"
	done
	echo '}'
	echo 'END { clear(@idle); clear(@since); clear(@marks); clear(@cost); }'
} >"$WORK/idle.bt"
bpftrace "$WORK/idle.bt" >"$WORK/bt.out" 2>&1 &
bt=$!
at_exit "kill $bt"
for i in $(seq 1 100); do grep -q '^Attaching' "$WORK/bt.out" && break; sleep 0.1; done
sleep 0.2
mark() {
	/usr/bin/python3 -c 'import os; open("/proc/self/comm", "w").write("idlemark"); os.getppid()'
}
sleep 0.3
mark
"$BIN/idlebal" --json -i 1 -d 3 >"$WORK/idle.jsonl" 2>"$WORK/idle.err"
status=$?
mark
sleep 0.2
stop_bpftrace $bt
kill $spin 2>/dev/null
check "idlebal --json -i 1 -d 3 exits 0" [ $status -eq 0 ]
kind consistency
json_valid "idlebal records valid, the cpus table's interval rows add up to the summary" \
	"$WORK/idle.jsonl" --expect-intervals 3
window=$(jq -r 'select(.type == "summary") | .duration_s' "$WORK/idle.jsonl")
read -r -a mark1 <<<"$(grep '^MARK' "$WORK/bt.out" | sed -n 1p)"
read -r -a mark2 <<<"$(grep '^MARK' "$WORK/bt.out" | sed -n 2p)"
if [ ${#mark1[@]} -eq $((ncpus + 2)) ] && [ ${#mark2[@]} -eq $((ncpus + 2)) ]; then
	pass "bpftrace reference: both marks around the run seen, for $ncpus CPUs"
else
	fail "bpftrace reference: both marks around the run" "$(head -c 300 "$WORK/bt.out")"
fi
# The spinner's CPU: its idle share is the known answer, near 0.
kind "known answer"
share=$(jq -r --argjson c "$last" --argjson w "$window" \
	'select(.type == "summary") | .cpus.rows[] | select(.cpu == $c) | 100 * .idle_ns / ($w * 1e9)' \
	"$WORK/idle.jsonl")
if awk -v s="$share" 'BEGIN { exit !(s != "" && s < 5) }'; then
	pass "idlebal: CPU $last, busy with a spinner, idle ${share}% of the window (< 5%)"
else
	fail "idlebal: the spinner's CPU shows idle time" "idle share '$share'%"
fi
# idle_episode_ns against the episodes bpftrace saw end in the tool's own
# counting window: bpftrace prints each episode (begin, end; CLOCK_MONOTONIC)
# and the window's start and end (CLOCK_REALTIME in the JSON) are moved to
# CLOCK_MONOTONIC with the offset measured here. The tool records the
# episodes (their whole length) that end from its start to the moment
# counting stops, its window's end (docs/json.md); its last membarrier()
# (the wait for programs in flight, lib/tool.c) comes after that, never
# before: bpftrace sees when. So bpftrace's episodes ending in [start + 1 ms,
# end - 1 ms] must all be in the tool's histogram and none ending
# outside [start - 1 ms, end + 1 ms]: the tool's count lies between the two
# (the "inner" and "outer" counts), and bucket by bucket (the same log2
# bounds, [2^k, 2^(k+1))) the histograms differ by at most the episodes of
# the two edge zones, twice (one in the wrong bucket moves two counts), plus
# one per CPU.
kind "ground truth"
offset=$(/usr/bin/python3 -c 'import time; print("%.6f" % (time.clock_gettime(time.CLOCK_REALTIME) - time.clock_gettime(time.CLOCK_MONOTONIC)))')
jq -r 'select(.type == "summary") | "window \(.start) \(.end)"' "$WORK/idle.jsonl" >"$WORK/hist.cmp"
jq -r 'select(.type == "summary") | .metrics.idle_episode_ns.hist.buckets[] | "tool \(.low) \(.count)"' \
	"$WORK/idle.jsonl" >>"$WORK/hist.cmp"
grep '^CUT ' "$WORK/bt.out" >>"$WORK/hist.cmp"
grep '^EP ' "$WORK/bt.out" >>"$WORK/hist.cmp"
verdict=$(awk -v off="$offset" -v ncpus="$ncpus" '
	function slot(len,   lo) { lo = 1; while (lo * 2 <= len) lo *= 2; return lo }
	$1 == "window" { s = ($2 - off) * 1e9; e = ($3 - off) * 1e9 }
	$1 == "CUT" { wait = $2 }
	$1 == "tool" { tool[$2] = $3; n_tool += $3; b[$2] = 1 }
	$1 == "EP" {
		begin = $3; end = $4
		# for a failure: the episodes ending within 50 ms of an edge
		if (end >= s - 5e7 && end <= s + 5e7) near = near sprintf(" start cpu%d %+.3f", $2, (end - s) / 1e6)
		if (end >= e - 5e7 && end <= e + 5e7) near = near sprintf(" end cpu%d %+.3f", $2, (end - e) / 1e6)
		if (end >= s - 1e6 && end <= e + 1e6) outer++
		if (end >= s + 1e6 && end <= e - 1e6) inner++
		if (end < s || end > e) next
		len = end - begin
		k = slot(len); bt[k]++; b[k] = 1; n_bt++
	}
	END {
		for (k in b) { d = tool[k] - bt[k]; l1 += d < 0 ? -d : d; if (d) diff = diff sprintf(" %d:%+d", k, d) }
		allowed = 2 * (outer - inner) + ncpus
		ok = n_tool > 0 && n_tool >= inner && n_tool <= outer && l1 <= allowed && wait >= e - 1e6
		printf "%s %d %d %d %d %d %d %.3f tool - bpftrace by bucket:%s; near the edges:%s\n", ok ? "pass" : "fail",
			n_tool, n_bt, inner, outer, l1, allowed, (wait - e) / 1e6, diff, near
	}' "$WORK/hist.cmp")
read -r v hist_tool hist_bt inner outer l1 allowed wait_ms detail <<<"$verdict"
if [ "$v" = pass ]; then
	pass "idlebal idle_episode_ns: $hist_tool episodes (bpftrace: $inner to $outer in the window; the wait for programs in flight began $wait_ms ms after its end), buckets differ by $l1 (at most $allowed)"
else
	# $detail: where they differ, and bpftrace's episodes ending within 50
	# ms of an edge (CPU, end - edge in ms): a count off at one edge points
	# at the tool's window (its cut or its counting flag), spread over the
	# buckets at the episodes themselves.
	fail "idlebal idle_episode_ns vs bpftrace's episodes in the window" \
		"tool $hist_tool, bpftrace $hist_bt ($inner to $outer), the last membarrier() $wait_ms ms after the window's end (at least -1), bucket difference $l1 of $allowed allowed; $detail; $(grep -v '^EP' "$WORK/hist.cmp" | tr '\n' ' ' | head -c 400)"
fi
# idle_ns against the same episodes clipped to the window: the tool closes
# its durations at the window's end (read right there, before the wait for
# programs in flight: lib/tool.c). bpftrace, attached first, runs
# first at every sched_switch, so each episode's end reaches the tool later
# by what bpftrace's program takes to end an episode (measured there: the
# COST lines; 4 to 32 µs per episode on this host, 0.6 ms a second while
# idle, which is the 0.7-1.3 ms the tool used to read "too much"). So
# tool - bpftrace lies in [-1 ms, that cost + 1 ms] per CPU.
grep -E '^(OPEN|COST) ' "$WORK/bt.out" >>"$WORK/hist.cmp"
for c in $(seq 0 "$last"); do
	got=$(jq -r --argjson c "$c" 'select(.type == "summary") | .cpus.rows[] | select(.cpu == $c) | .idle_ns' \
		"$WORK/idle.jsonl")
	want=$(awk -v off="$offset" -v c="$c" '
		function overlap(b, x) { if (b < s) b = s; if (x > e) x = e; return x > b ? x - b : 0 }
		$1 == "window" { s = ($2 - off) * 1e9; e = ($3 - off) * 1e9 }
		$1 == "EP" && $2 == c { sum += overlap($3, $4) }
		$1 == "OPEN" && $2 == c { sum += overlap($3, e) }
		$1 == "COST" && $2 == c { cost = $3 }
		END { printf "%.0f %.0f", sum, cost }' "$WORK/hist.cmp")
	read -r want cost <<<"$want"
	if [ -n "$got" ] && awk -v g="$got" -v w="$want" -v k="$cost" 'BEGIN { d = g - w; exit !(d <= k + 1e6 && d >= -1e6) }'; then
		pass "idlebal cpu $c: idle_ns $got = bpftrace's episodes in the window $want + $((got - want)) ns (bpftrace's own cost $cost ns, +- 1 ms)"
	else
		fail "idlebal cpu $c: idle_ns vs bpftrace's episodes in the window" \
			"idlebal '$got', bpftrace $want ns, its own cost $cost ns"
	fi
done
kind consistency
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

# 1b. idle_ns per CPU against the kernel's own idle accounting, /proc/stat
# idle + iowait (no BPF), read by kstat between two cuts of the tool's
# window (kstat -c: SIGUSR1, the interval record out, the read, SIGUSR1
# again), as the guests do against schedstat. The interval between the two
# reads' cuts lies inside the reads (inner); the three from the first
# read's first cut to the second read's last cover them (outer). The
# width, (outer - inner) / the window, is what the check cannot resolve:
# it must stay under 3% (seen 0.8-1.5%). /proc/stat rounds each CPU to a
# tick (USER_HZ) at each read: 2 ticks either way. Below the tool it may
# read 1% more (a tool that counts idle too long fails: stretch-durations).
# Above it, no bound: on this host /proc/stat counts more idle than the
# idle task ran when other work takes CPU 0 (2.7-4.2% above outer in four
# runs, 16.59% in a clean-clone run while this host's own service kept
# CPU 0 busy, the tool and bpftrace agreeing on the idle task's 2.49 s of
# 3.02; not explained; on a quiet host it reads 2.98 of 3.00 s), so a tool
# that counts too little is caught by the exact bpftrace check of section
# 1, not here. The spinner keeps the last CPU busy again.
kind "ground truth"
"$BUILD/workloads/spinner" -c "$last" -s 30 &
spin=$!
at_exit "kill $spin"
cut_ok=0
if start_tool "$WORK/cut.jsonl" "$WORK/cut.err" idlebal --json -i 60 &&
	"$BUILD/workloads/kstat" -c "$tool,$WORK/cut.jsonl" >"$WORK/kstat.1" 2>"$WORK/kstat.err" &&
	sleep 3 &&
	"$BUILD/workloads/kstat" -c "$tool,$WORK/cut.jsonl" >"$WORK/kstat.2" 2>>"$WORK/kstat.err"; then
	cut_ok=1
fi
stop_tool
kill $spin 2>/dev/null
wait $spin 2>/dev/null
[ "$status" = 0 ] || cut_ok=0
# Per CPU: "inner outer window_ns" (interval 2, intervals 1-3: the first
# ends at the first cut, the last begins at the fourth).
cut_rows() {
	jq -rs --argjson c "$1" '[.[] | select(.type == "interval")] as $iv |
		def idle(i): [$iv[i].cpus.rows[]? | select(.cpu == $c) | .idle_ns] | add // 0;
		if ($iv | length) >= 4 then
			"\(idle(2)) \(idle(1) + idle(2) + idle(3)) \($iv[2].duration_s * 1e9 | floor)"
		else "" end' "$WORK/cut.jsonl"
}
tick_ns=$((1000000000 / hz))
for c in $(seq 0 "$last"); do
	read -r inner outer window_ns < <(cut_rows "$c")
	k1=$(awk -v n="cpu${c}_idle_ns" '$1 == n { print $2 }' "$WORK/kstat.1" 2>/dev/null)
	k2=$(awk -v n="cpu${c}_idle_ns" '$1 == n { print $2 }' "$WORK/kstat.2" 2>/dev/null)
	verdict=$(awk -v i="${inner:-}" -v o="${outer:-}" -v w="${window_ns:-0}" -v a="${k1:-}" -v b="${k2:-}" \
		-v t="$tick_ns" 'BEGIN {
		if (i == "" || o == "" || a == "" || b == "" || w <= 0) { print "fail - - -"; exit }
		k = b - a; width = 100 * (o - i) / w
		ok = width <= 3 && k >= i - 0.01 * w - 2 * t
		printf "%s %.0f %.2f %.2f\n", ok ? "pass" : "fail", k, width, 100 * (k - i) / w }')
	read -r v kernel width dev <<<"$verdict"
	if [ "$cut_ok" = 1 ] && [ "$v" = pass ]; then
		pass "idlebal cpu $c: idle_ns $inner..$outer between kstat's cuts, /proc/stat idle+iowait $kernel (width $width% of the window, at most 3%; kernel - inner $dev%, at least -1%; no upper bound here, see the comment)"
	else
		fail "idlebal cpu $c: idle_ns vs /proc/stat idle+iowait between kstat's cuts" \
			"cuts and exit ok '$cut_ok' (exit $status), inner '$inner' outer '$outer' window '$window_ns' ns, /proc/stat '$k1' -> '$k2' ($kernel; width $width%, kernel - inner $dev%); $(head -c 200 "$WORK/kstat.err" "$WORK/cut.err" 2>/dev/null | tr '\n' ' ')"
	fi
done

# 2. numascan's per-process rows: the workload's row = its own rusage.
kind behaviour
memtouch_start
"$BIN/numascan" --json -i 0.5 -d 3 >"$WORK/numa.jsonl" 2>"$WORK/numa.err"
status=$?
memtouch_wait
got=$(jq -r --argjson p "${pid:-0}" 'select(.type == "summary") | .processes.rows[] | select(.tgid == $p) | .user_page_faults' \
	"$WORK/numa.jsonl")
comm=$(jq -r --argjson p "${pid:-0}" 'select(.type == "summary") | .processes.rows[] | select(.tgid == $p) | .comm' \
	"$WORK/numa.jsonl")
check "numascan (all processes) exits 0" [ $status -eq 0 ]
kind "ground truth"
if [ -n "$want" ] && [ "$want" -ge 8192 ] 2>/dev/null && [ -n "$got" ] && within "$got" "$want" 1 20 &&
	[ "$comm" = memtouch ]; then
	pass "numascan processes table: memtouch ($pid) row user_page_faults $got = rusage $want (within 1% + 20)"
else
	fail "numascan processes table row vs rusage" "row '$got' comm '$comm', rusage '$want'"
fi
kind consistency
json_valid "numascan records valid, process rows add up over intervals" "$WORK/numa.jsonl" --expect-intervals 6
consistent=$(jq -r 'select(.type == "summary") | ([.processes.rows[].user_page_faults] | add) <= .metrics.user_page_faults.value' \
	"$WORK/numa.jsonl")
check "consistency: the process rows never exceed the user_page_faults counter" [ "$consistent" = true ]
dropped=$(jq -r 'select(.type == "summary") | .processes.rows_dropped' "$WORK/numa.jsonl")
kind behaviour
check "numascan reports rows_dropped ($dropped) for its bounded process table" [ "$dropped" = 0 ]
finish
