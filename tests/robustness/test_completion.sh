#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Bash completion (completion/schedscan): every long option of each tool's
# --help completes, option values complete from their fixed sets, and
# after --compare the words are run files and the -- between the sides.
source "$(dirname "$0")/../live/lib.sh"

complete_words() {  # complete_words WORD...: COMPREPLY for the last word, one per line
	(
		cd "$WORK" || exit 1
		PATH=$BIN:$PATH
		# shellcheck disable=SC1091
		source "$ROOT/completion/schedscan"
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		_schedscan
		printf '%s\n' "${COMPREPLY[@]}"
	)
}

for t in $TOOLS; do
	want=$("$BIN/$t" --help | grep -oE -- '--[a-z][a-z-]*' | sort -u)
	got=$(complete_words "$t" -- | sort -u)
	missing=$(comm -23 <(echo "$want") <(echo "$got") | tr '\n' ' ')
	check "$t: every long option of --help completes ($(echo "$want" | wc -l) options${missing:+; missing: $missing})" [ -z "$missing" ]
done
check "sisscan --mode completes the four tiers" \
	[ "$(complete_words sisscan --mode "" | tr '\n' ' ')" = "auto fentry kprobe tracepoint " ]
filter_values() {
	[ -z "$(complete_words sisscan --filter f)" ] && [ "$(complete_words sisscan --filter un | wc -l)" = 2 ]
}
check "sisscan --filter f completes nothing, --filter un the two unoccupied filters" filter_values
: >"$WORK/before1.jsonl"
: >"$WORK/before2.jsonl"
: >"$WORK/notes.txt"
check "sisscan --compare bef completes the .jsonl runs only" \
	[ "$(complete_words sisscan --compare bef | sort | tr '\n' ' ')" = "before1.jsonl before2.jsonl " ]
check "sisscan --compare A '' offers -- between the sides" \
	grep -qx -- -- <(complete_words sisscan --compare before1.jsonl "")
finish
