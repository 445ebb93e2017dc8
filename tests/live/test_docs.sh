#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# docs/metrics.md's Validation table covers every number the tools print:
# each metric, table column and filter metric of each tool's JSON (names
# read from the tools themselves, not from a list kept here) has a row
# that gives its kind, and a row that claims a check names test files
# that exist and mention the metric.
source "$(dirname "$0")/lib.sh"

doc=$ROOT/docs/metrics.md
table=$WORK/validation
sed -n '/^## Validation/,$p' "$doc" | grep '^| [a-z]* | `' >"$table"

# names TOOL ARGS...: metric names and TABLE.COLUMN names the tool prints.
names() {
	local tool=$1
	shift
	"$BIN/$tool" "$@" --json -d 0.3 2>/dev/null | jq -r 'select(.type == "summary") |
		(.metrics | keys[]), (.unavailable | if type == "object" then keys[] else .[] end),
		(to_entries[] | select(.value | type == "object" and has("rows")) | .key as $t |
		 (.value.by | split("+")) as $keys |
		 (.value.rows[0] // {} | to_entries[] | select((.value | type) == "number") | .key |
		  select(. as $k | $keys | index($k) | not)) | "\($t).\(.)")' |
		sed -E '/^filter_unoccupied_(balances|updates)$/!s/^filter_(ideal|unoccupied_tick|unoccupied|overloaded|delayed|real)_/filter_<f>_/'
}
{
	names sisscan --filter ideal,unoccupied,unoccupied_tick,overloaded,delayed --events "$WORK/ev.jsonl" -P
	names sisscan --per-cpu
} | sort -u | sed 's/^/sisscan /' >"$WORK/names"
names idlebal | sort -u | sed 's/^/idlebal /' >>"$WORK/names"
names numascan | sort -u | sed 's/^/numascan /' >>"$WORK/names"
total=$(wc -l <"$WORK/names")
check "the tools print metric names ($total)" [ "$total" -ge 60 ]

missing="" unsure="" bad_ref=""
while read -r tool name; do
	row=$(awk -F'|' -v t="$tool" -v n="\`$name\`" '$2 == " " t " " && index($3, n)' "$table" | head -n 1)
	if [ -z "$row" ]; then
		missing="$missing $tool:$name"
		continue
	fi
	row_kind=$(awk -F'|' '{ gsub(/^ +| +$/, "", $4); print $4 }' <<<"$row")
	files=$(awk -F'|' '{ print $5 }' <<<"$row")
	case "$row_kind" in
	"ground truth" | "known answer" | "consistency")
		[ -n "${files// /}" ] || bad_ref="$bad_ref $tool:$name(no test named)"
		# A table column may be checked by a test of every table's rows;
		# the decoder's unit test names the outcome classes SIS_OUT_*.
		base=${name#*.}
		base=${base#filter_<f>_}
		base=${base#sis_}
		also=NOMATCH
		[[ $name != *.* ]] || also=rows
		for f in $files; do
			f=${f%,}
			if [ ! -f "$ROOT/$f" ]; then
				bad_ref="$bad_ref $tool:$name($f missing)"
			elif ! grep -q -i -e "$base" -e "$also" "$ROOT/$f"; then
				bad_ref="$bad_ref $tool:$name($f never mentions $base)"
			fi
		done ;;
	"not validated")
		why=$(awk -F'|' '{ gsub(/^ +| +$/, "", $6); print $6 }' <<<"$row")
		[ -n "$why" ] || unsure="$unsure $tool:$name(no reason)" ;;
	*) unsure="$unsure $tool:$name(kind '$row_kind')" ;;
	esac
done <"$WORK/names"
if [ -z "$missing" ]; then
	pass "docs/metrics.md's Validation table has a row for each of the $total names"
else
	fail "every printed metric has a Validation row" "missing:$missing"
fi
if [ -z "$unsure" ]; then
	pass "each row is ground truth, known answer, consistency or not validated (with a reason)"
else
	fail "each Validation row has a kind (and a reason when not validated)" "$unsure"
fi
if [ -z "$bad_ref" ]; then
	pass "each checked metric's row names tests that exist and mention it"
else
	fail "Validation rows name tests that check the metric" "$bad_ref"
fi
counts=$(awk -F'|' '{ gsub(/^ +| +$/, "", $4); n[$4]++ } END { for (k in n) printf "%s %d; ", k, n[k] }' "$table")
echo "# Validation rows by kind: $counts"
finish
