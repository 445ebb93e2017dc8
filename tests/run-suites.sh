#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Runs test suites (unit, live, robustness, vm, mutation) and ends with
# "N passed, N failed, N skipped".
#
# Every test program prints TAP: "ok N - name", "not ok N - name", a
# "# SKIP reason" directive for a check that could not run here, and a
# plan "1..N". A program that exits non-zero without saying which check
# failed, prints no result, prints a plan that does not match its results,
# or runs past its time limit counts as one failure. A line that merely
# starts with "ok" is not a result.
set -uo pipefail
cd "$(dirname "$0")/.."

BUILD=${BUILD:-build}
LOGS=$BUILD/test-logs
mkdir -p "$LOGS"
export SCHEDSCAN_FIXTURES=${SCHEDSCAN_FIXTURES:-$PWD/tests/fixtures}
export SCHEDSCAN_BUILD=$PWD/$BUILD
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# Time limits per test program, in seconds (a hung test is a failure).
UNIT_TIMEOUT=${UNIT_TIMEOUT:-120}
LIVE_TIMEOUT=${LIVE_TIMEOUT:-900}
VM_TIMEOUT=${VM_TIMEOUT:-3600}
results=$LOGS/results.txt
: >"$results"

# record LINE: one result line for the totals, also on stdout.
record() {
	echo "$1" | tee -a "$results"
}

# Where the time goes: seconds per test program and per suite, printed
# at the end (issue 33 asks for the time per suite).
timings=$LOGS/timings.txt
: >"$timings"
# the mutation selftest's guest console log, when this run's vmcheck made it
mutations_log=""

# run_test SUITE NAME TIMEOUT CMD...: runs one test program, relabels its
# results "ok - SUITE/NAME: ..." and checks its plan.
run_test() {
	local suite=$1 name=$2 limit=$3 log status results_seen plan t0
	shift 3
	log=$LOGS/$suite-$name.log
	t0=$(date +%s)
	timeout -k 10 "$limit" "$@" >"$log" 2>&1
	status=$?
	echo "$suite/$name $(($(date +%s) - t0))" >>"$timings"
	sed -n -E "s/^(not ok|ok) [0-9]+( -)? ?(.*)$/\1 - $suite\/$name: \3/p" "$log" |
		tee -a "$results"
	results_seen=$(grep -c -E '^(not ok|ok) [0-9]+( |$)' "$log")
	plan=$(sed -n -E 's/^1\.\.([0-9]+)$/\1/p' "$log" | tail -n 1)
	if [ $status -eq 124 ] || [ $status -eq 137 ]; then
		record "not ok - $suite/$name: ran past its ${limit}s limit (log: $log)"
	elif [ $status -ne 0 ] && ! grep -q -E '^not ok [0-9]+' "$log"; then
		record "not ok - $suite/$name: exited with status $status (log: $log)"
	elif [ "$results_seen" -eq 0 ]; then
		record "not ok - $suite/$name: printed no result (log: $log)"
	elif [ -z "$plan" ] || [ "$plan" -ne "$results_seen" ]; then
		record "not ok - $suite/$name: plan ${plan:-missing}, $results_seen results (log: $log)"
	fi
	if grep -q -E '^not ok [0-9]+' "$log" || [ $status -ne 0 ]; then
		echo "# --- $log (last 30 lines) ---"
		tail -n 30 "$log" | sed 's/^/#   /'
	fi
}

for suite in "$@"; do
	echo "# suite: $suite"
	suite_t0=$(date +%s)
	case $suite in
	unit)
		# Every test source has its binary: a missing one is a failure.
		for src in tests/unit/test_*.c; do
			t=$BUILD/tests/unit/$(basename "$src" .c)
			if [ ! -x "$t" ]; then
				record "not ok - unit/$(basename "$t"): not built ($t)"
				continue
			fi
			run_test unit "$(basename "$t")" "$UNIT_TIMEOUT" "$t"
		done
		# Every shell script parses with the shell that runs it: the
		# guest's scripts with busybox sh (an apostrophe in a comment of a
		# quoted awk program once cost a whole CI run), the rest with bash.
		parsed=0 unparsed=""
		for f in $(find tests bench scripts -name '*.sh' | sort); do
			case $(head -n 1 "$f") in
			'#!/bin/sh') sh_cmd="busybox sh" ;;
			*) sh_cmd=bash ;;
			esac
			if err=$($sh_cmd -n "$f" 2>&1); then
				parsed=$((parsed + 1))
			else
				unparsed="$unparsed $f ($sh_cmd -n: ${err:0:200})"
			fi
		done
		if [ -z "$unparsed" ] && [ "$parsed" -gt 0 ]; then
			record "ok - unit/shell-syntax: $parsed scripts parse (busybox sh -n for the guest's, bash -n for the rest)"
		else
			record "not ok - unit/shell-syntax: $parsed scripts parse, these do not:${unparsed:- none found}"
		fi
		;;
	live | robustness)
		# live: the tools on this kernel against its own counters;
		# robustness: hostile input, outputs, signals, load, leaks, fuzzing.
		if [ "$(id -u)" -ne 0 ]; then
			record "not ok - $suite: needs root to load BPF programs"
			continue
		fi
		for t in tests/$suite/test_*.sh; do
			run_test "$suite" "$(basename "$t" .sh)" "$LIVE_TIMEOUT" bash "$t"
		done
		# The scenarios written once for the host and the guests
		# (tests/check): here in the tracepoint tier, the one this host
		# allows. Not the SCHED_IDLE overload checks: this host's kernel
		# hides a service's run time from schedstat, which their bounds
		# read; tests/live/test_idlebal.sh checks that scenario here
		# against the kernel's events.
		if [ "$suite" = live ]; then
			run_test live check "$LIVE_TIMEOUT" "$BUILD/tests/check/check" --tier tracepoint \
				--skip 'idlebal.known.overload.sched_idle_*'
		fi
		;;
	mutation)
		# Each deliberate miscount (lib/mutation.h) must fail a check:
		# on this host's live tests, and in one guest boot, which the vm
		# suite's vmcheck has made beside its others when it ran here
		# (not beside the host's: their scenarios need idle CPUs, or a
		# check could fail for the busy CPU and not for the mutation).
		run_test mutation host "$LIVE_TIMEOUT" bash tests/selftest-mutations.sh
		run_test mutation guest "$VM_TIMEOUT" env ${mutations_log:+VM_MUTATIONS_LOG=$mutations_log} \
			bash tests/vm/selftest-mutations.sh
		;;
	vm)
		run_test vm selftest-fetch "$LIVE_TIMEOUT" bash tests/vm/selftest-fetch.sh
		# with the mutation selftest's boot (the tools' test builds;
		# never an older run's log)
		rm -rf "$BUILD"/vm/out/*-mutations
		run_test vm vmcheck "$VM_TIMEOUT" env VM_MUTANTS="$SCHEDSCAN_BUILD/static-test" bash tests/vm/vmcheck.sh
		mutations_log=$(ls "$BUILD"/vm/out/*-mutations/console.log 2>/dev/null | head -n 1)
		# The tool x kernel x tier matrix and timings.
		grep '^vmcheck:' "$LOGS/vm-vmcheck.log"
		run_test vm selftest-broken "$VM_TIMEOUT" bash tests/vm/selftest-broken.sh
		;;
	*)
		record "not ok - unknown suite $suite"
		;;
	esac
	echo "suite $suite $(($(date +%s) - suite_t0))" >>"$timings"
done

# Results by the kind of check their tag names ("[ground truth]" ...);
# untagged results (unit tests, CLI behaviour) count as behaviour.
kinds=""
for kind in "ground truth" "known answer" "consistency" "environment"; do
	kinds="$kinds$(grep -c -F "[$kind]" "$results") $kind, "
done
echo "# by kind: $kinds$(grep -c -v -E '\[(ground truth|known answer|consistency|environment)\]' "$results") behaviour"
# The ten results closest to their tolerance (tests/check prints each
# margin as "= Rx the tolerance"), so that a near-flake is seen before it
# fails.
# (Not the mutation suite's lines: they quote checks failed on purpose.)
closest=$(grep -v -E '^(ok|not ok) - mutation/' "$results" |
	sed -n -E 's/^(ok|not ok) - (.* )([a-z]+\.(truth|known|consistency|behaviour)\.[a-z0-9_.]+ \[[a-z]+\]): .* = (-?[0-9.]+)x the tolerance.*$/\5 \2\3/p' |
	sort -g | head -n 10)
if [ -n "$closest" ]; then
	echo "# closest to their tolerance (margin / tolerance, result):"
	sed 's/^/#   /' <<<"$closest"
fi
# Seconds per suite, and the ten slowest test programs.
echo "# seconds per suite: $(awk '$1 == "suite" { printf "%s%s %s", n++ ? ", " : "", $2, $3 }' "$timings")"
echo "# slowest programs (s): $(awk '$1 != "suite" { print $2, $1 }' "$timings" | sort -rn | head -n 10 |
	awk '{ printf "%s%s %s", n++ ? ", " : "", $2, $1 }')"
# A "# SKIP" directive marks a check that did not run: counted apart.
skipped=$(grep -c -E '^ok - .*# ?SKIP' "$results")
passed=$(grep -E '^ok - ' "$results" | grep -c -v -E '# ?SKIP')
failed=$(grep -c '^not ok - ' "$results")
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
