#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Validates schedscan JSON Lines against the schema in docs/json.md.

usage: check_json.py FILE [--expect-summary] [--expect-intervals N]
Checks every line is one JSON object valid against the schema, the record
sequence (intervals then exactly one summary, last), that interval
counters add up to the summary's, and that in every record a complete
table's rows add up to the scalar of the same name. Prints one line per
problem and exits 1 if there is any.
"""
import json
import re
import sys
from pathlib import Path

import jsonschema

DOC = Path(__file__).resolve().parent.parent / "docs" / "json.md"


def load_schema(name=""):
    text = DOC.read_text()
    match = re.search(r"```json schema" + (" " + name if name else "") + r"\n(.*?)```", text, re.S)
    if not match:
        sys.exit(f"no ```json schema {name} block in {DOC}")
    return json.loads(match.group(1))


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    path = args[0]
    expect_intervals = None
    if "--expect-intervals" in args:
        expect_intervals = int(args[args.index("--expect-intervals") + 1])
    validator = jsonschema.Draft202012Validator(load_schema())
    # --list-metrics prints one record of its own kind (docs/json.md).
    list_validator = jsonschema.Draft202012Validator(load_schema("metrics-list"))
    problems = []
    records = []
    for number, line in enumerate(Path(path).read_text().splitlines(), 1):
        try:
            record = json.loads(line)
        except json.JSONDecodeError as e:
            problems.append(f"line {number}: not JSON ({e}): {line[:80]}")
            continue
        checker = list_validator if isinstance(record, dict) and record.get("type") == "metrics" \
            else validator
        for error in checker.iter_errors(record):
            where = "/".join(str(p) for p in error.absolute_path)
            problems.append(f"line {number}: {where}: {error.message}")
        records.append(record)
    # In every record, a complete table (no row dropped) adds up to the scalar
    # of the same name: an event's scalar and row counts go to one bank
    # (docs/json.md), so this holds for intervals as much as for the summary.
    # A ratio is null exactly when its denominator is 0, and its value
    # times the denominator is a whole count (the value has 2 decimals).
    for number, record in enumerate(records, 1):
        metrics = record.get("metrics", {})
        # unavailable points into unavailable_reasons, which holds each
        # sentence once and only sentences something points at.
        # tables_unavailable points into the same array and names no table the
        # record holds.
        missing, reasons = record.get("unavailable", {}), record.get("unavailable_reasons", [])
        tables_missing = record.get("tables_unavailable", {})
        pointers = set(missing.values()) | set(tables_missing.values())
        if bool(missing or tables_missing) != bool(reasons) or pointers != set(range(len(reasons))) \
                or len(set(reasons)) != len(reasons) or set(missing) & set(metrics):
            problems.append(f"record {number}: unavailable {missing} and tables_unavailable {tables_missing} do not match unavailable_reasons {reasons}")
        held = set(record.get("tables", {})) | {k for k, v in record.items() if isinstance(v, dict) and "rows" in v}
        if set(tables_missing) & held:
            problems.append(f"record {number}: tables_unavailable {sorted(set(tables_missing) & held)} are reported too")
        for name, metric in metrics.items():
            if metric.get("unit") != "percent":
                continue
            den, value = metric.get("denominator"), metric.get("value")
            if (value is None) != (den == 0):
                problems.append(f"record {number}: {name} is {value} over a denominator of {den}")
            elif value is not None and abs(value * den / 100 - round(value * den / 100)) > den * 0.00005 + 1e-6:
                problems.append(f"record {number}: {name} {value}% of {den} is no whole count")
        for table, body in record.items():
            if not isinstance(body, dict) or "rows" not in body or body.get("rows_dropped"):
                continue
            keys = set(body.get("by", "").split("+"))
            names = {n for row in body["rows"] for n, v in row.items()
                     if n not in keys and isinstance(v, int)}
            for name in names:
                metric = metrics.get(name)
                if not metric or "value" not in metric or "unit" in metric or metric["value"] is None:
                    continue
                got = sum(row.get(name, 0) for row in body["rows"])
                if got != metric["value"]:
                    problems.append(f"record {number} ({record.get('type')}): {table} rows add up to {name} {got}, the scalar says {metric['value']}")
    if records and all(r.get("type") == "metrics" for r in records):
        if len(records) != 1:
            problems.append(f"--list-metrics prints one record, got {len(records)}")
        for p in problems:
            print(p)
        sys.exit(1 if problems else 0)
    summaries = [r for r in records if r.get("type") == "summary"]
    intervals = [r for r in records if r.get("type") == "interval"]
    if len(summaries) != 1 or not records or records[-1].get("type") != "summary":
        problems.append(f"expected exactly one summary record, last; got {len(summaries)}")
    elif intervals:
        summary = summaries[0]
        if summary["intervals"] != len(intervals):
            problems.append(f"summary says {summary['intervals']} intervals, saw {len(intervals)}")
        for name, metric in summary["metrics"].items():
            # Only counters add up: histograms have no value, ratios a unit.
            if "value" not in metric or "unit" in metric:
                continue
            total = sum(r["metrics"].get(name, {}).get("value", 0) for r in intervals)
            if total != metric["value"]:
                problems.append(f"{name}: intervals add up to {total}, summary says {metric['value']}")
        # Tables: every key's counters add up too (keys: the "by" fields).
        for table, body in summary.items():
            if not isinstance(body, dict) or "rows" not in body or "by" not in body:
                continue
            keys = body["by"].split("+")
            totals = {}
            for r in intervals:
                for row in r.get(table, {}).get("rows", []):
                    key = tuple(row.get(k) for k in keys)
                    for name, value in row.items():
                        if name in keys or not isinstance(value, int):
                            continue
                        totals[(key, name)] = totals.get((key, name), 0) + value
            for row in body["rows"]:
                key = tuple(row.get(k) for k in keys)
                for name, value in row.items():
                    if name in keys or not isinstance(value, int):
                        continue
                    got = totals.pop((key, name), 0)
                    if got != value:
                        problems.append(f"{table} {dict(zip(keys, key))} {name}: intervals add up to {got}, summary says {value}")
            for (key, name), got in totals.items():
                if got:
                    problems.append(f"{table} {dict(zip(keys, key))} {name}: {got} in intervals, no summary row")
    if expect_intervals is not None and len(intervals) != expect_intervals:
        problems.append(f"expected {expect_intervals} interval records, got {len(intervals)}")
    for p in problems:
        print(p)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
