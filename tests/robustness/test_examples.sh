#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Every example the documentation gives runs: each tool's --help
# EXAMPLES, the EXAMPLES of the man pages and the "# tool ..." commands of
# README.md and docs/*.md (read from the files, not listed here). An
# example runs for at most 2 s (SIGINT, which ends it with its summary)
# and must exit 0 with output and no error, except a forced --mode that
# this kernel cannot attach, which must be refused with exit 1 and a
# sentence naming the mode. Adapted to the host, and said so in the
# result: PID 185 becomes a live process, CPU lists become online CPUs.
source "$(dirname "$0")/../live/lib.sh"

examples=$WORK/examples
{
	for t in $TOOLS; do
		"$BIN/$t" --help | sed -n '/^EXAMPLES:/,/^$/p' |
			sed -n -E "s/^    ($t( [^#]*)?)(#.*)?$/\1/p" | sed "s/^/--help of $t|/"
	done
	for m in "$ROOT"/docs/man/*.8; do
		sed -n '/^\.SH EXAMPLES/,/^\.SH [^E]/p' "$m" |
			sed -n -E 's/^\.B ((sisscan|idlebal|numascan)( .*)?)$/\1/p' |
			sed 's/\\-/-/g' | sed "s/^/$(basename "$m")|/"
	done
	for d in "$ROOT"/README.md "$ROOT"/docs/*.md; do
		sed -n -E 's/^# ((sisscan|idlebal|numascan)( .*)?)$/\1/p' "$d" |
			sed "s/^/$(basename "$d")|/"
	done
} | sed 's/ *$//' >"$examples"
total=$(wc -l <"$examples")
check "the documentation gives examples ($total)" [ "$total" -ge 15 ]

# A process for "-p 185" and a CPU list this host has.
sleep 600 &
sleeper=$!
at_exit "kill $sleeper"
online=$(cat /sys/devices/system/cpu/online)
port=$((20000 + RANDOM % 20000))

i=0
while IFS='|' read -r where cmd; do
	i=$((i + 1))
	run=$cmd adapted=""
	run=${run% &}
	if [[ $run == *" -p 185"* ]]; then
		run=${run/ -p 185/ -p $sleeper}
		adapted="$adapted, PID 185 -> $sleeper"
	fi
	if [[ $run =~ -C\ ([0-9,-]+) ]] && ! "$BIN/sisscan" -C "${BASH_REMATCH[1]}" --help >/dev/null 2>&1; then
		run=${run/-C ${BASH_REMATCH[1]}/-C $online}
		adapted="$adapted, CPUs ${BASH_REMATCH[1]} -> $online"
	fi
	if [[ $run == *"127.0.0.1:9464"* ]]; then
		run=${run//127.0.0.1:9464/127.0.0.1:$port}
		adapted="$adapted, port $port"
	fi
	tool=${run%% *}
	# A comparison needs its runs: each file it names is recorded first
	# (1 s of the same tool's --json) where the example has none.
	if [[ $run == *" --compare "* ]]; then
		recorded=0
		for f in $run; do
			[[ $f == *.jsonl && ! -e $WORK/$f ]] || continue
			"$BIN/$tool" --json -d 1 >"$WORK/$f" 2>"$WORK/record.err" || fail "recording $f for '$cmd'" "$(head -c 300 "$WORK/record.err")"
			recorded=$((recorded + 1))
		done
		[ $recorded -gt 0 ] && adapted="$adapted, $recorded runs recorded for it"
	fi
	desc="$where: '$cmd'${adapted:+ (${adapted#, })}"
	(cd "$WORK" && eval "timeout --preserve-status -s INT -k 10 2 \"$BIN/$tool\" ${run#"$tool"}") \
		>"$WORK/ex$i.out" 2>"$WORK/ex$i.err" </dev/null
	status=$?
	mode=$(sed -n -E 's/.*--mode (fentry|kprobe).*/\1/p' <<<"$run")
	if [ -n "$mode" ] && [ $status -eq 1 ] && grep -q "$mode" "$WORK/ex$i.err"; then
		pass "$desc: refused, this kernel has no $mode tier: $(head -n 1 "$WORK/ex$i.err" | cut -c 1-120)"
	elif [ $status -eq 0 ] && [ -s "$WORK/ex$i.out" ] && ! grep -q -i 'error\|failed' "$WORK/ex$i.err"; then
		pass "$desc: exit 0, $(wc -l <"$WORK/ex$i.out") lines"
	else
		fail "$desc" "status $status; stderr: $(head -c 400 "$WORK/ex$i.err")"
	fi
done <"$examples"
finish
