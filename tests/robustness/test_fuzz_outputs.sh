#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The output escaping against the real parsers (issue 32): the names
# harness (tests/fuzz/fuzz_names.c) renders its corpus and 400 inputs of
# random bytes as task and file names into JSON, OpenMetrics, SVG and
# text, checking its own invariants; here its outputs go through what
# users parse them with: python's strict JSON parser (UTF-8 decoded
# strictly), promtool, and python's XML parser.
source "$(dirname "$0")/../live/lib.sh"

bin=$BUILD/fuzz/fuzz_names
if [ ! -x "$bin" ]; then
	fail "the names harness is built" "$bin is missing (make check builds it)"
	finish
	exit
fi
mkdir -p "$WORK/in" "$WORK/out/svg"
cp "$ROOT"/tests/fuzz/corpus/names/* "$WORK/in/"
for i in $(seq 1 400); do
	head -c $((RANDOM % 80 + 1)) /dev/urandom >"$WORK/in/random$i"
done
inputs=$(ls "$WORK/in" | wc -l)
# One dump per input: libFuzzer runs an input a second time, under
# LeakSanitizer, whenever its mallocs and frees did not balance. A
# clean-clone run saw 406 dumps (JSON, OpenMetrics and SVG alike) of 405
# inputs, and no leak; 12,000 random inputs here did not repeat it. Leaks
# are tests/fuzz/run.sh's job, with detection on.
if SCHEDSCAN_FUZZ_DUMP="$WORK/out" "$bin" -detect_leaks=0 "$WORK"/in/* >"$WORK/harness.log" 2>&1; then
	pass "names harness: $inputs inputs, every invariant held"
else
	fail "names harness: $inputs inputs" "$(grep -E 'invariant|ERROR' "$WORK/harness.log" | head -n 3)"
fi

out=$(/usr/bin/python3 - "$WORK/out/names.jsonl" <<'EOF'
import json, sys
# splitlines() on purpose: it also breaks at NEL, U+2028 and U+2029, as
# other line readers do, and a record must stay one line for them all.
lines = open(sys.argv[1], "rb").read().decode("utf-8").splitlines()
for n, line in enumerate(lines, 1):
    record = json.loads(line)
    assert set(record) == {"comm", "name", "raw"}, line
print(len(lines))
EOF
)
if [ "$out" = "$inputs" ]; then
	pass "JSON: $out records, each read by python's strict parser"
else
	fail "JSON: $inputs records read strictly" "$out"
fi

{
	echo "# HELP schedscan_fuzz_total one sample per input, its names as labels"
	echo "# TYPE schedscan_fuzz_total counter"
	cat "$WORK/out/names.prom"
} >"$WORK/names.prom"
if out=$(promtool check metrics <"$WORK/names.prom" 2>&1); then
	pass "OpenMetrics: promtool accepts $(grep -c '^schedscan' "$WORK/names.prom") samples"
else
	fail "OpenMetrics: promtool accepts every sample" "$(head -c 400 <<<"$out")"
fi

out=$(/usr/bin/python3 - "$WORK/out/svg" <<'EOF'
import os, sys
import xml.etree.ElementTree as ET
files = os.listdir(sys.argv[1])
for f in files:
    ET.parse(os.path.join(sys.argv[1], f))
print(len(files))
EOF
)
if [ "$out" = "$inputs" ]; then
	pass "SVG: $out pictures, each read by python's XML parser"
else
	fail "SVG: $inputs pictures well-formed" "$out"
fi
finish
