#!/usr/bin/env bash
# build-patched-kernel.sh CACHE_DIR
#
# Builds the guest kernel that carries the SIS filters of seed 000 (issue
# 13): Debian's own linux-source-6.1, the ports in tests/vm/patches/*.patch,
# x86_64_defconfig + kvm_guest.config + tests/vm/patches/guest.config, and
# caches
#   CACHE_DIR/<version>-sisfilter/{vmlinuz,config,key}
# in the layout run-guest.sh boots. The key is a hash of the source version,
# the patches, the config fragment and this script: a kernel whose key
# matches is not built again, so only the first run on a machine pays for
# the build. Prints the kernel's directory name as its last line.
#
# Why 6.1: the draft was written against tip of July 2022 (5.19), and 6.1's
# select_idle_cpu(), scheduler_tick() and sched_domain_shared are still the
# text it changes; 6.12 moved the scheduler tick and the EEVDF rework
# changed the wakeup path around it.
#
# Environment:
#   VM_KEEP_KERNEL_BUILD=1  keep the source and object tree (CACHE_DIR/work)
#   VM_KERNEL_JOBS          make -j (default: nproc)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
[ $# -eq 1 ] || { echo "usage: $0 CACHE_DIR" >&2; exit 2; }
cache=$1
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
series=6.1
pkg=linux-source-$series
patches=("$here"/patches/*.patch)
fragment=$here/patches/guest.config
say() { echo "build-patched-kernel: $*"; }
fail() { echo "build-patched-kernel: $*" >&2; exit 1; }

version=$(apt-cache policy "$pkg" 2>/dev/null | awk '/Candidate:/ { print $2 }')
if [ -z "$version" ] || [ "$version" = "(none)" ]; then
    fail "apt-cache knows no $pkg (apt-get update first): cannot build the patched kernel"
fi
upstream=${version%%-*}
label=$upstream-sisfilter
key=$( { echo "$pkg $version"; cat "${patches[@]}" "$fragment" "$0"; } | sha256sum | cut -d' ' -f1)
out=$cache/$label
if [ -s "$out/vmlinuz" ] && [ "$(cat "$out/key" 2>/dev/null)" = "$key" ]; then
    say "cached: $out (key ${key:0:12})"
    echo "$label"
    exit 0
fi

work=$cache/work
rm -rf "$work"
mkdir -p "$work"
t0=$(date +%s)
say "building $label from $pkg $version, ${#patches[@]} patch(es), key ${key:0:12}"
( cd "$work" && apt-get download "$pkg=$version" >/dev/null 2>&1 ) ||
    fail "apt-get download $pkg=$version failed"
dpkg-deb --fsys-tarfile "$work"/"${pkg}"_*.deb |
    tar -xO "./usr/src/$pkg.tar.xz" | tar -xJ -C "$work" ||
    fail "unpacking $pkg failed"
src=$work/$pkg
for p in "${patches[@]}"; do
    patch -s -p1 -d "$src" < "$p" || fail "$(basename "$p") does not apply to $pkg $version"
done

jobs=${VM_KERNEL_JOBS:-$(nproc)}
cd "$src"
make -s x86_64_defconfig >/dev/null
scripts/kconfig/merge_config.sh -m .config kernel/configs/kvm_guest.config "$fragment" >/dev/null
make -s olddefconfig >/dev/null
# What the fragment asks for must be what Kconfig kept: an option whose
# dependencies are missing is dropped silently otherwise.
lost=""
while IFS= read -r line; do
    case "$line" in
        CONFIG_*=*) grep -qx "$line" .config || lost="$lost ${line%%=*}" ;;
        "# CONFIG_"*" is not set")
            opt=${line#\# }; opt=${opt%% *}
            ! grep -q "^$opt=" .config || lost="$lost $opt(off)" ;;
    esac
done < "$fragment"
[ -z "$lost" ] || fail "the kernel config lost:$lost"
make -s -j"$jobs" LOCALVERSION=-sisfilter bzImage >"$work/make.log" 2>&1 ||
    { tail -n 30 "$work/make.log" >&2; fail "make bzImage failed (log: $work/make.log)"; }

rm -rf "$out.new"
mkdir -p "$out.new"
cp arch/x86/boot/bzImage "$out.new/vmlinuz"
cp .config "$out.new/config"
echo "$key" > "$out.new/key"
rm -rf "$out"
mv "$out.new" "$out"
cd /
[ "${VM_KEEP_KERNEL_BUILD:-0}" = 1 ] || rm -rf "$work"
say "built $label in $(( $(date +%s) - t0 ))s: $out"
echo "$label"
