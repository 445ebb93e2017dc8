#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# sisscan on this host (tracepoint tier): the record keys issue 4 names,
# placements that cannot miss and a scenario built to miss, each checked
# against what the workload itself reports (the CPUs its sleeper woke on).
source "$(dirname "$0")/lib.sh"

B=$BUILD/workloads
summary() { jq -c 'select(.type == "summary")' "$1"; }

# 1. Every interval record carries the headline keys, with tier and flag.
"$B/pingpong" -n 20000 -w 800 >/dev/null &
pp=$!
"$BIN/sisscan" --comm pingpong --json -i 1 -d 3 >"$WORK/keys.jsonl" 2>"$WORK/keys.err"
status=$?
wait $pp
check "sisscan --json -i 1 -d 3 exits 0" [ $status -eq 0 ]
missing=$(jq -r 'select(.type == "interval") | .metrics as $m |
	["wakeups", "sis_search", "sis_domain_search", "sis_scanned", "sis_failed",
	 "missed_idle", "scan_depth"][] | select(($m[.] | has("tier") and has("estimated")) | not)' \
	"$WORK/keys.jsonl" | sort -u | tr '\n' ' ')
records=$(jq -r 'select(.type == "interval") | .type' "$WORK/keys.jsonl" | wc -l)
if [ "$records" -ge 3 ] && [ -z "$missing" ]; then
	pass "every interval record ($records) has wakeups, sis_search, sis_domain_search, sis_scanned, sis_failed, missed_idle, scan_depth with tier and estimated"
else
	fail "interval records carry the issue's keys" "records $records, missing: $missing"
fi
flags=$(summary "$WORK/keys.jsonl" | jq -r '[.metrics.wakeups.estimated, .metrics.sis_search.estimated,
	.metrics.missed_idle.estimated, .metrics.scan_depth.estimated] | map(tostring) | join(" ")')
check "tracepoint tier: wakeups measured, sis_search/missed_idle/scan_depth estimated ($flags)" \
	[ "$flags" = "false true true true" ]
kind consistency
json_valid "sisscan records valid against docs/json.md, counters add up" "$WORK/keys.jsonl" --expect-intervals 3
# Classes partition the placements; ratios follow from their counters.
consistent=$(summary "$WORK/keys.jsonl" | jq -r '.metrics as $m |
	($m.placed_prev.value + $m.placed_waker.value + $m.placed_recent.value + $m.placed_other.value) == $m.placements.value and
	(($m.success_rate_pct.value - 100 * ($m.sis_search.value - $m.sis_failed.value) / $m.sis_search.value) | fabs) < 0.01')
check "placed_prev + placed_waker + placed_recent + placed_other = placements; success_rate_pct = 100 (sis_search - sis_failed) / sis_search" \
	[ "$consistent" = true ]
kind behaviour

# 2. One timer sleeper: each wakeup comes from its own timer on its own,
# otherwise idle CPU, so stock SIS has nothing to miss (the guests check
# exactly 0 on Debian's kernels). This host's kernel is not stock: it is
# a PVM guest booted with sched_vcpu_pack=15, which packs tasks onto few
# vCPUs, and it leaves a few wakees on a busy CPU; allow 1%.
# The placements are the wakeups the workload made (within 5%).
kind "known answer"
start_tool "$WORK/nomiss.jsonl" /dev/null sisscan --comm wakeloop --json -d 300 &&
	"$B/wakeloop" -t 1 -n 3000 -s 500 >"$WORK/nomiss.wl"
stop_tool
placements=$(metric "$WORK/nomiss.jsonl" placements)
missed=$(metric "$WORK/nomiss.jsonl" missed_idle)
woke=$(sed -n 's/.* wakeups \([0-9]*\).*/\1/p' "$WORK/nomiss.wl")
if [ -n "$woke" ] && within "$placements" "$woke" 5 && [ $((missed * 100)) -le "$placements" ]; then
	pass "timer wakeups on the sleeper's own idle CPU: missed_idle $missed of $placements placements (<= 1% on this packing kernel; the workload woke $woke times)"
else
	fail "timer sleeper: missed_idle near zero" "missed_idle '$missed' of '$placements' placements"
fi

# 3. Built to miss: CPU 0 runs a spinner and wakeloop's waker, CPU 1 only
# a SCHED_IDLE spinner, so CPU 1 is sched-idle (unoccupied) throughout.
# The LLC is saturated, so SIS_UTIL's nr_idle_scan falls to 0 and SIS
# returns the busy target without scanning: the sleeper stays on CPU 0.
ncpu=$(nproc)
"$B/spinner" -c 0 -s 12 >/dev/null &
s0=$!
"$B/spinner" -c 1 -s 12 -i >/dev/null &
s1=$!
at_exit "kill $s0 $s1"
sleep 1.5	# SIS_UTIL's nr_idle_scan follows the LLC's load with a lag
# CPU 1 is sched-idle only while nothing but its SCHED_IDLE spinner is
# runnable there: the kernel's own scheduler events over the workload
# (tests/live/ftrace_unoccupied.py) say for what share of the window it
# was, at least (the spinner's run time does not: on this host a task of
# its sandbox can wait queued on the spinner's CPU for 10-40 ms while the
# spinner's run time goes on growing).
ensure_tracefs
trace_start
start_tool "$WORK/miss.jsonl" "$WORK/miss.err" sisscan --comm wakeloop --json -d 300 &&
	{ mono0=$(mono_now)
	  "$B/wakeloop" -c 0 -n 2000 >"$WORK/wakeloop.out"
	  mono1=$(mono_now); }
stop_tool
trace_stop "$WORK/miss.trace"
unoccupied_ns=$(python3 "$(dirname "$0")/ftrace_unoccupied.py" --window "$WORK/miss.trace" 1 "$s1" \
	"${mono0:-0}" "${mono1:-0}")
kill $s0 $s1 2>/dev/null
wait $s0 $s1 2>/dev/null
stayed=$(awk '$1 == "landed" && $2 == 0 { print $3 }' "$WORK/wakeloop.out")
missed=$(metric "$WORK/miss.jsonl" missed_idle)
failed=$(metric "$WORK/miss.jsonl" sis_failed)
placements=$(metric "$WORK/miss.jsonl" placements)
# busy_pct: the share of the window CPU 1 had something else than its
# SCHED_IDLE spinner runnable (a kworker, the test, another test's
# leftovers), at most.
busy_pct=$(awk -v u="${unoccupied_ns:-0}" -v a="${mono0:-0}" -v b="${mono1:-0}" \
	'BEGIN { x = b > a ? 100 * (1 - u / ((b - a) * 1e9)) : 100; printf "%.1f", x < 0 ? 0 : x }')
# A wakeup that stays on busy CPU 0 while CPU 1 is sched-idle is a missed
# idle CPU: missed_idle is at most the stays the workload saw, and at
# least 90% of the stays made while CPU 1 was sched-idle (seen 1887-1999
# of 2000 stays with CPU 1 busy 0-2% of the window; one CI run failed
# the fixed 90% with CPU 1 busier than that).
least=$(awk -v s="${stayed:-0}" -v b="$busy_pct" 'BEGIN { printf "%d", s * 0.9 * (1 - b / 100) }')
echo "# built to miss ($ncpu CPUs): sleeper stayed on busy CPU 0 ${stayed:-0} of 2000; CPU 1 busy ${busy_pct}% of the window; placements $placements, missed_idle $missed (at least $least), sis_failed $failed"
if [ "${stayed:-0}" -ge 1000 ] && [ -n "$missed" ] && [ "$missed" -le "$stayed" ] &&
   awk -v b="$busy_pct" 'BEGIN { exit !(b < 50) }' &&
   [ "$missed" -ge "$least" ] && [ "$failed" -gt 0 ] 2>/dev/null; then
	pass "busy CPU 0 + sched-idle CPU 1: SIS keeps the sleeper on CPU 0 (${stayed}/2000), missed_idle $missed of those stays (at least 90% of the ${stayed} x $(awk -v b="$busy_pct" 'BEGIN { print 100 - b }')% made while CPU 1 was sched-idle), sis_failed $failed"
else
	fail "built to miss: missed_idle is 90-100% of the stays on busy CPU 0 made while CPU 1 was sched-idle" "stayed '$stayed', CPU 1 busy $busy_pct% (must be under 50%), missed_idle '$missed' (at least $least), sis_failed '$failed', placements '$placements'"
fi

# 3b. Breakdowns. --per-cpu: the placements counted on each CPU against
# the kernel's own record of where it placed wakeloop's sleeper:
# sched_wakeup's target_cpu in the ftrace buffer (no BPF; this kernel has
# no hist triggers), for the wakeups the waker began (its sched_waking).
# The others end the sleeper's own sched_setaffinity() back onto CPU 0
# while it is pinned (one after each wakeup that ran on CPU 1): a task
# with one allowed CPU gets no select_task_rq(), so no placement; they
# come from the migration stopper or, through the wake list, from CPU 0's
# idle task. What the sleeper itself saw (sched_getcpu() after each
# wakeup) is printed beside it: it differs when the sleeper is moved
# between its placement and its run (an idle CPU 0 pulling it off a busy
# CPU 1: 7 of 44 once, which failed this check when it compared with
# that). -P: one row per pingpong process, adding up to the whole. Per
# LLC (default): rows add up to the totals.
kind "ground truth"
wake_events="sched_waking sched_wakeup"
wake_set() {	# wake_set 0|1: the two events, filtered to wakeloop, off or on
	local e
	for e in $wake_events; do
		if [ "$1" = 1 ]; then
			echo 'comm == "wakeloop"' >"$TRACEFS/events/sched/$e/filter" &&
				echo 1 >"$TRACEFS/events/sched/$e/enable" || return 1
		else
			echo 0 >"$TRACEFS/events/sched/$e/enable"
			echo 0 >"$TRACEFS/events/sched/$e/filter"
		fi
	done
}
echo 0 >"$TRACEFS/tracing_on"
: >"$TRACEFS/trace"
if wake_set 1; then
	at_exit "wake_set 0 2>/dev/null"
	echo 1 >"$TRACEFS/tracing_on"
	start_tool "$WORK/percpu.jsonl" /dev/null sisscan --comm wakeloop --per-cpu --json -d 300 &&
		"$B/wakeloop" -c 0 -n 1000 >"$WORK/landed.out"
	stop_tool
	echo 0 >"$TRACEFS/tracing_on"
	cp "$TRACEFS/trace" "$WORK/wakeups.trace"
	wake_set 0
	: >"$TRACEFS/trace"
	echo 1 >"$TRACEFS/tracing_on"
	waker=$(sed -n 's/^wakeloop: pid \([0-9]*\) .*/\1/p' "$WORK/landed.out")
	sleeper=$(sed -n 's/.* sleeper \([0-9]*\) .*/\1/p' "$WORK/landed.out")
	# "wakeloop-5677 [000] ...: sched_waking: comm=wakeloop pid=5678 ...",
	# then "...: sched_wakeup: comm=wakeloop pid=5678 prio=120 target_cpu=001"
	awk -v t="pid=${sleeper:-none}" -v w="${waker:-none}" '
		{ for (i = 1; i <= NF; i++) if ($i == t) hit = 1 }
		hit && /sched_waking:/ { e = $1; sub(/.*-/, "", e); by_waker = e == w }
		hit && /sched_wakeup:/ { if (by_waker) { c = $NF; sub(/target_cpu=/, "", c); n[c + 0]++ } else other++
			by_waker = 0 }
		{ hit = 0 }
		END { for (c in n) print "placed", c, n[c]; print "pinned", "-", other + 0 }' \
		"$WORK/wakeups.trace" >"$WORK/placed.out"
	lost=$(grep -c 'LOST' "$WORK/wakeups.trace")
	mismatch=$(summary "$WORK/percpu.jsonl" | jq -r '.breakdown.rows[] | "\(.cpu) \(.placements)"' |
		awk -v lost="$lost" 'NR == FNR { if ($1 == "placed") { placed[$2] = $3; total += $3 }; next }
		     { seen[$1] = 1; d = $2 - placed[$1]; if (d < 0) d = -d
		       if (d > 3 + placed[$1] / 50) bad = bad " cpu" $1 ":" $2 "/" placed[$1] }
		     END { for (c in placed) if (!(c in seen) && placed[c] > 3) bad = bad " cpu" c ":0/" placed[c]
		           # fewer when the waker wrote before the sleeper slept (no wakeup)
		           if (total < 900) bad = bad " the trace holds " total + 0 " of the sleeper'"'"'s 1000 wakeups"
		           if (lost) bad = bad " the trace lost events"
		           print bad }' "$WORK/placed.out" -)
	rows=$(summary "$WORK/percpu.jsonl" | jq -c '[.breakdown.rows[] | [.cpu, .placements]]')
	placed=$(awk '$1 == "placed"' "$WORK/placed.out" | sort -k2n | awk '{ printf "%s:%s ", $2, $3 }')
	pinned=$(awk '$1 == "pinned" { print $3 }' "$WORK/placed.out")
	landed=$(awk '/^landed/ { printf "%s:%s ", $2, $3 }' "$WORK/landed.out")
	if [ -z "$mismatch" ] && [ "$(summary "$WORK/percpu.jsonl" | jq -r .breakdown.by)" = cpu ]; then
		pass "--per-cpu placements = the kernel's sched_wakeup target_cpu of wakeloop's sleeper ($rows; kernel: ${placed}+ ${pinned:-0} pinned; the sleeper ran on: $landed)"
	else
		fail "--per-cpu placements = the kernel's sched_wakeup target_cpu of wakeloop's sleeper" "rows $rows, kernel ${placed:-none}+ ${pinned:-0} pinned (waker ${waker:-unknown}, sleeper ${sleeper:-unknown}), mismatches:$mismatch; the sleeper ran on: $landed"
	fi
else
	wake_set 0 2>/dev/null
	echo 1 >"$TRACEFS/tracing_on"
	fail "--per-cpu placements = the kernel's sched_wakeup target_cpu of wakeloop's sleeper" "cannot enable sched_waking and sched_wakeup with a comm filter in $TRACEFS"
fi
kind consistency
start_tool "$WORK/perproc.jsonl" /dev/null sisscan --comm pingpong -P --json -d 300 &&
	"$B/pingpong" -n 5000 -w 800 >"$WORK/pp.out"
stop_tool
read -r parent child <<<"$(awk '/pingpong pid/ { print $3, $5 }' "$WORK/pp.out")"
verdict=$(summary "$WORK/perproc.jsonl" | jq -r --argjson p "$parent" --argjson c "$child" '
	([.processes.rows[] | select(.tgid == $p or .tgid == $c)] | length) as $n |
	([.processes.rows[].placements] | add) as $sum |
	([.breakdown.rows[].placements] | add) as $llc |
	"\($n) \($sum) \($llc) \(.metrics.placements.value)"')
read -r nrows sum llcsum total <<<"$verdict"
# How many of pingpong's wakeups the tracepoint tier places depends on the
# kernel (on some hosts most are not followed by a placement event): both
# processes having rows is what says the table saw the workload.
if [ "$nrows" = 2 ] && [ "$sum" = "$total" ] && [ "$llcsum" = "$total" ] && [ "${total:-0}" -ge 2 ]; then
	pass "-P: rows for both pingpong processes ($parent, $child), their placements add up to $total, and so do the LLC rows"
else
	fail "-P rows add up" "rows for pingpong: $nrows, process sum $sum, LLC sum $llcsum, total $total"
fi

# 3c. -C selects the wakee by the CPU it last ran on. wakeloop's waker is
# pinned to CPU 0 and its sleeper moves back to CPU 0 before each sleep,
# so -C 0 sees nearly all of its 1000 wakeups and -C 1 only those after
# balancing moved the sleeper to CPU 1 before it slept: the sleeper
# reports where it was just before its read() (within 3%: it can still be
# pulled between that and sleeping).
kind "ground truth"
for cpus in 0 1; do
	start_tool "$WORK/cpu$cpus.jsonl" /dev/null sisscan --comm wakeloop -C $cpus --json -d 300 &&
		"$B/wakeloop" -c 0 -n 1000 >"$WORK/slept$cpus.out"
	stop_tool
done
on0=$(metric "$WORK/cpu0.jsonl" sis_search)
on1=$(metric "$WORK/cpu1.jsonl" sis_search)
slept1=$(awk '$1 == "slept" && $2 == 1 { print $3 }' "$WORK/slept1.out")
if [ "${on0:-0}" -ge 900 ] && [ -n "$on1" ] && within "$on1" "${slept1:-0}" 0 30; then
	pass "-C selects the wakee by its last CPU: -C 0 $on0 of 1000 sleeper wakeups, -C 1 $on1 (it reported sleeping on CPU 1 ${slept1:-0} times, +-30)"
else
	fail "-C selects the wakee by its last CPU" "-C 0: '$on0', -C 1: '$on1', slept on CPU 1: '${slept1:-0}'"
fi

# 4. Filter audit: the event stream, recomputed in Python, must give the
# kernel's FP/FN exactly. (ideal's 0 FP / 0 FN and one audit per search:
# tests/check/sisscan_audit.c, in the live suite's check run.)
kind behaviour
start_tool "$WORK/audit.jsonl" "$WORK/audit.err" sisscan --comm pingpong \
	--filter ideal,unoccupied,unoccupied_tick,overloaded,delayed --events "$WORK/events.jsonl" --json -i 1 -d 300 --stats &&
	"$B/pingpong" -s -n 10000 >/dev/null
stop_tool
check "sisscan --filter ideal,unoccupied,unoccupied_tick,overloaded,delayed --events exits 0" [ $status -eq 0 ]
kind consistency
if out=$(/usr/bin/python3 "$ROOT/tests/check_events.py" "$WORK/events.jsonl" "$WORK/audit.jsonl"); then
	pass "event stream recomputation = in-kernel FP/FN ($(echo "$out" | tr '\n' ';'))"
else
	fail "event stream recomputation = in-kernel FP/FN" "$(echo "$out" | tr '\n' ';')"
fi
json_valid "audit records valid against docs/json.md, counters add up" "$WORK/audit.jsonl"
cost=$(summary "$WORK/audit.jsonl" | jq -r '[.prog_stats[] | "\(.name)=\(.ns_per_event)"] | join(" ")')
echo "# audit cost, ns/event: $cost"

# 5. A filter whose updates are delayed on purpose, against a known answer:
# two timer sleepers, one per CPU, 1 ms periods kept half a period apart
# (wakeloop -P: absolute deadlines), so when one wakes, the other CPU went
# idle 0.5 ms (less its few µs of run time) before. The waking CPU is not
# unoccupied at the audit (its wakee is on it), so each audit has one
# unoccupied CPU, the other one, and the delayed filter hides it exactly
# when the delay exceeds the age of that change: fn_pct 0 at no delay, ~0
# at 0.25 ms, ~100 at 0.75 and 1.6 ms (seen: 0 / 0.54 / 99.63 / 99.97).
# The bounds (5 and 90) leave room for the host's other tasks, which
# change a CPU's occupancy at random times. Each bound also moves by
# wakeloop's own count of wakeups more than 0.2 ms late: a late wakeup
# makes its CPU's change younger than 0.25 ms for the partner's next audit
# (6.37 at 0.25 ms seen on a host whose timers ran late) and its own
# audit come more than 0.75 ms after the partner's change (fn_pct below
# 90 at 0.75 ms seen in CI while guests ran beside it). A run where more
# than 35% of wakeups were late (the bounds would meet: 5 + 35 < 90 - 35;
# 18.47% late at 0.25 ms once, fn_pct 8.42), or sleepers that left their
# home CPUs more often than other tasks can explain, is not this scenario
# and says so.
kind "known answer"
ncpu_now=$(nproc)
if [ "$ncpu_now" -ge 2 ]; then
	declare -A fn_at late_at
	for delay in 0 0.25 0.75 1.6; do
		start_tool "$WORK/delay.jsonl" /dev/null sisscan --comm wakeloop --filter delayed \
			--filter-delay $delay --json -d 300 &&
			"$B/wakeloop" -t 2 -P 500 -s 1000 -n 1500 >"$WORK/delay.wl"
		stop_tool
		fn_at[$delay]=$(summary "$WORK/delay.jsonl" | jq -r '.metrics.filter_delayed_fn_pct.value')
		away=$(awk '/^thread/ { away += 1500 - $6 } END { print away + 0 }' "$WORK/delay.wl")
		# wakeups more than 0.2 ms late: the partner's change is then
		# younger than 0.25 ms at most once per such wakeup
		late_at[$delay]=$(awk '/^thread/ { late += $8 } END { printf "%.2f", 100 * late / 3000 }' "$WORK/delay.wl")
		awk -v l="${late_at[$delay]}" 'BEGIN { exit !(l <= 35) }' ||
			fail "delayed filter scenario: the sleepers woke on time" \
				"${late_at[$delay]}% of wakeups more than 0.2 ms late at delay $delay ms"
		# A sleeper wakes away from home when another task holds its home
		# CPU then, which makes wakeups late too: 15 wakeups (0.5%) plus
		# each late one (24 away with 69 late at 1.6 ms once, while a
		# build ran beside the suite).
		late=$(awk '/^thread/ { late += $8 } END { print late + 0 }' "$WORK/delay.wl")
		echo "# delay $delay ms: $away of 3000 wakeups away from home (at most $((15 + late)): margin $((15 + late - away)))"
		[ "$away" -le $((15 + late)) ] ||
			fail "delayed filter scenario: the sleepers stayed on their home CPUs" \
				"$away of 3000 wakeups away from home at delay $delay ms, $late late"
	done
	echo "# delayed filter, fn_pct at 0, 0.25, 0.75, 1.6 ms: ${fn_at[0]} ${fn_at[0.25]} ${fn_at[0.75]} ${fn_at[1.6]}"
	echo "# wakeups more than 0.2 ms late, %: ${late_at[0]} ${late_at[0.25]} ${late_at[0.75]} ${late_at[1.6]}"
	check_fn() {
		local delay=$1 test=$2 what=$3
		if awk -v v="${fn_at[$delay]}" "BEGIN { exit !(v != \"\" && $test) }"; then
			pass "delayed filter at $delay ms: fn_pct ${fn_at[$delay]} ($what)"
		else
			fail "delayed filter at $delay ms: $what" "fn_pct '${fn_at[$delay]}'"
		fi
	}
	check_fn 0 "v == 0" "no delay is the truth: 0"
	check_fn 0.25 "v <= 5 + ${late_at[0.25]:-0}" "younger than the other CPU's 0.5 ms old change: at most 5 + the ${late_at[0.25]:-?}% of wakeups more than 0.2 ms late"
	check_fn 0.75 "v >= 90 - ${late_at[0.75]:-0}" "older than that change: at least 90 - the ${late_at[0.75]:-?}% of wakeups more than 0.2 ms late"
	check_fn 1.6 "v >= 90 - ${late_at[1.6]:-0}" "older than a whole period: at least 90 - the ${late_at[1.6]:-?}% late"
else
	skip "delayed filter known answer" "needs 2 CPUs, this host has $ncpu_now"
fi

# 6. In-place wakeups: both pingpong sides pinned to CPU 1. With EEVDF's
# DELAY_DEQUEUE (6.12+, on by default) a side that blocks after running
# past its share stays queued, so the other side's next write finds it
# on_rq: ttwu_runnable(), no CPU selected. Each side blocks right after it
# ran and woke the other, so most wakeups are in place (seen 96%): at
# least half. (No independent count: bpftrace 0.17 has no rawtracepoint
# probe to read the wakee's on_rq, and kprobes are absent here.)
kind "known answer"
start_tool "$WORK/inplace.jsonl" "$WORK/inplace.err" sisscan --comm pingpong --json -d 300 &&
	taskset -c 1 "$B/pingpong" -n 5000 >/dev/null
stop_tool
read -r got_in got_all got_search <<<"$(summary "$WORK/inplace.jsonl" |
	jq -r '[.metrics.wakeups_in_place.value, .metrics.wakeups.value, .metrics.sis_search.value] | map(tostring) | join(" ")')"
echo "# in-place wakeups: $got_in of $got_all wakeups; sis_search $got_search"
kmajor=$(uname -r | awk -F. '{ print $1 * 100 + $2 }')
if [ "$kmajor" -lt 612 ]; then
	skip "wakeups_in_place: two pingpong sides on one CPU" "kernel $(uname -r) has no DELAY_DEQUEUE"
elif [ $status -eq 0 ] && [ -n "$got_in" ] && [ "$got_in" != null ] && [ "${got_all:-0}" -ge 1000 ] &&
	[ $((got_in * 2)) -ge "$got_all" ]; then
	pass "wakeups_in_place: two pingpong sides on one CPU, $got_in of $got_all wakeups in place (at least half)"
else
	fail "wakeups_in_place: two pingpong sides on one CPU" "'$got_in' of '$got_all' wakeups over pingpong's 5000 round trips, exit $status"
fi
kind consistency
if [ -n "$got_search" ] && [ "$got_search" != null ] && [ $((got_search + got_in)) -le "$got_all" ]; then
	pass "wakeups ($got_all) >= sis_search ($got_search) + wakeups_in_place ($got_in)"
else
	fail "wakeups >= sis_search + wakeups_in_place" "wakeups '$got_all' sis_search '$got_search' in place '$got_in'"
fi

# 7. The real mask needs a patched kernel; this one is stock.
kind behaviour
expect_error 1 "no SIS filter mask" "--filter real on a stock kernel: exit 1, says the patches are not applied" \
	"$BIN/sisscan" --filter real -d 1
expect_error 2 "unknown filter" "--filter bogus: exit 2 naming the filters" "$BIN/sisscan" --filter bogus
expect_error 2 "give --filter too" "--events without --filter: exit 2" "$BIN/sisscan" --events "$WORK/x"

finish
