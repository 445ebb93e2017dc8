#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# --listen (issue 32, items 9, 10 and 16). A port in use and an address
# this host does not have are usage errors: exit 2, one sentence, nothing
# on stdout, nothing loaded (the socket is bound while the options are
# parsed, not after the BPF load). With port 0 the tool says the port it
# got, in the text banner and on --ready-fd ("ready listen=ADDR:PORT"),
# and that port serves the tool's families; an 8000-byte URL gets 414
# (URI Too Long), not 400. --compare serves nothing and takes no port.
source "$(dirname "$0")/../live/lib.sh"

# http_code URL [CURL ARGS]: the status, 000 when nothing answered.
http_code() {
	local url=$1
	shift
	curl -s -m 5 -o /dev/null -w '%{http_code}' "$@" "$url" 2>/dev/null
}

# usage_error TOOL SENTENCE: stderr is SENTENCE and argp's "Try" hint,
# stdout is empty (no banner: the tool stopped before loading).
usage_error() {
	[ "$(head -n 1 "$WORK/err")" = "$1: $2" ] &&
		[ "$(grep -c -v "^Try \`$1 --help'" "$WORK/err")" -eq 1 ] &&
		[ ! -s "$WORK/out" ]
}

# refused TOOL LISTEN SENTENCE DESC: TOOL --listen LISTEN exits 2 with
# SENTENCE, before loading anything.
refused() {
	local tool=$1 listen=$2 sentence=$3 desc=$4 before after status
	before=$(bpf_prog_count)
	timeout -k 5 60 "$BIN/$tool" --listen "$listen" -d 1 >"$WORK/out" 2>"$WORK/err"
	status=$?
	after=$(bpf_prog_count)
	if [ $status -eq 2 ] && usage_error "$tool" "$sentence"; then
		pass "$tool --listen $listen ($desc): exit 2, \"$sentence\", nothing on stdout"
	else
		fail "$tool --listen $listen ($desc): exit 2 and one sentence" \
			"status $status, stdout $(head -c 80 "$WORK/out" | tr '\n' ' '), stderr $(head -c 200 "$WORK/err" | tr '\n' ' ')"
	fi
	check "$tool --listen $listen ($desc) loads nothing ($before BPF programs before, $after after)" \
		[ "$after" -eq "$before" ]
}

# json_run STATUS FILE: a run that exited 0 and printed JSON Lines only.
json_run() {
	[ "$1" -eq 0 ] && [ -s "$2" ] && jq -e . "$2" >/dev/null 2>&1
}

# A port in use: a plain listening socket that never answers.
/usr/bin/python3 -c '
import socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen()
print(s.getsockname()[1], flush=True)
time.sleep(3600)' >"$WORK/busy" &
occupier=$!
at_exit "kill $occupier"
for ((i = 0; i < 50; i++)); do
	[ -s "$WORK/busy" ] && break
	sleep 0.1
done
busy_port=$(cat "$WORK/busy")

long_path=$(head -c 8000 /dev/zero | tr '\0' a)

# First, while none of this test's runs has programs still being freed
# (the kernel frees them asynchronously), so the BPF program counts are
# this host's own.
for name in $TOOLS; do
	refused "$name" "127.0.0.1:$busy_port" "--listen 127.0.0.1:$busy_port: the address is already in use" \
		"a port in use"
	if ip -o addr show 2>/dev/null | grep -q ' 192\.0\.2\.1/'; then
		skip "$name --listen 192.0.2.1:9464: not this host's address" "this host has 192.0.2.1"
	else
		refused "$name" 192.0.2.1:9464 "--listen 192.0.2.1:9464: the address is not one of this host's" \
			"not this host's address"
	fi
done

# Port 0: the port the kernel picked is told, and served.
for name in $TOOLS; do
	if ! start_tool "$WORK/out" "$WORK/err" "$name" --listen 127.0.0.1:0 -d 2; then
		fail "$name --listen 127.0.0.1:0 -d 2 --ready-fd 3 starts" "$(head -c 300 "$WORK/err")"
		continue
	fi
	ready=$(cat "$WORK/ready")
	port=$(sed -n 's/^ready listen=127\.0\.0\.1:\([1-9][0-9]*\)$/\1/p' "$WORK/ready")
	if [ -n "$port" ] && [ "$(wc -l <"$WORK/ready")" -eq 1 ]; then
		pass "$name --listen 127.0.0.1:0: --ready-fd says '$ready'"
	else
		fail "$name --listen 127.0.0.1:0: --ready-fd says 'ready listen=127.0.0.1:PORT'" "it said '$ready'"
		port=0
	fi
	code=$(curl -s -m 5 -o "$WORK/metrics" -w '%{http_code}' "http://127.0.0.1:$port/metrics" 2>/dev/null)
	if [ "$code" = 200 ] && grep -q "^schedscan_${name}_info{" "$WORK/metrics" &&
		grep -q "^# TYPE schedscan_${name}_[a-z_]* counter" "$WORK/metrics"; then
		pass "$name: GET http://127.0.0.1:$port/metrics during the run -> 200 with schedscan_${name}_* families"
	else
		fail "$name: GET /metrics on the port --ready-fd told -> 200 with the tool's families" \
			"status $code: $(head -c 200 "$WORK/metrics" 2>/dev/null)"
	fi
	code=$(http_code "http://127.0.0.1:$port/$long_path")
	check "$name: GET of an 8000-byte path -> 414 (got $code)" [ "$code" = 414 ]
	wait "$tool"
	status=$?
	check "$name --listen 127.0.0.1:0 -d 2: exit 0 (got $status)" [ $status -eq 0 ]
	banner=$(sed -n 2p "$WORK/out")
	check "$name: the banner's second line is 'Serving Prometheus metrics at http://127.0.0.1:$port/metrics' (got '$banner')" \
		[ "$banner" = "Serving Prometheus metrics at http://127.0.0.1:$port/metrics" ]
done

# --json has no banner: the ready line is where the port is told, and
# IPv6 addresses are in brackets, as in a URL.
if ip -6 addr show dev lo 2>/dev/null | grep -q 'inet6 ::1/'; then
	if start_tool "$WORK/run.jsonl" "$WORK/err" sisscan --listen '[::1]:0' -d 2 --json; then
		ready=$(cat "$WORK/ready")
		port=$(sed -n 's/^ready listen=\[::1\]:\([1-9][0-9]*\)$/\1/p' "$WORK/ready")
		check "sisscan --listen [::1]:0 --json: --ready-fd says '$ready'" [ -n "$port" ]
		code=$(http_code "http://[::1]:${port:-0}/metrics" -g)
		check "sisscan: GET http://[::1]:$port/metrics -> 200 (got $code)" [ "$code" = 200 ]
		wait "$tool"
		status=$?
		check "sisscan --listen [::1]:0 --json: exit 0 (got $status), stdout only JSON" \
			json_run "$status" "$WORK/run.jsonl"
	else
		fail "sisscan --listen [::1]:0 -d 2 --json starts" "$(head -c 300 "$WORK/err")"
	fi
else
	skip "sisscan --listen [::1]:0 --json: --ready-fd tells the port" "no IPv6 loopback"
fi

# A comparison serves nothing: it takes no port, so one in use is no error.
if [ -s "$WORK/run.jsonl" ]; then
	"$BIN/sisscan" --listen "127.0.0.1:$busy_port" --compare "$WORK/run.jsonl" -- "$WORK/run.jsonl" \
		>"$WORK/out" 2>"$WORK/err"
	status=$?
	if [ $status -eq 0 ] && [ -s "$WORK/out" ]; then
		pass "sisscan --listen 127.0.0.1:$busy_port --compare: no port taken, so the one in use does not matter"
	else
		fail "sisscan --listen on a port in use with --compare compares" \
			"status $status: $(head -c 300 "$WORK/err")"
	fi
else
	skip "sisscan --listen on a port in use with --compare" "no recorded run to compare"
fi
finish
