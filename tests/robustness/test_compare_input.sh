#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# --compare on what a hostile or careless user hands it (issue 32, items 4
# and 8), for each tool: /dev/zero (a run once grew to 23.5 GB and was
# OOM-killed), a FIFO, a directory, a file past the size bound, a line
# past the line bound, and the tool's own run with one value made what
# the tools never write (negative, a string, 1e308, another tier,
# a histogram bucket twice, a negative bucket count; each was compared,
# exit 0, into numbers like -0.6994 and 9.992e+294T). Each must exit 2
# with one sentence naming the file (and the line and field of a record),
# print nothing on stdout, and stay within time and memory; the tool's
# own runs must still compare, exit 0.
source "$(dirname "$0")/../live/lib.sh"

# The bounds, as lib/compare.h sets them.
bound() { sed -n "s/^#define $1 \([0-9]*\)$/\1/p" "$ROOT/lib/compare.h"; }
max_file_mib=$(bound COMPARE_MAX_FILE_MIB)
max_line_mib=$(bound COMPARE_MAX_LINE_MIB)
if [ -z "$max_file_mib" ] || [ -z "$max_line_mib" ]; then
	fail "lib/compare.h sets COMPARE_MAX_FILE_MIB and COMPARE_MAX_LINE_MIB" \
		"read '$max_file_mib' and '$max_line_mib'"
	finish
	exit
fi
MIB=$((1024 * 1024))

mkfifo "$WORK/fifo"
mkdir "$WORK/dir"
# Sparse: the test writes a block, not a gigabyte.
printf '{"type":"summary","tool":"sisscan"' >"$WORK/huge.jsonl"
truncate -s $((max_file_mib * MIB + 1)) "$WORK/huge.jsonl"
printf '{"type":"summary","x":"' >"$WORK/long.jsonl"
truncate -s $((max_line_mib * MIB + 1)) "$WORK/long.jsonl"

# compare TOOL ARGS...: TOOL --compare ARGS, its output in $WORK/out and
# $WORK/err, its status in status; 30 s and 4 GB at most, so that the
# code before the fix (which read /dev/zero until OOM and waited on a
# FIFO for a writer) fails the check instead of the host.
compare() {
	local tool=$1
	shift
	(ulimit -v $((4 * 1024 * 1024)) && exec timeout -k 5 30 "$BIN/$tool" --compare "$@") \
		>"$WORK/out" 2>"$WORK/err"
	status=$?
}

# refused DESC REGEX TOOL ARGS...: exit 2, stderr one line "TOOL:
# --compare: ..." matching REGEX (grep -E), nothing on stdout.
refused() {
	local desc=$1 regex=$2 tool=$3
	shift 3
	compare "$tool" "$@"
	if [ $status -eq 2 ] && [ "$(wc -l <"$WORK/err")" -eq 1 ] &&
		grep -q -E -- "^$tool: --compare: $regex" "$WORK/err" && [ ! -s "$WORK/out" ]; then
		pass "$tool --compare $desc: exit 2, '$(cut -c 1-150 "$WORK/err")'"
	else
		fail "$tool --compare $desc: exit 2, one sentence, nothing on stdout" \
			"exit $status, $(wc -l <"$WORK/err") lines on stderr, $(wc -c <"$WORK/out") bytes on stdout: $(head -c 300 "$WORK/err" | tr '\n' ' ')"
	fi
}

# craft TOOL NAME JQ [ARGS...]: the tool's B run with its summary record
# changed by JQ (given the metric names $counter and $hist), in
# $WORK/TOOL.NAME.jsonl.
craft() {
	local tool=$1 name=$2 filter=$3
	shift 3
	jq -c --arg counter "$counter" --arg hist "$hist" "$@" \
		"if .type == \"summary\" then $filter else . end" \
		"$WORK/$tool.b.jsonl" >"$WORK/$tool.$name.jsonl"
}

for tool in $TOOLS; do
	# A and B: the tool's own runs, one with intervals (their records are
	# read and checked as much as the summary's).
	"$BIN/$tool" --json -d 0.5 >"$WORK/$tool.a.jsonl" 2>"$WORK/$tool.a.err"
	st_a=$?
	"$BIN/$tool" --json -i 0.2 -d 0.5 >"$WORK/$tool.b.jsonl" 2>"$WORK/$tool.b.err"
	st_b=$?
	if [ $st_a -ne 0 ] || [ $st_b -ne 0 ]; then
		fail "$tool --json runs to compare" "exit $st_a and $st_b: $(head -c 200 "$WORK/$tool.a.err")"
		continue
	fi
	a=$WORK/$tool.a.jsonl
	line=$(grep -n '"type":"summary"' "$WORK/$tool.b.jsonl" | cut -d: -f1)

	compare "$tool" "$a" -- "$WORK/$tool.b.jsonl"
	if [ $status -eq 0 ] && [ -s "$WORK/out" ] && [ ! -s "$WORK/err" ]; then
		pass "$tool --compare of two of its own runs: exit 0, $(wc -l <"$WORK/out") lines"
	else
		fail "$tool --compare of two of its own runs: exit 0" "exit $status: $(head -c 300 "$WORK/err")"
	fi

	refused "/dev/zero" "/dev/zero is not a regular file" "$tool" "$a" -- /dev/zero
	refused "a FIFO (no writer)" "$WORK/fifo is not a regular file" "$tool" "$WORK/fifo" -- "$a"
	refused "a directory" "$WORK/dir is not a regular file" "$tool" "$a" -- "$WORK/dir"
	refused "a file of $max_file_mib MiB + 1 byte" \
		"$WORK/huge.jsonl is larger than $max_file_mib MiB, the most --compare reads" \
		"$tool" "$a" -- "$WORK/huge.jsonl"
	refused "a line of $max_line_mib MiB + 1 byte" \
		"$WORK/long.jsonl line 1 is longer than $max_line_mib MiB" "$tool" "$a" -- "$WORK/long.jsonl"

	# A counter and a histogram of the run (numascan has no histogram on a
	# kernel without its fentry/kprobe tiers: one is added to the crafted
	# files, whose buckets are refused before the metric sets are matched).
	counter=$(jq -r 'select(.type == "summary") | .metrics | to_entries |
		map(select(.value.value != null and .value.unit == null)) | .[0].key // ""' "$a")
	hist=$(jq -r 'select(.type == "summary") | .metrics | to_entries |
		map(select(.value.hist != null)) | .[0].key // "crafted_depth"' "$a")
	if [ -z "$counter" ]; then
		fail "$tool: its run has a counter to craft records from" "none in $a"
		continue
	fi
	# jq's own $counter and $hist, in single quotes (craft passes them).
	# shellcheck disable=SC2016
	with_hist='.metrics[$hist] //= {"hist": {"kind": "log2", "unit": "cpus", "count": 1,
		"p50": 0, "p90": 0, "p99": 0, "max": 0, "buckets": []}, "tier": "tp_btf", "estimated": false}'
	craft "$tool" negative '.metrics[$counter].value = -5'
	craft "$tool" string '.metrics[$counter].value = "5"'
	craft "$tool" huge_value '.metrics[$counter].value = 1e308'
	craft "$tool" tier '.metrics[$counter].tier = (if .metrics[$counter].tier == "kprobe" then "fentry" else "kprobe" end)'
	craft "$tool" duplicate_bucket "$with_hist"' | .metrics[$hist].hist.buckets =
		[{"low": 0, "high": 0, "count": 1}, {"low": 0, "high": 0, "count": 1}]'
	craft "$tool" negative_count "$with_hist"' | .metrics[$hist].hist.buckets =
		[{"low": 0, "high": 0, "count": -3}]'
	at="$WORK/$tool\\.[a-z_]+\\.jsonl line $line: metrics\\.$counter"
	refused "of a negative counter" "$at\\.value is -5, not a count" \
		"$tool" "$a" -- "$WORK/$tool.negative.jsonl"
	refused "of a string counter" "$at\\.value is the string \"5\", not a count" \
		"$tool" "$a" -- "$WORK/$tool.string.jsonl"
	refused "of a counter of 1e308" "$at\\.value is 1e\\+308, not a count" \
		"$tool" "$a" -- "$WORK/$tool.huge_value.jsonl"
	refused "of runs of another tier (B against A)" \
		"$at\\.tier is [a-z_]+ where $a line [0-9]+ has [a-z_]+: compare runs of one configuration and kernel tier" \
		"$tool" "$a" -- "$WORK/$tool.tier.jsonl"
	refused "of runs of another tier (within side A)" \
		"$at\\.tier is [a-z_]+ where $a line [0-9]+ has " \
		"$tool" "$a" "$WORK/$tool.tier.jsonl" -- "$a"
	at="$WORK/$tool\\.[a-z_]+\\.jsonl line $line: metrics\\.$hist\\.hist\\.buckets"
	refused "of a histogram bucket listed twice" \
		"$at\\[1\\] starts at 0, not after the previous bucket's end 0" \
		"$tool" "$a" -- "$WORK/$tool.duplicate_bucket.jsonl"
	refused "of a negative bucket count" "$at\\[0\\]\\.count is -3, not a count" \
		"$tool" "$a" -- "$WORK/$tool.negative_count.jsonl"
done
finish
