#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Hostile names (issue 32, item 2): any task may name itself (15 bytes of
# anything but NUL) and any user may name a file. Workloads run under
# such names, the issue's two and three of random bytes, and map files
# with such names; every tool's every format must stay well formed with
# them in its tables: JSON Lines that a strict parser reads, OpenMetrics
# that promtool accepts, SVG that an XML parser reads, and text with no
# control character and no row a name could forge. Each name is shown in
# its display form (lib/escape.h), checked by an independent
# reimplementation of its rules (check_names.py).
source "$(dirname "$0")/../live/lib.sh"

CHECK="/usr/bin/python3 $ROOT/tests/robustness/check_names.py"
mkdir -p "$WORK/bin" "$WORK/names" "$WORK/files"

# The issue's names, then random ones: 15 bytes without NUL or '/', which
# exec gives the task as its name (comm).
names=($'<x&y>"\\\n\x01\xff\xfeZ' $'\x1b[31mRED\nFAKE 9 9')
for i in 1 2 3; do
	names+=("$(head -c 200 /dev/urandom | tr -d '\000/' | head -c 15)")
done
# Mapped files: short enough that the whole path's display form fits a label.
files=($'\xff\x1b[31mev\nl' $'a"b\\\x7f\x9b')

comm_files=() vma_files=()
for i in "${!names[@]}"; do
	printf '%s' "${names[$i]}" | head -c 15 >"$WORK/names/comm$i"
	comm_files+=("$WORK/names/comm$i")
done
for i in "${!files[@]}"; do
	# /proc/PID/maps shows a newline of a path as \012.
	printf '%s' "$WORK/files/${files[$i]}" | sed -z 's/\n/\\012/g' >"$WORK/names/vma$i"
	vma_files+=("$WORK/names/vma$i")
done

old_balancing=
if [ -w /proc/sys/kernel/numa_balancing ]; then
	old_balancing=$(cat /proc/sys/kernel/numa_balancing)
	echo 1 >/proc/sys/kernel/numa_balancing
	at_exit "echo $old_balancing >/proc/sys/kernel/numa_balancing"
fi

# hostile_load SECONDS: every name runs a pingpong (wakeups for sisscan -P),
# then two run a memtouch for SECONDS mapping one of the files (faults and
# VMA skips for numascan), as copies of the workloads named so.
hostile_load() {
	local i pids=()
	for i in "${!names[@]}"; do
		cp "$BUILD/workloads/pingpong" "$WORK/bin/${names[$i]}"
		"$WORK/bin/${names[$i]}" -n 2000 >/dev/null 2>&1 &
		pids+=($!)
	done
	# Then the memory: NUMA balancing scans a task after 1 s of its CPU time.
	wait "${pids[@]}"
	pids=()
	for i in "${!files[@]}"; do
		cp "$BUILD/workloads/memtouch" "$WORK/bin/m${names[$i]}"
		"$WORK/bin/m${names[$i]}" -t 2 -m 16 -s "$1" -f "$WORK/files/${files[$i]}" \
			>/dev/null 2>&1 &
		pids+=($!)
	done
	wait "${pids[@]}"
}

# run_tool NAME TOOL ARGS...: the tool in every format at once while the
# hostile load runs: JSON Lines on stdout, OpenMetrics and SVG in files;
# then text in a second run. Leaves NAME.{jsonl,prom,svg,txt}.
run_tool() {
	local name=$1 prog=$2
	shift 2
	if start_tool "$WORK/$name.jsonl" "$WORK/$name.err" "$prog" --json -i 1 \
		--prometheus-file "$WORK/$name.prom" --svg "$WORK/$name.svg" "$@"; then
		hostile_load 3
		sleep 1.2
	fi
	stop_tool
	json_status=$status
	if start_tool "$WORK/$name.txt" "$WORK/$name.txt.err" "$prog" -i 1 --top 100 "$@"; then
		hostile_load 3
	fi
	stop_tool
	text_status=$status
	[ "$status" -eq 0 ] || echo "# text run: status $status: $(head -c 300 "$WORK/$name.txt.err")"
}

check_outputs() {
	local name=$1 labels=$2 out
	shift 2
	check "$name: both runs exit 0 (json $json_status, text $text_status)" \
		[ "$json_status$text_status" = 00 ]
	if out=$($CHECK json "$WORK/$name.jsonl" "$@" 2>&1); then
		pass "$name --json: every line parses (strict UTF-8 and JSON), $labels show each name's display form"
	else
		fail "$name --json: strict JSON with the names" "$out"
	fi
	json_valid "$name --json: valid against docs/json.md" "$WORK/$name.jsonl"
	if out=$(promtool check metrics <"$WORK/$name.prom" 2>&1) &&
		out=$($CHECK prom "$WORK/$name.prom" "$@" 2>&1); then
		pass "$name --prometheus-file: promtool accepts it, its labels show each name"
	else
		fail "$name --prometheus-file: promtool and the names" "$out"
	fi
	if out=$($CHECK svg "$WORK/$name.svg" 2>&1); then
		pass "$name --svg: well-formed XML"
	else
		fail "$name --svg: well-formed XML" "$out"
	fi
	if out=$($CHECK text "$WORK/$name.txt" 2>&1); then
		pass "$name text: no control character, 80 columns, no forged row"
	else
		fail "$name text: safe with hostile names" "$out"
	fi
}

run_tool sisscan-P sisscan -P
check_outputs sisscan-P "the processes rows" "${comm_files[@]}"
run_tool numascan numascan
if [ -n "$old_balancing" ]; then
	check_outputs numascan "the processes and vmas rows" "${comm_files[@]:0:2}" "${vma_files[@]}"
else
	check_outputs numascan "the rows" 
	skip "numascan: the mapped files' names in the vmas rows" "no kernel.numa_balancing here"
fi
run_tool idlebal idlebal
check_outputs idlebal "no row (idlebal names no task)"

# The display form of the issue's name, exactly, in each format's syntax.
want='<x&y>\"\\\\\\n\\x01\\xff\\xfeZ'
check "the issue's name in sisscan's JSON as its display form" \
	grep -q -F "\"comm\":\"$want\"" "$WORK/sisscan-P.jsonl"
[ -n "${KEEP:-}" ] && cp -r "$WORK" /tmp/hostile-keep
finish
