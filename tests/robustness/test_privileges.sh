#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Privileges: the minimal set README.md documents (CAP_BPF + CAP_PERFMON,
# no root) runs every tool and measures what root measures (the same
# metrics, from the same tiers); one capability less, or none, is refused
# with exit 1 and one sentence, before anything is loaded.
source "$(dirname "$0")/../live/lib.sh"

# as_user CAPS TOOL ARGS...: TOOL as nobody with exactly CAPS (e.g. +bpf,+perfmon).
as_user() {
	local caps=$1
	shift
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		--inh-caps=-all${caps:+,$caps} --ambient-caps=-all${caps:+,$caps} "$@"
}

for tool in $TOOLS; do
	"$BIN/$tool" --json -d 0.3 >"$WORK/root.json" 2>"$WORK/err"
	as_user +bpf,+perfmon "$BIN/$tool" --json -d 0.3 >"$WORK/user.json" 2>"$WORK/err"
	status=$?
	# name:tier of every metric measured, as root and as the user.
	tiers() { jq -r 'select(.type == "summary") | .metrics | to_entries[] | "\(.key):\(.value.tier)"' "$1" | sort; }
	if [ $status -eq 0 ] && [ -s "$WORK/user.json" ] && [ "$(tiers "$WORK/user.json")" = "$(tiers "$WORK/root.json")" ]; then
		pass "$tool as nobody with CAP_BPF + CAP_PERFMON: exit 0, the $(tiers "$WORK/user.json" | wc -l) metrics and tiers root gets"
	else
		fail "$tool with CAP_BPF + CAP_PERFMON only" "status $status: $(head -c 300 "$WORK/err"); $(diff <(tiers "$WORK/root.json") <(tiers "$WORK/user.json") | head -5)"
	fi
	for caps in +bpf +perfmon ""; do
		expect_error 1 "^$tool: needs root or the CAP_BPF and CAP_PERFMON capabilities\$" \
			"$tool as nobody with ${caps:-no capabilities}: exit 1, one sentence" \
			as_user "$caps" "$BIN/$tool" -d 0.3
	done
done
finish
