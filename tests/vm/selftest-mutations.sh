#!/usr/bin/env bash
# selftest-mutations.sh: proves that the guest tests fail when a tool
# miscounts. One guest boot (6.12 unless VM_KERNELS says otherwise) with
# the test builds of the tools (build/static-test, -DSCHEDSCAN_TEST_BUILD)
# runs the ground-truth and known-answer checks of the fentry and
# tracepoint tiers once per mutation (guest-tests.sh, SCHEDSCAN_MUTATIONS);
# each mutation must make at least one of them fail, and the failing
# checks are listed. The same checks pass unmutated in vmcheck's own run.
# vmcheck's output is re-printed as "# " comments so that its "not ok"
# lines are not counted as results of this suite.
#
# Environment: VM_STATIC (the release static dir, default build/static),
# VM_KERNELS, VM_TIMEOUT.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
build=${SCHEDSCAN_BUILD:-$repo/build}
good=${VM_STATIC:-$build/static}
mutants=$build/static-test
MUTATIONS="drop shift-hist count-as:sis_domain_hit:sis_domain_failed freeze-filters stretch-durations"

N=0; FAILED=0
tap_ok()    { N=$((N + 1)); echo "ok $N - $*"; }
tap_notok() { N=$((N + 1)); FAILED=$((FAILED + 1)); echo "not ok $N - $*"; }

for d in "$good" "$mutants"; do
    if [ ! -d "$d" ]; then
        tap_notok "selftest-mutations: needs $d (make check builds it)"
        echo "1..$N"; exit 1
    fi
done
tmp=$(mktemp -d /tmp/schedscan-mutants.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/static"
cp -a "$good/." "$tmp/static/"
cp "$mutants/sisscan" "$mutants/idlebal" "$mutants/numascan" "$tmp/static/"

set +e
VM_KERNEL_CACHE="${VM_KERNEL_CACHE:-$build/vm/kernels}" \
    VM_STATIC="$tmp/static" VM_OUT="$tmp/vm" VM_KERNELS="${VM_KERNELS:-6.12}" \
    VM_CMDLINE="SCHEDSCAN_MUTATIONS=$(echo $MUTATIONS | tr ' ' ',')" \
    "$here/vmcheck.sh" > "$tmp/vmcheck.out" 2>&1
rc=$?
set -e
sed 's/^/# vmcheck| /' "$tmp/vmcheck.out"

if ! grep -q '^ok [0-9]* - [^ ]*: guest booted and finished' "$tmp/vmcheck.out"; then
    tap_notok "selftest-mutations: the guest booted and finished # vmcheck exit $rc"
else
    tap_ok "selftest-mutations: the guest booted and finished (vmcheck exit $rc)"
fi
for m in $MUTATIONS; do
    ran=$(grep -c -E "^(ok|not ok) [0-9]+ - [^ ]*: mutation $m: " "$tmp/vmcheck.out" || true)
    caught=$(sed -n -E "s/^not ok [0-9]+ - [^ ]*: mutation $m: (.*)\$/\\1/p" "$tmp/vmcheck.out" |
             sed -E 's/ \[(ground truth|known answer|consistency|environment|behaviour)\].*//' | paste -sd ';' -)
    if [ "$ran" -gt 0 ] && [ -n "$caught" ]; then
        tap_ok "mutation $m: $(echo "$caught" | tr ';' '\n' | wc -l) of $ran guest checks fail ($caught)"
    else
        tap_notok "mutation $m: no guest check fails # $ran checks ran"
    fi
done
echo "1..$N"
[ "$FAILED" = 0 ]
