#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# --svg: the pictures parse as XML, render with a real renderer from
# Debian (rsvg-convert) to a PNG of the size the SVG states, and hold as
# many heatmap cells, lines and bars as the run's own JSON records say.
source "$(dirname "$0")/lib.sh"

PINGPONG=$BUILD/workloads/pingpong

# svg_facts FILE: "width height cells series bars", or nothing if not XML.
svg_facts() {
	python3 - "$1" <<'EOF'
import sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
classes = [e.attrib.get("class") for e in root.iter()]
print(root.attrib["width"], root.attrib["height"], classes.count("cell"),
      classes.count("series"), classes.count("bar"))
EOF
}

# png_size FILE: "width height" of a PNG (its IHDR chunk).
png_size() {
	python3 -c 'import struct, sys
d = open(sys.argv[1], "rb").read(24)
assert d[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
print(*struct.unpack(">II", d[16:24]))' "$1"
}

rendered() {  # rendered SVG: rsvg-convert makes a PNG of the SVG's size
	local svg=$1 w h
	read -r w h _ < <(svg_facts "$svg")
	rsvg-convert -o "${svg%.svg}.png" "$svg" 2>"$WORK/rsvg.err" &&
		[ "$(png_size "${svg%.svg}.png")" = "$w $h" ]
}

# sisscan with two filter audits: a heatmap cell per interval and depth
# bucket of scan_depth and of each filter_<f>_scan_depth (a chart each),
# one missed-idle line, a bar per LLC and counter.
start_tool "$WORK/run.jsonl" "$WORK/run.err" sisscan --json -i 0.5 -d 3 --filter ideal,overloaded \
	--svg "$WORK/run.svg"
"$PINGPONG" -n 1000000 >/dev/null 2>&1 &
pp=$!
wait $tool
status=$?
kill $pp 2>/dev/null
wait $pp 2>/dev/null
# depth_rows: each depth histogram's buckets over the intervals, added up.
read -r intervals depth_rows filter_charts llcs < <(jq -rs '
	[.[] | select(.type == "interval")] as $in |
	[$in[0].metrics | keys[] | select(. == "scan_depth" or test("^filter_.*_scan_depth$"))] as $hists |
	"\($in | length) \([$hists[] as $m | [$in[] | .metrics[$m].hist.buckets[]?.low] | unique | length] | add) \(
	 $hists | length - 1) \([.[] | select(.type == "summary") | .breakdown.rows[]] | length)"' "$WORK/run.jsonl")
read -r w h cells series bars < <(svg_facts "$WORK/run.svg" 2>/dev/null)
titled=$(grep -c 'Scan depth the filter would give, per interval: filter_\(ideal\|overloaded\)_scan_depth' "$WORK/run.svg")
kind consistency
want_cells=$((intervals * depth_rows))
if [ $status -eq 0 ] && [ "${cells:-x}" = "$want_cells" ] && [ "${series:-x}" = 1 ] &&
	[ "${bars:-x}" = $((llcs * 3)) ] && [ "$filter_charts" = 2 ] && [ "$titled" = 2 ]; then
	pass "sisscan --filter ideal,overloaded --svg: $cells heatmap cells = $intervals intervals x $depth_rows depth buckets of scan_depth and the 2 filters' depths in the JSON, 1 line, $bars bars = $llcs LLCs x 3 counters"
else
	fail "sisscan --svg: the picture holds what the records say" \
		"exit $status; cells '$cells' (want $want_cells), lines '$series' (want 1), bars '$bars' (want $((llcs * 3))), filter depth charts '$filter_charts' titled '$titled' (want 2); $(head -c 200 "$WORK/run.err")"
fi
kind behaviour
check "sisscan --svg renders with rsvg-convert to a ${w}x${h} PNG" rendered "$WORK/run.svg"

# idlebal: a line per LLC row of overload_llc, with a point per
# interval, and three outcome bars per domain row (at most 16 rows). Two
# spinners pinned to CPU 1 keep its runqueue overloaded while CPU 0 idles
# (test_idlebal's known answer), so the LLC row is there to draw.
for _ in 1 2; do
	"$BUILD/workloads/spinner" -c 1 -s 60 >/dev/null 2>&1 &
	spinners="${spinners:-} $!"
done
at_exit "kill $spinners"
start_tool "$WORK/idle.jsonl" "$WORK/idle.err" idlebal --json -i 0.5 -d 2 --svg "$WORK/idle.svg"
wait $tool
status=$?
kill $spinners 2>/dev/null
wait $spinners 2>/dev/null
read -r llcs intervals domains < <(jq -rs '[.[] | select(.type == "interval")] as $in |
	"\([$in[] | .overload_llc.rows[]?.llc] | unique | length) \($in | length) \(
	 [.[] | select(.type == "summary") | .domains.rows[]?] | length | if . > 16 then 16 else . end)"' \
	"$WORK/idle.jsonl")
read -r w h cells series bars < <(svg_facts "$WORK/idle.svg" 2>/dev/null)
points=$(python3 - "$WORK/idle.svg" <<'EOF2'
import sys
import xml.etree.ElementTree as ET
for e in ET.parse(sys.argv[1]).getroot().iter():
    if e.attrib.get("class") == "series":
        print(len(e.attrib["points"].split()))
EOF2
)
kind consistency
if [ $status -eq 0 ] && [ "${llcs:-0}" -ge 1 ] && [ "${series:-x}" = "$llcs" ] &&
	[ "$(echo $points | tr ' ' '\n' | sort -u)" = "$intervals" ] &&
	[ "${bars:-x}" = $((domains * 3)) ]; then
	pass "idlebal --svg: $series overloaded-while-idle line(s) = $llcs LLC(s) in the JSON, $intervals points each = $intervals intervals; $bars outcome bars = $domains domain rows x 3"
else
	fail "idlebal --svg: a line per LLC, a point per interval, 3 bars per domain row" \
		"exit $status; lines '$series' for $llcs LLC rows, points '$points' for $intervals intervals, bars '$bars' for $domains domain rows"
fi
kind behaviour
check "idlebal --svg renders with rsvg-convert to a ${w}x${h} PNG" rendered "$WORK/idle.svg"

# numascan: bars per process and per VMA (3 counters each, at most 16
# rows); the node matrices have no row on the tracepoint tier and say so.
start_tool "$WORK/numa.jsonl" "$WORK/numa.err" numascan --json -d 1 --svg "$WORK/numa.svg"
"$BUILD/workloads/memtouch" -t 2 -m 16 -s 0.5 >/dev/null 2>&1
wait $tool
status=$?
read -r procs vmas < <(jq -rs '[.[] | select(.type == "summary")][0] |
	"\([.processes.rows[]?] | length | if . > 16 then 16 else . end) \([.vmas.rows[]?] | length | if . > 16 then 16 else . end)"' "$WORK/numa.jsonl")
read -r w h cells series bars < <(svg_facts "$WORK/numa.svg" 2>/dev/null)
kind consistency
if [ $status -eq 0 ] && [ "${bars:-x}" = $(( (procs + vmas) * 3 )) ] && [ "${cells:-x}" = 0 ] &&
	grep -q "node_pairs: not measured in this run" "$WORK/numa.svg" &&
	grep -q "migration_pairs: not measured in this run" "$WORK/numa.svg"; then
	pass "numascan --svg: $bars bars = ($procs processes + $vmas VMAs) x 3 counters of the JSON; no node matrices on this tier, said in the picture"
else
	fail "numascan --svg: the picture holds what the records say" \
		"exit $status; bars '$bars' for $procs processes and $vmas VMAs, cells '$cells'; $(head -c 200 "$WORK/numa.err")"
fi
kind behaviour
check "numascan --svg renders with rsvg-convert to a ${w}x${h} PNG" rendered "$WORK/numa.svg"

# --compare --svg: two bars (A and B) per bucket of each histogram (the
# filters' depths among them).
"$BIN/sisscan" --json -d 1 --filter ideal,overloaded >"$WORK/b.jsonl" 2>/dev/null
"$BIN/sisscan" --svg "$WORK/cmp.svg" --compare "$WORK/run.jsonl" -- "$WORK/b.jsonl" >/dev/null 2>"$WORK/cmp.err"
status=$?
want=$(jq -rs '[.[] | select(.type == "summary") | .metrics | to_entries[] | select(.value.hist) |
	{k: .key, low: .value.hist.buckets[].low}] | unique | length * 2' "$WORK/run.jsonl" "$WORK/b.jsonl")
read -r w h cells series bars < <(svg_facts "$WORK/cmp.svg" 2>/dev/null)
kind consistency
if [ $status -eq 0 ] && [ "${bars:-x}" = "$want" ]; then
	pass "sisscan --compare --svg: $bars bars = 2 x the histogram buckets of the two runs"
else
	fail "sisscan --compare --svg: A and B bars per bucket" "exit $status, bars '$bars', want '$want'; $(head -c 200 "$WORK/cmp.err")"
fi
kind behaviour
check "sisscan --compare --svg renders with rsvg-convert to a ${w}x${h} PNG" rendered "$WORK/cmp.svg"

# Writes that fail are a sentence and exit 1, never silence; a path that
# cannot be written is refused before anything is traced (exit 2).
# A full file system (a small tmpfs, filled: a device such as /dev/full is
# refused as a path).
mkdir -p "$WORK/full"
mount -t tmpfs -o size=64k tmpfs "$WORK/full" && at_exit "umount $WORK/full"
dd if=/dev/zero of="$WORK/full/filler" bs=4k 2>/dev/null
expect_error 1 "--svg.*No space left on device" "sisscan --svg on a full file system: exit 1 and a sentence" \
	"$BIN/sisscan" -d 1 --svg "$WORK/full/run.svg"
check "sisscan --svg on a full file system: no temporary file left behind" \
	test -z "$(find "$WORK/full" -name '.run.svg.*')"
expect_error 2 "--svg '/nonexistent/x.svg': directory /nonexistent does not exist" \
	"sisscan --svg into a missing directory: exit 2 before tracing" \
	"$BIN/sisscan" -d 1 --svg /nonexistent/x.svg
finish
