#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# idlebal on the host (tracepoint tier): the SCHED_IDLE overload scenario
# against the kernel's events, and a SCHED_IDLE spinner's migrations. The
# other overloaded-while-idle scenarios and the migrations by cause are
# checks of the runner, written once for the host and the guests
# (tests/check/idlebal_overload.c, idlebal_causes.c).
source "$(dirname "$0")/lib.sh"
ensure_tracefs

SPIN=$BUILD/workloads/spinner
spinners=""
spin() {  # spin ARGS...: a spinner for 600 s, killed by stop_spinners
	"$SPIN" -s 600 "$@" >/dev/null 2>&1 &
	spinners="$spinners $!"
}
stop_spinners() {
	[ -n "$spinners" ] && kill $spinners 2>/dev/null
	wait $spinners 2>/dev/null
	spinners=""
}
at_exit stop_spinners

# The SCHED_IDLE scenario stays here, not in the runner: on this host a
# service's threads run on CPU 0 without their time showing in their
# schedstat or in /proc/stat (seen with perf's sched_switch: 173 ms of a 4 s
# window, none of it in /proc/PID/task/TID/schedstat), so only the kernel's
# own events bound CPU 0's unoccupied time here (ftrace_unoccupied.py).
# scenario TAG: idlebal -i 0.5 around 4 s of the spinners started before
# (pinned to CPU 1 itself); sets share (the overload_llc, overload_node
# and overload_system shares of the inner intervals, in %, the first and
# last two left out: their edges hold the start and stop), idle0 (CPU 0's
# share idle, from the cpus table), worst (the largest gap, in % of its
# interval, between an inner interval's LLC time and CPU 0's idle time)
# and intervals.
scenario() {
	local out=$WORK/overload.$1.jsonl
	[ -n "${IDLE_SPINNER:-}" ] && trace_start
	taskset -c 1 "$BIN/idlebal" --json -i 0.5 --ready-fd 3 3>"$WORK/ready" >"$out" \
		2>"$WORK/overload.err" &
	tool=$!
	for _ in $(seq 1 6000); do
		[ -s "$WORK/ready" ] || ! kill -0 $tool 2>/dev/null && break
		sleep 0.01
	done
	: >"$WORK/ready"
	# The sched-idle spinner's run time between marks at the tool's ready
	# and its SIGINT, printed beside the SCHED_IDLE scenario's answer.
	local rt_a=0 rt_b=0 t_a t_b
	t_a=$(date +%s%N)
	[ -n "${IDLE_SPINNER:-}" ] && read -r rt_a _ <"/proc/$IDLE_SPINNER/schedstat"
	local taken_a taken_b
	taken_a=$(cpu0_taken)
	sleep 4
	[ -n "${IDLE_SPINNER:-}" ] && read -r rt_b _ <"/proc/$IDLE_SPINNER/schedstat"
	taken_b=$(cpu0_taken)
	cpu0_taken_ticks=$((taken_b - taken_a))
	t_b=$(date +%s%N)
	stop_tool
	[ -n "${IDLE_SPINNER:-}" ] && trace_stop "$WORK/sched.trace"
	stop_spinners
	idle_spinner_ns=$(( rt_b - rt_a )) marks_ns=$(( t_b - t_a ))
	read -r run_llc_ns run_ns < <(jq -r 'select(.type == "summary") |
		"\([.overload_llc.rows[]?.overloaded_idle_ns] | add // 0) \((.end - .start) * 1e9 | round)"' "$out")
	read -r share_llc share_node share_system idle0 worst intervals < <(jq -rs '
		[.[] | select(.type == "interval")] | .[2:-2] as $in |
		($in | map(.end - .start) | add) as $len |
		def pct(x): (x * 100 | round) / 100;
		def share(t): pct(([$in[] | .[t].rows[]?.overloaded_idle_ns] | add // 0) / ($len * 1e7));
		def llc: [.overload_llc.rows[]?.overloaded_idle_ns] | add // 0;
		def idle0: [.cpus.rows[] | select(.cpu == 0) | .idle_ns] | add // 0;
		"\(share("overload_llc")) \(share("overload_node")) \(share("overload_system")) \(
		 pct([$in[] | idle0] | add / ($len * 1e7))) \(
		 pct([$in[] | ((llc - idle0) | fabs) / ((.end - .start) * 1e7)] | max // 0)) \($in | length)"' \
		"$out")
	kind consistency
	json_valid "idlebal $1: records valid, the intervals add up to the summary" "$out"
	kind "known answer"
}
# CPU 0's irq + softirq + steal ticks (/proc/stat, USER_HZ).
cpu0_taken() { awk '$1 == "cpu0" { print $7 + $8 + $9 }' /proc/stat; }
share_line() {
	echo "LLC ${share_llc}%, node ${share_node}%, system ${share_system}% of $intervals half-second intervals; CPU 0 idle ${idle0}%"
}
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 >= b + 0) }'; }
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 <= b + 0) }'; }

# CPU 1 overloaded and CPU 0 running a SCHED_IDLE spinner:
# sched-idle counts as idle (need_pull_cfs_task(): h_nr_running ==
# idle_h_nr_running). With a normal spinner on CPU 0 nothing is idle.
# sched_idle_attempt: one run of the scenario; fails (status 1) when CPU 0
# was not quiet enough for an answer: unoccupied less than half the inner
# intervals by the events, or the bracket wider than its 30% (the spinner
# ran while other tasks waited on CPU 0: this host's own nice -10 service,
# in another cgroup, shares CPU 0 with the spinner's group by weight; a
# clean-clone run saw the events at 60.69% and the spinner at 97.06%).
sched_idle_attempt() {
	spin -c 1
	spin -c 1
	spin -c 0 -i
	IDLE_SPINNER_PID=${spinners##* }
	IDLE_SPINNER=$IDLE_SPINNER_PID scenario sched_idle
	# The host's own work on CPU 0 (seen 1-7% of the time on a quiet host) is
	# not SCHED_IDLE: at least 80%, against 0% for a normal spinner below. A
	# package download beside the suite once took 75% of CPU 0 and failed it.
	# The spinner's own run time is printed beside the answer: on 6.18 it ran
	# 98.5-99% of the time between the marks while the tool's inner intervals
	# gave 95-97% (the whole run less, for the tool's start and stop on the
	# shell's CPU), a gap the wakeup latencies on CPU 0 (6 ms in 4 s) do not
	# explain; to be understood before it becomes the answer.
	# The reference: the kernel's own events say CPU 0 was unoccupied (CPU 1
	# is overloaded throughout); per inner interval, against the tool's LLC
	# time. The SCHED_IDLE spinner's run time is printed too, but it is not
	# the answer: on this host a nice -10 task woken on CPU 0 stays queued
	# for 10-40 ms at times while the spinner's run time goes on growing (seen
	# with these same events: the tool followed the runqueue, the spinner's
	# run time did not).
	read -r ref_pct ref_gap ref_intervals < <(python3 "$(dirname "$0")/ftrace_unoccupied.py" \
		"$WORK/sched.trace" "$WORK/overload.sched_idle.jsonl" 0 "$IDLE_SPINNER_PID" "$mono_minus_real" |
		awk '{ r[NR] = $3; t[NR] = $4; len[NR] = ($2 - $1) * 1e9 }
		     END { for (i = 3; i <= NR - 2; i++) { R += r[i]; L += len[i]; g = (t[i] - r[i]) / len[i]; g = g < 0 ? -g : g; if (g > G) G = g }
		           printf "%.2f %.2f %d\n", (L ? 100 * R / L : 0), 100 * G, (NR > 4 ? NR - 4 : 0) }')
	run_pct=$(awk -v a="${run_llc_ns:-0}" -v b="${run_ns:-0}" 'BEGIN { printf "%.2f", b ? 100 * a / b : 0 }')
	sched_idle_line="$(share_line); whole run: tool ${run_pct}%, the spinner's run time $(awk -v a="$idle_spinner_ns" -v b="$marks_ns" 'BEGIN { printf "%.2f", b ? 100 * a / b : 0 }')% of its marks"
	sched_idle_line="$sched_idle_line; the kernel's events: CPU 0 unoccupied ${ref_pct:-?}% of the $ref_intervals inner intervals, largest gap to the tool ${ref_gap:-?}% of an interval"
	# The outer side: CPU 0 was unoccupied only while its SCHED_IDLE spinner
	# ran, or while an interrupt or the hypervisor (steal) took the CPU from
	# it, which its run time leaves out (/proc/stat's irq, softirq, steal).
	# Those are read at the marks, so the bound holds for the tool's whole
	# run, with its time outside the marks (start-up, SIGINT) counted as
	# unoccupied, not for the inner intervals: the spinner runs less at the
	# edges, where the shell and the tool start and stop (a clean-clone run
	# saw the spinner at 97.37% of the marks while the events and the tool
	# agreed on 98.73-98.75% of the inner intervals).
	outer_pct=$(awk -v a="$idle_spinner_ns" -v b="$marks_ns" -v t="$cpu0_taken_ticks" -v hz="$(getconf CLK_TCK)" \
		-v r="${run_ns:-0}" 'BEGIN { e = r - b; if (e < 0) e = 0; printf "%.2f", r ? 100 * (a + t * 1e9 / hz + e) / r : 0 }')
	width=$(awk -v o="$outer_pct" -v i="${ref_pct:-0}" 'BEGIN { printf "%.2f", o - i }')
	sched_idle_line="$sched_idle_line; bracket: inner ${ref_pct:-?}% (the events, inner intervals) <= tool, tool's whole run ${run_pct}% <= outer $outer_pct% (the spinner's run time + CPU 0's irq, softirq and steal between the marks + the run outside them), width $width% (tolerance 30%)"
	ge "${ref_pct:-0}" 50 && le "$width" 30
}
# The environment is retried, at most three runs, each printed; the tool is
# not: its time against the bounds is judged on the last run alone.
for attempt in 1 2 3; do
	sched_idle_attempt && break
	echo "# SCHED_IDLE scenario, run $attempt of 3: CPU 0 not quiet (events: unoccupied ${ref_pct:-?}% of the inner intervals; bracket width $width%, at most 30%)"
done
sched_idle_line="$sched_idle_line; run $attempt of at most 3"
within_pct() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; exit !(d <= t && -d <= t) }'; }
# Sched-idle counts as idle (a tool that took the spinner for a busy CPU
# reports 0): the tool's time is at least what the kernel's events show
# unoccupied in the inner intervals (a lower bound on this host, see
# ftrace_unoccupied.py; when no event is missing the two agree within
# 0.03% of an interval) and, over its whole run, at most the spinner's run
# time and the rest (above), 1% slack each side; the bracket is at most
# 30% wide, and the scenario is one: CPU 0 unoccupied at least half the
# time.
if [ "$intervals" -ge 3 ] && [ "${ref_intervals:-0}" = "$intervals" ] && ge "${ref_pct:-0}" 50 &&
   le "$width" 30 && ge "$share_llc" "$(awk -v i="$ref_pct" 'BEGIN { print i - 1 }')" &&
   le "$run_pct" "$(awk -v o="$outer_pct" 'BEGIN { print o + 1 }')" && within_pct "$share_system" "$share_llc" 0.01; then
	pass "idlebal: CPU 1 overloaded, CPU 0 running a SCHED_IDLE spinner: sched-idle counts as idle, within the bracket of the kernel's events (inner intervals) and the spinner's run time (whole run) ($sched_idle_line)"
else
	fail "idlebal: a SCHED_IDLE CPU counts as idle (the tool's time between the kernel's events' unoccupied time (inner intervals) and the spinner's run time (whole run), 1% slack, the bracket at most 30% wide)" "$sched_idle_line"
fi
# A SCHED_IDLE spinner whose affinity flips: every migration is an
# affinity move of an idle task (seed 001's task_h_idle()).
kind "known answer"
"$SPIN" -c 0 -s 60 -i >/dev/null 2>&1 &
idle_spin=$!
at_exit "kill $idle_spin"
start_tool "$WORK/idle.jsonl" "$WORK/idle.err" idlebal --json -p "$idle_spin"
for i in $(seq 1 20); do
	taskset -p -c $((i % 2)) "$idle_spin" >/dev/null
	sleep 0.03
done
stop_tool
kill "$idle_spin"
read -r moved idle_moved affinity < <(jq -r 'select(.type == "summary") |
	"\(.metrics.migrations.value) \([.migration_causes.rows[] | .idle_tasks] | add // 0) \(
	[.migration_causes.rows[] | select(.cause == "affinity") | .migrations] | add // 0)"' "$WORK/idle.jsonl")
if [ "$moved" -ge 10 ] 2>/dev/null && [ "$idle_moved" = "$moved" ] && [ "$affinity" = "$moved" ]; then
	pass "idlebal: a SCHED_IDLE spinner's affinity flips: all $moved migrations are affinity moves of an idle task"
else
	fail "idlebal: a SCHED_IDLE spinner's migrations are idle tasks'" "migrations '$moved', idle_tasks '$idle_moved', affinity '$affinity'"
fi

# Migrations by cause against wakeloop's own count, and the causes adding
# up in every record: tests/check/idlebal_causes.c (idlebal.*.causes.*),
# in the live suite's check run.
finish
