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

# make install: the tools, their pages (found by name through man's
# search path, as after a package install) and bash completion, under a
# DESTDIR.
inst=$WORK/inst
make -s -C "$ROOT" install DESTDIR="$inst" PREFIX=/usr >"$WORK/install.out" 2>&1
status=$?
check "make install DESTDIR=... PREFIX=/usr: exit 0" [ $status -eq 0 ]
for t in $TOOLS; do
	problems=""
	"$inst/usr/sbin/$t" --help >/dev/null 2>&1 || problems="$problems $t --help fails;"
	page=$(MANPATH=$inst/usr/share/man man -w "$t" 2>/dev/null)
	[ "$page" = "$inst/usr/share/man/man8/$t.8" ] || problems="$problems man -w $t gives '$page';"
	MANPATH=$inst/usr/share/man MANWIDTH=80 man --warnings "$t" >"$WORK/inst.$t.txt" 2>"$WORK/inst.$t.err"
	cmp -s "$WORK/inst.$t.txt" "$WORK/$t.8.txt" || problems="$problems the installed page renders otherwise;"
	[ -s "$WORK/inst.$t.err" ] && problems="$problems man warns: $(head -c 100 "$WORK/inst.$t.err");"
	# The completion file bash-completion loads for this command by name.
	completes=$(bash -c 'source "$1" && complete -p "$2"' _ \
		"$inst/usr/share/bash-completion/completions/$t" "$t" 2>&1)
	case "$completes" in *" $t") ;; *) problems="$problems completion: '$completes';" ;; esac
	check "make install: $t in sbin, its page by name (man -w, no warning) and its completion${problems:+:$problems}" \
		[ -z "$problems" ]
done
check "make install: the overview page schedscan.8" [ -f "$inst/usr/share/man/man8/schedscan.8" ]
finish
