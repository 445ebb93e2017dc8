#!/usr/bin/env bash
# mkinitramfs.sh -s STATIC_DIR -o OUT.cpio.gz [-t GUEST_TESTS] [-i INIT] [-k KERNELS] [-B]
#
# Builds the gzip'd newc cpio initramfs the schedscan guests boot:
#   /bin/busybox + applet symlinks          (busybox-static)
#   /init                                   (tests/vm/init.sh)
#   /schedscan/guest-tests.sh               (tests/vm/guest-tests.sh)
#   /schedscan/{sisscan,idlebal,numascan}   (STATIC_DIR/*, every executable file)
#   /schedscan/workloads/*                  (STATIC_DIR/workloads/*)
#   /usr/sbin/bpftool + its shared libs     (host bpftool, unless -B; optional)
#   /boot/config-<kver>                     (KERNELS/<kver>/config: what the
#                                            tools read CONFIG_* from, as on a host)
# No fakeroot: staged in a temp dir and packed with `cpio -o -H newc -R 0:0`.
# Binaries that are not static get their shared libraries copied too (with a
# warning), so a non-STATIC build still runs in the guest.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
static=""; out=""; tests="$here/guest-tests.sh"; init="$here/init.sh"; with_bpftool=1; kernels=

usage() { sed -n '2,3p' "$0" | sed 's/^# //' >&2; exit 2; }
while getopts "s:o:t:i:k:Bh" opt; do
    case $opt in
        s) static=$OPTARG ;;
        o) out=$OPTARG ;;
        t) tests=$OPTARG ;;
        i) init=$OPTARG ;;
        k) kernels=$OPTARG ;;
        B) with_bpftool=0 ;;
        *) usage ;;
    esac
done
[ -n "$static" ] && [ -n "$out" ] || usage
[ -d "$static" ] || { echo "mkinitramfs: static dir $static does not exist (run make STATIC=1?)" >&2; exit 1; }
for f in "$tests" "$init"; do
    [ -f "$f" ] || { echo "mkinitramfs: $f missing" >&2; exit 1; }
done

# grep without -q reads all of readelf's output: no SIGPIPE for pipefail.
is_dynamic() { readelf -l "$1" 2>/dev/null | grep 'Requesting program interpreter' >/dev/null; }

busybox=""
for b in /bin/busybox /usr/bin/busybox; do
    if [ -x "$b" ] && ! is_dynamic "$b"; then
        busybox=$b; break
    fi
done
[ -n "$busybox" ] || { echo "mkinitramfs: no static busybox (apt-get install busybox-static)" >&2; exit 1; }

stage=$(mktemp -d /tmp/schedscan-initramfs.XXXXXX)
trap 'rm -rf "$stage"' EXIT

mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,run,root,etc,lib,lib64,schedscan/workloads}
cp "$busybox" "$stage/bin/busybox"
# applet symlinks: busybox --list-full prints e.g. "usr/bin/awk"
"$busybox" --list-full | while read -r app; do
    [ "$app" = bin/busybox ] && continue
    mkdir -p "$stage/$(dirname "$app")"
    ln -sf /bin/busybox "$stage/$app"
done
[ -e "$stage/bin/sh" ] || ln -s busybox "$stage/bin/sh"
# the kernel opens /dev/console before /init mounts devtmpfs
mknod -m 600 "$stage/dev/console" c 5 1 2>/dev/null || true
mknod -m 666 "$stage/dev/null" c 1 3 2>/dev/null || true
echo "root:x:0:0:root:/root:/bin/sh" > "$stage/etc/passwd"
echo "root:x:0:" > "$stage/etc/group"

# copy_libs BINARY: copy the shared libraries (and the loader) it needs
copy_libs() {
    local lib
    for lib in $(ldd "$1" 2>/dev/null | grep -o '/[^ ]*' | sort -u); do
        [ -e "$lib" ] || continue
        mkdir -p "$stage$(dirname "$lib")"
        cp -L "$lib" "$stage$lib"
    done
}

# add_exec SRC DESTDIR: one executable (static or not) into the image
add_exec() {
    local src=$1 dst=$2
    cp -L "$src" "$dst/"
    chmod 755 "$dst/$(basename "$src")"
    if is_dynamic "$src"; then
        echo "mkinitramfs: warning: $src is dynamically linked; copying its libraries" >&2
        copy_libs "$src"
    fi
}

n=0
for f in "$static"/*; do
    [ -f "$f" ] && [ -x "$f" ] || continue
    add_exec "$f" "$stage/schedscan"; n=$((n + 1))
done
if [ -d "$static/workloads" ]; then
    for f in "$static"/workloads/*; do
        [ -f "$f" ] && [ -x "$f" ] || continue
        add_exec "$f" "$stage/schedscan/workloads"; n=$((n + 1))
    done
fi
[ "$n" -gt 0 ] || echo "mkinitramfs: warning: no executables in $static" >&2

if [ "$with_bpftool" = 1 ]; then
    bt=$(command -v bpftool || true)
    [ -z "$bt" ] && [ -x /usr/sbin/bpftool ] && bt=/usr/sbin/bpftool
    if [ -n "$bt" ] && [ -f "$bt" ]; then
        cp -L "$bt" "$stage/usr/sbin/bpftool"
        is_dynamic "$bt" && copy_libs "$bt"
    else
        echo "mkinitramfs: note: no bpftool on the host; the guest will check for leftover BPF programs via /proc/kallsyms only" >&2
    fi
fi

# hackbench (rt-tests) for the SMT guest's undecoded-rate check
hb=$(command -v hackbench || true)
if [ -n "$hb" ]; then
    mkdir -p "$stage/usr/bin"
    cp -L "$hb" "$stage/usr/bin/hackbench"
    is_dynamic "$hb" && copy_libs "$hb"
else
    echo "mkinitramfs: note: no hackbench on the host (rt-tests); the SMT guest's hackbench check will fail" >&2
fi

if [ -n "$kernels" ]; then
    mkdir -p "$stage/boot"
    for c in "$kernels"/*/config; do
        [ -f "$c" ] && cp "$c" "$stage/boot/config-$(basename "$(dirname "$c")")"
    done
fi

cp "$init" "$stage/init"
cp "$tests" "$stage/schedscan/guest-tests.sh"
chmod 755 "$stage/init" "$stage/schedscan/guest-tests.sh"

mkdir -p "$(dirname "$out")"
out_abs=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")
(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) | gzip -1 > "$out_abs.tmp"
mv "$out_abs.tmp" "$out_abs"
echo "mkinitramfs: $out_abs ($(du -k "$out_abs" | cut -f1) KiB, $n schedscan executables from $static)"
