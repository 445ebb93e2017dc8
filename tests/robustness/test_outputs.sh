#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Outputs under stress: every write error is a sentence and a non-zero
# exit (stdout full or closed, text and JSON, each tool; --events on a
# full disk), a reader that goes away ends the tool without leaving
# anything attached, and the --events stream agrees with the counters:
# each record is inside the reported window and counted, and the summary's
# tables add up to its scalars (issue 10, defects 2, 3 and 7).
source "$(dirname "$0")/../live/lib.sh"

links() { bpftool link show 2>/dev/null | grep -c '^[0-9]*:'; }
jq_true() { jq -e "$@" >/dev/null; }
progs_before=$(bpf_prog_count)
links_before=$(links)

for tool in $TOOLS; do
	for form in text json; do
		args=(-d 0.3)
		[ $form = json ] && args+=(--json)
		"$BIN/$tool" "${args[@]}" >/dev/full 2>"$WORK/err"
		full=$?
		"$BIN/$tool" "${args[@]}" >&- 2>"$WORK/err2"
		closed=$?
		if [ $full -eq 1 ] && grep -q "^$tool: writing the report failed: No space left on device" "$WORK/err" &&
			[ $closed -eq 1 ] && grep -q "^$tool: writing the report failed: Bad file descriptor" "$WORK/err2"; then
			pass "$tool $form: stdout full -> exit 1 'No space left on device'; closed -> exit 1 'Bad file descriptor'"
		else
			fail "$tool $form: write errors are reported" "full: $full $(head -c 200 "$WORK/err"); closed: $closed $(head -c 200 "$WORK/err2")"
		fi
	done
done

# A reader that stops reading: the pipe closes, the tool ends (SIGPIPE or
# EPIPE), the reader got whole lines.
for tool in $TOOLS; do
	"$BIN/$tool" --json -i 0.1 -d 30 2>"$WORK/err" | head -n 1 >"$WORK/first"
	statuses=("${PIPESTATUS[@]}")
	if jq -e '.type == "interval"' "$WORK/first" >/dev/null && [ "${statuses[0]}" -ne 0 ]; then
		pass "$tool --json | head -1: one whole record, the tool ends (status ${statuses[0]})"
	else
		fail "$tool --json | head -1" "status ${statuses[*]}: $(head -c 200 "$WORK/first") $(head -c 200 "$WORK/err")"
	fi
done

# A reader that stops reading without going away (a pager left alone):
# once the pipe is full the tool blocks writing, and SIGINT must still end
# it, saying why nothing more was written.
for tool in $TOOLS; do
	for form in --json -T; do
		mkfifo "$WORK/stall"
		sleep 20 <"$WORK/stall" &
		reader=$!
		"$BIN/$tool" $form -i 0.01 >"$WORK/stall" 2>"$WORK/err" &
		pid=$!
		# until the 64 KiB pipe is full: the tool sleeps in pipe_write
		for ((i = 0; i < 100; i++)); do
			grep -q pipe_write /proc/$pid/wchan 2>/dev/null && break
			sleep 0.1
		done
		blocked=$(cat /proc/$pid/wchan 2>/dev/null)
		kill -INT $pid
		for ((i = 0; i < 30; i++)); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
		if kill -0 $pid 2>/dev/null; then
			fail "$tool $form to a reader that stopped: SIGINT ends it" "still running 3 s after SIGINT (blocked in $blocked)"
			kill -KILL $pid
		else
			wait $pid
			status=$?
			said=$(grep -c "^$tool: the report was not written: stdout was not being read when the signal came\$" "$WORK/err")
			check "$tool $form to a reader that stopped (blocked in $blocked): SIGINT ends it, exit $status, '$(cut -c 1-60 "$WORK/err")...'" \
				[ $status -eq 1 -a "$said" -eq 1 ]
		fi
		kill $reader 2>/dev/null
		wait $reader 2>/dev/null
		rm -f "$WORK/stall"
	done
done

"$BUILD/workloads/pingpong" -n 100000000 >/dev/null &
load=$!
at_exit "kill $load"

# --events on a full disk (a small tmpfs, filled; a device such as
# /dev/full is refused as a path): exit 1, the sentence counts what was lost.
mkdir -p "$WORK/full"
mount -t tmpfs -o size=64k tmpfs "$WORK/full" && at_exit "umount $WORK/full"
dd if=/dev/zero of="$WORK/full/filler" bs=4k 2>/dev/null
"$BIN/sisscan" --filter ideal --events "$WORK/full/events.jsonl" --json -d 0.5 >"$WORK/out" 2>"$WORK/err"
status=$?
lost=$(sed -n -E 's/.*failed: No space left on device \(([0-9]+) records lost, 0 written\)$/\1/p' "$WORK/err")
dropped=$(metric "$WORK/out" events_dropped)
if [ $status -eq 1 ] && [ -n "$lost" ] && [ "$lost" -gt 0 ]; then
	pass "--events on a full file system: exit 1, '$(cut -c 1-100 "$WORK/err")'"
else
	fail "--events on a full file system: exit 1 with the count" "status $status: $(head -c 300 "$WORK/err")"
fi
check "--events on a full file system: the summary counts the $lost lost records in events_dropped ($dropped), events 0" \
	[ "$dropped" = "$lost" -a "$(metric "$WORK/out" events)" = 0 ]

# events_agree FILE EVENTS DESC: the stream and the counters describe the
# same wakeups, inside the window.
events_agree() {
	local out=$1 events=$2 desc=$3 lines summary
	lines=$(wc -l <"$events")
	summary=$(jq -c 'select(.type == "summary") | {
		events: .metrics.events.value, dropped: .metrics.events_dropped.value,
		audits: .metrics.audits.value, search: .metrics.sis_search.value,
		placements: .metrics.placements.value,
		rows_search: ([.breakdown.rows[].sis_search] | add),
		rows_placements: ([.breakdown.rows[].placements] | add),
		proc_placements: ([.processes.rows[].placements] | add),
		proc_dropped: .processes.rows_dropped, duration_ns: (.duration_s * 1e9)}' "$out")
	jq -e --argjson n "$lines" '.events == $n and .events + .dropped == .audits and
		.events == .search and .rows_search == .search and
		.rows_placements == .placements and
		(.proc_placements + (if .proc_dropped > 0 then 1e18 else 0 end)) >= .placements and
		.proc_placements == .placements' <<<"$summary" >/dev/null
	local counts_ok=$?
	# Every record was emitted after the state it needs was learnt (no
	# empty LLC) and inside the window: their span fits its duration.
	local span
	span=$(jq -s 'if length == 0 then 0 else (map(.ts_ns) | max - min) end' "$events")
	local empty
	empty=$(jq -s 'map(select(.llc_cpus == 0 or (.allowed | length) == 0)) | length' "$events")
	if [ $counts_ok -eq 0 ] && [ "$empty" -eq 0 ] &&
		awk -v s="$span" -v d="$(jq -r .duration_ns <<<"$summary")" 'BEGIN { exit !(s <= d) }'; then
		pass "$desc: $lines records = events, + events_dropped = audits = sis_search = the LLC rows = the process rows; none empty; span ${span} ns inside the window [consistency]"
	else
		fail "$desc: the stream and the counters agree [consistency]" "lines $lines, empty $empty, span $span; $summary"
	fi
}
"$BIN/sisscan" --filter ideal,overloaded -P --events "$WORK/ev1.jsonl" --json -d 2 >"$WORK/ev1.out" 2>"$WORK/err"
events_agree "$WORK/ev1.out" "$WORK/ev1.jsonl" "--events -d 2 under a ping-pong"
"$BIN/sisscan" --filter ideal,overloaded -P --events "$WORK/ev2.jsonl" --json -i 0.2 -d 2 >"$WORK/ev2.out" 2>"$WORK/err"
events_agree "$WORK/ev2.out" "$WORK/ev2.jsonl" "--events -i 0.2 -d 2 under a ping-pong"
check "--events -i 0.2: the intervals' events add up to the lines" \
	[ "$(jq -s '[.[] | select(.type == "interval") | .metrics.events.value] | add' "$WORK/ev2.out")" -eq "$(wc -l <"$WORK/ev2.jsonl")" ]

# --events-max: the file stops at the limit; the rest is counted.
limit=20000
"$BIN/sisscan" --filter ideal --events "$WORK/ev3.jsonl" --events-max $limit -d 1 >"$WORK/ev3.txt" 2>"$WORK/err"
status=$?
size=$(stat -c %s "$WORK/ev3.jsonl")
check "--events-max $limit: exit 0, the file holds $size bytes, not more" [ $status -eq 0 -a "$size" -le $limit ]
# (the banner wraps at 80 columns: joined first)
check "--events-max: the banner says where records go and the limit" \
	grep -q "Writing each audited wakeup to $WORK/ev3.jsonl (at most $limit bytes;" <(tr '\n' ' ' <"$WORK/ev3.txt" | tr -s ' ')
check "--events-max: stderr says how many records the limit kept out" \
	grep -q "^sisscan: $WORK/ev3.jsonl reached its --events-max of $limit bytes: [1-9][0-9]* records were counted in events_dropped, not written$" "$WORK/err"
"$BIN/sisscan" --filter ideal -P --events "$WORK/ev4.jsonl" --events-max $limit --json -d 1 >"$WORK/ev4.out" 2>"$WORK/err"
over=$(sed -n -E 's/.*: ([0-9]+) records were counted in events_dropped.*/\1/p' "$WORK/err")
check "--events-max: events = the $(wc -l <"$WORK/ev4.jsonl") lines, events_dropped = the $over kept out, the sum = audits [consistency]" \
	jq_true --argjson n "$(wc -l <"$WORK/ev4.jsonl")" --argjson o "${over:-0}" \
	'select(.type == "summary") | .metrics.events.value == $n and .metrics.events_dropped.value == $o and
	 $n + $o == .metrics.audits.value and $o > 0' "$WORK/ev4.out"
check "the default banner names the 256 MiB limit" \
	grep -q "(at most 256 MiB;" <("$BIN/sisscan" --filter ideal --events "$WORK/ev5.jsonl" -d 0.2 | tr '\n' ' ' | tr -s ' ')

sleep 0.5
check "nothing left attached ($progs_before programs, $links_before links before)" \
	[ "$(bpf_prog_count)" -eq "$progs_before" -a "$(links)" -eq "$links_before" ]
finish
