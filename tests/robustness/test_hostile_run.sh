#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# What a hostile run found (issue 32), one check or more per item, each
# failing on the code before its fix: the files the tools write as root
# (1), forced tiers (5), whole records on a slow pipe (7), the ready fd
# (11), the shortest interval (12), repeated options (13), the reasons'
# function names (14), --btf (15), and what a first-time user sees (the
# grouped reasons, "~", idlebal's repeated levels, interval lines,
# numascan's rows kept for a hidden column). Items 2-4, 6, 8-10 and 16
# have tests of their own: test_hostile_names.sh, test_selection.sh,
# test_compare_input.sh, test_privileges.sh, test_listen.sh,
# tests/unit/test_httpd.c.
source "$(dirname "$0")/../live/lib.sh"

one_sentence() {  # one_sentence TOOL: stderr is "TOOL: sentence" (and argp's hint)
	[ "$(grep -c -v "^Try \`$1 --help'" "$WORK/err")" -eq 1 ] && grep -q "^$1: [^ ]" "$WORK/err"
}

# refused TOOL WHAT REGEX ARGS...: exit 2, one sentence matching REGEX,
# nothing on stdout, no BPF program loaded.
refused() {
	local tool=$1 what=$2 regex=$3 before status
	shift 3
	before=$(bpf_prog_count)
	(cd "$WORK/dir" && "$BIN/$tool" "$@" -d 0.3) >"$WORK/out" 2>"$WORK/err"
	status=$?
	if [ $status -eq 2 ] && one_sentence "$tool" && grep -q -- "$regex" "$WORK/err" &&
		[ ! -s "$WORK/out" ] && [ "$(bpf_prog_count)" -le "$before" ]; then
		pass "$tool $what: exit 2 before loading: $(head -n 1 "$WORK/err" | cut -c1-110)"
	else
		fail "$tool $what: exit 2, one sentence /$regex/, nothing loaded" \
			"status $status: $(head -c 300 "$WORK/err")"
	fi
}

# ---------------------------------------------------------------- item 1
mkdir -p "$WORK/dir"
echo precious >"$WORK/victim"
ln -s "$WORK/victim" "$WORK/dir/link.prom"
ln "$WORK/victim" "$WORK/dir/hard.prom"
mkfifo "$WORK/dir/fifo"
for tool in $TOOLS; do
	refused $tool "--prometheus-file=/dev/null" "is not a regular file" --prometheus-file=/dev/null
	refused $tool "--svg /dev/full" "is not a regular file" --svg /dev/full
	refused $tool "--prometheus-file at a symbolic link" "is a symbolic link" \
		--prometheus-file link.prom
	refused $tool "--svg at a hard link" "has 2 hard links" --svg hard.prom
	refused $tool "--svg at a FIFO" "is not a regular file" --svg fifo
	refused $tool "--prometheus-file=/proc/version" "takes no new file" \
		--prometheus-file=/proc/version
done
refused sisscan "--events at a symbolic link" "is a symbolic link" --filter ideal --events link.prom
refused sisscan "--events at a FIFO" "is not a regular file" --filter ideal --events fifo
check "/dev/null and /dev/full are still devices" test -c /dev/null -a -c /dev/full

# A planted PATH.tmp (the old temporary name): the victim stays, PATH is
# a new regular file the textfile collector can read (0644 under umask 022).
ln -s "$WORK/victim" "$WORK/dir/m.prom.tmp"
(umask 022 && "$BIN/sisscan" --prometheus-file "$WORK/dir/m.prom" -d 0.3 >/dev/null 2>"$WORK/err")
status=$?
mode=$(stat -c %a "$WORK/dir/m.prom" 2>/dev/null)
if [ $status -eq 0 ] && [ "$(cat "$WORK/victim")" = precious ] && [ -f "$WORK/dir/m.prom" ] &&
	[ ! -L "$WORK/dir/m.prom" ] && [ "$mode" = 644 ] &&
	[ -z "$(find "$WORK/dir" -name '.m.prom.*')" ]; then
	pass "--prometheus-file beside a planted m.prom.tmp link: the link's target untouched, m.prom a regular file (mode $mode), no temporary file left"
else
	fail "--prometheus-file beside a planted link" "status $status, victim '$(cat "$WORK/victim")', mode $mode: $(head -c 200 "$WORK/err")"
fi
check "all the planted names are as they were" \
	test "$(cat "$WORK/victim")" = precious -a -L "$WORK/dir/link.prom" -a -p "$WORK/dir/fifo"

# ---------------------------------------------------------------- item 5
for tool in $TOOLS; do
	for mode in fentry kprobe; do
		if "$BIN/$tool" --mode $mode -d 0.3 >"$WORK/out" 2>"$WORK/err"; then
			status=0
		else
			status=$?
		fi
		if [ $status -eq 1 ] && grep -q "^$tool: --mode $mode is not available" "$WORK/err" &&
			[ ! -s "$WORK/out" ]; then
			pass "$tool --mode $mode on a kernel without it: exit 1, '$(cut -c1-70 "$WORK/err" | head -n 1)...'"
		elif [ $status -eq 0 ] && grep -q "\"mode\":\"$mode\"" "$WORK/out"; then
			skip "$tool --mode $mode refused" "this kernel has the $mode tier"
		else
			fail "$tool --mode $mode: exit 1 with a sentence naming the mode" "status $status: $(head -c 200 "$WORK/err")"
		fi
	done
done

# ---------------------------------------------------------------- item 7
# A reader that lags (sleep 4, then reads) and a SIGTERM meanwhile: every
# record that reaches it is whole.
for tool in sisscan numascan; do
	rm -f "$WORK/pid"
	( "$BIN/$tool" --json -i 0.05 2>"$WORK/slow.err" & echo $! >"$WORK/pid"; wait ) |
		(sleep 4; cat) >"$WORK/slow.jsonl" &
	pipeline=$!
	sleep 2.5
	kill -TERM "$(cat "$WORK/pid")"
	wait $pipeline
	lines=$(wc -l <"$WORK/slow.jsonl")
	if out=$(/usr/bin/python3 -c '
import json, sys
data = open(sys.argv[1], "rb").read()
assert data.endswith(b"\n") or not data, "the last record is cut"
for line in data.decode().splitlines():
    json.loads(line)
' "$WORK/slow.jsonl" 2>&1) && [ "$lines" -gt 0 ]; then
		pass "$tool --json -i 0.05 into a lagging reader, SIGTERM: $lines records, each whole$(grep -q 'not written' "$WORK/slow.err" && echo ', the last report left out whole (said on stderr)')"
	else
		fail "$tool: whole records on a lagging pipe" "$lines lines: $out"
	fi
done

# --------------------------------------------------------------- item 11
refused sisscan "--ready-fd 1 (stdout)" "is stdout, where the reports go" --json --ready-fd 1
"$BIN/sisscan" -d 0.3 --ready-fd 3 >"$WORK/out" 3>&1 2>"$WORK/err"
status=$?
if [ $status -eq 2 ] && grep -q "is stdout, where the reports go" "$WORK/err" && [ ! -s "$WORK/out" ]; then
	pass "sisscan --ready-fd 3 3>&1 (stdout's file): exit 2 before loading"
else
	fail "sisscan --ready-fd 3 3>&1: exit 2" "status $status: $(head -c 200 "$WORK/err")"
fi
mkfifo "$WORK/noreader"
exec {rw}<>"$WORK/noreader"
exec {wo}>"$WORK/noreader"
exec {rw}<&-
"$BIN/sisscan" -d 0.3 --ready-fd $wo >/dev/null 2>"$WORK/err"
status=$?
exec {wo}>&-
if [ $status -eq 1 ] && grep -q "^sisscan: writing to --ready-fd $wo failed: Broken pipe (nobody reads that pipe)" "$WORK/err"; then
	pass "--ready-fd on a pipe nobody reads: exit 1 with a sentence, not a silent SIGPIPE"
else
	fail "--ready-fd on a pipe nobody reads" "status $status: $(head -c 200 "$WORK/err")"
fi

# --------------------------------------------------------------- item 12
refused sisscan "-i 0.001" "shorter than 0.01 s, the shortest the tools keep" -i 0.001
refused idlebal "positional 0.005" "shorter than 0.01 s" 0.005

# --------------------------------------------------------------- item 13
refused sisscan "-i 0.5 -i 1" "^sisscan: -i/--interval was given twice" -i 0.5 -i 1
refused sisscan "-d twice" "^sisscan: -d/--duration was given twice" -d 1
refused idlebal "-p twice" "^idlebal: -p/--pid was given twice" -p 1 -p 1
refused numascan "--mode twice" "^numascan: --mode was given twice" --mode auto --mode tracepoint
refused sisscan "--listen twice" "^sisscan: --listen was given twice" --listen 127.0.0.1:0 --listen 127.0.0.1:0
refused idlebal "--svg twice" "^idlebal: --svg was given twice" --svg a.svg --svg b.svg
refused sisscan "--events twice" "^sisscan: --events was given twice" --filter ideal --events a --events b
refused numascan "--comm of 8 two-byte letters" "is 16 bytes, longer than the kernel's 15" \
	--comm=ääääääää

# --------------------------------------------------------------- item 14
# A reason names a function as missing only if this kernel's BTF lacks
# it, and never an older name where the newer one is there.
bpftool btf dump file /sys/kernel/btf/vmlinux 2>/dev/null |
	sed -n -E "s/^\[[0-9]+\] FUNC '([^']+)'.*/\1/p" | sort -u >"$WORK/funcs"
for tool in $TOOLS; do
	"$BIN/$tool" --json -d 0.3 2>/dev/null | jq -r '.unavailable_reasons[]?' >"$WORK/reasons"
	wrong=""
	for f in $(grep -o -E '[a-z_0-9]+\(\)' "$WORK/reasons" | tr -d '()' | sort -u); do
		grep -qx "$f" "$WORK/funcs" && grep -q "$f() is not\|none of.*$f()" "$WORK/reasons" &&
			wrong="$wrong $f"
	done
	if [ -z "$wrong" ] && [ -s "$WORK/funcs" ]; then
		pass "$tool: no reason calls a function of this kernel's BTF missing ($(wc -l <"$WORK/reasons") reasons)"
	else
		fail "$tool: reasons name only functions this kernel lacks" "said missing, yet in BTF:$wrong"
	fi
done

# --------------------------------------------------------------- item 15
for tool in $TOOLS; do
	refused $tool "--btf a BPF object" "does not describe a kernel" --btf "$BUILD/obj/$tool.bpf.o"
done

# ------------------------------------------------ what a first-time user sees
for tool in $TOOLS; do
	"$BIN/$tool" -d 0.5 >"$WORK/banner" 2>/dev/null
	"$BIN/$tool" --json -d 0.5 >"$WORK/banner.json" 2>/dev/null
	nr_json=$(jq -r 'select(.type == "summary") | (.unavailable | length) + (.tables_unavailable | length)' "$WORK/banner.json")
	nr_reasons=$(jq -r 'select(.type == "summary") | .unavailable_reasons | length' "$WORK/banner.json")
	nr_text=$(sed -n -E 's/^Not measured \(([0-9]+)\):.*/\1/p' "$WORK/banner" | awk '{ n += $1 } END { print n + 0 }')
	groups=$(grep -c '^Not measured (' "$WORK/banner")
	if [ "${nr_text:-0}" -eq "$nr_json" ] && [ "$groups" -eq "$nr_reasons" ] &&
		[ "$(grep -c '^    because ' "$WORK/banner")" -eq "$groups" ]; then
		pass "$tool banner: $nr_json metrics and tables not measured in $groups groups, one per reason, each saying because; the JSON has each reason once ($nr_reasons)"
	else
		fail "$tool banner: grouped reasons" "text $nr_text in $groups groups, JSON $nr_json metrics, $nr_reasons reasons"
	fi
	if grep -q 'tp_btf~\|raw_tp~\|tracepoint~' "$WORK/banner"; then
		check "$tool text: the ~ of an estimate is explained" grep -q '^~: estimated' "$WORK/banner"
	fi
done
"$BIN/idlebal" -i 0.3 -d 0.7 >"$WORK/idlebal.txt" 2>/dev/null
intervals=$(grep -c -E '^Interval [0-9]+: [0-9.]+ s$' "$WORK/idlebal.txt")
numbered=$(sed -n -E 's/^Interval ([0-9]+): .*/\1/p' "$WORK/idlebal.txt" | paste -s -d' ')
check "idlebal text: each interval report begins with its numbered line ($numbered)" \
	test "$intervals" -ge 2 -a "$numbered" = "$(seq -s ' ' 1 "$intervals")"
nodes=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l)
if [ "$nodes" -le 1 ]; then
	repeats=$(grep -c -E '^overload_(node|system): same as overload_llc$' "$WORK/idlebal.txt")
	check "idlebal on one node and LLC: overload_node and overload_system said to be the same as overload_llc in each of $((intervals + 1)) reports ($repeats lines)" \
		[ "$repeats" -eq $((2 * (intervals + 1))) ]
fi
finish
