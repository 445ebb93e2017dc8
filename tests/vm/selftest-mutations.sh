#!/usr/bin/env bash
# selftest-mutations.sh: proves that the guest tests fail when a tool
# miscounts. One guest boot (6.12 unless VM_KERNELS says otherwise) with
# the test builds of the tools (build/static-test, -DSCHEDSCAN_TEST_BUILD)
# runs the ground-truth and known-answer checks of the fentry and
# tracepoint tiers once per mutation (guest-tests.sh, SCHEDSCAN_MUTATIONS);
# each mutation must make at least one of them fail, and the failing
# checks are listed. The same checks pass unmutated in vmcheck's own run.
#
# make check's vmcheck boots this guest beside its others (VM_MUTANTS:
# it shares their two slots rather than running alone after them) and
# keeps its console log; tests/run-suites.sh then hands that log over
# (VM_MUTATIONS_LOG) and nothing boots here. Run alone, this script boots
# the guest through vmcheck itself, whose output is re-printed as "# "
# comments so that its "not ok" lines are not counted as results of this
# suite.
#
# Usage: selftest-mutations.sh          the selftest
#        selftest-mutations.sh --list   the mutations, a comma list (vmcheck's job)
# Environment: VM_STATIC (the release static dir, default build/static),
# VM_KERNELS, VM_TIMEOUT, VM_MUTATIONS_LOG.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
build=${SCHEDSCAN_BUILD:-$repo/build}
good=${VM_STATIC:-$build/static}
mutants=$build/static-test
MUTATIONS="drop shift-hist count-as:sis_domain_hit:sis_domain_failed freeze-filters stretch-durations"
if [ "${1:-}" = --list ]; then
    echo $MUTATIONS | tr ' ' ','
    exit 0
fi

N=0; FAILED=0
tap_ok()    { N=$((N + 1)); echo "ok $N - $*"; }
tap_notok() { N=$((N + 1)); FAILED=$((FAILED + 1)); echo "not ok $N - $*"; }

if [ -n "${VM_MUTATIONS_LOG:-}" ]; then
    # vmcheck's boot: the guest's own TAP lines, between its markers
    results=$(tr -d '\r' < "$VM_MUTATIONS_LOG" 2>/dev/null | sed -n '/^=== SCHEDSCAN GUEST BEGIN/,/^=== SCHEDSCAN GUEST END/p') || true
    if grep -q '^=== SCHEDSCAN GUEST END' <<<"$results"; then
        tap_ok "selftest-mutations: the guest booted and finished (vmcheck's boot, $VM_MUTATIONS_LOG)"
    else
        tap_notok "selftest-mutations: the guest booted and finished # no complete guest run in '$VM_MUTATIONS_LOG'"
        tail -n 20 "$VM_MUTATIONS_LOG" 2>/dev/null | sed 's/^/# /'
    fi
else
    for d in "$good" "$mutants"; do
        if [ ! -d "$d" ]; then
            tap_notok "selftest-mutations: needs $d (make check builds it)"
            echo "1..$N"; exit 1
        fi
    done
    tmp=$(mktemp -d /tmp/schedscan-mutants.XXXXXX)
    trap 'rm -rf "$tmp"' EXIT
    set +e
    VM_KERNEL_CACHE="${VM_KERNEL_CACHE:-$build/vm/kernels}" \
        VM_STATIC="$good" VM_MUTANTS="$mutants" VM_MUTANTS_ONLY=1 VM_OUT="$tmp/vm" \
        VM_KERNELS="${VM_KERNELS:-6.12}" "$here/vmcheck.sh" > "$tmp/vmcheck.out" 2>&1
    rc=$?
    set -e
    sed 's/^/# vmcheck| /' "$tmp/vmcheck.out"
    results=$(tr -d '\r' < "$tmp"/vm/out/*-mutations/console.log 2>/dev/null) || true
    if grep -q '^=== SCHEDSCAN GUEST END' <<<"$results"; then
        tap_ok "selftest-mutations: the guest booted and finished (vmcheck exit $rc)"
    else
        tap_notok "selftest-mutations: the guest booted and finished # vmcheck exit $rc"
    fi
fi
# every mutated check's result, for the record ("# " lines: not this suite's)
grep -E '^(ok|not ok) [0-9]+ - mutation ' <<<"$results" | sed 's/^/# guest| /' || true
for m in $MUTATIONS; do
    ran=$(grep -c -E "^(ok|not ok) [0-9]+ - mutation $m: " <<<"$results" || true)
    caught=$(sed -n -E "s/^not ok [0-9]+ - mutation $m: (.*)\$/\\1/p" <<<"$results" |
             sed -E 's/ \[(ground truth|known answer|consistency|environment|behaviour)\].*//' | paste -sd ';' -)
    if [ "$ran" -gt 0 ] && [ -n "$caught" ]; then
        tap_ok "mutation $m: $(echo "$caught" | tr ';' '\n' | wc -l) of $ran guest checks fail ($caught)"
    else
        tap_notok "mutation $m: no guest check fails # $ran checks ran"
    fi
done
echo "1..$N"
[ "$FAILED" = 0 ]
