#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Every tool with every selection option (issue 32, item 3: idlebal -C
# with a subset of the CPUs always failed, a second time, because no
# test ran a subset): -C a subset and -C every CPU, -p, --comm and -c,
# each in text and in JSON, generated from the lists below. Each run
# must end with exit 0 and a whole report (a valid JSON summary, a text
# summary), and count the selected workload where the tool counts it
# whatever it does (sisscan's wakeups of a pingpong, numascan's page
# faults of a memtouch). The guests run the same matrix in every tier
# (tests/vm/guest-tests.sh, selection_checks).
source "$(dirname "$0")/../live/lib.sh"

cpus=$(cat /sys/devices/system/cpu/online)
cg2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
cg=${cg2:+$cg2/schedscan-selection-$$}
if [ -n "$cg" ] && mkdir "$cg" 2>/dev/null; then
	at_exit "rmdir $cg"
else
	cg=
fi

# The workload a tool counts in every tier, and the counter that must
# move for it ("": none does in every tier: idlebal's migrations of one
# task may be 0).
workload_of() {
	case $1 in
	numascan) echo "memtouch -t 2 -m 16 -s 0.5" ;;
	*) echo "pingpong -n 3000" ;;
	esac
}
counter_of() {
	case $1 in
	sisscan) echo wakeups ;;
	numascan) echo user_page_faults ;;
	esac
}

# wait_ready FILE PID: until the tool wrote its ready line (or exited).
wait_ready() {
	local i
	for ((i = 0; i < 600; i++)); do
		[ -s "$1" ] && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}

# run TOOL SELECTION: the workload is made stopped (its PID and cgroup
# known, its name not yet its own), the tool starts selecting it, in text
# and in JSON at once; once both count, the workload runs to its end and
# the tools are stopped. Statuses in text_status and json_status.
run() {
	local tool=$1 sel=$2 wl args=() name wl_pid text_pid json_pid cgroup=""
	wl=$(workload_of "$tool")
	name=${wl%% *}
	[ "$sel" = -c ] && cgroup=$cg
	# shellcheck disable=SC2016
	bash -c '[ -z "$1" ] || echo $$ >"$1/cgroup.procs"; kill -STOP $$; shift; exec "$@"' \
		_ "$cgroup" "$BUILD/workloads/$name" ${wl#* } >/dev/null 2>&1 &
	wl_pid=$!
	case $sel in
	-C-subset) args=(-C 0) ;;
	-C-all) args=(-C "$cpus") ;;
	-p) args=(-p "$wl_pid") ;;
	--comm) args=(--comm "$name") ;;
	-c) args=(-c "$cg") ;;
	esac
	: >"$WORK/text.ready"
	: >"$WORK/json.ready"
	"$BIN/$tool" "${args[@]}" --ready-fd 3 3>"$WORK/text.ready" >"$WORK/text" 2>"$WORK/text.err" &
	text_pid=$!
	"$BIN/$tool" "${args[@]}" --json --ready-fd 3 3>"$WORK/json.ready" >"$WORK/json" \
		2>"$WORK/json.err" &
	json_pid=$!
	wait_ready "$WORK/text.ready" $text_pid
	wait_ready "$WORK/json.ready" $json_pid
	kill -CONT $wl_pid
	wait $wl_pid
	kill -INT $text_pid $json_pid 2>/dev/null
	wait $text_pid
	text_status=$?
	wait $json_pid
	json_status=$?
	desc="$tool ${args[*]}"
}

for tool in $TOOLS; do
	for sel in -C-subset -C-all -p --comm -c; do
		if [ "$sel" = -c ] && [ -z "$cg" ]; then
			skip "$tool -c CGROUP" "no cgroup2 mount to make a test cgroup in"
			continue
		fi
		run "$tool" "$sel"
		if [ $text_status -eq 0 ] && grep -q '^Summary: ' "$WORK/text"; then
			pass "$desc: exit 0, a text summary"
		else
			fail "$desc: exit 0, a text summary" "status $text_status: $(head -c 300 "$WORK/text.err")"
		fi
		counter=$(counter_of "$tool")
		got=$([ -n "$counter" ] && metric "$WORK/json" "$counter")
		if [ $json_status -eq 0 ] && out=$(check_json "$WORK/json") &&
			{ [ -z "$counter" ] || [ "${got:-0}" -gt 0 ] 2>/dev/null; }; then
			pass "$desc --json: exit 0, valid JSON${counter:+, $counter $got > 0 for the selected workload}"
		else
			fail "$desc --json: exit 0, valid JSON${counter:+, $counter > 0}" \
				"status $json_status: $(head -c 300 "$WORK/json.err") ${out:-}; $counter '$got'"
		fi
	done
done
finish
