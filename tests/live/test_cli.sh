#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Every common option rejects bad values with exit status 2 and one clear
# sentence on stderr, before anything is loaded; runs the sanitizer builds.
source "$(dirname "$0")/lib.sh"

nr_cpus=$(nproc --all)
# expect_usage_error TOOL "ARGS" "MESSAGE"
expect_usage_error() {
	local tool=$1 args=$2 want=$3 out status before after
	before=$(bpf_prog_count)
	# shellcheck disable=SC2086
	"$BUILD/san/$tool" $args >"$WORK/out" 2>"$WORK/err"
	status=$?
	after=$(bpf_prog_count)
	if [ $status -ne 2 ]; then
		fail "$tool $args: exit 2" "exit status $status; stderr: $(head -c 300 "$WORK/err")"
	elif ! grep -qF -- "$tool: $want" "$WORK/err"; then
		fail "$tool $args: message" "want '$tool: $want', got: $(head -c 300 "$WORK/err")"
	elif [ -s "$WORK/out" ]; then
		fail "$tool $args: nothing on stdout" "$(head -c 200 "$WORK/out")"
	elif [ "$before" != "$after" ]; then
		fail "$tool $args: nothing attached" "BPF programs $before -> $after"
	else
		pass "$tool $args -> exit 2: $want"
	fi
}

for tool in $TOOLS; do
	expect_usage_error $tool "-p abc" "invalid PID 'abc': expected a number"
	expect_usage_error $tool "-p -4" "invalid PID '-4': it must be above 0"
	expect_usage_error $tool "-p 2147483647" "no process with PID 2147483647 exists"
	expect_usage_error $tool "--comm 0123456789abcdefg" "task name '0123456789abcdefg' is 17 bytes, longer than the kernel's 15"
	expect_usage_error $tool "-c /nonexistent/cgroup" "cgroup '/nonexistent/cgroup' does not exist"
	expect_usage_error $tool "-c /tmp" "'/tmp' is not a cgroup v2 directory"
	expect_usage_error $tool "-C $nr_cpus" "CPU $nr_cpus does not exist or is offline"
	expect_usage_error $tool "-C 0-x" "invalid CPU list"
	expect_usage_error $tool "-C 3-1" "invalid CPU list"
	expect_usage_error $tool "-i 0" "invalid interval '0': it must be above 0"
	expect_usage_error $tool "-i soon" "invalid interval 'soon': expected a number of seconds"
	expect_usage_error $tool "-d -1" "invalid duration '-1': it must be above 0"
	expect_usage_error $tool "-d 99999999" "duration '99999999' is out of range"
	expect_usage_error $tool "abc" "invalid interval 'abc': expected a number of seconds"
	expect_usage_error $tool "1 0" "invalid count '0': it must be above 0"
	expect_usage_error $tool "1 2 3" "unexpected argument '3': only [interval] [count] are taken"
	expect_usage_error $tool "-i 1 2" "the interval was given twice (-i and a positional interval)"
	expect_usage_error $tool "--mode ebpf" "invalid mode 'ebpf': expected auto, fentry, kprobe or tracepoint"
	expect_usage_error $tool "--bogus" "unrecognized option '--bogus'"

	if "$BUILD/san/$tool" --help >"$WORK/help" 2>&1 && grep -q -- '--mode=MODE' "$WORK/help" &&
		[ "$(awk '{ if (length($0) > m) m = length($0) } END { print m }' "$WORK/help")" -le 80 ]; then
		pass "$tool --help exits 0 and fits 80 columns"
	else
		fail "$tool --help exits 0 and fits 80 columns" "$(head -5 "$WORK/help")"
	fi
	check "$tool --version" grep -q "^$tool [0-9]" <("$BUILD/san/$tool" --version)

	# Without privileges: exit 1 with a sentence, not a libbpf dump.
	expect_error 1 "^$tool: needs root or the CAP_BPF and CAP_PERFMON capabilities\$" \
		"$tool as an unprivileged user: exit 1 with a clear message" \
		setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		"$BIN/$tool" -d 1
done
# A forced tier the kernel lacks is an error naming the tier and the hook,
# never a silent fallback (on this host fentry loads fail and there is no
# kprobe PMU; where a tier works, the run must report that tier instead).
for mode in fentry kprobe; do
	"$BIN/sisscan" --mode $mode --json -d 0.3 >"$WORK/out" 2>"$WORK/err"
	status=$?
	if [ $status -eq 1 ] && grep -q "^sisscan: --mode $mode is not available for select_task_rq_fair(): " "$WORK/err" &&
		[ ! -s "$WORK/out" ]; then
		pass "sisscan --mode $mode where the kernel lacks it: exit 1, '$(cut -c1-60 "$WORK/err")...'"
	elif [ $status -eq 0 ] && [ "$(tier_of "$WORK/out" select_task_rq_fair_calls)" = $mode ]; then
		pass "sisscan --mode $mode works here and reports tier $mode"
	else
		fail "sisscan --mode $mode" "status $status: $(head -c 300 "$WORK/err")"
	fi
done

# A kernel without BTF: hide /sys/kernel/btf in a private mount namespace.
expect_error 1 "^sisscan: this kernel has no BTF (/sys/kernel/btf/vmlinux is missing)" \
	"sisscan without kernel BTF: exit 1 with a clear message" \
	unshare -m sh -c "mount -t tmpfs none /sys/kernel/btf && exec '$BIN/sisscan' -d 1"
# The same kernel with its BTF in a file (as btfhub ships them): CO-RE
# relocates against the file; fentry and tp_btf need the kernel's own BTF,
# so the tools fall back to raw_tp and kprobes, and count.
cp /sys/kernel/btf/vmlinux "$WORK/vmlinux.btf"
for tool in $TOOLS; do
	# something to count: 16 MB touched 0.4 s into the run
	"$BUILD/workloads/memtouch" -t 1 -m 16 -s 0.4 -w 100 >/dev/null &
	unshare -m sh -c "mount -t tmpfs none /sys/kernel/btf && exec '$BIN/$tool' --btf '$WORK/vmlinux.btf' --json -d 1" \
		>"$WORK/btf.json" 2>"$WORK/btf.err"
	status=$?
	wait
	tiers=$(jq -r 'select(.type == "summary") | [.metrics[].tier] | unique | join(",")' "$WORK/btf.json" 2>/dev/null)
	# counters and table durations (idlebal's idle time) of the run
	counted=$(jq -r 'select(.type == "summary") | [(.metrics[] | .value? // 0 | numbers),
		(.. | objects | select(has("rows")) | .rows[] | with_entries(select(.key | endswith("_ns"))) | .[])] | add' \
		"$WORK/btf.json" 2>/dev/null)
	if [ $status -eq 0 ] && [ -n "$tiers" ] && [[ $tiers != *tp_btf* && $tiers != *fentry* ]] &&
		awk -v c="${counted:-0}" 'BEGIN { exit !(c > 0) }' && [ ! -s "$WORK/btf.err" ]; then
		pass "$tool --btf FILE on a kernel without BTF: exit 0, tiers $tiers, counts, nothing on stderr"
	else
		fail "$tool --btf FILE on a kernel without BTF" "status $status, tiers '$tiers', counted '$counted': $(head -c 300 "$WORK/btf.err")"
	fi
done
expect_error 2 "^sisscan: --btf '/etc/passwd' holds no BTF libbpf can read\$" \
	"--btf of a file without BTF: exit 2 (a bad option value), one sentence" "$BIN/sisscan" --btf /etc/passwd -d 0.2
finish
