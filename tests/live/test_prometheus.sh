#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# sisscan's Prometheus exports end to end: a real Prometheus scrapes the
# tool's --listen endpoint and, through node_exporter's textfile
# collector, its --prometheus-file, and what Prometheus stored must equal
# the run's JSON summary exactly. Hostile clients hit --listen while the
# workload runs, in the same run, so the counts also show they changed
# nothing. Our own Prometheus and node_exporter, on loopback ports of
# their own: the Debian packages' services (if any) are never touched.
source "$(dirname "$0")/lib.sh"

HOST=127.0.0.1
declare -A OURS	# name -> pid of each daemon we started

# pick_port VAR: a free loopback port in 19000-19999, none picked before.
picked=" "
pick_port() {
	local p i
	for ((i = 0; i < 200; i++)); do
		p=$((19000 + RANDOM % 1000))
		[[ $picked == *" $p "* ]] && continue
		[ -n "$(ss -Htln "sport = :$p" 2>/dev/null)" ] && continue
		picked+="$p "
		printf -v "$1" %s "$p"
		return 0
	done
	return 1
}

# http_code URL [CURL ARGS]: the status code, 000 when nothing answered.
http_code() {
	local url=$1
	shift
	curl -s -m 5 -o /dev/null -w '%{http_code}' "$@" "$url" 2>/dev/null
}

# wait_for SECONDS CMD...: polls CMD every 0.2 s until it succeeds.
wait_for() {
	local end=$((SECONDS + $1))
	shift
	while ! "$@"; do
		[ $SECONDS -ge $end ] && return 1
		sleep 0.2
	done
}

# promq QUERY: Prometheus's instant query API, raw JSON.
promq() {
	curl -s -m 5 -G --data-urlencode "query=$1" "http://$HOST:$prom_port/api/v1/query"
}

# prom1 QUERY: the value of a query that has exactly one series, else "".
prom1() {
	promq "$1" | jq -r 'if .status == "success" and (.data.result | length) == 1
		then .data.result[0].value[1] else empty end' 2>/dev/null
}

# exposed FILE NAME: the value of the one unlabelled-by-us series NAME in
# an exposition (every sample line ends in its value).
exposed() {
	awk -v n="$2" 'index($0, n "{") == 1 || index($0, n " ") == 1 { print $NF }' "$1"
}

for bin in curl jq /usr/bin/python3 /usr/bin/prometheus /usr/bin/promtool \
	/usr/bin/prometheus-node-exporter; do
	command -v "$bin" >/dev/null ||
		fail "$bin is installed (make deps)"
done
[ "$failures" -eq 0 ] || { finish; exit 1; }

# The workload runs as a copy with a name of its own: --comm then counts
# our pingpong only, not one of a test running next to us, so the
# counters really stop when it does.
COMM=pingpong$$
COMM=${COMM:0:15}
mkdir -p "$WORK/bin" "$WORK/textfile" "$WORK/tsdb"
cp "$BUILD/workloads/pingpong" "$WORK/bin/$COMM"

# 1. Our Prometheus (scraping every second) and node_exporter (the
# textfile collector only).
if ! pick_port prom_port || ! pick_port node_port || ! pick_port tool_port; then
	fail "three free ports in 19000-19999"
	finish
	exit 1
fi
cat >"$WORK/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: sisscan
    static_configs: [{targets: ['$HOST:$tool_port']}]
  - job_name: node
    static_configs: [{targets: ['$HOST:$node_port']}]
EOF
/usr/bin/prometheus --config.file="$WORK/prometheus.yml" \
	--storage.tsdb.path="$WORK/tsdb" --web.listen-address="$HOST:$prom_port" \
	>"$WORK/prometheus.log" 2>&1 &
OURS[prometheus]=$!
at_exit "kill ${OURS[prometheus]}"
/usr/bin/prometheus-node-exporter --web.listen-address="$HOST:$node_port" \
	--collector.disable-defaults --collector.textfile \
	--collector.textfile.directory="$WORK/textfile" >"$WORK/node.log" 2>&1 &
OURS[node]=$!
at_exit "kill ${OURS[node]}"
prom_ready() { [ "$(http_code "http://$HOST:$prom_port/-/ready")" = 200 ]; }
node_ready() { [ "$(http_code "http://$HOST:$node_port/metrics")" = 200 ]; }
if wait_for 30 prom_ready; then
	pass "our prometheus is ready on $HOST:$prom_port (scraping every 1 s)"
else
	fail "our prometheus is ready on $HOST:$prom_port" "$(tail -5 "$WORK/prometheus.log")"
fi
if wait_for 30 node_ready; then
	pass "our node_exporter answers on $HOST:$node_port (textfile collector on $WORK/textfile)"
else
	fail "our node_exporter answers on $HOST:$node_port" "$(tail -5 "$WORK/node.log")"
fi

# 2. The tool, serving /metrics and rewriting the textfile every second.
prom_file=$WORK/textfile/sisscan.prom
"$BIN/sisscan" --comm "$COMM" --json -i 1 --listen "$HOST:$tool_port" \
	--prometheus-file "$prom_file" >"$WORK/run.jsonl" 2>"$WORK/run.err" &
tool=$!
at_exit "kill -9 $tool"
tool_ready() { [ "$(http_code "http://$HOST:$tool_port/metrics")" = 200 ]; }
if wait_for 20 tool_ready; then
	pass "sisscan --listen $HOST:$tool_port answers GET /metrics with 200"
else
	fail "sisscan --listen answers GET /metrics" "$(tail -5 "$WORK/run.err")"
fi

# The workload: pingpong runs of 20000 round trips back to back until
# the hostile clients are done, so it runs during all of them; the round
# trips are what the runs themselves report.
(
	while :; do
		"$WORK/bin/$COMM" -n 20000 >>"$WORK/pp.out" || echo "pingpong failed: $?" >>"$WORK/pp.out"
		[ -e "$WORK/stop" ] && break
	done
) &
load=$!
at_exit "touch $WORK/stop; kill $load"
wait_for 10 grep -q 'pingpong pid' "$WORK/pp.out" 2>/dev/null

# 5. Hostile clients, while the workload runs.
# (a) Bytes that are no HTTP request: a 400, not a hang or a crash.
garbage=$(timeout 5 bash -c "exec 3<>/dev/tcp/$HOST/$tool_port &&
	printf 'xyz\x01\x02\r\n\r\n' >&3 && cat <&3" 2>/dev/null | head -1 | tr -d '\r')
if [[ $garbage == "HTTP/1.1 400 "* ]]; then
	pass "garbage bytes get '$garbage'"
else
	fail "garbage bytes get HTTP 400" "first line: '$garbage'"
fi
# (b) A 10 MB header, sent whole unless the server ends the connection:
# 431 (the server lingers so the client can read it) or the connection
# closed; the timeout makes a hang exit 124.
t0=$(date +%s.%N)
big=$(timeout 15 bash -c "exec 3<>/dev/tcp/$HOST/$tool_port || exit 3
	{ printf 'GET /metrics HTTP/1.1\r\nHost: $HOST\r\nX-Big: '
	  head -c 10000000 /dev/zero | tr '\0' a
	  printf '\r\n\r\n'; } >&3 2>/dev/null &
	writer=\$!
	cat <&3
	wait \$writer
	exit 0" 2>/dev/null | head -1 | tr -d '\r'; echo "rc=${PIPESTATUS[0]}")
took=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
rc=${big##*rc=}
big=${big%rc=*}
big=${big%$'\n'}
if [ "$rc" = 0 ] && { [[ $big == "HTTP/1.1 431 "* ]] || [ -z "$big" ]; }; then
	pass "10 MB header: '${big:-connection closed}' after ${took} s"
else
	fail "10 MB header: 431 or closed, no hang" "exit $rc (124 = hung 15 s), first line '$big'"
fi
# (c) 500 connections at once, held 1 s, then a GET on each: the tool
# keeps serving (a slot each up to its limit, 503 beyond), and a normal
# scrape afterwards works.
cat >"$WORK/flood.py" <<'EOF'
# flood.py HOST PORT N HOLD_S DEADLINE_S: opens N connections at once,
# holds them HOLD_S seconds, then sends a GET /metrics on each still
# open and prints how each ended as JSON: status code -> count; "closed":
# ended with no status line, "hung": nothing by the deadline,
# "connect_failed": the TCP connect did not complete within 5 s.
import errno, json, re, selectors, socket, sys, time

host, port, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
hold, limit = float(sys.argv[4]), float(sys.argv[5])
start = time.monotonic()
deadline = start + limit
req = b"GET /metrics HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n" % host.encode()
outcome, buf, socks = {}, {}, []

for i in range(n):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setblocking(False)
    buf[i] = b""
    if s.connect_ex((host, port)) not in (0, errno.EINPROGRESS):
        outcome[i] = "connect_failed"
        s.close()
        s = None
    socks.append(s)

sel = selectors.DefaultSelector()
for i, s in enumerate(socks):
    if s is not None:
        sel.register(s, selectors.EVENT_WRITE, i)
connected = []
while sel.get_map() and time.monotonic() < start + 5:
    for key, _ in sel.select(0.2):
        sel.unregister(key.fileobj)
        if key.fileobj.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR):
            outcome[key.data] = "connect_failed"
        else:
            connected.append(key.data)
for key in list(sel.get_map().values()):
    sel.unregister(key.fileobj)
    outcome[key.data] = "connect_failed"

time.sleep(hold)

def take(i, s):
    """Reads what is there; False once the connection has ended."""
    try:
        data = s.recv(65536)
    except BlockingIOError:
        return True
    except OSError:
        return False
    if not data:
        return False
    buf[i] += data
    return True

# An answer that came unasked (a 503 over the limit) is read, not asked.
for i in sorted(connected):
    s = socks[i]
    if not take(i, s) or buf[i]:
        while buf[i] and take(i, s) and time.monotonic() < deadline:
            time.sleep(0.01)
        outcome[i] = None
        continue
    try:
        s.sendall(req)
    except BlockingIOError:
        pass
    except OSError:
        outcome[i] = None
        continue
    sel.register(s, selectors.EVENT_READ, i)
while sel.get_map() and time.monotonic() < deadline:
    for key, _ in sel.select(0.2):
        if not take(key.data, key.fileobj):
            sel.unregister(key.fileobj)
            outcome[key.data] = None
for key in list(sel.get_map().values()):
    outcome[key.data] = "hung"

counts = {}
for i in range(n):
    o = outcome.get(i, "hung")
    if o is None:
        m = re.match(rb"HTTP/1\.[01] (\d{3}) ", buf[i])
        o = m.group(1).decode() if m else "closed"
    counts[o] = counts.get(o, 0) + 1
print(json.dumps(counts, sort_keys=True))
EOF
flood=$(timeout 30 /usr/bin/python3 "$WORK/flood.py" "$HOST" "$tool_port" 500 1 15 2>"$WORK/flood.err")
after=$(http_code "http://$HOST:$tool_port/metrics")
alive=no
kill -0 $tool 2>/dev/null && alive=yes
# Every connection ends in a 200, a 503 or a close, some get served.
verdict=$(echo "$flood" | jq -r '(to_entries | map(select(.key | IN("200", "503", "closed") | not)) | length == 0)
	and ((."200" // 0) + (."503" // 0) + (.closed // 0)) == 500 and (."200" // 0) > 0' 2>/dev/null)
if [ "$alive" = yes ] && [ "$after" = 200 ] && [ "$verdict" = true ]; then
	pass "500 concurrent connections: $flood; then the tool is alive and /metrics gives $after"
else
	fail "500 concurrent connections: the tool survives and serves" \
		"outcomes '$flood' ($(head -c 300 "$WORK/flood.err")), alive $alive, /metrics then $after"
fi
# (d) Methods and paths it does not serve.
post=$(http_code "http://$HOST:$tool_port/metrics" -X POST --data x)
check "POST /metrics gets 405 (got $post)" [ "$post" = 405 ]
nope=$(http_code "http://$HOST:$tool_port/nope")
check "GET /nope gets 404 (got $nope)" [ "$nope" = 404 ]

# The hostile clients are done: let the current pingpong run finish.
touch "$WORK/stop"
if ! wait_for 60 eval "! kill -0 $load 2>/dev/null"; then
	kill $load
	echo "# the workload did not end within 60 s"
fi
wait $load 2>/dev/null
workload_end=$(date +%s.%N)
runs=$(grep -c 'pingpong pid' "$WORK/pp.out")
rounds=$(awk '/pingpong pid/ { n += $7 } END { print n + 0 }' "$WORK/pp.out")

# After the last run only idle counters remain: wait for an interval
# record ending after it (the textfile then holds the final values),
# then for both jobs to be scraped after that with the value /metrics
# gives now.
last_end() {
	jq -R -r 'fromjson? | select(.type == "interval") | .end' "$WORK/run.jsonl" | tail -1
}
interval_after() { awk -v e="$(last_end)" -v w="$workload_end" 'BEGIN { exit !(e > w) }'; }
interval=ok
wait_for 10 interval_after || interval="none ended after the workload within 10 s"
settled=$(date +%s.%N)
curl -s -m 5 "http://$HOST:$tool_port/metrics" >"$WORK/metrics.txt"
final=$(exposed "$WORK/metrics.txt" schedscan_sisscan_wakeups_total)
scraped() {
	local job v ts
	for job in sisscan node; do
		v=$(prom1 "schedscan_sisscan_wakeups_total{job=\"$job\"}")
		ts=$(prom1 "timestamp(schedscan_sisscan_wakeups_total{job=\"$job\"})")
		[ -n "$v" ] && [ "$v" = "$final" ] || return 1
		awk -v t="$ts" -v s="$settled" 'BEGIN { exit !(t > s) }' || return 1
	done
}
if [ "$interval" = ok ] && [ -n "$final" ] && wait_for 20 scraped; then
	pass "an interval ended after the workload, then Prometheus scraped both jobs: wakeups_total $final in job sisscan and job node"
else
	fail "an interval ends after the workload, then Prometheus scrapes both jobs" \
		"interval record: $interval; /metrics wakeups_total '$final'; prometheus: sisscan '$(prom1 'schedscan_sisscan_wakeups_total{job="sisscan"}')', node '$(prom1 'schedscan_sisscan_wakeups_total{job="node"}')'"
fi
# Everything Prometheus has of ours, before the tool's end makes the
# direct job's series stale.
promq '{__name__=~"schedscan_sisscan_.+"}' >"$WORK/prom.json"
cp "$prom_file" "$WORK/textfile.txt" 2>/dev/null

# 6 (first half). SIGINT ends the run with a summary and status 0.
kill -INT $tool
if wait_for 10 eval "! kill -0 $tool 2>/dev/null"; then
	wait $tool
	status=$?
else
	kill -9 $tool
	wait $tool
	status="none (still running 10 s after SIGINT)"
fi
jq -c 'select(.type == "summary")' "$WORK/run.jsonl" >"$WORK/summary.json" 2>/dev/null
reason=$(jq -r .end_reason "$WORK/summary.json" 2>/dev/null)
if [ "$status" = 0 ] && [ "$reason" = signal ]; then
	pass "sisscan exits 0 on SIGINT, with a summary (end_reason signal)"
else
	fail "sisscan exits 0 on SIGINT with a summary" "status $status, end_reason '$reason'"
fi

# 3. Exactly the summary's numbers, through both paths. The counters are
# the summary's metrics with a value that is no percentage.
counters=$(jq -r '.metrics | to_entries[] | select((.value | has("value")) and .value.unit != "percent"
	and (.key | endswith("_pct") | not)) | .key' "$WORK/summary.json" 2>/dev/null | tr '\n' ' ')
echo "# counters in the summary: $counters"
# promv JOB NAME: the values Prometheus has for NAME in JOB, one a line.
promv() {
	jq -r --arg j "$1" --arg n "$2" '.data.result[] | select(.metric.job == $j and .metric.__name__ == $n) |
		.value[1]' "$WORK/prom.json"
}
for job in sisscan node; do
	bad=
	for m in $counters; do
		want=$(metric "$WORK/summary.json" "$m")
		got=$(promv $job "schedscan_sisscan_${m}_total" | tr '\n' ' ')
		awk -v g="$got" -v w="$want" 'BEGIN { exit !(split(g, a, " ") == 1 && a[1] == w) }' ||
			bad+=" $m: prometheus '${got% }' summary $want;"
	done
	if [[ $counters == *wakeups* ]] && [ -z "$bad" ]; then
		pass "job $job: every counter in Prometheus = the summary (wakeups $(metric "$WORK/summary.json" wakeups), $(echo $counters | wc -w) counters)"
	else
		fail "job $job: every counter in Prometheus = the summary" "counters '$counters';$bad"
	fi
done

# Histograms: each cumulative bucket = the summary's buckets up to its
# le, +Inf and _count = hist.count; each summary bucket's high is an le.
# A *_ns histogram is exported in seconds (le scaled by 1e-9).
hists=$(jq -r '.metrics | to_entries[] | select(.value | has("hist")) | .key' "$WORK/summary.json" 2>/dev/null)
for job in sisscan node; do
	bad=
	for h in $hists; do
		name=schedscan_sisscan_$h scale=1
		[[ $h == *_ns ]] && name=schedscan_sisscan_${h%_ns}_seconds scale=1e-9
		bad+=$(jq -r -n --slurpfile s "$WORK/summary.json" --slurpfile p "$WORK/prom.json" \
			--arg job $job --arg m "$h" --arg n "$name" --argjson scale $scale '
			$s[0].metrics[$m].hist as $h |
			[$p[0].data.result[] | select(.metric.job == $job)] as $r |
			[$r[] | select(.metric.__name__ == $n + "_bucket") |
			 {le: .metric.le, v: (.value[1] | tonumber)}] as $b |
			[$r[] | select(.metric.__name__ == $n + "_count") | .value[1] | tonumber] as $c |
			def near($a; $b): (($a - $b) | fabs) <= 1e-9 * (($b | fabs) + 1e-30);
			def cum($l): [$h.buckets[] | select(.high != null and (.high * $scale < $l or near(.high * $scale; $l))) |
			             .count] | add // 0;
			([$b[] | (if .le == "+Inf" then $h.count else cum(.le | tonumber) end) as $want |
			  select(.v != $want) | "\($m) le=\(.le): prometheus \(.v), summary \($want)"]
			 + (if ($b | length) < 2 then ["\($m): \($b | length) buckets in Prometheus"] else [] end)
			 + (if any($b[]; .le == "+Inf") then [] else ["\($m): no +Inf bucket"] end)
			 + (if $c == [$h.count] then [] else ["\($m)_count: prometheus \($c), summary \($h.count)"] end)
			 + [$h.buckets[] | select(.high != null) | .high as $hi |
			    select(any($b[]; .le != "+Inf" and near(.le | tonumber; $hi * $scale)) | not) |
			    "\($m): summary bucket high \($hi) is no le"]) | map(" " + . + ";") | join("")' 2>&1)
	done
	shown=$(jq -r --arg j $job '[.data.result[] | select(.metric.job == $j and
		.metric.__name__ == "schedscan_sisscan_scan_depth_bucket") | "\(.metric.le)=\(.value[1])"] |
		sort_by(split("=")[0] | if . == "+Inf" then 1e308 else tonumber end) | join(" ")' "$WORK/prom.json")
	if [[ $hists == *scan_depth* ]] && [ -z "$bad" ]; then
		pass "job $job: histogram buckets = the summary's, cumulated (scan_depth $shown; count $(jq .metrics.scan_depth.hist.count "$WORK/summary.json"))"
	else
		fail "job $job: histogram buckets = the summary's" "histograms '$(echo $hists)':$bad"
	fi
done

# The per-LLC table: its placements add up to the summary's rows.
want=$(jq '[.breakdown.rows[].placements] | add // 0' "$WORK/summary.json" 2>/dev/null)
for job in sisscan node; do
	got=$(promv $job schedscan_sisscan_llc_placements_total | awk '{ n += $1 } END { print n + 0 }')
	series=$(promv $job schedscan_sisscan_llc_placements_total | wc -l)
	if [ -n "$want" ] && [ "$series" -gt 0 ] && [ "$got" = "$want" ]; then
		pass "job $job: llc_placements_total over $series llc series = $got = the summary's breakdown rows"
	else
		fail "job $job: llc_placements_total summed = the summary's breakdown rows" \
			"prometheus $got over $series series, summary '$want'"
	fi
done

# Not all zeros: each round trip wakes a side that is asleep when the
# byte arrives. On this 2-CPU host that is 1.1 (both sides running on
# CPUs of their own, one often not yet asleep) to 2 (both sleep) per
# round trip, so at least half one per round trip; at most both sides
# once each plus a few at the start and exit of each run.
wakeups=$(metric "$WORK/summary.json" wakeups)
if [ "$rounds" -gt 0 ] && [ "$wakeups" -ge $((rounds / 2)) ] 2>/dev/null &&
	[ "$wakeups" -le $((2 * rounds + 10 * runs)) ] && ! grep -q 'pingpong failed' "$WORK/pp.out"; then
	pass "wakeups $wakeups for $rounds round trips in $runs pingpong runs ($(awk -v w="$wakeups" -v r="$rounds" 'BEGIN { printf "%.2f", w / r }') per round trip; within [0.5, 2] + a few per run)"
else
	fail "wakeups reflect the workload" "wakeups '$wakeups', $rounds round trips in $runs runs $(grep failed "$WORK/pp.out" | head -1)"
fi

# 4. promtool accepts both expositions.
for f in metrics.txt textfile.txt; do
	if out=$(/usr/bin/promtool check metrics <"$WORK/$f" 2>&1) && [ -s "$WORK/$f" ]; then
		pass "promtool check metrics accepts the $f exposition ($(grep -c '^schedscan' "$WORK/$f") samples)"
	else
		fail "promtool check metrics accepts the $f exposition" "$(echo "$out" | head -5 | tr '\n' ';') (size $(wc -c <"$WORK/$f" 2>/dev/null))"
	fi
done

# 6. Nothing of ours left: stop our daemons, then no process whose
# command line names this run's $WORK remains (the tool, the workload,
# the flood client, prometheus and node_exporter all do).
for d in prometheus node; do
	kill "${OURS[$d]}" 2>/dev/null
done
for d in prometheus node; do
	wait_for 10 eval "! kill -0 ${OURS[$d]} 2>/dev/null"
done
strays=$(pgrep -a -f "$WORK" | grep -v "^$$ ")
check "no stray processes${strays:+: $strays}" [ -z "$strays" ]

finish
