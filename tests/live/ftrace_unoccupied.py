#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""How long one CPU was unoccupied in each interval of a tool's JSON Lines
output, from the kernel's own sched_switch / sched_wakeup /
sched_migrate_task events in an ftrace buffer (trace_clock mono): an
independent reference for idlebal's runqueue-counter view.

Usage: ftrace_unoccupied.py TRACE JSONL CPU IDLE_PID MONO_MINUS_REAL
       ftrace_unoccupied.py --window TRACE CPU IDLE_PID START END

Unoccupied (seed 000's unoccupied_rq(), seed 001's need_pull_cfs_task()):
nothing runnable on the CPU but SCHED_IDLE tasks. The scenario has one
SCHED_IDLE task (IDLE_PID), so the CPU is unoccupied while it (or the idle
task) runs and no other task waits there: a task woken onto the CPU, or
preempted on it (switched out runnable), or migrated to it waits until it
is switched in (or seen running there) or moved away. A task that blocks leaves the count even if
its dequeue is delayed (6.12+), as it leaves h_nr_runnable.

With --window, prints the unoccupied ns between START and END (trace
clock seconds). Otherwise one line per interval record, "START END UNOCCUPIED_NS TOOL_NS",
with the interval's overload_llc overloaded_idle_ns as TOOL_NS.

A lower bound, not the answer, on this host: its kernel switches some
tasks in and out, and dequeues some, with no sched_switch event (seen: a
task woken onto CPU 0 next shows up as a switch's prev there, with no
switch to it; a nice -10 tokio-rt-worker woken onto CPU 0 and seen in no
event again, while the runqueue went back to the SCHED_IDLE spinner
alone). A missing event only leaves a task running or waiting longer
here than it did: the time found unoccupied is never more than it was.
"""
import json
import re
import sys

EVENT = re.compile(r"-(\d+)\s+\[(\d+)\]\s+\S+\s+(\d+\.\d+): (sched_switch|sched_wakeup|sched_wakeup_new|sched_migrate_task): (.*)$")
FIELD = re.compile(r"(\w+)=(\S+)")


def events(path):
    with open(path, errors="replace") as f:
        for line in f:
            m = EVENT.search(line)
            if not m:
                continue
            fields = dict(FIELD.findall(m.group(5).replace(" ==> ", " ")))
            yield float(m.group(3)), int(m.group(2)), int(m.group(1)), m.group(4), fields


def unoccupied_spans(path, cpu, idle_pids):
    """(start, end) spans, in trace seconds, where cpu was unoccupied."""
    current, waiting, since, spans = None, {}, None, []

    def unoccupied():
        return current in idle_pids and not waiting

    class Waits(dict):
        def add(self, pid, t):
            self.setdefault(pid, t)

        def discard(self, pid):
            self.pop(pid, None)

    waiting = Waits()

    for t, on_cpu, running, name, f in events(path):
        before = current is not None and unoccupied()
        # The task an event interrupts or runs in is the CPU's current one
        # (some switches have no event here, see above).
        if on_cpu == cpu and running:
            current = running
            waiting.discard(running)
        if name == "sched_switch" and on_cpu == cpu:
            prev, nxt = int(f["prev_pid"]), int(f["next_pid"])
            waiting.discard(prev)
            # The field has its own "next_" twin: take prev_state's value.
            state = f.get("prev_state", "")
            if state.startswith("R") and prev not in idle_pids:
                waiting.add(prev, t)
            current = nxt
            waiting.discard(nxt)
        elif name in ("sched_wakeup", "sched_wakeup_new"):
            pid = int(f["pid"])
            if int(f["target_cpu"]) == cpu:
                if pid not in idle_pids and pid != current:
                    waiting.add(pid, t)
            else:
                waiting.discard(pid)
        elif name == "sched_migrate_task":
            pid = int(f["pid"])
            if int(f["orig_cpu"]) == cpu:
                waiting.discard(pid)
            if int(f["dest_cpu"]) == cpu and pid not in idle_pids:
                waiting.add(pid, t)
        else:
            continue
        after = current is not None and unoccupied()
        if after and not before:
            since = t
        elif before and not after and since is not None:
            spans.append((since, t))
            since = None
    if since is not None:
        spans.append((since, float("inf")))
    return spans


def main():
    if sys.argv[1] == "--window":
        # One window on the trace's clock: its unoccupied time, in ns.
        trace, cpu, idle_pid, start, end = sys.argv[2:7]
        start, end = float(start), float(end)
        spans = unoccupied_spans(trace, int(cpu), {0, int(idle_pid)})
        print(f"{sum(max(0.0, min(e, end) - max(s, start)) for s, e in spans) * 1e9:.0f}")
        return
    trace, jsonl, cpu, idle_pid, offset = sys.argv[1:6]
    spans = unoccupied_spans(trace, int(cpu), {0, int(idle_pid)})
    offset = float(offset)
    with open(jsonl) as f:
        for line in f:
            rec = json.loads(line)
            if rec.get("type") != "interval":
                continue
            start, end = rec["start"] + offset, rec["end"] + offset
            ref = sum(max(0.0, min(e, end) - max(s, start)) for s, e in spans)
            tool = sum(r.get("overloaded_idle_ns", 0) for r in rec.get("overload_llc", {}).get("rows", []))
            print(f"{rec['start']:.6f} {rec['end']:.6f} {ref * 1e9:.0f} {tool}")


if __name__ == "__main__":
    main()
