#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Signals at random moments from when the tool catches them, the first
# 250 ms (still loading and attaching) included: SIGINT, SIGTERM and SIGHUP end the run with exit 0
# and, once tracing, a summary as the last record; SIGKILL ends it at
# once. Whatever the moment, the JSON printed is whole records, and
# nothing stays attached. The delays are random (logged, so a failure can
# be replayed with SIGNAL_SEED).
source "$(dirname "$0")/../live/lib.sh"

seed=${SIGNAL_SEED:-$RANDOM}
RANDOM=$seed
echo "# SIGNAL_SEED=$seed"

"$BUILD/workloads/pingpong" -n 100000000 >/dev/null &
load=$!
at_exit "kill $load"
# wait_caught PID SIG: until the tool catches SIG (its handlers are set
# first thing in main(); before that, in the fork and the loader, only the
# default action exists: a CI run's SIGTERM 1 ms after the start ended
# sisscan with status 143 before it ran a line of its own). At most 2 s.
wait_caught() {
	local exe signum mask w
	exe=$(readlink -f "$BIN/$tool")
	signum=$(kill -l "$2")
	for ((w = 0; w < 200; w++)); do
		mask=$(awk '/^SigCgt:/ { print $2 }' "/proc/$1/status" 2>/dev/null)
		if [ "$(readlink "/proc/$1/exe" 2>/dev/null)" = "$exe" ] && [ -n "$mask" ] &&
		   (( (16#$mask >> (signum - 1)) & 1 )); then
			return 0
		fi
		sleep 0.005
	done
}

before=$(bpf_objects_quiet)
for tool in $TOOLS; do
	for sig in INT TERM HUP KILL; do
		bad="" runs=0 summaries=0
		for ((r = 0; r < 6; r++)); do
			# Half in the first 250 ms, half up to 1.5 s.
			if [ $r -lt 3 ]; then ms=$((RANDOM % 250)); else ms=$((250 + RANDOM % 1250)); fi
			"$BIN/$tool" --json -i 0.1 >"$WORK/s.jsonl" 2>"$WORK/s.err" &
			pid=$!
			[ $sig = KILL ] || wait_caught $pid $sig
			sleep "$(awk -v m=$ms 'BEGIN { printf "%.3f", m / 1000 }')"
			kill -$sig $pid
			wait $pid 2>/dev/null
			status=$?
			runs=$((runs + 1))
			# Whole records only: every line parses.
			if [ -s "$WORK/s.jsonl" ] && ! jq -e . "$WORK/s.jsonl" >/dev/null 2>&1; then
				bad="$bad [${ms} ms: a torn record]"
			fi
			if [ $sig = KILL ]; then
				[ $status -eq 137 ] || bad="$bad [${ms} ms: status $status]"
				continue
			fi
			last=$(tail -n 1 "$WORK/s.jsonl" | jq -r '.type + " " + (.end_reason // "")' 2>/dev/null)
			if [ $status -ne 0 ]; then
				bad="$bad [${ms} ms: status $status: $(head -c 100 "$WORK/s.err")]"
			elif [ -s "$WORK/s.jsonl" ]; then
				# Once anything is printed, the summary comes last.
				[ "$last" = "summary signal" ] && summaries=$((summaries + 1)) ||
					bad="$bad [${ms} ms: last record '$last']"
			fi
		done
		after=$(bpf_objects_settled "$before")
		bpf_objects_within "$after" "$before" || bad="$bad [programs maps links $before -> $after]"
		if [ -z "$bad" ]; then
			pass "$tool: SIG$sig at $runs random moments: $([ $sig = KILL ] && echo "killed" || echo "exit 0, $summaries summaries last"), whole records, nothing left attached"
		else
			fail "$tool: SIG$sig at random moments" "$bad"
		fi
	done
done
finish
