#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Recomputes sisscan's filter audit from its event stream.

usage: check_events.py EVENTS.jsonl SUMMARY.jsonl

Every line of EVENTS is one audited wakeup (sisscan --events): the CPUs of
target's LLC the wakee may use, those that were unoccupied, and those each
filter let through. A false positive is a CPU let through that was not
unoccupied, a false negative an unoccupied CPU filtered out (seed 000
L76-85). The sums must equal the summary record's filter_<f>_fp/_fn and
audits, with no event dropped. Prints one line per filter; exits 1 on any
difference.
"""
import json
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    fp, fn, events = {}, {}, 0
    with open(sys.argv[1]) as f:
        for line in f:
            e = json.loads(line)
            events += 1
            free = set(e["unoccupied"])
            for name, passed in e["passed"].items():
                passed = set(passed)
                fp[name] = fp.get(name, 0) + len(passed - free)
                fn[name] = fn.get(name, 0) + len(free - passed)
    summary = None
    with open(sys.argv[2]) as f:
        for line in f:
            record = json.loads(line)
            if record.get("type") == "summary":
                summary = record["metrics"]
    if summary is None:
        sys.exit("no summary record")
    problems = []
    dropped = summary["events_dropped"]["value"]
    if dropped:
        problems.append(f"{dropped} events dropped")
    if summary["audits"]["value"] != events:
        problems.append(f"audits {summary['audits']['value']} but {events} events")
    for name in sorted(fp):
        got_fp = summary[f"filter_{name}_fp"]["value"]
        got_fn = summary[f"filter_{name}_fn"]["value"]
        print(f"{name}: fp {got_fp} (events: {fp[name]}), fn {got_fn} (events: {fn[name]})")
        if (got_fp, got_fn) != (fp[name], fn[name]):
            problems.append(f"{name} differs")
    for p in problems:
        print(p)
    sys.exit(1 if problems or not events else 0)


if __name__ == "__main__":
    main()
