#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Leaks: 100 start/stop cycles of each tool leave no BPF program, map or
# link behind (the kernel frees them asynchronously: waited for, up to
# 10 s), and each tool runs clean under valgrind (memcheck, definite and
# indirect leaks are errors) with every feature on; valgrind.supp holds
# the false positives of valgrind's bpf(2) model, explained there.
source "$(dirname "$0")/../live/lib.sh"


cycles=${LEAK_CYCLES:-100}
# every cycle exited 0, and no kind of BPF object counts more than before
cycles_clean() { [ "$failed" -eq 0 ] && bpf_objects_within "$after" "$before"; }
for tool in $TOOLS; do
	before=$(bpf_objects_quiet)
	failed=0
	for ((c = 0; c < cycles; c++)); do
		"$BIN/$tool" -d 0.01 >/dev/null 2>"$WORK/err" || failed=$((failed + 1))
	done
	after=$(bpf_objects_settled "$before")
	check "$tool: $cycles start/stop cycles, $failed failed; programs maps links $before before, $after after" \
		cycles_clean
done

supp=$ROOT/tests/robustness/valgrind.supp
declare -A args=(
	[sisscan]="--filter ideal,overloaded,delayed -P --events $WORK/vg.jsonl --listen 127.0.0.1:0 --prometheus-file $WORK/vg.prom"
	[idlebal]="--listen 127.0.0.1:0 --prometheus-file $WORK/vg.prom"
	[numascan]="--listen 127.0.0.1:0 --prometheus-file $WORK/vg.prom"
)
for tool in $TOOLS; do
	# shellcheck disable=SC2086
	valgrind --quiet --leak-check=full --errors-for-leak-kinds=definite,indirect \
		--error-exitcode=99 --track-fds=yes --suppressions="$supp" \
		"$BIN/$tool" ${args[$tool]} -i 0.5 -d 2 --json >"$WORK/vg.out" 2>"$WORK/vg.err"
	status=$?
	# --track-fds lists what is open at exit; anything not inherited
	# from the parent (this shell) is the tool's own, left open.
	read -r inherited leaked < <(awk '
		/Open .*descriptor [0-9]+:/ { pending = 1; next }
		pending { if (/inherited from parent/) inh++; else left++; pending = 0 }
		END { print inh + 0, left + 0 }' "$WORK/vg.err")
	if [ $status -eq 0 ] && [ "$leaked" -eq 0 ]; then
		pass "$tool under valgrind (${args[$tool]%% --prom*}...): no error, no leak, no descriptor of its own left open ($inherited inherited)"
	else
		fail "$tool under valgrind" "status $status, $leaked descriptors left: $(grep -v -e '^==[0-9]*== *$' -e 'unhandled eBPF command' "$WORK/vg.err" | head -c 600)"
	fi
done
finish
