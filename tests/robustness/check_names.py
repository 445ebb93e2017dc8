#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks the outputs of a run with hostile task and file names.

usage: check_names.py KIND FILE [NAME_FILE...]

KIND is json, text, svg or prom. Each output must be valid UTF-8 and well
formed for its kind (a strict JSON parser per line; an XML parser for the
SVG; the text has no control character but the newline, fits 80 columns,
and no line is forged by a name; promtool checks the OpenMetrics file
separately). Each NAME_FILE holds the raw bytes of a name a task or a
file was given: its display form (lib/escape.h, reimplemented here from
the rules, not from the C) must appear in the JSON and OpenMetrics
outputs, as a row label or a label value. Prints one line per problem
and exits 1 if there is any.
"""
import json
import re
import sys
import xml.etree.ElementTree as ET

HIDDEN = [(0x80, 0x9F), (0xAD, 0xAD), (0x61C, 0x61C), (0x180E, 0x180E), (0x200B, 0x200F),
          (0x2028, 0x202E), (0x2060, 0x206F), (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB),
          (0xFDD0, 0xFDEF), (0xE0000, 0xE007F)]


def hidden(cp):
    return (cp & 0xFFFE) == 0xFFFE or any(lo <= cp <= hi for lo, hi in HIDDEN)


def display_form(raw):
    """The display form of a name's bytes (up to a NUL)."""
    raw = raw.split(b"\0")[0]
    out, i = [], 0
    named = {0x5C: "\\\\", 0x0A: "\\n", 0x09: "\\t", 0x0D: "\\r"}
    while i < len(raw):
        b = raw[i]
        if b in named:
            out.append(named[b])
            i += 1
            continue
        if b < 0x20 or b == 0x7F:
            out.append(f"\\x{b:02x}")
            i += 1
            continue
        length = 1 if b < 0x80 else 2 if 0xC2 <= b <= 0xDF else 3 if 0xE0 <= b <= 0xEF \
            else 4 if 0xF0 <= b <= 0xF4 else 0
        try:
            ch = raw[i:i + length].decode("utf-8") if length else None
        except UnicodeDecodeError:
            ch = None
        if ch is None or len(ch) != 1:
            out.append(f"\\x{b:02x}")
            i += 1
        elif hidden(ord(ch)):
            out.append("".join(f"\\x{c:02x}" for c in raw[i:i + length]))
            i += length
        else:
            out.append(ch)
            i += length
    return "".join(out)


def prom_unescape(value):
    return re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), value)


def main():
    kind, path, name_files = sys.argv[1], sys.argv[2], sys.argv[3:]
    problems, seen = [], set()
    data = open(path, "rb").read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        print(f"{path}: not UTF-8: {e}")
        return 1
    if kind == "json":
        for number, line in enumerate(text.splitlines(), 1):
            try:
                record = json.loads(line)
            except json.JSONDecodeError as e:
                problems.append(f"{path} line {number}: not JSON: {e}")
                continue
            for body in record.values():
                if isinstance(body, dict):
                    for row in body.get("rows", []):
                        seen.update(v for v in row.values() if isinstance(v, str))
    elif kind == "prom":
        for line in text.splitlines():
            if line.startswith("#") or "{" not in line:
                continue
            labels = line[line.index("{") + 1:line.rindex("}")]
            # Label values, quotes escaped: split on '",' outside escapes.
            pos = 0
            while pos < len(labels):
                eq = labels.index('="', pos)
                end = eq + 2
                while labels[end] != '"':
                    end += 2 if labels[end] == "\\" else 1
                seen.add(prom_unescape(labels[eq + 2:end]))
                pos = end + 2
    elif kind == "svg":
        try:
            ET.fromstring(data)
        except ET.ParseError as e:
            problems.append(f"{path}: not well-formed XML: {e}")
    elif kind == "text":
        for number, line in enumerate(text.split("\n"), 1):
            bad = [c for c in line if ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F]
            if bad:
                problems.append(f"{path} line {number}: control characters {bad!r}")
            if len(line) > 80:
                problems.append(f"{path} line {number}: {len(line)} columns")
            if line.startswith("FAKE"):
                problems.append(f"{path} line {number}: a forged row: {line!r}")
    for name_file in name_files:
        want = display_form(open(name_file, "rb").read())
        if kind in ("json", "prom") and not any(want in s for s in seen):
            problems.append(f"{path}: no label shows {want!r} (the name of {name_file})")
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
