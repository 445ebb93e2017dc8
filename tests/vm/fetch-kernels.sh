#!/usr/bin/env bash
# fetch-kernels.sh OUTDIR
#
# Picks the newest Debian bookworm kernels of each series we test on
#   6.1  : linux-image-6.1.0-<N>-amd64-unsigned
#   6.12 : linux-image-6.12.<N>+deb12-amd64-unsigned
# (never -cloud-, never -rt-), downloads them with `apt-get download`, unpacks
# only ./boot with dpkg-deb and caches
#   OUTDIR/<kver>/vmlinuz   OUTDIR/<kver>/config
# A kernel already in the cache is not downloaded again. If apt-cache cannot name
# a package (offline, no lists) the newest cached kernel of that series is used.
#
# Writes OUTDIR/selected ("<series> <kver>" per line) for vmcheck.sh and prints
# which kernels it uses.
#
# Environment:
#   VM_KERNELS   series (or kver prefixes) to fetch, e.g. "6.12"; default "6.1 6.12";
#                spaces or commas between them, like VM_TOOLS and VM_MODES
set -euo pipefail

usage() { echo "usage: $0 OUTDIR" >&2; exit 2; }
[ $# -eq 1 ] || usage
OUTDIR=$1
mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)

SERIES_ALL="6.1 6.12"
want_series() {  # want_series SERIES -> 0 if VM_KERNELS selects it
    local s=$1 w
    [ -n "${VM_KERNELS:-}" ] || return 0
    for w in ${VM_KERNELS//,/ }; do
        case "$w" in
            "$s") return 0 ;;
            "$s".*|"$s"-*|"$s"+*) return 0 ;;   # a full kver of this series
        esac
    done
    return 1
}

# Package name regex per series (apt-cache search --names-only takes a regex).
pkg_regex() {
    case "$1" in
        6.1)  echo '^linux-image-6\.1\.0-[0-9]+-amd64-unsigned$' ;;
        6.12) echo '^linux-image-6\.12\.[0-9]+\+deb12-amd64-unsigned$' ;;
        *) echo "fetch-kernels: unknown series $1" >&2; return 1 ;;
    esac
}
# kver glob of cached kernels per series
cache_glob() {
    case "$1" in
        6.1)  echo '6.1.0-*-amd64' ;;
        6.12) echo '6.12.*+deb12-amd64' ;;
    esac
}

# newest_pkg SERIES -> package name on stdout, or nothing
newest_pkg() {
    local re
    re=$(pkg_regex "$1")
    apt-cache search --names-only "$re" 2>/dev/null | awk '{print $1}' \
        | grep -E "$re" | grep -v -e -cloud- -e -rt- | sort -V | tail -n 1 || true
}

cached_ok() { [ -s "$OUTDIR/$1/vmlinuz" ] && [ -s "$OUTDIR/$1/config" ]; }

newest_cached() {  # newest_cached SERIES -> kver or nothing
    local g d best=""
    g=$(cache_glob "$1")
    for d in "$OUTDIR"/$g; do
        [ -d "$d" ] || continue
        cached_ok "$(basename "$d")" && best="$best $(basename "$d")"
    done
    [ -n "$best" ] && printf '%s\n' $best | sort -V | tail -n 1
    return 0
}

download() {  # download PKG KVER -> fills OUTDIR/KVER, 0 on success
    local pkg=$1 kver=$2 tmp deb
    tmp=$(mktemp -d /tmp/schedscan-kernel.XXXXXX)
    # let apt's sandbox user write the download dir (else a noisy warning)
    chmod 755 "$tmp"
    chown _apt "$tmp" 2>/dev/null || true
    if ! (cd "$tmp" && apt-get download -q "$pkg" >&2); then
        rm -rf "$tmp"; return 1
    fi
    deb=$(ls "$tmp"/*.deb)
    # Only ./boot is needed (the guests boot without modules): unpacking the
    # modules would cost ~400 MB and time for nothing.
    mkdir -p "$tmp/x"
    dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp/x" --wildcards './boot/*'
    rm -f "$deb"
    if [ ! -s "$tmp/x/boot/vmlinuz-$kver" ] || [ ! -s "$tmp/x/boot/config-$kver" ]; then
        echo "fetch-kernels: $pkg has no boot/vmlinuz-$kver or boot/config-$kver" >&2
        rm -rf "$tmp"; return 1
    fi
    mkdir -p "$OUTDIR/$kver.tmp"
    cp "$tmp/x/boot/vmlinuz-$kver" "$OUTDIR/$kver.tmp/vmlinuz"
    cp "$tmp/x/boot/config-$kver" "$OUTDIR/$kver.tmp/config"
    echo "$pkg" > "$OUTDIR/$kver.tmp/package"
    rm -rf "$tmp" "${OUTDIR:?}/${kver:?}"
    mv "$OUTDIR/$kver.tmp" "$OUTDIR/$kver"
}

# Make sure apt-cache knows the packages at all (fresh containers have no lists).
updated=0
ensure_lists() {  # ensure_lists WHY
    [ "$updated" = 0 ] || return 1
    updated=1
    echo "fetch-kernels: $1, running apt-get update" >&2
    timeout 300 apt-get update -q >&2 || echo "fetch-kernels: apt-get update failed (offline?)" >&2
}

selected=""
rc=0
# A word that selects no series would shrink the run to nothing, silently.
vm_kernels=${VM_KERNELS:-}
for w in ${vm_kernels//,/ }; do
    hit=0
    for s in $SERIES_ALL; do
        VM_KERNELS=$w want_series "$s" && hit=1
    done
    if [ "$hit" = 0 ]; then
        echo "fetch-kernels: ERROR: VM_KERNELS names '$w', which is no kernel series of $SERIES_ALL" >&2
        rc=1
    fi
done
for s in $SERIES_ALL; do
    want_series "$s" || continue
    pkg=$(newest_pkg "$s")
    if [ -z "$pkg" ]; then
        ensure_lists "apt-cache names no $s kernel package" || true
        pkg=$(newest_pkg "$s")
    fi
    kver=""
    how=""
    if [ -n "$pkg" ]; then
        k=${pkg#linux-image-}
        k=${k%-unsigned}
        if cached_ok "$k"; then
            kver=$k; how="cached, $pkg"
        elif download "$pkg" "$k"; then
            kver=$k; how="downloaded $pkg"
        elif ensure_lists "could not download $pkg (stale package lists?)"; then
            # the lists may name a build the mirror no longer has: retry once
            pkg=$(newest_pkg "$s")
            k=${pkg#linux-image-}; k=${k%-unsigned}
            if [ -n "$pkg" ] && { cached_ok "$k" || download "$pkg" "$k"; }; then
                kver=$k; how="$pkg after apt-get update"
            fi
        else
            echo "fetch-kernels: could not download $pkg" >&2
        fi
    else
        echo "fetch-kernels: apt-cache names no $s kernel package" >&2
    fi
    if [ -z "$kver" ]; then
        kver=$(newest_cached "$s")
        [ -n "$kver" ] && how="cached fallback (apt unavailable)"
    fi
    if [ -z "$kver" ]; then
        echo "fetch-kernels: ERROR: no $s kernel available (not in apt, not in $OUTDIR)" >&2
        rc=1
        continue
    fi
    echo "fetch-kernels: $s: using $kver ($how) -> $OUTDIR/$kver"
    selected="$selected$s $kver
"
done

printf '%s' "$selected" > "$OUTDIR/selected"
exit $rc
