#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# --compare on the host: runs of the same workload compare as no
# significant change; a changed workload (the ping-pong beside two
# spinners on its CPU) is a significant fall of the wakeup rate; files
# that cannot be compared are refused with a sentence and exit 2. The
# output fits 80 columns and its JSON parses.
source "$(dirname "$0")/lib.sh"

PINGPONG=$BUILD/workloads/pingpong

# record FILE PINGPONG-ARGS...: 2 s of sisscan --json around a ping-pong,
# both its ends on CPU 0: free to move, its rate swung between runs with
# where the two ends met (a third apart, +-36-46% over four runs once).
record() {
	local out=$1
	shift
	start_tool "$WORK/$out" "$WORK/$out.err" sisscan --json -d 2
	taskset -c 0 "$PINGPONG" "$@" >/dev/null 2>&1 &
	local pp=$!
	wait $tool
	kill $pp 2>/dev/null
	wait $pp 2>/dev/null
}

# Three kinds of run, interleaved (A B busy, A B busy, ...) so that a
# drift of the host's state over the test is no difference between them,
# after one run thrown away: the first ping-pong after a quiet spell ran
# at two thirds of the rate of the next five (490k against 705-780k
# wakeups).
# A and B: the ping-pong alone, four runs each, no significant change.
# busy: the same ping-pong beside two CPU-bound spinners on its CPU: it
# gets a share of CPU 0 and its wakeups fall, run after run; six runs
# against the eight alone, as its spread is the larger (Welch's degrees of
# freedom follow the noisier side). Unpinned, beside a spinner on every
# CPU, it fell by 43-47% with Holm p 7e-8 to 6e-5, but 0.07 once when the
# A runs spread +-36-46% on a noisy host.
SPINNER=$BUILD/workloads/spinner
record warmup.jsonl -n 1000000
for i in 1 2 3 4 5 6; do
	if [ $i -le 4 ]; then
		record "same.a$i.jsonl" -n 1000000
		record "same.b$i.jsonl" -n 1000000
	fi
	spinners=""
	for c in 0 0; do
		"$SPINNER" -c "$c" -s 30 >/dev/null 2>&1 &
		spinners="$spinners $!"
	done
	record "busy.b$i.jsonl" -n 1000000
	kill $spinners 2>/dev/null
	wait $spinners 2>/dev/null
done

kind consistency
"$BIN/sisscan" --compare "$WORK"/same.a{1,2,3,4}.jsonl -- "$WORK"/same.b{1,2,3,4}.jsonl \
	>"$WORK/same.txt" 2>"$WORK/same.err"
status=$?
marked=$(grep -c '\*changed\*\| \*$' "$WORK/same.txt")
if [ $status -eq 0 ] && grep -q '^wakeups ' "$WORK/same.txt" && [ "$marked" = 0 ]; then
	pass "sisscan --compare: four runs of one ping-pong against four more: no significant change ($(grep -m1 '^wakeups ' "$WORK/same.txt" | tr -s ' '))"
else
	fail "sisscan --compare: the same workload: no significant change" \
		"exit $status, $marked marked: $(grep '\*changed\*\| \*$' "$WORK/same.txt" | head -5 | tr -s ' ' | tr '\n' ';') $(head -c 200 "$WORK/same.err")"
fi

kind "known answer"
"$BIN/sisscan" --json --compare "$WORK"/same.[ab]?.jsonl -- "$WORK"/busy.b{1,2,3,4,5,6}.jsonl \
	>"$WORK/busy.json" 2>"$WORK/busy.err"
status=$?
read -r sig change p < <(jq -r '.metrics.wakeups | "\(.significant) \(.change_pct) \(.p_adjusted)"' "$WORK/busy.json" 2>/dev/null)
if [ $status -eq 0 ] && [ "$sig" = true ] && awk -v c="$change" 'BEGIN { exit !(c <= -20) }'; then
	pass "sisscan --compare: the ping-pong beside two spinners on its CPU (B, 6 runs) against alone (A, 8 runs): wakeups per second a significant fall of ${change}% (Holm p $p; at least 20%)"
else
	fail "sisscan --compare: a ping-pong beside spinners: a significant fall of wakeups" \
		"exit $status, significant '$sig', change '$change'%, Holm p '$p'"
fi

kind behaviour
"$BIN/sisscan" --compare "$WORK"/same.[ab]?.jsonl -- "$WORK"/busy.b{1,2,3,4,5,6}.jsonl \
	>"$WORK/busy.txt" 2>&1
wide=$(awk 'length > 80' "$WORK/busy.txt" | wc -l)
check "sisscan --compare text fits 80 columns ($(wc -l <"$WORK/busy.txt") lines, $wide wider)" [ "$wide" = 0 ]
check "sisscan --json --compare prints one JSON record of type compare" \
	[ "$(jq -r .type "$WORK/busy.json" 2>/dev/null)" = compare ]

# Refusals: exit 2 and a sentence naming the file.
"$BIN/idlebal" --json -d 1 >"$WORK/idlebal.jsonl" 2>/dev/null
printf 'not json\n' >"$WORK/text.jsonl"
head -n 1 "$WORK/same.a1.jsonl" | grep -v '"summary"' >"$WORK/nosummary.jsonl"
"$BIN/sisscan" --mode tracepoint --filter ideal --json -d 1 >"$WORK/filter.jsonl" 2>/dev/null
refuse() {  # refuse DESC SENTENCE ARGS...
	local desc=$1 sentence=$2
	shift 2
	"$BIN/sisscan" --compare "$@" >"$WORK/refuse.out" 2>"$WORK/refuse.err"
	local st=$?
	if [ $st -eq 2 ] && grep -q -- "$sentence" "$WORK/refuse.err" && [ ! -s "$WORK/refuse.out" ]; then
		pass "sisscan --compare $desc: exit 2, '$(head -n 1 "$WORK/refuse.err" | cut -c 1-100)'"
	else
		fail "sisscan --compare $desc: refused with exit 2" "exit $st: $(head -c 200 "$WORK/refuse.err")"
	fi
}
refuse "of idlebal output" "is idlebal output: sisscan compares runs of sisscan only" \
	"$WORK/same.a1.jsonl" -- "$WORK/idlebal.jsonl"
refuse "of a text file" "is not schedscan output: line 1: invalid JSON" \
	"$WORK/same.a1.jsonl" -- "$WORK/text.jsonl"
refuse "of a run without its summary" "has no summary record" \
	"$WORK/same.a1.jsonl" -- "$WORK/nosummary.jsonl"
refuse "of runs with other metrics (--filter)" "measured different metrics" \
	"$WORK/same.a1.jsonl" -- "$WORK/filter.jsonl"
refuse "without --" "needs A runs, then --, then B runs" "$WORK/same.a1.jsonl"
finish
