#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# --list-metrics on this kernel (issue 33): for each tool and mode, what
# it prints equals what a run with the same options then reports (every
# metric's tier and "estimated", the tables, what is unavailable and the
# sentence why), --mode auto reports no fewer metrics than --mode
# tracepoint, the text fits 80 columns, nothing stays loaded, and an
# option only a run uses is a usage error.
source "$(dirname "$0")/lib.sh"

# same_as_run LIST RUN: the differences between a list record and a run's
# summary, one line each; nothing when they agree.
same_as_run() {
	/usr/bin/python3 - "$1" "$2" <<'EOF'
import json, sys
listed = json.loads(open(sys.argv[1]).read())
run = [json.loads(l) for l in open(sys.argv[2]) if l.strip()][-1]
def metrics(r):
    return {k: (v["tier"], v["estimated"]) for k, v in r["metrics"].items()}
def tables(r):
    if "tables" in r:
        return {k: (v["tier"], v["estimated"]) for k, v in r["tables"].items()}
    return {k: (v["tier"], v["estimated"]) for k, v in r.items()
            if isinstance(v, dict) and "rows" in v}
def missing(r, key):
    reasons = r.get("unavailable_reasons", [])
    return {k: reasons[i] for k, i in r.get(key, {}).items()}
for what, a, b in (("metrics", metrics(listed), metrics(run)),
                   ("tables", tables(listed), tables(run)),
                   ("unavailable", missing(listed, "unavailable"), missing(run, "unavailable")),
                   ("tables_unavailable", missing(listed, "tables_unavailable"),
                    missing(run, "tables_unavailable"))):
    for k in sorted(set(a) | set(b)):
        if a.get(k) != b.get(k):
            print(f"{what} {k}: listed {a.get(k)}, the run reported {b.get(k)}")
EOF
}

prog_count() { bpftool prog show 2>/dev/null | grep -c '^[0-9]*:'; }

declare -A measured
for tool in $TOOLS; do
	for mode in auto tracepoint; do
		opts=(--mode "$mode")
		[ "$tool" = sisscan ] && [ "$mode" = auto ] && opts+=(-P)
		[ "$tool" = idlebal ] && [ "$mode" = auto ] && opts+=(--per-cpu)
		desc="$tool ${opts[*]} --list-metrics"
		before=$(prog_count)
		"$BIN/$tool" "${opts[@]}" --list-metrics --json >"$WORK/list.json" 2>"$WORK/err"
		rc=$?
		after=$(prog_count)
		if [ $rc -ne 0 ]; then
			fail "$desc --json: exit 0" "exit $rc: $(head -c 300 "$WORK/err")"
			continue
		fi
		json_valid "$desc --json: one record valid against docs/json.md" "$WORK/list.json"
		if [ "$before" = "$after" ]; then
			pass "$desc: nothing stays loaded ($before programs before and after)"
		else
			fail "$desc: nothing stays loaded" "$before programs before, $after after"
		fi
		measured[$tool-$mode]=$(jq -r '.metrics | keys[]' "$WORK/list.json" | sort | tr '\n' ' ')

		kind consistency
		"$BIN/$tool" "${opts[@]}" --json -d 0.3 >"$WORK/run.json" 2>"$WORK/err"
		diffs=$(same_as_run "$WORK/list.json" "$WORK/run.json")
		n=$(jq '.metrics | length' "$WORK/list.json")
		t=$(jq -r '.tables | keys | join(",")' "$WORK/list.json")
		u=$(jq '(.unavailable // {}) | length' "$WORK/list.json")
		if [ -z "$diffs" ] && [ -s "$WORK/run.json" ]; then
			pass "$desc: a run then reports the same $n metrics, tiers and estimates, $u unavailable with the same sentences, tables $t"
		else
			fail "$desc: a run then reports the same" "$(head -n 5 <<<"$diffs")"
		fi
		kind behaviour

		"$BIN/$tool" "${opts[@]}" --list-metrics >"$WORK/list.txt" 2>"$WORK/err"
		rc=$?
		wide=$(awk 'length($0) > 80' "$WORK/list.txt" | head -n 1)
		rows=$(awk '/^METRIC /{ on = 1; next } /^$/{ on = 0 } on' "$WORK/list.txt" | wc -l)
		total=$(( n + u ))
		if [ $rc -eq 0 ] && [ -z "$wide" ] && [ "$rows" -eq "$total" ] &&
		   [ "$(grep -c ' measured$' "$WORK/list.txt")" -eq \
		     "$(jq '[.metrics[], .tables[] | select(.estimated | not)] | length' "$WORK/list.json")" ]; then
			pass "$desc: text, $rows metric rows in 80 columns, measured rows as in JSON"
		else
			fail "$desc: text" "exit $rc, $rows rows for $total metrics, wide: '$wide'"
		fi
	done
	# Issue 33: auto never gives less than the fallback would.
	lost=$(comm -13 <(tr ' ' '\n' <<<"${measured[$tool-auto]}" | sort) \
		<(tr ' ' '\n' <<<"${measured[$tool-tracepoint]}" | sort) | tr '\n' ' ')
	na=$(wc -w <<<"${measured[$tool-auto]}")
	nt=$(wc -w <<<"${measured[$tool-tracepoint]}")
	kind consistency
	if [ -z "${lost// /}" ] && [ "$na" -ge "$nt" ]; then
		pass "$tool: --mode auto reports every metric --mode tracepoint does ($na >= $nt)"
	else
		fail "$tool: --mode auto reports every metric --mode tracepoint does" \
			"auto $na, tracepoint $nt, only in tracepoint: $lost"
	fi
	kind behaviour
done

for opt in "-d 1" "-i 1" "1 5" "--stats" "--svg $WORK/x.svg" "--prometheus-file $WORK/x.prom"; do
	# shellcheck disable=SC2086
	expect_error 2 "list-metrics traces nothing" "idlebal --list-metrics $opt: exit 2, a sentence" \
		"$BIN/idlebal" --list-metrics $opt
done
expect_error 2 "events has no meaning" "sisscan --list-metrics --filter ideal --events: exit 2, a sentence" \
	"$BIN/sisscan" --list-metrics --filter ideal --events "$WORK/ev.jsonl"
if [ -e "$WORK/ev.jsonl" ] || [ -e "$WORK/x.svg" ] || [ -e "$WORK/x.prom" ]; then
	fail "refused --list-metrics runs create no file" "$(ls "$WORK")"
else
	pass "refused --list-metrics runs create no file"
fi
"$BIN/numascan" --list-metrics >/dev/full 2>"$WORK/err"
rc=$?
if [ $rc -eq 1 ] && grep -q "writing the list of metrics to stdout failed" "$WORK/err"; then
	pass "numascan --list-metrics >/dev/full: exit 1, a sentence"
else
	fail "numascan --list-metrics >/dev/full: exit 1, a sentence" "exit $rc: $(head -c 200 "$WORK/err")"
fi
finish
