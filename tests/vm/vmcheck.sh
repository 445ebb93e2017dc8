#!/usr/bin/env bash
# vmcheck.sh: run the schedscan guest tests on Debian's kernels, one of each
# series in tests/vm/fetch-kernels.sh's SERIES_ALL, or of VM_KERNELS.
# Called by `make vmcheck` after build/static/ is built (make STATIC=1).
#
#   1. tests/vm/fetch-kernels.sh   -> build/vm/kernels/<kver>/{vmlinuz,config}
#   2. tests/vm/mkinitramfs.sh     -> build/vm/initramfs.cpio.gz
#   3. tests/vm/run-guest.sh       per boot, VM_PARALLEL (2) at a time -> build/vm/out/<label>/console.log
#   4. re-prints each guest's TAP lines as "ok N - <kver>: <desc>" (renumbered),
#      saves /proc/schedstat + /proc/vmstat to build/vm/out/<kver>/, prints a
#      tool x kernel x tier matrix, exits non-zero on any failure.
# Only real test results start with "ok"/"not ok"; everything else is "# ..." or
# "vmcheck: ...". A guest that does not boot or finish yields a "not ok" line.
#
# Environment:
#   VM_KERNELS     subset of series / kvers, e.g. "6.12" or "6.1,7.3" (default: all series)
#   VM_PARALLEL    guests booted at once (default 2: TCG thread=single keeps one core busy each)
#   VM_TIMEOUT     seconds per guest before it counts as hung (default 1500)
#   VM_STATIC      directory with the static tools (default $SCHEDSCAN_BUILD/static,
#                  SCHEDSCAN_BUILD defaults to build)
#   VM_OUT         output directory (default $SCHEDSCAN_BUILD/vm)
#   VM_KERNEL_CACHE  kernel cache (default $SCHEDSCAN_BUILD/vm/kernels)
#   VM_TOOLS, VM_MODES   comma lists passed to the guest (default all tools, all modes)
#   VM_CMDLINE     extra kernel command line words (e.g. "loglevel=7")
#   VM_SMT=0       no SMT boots (default: one per kernel, -smp 8,sockets=2,cores=2,threads=2,
#                  -cpu $VM_SMT_CPU (default Skylake-Server), running only the SMT stage checks);
#                  VM_SMT=only: the SMT boots alone (with VM_CMDLINE, VM_KERNELS: a narrowed run)
#   VM_UPDATE_FIXTURES=1  copy the captured files to tests/fixtures/{schedstat,vmstat}/debian-<series>.txt
#   VM_SIS_FILTER=0  no boot of the SIS_FILTER kernel (tests/vm/build-patched-kernel.sh)
#   VM_PATCHED_ONLY=1  only the SIS_FILTER kernel's two boots (no stock or SMT boots)
#   VM_MUTANTS     a directory of the tools' test builds (build/static-test): the
#                  mutation selftest's boot, queued with the others on 6.12
#                  (tests/vm/selftest-mutations.sh judges its console log,
#                  $VM_OUT/out/<kver>-mutations/console.log; vmcheck does not)
#   VM_MUTANTS_ONLY=1  that boot alone (the selftest run by itself)
#   VM_PATCHED_KERNEL_CACHE  its cache (default /var/cache/schedscan/kernels)
#   VM_ACCEL, VM_CPU, VM_CONSOLE  passed to run-guest.sh
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
build=${SCHEDSCAN_BUILD:-$repo/build}   # set by tests/run-suites.sh
static=${VM_STATIC:-$build/static}
out=${VM_OUT:-$build/vm}
kcache=${VM_KERNEL_CACHE:-$build/vm/kernels}
export VM_TIMEOUT=${VM_TIMEOUT:-1500}
t_start=$(date +%s)

# Variables that run fewer checks than the full suite: say so, loudly, so
# a shrunken run is never mistaken for a full one.
for v in VM_KERNELS VM_TOOLS VM_MODES VM_PATCHED_ONLY VM_MUTANTS_ONLY VM_CMDLINE SCHEDSCAN_TOOLS; do
    if [ -n "${!v:-}" ]; then
        echo "# WARNING: $v=${!v} narrows the guest tests; this is not a full vmcheck" >&2
        echo "# WARNING: $v=${!v} narrows the guest tests; this is not a full vmcheck"
    fi
done

N=0
FAILED=0
tap_ok()    { N=$((N + 1)); echo "ok $N - $*"; }
tap_notok() { N=$((N + 1)); FAILED=$((FAILED + 1)); echo "not ok $N - $*"; }
comment()   { sed 's/^/# /'; }

finish() {
    local el=$(( $(date +%s) - t_start ))
    echo "1..$N"
    echo "vmcheck: $((N - FAILED)) passed, $FAILED failed (${el}s)"
    if [ "$FAILED" = 0 ]; then exit 0; fi
    exit 1
}

# --------------------------------------------------------------- preflight
missing=""
for t in sisscan idlebal numascan check workloads/pingpong workloads/spinner workloads/memtouch workloads/numaremote workloads/ownvmas; do
    [ -x "$static/$t" ] || missing="$missing $t"
done
if [ ! -d "$static" ]; then
    tap_notok "vmcheck: static tools in $static # directory missing (make STATIC=1)"
    finish
fi
[ -z "$missing" ] || echo "vmcheck: warning: missing from $static:$missing (their guest tests will fail)"

# ----------------------------------------------------------------- kernels
mkdir -p "$out" "$kcache"
# this run's selection in its own output directory: vmchecks of other
# series may share the kernel cache
selected=$out/selected
rm -f "$selected"
if ! FETCH_SELECTED=$selected "$here/fetch-kernels.sh" "$kcache" > "$out/fetch.log" 2>&1; then
    cat "$out/fetch.log" | comment
    if [ ! -s "$selected" ]; then
        tap_notok "vmcheck: fetch Debian kernels # see $out/fetch.log"
        finish
    fi
    tap_notok "vmcheck: fetch Debian kernels (some missing) # see $out/fetch.log"
else
    { grep '^fetch-kernels:' "$out/fetch.log" || true; } | sed 's/^fetch-kernels/vmcheck/'
fi

# --------------------------------------------------------------- initramfs
initrd=$out/initramfs.cpio.gz
if ! "$here/mkinitramfs.sh" -s "$static" -o "$initrd" -k "$kcache" > "$out/mkinitramfs.log" 2>&1; then
    comment < "$out/mkinitramfs.log"
    tap_notok "vmcheck: build initramfs # see $out/mkinitramfs.log"
    finish
fi
sed 's/^mkinitramfs/vmcheck/' "$out/mkinitramfs.log"

# The mutation selftest's initramfs: the release tools but sisscan,
# idlebal and numascan, which are their test builds.
initrd_mutants=""
if [ -n "${VM_MUTANTS:-}" ]; then
    initrd_mutants=$out/initramfs-mutants.cpio.gz
    rm -rf "$out/static-mutants"
    mkdir -p "$out/static-mutants"
    cp -a "$static/." "$out/static-mutants/"
    if ! cp "$VM_MUTANTS/sisscan" "$VM_MUTANTS/idlebal" "$VM_MUTANTS/numascan" "$out/static-mutants/" ||
       ! "$here/mkinitramfs.sh" -s "$out/static-mutants" -o "$initrd_mutants" -k "$kcache" > "$out/mkinitramfs-mutants.log" 2>&1; then
        comment < "$out/mkinitramfs-mutants.log" 2>/dev/null || :
        tap_notok "vmcheck: build the mutation selftest's initramfs from $VM_MUTANTS # see $out/mkinitramfs-mutants.log"
        initrd_mutants=""
    fi
fi

cmdline=()
[ -n "${VM_TOOLS:-}" ] && cmdline+=("SCHEDSCAN_TOOLS=$VM_TOOLS")
[ -n "${VM_MODES:-}" ] && cmdline+=("SCHEDSCAN_MODES=$VM_MODES")
# shellcheck disable=SC2206 # word splitting intended
[ -n "${VM_CMDLINE:-}" ] && cmdline+=($VM_CMDLINE)

# ------------------------------------------------------------ guest output
# extract_file LOG NAME DEST: the dump between the FILE markers, checked
extract_file() {
    local log=$1 name=$2 dest=$3 end lines md5
    end=$(tr -d '\r' < "$log" | grep -m1 "^=== SCHEDSCAN FILE END $name " || true)
    [ -n "$end" ] || { echo "no $name dump in the console log"; return 1; }
    tr -d '\r' < "$log" | awk -v b="=== SCHEDSCAN FILE BEGIN $name" -v e="=== SCHEDSCAN FILE END $name " '
        $0 == b { on = 1; next }
        index($0, e) == 1 { exit }
        on { print }' > "$dest.tmp"
    lines=$(sed -n 's/.* lines=\([0-9]*\).*/\1/p' <<<"$end")
    md5=$(sed -n 's/.* md5=\([0-9a-f]*\).*/\1/p' <<<"$end")
    if [ "$(wc -l < "$dest.tmp")" != "$lines" ] || [ "$(md5sum < "$dest.tmp" | cut -d' ' -f1)" != "$md5" ]; then
        echo "$name dump corrupted on the console (lines/md5 mismatch; kernel messages interleaved?)"
        rm -f "$dest.tmp"; return 1
    fi
    mv "$dest.tmp" "$dest"
}

declare -A CELL     # CELL[tool|kver|mode] = pass/FAIL/leak
declare -A GUEST_FAILED
KVERS=()
TOOLS_SEEN=()
for t in $(echo "${VM_TOOLS:-sisscan,idlebal,numascan}" | tr ',' ' '); do TOOLS_SEEN+=("$t"); done

record() {  # record KVER RESULT(ok|not ok) DESC
    local kver=$1 res=$2 desc=$3 tool mode key tiers rest
    # a check of the runner (tests/check): "TOOL.KIND.NAME [TIER]: ..."
    if [[ $desc =~ ^([a-z]+)\.(truth|known|consistency|behaviour)\.[a-z0-9_.]+\ \[([a-z]+)\] ]]; then
        tool=${BASH_REMATCH[1]}; mode=${BASH_REMATCH[3]}
        [ "$res" = ok ] || CELL[$tool|$kver|$mode]=WRONG
        return 0
    fi
    # a count against the kernel's: "TOOL METRIC [TIER] within ..." or
    # "TOOL METRIC within ... (--mode MODE)"
    if [[ $desc =~ ^([a-z_]+)\ [a-z_.]+\ \[([a-z_]+)\]\ within ]] ||
       [[ $desc =~ ^([a-z_]+)\ [a-z_.]+\ within\ .*\(--mode\ ([a-z_]+)\) ]]; then
        tool=${BASH_REMATCH[1]}; mode=${BASH_REMATCH[2]}
        case $mode in tp_btf|raw_tp) mode=tracepoint ;; esac
        [ "$res" = ok ] || CELL[$tool|$kver|$mode]=WRONG
        return 0
    fi
    [[ $desc =~ ^([a-z_]+)\ --mode\ ([a-z_]+)(.*)$ ]] || return 0
    tool=${BASH_REMATCH[1]}; mode=${BASH_REMATCH[2]}; rest=${BASH_REMATCH[3]}
    key="$tool|$kver|$mode"
    [[ " ${TOOLS_SEEN[*]} " == *" $tool "* ]] || TOOLS_SEEN+=("$tool")
    case "$rest" in
        ": nothing left attached"*)
            [ "$res" = ok ] || { [ "${CELL[$key]:-}" = pass ] && CELL[$key]=leak; } ;;
        :*|" --"*)
            # any other check of that tool and tier: a count against the
            # kernel's own counter, a known answer, ...
            [ "$res" = ok ] || CELL[$key]=WRONG ;;
        *)
            # the run itself: "TOOL --mode MODE (time; metrics)" or "# why"
            if [ "$res" = ok ]; then CELL[$key]=pass; else CELL[$key]=FAIL; fi
            if [ "$mode" = tracepoint ] && [ "$res" = ok ]; then
                tiers=$(grep -o '\[[a-z_]*\]=' <<<"$desc" | tr -d '[]=' | sort -u | tr '\n' '+' | sed 's/+$//' || true)
                if [ -n "$tiers" ]; then CELL[$key]="pass($tiers)"; fi
            fi ;;
    esac
    return 0
}

# expect_named LABEL LOG WHAT PATTERN...: every PATTERN names a guest result
# (the guest's plan is its own count: a check that vanished from the guest
# would not show there).
expect_named() {
    local label=$1 log=$2 what=$3 want missing="" n=0 results
    shift 3
    # Not "tr | grep -q": grep -q leaves at its first match, tr's next
    # write then dies of SIGPIPE, and pipefail calls the match missing
    # (seen on a 45 KB console log).
    results=$(tr -d '\r' < "$log")
    for want in "$@"; do
        n=$((n + 1))
        grep -E "^(ok|not ok) [0-9]+ - $want" <<<"$results" >/dev/null || missing="$missing '$want'"
    done
    if [ -n "$missing" ]; then
        tap_notok "$label: every expected $what ran # missing:$missing"
    else
        tap_ok "$label: every expected $what ran ($n kinds by name)"
    fi
}

# Every check of the runner (tests/check) in each of its tiers, by id: a
# standard boot runs them all ("ID [TIER]" as a pattern).
REGISTRY=()
if [ -x "$static/check" ]; then
    mapfile -t REGISTRY < <("$static/check" --list | awk 'NR > 1 {
        id = $1; gsub(/[.]/, "[.]", id); n = split($3, t, ",")
        for (i = 1; i <= n; i++) print id " \\[" t[i] "\\]" }')
fi

# ------------------------------------------------------------- the boots
# Each boot is a job: "SERIES KVER LABEL SMP CPU GUEST_ARGS..." (SMP and CPU
# "-" for the defaults). Jobs boot VM_PARALLEL at a time (TCG thread=single
# keeps one host core busy per guest) and are reported in the order queued.
JOBS=()
queue() { JOBS+=("$*"); }

boot_job() {  # boot_job I: runs job I's guest, leaves rc and elapsed in its dir
    local series kver label smp cpu gout t0 rc
    # shellcheck disable=SC2086 # a job is words
    set -- ${JOBS[$1]}
    series=$1 kver=$2 label=$3 smp=$4 cpu=$5
    shift 5
    gout=$out/out/$label
    rm -rf "$gout"; mkdir -p "$gout"
    [ "$smp" = - ] && smp=${VM_SMP:-}
    [ "$cpu" = - ] && cpu=${VM_CPU:-}
    t0=$(date +%s)
    local job_initrd=$initrd
    [[ $label == *-mutations ]] && job_initrd=$initrd_mutants
    set +e
    VM_SMP=$smp VM_CPU=$cpu VM_LOG=$gout/console.log "$here/run-guest.sh" "$kcache/$kver" "$job_initrd" \
        "${cmdline[@]}" "$@" > "$gout/run-guest.log" 2>&1
    rc=$?
    set -e
    echo $(( $(date +%s) - t0 )) > "$gout/elapsed"
    echo "$rc" > "$gout/rc"
}

run_jobs() {
    local n=${#JOBS[@]} next=0 done_to=0 i label par=${VM_PARALLEL:-2}
    local -A pid=()
    while [ "$done_to" -lt "$n" ]; do
        # a boot that has ended frees its slot at once, wherever it is in
        # the queue (a slot held until the boots queued before it were
        # reported stood idle for 12 of a run's 33 minutes)
        for i in "${!pid[@]}"; do
            read -r _ _ label _ <<<"${JOBS[$i]}"
            if [ -s "$out/out/$label/rc" ]; then
                wait "${pid[$i]}" || true
                unset "pid[$i]"
            fi
        done
        # the patched kernel's boots wait for its build
        while [ "$next" -lt "$n" ] && [ ${#pid[@]} -lt "$par" ]; do
            if [[ ${JOBS[$next]} == *" @patched "* ]] && ! patched_ready; then
                next=$((next + 1)); continue    # no kernel: report_job says why
            fi
            read -r _ _ label _ <<<"${JOBS[$next]}"
            rm -f "$out/out/$label/rc"
            boot_job "$next" &
            pid[$next]=$!
            echo "vmcheck: booting $label ($(date +%T))"
            next=$((next + 1))
        done
        # report, in queue order, every boot that has ended (or was skipped)
        while [ "$done_to" -lt "$next" ] && [ -z "${pid[$done_to]:-}" ]; do
            report_job "$done_to"
            done_to=$((done_to + 1))
        done
        # (polled: "wait -n" may miss a boot that ended before it was called)
        [ ${#pid[@]} -eq 0 ] || sleep 2
    done
}

report_job() {  # report_job I: job I's results as TAP, its checks by name
    local series kver label smp cpu gout log rc el line res desc plan seen=0 err extra
    # shellcheck disable=SC2086 # a job is words
    set -- ${JOBS[$1]}
    series=$1 kver=$2 label=$3 smp=$4 cpu=$5
    shift 5
    extra=("$@")
    gout=$out/out/$label
    log=$gout/console.log
    if [[ $label == *-mutations ]]; then
        echo "vmcheck: $label: guest ran $(cat "$gout/elapsed")s, exit $(cat "$gout/rc"); its results are the mutation selftest's to judge (console log: $log)"
        return
    fi
    if [ "$kver" = @patched ]; then
        [ "$label" = @patched ] || return 0
        tap_notok "vmcheck: build the SIS_FILTER kernel # $(tail -n 3 "$out/build-patched-kernel.err" | tr '\n' ' ')"
        return
    fi
    KVERS+=("$label")
    echo "# ---- guest $label ----"
    rc=$(cat "$gout/rc")
    el=$(cat "$gout/elapsed")

    # the guest's TAP lines, renumbered and prefixed with the kernel
    plan=""
    while IFS= read -r line; do
        case "$line" in
            "ok "[0-9]*" - "*)     res=ok;       desc=${line#ok * - } ;;
            "not ok "[0-9]*" - "*) res="not ok"; desc=${line#not ok * - } ;;
            1..[0-9]*)             plan=${line#1..}; continue ;;
            "#"*)                  echo "$line"; continue ;;
            *) continue ;;
        esac
        seen=$((seen + 1))
        record "$label" "$res" "$desc"
        if [ "$res" = ok ]; then tap_ok "$label: $desc"; else tap_notok "$label: $desc"; fi
    done < <(tr -d '\r' < "$log" | awk '/^=== SCHEDSCAN GUEST BEGIN/ { on = 1; next }
                                        /^=== SCHEDSCAN GUEST END/ { on = 0 }
                                        /^=== SCHEDSCAN FILE BEGIN/ { skip = 1 }
                                        /^=== SCHEDSCAN FILE END/ { skip = 0; next }
                                        on && !skip')

    if [ "$rc" -ne 0 ]; then
        GUEST_FAILED[$label]=1
        tap_notok "$label: guest booted and finished # $(grep -m1 'FAIL:' "$gout/run-guest.log" | sed 's/^run-guest: FAIL: [^:]*: //')"
        grep -v 'FAIL:' "$gout/run-guest.log" | comment
        echo "vmcheck: $label: FAILED after ${el}s (console log: $log)"
        return
    fi
    # The guest's plan is its own count: a check that vanished from the
    # guest would not show there. A full run must contain these by name.
    if [[ $label == *-sisfilter ]]; then
        expect_named "$label" "$log" "SIS_FILTER check" \
            'patched kernel: SIS_FILTER in ' \
            'sisscan --filter overloaded,real, SIS_FILTER on, spinners: ' \
            'sisscan --filter overloaded,real, SIS_FILTER on, pingpong: ' \
            'sisscan --filter overloaded,real, SIS_FILTER on, hackbench: ' \
            'sisscan --filter real, SIS_FILTER off, (spinners|pingpong|hackbench): ' \
            'sisscan --filter overloaded,real, SIS_FILTER on, spinners: at the same wakeups' \
            'sisscan --filter overloaded,real, SIS_FILTER on, pingpong: at the same wakeups' \
            'sisscan --filter overloaded,real, SIS_FILTER on, hackbench: at the same wakeups' \
            'sisscan, spinners: the overloaded model.s scan depth on the unfiltered kernel' \
            'sisscan, hackbench: the overloaded model.s scan depth on the unfiltered kernel' \
            'sisscan --filter real, SIS_FILTER on: the kernel hides'
    elif [[ $label == *-sisfilter-v4 ]]; then
        expect_named "$label" "$log" "SIS_FILTER_V4 check" \
            'patched kernel: SIS_FILTER_V4 in ' \
            'sisscan --filter unoccupied,real, SIS_FILTER_V4 on, spinners: the model' \
            'sisscan --filter unoccupied,real, SIS_FILTER_V4 on, pingpong: the model' \
            'sisscan --filter unoccupied,real, SIS_FILTER_V4 on, hackbench: the model' \
            'sisscan --filter real, SIS_FILTER_V4 off, (spinners|pingpong|hackbench): ' \
            'sisscan --filter unoccupied,real, SIS_FILTER_V4 on, spinners: at the same wakeups' \
            'sisscan --filter unoccupied,real, SIS_FILTER_V4 on, pingpong: at the same wakeups' \
            'sisscan --filter unoccupied,real, SIS_FILTER_V4 on, hackbench: at the same wakeups' \
            'sisscan, spinners: the unoccupied model.s scan depth on the unfiltered kernel' \
            'sisscan, pingpong: the unoccupied model.s scan depth on the unfiltered kernel' \
            'sisscan, hackbench: the unoccupied model.s scan depth on the unfiltered kernel' \
            'sisscan --filter real, SIS_FILTER_V4 on: the kernel.s mask never holds the spinners. CPUs'
    elif [ "$label" != "$kver" ]; then
        if [[ " ${extra[*]} " == *" SCHEDSCAN_SELECTION=1 "* ]]; then
            expect_named "$label" "$log" "selection check" \
                'sisscan --mode fentry: selection -C 0-3, JSON: ' 'sisscan --mode fentry: selection -p [0-9]+, text: ' \
                'sisscan --mode fentry: selection --comm pingpong, JSON: ' 'sisscan --mode fentry: selection -c ' \
                'idlebal --mode fentry: selection -C 0-3, text: ' 'idlebal --mode fentry: selection -C 0-7, JSON: ' \
                'idlebal --mode fentry: selection -p [0-9]+, JSON: ' 'idlebal --mode fentry: selection --comm pingpong, text: ' \
                'numascan --mode fentry: selection -C 0-3, JSON: ' 'numascan --mode fentry: selection -p [0-9]+, JSON: ' \
                'numascan --mode fentry: selection --comm memtouch, JSON: ' 'numascan --mode fentry: selection -c '
        fi
        expect_named "$label" "$log" "SMT check" \
            'sisscan --mode (fentry|kprobe): SMT, an idle core' \
            'sisscan --mode (fentry|kprobe): SMT, no idle core' \
            'sisscan --mode (fentry|kprobe): SMT, select_idle_smt\(\) skips prev' \
            'sisscan --mode (fentry|kprobe): SMT, guest, pingpong and hackbench' \
            'sisscan --mode (fentry|kprobe) --filter unoccupied: SMT, an idle core' \
            'sisscan --mode (fentry|kprobe) --filter unoccupied: SMT, busy cores'
    elif [ -z "${VM_TOOLS:-}${VM_MODES:-}${VM_CMDLINE:-}" ]; then
        expect_named "$label" "$log" "guest check" \
            'sisscan --mode fentry \(' 'sisscan --mode kprobe \(' 'sisscan --mode tracepoint \(' \
            'idlebal --mode fentry \(' 'idlebal --mode kprobe \(' 'idlebal --mode tracepoint \(' \
            'numascan --mode fentry \(' 'numascan --mode kprobe \(' 'numascan --mode tracepoint \(' \
            'sisscan --mode fentry --list-metrics: the run' 'sisscan --mode kprobe --list-metrics: the run' \
            'sisscan --mode tracepoint --list-metrics: the run' \
            'idlebal --mode fentry --list-metrics: the run' 'idlebal --mode kprobe --list-metrics: the run' \
            'idlebal --mode tracepoint --list-metrics: the run' \
            'numascan --mode fentry --list-metrics: the run' 'numascan --mode kprobe --list-metrics: the run' \
            'numascan --mode tracepoint --list-metrics: the run' \
            'sisscan select_task_rq_fair_calls \[fentry\]' 'sisscan select_task_rq_fair_calls \[kprobe\]' \
            'sisscan sis_search \[fentry\]' 'sisscan sis_search \[kprobe\]' \
            'sisscan idle_probes \[fentry\]' 'sisscan idle_probes \[kprobe\]' \
            'sisscan wakeups \[(tp_btf|raw_tp|tracepoint)\]' \
            'idlebal load_balance_calls \[fentry\]' 'idlebal load_balance_calls \[kprobe\]' \
            'idlebal cpus.idle_ns within' \
            'idlebal domains.lb_count \[fentry\]' 'idlebal domains.lb_count \[kprobe\]' \
            'idlebal domains.lb_balanced \[fentry\]' 'idlebal domains.lb_balanced \[kprobe\]' \
            'idlebal domains.lb_failed \[fentry\]' 'idlebal domains.lb_failed \[kprobe\]' \
            'idlebal domains.lb_gained \[fentry\]' 'idlebal domains.lb_gained \[kprobe\]' \
            'idlebal domains.lb_nobusyg \[fentry\]' 'idlebal domains.lb_imbalance \[kprobe\]' \
            'idlebal ilb_kicks \[' \
            'idlebal newidle_calls \[fentry\]' 'idlebal newidle_calls \[kprobe\]' \
            'idlebal --mode fentry --svg: three outcome bars' 'idlebal --mode kprobe --svg: three outcome bars' \
            'numascan numa_hint_faults \[fentry\]' 'numascan numa_hint_faults \[kprobe\]' \
            'numascan numa_hint_faults_local \[fentry\]' 'numascan numa_hint_faults_local \[kprobe\]' \
            'numascan numa_pte_updates \[fentry\]' 'numascan numa_pte_updates \[kprobe\]' \
            'numascan numa_pages_migrated \[(tp_btf|raw_tp|tracepoint)\]' \
            'numascan numa_hint_fault_pages \[(tp_btf|raw_tp)\]' \
            'numascan numa_vma_skips' \
            'sisscan --list-metrics: auto reports every metric the tracepoint tier does' \
            'idlebal --list-metrics: auto reports every metric the tracepoint tier does' \
            'numascan --list-metrics: auto reports every metric the tracepoint tier does' \
            'sisscan --list-metrics, the idle probe.s function hidden: auto reports every metric' \
            "${REGISTRY[@]}"
    fi
    if [ -z "$plan" ] || [ "$plan" != "$seen" ]; then
        tap_notok "$label: guest TAP stream complete # plan ${plan:-missing}, saw $seen results"
    else
        tap_ok "$label: guest booted and finished (${el}s, $seen guest tests)"
    fi

    # where the guest's time went, per stage (guest-tests.sh's timed;
    # a stage's time includes the stages it calls)
    echo "vmcheck: $label: seconds per stage: $(tr -d '\r' < "$log" | awk '$1 == "#" && $2 == "time:" { t[$3] += $(NF - 1) }
        END { for (s in t) printf "%s %.0f, ", s, t[s] }' | sed 's/, $//')"
    # the host parsers' fixtures come from the standard boot
    [ "$label" = "$kver" ] && [[ $label != *-sisfilter ]] || { echo "vmcheck: $label: guest ran ${el}s (console log: $log)"; return; }
    for f in schedstat vmstat; do
        if err=$(extract_file "$log" "$f" "$gout/$f.txt"); then
            if [ "${VM_UPDATE_FIXTURES:-0}" = 1 ]; then
                mkdir -p "$repo/tests/fixtures/$f"
                cp "$gout/$f.txt" "$repo/tests/fixtures/$f/debian-$series.txt"
                echo "vmcheck: updated tests/fixtures/$f/debian-$series.txt"
            fi
        else
            tap_notok "$kver: captured /proc/$f # $err"
        fi
    done
    # each tool's --list-metrics in each mode, for make kernels-doc
    local lists=0 name
    for name in $(tr -d '\r' < "$log" | sed -n 's/^=== SCHEDSCAN FILE BEGIN \(list-[a-z]*-[a-z]*\)$/\1/p'); do
        if err=$(extract_file "$log" "$name" "$gout/$name.txt"); then
            lists=$((lists + 1))
        else
            tap_notok "$kver: captured $name # $err"
        fi
    done
    echo "vmcheck: $kver: $lists --list-metrics outputs kept for make kernels-doc ($gout/list-*.txt)"
    echo "vmcheck: $kver: guest ran ${el}s, $(grep -o 'kernel boot to /init: [0-9.?]*s' "$gout/run-guest.log" || echo 'boot time unknown') (console log: $log)"
}

# The SIS_FILTER kernel is built (when its cache misses) while the guests
# run, at nice 19 so that they keep their CPUs (each one TCG thread, two
# at once). As many jobs as CPUs: whatever the guests leave, and every CPU
# once they are done (one job left a cold run waiting 9 min after the
# last standard boot).
SIS_FILTER_BOOT=0
if { [ -z "${VM_TOOLS:-}${VM_MODES:-}${VM_CMDLINE:-}${VM_KERNELS:-}" ] || [ "${VM_PATCHED_ONLY:-0}" = 1 ]; } &&
   [ "${VM_SIS_FILTER:-1}" = 1 ] && [ "${VM_MUTANTS_ONLY:-0}" != 1 ]; then
    SIS_FILTER_BOOT=1
    pcache=${VM_PATCHED_KERNEL_CACHE:-/var/cache/schedscan/kernels}
    VM_KERNEL_JOBS=${VM_KERNEL_JOBS:-$(nproc)} nice -n 19 "$here/build-patched-kernel.sh" "$pcache" \
        >"$out/build-patched-kernel.log" 2>"$out/build-patched-kernel.err" &
    pbuild=$!
    # not left building if vmcheck is stopped
fi
# nothing left building or booting if vmcheck is stopped
trap 'pkill -P $$ 2>/dev/null || :; [ -z "${pbuild:-}" ] || pkill -P "$pbuild" 2>/dev/null || :' EXIT

# Two threads per core: the SMT boots and the v4 filter's boot.
SMT_SMP=8,sockets=2,cores=2,threads=2
SMT_CPU=${VM_SMT_CPU:-Skylake-Server}
# An Intel model makes the guest kernel switch page tables at every kernel
# entry (PTI, Meltdown), which costs TCG a TLB flush each time: the 6.1
# SMT boot took 209 s with it and 173 s with mitigations=off (the -cpu max
# boots, AMD to the guest, only use retpolines: no difference measured).
# The scheduler's code and the tools' hooks are the same either way.
SMT_ARGS=mitigations=off

# The stock boots: one per kernel series, every tool in every tier. The
# newest first, here and below: they run longest, and a long boot queued
# last would leave the other slot idle at the end.
if [ "${VM_PATCHED_ONLY:-0}" != 1 ] && [ "${VM_SMT:-1}" != only ] && [ "${VM_MUTANTS_ONLY:-0}" != 1 ]; then
    while read -r series kver; do
        [ -n "$kver" ] && queue "$series" "$kver" "$kver" - -
    done < <(tac "$selected")
fi

# The mutation selftest's boot (VM_MUTANTS): about as long as an SMT boot,
# so queued before them. Each mutation is switched on in turn
# (guest-tests.sh, SCHEDSCAN_MUTATIONS).
if [ -n "$initrd_mutants" ]; then
    mkver=$(awk '$1 == "6.12" { print $2 }' "$selected")
    if [ -n "$mkver" ]; then
        queue 6.12 "$mkver" "$mkver-mutations" - - \
            "SCHEDSCAN_MUTATIONS=$("$here/selftest-mutations.sh" --list)"
    else
        tap_notok "vmcheck: the mutation selftest's boot # no 6.12 kernel selected"
    fi
fi

# The SMT boots: two threads per core, only the SMT stage checks (issue 9).
# 6.1 shows the guest no SMT siblings with -cpu max (each CPU its own core);
# with an Intel model's topology leaves it does, and so do the later kernels.
if { [ -z "${VM_TOOLS:-}${VM_MODES:-}${VM_CMDLINE:-}" ] && [ "${VM_SMT:-1}" = 1 ] || [ "${VM_SMT:-1}" = only ]; } &&
   [ "${VM_PATCHED_ONLY:-0}" != 1 ] && [ "${VM_MUTANTS_ONLY:-0}" != 1 ]; then
    # The selection options' matrix (issue 32) in one boot: the newest kernel's.
    newest=$(awk 'NF == 2 { k = $2 } END { print k }' "$selected")
    while read -r series kver; do
        [ -n "$kver" ] || continue
        selection=""
        [ "$kver" = "$newest" ] && selection=SCHEDSCAN_SELECTION=1
        queue "$series" "$kver" "$kver-smt" "$SMT_SMP" "$SMT_CPU" $SMT_ARGS SCHEDSCAN_SMT=1 $selection
    done < <(tac "$selected")
fi

# The SIS_FILTER boots (issue 13): Debian's 6.1 source with the draft's
# "overloaded" mask ported, built once per machine (its cache is outside
# the checkout, keyed by source, patches and config), booted without SMT,
# and with v4's "unoccupied" mask, kept by SMT-level load balancing, with.
# Their kernel is named when its build is done: @patched until then.
if [ "$SIS_FILTER_BOOT" = 1 ]; then
    queue 6.1 @patched @patched - - SCHEDSCAN_FILTER_REAL=1
    queue 6.1 @patched @patched-v4 "$SMT_SMP" "$SMT_CPU" $SMT_ARGS SCHEDSCAN_FILTER_REAL_V4=1
fi
PATCHED=""
patched_ready() {  # 0 once the SIS_FILTER kernel is built and its jobs named
    local plabel i
    [ -z "$PATCHED" ] || { [ "$PATCHED" != failed ]; return; }
    PATCHED=failed
    echo "# ---- the SIS_FILTER kernel (tests/vm/build-patched-kernel.sh, cache $pcache) ----"
    wait "$pbuild" && plabel=$(tail -n 1 "$out/build-patched-kernel.log") &&
        [ -n "$plabel" ] && [ -s "$pcache/$plabel/vmlinuz" ] || return 1
    grep '^build-patched-kernel:' "$out/build-patched-kernel.log" | sed 's/^build-patched-kernel/vmcheck/'
    ln -sfn "$pcache/$plabel" "$kcache/$plabel"
    for i in "${!JOBS[@]}"; do JOBS[$i]=${JOBS[$i]//@patched/$plabel}; done
    PATCHED=$plabel
}

run_jobs

# docs/kernels.md is rendered from these runs (make kernels-doc): render it
# here too, so the renderer runs on every full run, and say whether the
# committed page still matches what the kernels give.
if ls "$out"/out/*/list-*.txt >/dev/null 2>&1; then
    if python3 "$here/kernels_doc.py" "$out/out" > "$out/kernels.md" 2> "$out/kernels-doc.err"; then
        tap_ok "vmcheck: docs/kernels.md renders from this run ($(grep -c '^## ' "$out/kernels.md") sections)"
        if cmp -s "$out/kernels.md" "$repo/docs/kernels.md"; then
            echo "vmcheck: docs/kernels.md matches this run"
        else
            echo "vmcheck: docs/kernels.md differs from this run (a kernel package moved on, or a tool's hooks changed): make kernels-doc"
        fi
    else
        tap_notok "vmcheck: docs/kernels.md renders from this run # $(head -c 300 "$out/kernels-doc.err")"
    fi
fi

# A narrowed run that booted nothing checked nothing: not a pass.
[ ${#KVERS[@]} -gt 0 ] || tap_notok "vmcheck: no guest booted (VM_KERNELS='${VM_KERNELS:-}', VM_PATCHED_ONLY='${VM_PATCHED_ONLY:-}')"

# ------------------------------------------------------------- tier matrix
if [ ${#KVERS[@]} -gt 0 ]; then
    modes=$(echo "${VM_MODES:-fentry,kprobe,tracepoint}" | tr ',' ' ')
    echo "vmcheck: tier matrix (pass = exit 0 + summary + metric of that tier > 0 + nothing left attached;"
    echo "vmcheck:   FAIL = run failed, leak = BPF left attached, WRONG = a count outside the kernel's own counter"
    echo "vmcheck:   or a known answer missed,"
    echo "vmcheck:   crash = guest died before the test, - = not run)"
    {
        printf '%-10s %-24s' tool kernel
        for m in $modes; do printf ' %-18s' "$m"; done
        printf '\n'
        for tool in "${TOOLS_SEEN[@]}"; do
            for kver in "${KVERS[@]}"; do
                printf '%-10s %-24s' "$tool" "$kver"
                for m in $modes; do
                    cell=${CELL[$tool|$kver|$m]:-}
                    [ -n "$cell" ] || { [ -n "${GUEST_FAILED[$kver]:-}" ] && cell=crash || cell=-; }
                    printf ' %-18s' "$cell"
                done
                printf '\n'
            done
        done
    } | sed 's/^/vmcheck:   /'
fi
finish
