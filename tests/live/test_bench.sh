#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make bench's script (bench/bench.py) in its quick mode: it runs on this
# machine as CI has it, measures every tracer it lists (or says why not),
# puts the floor under every hook a schedscan tool uses, and fails with a
# sentence when it cannot write its page. The figures are not judged
# here: the benchmark reports them, no test times anything.
source "$(dirname "$0")/lib.sh"

doc=$WORK/performance.md
BENCH_QUICK=1 BENCH_DOC=$doc BUILD=$BUILD python3 "$ROOT/bench/bench.py" >"$WORK/bench.out" 2>"$WORK/bench.err"
status=$?
if [ $status -eq 0 ] && [ -s "$doc" ]; then
	pass "bench/bench.py (BENCH_QUICK) exits 0 and writes its page"
else
	fail "bench/bench.py (BENCH_QUICK) exits 0 and writes its page" "exit $status: $(tail -c 300 "$WORK/bench.err")"
fi
# Every tracer the script lists has a row in section 1: measured, or why not.
tracers=$(python3 -B -c 'import sys; sys.path.insert(0, sys.argv[1]); import bench
print("\n".join(t[0] for t in bench.TRACERS))' "$ROOT/bench")
missing=""
while read -r t; do
	grep -qF "| $t |" "$doc" || missing="$missing '$t'"
done <<<"$tracers"
if [ -n "$tracers" ] && [ -z "$missing" ]; then
	pass "bench: every tracer ($(echo "$tracers" | wc -l)) has a cost row, measured or with its reason"
else
	fail "bench: every tracer has a cost row" "missing:$missing"
fi
# The schedscan tools' programs that ran each have a floor on the same hook.
cost_rows() { awk -F' [|] ' '/^## 1\./ { on = 1 } /^Per wakeup/ { on = 0 } on && NF == 7 && /^[|] (sisscan|idlebal|numascan)/ && $4 + 0 > 0' "$doc"; }
nofloor=$(cost_rows | awk -F' [|] ' '$6 == "-" { print $2 " " $3 }')
ran=$(cost_rows | wc -l)
if [ "$ran" -gt 0 ] && [ -z "$nofloor" ]; then
	pass "bench: all $ran schedscan programs that ran have a floor figure on their hook"
else
	fail "bench: a floor figure for every schedscan program that ran" "$ran ran; without a floor: $nofloor"
fi
rows=$(grep -c -E '^[|] (perf bench sched pipe|perf bench sched messaging|hackbench) [|]' "$doc")
if [ "$rows" -eq 15 ] && grep -q '^- sisscan start-up under 100 ms' "$doc"; then
	pass "bench: 15 slowdown series (3 workloads x 5 tracers) and the targets' verdicts"
else
	fail "bench: 15 slowdown series and the targets' verdicts" "$rows series rows; $(grep -o '^[|] [^|]* [|] not measured: [^|]*' "$doc" | tr '\n' ' ')"
fi
# Section 4 (quick mode: one guest): a row per tracer the guest runs,
# measured with a ratio to the floor booted in the same guest.
guest_tracers=$(python3 -B -c 'import sys; sys.path.insert(0, sys.argv[1]); import bench
print(len(bench.GUEST_TRACERS))' "$ROOT/bench")
measured=$(awk -F' [|] ' '/^## 4\./ { on = 1 } /^Per event in the guest/ { on = 0 }
	on && NF == 7 && $4 + 0 > 0 && $6 + 0 > 0' "$doc" | wc -l)
# sisscan's rows carry the walk steps per wakeup read from its map (the
# scaling verdict's measure); idlebal walks no LLC and has none.
stepped=$(awk -F' [|] ' '/^## 4\./ { on = 1 } /^Per event in the guest/ { on = 0 }
	on && NF == 7 && $3 ~ /^sisscan/ && $7 ~ /^[0-9]/' "$doc" | wc -l)
stepped_expected=$(python3 -B -c 'import sys; sys.path.insert(0, sys.argv[1]); import bench
print(len(bench.STEPPED_TRACERS))' "$ROOT/bench")
floors=$(awk -F' [|] ' '/^Per event in the guest/ { on = 1 } /^## Targets/ { on = 0 }
	on && NF == 6 && $3 + 0 > 0 && $5 + 0 > 0' "$doc" | wc -l)
if [ "$measured" = "$guest_tracers" ] && [ "$floors" -gt 0 ] && [ "$stepped" = "$stepped_expected" ]; then
	pass "bench: scaling, in a guest: all $measured tracers measured per wakeup against the floor, $stepped with LLC walk steps per wakeup; $floors programs beside their floor"
else
	fail "bench: scaling in a guest: every tracer measured against the floor" \
		"$measured of $guest_tracers tracers, $stepped of $stepped_expected with walk steps, $floors programs with a floor: $(sed -n '/^## 4\./,/^## Targets/p' "$doc" | grep -i 'not measured\|failed' | head -3 | tr '\n' ' ')"
fi
expect_error 1 "bench: cannot write /nonexistent/performance.md: no directory /nonexistent" \
	"bench: a page it cannot write is a sentence and exit 1, before any run" \
	env BENCH_QUICK=1 BENCH_DOC=/nonexistent/performance.md BUILD="$BUILD" python3 "$ROOT/bench/bench.py"
finish
