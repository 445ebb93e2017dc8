#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Missing pieces: a hook the kernel lacks in every flavour (simulated with
# SCHEDSCAN_SKIP_FLAVOURS, which makes lib/hooks.c treat flavours as
# absent) is an exit 1 naming the hook and why each flavour failed;
# without tracefs (unmounted in a private mount namespace) the tools run
# on tp_btf, which needs none, and the classic-tracepoint fallback says how
# to mount it. (No kernel BTF, --btf FILE and a forced --mode the kernel
# lacks: tests/live/test_cli.sh.)
source "$(dirname "$0")/../live/lib.sh"

declare -A first_hook=([sisscan]=sched_waking [idlebal]=sched_migrate_task [numascan]=page_fault_user)
for tool in $TOOLS; do
	SCHEDSCAN_SKIP_FLAVOURS=fentry,kprobe,tp_btf,raw_tp,tracepoint "$BIN/$tool" --json -d 0.3 \
		>"$WORK/out" 2>"$WORK/err"
	status=$?
	if [ $status -eq 1 ] && [ ! -s "$WORK/out" ] &&
		grep -q "^$tool: cannot attach to .*${first_hook[$tool]}: .*skipped" "$WORK/err"; then
		pass "$tool with a hook missing in every flavour: exit 1, '$(cut -c 1-90 "$WORK/err")...'"
	else
		fail "$tool with a hook missing in every flavour" "status $status: $(head -c 300 "$WORK/err")"
	fi
	# tracefs unmounted (debugfs too: it holds the older mount point)
	unshare -m sh -c "umount /sys/kernel/tracing; umount /sys/kernel/debug/tracing; umount /sys/kernel/debug; exec '$BIN/$tool' --json -d 0.3" \
		>"$WORK/out" 2>"$WORK/err"
	status=$?
	check "$tool without tracefs: exit 0, a summary (tp_btf needs no tracefs)" \
		[ $status -eq 0 -a "$(jq -r 'select(.type == "summary") | .type' "$WORK/out" 2>/dev/null)" = summary ]
	unshare -m sh -c "umount /sys/kernel/tracing; umount /sys/kernel/debug/tracing; umount /sys/kernel/debug; SCHEDSCAN_SKIP_FLAVOURS=tp_btf,raw_tp exec '$BIN/$tool' --json -d 0.3" \
		>"$WORK/out" 2>"$WORK/err"
	status=$?
	# (numascan's page_fault_user has no classic-tracepoint flavour at all)
	if [ $status -eq 1 ] && { grep -q "tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)" "$WORK/err" ||
		{ [ $tool = numascan ] && grep -q "^numascan: cannot attach to tracepoint page_fault_user: " "$WORK/err"; }; }; then
		pass "$tool, classic tracepoints only, without tracefs: exit 1, '$(cut -c 1-60 "$WORK/err")...$(grep -o 'tracefs is not mounted.*' "$WORK/err" | head -c 70)'"
	else
		fail "$tool, classic tracepoints only, without tracefs" "status $status: $(head -c 300 "$WORK/err")"
	fi
done 2>/dev/null
finish
