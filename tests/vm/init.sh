#!/bin/sh
# /init of the schedscan QEMU guests (busybox sh). Installed by mkinitramfs.sh.
#
# Mounts the pseudo file systems, switches on schedstats and NUMA balancing,
# runs /schedscan/guest-tests.sh and prints everything on the console between
#   === SCHEDSCAN GUEST BEGIN <kver> uptime=<seconds since boot>
#   === SCHEDSCAN GUEST END rc=<rc>
# then powers off (qemu runs with -no-reboot, so the VM exits).
#
# Kernel command line knobs (they reach us as environment variables):
#   SCHEDSCAN_TOOLS=sisscan,idlebal      SCHEDSCAN_MODES=fentry,kprobe
#   SCHEDSCAN_SHELL=1 (interactive shell, no tests)
#   SCHEDSCAN_PRINTK=3 (console loglevel: 3 = only oops/panic reach the console)
#   SCHEDSCAN_RUN=NAME (run /schedscan/NAME instead of the tests: a script of
#                       your own put in the static directory, for experiments)
export PATH=/schedscan:/schedscan/workloads:/bin:/sbin:/usr/bin:/usr/sbin
export HOME=/root

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing
mount -t bpf bpf /sys/fs/bpf

# no kernel chatter in the middle of our output: only EMERG/ALERT/CRIT (oops,
# panic) reach the console; guest-tests.sh scans dmesg for the rest at the end
echo "${SCHEDSCAN_PRINTK:-3}" > /proc/sys/kernel/printk
echo 1 > /proc/sys/kernel/sched_schedstats
echo 1 > /proc/sys/kernel/numa_balancing
# lets the guest tests read run_time_ns/run_cnt if they want to
echo 1 > /proc/sys/kernel/bpf_stats_enabled 2>/dev/null
hostname schedscan-guest

exec </dev/console >/dev/console 2>&1

if [ "${SCHEDSCAN_SHELL:-0}" = 1 ]; then
    echo "schedscan guest $(uname -r): interactive shell, 'poweroff -f' to leave"
    setsid cttyhack sh -l
    poweroff -f
fi

echo "=== SCHEDSCAN GUEST BEGIN $(uname -r) uptime=$(cut -d' ' -f1 /proc/uptime)"
sh "/schedscan/${SCHEDSCAN_RUN:-guest-tests.sh}"
rc=$?
echo "=== SCHEDSCAN GUEST END rc=$rc"
sync
poweroff -f
# not reached; if poweroff fails the kernel panics when init exits (panic=-1)
sleep 5
