#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Windows under load (issue 10, defect 6): with hackbench keeping both
# CPUs busy, interval records cover the run back to back, the summary
# ends where the last interval ended, and the schedule does not drift:
# interval k ends k intervals after the start plus the tool's wake-up
# latency, which is measured here (the median lateness), not assumed.
source "$(dirname "$0")/../live/lib.sh"

hackbench -g 4 -f 10 -l 100000000 -s 100 >/dev/null 2>&1 &
load=$!
at_exit "pkill -P $load; kill $load"
sleep 0.5

for tool in $TOOLS; do
	"$BIN/$tool" --json -i 0.1 -d 3 >"$WORK/w.jsonl" 2>"$WORK/err"
	status=$?
	check "$tool -i 0.1 -d 3 under hackbench: exit 0" [ $status -eq 0 ]
	# start, end of each interval; then the summary's.
	jq -r 'select(.type == "interval") | "\(.start) \(.end)"' "$WORK/w.jsonl" >"$WORK/iv"
	read -r sum_start sum_end sum_intervals < <(jq -r 'select(.type == "summary") | "\(.start) \(.end) \(.intervals)"' "$WORK/w.jsonl")
	n=$(wc -l <"$WORK/iv")
	verdict=$(awk -v s0="$sum_start" -v s1="$sum_end" -v n="$n" '
		NR == 1 && $1 != s0 { bad = bad " first interval starts at " $1 " not " s0 }
		NR > 1 && $1 != prev { bad = bad " gap before interval " NR }
		{ prev = $2; late[NR] = $2 - s0 - NR * 0.1 }
		END {
			if (prev != s1) bad = bad " summary ends " s1 - prev " s after the last interval"
			# median lateness, and the last intervals against it: no drift
			m = 0; for (i = 1; i <= n; i++) sorted[i] = late[i]
			for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
				if (sorted[j] < sorted[i]) { t = sorted[i]; sorted[i] = sorted[j]; sorted[j] = t }
			med = sorted[int((n + 1) / 2)]
			tail_late = 0; for (i = n - 4; i <= n; i++) tail_late += late[i] / 5
			printf "%s|%.4f|%.4f|%.4f", bad, med, tail_late, sorted[n]
		}' "$WORK/iv")
	IFS='|' read -r bad median tail_late worst <<<"$verdict"
	check "$tool: $n intervals back to back from the start, the summary ends where the last ended${bad:+ ($bad)}" \
		[ -z "$bad" -a "$n" -eq "$sum_intervals" -a "$n" -ge 25 ]
	# Drift would make the last intervals later than the median by a
	# growing sum; allow 3 medians plus one interval of scheduling noise.
	check "$tool: no drift: last 5 intervals end ${tail_late} s late on average, median lateness ${median} s, worst ${worst} s" \
		awk -v t="$tail_late" -v m="$median" 'BEGIN { exit !(t <= 3 * (m > 0 ? m : 0) + 0.1) }'
	dur=$(jq -r 'select(.type == "summary") | .duration_s' "$WORK/w.jsonl")
	check "$tool: -d 3 lasted ${dur} s: 3 s plus at most the worst lateness (${worst} s) and 10 ms" \
		awk -v d="$dur" -v w="$worst" 'BEGIN { exit !(d >= 2.99 && d <= 3 + (w > 0 ? w : 0) + 0.01) }'
done
finish
