#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Runs each libFuzzer harness (build/fuzz/fuzz_NAME) for SECONDS, starting
# from the committed corpus (tests/fuzz/corpus/NAME) and first replaying
# every input that once crashed a parser (tests/fuzz/regressions/NAME).
# TAP output, one line per harness. New corpus entries go to a scratch
# directory unless --merge is given (make fuzz), which adds the inputs
# that reach new code to the committed corpus.
#   tests/fuzz/run.sh SECONDS [--merge]
set -uo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-5}
merge=${2:-}
BUILD=${SCHEDSCAN_BUILD:-$PWD/build}
work=$(mktemp -d /tmp/schedscan-fuzz.XXXXXX)
trap 'rm -rf "$work"' EXIT
n=0 failures=0
for src in tests/fuzz/fuzz_*.c; do
	name=$(basename "$src" .c)
	name=${name#fuzz_}
	bin=$BUILD/fuzz/fuzz_$name
	n=$((n + 1))
	if [ ! -x "$bin" ]; then
		echo "not ok $n - fuzz $name: $bin is not built"
		failures=$((failures + 1))
		continue
	fi
	regressions=()
	for f in tests/fuzz/regressions/$name/*; do [ -f "$f" ] && regressions+=("$f"); done
	if [ ${#regressions[@]} -gt 0 ] && ! "$bin" "${regressions[@]}" >"$work/$name.replay" 2>&1; then
		echo "not ok $n - fuzz $name: a regression input crashes it again"
		tail -n 20 "$work/$name.replay" | sed 's/^/#   /'
		failures=$((failures + 1))
		continue
	fi
	mkdir -p "$work/$name"
	cp tests/fuzz/corpus/$name/* "$work/$name/"
	before=$(ls "$work/$name" | wc -l)
	# -rss_limit_mb: the sanitizers' shadow memory counts too.
	"$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 \
		-artifact_prefix="$work/crash-$name-" "$work/$name" >"$work/$name.log" 2>&1
	status=$?
	runs=$(sed -n -E 's/^#([0-9]+).*DONE.*/\1/p' "$work/$name.log" | tail -n 1)
	if [ $status -ne 0 ]; then
		crash=$(ls "$work"/crash-$name-* 2>/dev/null | head -n 1)
		mkdir -p tests/fuzz/regressions/$name
		[ -n "$crash" ] && cp "$crash" tests/fuzz/regressions/$name/
		echo "not ok $n - fuzz $name: crashed (input kept in tests/fuzz/regressions/$name/)"
		grep -E 'invariant|ERROR|runtime error|SUMMARY' "$work/$name.log" | head -n 5 | sed 's/^/#   /'
		failures=$((failures + 1))
		continue
	fi
	if [ "$merge" = --merge ]; then
		"$bin" -merge=1 tests/fuzz/corpus/$name "$work/$name" >/dev/null 2>&1
	fi
	echo "ok $n - fuzz $name: ${runs:-?} inputs in ${seconds} s from $before seeds and ${#regressions[@]} regressions, no crash"
done
echo "1..$n"
[ "$failures" -eq 0 ]
