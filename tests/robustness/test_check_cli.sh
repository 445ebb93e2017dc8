#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The check runner's own command line (tests/check, tests/README.md's
# examples): the registry, selection by id, tier and kind, and usage
# errors as one sentence with exit 2. Nothing here runs a scenario.
source "$(dirname "$0")/../live/lib.sh"

CHECK=$BUILD/tests/check/check
if [ ! -x "$CHECK" ]; then
	fail "the check runner is built ($CHECK)"
	finish
	exit
fi

"$CHECK" --list >"$WORK/list" 2>"$WORK/list.err"
status=$?
ids=$(awk 'NR > 1 { print $1 }' "$WORK/list")
n=$(grep -c . <<<"$ids")
bad=$(grep -v -E '^(sisscan|idlebal|numascan)\.(truth|known|consistency|behaviour)\.[a-z0-9_.]+$' <<<"$ids" | head -n 3)
dups=$(sort <<<"$ids" | uniq -d | head -n 3)
if [ $status -eq 0 ] && [ "$n" -gt 0 ] && [ -z "$bad" ] && [ -z "$dups" ] && [ ! -s "$WORK/list.err" ]; then
	pass "check --list: $n checks, each id TOOL.KIND.NAME and unique"
else
	fail "check --list prints the registry, ids TOOL.KIND.NAME, unique" "exit $status, $n ids, bad '$bad', twice '$dups'"
fi
check "check --list: each check's tool is the id's first word" \
	[ -z "$(awk 'NR > 1 { split($1, w, "."); if (w[1] != $2) print $1 }' "$WORK/list")" ]

# Selection by glob, as tests/README.md shows it.
want=$(grep -c -E '^idlebal[.]known[.]overload[.]' <<<"$ids")
got=$("$CHECK" --list --id 'idlebal.known.overload.*' | awk 'NR > 1' | wc -l)
check "check --list --id 'idlebal.known.overload.*': the $want matching checks ($got)" [ "$got" = "$want" ] && [ "$want" -gt 0 ]
want=$(awk 'NR > 1 && $1 ~ /pinned/ && $4 == "known"' "$WORK/list" | wc -l)
got=$("$CHECK" --list --kind known --id '*pinned*' | awk 'NR > 1' | wc -l)
check "check --list --kind known --id '*pinned*': the $want known answers about pinned spinners ($got)" [ "$got" = "$want" ]
got=$("$CHECK" --list --id 'nothing.matches.this' | awk 'NR > 1' | wc -l)
check "check --list --id of no check: an empty registry" [ "$got" = 0 ]

# Usage errors: exit 2, one sentence, nothing run.
for bad in "--tier kprobes" "--kind guesses" "--bogus" "extra-argument"; do
	# shellcheck disable=SC2086 # the words are the arguments
	"$CHECK" $bad >"$WORK/bad.out" 2>"$WORK/bad.err"
	status=$?
	lines=$(wc -l <"$WORK/bad.err")
	if [ $status -eq 2 ] && [ "$lines" -ge 1 ] && [ ! -s "$WORK/bad.out" ]; then
		pass "check $bad: exit 2, '$(head -n 1 "$WORK/bad.err" | cut -c1-90)'"
	else
		fail "check $bad: exit 2 with a sentence on stderr" "exit $status, stdout $(wc -c <"$WORK/bad.out") bytes, stderr: $(head -c 200 "$WORK/bad.err")"
	fi
done
"$CHECK" --help >"$WORK/help" 2>&1
status=$?
check "check --help: the usage on stdout, exit 0" [ $status -eq 0 ] && grep -q '^usage: check' "$WORK/help"
finish
