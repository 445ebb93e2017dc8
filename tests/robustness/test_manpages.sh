#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The man pages (docs/man): each renders with man-db without a warning,
# and each tool's page names every option its --help lists.
source "$(dirname "$0")/../live/lib.sh"

for page in "$ROOT"/docs/man/*.8; do
	name=$(basename "$page")
	MANWIDTH=80 man --warnings -l "$page" >"$WORK/$name.txt" 2>"$WORK/$name.err"
	status=$?
	if [ $status -eq 0 ] && [ -s "$WORK/$name.txt" ] && [ ! -s "$WORK/$name.err" ]; then
		pass "man --warnings -l $name: renders ($(wc -l <"$WORK/$name.txt") lines), no warning"
	else
		fail "man --warnings -l $name: renders without a warning" "exit $status: $(head -n 3 "$WORK/$name.err" | tr '\n' ' ')"
	fi
done

for t in $TOOLS; do
	page=$WORK/$t.8.txt
	opts=$("$BIN/$t" --help | grep -oE -- '(^|[ ,])--?[a-zA-Z?][a-zA-Z-]*' | tr -d ' ,' | sort -u)
	missing=""
	# In its OPTIONS section, not just anywhere (an example is not a description).
	sed -n '/^OPTIONS/,/^[A-Z][A-Z ]*$/p' "$page" | sed '$d' >"$WORK/$t.options"
	for o in $opts; do
		grep -qF -- "$o" "$WORK/$t.options" || missing="$missing $o"
	done
	check "$t.8 describes every option of $t --help in OPTIONS ($(echo "$opts" | wc -w) options${missing:+; missing:$missing})" \
		[ -z "$missing" ]
done
finish
