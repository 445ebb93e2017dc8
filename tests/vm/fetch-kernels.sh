#!/usr/bin/env bash
# fetch-kernels.sh OUTDIR
#
# Picks, for each kernel series the test bed boots (SERIES_ALL, the one list),
# the newest Debian amd64 kernel package of that series, downloads it with
# `apt-get download`, unpacks only its kernel image and config and caches
#   OUTDIR/<kver>/vmlinuz   OUTDIR/<kver>/config   OUTDIR/<kver>/package
# The same way for every series: apt looks in this machine's own suites and in
# EXTRA_SUITES (Debian's newer series live there), through a private apt state
# in OUTDIR/apt whose sources are this machine's, plus those suites on the same
# mirror (its URI is read from this machine's apt configuration at run time).
# The machine's own apt state is neither read for these lists nor changed.
#
# Packages: linux-image-<kver>-unsigned (bookworm), linux-image-<kver> (trixie
# and its backports), or linux-binary-unsigned-<kver> with its config in
# linux-base-<kver> (7.x); never -cloud- or -rt-. The kernel is found in the
# package (boot/vmlinuz-<kver> or usr/lib/modules/<kver>/vmlinuz*), so a new
# packaging needs no new code here.
#
# A kernel already in the cache is not downloaded again. If apt cannot be
# reached (offline) the newest cached kernel of the series is used, with a
# note. A series apt can be asked about but names no package of, and that is
# not cached either, is an error naming the series.
#
# Writes OUTDIR/selected, or FETCH_SELECTED ("<series> <kver>" per line), for
# vmcheck.sh, and prints which kernels it uses.
#
# Environment:
#   VM_KERNELS   series (or kver prefixes) to fetch, e.g. "6.12"; default all of
#                SERIES_ALL; spaces or commas between them, like VM_TOOLS
set -euo pipefail

# The kernel series make check boots. Adding the next is one word here.
# VM_KERNELS may name any other series Debian publishes (VM_KERNELS=7.2
# make vmcheck).
SERIES_ALL="6.1 6.12 6.18 7.3"
# Debian suites, besides this machine's own, that publish newer series.
EXTRA_SUITES="trixie-backports sid"

usage() { echo "usage: $0 OUTDIR" >&2; exit 2; }
[ $# -eq 1 ] || usage
OUTDIR=$1
mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)

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

# is_series_kver SERIES KVER: KVER is a generic amd64 kernel of SERIES
# (6.1.0-41-amd64, 6.12.118+deb12-amd64, 7.3.4+deb13-amd64; not 6.12 for
# series 6.1, not -cloud-amd64 or -rt-amd64)
kver_regex() { echo "^${1//./\\.}(\\.[0-9]+)*(-[0-9]+)?(\\+deb[0-9]+)?-amd64\$"; }
is_series_kver() { grep -Eq "$(kver_regex "$1")" <<<"$2"; }

# ------------------------------------------------------ private apt state
APTDIR=$OUTDIR/apt
mirror_uri() {  # the URI of this machine's main Debian archive
    local codename f
    codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] || continue
        # deb822 stanzas: the first whose Suites hold the release itself
        awk -v c="$codename" '
            /^[[:space:]]*$/ { if (u != "" && s) { print u; exit } u = ""; s = 0; next }
            tolower($1) == "uris:" { u = $2 }
            tolower($1) == "suites:" { for (i = 2; i <= NF; i++) if ($i == c) s = 1 }
            END { if (u != "" && s) print u }' "$f"
    done | head -n 1 | grep . && return 0
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -f "$f" ] || continue
        sed -E 's/\[[^]]*\]//' "$f" | awk -v c="$codename" '$1 == "deb" && $3 == c { print $2; exit }'
    done | head -n 1 | grep .
}

APT_OPTS=()
setup_apt() {
    local uri s
    mkdir -p "$APTDIR/etc/parts" "$APTDIR/lists/partial" "$APTDIR/cache/archives/partial"
    uri=$(mirror_uri) || { echo "fetch-kernels: found no Debian archive for this release in /etc/apt" >&2; return 1; }
    rm -f "$APTDIR/etc/parts/"*
    for f in /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list; do
        [ -f "$f" ] && cp "$f" "$APTDIR/etc/parts/"
    done
    { [ -f /etc/apt/sources.list ] && cat /etc/apt/sources.list
      for s in $EXTRA_SUITES; do
          echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $uri $s main"
      done; } > "$APTDIR/etc/sources.list"
    APT_OPTS=(-o "Dir::Etc::sourcelist=$APTDIR/etc/sources.list"
              -o "Dir::Etc::sourceparts=$APTDIR/etc/parts"
              -o "Dir::State::Lists=$APTDIR/lists"
              -o "Dir::Cache=$APTDIR/cache")
}

lists_fresh() {  # package lists younger than a day
    [ -n "$(find "$APTDIR/lists" -maxdepth 1 -name '*Packages*' -mmin -1440 2>/dev/null | head -n 1)" ]
}
APT_OK=0
update_lists() {
    echo "fetch-kernels: apt-get update of the private lists ($APTDIR; suites: this machine's and $EXTRA_SUITES)" >&2
    if timeout 600 apt-get "${APT_OPTS[@]}" update -q >"$APTDIR/update.log" 2>&1 && lists_fresh; then
        APT_OK=1
    else
        sed 's/^/fetch-kernels:   /' "$APTDIR/update.log" | tail -n 5 >&2
        echo "fetch-kernels: apt-get update failed (offline?)" >&2
        APT_OK=0
    fi
}

# newest_kver SERIES -> the newest kver apt names for SERIES, or nothing
newest_kver() {
    local re=${1//./\\.}
    apt-cache "${APT_OPTS[@]}" search --names-only "^linux-(image|binary-unsigned)-$re[.-]" 2>/dev/null \
        | awk '{print $1}' | sed -E 's/^linux-(image|binary-unsigned)-//; s/-unsigned$//' \
        | { grep -E "$(kver_regex "$1")" || true; } | sort -Vu | tail -n 1
}

# image_pkg KVER -> the package holding KVER's kernel image (not a
# metapackage: linux-image-7.3.4+deb13-amd64 only depends on the binary)
image_pkg() {
    local p size
    for p in "linux-image-$1-unsigned" "linux-binary-unsigned-$1" "linux-image-$1"; do
        size=$(apt-cache "${APT_OPTS[@]}" show "$p" 2>/dev/null | awk '$1 == "Installed-Size:" { print $2; exit }')
        [ -n "$size" ] && [ "$size" -gt 4096 ] && { echo "$p"; return 0; }
    done
    return 1
}

cached_ok() { [ -s "$OUTDIR/$1/vmlinuz" ] && [ -s "$OUTDIR/$1/config" ]; }

newest_cached() {  # newest_cached SERIES -> kver or nothing
    local d k best=""
    for d in "$OUTDIR"/*/; do
        k=$(basename "$d")
        is_series_kver "$1" "$k" && cached_ok "$k" && best="$best $k"
    done
    [ -n "$best" ] && printf '%s\n' $best | sort -V | tail -n 1
    return 0
}

# fetch_member TMP PKG KVER NAME... -> unpacks the first member of PKG's deb
# named like one of NAME into TMP/x and prints its path
fetch_member() {
    local tmp=$1 pkg=$2 deb m n
    shift 2
    if [ ! -e "$tmp/$pkg.ok" ]; then
        (cd "$tmp" && apt-get "${APT_OPTS[@]}" download -q "$pkg" >&2) || return 1
        touch "$tmp/$pkg.ok"
    fi
    deb=$(ls "$tmp"/"${pkg}"_*.deb)
    dpkg-deb --fsys-tarfile "$deb" | tar -t > "$tmp/$pkg.list"
    for n in "$@"; do
        m=$(grep -m1 -Fx "$n" "$tmp/$pkg.list" || true)
        [ -n "$m" ] || continue
        # only that file: the modules would cost hundreds of MB for nothing
        # (the guests boot without modules)
        dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp/x" "$m"
        echo "$tmp/x/$m"
        return 0
    done
    return 1
}

download() {  # download PKG KVER -> fills OUTDIR/KVER, 0 on success
    local pkg=$1 kver=$2 tmp img cfg
    tmp=$(mktemp -d /tmp/schedscan-kernel.XXXXXX)
    # let apt's sandbox user write the download dir (else a noisy warning)
    chmod 755 "$tmp"
    chown _apt "$tmp" 2>/dev/null || true
    mkdir -p "$tmp/x"
    img=$(fetch_member "$tmp" "$pkg" "./boot/vmlinuz-$kver" "./usr/lib/modules/$kver/vmlinuz" \
                        "./usr/lib/modules/$kver/vmlinuz.unsigned") || {
        echo "fetch-kernels: $pkg holds no kernel image of $kver" >&2; rm -rf "$tmp"; return 1; }
    cfg=$(fetch_member "$tmp" "$pkg" "./boot/config-$kver" "./usr/lib/modules/$kver/config") ||
        cfg=$(fetch_member "$tmp" "linux-base-$kver" "./usr/lib/modules/$kver/config" "./boot/config-$kver") || {
        echo "fetch-kernels: neither $pkg nor linux-base-$kver holds the config of $kver" >&2; rm -rf "$tmp"; return 1; }
    mkdir -p "$OUTDIR/$kver.tmp"
    cp "$img" "$OUTDIR/$kver.tmp/vmlinuz"
    cp "$cfg" "$OUTDIR/$kver.tmp/config"
    echo "$pkg" > "$OUTDIR/$kver.tmp/package"
    rm -rf "$tmp" "${OUTDIR:?}/${kver:?}"
    mv "$OUTDIR/$kver.tmp" "$OUTDIR/$kver"
}

selected=""
rc=0
# VM_KERNELS: the series of SERIES_ALL it selects, and any other series it
# names (a word like 7.3; a full kver selects its series).
vm_kernels=${VM_KERNELS:-}
series_list=$SERIES_ALL
for w in ${vm_kernels//,/ }; do
    hit=0
    for s in $SERIES_ALL; do
        VM_KERNELS=$w want_series "$s" && hit=1
    done
    if [ "$hit" = 0 ]; then
        if grep -Eq '^[0-9]+\.[0-9]+$' <<<"$w"; then
            series_list="$series_list $w"
        else
            echo "fetch-kernels: ERROR: VM_KERNELS names '$w', which is neither a series (like 6.18) nor a kernel of $SERIES_ALL" >&2
            rc=1
        fi
    fi
done

if setup_apt; then
    if lists_fresh; then APT_OK=1; else update_lists; fi
fi
for s in $series_list; do
    want_series "$s" || continue
    kver=""; how=""
    if [ ${#APT_OPTS[@]} -gt 0 ]; then
        k=$(newest_kver "$s")
        if [ -z "$k" ] && [ "$APT_OK" = 1 ] && [ -z "${updated:-}" ]; then
            updated=1; update_lists; k=$(newest_kver "$s")
        fi
        if [ -n "$k" ]; then
            if cached_ok "$k"; then
                kver=$k; how="cached, $(cat "$OUTDIR/$k/package" 2>/dev/null || echo "package unknown")"
            elif pkg=$(image_pkg "$k") && download "$pkg" "$k"; then
                kver=$k; how="downloaded $pkg"
            elif [ -z "${updated:-}" ]; then
                # the lists may name a build the mirror no longer has: once more
                updated=1; update_lists
                k=$(newest_kver "$s")
                if [ -n "$k" ] && { cached_ok "$k" || { pkg=$(image_pkg "$k") && download "$pkg" "$k"; }; }; then
                    kver=$k; how="$k after apt-get update"
                fi
            fi
            [ -n "$kver" ] || echo "fetch-kernels: could not download the $s kernel $k" >&2
        elif [ "$APT_OK" = 1 ]; then
            echo "fetch-kernels: ERROR: Debian publishes no $s kernel (no package of series $s in this machine's suites or in $EXTRA_SUITES); take it out of SERIES_ALL or VM_KERNELS, or add the suite that has it to EXTRA_SUITES in tests/vm/fetch-kernels.sh" >&2
            rc=1
            continue
        fi
    fi
    if [ -z "$kver" ]; then
        kver=$(newest_cached "$s")
        [ -n "$kver" ] && how="cached fallback (apt unavailable)"
    fi
    if [ -z "$kver" ]; then
        echo "fetch-kernels: ERROR: no $s kernel available (apt could not be reached, none in $OUTDIR)" >&2
        rc=1
        continue
    fi
    echo "fetch-kernels: $s: using $kver ($how) -> $OUTDIR/$kver"
    selected="$selected$s $kver
"
done

printf '%s' "$selected" > "${FETCH_SELECTED:-$OUTDIR/selected}"
exit $rc
