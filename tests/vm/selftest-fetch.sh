#!/usr/bin/env bash
# selftest-fetch.sh: fetch-kernels.sh fails with a sentence naming the series
# when Debian publishes no kernel of a series in SERIES_ALL (the next one
# added too early, or one dropped from the archive), and when VM_KERNELS
# names neither a series nor a kernel of the list. The first runs a copy of the script whose
# list holds a series no suite has, against an empty cache (its private apt
# lists are copied from the kernel cache when vmcheck left them, else
# fetched: about 20 MB).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
build=${SCHEDSCAN_BUILD:-$repo/build}
kcache=${VM_KERNEL_CACHE:-$build/vm/kernels}

N=0; FAILED=0
tap_ok()    { N=$((N + 1)); echo "ok $N - $*"; }
tap_notok() { N=$((N + 1)); FAILED=$((FAILED + 1)); echo "not ok $N - $*"; }

tmp=$(mktemp -d /tmp/schedscan-fetch.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# A series no Debian suite publishes: 5.99.
sed 's/^SERIES_ALL=.*/SERIES_ALL="5.99"/' "$here/fetch-kernels.sh" > "$tmp/fetch-kernels.sh"
mkdir -p "$tmp/cache"
[ -d "$kcache/apt/lists" ] && cp -a "$kcache/apt" "$tmp/cache/apt"
set +e
bash "$tmp/fetch-kernels.sh" "$tmp/cache" > "$tmp/out" 2> "$tmp/err"
rc=$?
set -e
sed 's/^/# /' "$tmp/err" | grep -v '^# Get:\|^# Fetched' || true
if [ $rc -ne 0 ] && grep -q "Debian publishes no 5.99 kernel" "$tmp/err" && [ ! -s "$tmp/cache/selected" ]; then
    tap_ok "fetch-kernels: a series Debian does not publish fails with a sentence naming it (exit $rc)"
else
    tap_notok "fetch-kernels: a series Debian does not publish fails with a sentence naming it # exit $rc: $(tail -n 2 "$tmp/err" | tr '\n' ' ')"
fi

set +e
VM_KERNELS=vmlinuz bash "$here/fetch-kernels.sh" "$tmp/cache" > "$tmp/out" 2> "$tmp/err"
rc=$?
set -e
if [ $rc -ne 0 ] && grep -q "VM_KERNELS names 'vmlinuz', which is neither a series" "$tmp/err"; then
    tap_ok "fetch-kernels: VM_KERNELS=vmlinuz, neither a series nor a kernel, fails with a sentence (exit $rc)"
else
    tap_notok "fetch-kernels: VM_KERNELS=vmlinuz, neither a series nor a kernel, fails with a sentence # exit $rc: $(tail -n 2 "$tmp/err" | tr '\n' ' ')"
fi
echo "1..$N"
[ "$FAILED" = 0 ]
