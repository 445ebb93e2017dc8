#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# selftest-mutations.sh: proves that this host's live tests fail when a
# tool miscounts. Each mutation (lib/mutation.h) is switched on through
# SCHEDSCAN_MUTATION in the test build of the tools (build/test: the
# release objects, linked with lib/mutation.c built -DSCHEDSCAN_TEST_BUILD;
# without the variable it is the release build, which the live suite
# has just passed with), and the live tests that cover what it breaks
# are run with it: at least one of their checks must fail, and the
# failing checks are listed as "# " comments.
set -uo pipefail
set -f	# the check runner's ids are globs, for it to match, not the shell
cd "$(dirname "$0")/.."
BUILD=${SCHEDSCAN_BUILD:-$PWD/build}
export SCHEDSCAN_BIN=$BUILD/test

N=0
FAILED=0
tap_ok()    { N=$((N + 1)); echo "ok $N - $*"; }
tap_notok() { N=$((N + 1)); FAILED=$((FAILED + 1)); echo "not ok $N - $*"; }

# mutation -> the live tests that must catch it (what they check):
#   drop               perf's sched_waking and sched_migrate_task counts,
#                      rusage faults (test_counts), per-process rows (test_tables),
#                      idlebal's migration causes against wakeloop's own count
#                      (the check runner's idlebal.*.causes.*), a SCHED_IDLE
#                      spinner's migrations (test_idlebal), numascan's skip
#                      reasons against bpftrace (test_numascan)
#   shift-hist         idle_episode_ns against bpftrace's episodes (test_tables)
#   count-as           missed_idle against the stays the workload saw (test_sisscan)
#   freeze-filters     the delayed filter's known answer (test_sisscan)
#   stretch-durations  idle_ns against bpftrace and /proc/stat (test_tables)
MUTATIONS=(
	"drop test_counts test_tables test_idlebal test_numascan check:idlebal.*.causes.*"
	"shift-hist test_tables"
	"count-as:missed_idle:placed_unoccupied test_sisscan"
	"freeze-filters test_sisscan"
	"stretch-durations test_tables"
)

for t in sisscan idlebal numascan; do
	if [ ! -x "$SCHEDSCAN_BIN/$t" ]; then
		tap_notok "selftest-mutations: the test build $SCHEDSCAN_BIN/$t is missing (make check builds it)"
		echo "1..$N"
		exit 1
	fi
done

logs=$(mktemp -d /tmp/schedscan-mutations.XXXXXX)
trap 'rm -rf "$logs"' EXIT

# run_live NAME LOG: one live test, or with NAME check:IDS the check
# runner's checks IDS in this host's tier, the failing check names on
# stdout.
run_live() {
	case $1 in
	check:*)
		timeout -k 10 900 "$BUILD/tests/check/check" --tier tracepoint --id "${1#check:}" >"$2" 2>&1 ;;
	*)
		timeout -k 10 900 bash "tests/live/$1.sh" >"$2" 2>&1 ;;
	esac
	sed -n -E 's/^not ok [0-9]+ - (.*)$/\1/p' "$2"
}

for entry in "${MUTATIONS[@]}"; do
	read -r mutation tests <<<"$entry"
	caught=""
	count=0
	for t in $tests; do
		failed=$(SCHEDSCAN_MUTATION=$mutation run_live "$t" "$logs/$mutation-$t.log")
		[ -n "$failed" ] || continue
		while IFS= read -r line; do
			caught="$caught; $t: $line"
			count=$((count + 1))
			echo "#   $mutation caught by live/$t: $line"
		done <<<"$failed"
	done
	if [ "$count" -gt 0 ]; then
		tap_ok "mutation $mutation: $count checks fail in live/{${tests// /,}} (${caught#; })"
	else
		tap_notok "mutation $mutation: no check of live/{${tests// /,}} fails # a miscount the suite cannot see"
	fi
done
echo "1..$N"
[ "$FAILED" = 0 ]
