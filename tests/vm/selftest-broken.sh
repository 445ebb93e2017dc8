#!/usr/bin/env bash
# selftest-broken.sh: proves that vmcheck.sh fails, readably, when a tool is broken.
#
# Builds a static dir where `sisscan` is replaced by a program that fails to load
# (prints an error, exits 1), runs the real vmcheck.sh on it with one kernel
# (6.12 unless VM_KERNELS says otherwise), one tool and one mode (one guest boot,
# ~30 s), and checks that vmcheck exits non-zero and names the failing test.
# vmcheck's own output is re-printed as "# " comments so that its "not ok"
# lines are not counted as results of this suite.
#
# Environment: VM_STATIC (the good static dir, default build/static), VM_KERNELS, VM_TIMEOUT.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
good=${VM_STATIC:-${SCHEDSCAN_BUILD:-$repo/build}/static}

N=0; FAILED=0
tap_ok()    { N=$((N + 1)); echo "ok $N - $*"; }
tap_notok() { N=$((N + 1)); FAILED=$((FAILED + 1)); echo "not ok $N - $*"; }

tmp=$(mktemp -d /tmp/schedscan-selftest.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

if [ ! -d "$good" ]; then
    tap_notok "selftest-broken: needs the static tools in $good (make STATIC=1)"
    exit 1
fi
mkdir -p "$tmp/static"
cp -a "$good/." "$tmp/static/"
rm -f "$tmp/static/sisscan"
cat > "$tmp/static/sisscan" <<'EOF'
#!/bin/sh
echo "sisscan: failed to load BPF object: Invalid argument (deliberately broken by selftest-broken.sh)" >&2
exit 1
EOF
chmod 755 "$tmp/static/sisscan"

set +e
VM_KERNEL_CACHE="${VM_KERNEL_CACHE:-${SCHEDSCAN_BUILD:-$repo/build}/vm/kernels}" \
    VM_STATIC="$tmp/static" VM_OUT="$tmp/vm" VM_KERNELS="${VM_KERNELS:-6.12}" \
    VM_TOOLS=sisscan VM_MODES=fentry \
    "$here/vmcheck.sh" > "$tmp/vmcheck.out" 2>&1
rc=$?
set -e
sed 's/^/# vmcheck| /' "$tmp/vmcheck.out"

if [ $rc -eq 0 ]; then
    tap_notok "selftest-broken: vmcheck fails when sisscan is broken # vmcheck exited 0"
elif ! grep -q -E '^not ok [0-9]+ - [^ ]+: sisscan --mode fentry( \[[a-z ]+\])? # exit status 1' "$tmp/vmcheck.out"; then
    tap_notok "selftest-broken: vmcheck fails when sisscan is broken # exit $rc, but no 'not ok ... sisscan --mode fentry # exit status 1' line"
elif ! grep -q '^#.*deliberately broken by selftest-broken.sh' "$tmp/vmcheck.out"; then
    tap_notok "selftest-broken: vmcheck fails when sisscan is broken # the tool's stderr is not shown"
elif ! grep -q '^ok [0-9]* - [^ ]*: guest booted and finished' "$tmp/vmcheck.out"; then
    tap_notok "selftest-broken: vmcheck fails when sisscan is broken # the guest itself did not finish"
else
    tap_ok "selftest-broken: vmcheck fails (exit $rc) and names 'sisscan --mode fentry' with its error"
fi
echo "1..$N"
[ "$FAILED" = 0 ]
