#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# numascan on the host (tracepoint tier), kernel.numa_balancing=1 for the
# test only, a 4-thread process writing 128 MB (tests/workloads/memtouch):
#   - VMA skips per reason = bpftrace's count of sched_skip_vma_numa for
#     the same threads (the workload runs wholly inside the tool's window);
#   - the vmstat_* metrics within /proc/vmstat deltas read between window
#     cuts (kstat -c, as the guests' brackets);
#   - the per-task estimate of hint-fault pages (numa_faults_locality read
#     at faults and switches) against /proc/vmstat between the same cuts;
#   - autonuma_cost from its definition; the vmas rows named as the
#     process's /proc/PID/maps while it lived.
# The fentry/kprobe metrics are checked in the guests (tests/vm).
source "$(dirname "$0")/lib.sh"

skip_event=/sys/kernel/tracing/events/sched/sched_skip_vma_numa
ensure_tracefs
if [ ! -r /proc/sys/kernel/numa_balancing ]; then
	kind environment
	skip "numascan on the host" "no kernel.numa_balancing (CONFIG_NUMA_BALANCING off)"
	finish
	exit
fi
old_balancing=$(cat /proc/sys/kernel/numa_balancing)
echo 1 >/proc/sys/kernel/numa_balancing
at_exit "echo $old_balancing >/proc/sys/kernel/numa_balancing"

MT="$BUILD/workloads/memtouch -t 4 -m 128 -s 4"

# 1. Skip reasons against bpftrace (a classic tracepoint program, its own
# reading of the record's reason), both restricted to memtouch's threads:
# every numa_vma_skips_<reason> the tool prints (numa_vma_skips_unsuitable,
# numa_vma_skips_shared_ro, numa_vma_skips_inaccessible,
# numa_vma_skips_scan_delay, numa_vma_skips_pid_inactive,
# numa_vma_skips_ignore_pid, numa_vma_skips_seq_completed) equals
# bpftrace's count of that reason, 0 where it saw none.
kind "ground truth"
if [ ! -d "$skip_event" ]; then
	skip "numascan numa_vma_skips by reason = bpftrace's count" "no sched_skip_vma_numa before 6.7"
else
	bpftrace -e 'tracepoint:sched:sched_skip_vma_numa /comm == "memtouch"/ { @skips[args->reason] = count(); }' \
		>"$WORK/bt.out" 2>"$WORK/bt.err" &
	bt=$!
	at_exit "kill $bt"
	for _ in $(seq 1 300); do
		grep -q Attaching "$WORK/bt.out" && break
		sleep 0.1
	done
	if start_tool "$WORK/skips.jsonl" "$WORK/skips.err" numascan --json --comm memtouch -i 1; then
		$MT >"$WORK/mt.out" 2>&1 &
		mt=$!
		for _ in $(seq 1 100); do
			grep -q 'first-touch' "$WORK/mt.out" && break
			sleep 0.05
		done
		mt_pid=$(awk '/memtouch pid/ { print $3 }' "$WORK/mt.out")
		cat "/proc/$mt_pid/maps" >"$WORK/mt.maps" 2>/dev/null
		wait $mt
	fi
	stop_tool
	stop_bpftrace $bt
	# The reasons' names from the event's format (__print_symbolic).
	names=$(grep -o '{ [0-9]*, "[a-z_]*" }' "$skip_event/format" | tr -d '{}",' |
		awk '{ printf "%s=%s ", $1, $2 }')
	verdict=$(awk -v names="$names" -v tool="$(jq -r 'select(.type == "summary") | .metrics | to_entries[] | select(.key | startswith("numa_vma_skips_")) | "\(.key)=\(.value.value)"' "$WORK/skips.jsonl" | tr '\n' ' ')" '
		BEGIN { n = split(names, a, " "); for (i = 1; i <= n; i++) { split(a[i], kv, "="); name[kv[1]] = kv[2] }
			n = split(tool, b, " "); for (i = 1; i <= n; i++) { split(b[i], kv, "="); t[kv[1]] = kv[2] } }
		/^@skips\[/ { r = $1; gsub(/[^0-9]/, "", r); c = $2
			key = "numa_vma_skips_" name[r]
			# the tool names ignore_pid_inactive ignore_pid
			if (name[r] == "ignore_pid_inactive") key = "numa_vma_skips_ignore_pid"
			bt[key] += c; total += c }
		END { for (k in t) if (k != "numa_vma_skips_other" && t[k] != (k in bt ? bt[k] : 0)) { bad = bad k " tool " t[k] " bpftrace " (k in bt ? bt[k] : 0) "; " }
			  for (k in bt) if (!(k in t)) bad = bad k " not in the tool; "
			  printf "%s|%d|", bad == "" ? "ok" : bad, total
			  for (k in bt) printf "%s=%d ", substr(k, 16), bt[k] }' "$WORK/bt.out")
	if [ "$status" = 0 ] && [ "${verdict%%|*}" = ok ] && [ "$(echo "$verdict" | cut -d'|' -f2)" -gt 0 ]; then
		pass "numascan numa_vma_skips by reason = bpftrace's sched_skip_vma_numa count for memtouch ($(echo "$verdict" | cut -d'|' -f3))"
	else
		fail "numascan numa_vma_skips by reason = bpftrace's count" "exit $status: $verdict; $(head -c 300 "$WORK/skips.err")"
	fi
	total=$(metric "$WORK/skips.jsonl" numa_vma_skips)
	kind consistency
	check "numascan numa_vma_skips ($total) = the sum of its reasons" \
		[ "$total" = "$(jq 'select(.type == "summary") | [.metrics | to_entries[] | select(.key | startswith("numa_vma_skips_")) | .value.value] | add' "$WORK/skips.jsonl")" ]
	# VMA names: memtouch has exited by the summary; its rows keep the
	# names its maps gave while it lived.
	kind "known answer"
	rows=$(jq -r --argjson p "${mt_pid:-0}" 'select(.type == "summary") | .vmas.rows[]? | select(.tgid == $p) | "\(.start) \(.name)"' "$WORK/skips.jsonl")
	bad=$(echo "$rows" | awk -v maps="$WORK/mt.maps" '
		function hex(s,    i, v) { v = 0; s = tolower(s)
			for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v }
		BEGIN { while ((getline line < maps) > 0) {
				split(line, f, " "); split(f[1], r, "-")
				name = line; sub(/^[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ */, "", name)
				m++; lo[m] = hex(r[1]); hi[m] = hex(r[2]); nm[m] = name == "" ? "[anon]" : name } }
		NF >= 2 { want = "?"; for (k = 1; k <= m; k++) if (lo[k] <= $1 && $1 < hi[k]) { want = nm[k]; break }
			  name = $0; sub(/^[0-9]+ /, "", name)
			  if (name != want) printf "%x=%s (maps: %s) ", $1, name, want }')
	nrows=$(echo "$rows" | grep -c .)
	if [ -s "$WORK/mt.maps" ] && [ "$nrows" -gt 0 ] && [ -z "$bad" ]; then
		pass "numascan vmas rows of memtouch named as its /proc/PID/maps after it exited ($nrows rows: $(echo "$rows" | awk '{ print $2 }' | sed 's|.*/||' | sort | uniq -c | tr -s ' \n' ' '))"
	else
		fail "numascan vmas rows named as /proc/PID/maps" "$nrows rows; wrong: ${bad:-none}; maps $(wc -l <"$WORK/mt.maps") lines"
	fi
fi

# 2. The vmstat deltas against /proc/vmstat read between window cuts: the
# interval between the two reads counts no more than the kernel's delta,
# the intervals around them no less (kstat -c, docs/metrics.md).
kind consistency
KSTAT=$BUILD/workloads/kstat
if start_tool "$WORK/vm.jsonl" "$WORK/vm.err" numascan --json -i 600; then
	# (this host has no /proc/schedstat: kstat says so and reads the rest)
	"$KSTAT" -c "$tool,$WORK/vm.jsonl" >"$WORK/kstat.a" 2>"$WORK/kstat.err" &&
		$MT >"$WORK/mt2.out" 2>&1 &&
		"$KSTAT" -c "$tool,$WORK/vm.jsonl" >"$WORK/kstat.b" 2>>"$WORK/kstat.err"
	cuts=$?
fi
stop_tool
for name in numa_hint_faults numa_hint_faults_local numa_pte_updates numa_pages_migrated; do
	a=$(awk -v k="vmstat_$name" '$1 == k { print $2 }' "$WORK/kstat.a")
	b=$(awk -v k="vmstat_$name" '$1 == k { print $2 }' "$WORK/kstat.b")
	# inner: the intervals between the reads; outer: every interval that
	# overlaps the span from the first read's start to the second's end.
	ab=$(awk '$1 == "realtime_before" { print $2 }' "$WORK/kstat.a")
	aa=$(awk '$1 == "realtime_after" { print $2 }' "$WORK/kstat.a")
	bb=$(awk '$1 == "realtime_before" { print $2 }' "$WORK/kstat.b")
	ba=$(awk '$1 == "realtime_after" { print $2 }' "$WORK/kstat.b")
	read -r inner outer < <(jq -r --arg m "vmstat_$name" --argjson ab "${ab:-0}" \
		--argjson aa "${aa:-0}" --argjson bb "${bb:-0}" --argjson ba "${ba:-0}" -s '
		[.[] | select(.type == "interval")] as $iv
		| ([$iv[] | select(.start >= $aa and .end <= $bb) | .metrics[$m].value] | add // 0) as $in
		| ([$iv[] | select(.end > $ab and .start < $ba) | .metrics[$m].value] | add // 0) as $out
		| "\($in) \($out)"' "$WORK/vm.jsonl")
	delta=$(( ${b:-0} - ${a:-0} ))
	if [ "${cuts:-1}" = 0 ] && [ "$status" = 0 ] && [ -n "$a" ] && [ "$inner" -le "$delta" ] &&
		[ "$delta" -le "$outer" ] && { [ "$name" = numa_pages_migrated ] || [ "$inner" -gt 0 ]; }; then
		pass "numascan vmstat_$name within the kernel's delta between cuts ($inner <= $delta <= $outer)"
	else
		fail "numascan vmstat_$name within the kernel's delta between cuts" \
			"cuts $cuts, exit $status: inner $inner, kernel $delta, outer $outer; $(head -c 200 "$WORK/kstat.err")"
	fi
done

# Every record against docs/json.md's schema; each table's rows add up to
# the scalar of the same name, the intervals to the summary. The tool's
# own page faults after it stopped counting once went into its processes
# row, which its faults while printing an interval had made: 1 s with
# 0.5 s intervals gave user_page_faults rows 4 above the scalar, 5 runs
# in 5 (a row of bank 0 is bank 2's slot).
json_valid "numascan --json cut by kstat: valid records, rows adding up to the scalars, intervals to the summary" \
	"$WORK/vm.jsonl"
"$BIN/numascan" --json -i 0.5 -d 1 >"$WORK/short.jsonl" 2>"$WORK/short.err"
status=$?
if [ $status = 0 ]; then
	json_valid "numascan --json -i 0.5 -d 1 (the tool's own faults between windows): valid records, rows adding up to the scalars, intervals to the summary" \
		"$WORK/short.jsonl" --expect-intervals 2
else
	fail "numascan --json -i 0.5 -d 1: valid records" "exit $status: $(head -c 200 "$WORK/short.err")"
fi

# 3. The tracepoint tier's per-task estimate: what each task's own
# numa_faults_locality[] grew by, read at its faults and switches, summed over the
# windows between the two cuts, against /proc/vmstat's numa_hint_faults
# delta over them (memtouch's pages are 4 KiB: a page a fault). The
# estimate can only lose (faults from kernel mode across the kernel's
# reset of the array), never gain but for other tasks' counts that lagged
# into the window: at most 5% less, 1% + 20 more. memtouch's own row holds
# nearly all of it.
kind "ground truth"
a=$(awk '$1 == "vmstat_numa_hint_faults" { print $2 }' "$WORK/kstat.a")
b=$(awk '$1 == "vmstat_numa_hint_faults" { print $2 }' "$WORK/kstat.b")
aa=$(awk '$1 == "realtime_after" { print $2 }' "$WORK/kstat.a")
bb=$(awk '$1 == "realtime_before" { print $2 }' "$WORK/kstat.b")
read -r est tier estimated < <(jq -r --argjson aa "${aa:-0}" --argjson bb "${bb:-0}" -s '
	[.[] | select(.type == "interval" and .start >= $aa and .end <= $bb)] as $iv
	| "\([$iv[] | .metrics.numa_hint_fault_pages.value] | add // 0) \($iv[0].metrics.numa_hint_fault_pages.tier) \($iv[0].metrics.numa_hint_fault_pages.estimated)"' "$WORK/vm.jsonl")
delta=$(( ${b:-0} - ${a:-0} ))
if [ "${cuts:-1}" = 0 ] && [ "$delta" -gt 1000 ] && [ "$estimated" = true ] &&
	[ $((est * 100)) -ge $((delta * 95)) ] && [ $((est * 100)) -le $((delta * 101 + 2000)) ]; then
	pass "numascan numa_hint_fault_pages (estimated, $tier: tasks' numa_faults_locality at their faults and switches) within 5% below the kernel's numa_hint_faults ($est for $delta, $(awk -v e="$est" -v d="$delta" 'BEGIN { printf "%.2f", 100 * (e - d) / d }')%)"
else
	fail "numascan numa_hint_fault_pages (estimated) within 5% below the kernel's numa_hint_faults" \
		"cuts ${cuts:-?}: tool $est ($tier, estimated $estimated), kernel $delta"
fi
kind "known answer"
mt2_pid=$(awk '/memtouch pid/ { print $3 }' "$WORK/mt2.out")
row=$(jq -r --argjson p "${mt2_pid:-0}" -s '[.[] | select(.type == "interval") | .processes.rows[]? | select(.tgid == $p) | .numa_hint_fault_pages] | add // 0' "$WORK/vm.jsonl")
total=$(jq -r -s '[.[] | select(.type == "interval") | .metrics.numa_hint_fault_pages.value] | add // 0' "$WORK/vm.jsonl")
if [ "${total:-0}" -gt 0 ] && [ $(( ${row:-0} * 100 )) -ge $(( ${total:-0} * 95 )) ]; then
	pass "numascan processes: memtouch's row holds at least 95% of numa_hint_fault_pages ($row of $total)"
else
	fail "numascan processes: memtouch's row holds at least 95% of numa_hint_fault_pages" "row '$row' of '$total'"
fi

cost=$(metric "$WORK/vm.jsonl" vmstat_autonuma_cost)
want=$(jq -r 'select(.type == "summary") | .metrics as $m
	| 7 * $m.vmstat_numa_pte_updates.value + 5000 * $m.vmstat_numa_hint_faults.value
	  + 538 * $m.vmstat_numa_pages_migrated.value' "$WORK/vm.jsonl")
check "numascan vmstat_autonuma_cost $cost = 7 pte + 5000 hint + 538 migrated ($want)" [ "$cost" = "$want" ]
pct=$(metric "$WORK/vm.jsonl" vmstat_numa_hint_local_pct)
want=$(jq -r 'select(.type == "summary") | .metrics as $m
	| 100 * $m.vmstat_numa_hint_faults_local.value / $m.vmstat_numa_hint_faults.value' "$WORK/vm.jsonl")
check "numascan vmstat_numa_hint_local_pct $pct = 100 local / hint faults ($want)" within "$pct" "$want" 0 0.01

finish
