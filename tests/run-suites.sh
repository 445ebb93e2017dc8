#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Runs test suites (unit, live, vm) and ends with "N passed, N failed".
# Every test prints TAP-style "ok ..." / "not ok ..." lines; a test
# program that exits non-zero without saying which check failed, or that
# prints no result at all, counts as one failure.
set -uo pipefail
cd "$(dirname "$0")/.."

BUILD=${BUILD:-build}
LOGS=$BUILD/test-logs
mkdir -p "$LOGS"
export SCHEDSCAN_FIXTURES=${SCHEDSCAN_FIXTURES:-$PWD/tests/fixtures}
export SCHEDSCAN_BUILD=$PWD/$BUILD
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
results=$LOGS/results.txt
: >"$results"

# run_test SUITE NAME CMD...: runs one test program, relabels its lines.
run_test() {
	local suite=$1 name=$2 log status
	shift 2
	log=$LOGS/$suite-$name.log
	"$@" >"$log" 2>&1
	status=$?
	sed -n -E "s/^(not ok|ok)( [0-9]+)? -? ?(.*)$/\1 - $suite\/$name: \3/p" "$log" |
		tee -a "$results"
	if [ $status -ne 0 ] && ! grep -q '^not ok' "$log"; then
		echo "not ok - $suite/$name: exited with status $status (log: $log)" |
			tee -a "$results"
	elif ! grep -q -E '^(ok|not ok)' "$log"; then
		echo "not ok - $suite/$name: printed no result (log: $log)" |
			tee -a "$results"
	fi
	if grep -q '^not ok' "$log" || [ $status -ne 0 ]; then
		echo "# --- $log (last 30 lines) ---"
		tail -n 30 "$log" | sed 's/^/#   /'
	fi
}

for suite in "$@"; do
	echo "# suite: $suite"
	case $suite in
	unit)
		for t in "$BUILD"/tests/unit/test_*; do
			[ -x "$t" ] || continue
			run_test unit "$(basename "$t")" "$t"
		done
		;;
	live)
		if [ "$(id -u)" -ne 0 ]; then
			echo "not ok - live: needs root to load BPF programs" | tee -a "$results"
			continue
		fi
		for t in tests/live/test_*.sh; do
			run_test live "$(basename "$t" .sh)" bash "$t"
		done
		;;
	vm)
		run_test vm vmcheck bash tests/vm/vmcheck.sh
		# The tool x kernel x tier matrix and timings.
		grep '^vmcheck:' "$LOGS/vm-vmcheck.log"
		for t in tests/vm/selftest-*.sh; do
			[ -f "$t" ] || continue
			run_test vm "$(basename "$t" .sh)" bash "$t"
		done
		;;
	*)
		echo "not ok - unknown suite $suite" | tee -a "$results"
		;;
	esac
done

passed=$(grep -c '^ok ' "$results")
failed=$(grep -c '^not ok ' "$results")
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
