#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Bad input: every option that takes a value (read from each tool's
# --help, so a new option is covered the day it appears) gets garbage,
# empty, negative, hex, overflowing (2^63, 1e309) and fractional values,
# and every positional argument too. Each must end in exit 2 with one
# sentence that starts with the tool's name, nothing on stdout and nothing
# loaded, unless the value is a legal one for that option (a task name, a
# file name), listed below with the reason; those runs must then work.
source "$(dirname "$0")/../live/lib.sh"

values=("" "garbage" "-1" "0x10" "9223372036854775808" "1e309" "0.5x" "," "1,")
# option:value pairs that are legal, with why.
legal() {
	# any name of 1 to 15 characters is a task name
	[ "$1" = --comm ] && [ -n "$2" ] && [ ${#2} -le 15 ] && return 0
	case "${1#--}" in
	prometheus-file | svg)
		# file names (in the test's directory)
		case "$2" in
		garbage | -1 | 0x10 | 9223372036854775808 | 1e309 | 0.5x | , | 1,) return 0 ;;
		esac ;;
	esac
	return 1
}

# one_sentence TOOL: stderr is "TOOL: sentence" (and argp's "Try" hint).
one_sentence() {
	[ "$(grep -c -v "^Try \`$1 --help'" "$WORK/err")" -eq 1 ] && grep -q "^$1: [^ ]" "$WORK/err"
}

progs_before=$(bpf_prog_count)
for tool in $TOOLS; do
	options=$("$BIN/$tool" --help | grep -oE -- '--[a-z-]+=' | tr -d = | sort -u)
	bad="" ok=0 accepted=0
	for opt in $options; do
		for v in "${values[@]}"; do
			(cd "$WORK" && timeout -k 5 20 "$BIN/$tool" "$opt=$v" -d 0.2) >"$WORK/out" 2>"$WORK/err"
			status=$?
			if legal "$opt" "$v"; then
				if [ $status -eq 0 ] && [ -s "$WORK/out" ]; then
					accepted=$((accepted + 1))
				else
					bad="$bad [$opt='$v': legal, yet status $status: $(head -c 120 "$WORK/err")]"
				fi
			elif [ $status -eq 2 ] && one_sentence "$tool" && [ ! -s "$WORK/out" ]; then
				ok=$((ok + 1))
			else
				bad="$bad [$opt='$v': status $status: $(head -c 160 "$WORK/err" | tr '\n' ' ')]"
			fi
		done
	done
	# Positional interval and count, including the negative ones argp once
	# took for options ("invalid option -- '1'").
	for args in "-1" "1 -1" "-0.5" "1 -5 3" "0x1" "1 0x2" "1e309" "1 9223372036854775808" "1 2 3"; do
		# shellcheck disable=SC2086
		timeout -k 5 20 "$BIN/$tool" $args >"$WORK/out" 2>"$WORK/err"
		status=$?
		if [ $status -eq 2 ] && one_sentence "$tool" && ! grep -q 'invalid option' "$WORK/err"; then
			ok=$((ok + 1))
		else
			bad="$bad [positional '$args': status $status: $(head -c 160 "$WORK/err" | tr '\n' ' ')]"
		fi
	done
	nr=$(wc -w <<<"$options")
	if [ -z "$bad" ]; then
		pass "$tool: $ok bad values of $nr options and the positionals -> exit 2, one sentence, nothing printed; $accepted legal values (task and file names) ran"
	else
		fail "$tool: every bad value -> exit 2 and one sentence" "$bad"
	fi
done
sleep 0.5
check "bad values load nothing ($progs_before BPF programs before, $(bpf_prog_count) after)" \
	[ "$(bpf_prog_count)" -eq "$progs_before" ]

# The messages name the tool, not the path it was run by.
expect_error 2 "^sisscan: unrecognized option '--bogus'" \
	"getopt's own messages start with the tool's name, not ./build/sisscan" \
	bash -c "cd '$BIN' && ./sisscan --bogus"
expect_error 2 "^sisscan: invalid count '-1': it must be above 0" \
	"sisscan 1 -1: a negative count, not an unknown option '-1'" "$BIN/sisscan" 1 -1 -d 0.2
expect_error 2 "^sisscan: --filter-delay takes milliseconds" \
	"--filter-delay 0x3 (hex) is refused" "$BIN/sisscan" --filter delayed --filter-delay 0x3 -d 0.2
expect_error 2 "^sisscan: --filter-delay sets the delayed filter" \
	"--filter-delay without --filter delayed is refused" "$BIN/sisscan" --filter ideal --filter-delay 3 -d 0.2
for f in "" "," "ideal," ",ideal" "ideal,,overloaded"; do
	expect_error 2 "^sisscan: unknown filter in '$f'" "--filter '$f' is refused" \
		"$BIN/sisscan" --filter "$f" -d 0.2
done
expect_error 2 "^sisscan: --events-max limits the --events file" \
	"--events-max without --events is refused" "$BIN/sisscan" --events-max 1M -d 0.2
# --events is checked before anything is loaded (exit 2, like every bad value).
before=$(bpf_prog_count)
expect_error 2 "^sisscan: --events '/nonexistent/x.jsonl': directory /nonexistent does not exist" \
	"--events in a missing directory: exit 2 before loading" \
	"$BIN/sisscan" --filter ideal --events /nonexistent/x.jsonl -d 0.2
check "--events in a missing directory loads nothing" [ "$(bpf_prog_count)" -eq "$before" ]

# -p names what it will trace when that is not simply one process.
expect_error 0 "^sisscan: PID 2 is the kernel thread 'kthreadd': only its own events are traced" \
	"-p 2 (a kernel thread) says what is traced" "$BIN/sisscan" -p 2 -d 0.2
"$BUILD/workloads/memtouch" -t 2 -m 8 -s 3 -w 100 >"$WORK/mt.out" &
mt=$!
at_exit "kill $mt"
sleep 0.5
thread=$(ls /proc/$mt/task | grep -v "^$mt\$" | head -n 1)
if [ -n "$thread" ]; then
	expect_error 0 "^sisscan: $thread is a thread of process $mt " \
		"-p THREAD says it traces the whole process" "$BIN/sisscan" -p "$thread" -d 0.2 --json
	check "-p THREAD selects the process (tgid $mt in the run)" \
		[ "$(jq -r 'select(.type == "summary") | .type' "$WORK/out")" = summary ]
else
	fail "-p THREAD says it traces the whole process" "memtouch started no thread"
fi
finish
