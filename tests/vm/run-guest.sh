#!/usr/bin/env bash
# run-guest.sh KERNEL_DIR INITRAMFS [KERNEL_CMDLINE_EXTRA...]
#
# Boots KERNEL_DIR/vmlinuz with INITRAMFS in QEMU (TCG; KVM does not boot guests
# on our hosts): 8 vCPUs in 2 sockets x 4 cores, 2 GiB split over 2 NUMA nodes,
# console on ttyS0 captured to a log file, -no-reboot, hard timeout.
#
# Exit status: 0 when the guest printed "=== SCHEDSCAN GUEST END" (whatever the
# test results; vmcheck.sh judges those), 1 on kernel panic, timeout/hang, qemu
# failure or missing END marker (with the last console lines on stderr).
#
# Environment:
#   VM_LOG       console log file (default build/vm/out/<kver>/console.log)
#   VM_TIMEOUT   seconds before the guest is killed (default 600)
#   VM_CONSOLE=1 also stream the console to stdout while it runs
#   VM_INTERACTIVE=1  no tests: a shell on the guest console in this terminal
#                (Ctrl-A x quits QEMU; no log, no timeout)
#   VM_ACCEL     default "tcg,thread=single" (multi-threaded TCG oopses the guests
#                during kprobe/fentry text patching, see README.md)
#   VM_CPU, VM_SMP, VM_MEM  override "max", "8,sockets=2,cores=4,threads=1", "2G"
#                (the NUMA layout below assumes the defaults)
#   VM_NUMA=0    one memory node, for VM_SMP layouts that do not split into
#                CPUs 0-3 and 4-7 (make bench's LLC sizes)
# Extra arguments are appended to the kernel command line, e.g.
#   SCHEDSCAN_TOOLS=sisscan SCHEDSCAN_MODES=fentry SCHEDSCAN_SHELL=1
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

[ $# -ge 2 ] || { sed -n '2,2p' "$0" | sed 's/^# /usage: /' >&2; exit 2; }
kdir=$1; initrd=$2; shift 2
kver=$(basename "$kdir")
[ -s "$kdir/vmlinuz" ] || { echo "run-guest: $kdir/vmlinuz missing (tests/vm/fetch-kernels.sh)" >&2; exit 1; }
[ -s "$initrd" ] || { echo "run-guest: initramfs $initrd missing (tests/vm/mkinitramfs.sh)" >&2; exit 1; }
command -v qemu-system-x86_64 >/dev/null || { echo "run-guest: qemu-system-x86_64 missing (apt-get install qemu-system-x86)" >&2; exit 1; }

log=${VM_LOG:-$repo/build/vm/out/$kver/console.log}
timeout_s=${VM_TIMEOUT:-600}
mkdir -p "$(dirname "$log")"
: > "$log"
qemu_err="$log.qemu-stderr"

cmdline="console=ttyS0,115200 panic=-1 oops=panic quiet loglevel=3 rdinit=/init $*"

# shellcheck disable=SC2054 # commas belong to qemu's option syntax
qemu=(qemu-system-x86_64
    -accel "${VM_ACCEL:-tcg,thread=single}" -cpu "${VM_CPU:-max}"
    -machine pc
    -m "${VM_MEM:-2G}"
    -smp "${VM_SMP:-8,sockets=2,cores=4,threads=1}"
    -nodefaults -no-user-config
    -display none -monitor none
    -serial "file:$log"
    -no-reboot
    -kernel "$kdir/vmlinuz"
    -initrd "$initrd"
    -append "$cmdline")

if [ "${VM_NUMA:-1}" != 0 ]; then
    qemu+=(-object memory-backend-ram,size=1G,id=m0
           -object memory-backend-ram,size=1G,id=m1
           -numa node,nodeid=0,cpus=0-3,memdev=m0
           -numa node,nodeid=1,cpus=4-7,memdev=m1)
fi

if [ "${VM_INTERACTIVE:-0}" = 1 ]; then
    for i in "${!qemu[@]}"; do
        [ "${qemu[$i]}" = "file:$log" ] && qemu[$i]=mon:stdio
        [ "${qemu[$i]}" = "$cmdline" ] && qemu[$i]="$cmdline SCHEDSCAN_SHELL=1"
    done
    exec "${qemu[@]}"
fi

tail_pid=""
if [ "${VM_CONSOLE:-0}" = 1 ]; then
    tail -n +1 -f "$log" &
    tail_pid=$!
fi

echo "run-guest: booting $kver (timeout ${timeout_s}s, log $log)"
start=$(date +%s)
set +e
timeout --kill-after=10 "$timeout_s" "${qemu[@]}" </dev/null 2>"$qemu_err"
qrc=$?
set -e
elapsed=$(( $(date +%s) - start ))
[ -n "$tail_pid" ] && { sleep 0.5; kill "$tail_pid" 2>/dev/null || true; wait "$tail_pid" 2>/dev/null || true; }

fail() {
    echo "run-guest: FAIL: $kver: $*" >&2
    echo "run-guest: ---- last 30 console lines ($log) ----" >&2
    tr -d '\r' < "$log" | tail -n 30 | sed 's/^/  | /' >&2
    if [ -s "$qemu_err" ]; then
        echo "run-guest: ---- qemu stderr ----" >&2
        grep -v 'TCG doesn.t support requested feature' "$qemu_err" | tail -n 10 | sed 's/^/  | /' >&2
    fi
    exit 1
}

clean=$(tr -d '\r' < "$log")
if grep -q 'Kernel panic' <<<"$clean"; then
    fail "kernel panic after ${elapsed}s: $(grep -m1 'Kernel panic' <<<"$clean")"
fi
if [ $qrc -eq 124 ] || [ $qrc -eq 137 ]; then
    fail "guest hung: killed after the ${timeout_s}s timeout (VM_TIMEOUT)"
fi
if ! grep -q '^=== SCHEDSCAN GUEST BEGIN' <<<"$clean"; then
    fail "qemu exited ($qrc) after ${elapsed}s before /init started (no BEGIN marker)"
fi
if ! grep -q '^=== SCHEDSCAN GUEST END' <<<"$clean"; then
    fail "qemu exited ($qrc) after ${elapsed}s without the END marker (guest died mid-test?)"
fi
if [ $qrc -ne 0 ]; then
    fail "qemu exit status $qrc after ${elapsed}s"
fi
boot=$(sed -n 's/^=== SCHEDSCAN GUEST BEGIN .* uptime=\([0-9.]*\).*/\1/p' <<<"$clean" | head -n 1)
echo "run-guest: $kver finished in ${elapsed}s (kernel boot to /init: ${boot:-?}s guest uptime)"
