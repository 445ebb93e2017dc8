#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make bench: what schedscan costs, next to what users would run instead.

Measured on this machine, in one run, as root (issue 14):
  1. cost per event: kernel.bpf_stats_enabled=1, run_time_ns / run_cnt of
     every program of a tracer (the programs that appear when it starts),
     per hook and per wakeup, under one fixed workload, for each tool in
     its default and heaviest mode, the floor (empty programs on the same
     hooks: bench/floor.c), bcc's libbpf-tools and a bpftrace script;
  2. workload slowdown: perf bench sched pipe and messaging, hackbench,
     bare and traced interleaved (A B A B ...), medians and min-max;
  3. start-up (exec to --ready-fd), peak RSS, BPF memory (memlock);
  4. scaling: the per-wakeup cost in QEMU guests (Debian's 6.12 kernel,
     TCG) of 8 vCPUs with LLCs of 2, 4 and 8 CPUs and of 16 vCPUs in one
     LLC, each over an empty program on the same tracepoints booted in
     the same guest (bench/guest.sh runs inside; BENCH_GUEST=0 leaves
     the section out, and the page says so).
Nothing is asserted: the figures are printed and written to
docs/performance.md (BENCH_DOC), and the README's block between its
bench markers is rewritten from them. BENCH_QUICK=1 makes every run tiny
(a smoke run: the numbers mean nothing) and writes nowhere but BENCH_DOC.
"""
import datetime
import json
import os
import platform
import re
import select
import signal
import statistics
import subprocess
import sys
import time

BUILD = os.environ.get("BUILD", "build")
QUICK = os.environ.get("BENCH_QUICK") == "1"
REPEAT = 1 if QUICK else max(5, int(os.environ.get("BENCH_REPEAT", "5")))
DOC = os.environ.get("BENCH_DOC", "docs/performance.md")
README = "README.md"
NCPUS = os.cpu_count()

# The slowdown workloads: (name, command, regex of the time it reports).
WORKLOADS = [
    ("perf bench sched pipe", ["perf", "bench", "sched", "pipe", "-l", "2000" if QUICK else "100000"],
     r"Total time:\s+([0-9.]+)"),
    ("perf bench sched messaging", ["perf", "bench", "sched", "messaging", "-g", "1" if QUICK else "4",
                                    "-l", "5" if QUICK else "100"], r"Total time:\s+([0-9.]+)"),
    ("hackbench", ["hackbench", "-g", "1" if QUICK else "4", "-l", "5" if QUICK else "200"],
     r"Time:\s+([0-9.]+)"),
]
# The cost workload: wakeups and switches of both kinds, the same for every tracer.
COST_WORKLOAD = [WORKLOADS[0][1], WORKLOADS[1][1]]

HEAVY_FILTERS = "ideal,unoccupied_tick,overloaded,delayed"
# The nearest bpftrace equivalent of sisscan's tracepoint tier: per wakeup,
# where the wakee lands against where it last ran, and the waking-to-
# enqueue time, as histograms.
BPFTRACE_SCRIPT = """
tracepoint:sched:sched_waking { @waking[args->pid] = nsecs; @prev[args->pid] = cpu; }
tracepoint:sched:sched_wakeup /@waking[args->pid]/ {
    @moved = lhist(args->target_cpu != @prev[args->pid], 0, 2, 1);
    @waking_to_wakeup_ns = hist(nsecs - @waking[args->pid]);
    delete(@waking[args->pid]); delete(@prev[args->pid]);
}
"""


def tool(name):
    return os.path.join(BUILD, name)


# Tracers: label, command, kind (schedscan: has --ready-fd), compared in section 2.
TRACERS = [
    ("sisscan", [tool("sisscan")], "schedscan", True),
    ("sisscan --filter (4 audits)", [tool("sisscan"), "--filter", HEAVY_FILTERS], "schedscan", False),
    ("sisscan -P --per-cpu", [tool("sisscan"), "-P", "--per-cpu"], "schedscan", False),
    ("idlebal", [tool("idlebal")], "schedscan", True),
    ("idlebal --per-cpu", [tool("idlebal"), "--per-cpu"], "schedscan", False),
    ("numascan", [tool("numascan")], "schedscan", True),
    ("runqlat (bcc)", ["runqlat"], "other", True),
    ("runqlen (bcc)", ["runqlen"], "other", False),
    ("cpudist (bcc)", ["cpudist"], "other", False),
    ("numamove (bcc)", ["numamove"], "other", False),
    ("bpftrace sisscan-like", ["bpftrace", "-e", BPFTRACE_SCRIPT], "other", True),
]


def die(msg):
    print(f"bench: {msg}", file=sys.stderr)
    sys.exit(1)


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def bpftool_json(what):
    r = run(["bpftool", what, "show", "--json"])
    if r.returncode:
        die(f"bpftool {what} show failed: {r.stderr.strip()[:200]}")
    return json.loads(r.stdout or "[]")


def prog_ids():
    return {p["id"] for p in bpftool_json("prog")}


def map_ids():
    return {m["id"] for m in bpftool_json("map")}


class Tracer:
    """A tracer running in the background, its new programs and maps known."""

    def __init__(self, cmd, schedscan):
        self.before_progs, self.before_maps = prog_ids(), map_ids()
        self.start = time.monotonic()
        self.ready_s = None
        kw = {}
        if schedscan:
            r, w = os.pipe()
            cmd = cmd + ["--ready-fd", str(w)]
            kw["pass_fds"] = (w,)
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, **kw)
        if schedscan:
            os.close(w)
            got = b""
            while True:
                ready, _, _ = select.select([r], [], [], 60)
                chunk = os.read(r, 64) if ready else b""
                if not chunk:
                    break
                got += chunk
            os.close(r)
            if not got.startswith(b"ready"):
                self.fail("never said it was tracing")
            self.ready_s = time.monotonic() - self.start
        else:
            self.wait_programs()
        self.progs = sorted(prog_ids() - self.before_progs)
        self.maps = sorted(map_ids() - self.before_maps)

    def wait_programs(self):
        """Until its programs stop appearing (0.5 s without a new one)."""
        seen, stable_since = set(), time.monotonic()
        while time.monotonic() - self.start < 60:
            if self.proc.poll() is not None:
                self.fail("exited")
            now = prog_ids() - self.before_progs
            if now != seen:
                seen, stable_since = now, time.monotonic()
            elif seen and time.monotonic() - stable_since > 0.5:
                return
            time.sleep(0.05)
        self.fail("attached nothing in 60 s")

    def fail(self, why):
        self.proc.kill()
        err = [l for l in (self.proc.communicate()[1] or "").splitlines() if l.strip()]
        raise RuntimeError(f"{why}: {err[-1].strip()[:160] if err else 'no message'}")

    def stop(self):
        """SIGINT, then its peak RSS in KiB (from wait4's rusage)."""
        self.proc.send_signal(signal.SIGINT)
        try:
            _, status, usage = os.wait4(self.proc.pid, 0)
        except ChildProcessError:
            return None
        self.proc.returncode = os.waitstatus_to_exitcode(status)
        return usage.ru_maxrss


def prog_stats(ids):
    """id -> (name, type, run_cnt, run_time_ns, memlock) of those programs."""
    out = {}
    for p in bpftool_json("prog"):
        if p["id"] in ids:
            out[p["id"]] = (p.get("name", "?"), p.get("type", "?"), p.get("run_cnt", 0),
                            p.get("run_time_ns", 0), p.get("bytes_memlock", 0))
    return out


def hook_of(name, ptype):
    """(flavour, hook) of a program from its name: schedscan's <hook>__<flavour>,
    bcc's handle_<hook> / <hook>_btf / <hook>, bpftrace's tracepoint_<cat>_<hook>_N."""
    m = re.match(r"(.+)__(tp_btf|raw_tp|tp|fentry|fexit|kprobe|kretprobe)$", name)
    if m:
        return m.group(2), m.group(1)
    flavour = {"tracing": "tp_btf", "raw_tracepoint": "raw_tp", "tracepoint": "tp"}.get(ptype, ptype)
    if ":" in name:
        return flavour, name.split(":")[-1]
    name = re.sub(r"^(handle_|tracepoint_sched_)", "", name)
    name = re.sub(r"(_btf|_raw|_tp|_\d+)$", "", name)
    return flavour, name


def tracepoint_category(hook):
    for cat in sorted(os.listdir("/sys/kernel/tracing/events")):
        if os.path.isdir(f"/sys/kernel/tracing/events/{cat}/{hook}"):
            return cat
    return None


def workload_seconds(cmd, regex):
    t0 = time.monotonic()
    r = run(cmd)
    wall = time.monotonic() - t0
    if r.returncode:
        raise RuntimeError(f"{' '.join(cmd)} failed: {r.stderr.strip()[-200:]}")
    m = re.search(regex, r.stdout + r.stderr)
    return float(m.group(1)) if m else wall


def sysctl(name, value):
    path = "/proc/sys/" + name.replace(".", "/")
    with open(path) as f:
        old = f.read().strip()
    with open(path, "w") as f:
        f.write(str(value))
    return old


TRACEFS = "/sys/kernel/tracing"


def mount_tracefs():
    """bpftrace (and any classic tracepoint) needs tracefs, which a fresh
    boot without systemd may not have mounted: mounts it for the run.
    Returns whether it did, so that main() unmounts only its own."""
    if os.path.isdir(TRACEFS + "/events") or os.path.isdir("/sys/kernel/debug/tracing/events"):
        return False
    r = run(["mount", "-t", "tracefs", "nodev", TRACEFS])
    if r.returncode:
        print(f"bench: cannot mount tracefs on {TRACEFS} ({(r.stderr or '').strip()}): "
              "bpftrace will be listed as not measured", file=sys.stderr)
        return False
    return True


# ------------------------------------------------------------- 1. cost
def measure_cost(label, cmd, schedscan):
    """Per program: hook, ns/event, events; per wakeup; the tracer's hooks."""
    tr = Tracer(cmd, schedscan)
    for w in COST_WORKLOAD:
        run(w)
    stats = prog_stats(set(tr.progs))
    tr.stop()
    rows = []
    for pid in sorted(stats):
        name, ptype, cnt, ns, _ = stats[pid]
        flavour, hook = hook_of(name, ptype)
        rows.append({"name": name, "flavour": flavour, "hook": hook, "run_cnt": cnt,
                     "run_time_ns": ns, "ns_per_event": ns / cnt if cnt else None})
    wakeups = sum(r["run_cnt"] for r in rows if r["hook"] == "sched_wakeup")
    total = sum(r["run_time_ns"] for r in rows)
    return {"label": label, "rows": rows, "wakeups": wakeups,
            "ns_per_wakeup": total / wakeups if wakeups else None}


def floor_for(result):
    """The floor on the same hooks and flavours as one measured tracer."""
    specs = []
    for r in result["rows"]:
        if r["flavour"] in ("tp_btf", "raw_tp"):
            specs.append(f"{r['flavour']}:{r['hook']}")
        elif r["flavour"] == "tp":
            cat = tracepoint_category(r["hook"])
            if cat:
                specs.append(f"tp:{cat}/{r['hook']}")
    specs = sorted(set(specs))
    if not specs:
        return None
    floor = measure_cost("floor: " + result["label"], [tool("bench/floor")] + specs, False)
    # Its programs are all named floor_<flavour>: their hooks are the
    # specs, loaded one after the other (ascending program ids).
    if len(floor["rows"]) != len(specs):
        raise RuntimeError(f"the floor loaded {len(floor['rows'])} programs for {len(specs)} hooks")
    for row, spec in zip(floor["rows"], specs):
        row["flavour"], _, hook = spec.partition(":")
        row["hook"] = hook.split("/")[-1]
    return floor


# --------------------------------------------------------- 2. slowdown
def slowdown_series(workload, cmd, schedscan):
    """Bare and traced runs interleaved; medians, min-max, ratio."""
    name, wcmd, regex = workload
    bare, traced = [], []
    for _ in range(REPEAT):
        bare.append(workload_seconds(wcmd, regex))
        tr = Tracer(cmd, schedscan)
        try:
            traced.append(workload_seconds(wcmd, regex))
        finally:
            tr.stop()
    mb, mt = statistics.median(bare), statistics.median(traced)
    spread = max((max(bare) - min(bare)) / mb, (max(traced) - min(traced)) / mt)
    return {"bare": bare, "traced": traced, "bare_median": mb, "traced_median": mt,
            "slowdown_pct": (mt / mb - 1) * 100, "spread_pct": spread * 100}


# ------------------------------------------------- 3. start-up, memory
def footprint(label, cmd):
    times, rss, mem = [], [], None
    possible = cpu_count_from("/sys/devices/system/cpu/possible")
    for i in range(REPEAT):
        tr = Tracer(cmd + ["-d", "2"], True)
        times.append(tr.ready_s * 1000)
        if mem is None:
            mem = bpf_memory(tr, possible)
        rss.append(tr.stop())
    return {"label": label, "startup_ms": statistics.median(times), "startup_max_ms": max(times),
            "peak_rss_kib": max(r for r in rss if r), **mem}


def cpu_count_from(path):
    n = 0
    with open(path) as f:
        for part in f.read().strip().split(","):
            a, _, b = part.partition("-")
            n += int(b or a) - int(a) + 1
    return n


def bpf_memory(tr, possible):
    """memlock of its maps and programs; the share that grows with CPUs."""
    progs = sum(s[4] for s in prog_stats(set(tr.progs)).values())
    fixed = per_cpu = 0
    for m in bpftool_json("map"):
        if m["id"] not in tr.maps:
            continue
        b = m.get("bytes_memlock", 0)
        entries = m.get("max_entries", 0)
        # per-CPU maps, and arrays sized from the CPU count at load (a
        # multiple of it, up to 64 per CPU): both linear in CPUs
        if "percpu" in m.get("type", "") or (entries and entries % NCPUS == 0 and entries <= 64 * NCPUS
                                               and "array" in m.get("type", "")):
            per_cpu += b
        else:
            fixed += b
    return {"bpf_bytes": progs + fixed + per_cpu, "bpf_fixed_bytes": progs + fixed,
            "bpf_per_cpu_bytes": per_cpu / possible}


# ------------------------------------------------------------ report
def fmt(v, spec="{:.0f}", none="-"):
    return none if v is None else spec.format(v)


# ---------------------------------------------------------- 4. scaling
GUEST = os.environ.get("BENCH_GUEST", "1") != "0"
KCACHE = os.environ.get("VM_KERNEL_CACHE", os.path.join(BUILD, "vm", "kernels"))
# label, LLC size, -smp, two NUMA nodes (CPUs 0-3 and 4-7, as the test guests)
TOPOLOGIES = [
    ("8 vCPUs, 4 LLCs of 2", 2, "8,sockets=4,cores=2,threads=1", False),
    ("8 vCPUs, 2 LLCs of 4, 2 nodes (the test guests)", 4, "8,sockets=2,cores=4,threads=1", True),
    ("8 vCPUs, 1 LLC of 8", 8, "8,sockets=1,cores=8,threads=1", False),
    ("16 vCPUs, 1 LLC of 16", 16, "16,sockets=1,cores=16,threads=1", False),
]
if QUICK:
    TOPOLOGIES = TOPOLOGIES[:1]
STANDARD_TOPOLOGY = 1 if len(TOPOLOGIES) > 1 else 0
# The tracers bench/guest.sh runs, in its order.
GUEST_TRACERS = ["sisscan", "sisscan:fentry", "sisscan:fentry:filters", "idlebal"]
# The tracers with LLC walks to count (llc_walk_steps), and how much their
# steps per wakeup may grow from the smallest LLC to the largest and still
# count as not growing with it.
STEPPED_TRACERS = ["sisscan", "sisscan:fentry", "sisscan:fentry:filters"]
WALK_GROWTH_MET = 1.25
GUEST_LABELS = {"sisscan": "sisscan (tracepoint tier)", "sisscan:fentry": "sisscan --mode fentry",
                "sisscan:fentry:filters": "sisscan --mode fentry --filter (4 audits)",
                "idlebal": "idlebal (tracepoint tier)"}


def guest_image():
    """The 6.12 kernel (fetched as the guest tests fetch it) and an initramfs
    of the static tools, the floor and bench/guest.sh as its script."""
    env = dict(os.environ, VM_KERNELS="6.12")
    r = run(["tests/vm/fetch-kernels.sh", KCACHE], env=env)
    selected = os.path.join(KCACHE, "selected")
    kver = None
    if os.path.exists(selected):
        for line in open(selected):
            parts = line.split()
            if len(parts) == 2 and parts[0] == "6.12":
                kver = parts[1]
    if not kver:
        raise RuntimeError(f"no 6.12 kernel: {(r.stderr or r.stdout).strip()[-200:]}")
    stage = os.path.join(BUILD, "bench", "guest-bin")
    run(["rm", "-rf", stage])
    os.makedirs(os.path.join(stage, "workloads"))
    for name in ("sisscan", "idlebal"):
        src = os.path.join(BUILD, "static", name)
        if not os.path.exists(src):
            raise RuntimeError(f"{src} is missing (make bench builds it)")
        os.symlink(os.path.abspath(src), os.path.join(stage, name))
    os.symlink(os.path.abspath(tool("bench/floor")), os.path.join(stage, "floor"))
    src = os.path.join(BUILD, "static", "workloads", "pingpong")
    if not os.path.exists(src):
        raise RuntimeError(f"{src} is missing (make bench builds it)")
    os.symlink(os.path.abspath(src), os.path.join(stage, "workloads", "pingpong"))
    initrd = os.path.join(BUILD, "bench", "guest.cpio.gz")
    r = run(["tests/vm/mkinitramfs.sh", "-s", stage, "-o", initrd, "-t", "bench/guest.sh", "-k", KCACHE])
    if r.returncode:
        raise RuntimeError(f"mkinitramfs failed: {(r.stderr or r.stdout).strip()[-200:]}")
    return os.path.join(KCACHE, kver), initrd, kver


def guest_rows(log):
    """bench/guest.sh's BENCH lines: the topology and, per label, its programs."""
    topo, progs, errors, specs, steps, done = {}, {}, {}, {}, {}, False
    with open(log, errors="replace") as f:
        for line in f:
            w = line.strip().replace("\r", "").split()
            if len(w) < 2 or w[0] != "BENCH":
                continue
            if w[1] == "topology":
                topo = dict(kv.split("=", 1) for kv in w[2:] if "=" in kv)
            elif w[1] == "prog" and len(w) == 6:
                progs.setdefault(w[2], []).append((w[3], int(w[4]), int(w[5])))
            elif w[1] == "specs":
                specs[w[2]] = w[3:]
            elif w[1] == "error":
                errors[w[2]] = " ".join(w[3:])
            elif w[1] == "steps" and len(w) == 4:
                steps[w[2]] = walk_steps(w[3])
            elif w[1] == "done":
                done = True
    return topo, progs, errors, specs, steps, done


def walk_steps(dump):
    """The sum over CPUs of sisscan's llc_walk_steps, from bpftool -j map
    dump (values as numbers with BTF, as little-endian hex bytes without)."""
    try:
        entries = json.loads(dump)
    except ValueError:
        return None
    total = 0
    for entry in entries:
        for v in entry.get("formatted", entry).get("values", []):
            value = v.get("value")
            if isinstance(value, list):
                value = int.from_bytes(bytes(int(x, 16) for x in value), "little")
            total += int(value)
    return total


def per_wakeup(rows, hooks=None):
    """(wakeups, ns per wakeup) of one run's programs: all their time over
    the wakeups one of them saw (sched_wakeup, else sched_waking, else
    select_task_rq_fair() calls). hooks: the floor's hook per row."""
    names = hooks or [n.split("__")[0] for n, _, _ in rows]
    counts = {h: c for h, (_, c, _) in zip(names, rows)}
    wakeups = counts.get("sched_wakeup") or counts.get("sched_waking") or counts.get("select_task_rq_fair")
    total = sum(ns for _, _, ns in rows)
    return wakeups or 0, (total / wakeups if wakeups else None)


def guest_scaling():
    """Per topology: {label, llc, tracers: {tracer: {...}}, error}."""
    kdir, initrd, kver = guest_image()
    out = []
    for label, llc, smp, numa in TOPOLOGIES:
        log = os.path.join(BUILD, "bench", f"guest-llc{llc}.log")
        env = dict(os.environ, VM_SMP=smp, VM_NUMA="1" if numa else "0", VM_LOG=log,
                   VM_TIMEOUT=os.environ.get("BENCH_GUEST_TIMEOUT", "1500"))
        args = ["tests/vm/run-guest.sh", kdir, initrd]
        if QUICK:
            args.append("SCHEDSCAN_BENCH_ROUNDS=1000")
        t0 = time.monotonic()
        r = run(args, env=env)
        topo, progs, errors, specs, steps, done = (guest_rows(log) if os.path.exists(log)
                                                   else ({}, {}, {}, {}, {}, False))
        entry = {"label": label, "llc": llc, "smp": smp, "kver": kver, "seconds": time.monotonic() - t0,
                 "topology": topo, "tracers": {}, "error": None}
        if r.returncode or not done:
            entry["error"] = (r.stderr or r.stdout or "no BENCH done line").strip().splitlines()[0][:200]
        for t in GUEST_TRACERS:
            rows = progs.get(t, [])
            floor = progs.get("floor:" + t, [])
            fspecs = specs.get("floor:" + t, [])
            wk, npw = per_wakeup(rows)
            fhooks = [sp.split(":", 1)[1] for sp in fspecs] if len(fspecs) == len(floor) else None
            if fhooks:
                # Only where the tracer's own program ran: sisscan's runqueue
                # learner on sched_update_nr_running_tp is detached after
                # start-up, but an empty program there would run at every
                # enqueue and dequeue, most of the floor's time in a guest.
                ran = {n.split("__")[0]: c for n, c, _ in rows}
                kept = [(h, r) for h, r in zip(fhooks, floor) if ran.get(h, 0) * 10 >= r[1]]
                fwk, fnpw = per_wakeup([r for _, r in kept], [h for h, _ in kept])
            else:
                fwk, fnpw = 0, None
            st = steps.get(t)
            entry["tracers"][t] = {"rows": rows, "wakeups": wk, "ns_per_wakeup": npw,
                                   "steps_per_wakeup": st / wk if st is not None and wk else None,
                                   "floor_rows": list(zip(fhooks or [], floor)),
                                   "floor_ns_per_wakeup": fnpw, "error": errors.get(t)}
        out.append(entry)
    return out


def scaling_section(say, scaling, why_not):
    say("## 4. Scaling")
    say()
    if not scaling:
        say(f"Not measured in this run: {why_not}.")
        say()
        return []
    e0 = scaling[0]
    say(f"In QEMU guests (TCG, one host thread for every vCPU) booting Debian's {e0['kver']} kernel, "
        "each tracer's programs and, attached beside them for the same run, an empty program on the "
        "tracepoints they use (bench/floor), under the same unpinned ping-pong and `hackbench -g 2 -l 50` (bench/guest.sh). TCG inflates "
        "every absolute figure: compare ratios. x floor: the tracer's ns per wakeup over the floor's "
        "ns per wakeup on the tracepoint tier's hooks in the same guest (`sched_waking`, "
        "`sched_wakeup`, `sched_migrate_task`: not `sched_update_nr_running_tp`, where sisscan's "
        "program only learns the runqueues at start-up), the same reference for every tracer of a "
        "guest. Walk steps: the `bpf_loop()` steps sisscan's walks over an LLC's CPUs made "
        "(placement check, allowed-CPU count, filter audit; its `llc_walk_steps` map, read with "
        "bpftool) per wakeup: exact where the timing is not, and the measure of how a wakeup's "
        "work grows with the LLC.")
    say()
    say("| guest | LLC CPUs (seen) | tracer | wakeups | ns per wakeup | x floor | walk steps per wakeup |")
    say("|---|---:|---|---:|---:|---:|---:|")
    ratios, walked = {}, {}
    for e in scaling:
        ref = e["tracers"].get("sisscan", {}).get("floor_ns_per_wakeup")
        seen = e["topology"].get("llc", "?")
        if e["error"]:
            say(f"| {e['label']} | {seen} | guest failed: {e['error']} | | | | |")
        for t in GUEST_TRACERS:
            m = e["tracers"][t]
            if m["error"]:
                say(f"| {e['label']} | {seen} | {GUEST_LABELS[t]}: not measured: {m['error']} | | | | |")
                continue
            x = m["ns_per_wakeup"] / ref if m["ns_per_wakeup"] and ref else None
            ratios.setdefault(t, {})[e["llc"]] = x
            walked.setdefault(t, {})[e["llc"]] = m["steps_per_wakeup"]
            say(f"| {e['label']} | {seen} | {GUEST_LABELS[t]} | {m['wakeups']} | {fmt(m['ns_per_wakeup'])} | "
                f"{fmt(x, '{:.2f}')} | {fmt(m['steps_per_wakeup'], '{:.2f}')} |")
    say()
    std = scaling[STANDARD_TOPOLOGY]
    say(f"Per event in the guest with {std['label'][0].lower() + std['label'][1:]}, tracepoint tier, "
        "beside the floor:")
    say()
    say("| tracer | program | events | ns/event | floor ns/event | x floor |")
    say("|---|---|---:|---:|---:|---:|")
    for t in ("sisscan", "idlebal"):
        m = std["tracers"][t]
        fl = {h: (ns / c if c else None) for h, (_, c, ns) in m["floor_rows"]}
        for name, cnt, ns in m["rows"]:
            f = fl.get(name.split("__")[0])
            v = ns / cnt if cnt else None
            say(f"| {GUEST_LABELS[t]} | {name} | {cnt} | {fmt(v)} | {fmt(f)} | "
                f"{fmt(v / f if v and f else None, '{:.2f}')} |")
    say()
    say("How far to trust the timing: TCG runs every vCPU on one host thread, and a vCPU can be "
        "set aside in the middle of a program, which then counts the other vCPUs' time as its own. "
        "An empty program on `sched_update_nr_running_tp` was measured at 6675 ns/event in one "
        "guest, 10x its neighbours; two runs of this section (2026-12-03) gave sisscan's tracepoint "
        "tier 4.75 / 5.11 / 7.35 and then 9.81 / 7.53 / 7.05 x floor at LLCs of 2 / 4 / 8, rising in "
        "one and falling in the other. So the verdicts below judge the walk steps per wakeup, which "
        "count the work itself and do not depend on how TCG schedules the vCPUs; the x floor growth "
        "is printed beside them.")
    say()
    # Growth over the 8-vCPU guests only, where the LLC size is all that
    # changes: the 16-vCPU guest doubles the CPUs that one host thread runs
    # as well, and idlebal, which walks no LLC, cost twice its floor there
    # in one run.
    judged = sorted(e["llc"] for e in scaling if e["smp"].startswith("8,"))
    if len(scaling) > len(judged):
        say("The growth below compares the 8-vCPU guests, where only the LLC size changes; the "
            "16-vCPU guest also doubles the vCPUs one host thread runs, which raises the timing of "
            "tracers that walk no LLC as well (idlebal, the control, above).")
        say()
    out = []
    if len(judged) > 1:
        lo, hi = judged[0], judged[-1]
        for t in GUEST_TRACERS:
            r, w = ratios.get(t, {}), walked.get(t, {})
            timing = (f"x floor {' / '.join(fmt(r.get(n), '{:.2f}') for n in judged)} at LLCs of "
                      f"{' / '.join(map(str, judged))}, not judged")
            if w.get(lo) is None or w.get(hi) is None:
                if t in STEPPED_TRACERS:
                    out.append(f"{GUEST_LABELS[t]}: per-wakeup work not linear in the LLC size: "
                               f"not measured (no walk steps read at LLCs of {lo} and {hi}); {timing}")
                continue
            steps = " / ".join(fmt(w.get(n), "{:.2f}") for n in judged)
            # Constant: within a quarter of the smallest LLC's figure (the
            # same workload places its wakeups a little differently on each
            # topology); growing with the LLC: anything more.
            base = max(w[lo], 0.01)
            growth = w[hi] / base
            verdict = "met" if growth <= WALK_GROWTH_MET else "missed"
            out.append(f"{GUEST_LABELS[t]}: per-wakeup work not linear in the LLC size: {verdict}, "
                       f"walk steps per wakeup x{growth:.2f} from an LLC of {lo} to {hi} CPUs "
                       f"(x{hi / lo:.0f} the CPUs; {steps} at LLCs of {' / '.join(map(str, judged))}; "
                       f"at most x{WALK_GROWTH_MET} to meet); {timing}")
    return out


def main():
    if os.geteuid():
        die("run as root (BPF, bpf_stats_enabled)")
    docdir = os.path.dirname(DOC) or "."
    if not os.path.isdir(docdir):
        die(f"cannot write {DOC}: no directory {docdir}")
    if not os.access(docdir, os.W_OK):
        die(f"cannot write {DOC}: {docdir} is not writable")
    for exe in ("perf", "hackbench", "bpftool", tool("sisscan"), tool("bench/floor")):
        if not (os.path.exists(exe) or run(["sh", "-c", f"command -v {exe}"]).returncode == 0):
            die(f"{exe} is missing (make deps, make all build/bench/floor)")
    lines = []

    def say(s=""):
        print(s, flush=True)
        lines.append(s)

    cpu_model = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    old_stats = sysctl("kernel.bpf_stats_enabled", 1)
    mounted = mount_tracefs()
    try:
        costs, skipped = [], []
        for label, cmd, kind, _ in TRACERS:
            try:
                c = measure_cost(label, cmd, kind == "schedscan")
            except (RuntimeError, FileNotFoundError) as e:
                skipped.append((label, str(e) or "failed"))
                continue
            c["floor"] = floor_for(c)
            costs.append(c)
        slow = []
        for w in WORKLOADS:
            for label, cmd, kind, compared in TRACERS:
                if compared and label not in dict(skipped):
                    slow.append((w[0], label, slowdown_series(w, cmd, kind == "schedscan")))
        feet = [footprint(label, cmd) for label, cmd, kind, compared in TRACERS
                if kind == "schedscan" and compared]
        scaling, why_not = [], "BENCH_GUEST=0"
        if GUEST:
            try:
                scaling = guest_scaling()
            except (RuntimeError, OSError) as e:
                why_not = f"the guests could not run: {e}"
                print(f"bench: {why_not}", file=sys.stderr)
    finally:
        sysctl("kernel.bpf_stats_enabled", old_stats)
        if mounted:
            run(["umount", TRACEFS])

    say("# Performance")
    say()
    say(f"Measured by `make bench` (bench/bench.py) on {now}: kernel {platform.release()}, "
        f"{NCPUS} CPUs ({cpu_model}), tracepoint tier where the kernel allows only tracepoints. "
        f"{'BENCH_QUICK: tiny runs, the figures mean nothing. ' if QUICK else ''}"
        f"Medians of {REPEAT} runs.")
    say()
    say("## 1. Cost per event")
    say()
    say(f"`kernel.bpf_stats_enabled=1`, `run_time_ns / run_cnt` of each program (bpftool), under "
        f"`{' ; '.join(' '.join(w) for w in COST_WORKLOAD)}`. The floor is an empty program of the "
        "same flavour on the same hook (bench/floor.c); x floor is the program's cost over it.")
    say()
    say("| tracer | program | hook | events | ns/event | floor ns/event | x floor |")
    say("|---|---|---|---:|---:|---:|---:|")
    floor_by_hook = {}
    for c in costs:
        fl = {(r["flavour"], r["hook"]): r["ns_per_event"] for r in (c["floor"] or {"rows": []})["rows"]}
        floor_by_hook.update({k: v for k, v in fl.items() if v})
        for r in c["rows"]:
            f = fl.get((r["flavour"], r["hook"]))
            ratio = r["ns_per_event"] / f if r["ns_per_event"] and f else None
            say(f"| {c['label']} | {r['name']} | {r['flavour']}:{r['hook']} | {r['run_cnt']} | "
                f"{fmt(r['ns_per_event'])} | {fmt(f)} | {fmt(ratio, '{:.2f}')} |")
    for label, why in skipped:
        say(f"| {label} | not measured: {why} | | | | | |")
    say()
    rq = next((c for c in costs if c["label"].startswith("runqlat")), None)
    say("Per wakeup (all of a tracer's programs over the `sched_wakeup` events it saw):")
    say()
    say("| tracer | wakeups | ns per wakeup | x runqlat |")
    say("|---|---:|---:|---:|")
    for c in costs:
        r = c["ns_per_wakeup"] / rq["ns_per_wakeup"] if rq and rq["ns_per_wakeup"] and c["ns_per_wakeup"] else None
        say(f"| {c['label']} | {c['wakeups']} | {fmt(c['ns_per_wakeup'])} | {fmt(r, '{:.2f}')} |")
    say()
    say("## 2. Workload slowdown")
    say()
    say(f"Bare and traced runs interleaved (bare, tracer attached, bare, ...), {REPEAT} of each; the "
        "slowdown is the traced median over the bare median of the same series, minus 1. Spread: the "
        "larger (max - min) / median of the two sides; when it exceeds the slowdown the effect is within "
        "the noise.")
    say()
    say("| workload | tracer | bare s (min-max) | traced s (min-max) | slowdown | spread | |")
    say("|---|---|---|---|---:|---:|---|")
    for w, label, s in slow:
        say(f"| {w} | {label} | {s['bare_median']:.3f} ({min(s['bare']):.3f}-{max(s['bare']):.3f}) | "
            f"{s['traced_median']:.3f} ({min(s['traced']):.3f}-{max(s['traced']):.3f}) | "
            f"{s['slowdown_pct']:+.1f}% | {s['spread_pct']:.1f}% | "
            f"{'within noise' if s['spread_pct'] > abs(s['slowdown_pct']) else ''} |")
    say()
    say("## 3. Start-up and footprint")
    say()
    say("Start-up: exec to `--ready-fd` (attached and counting). Peak RSS: `wait4()`'s `ru_maxrss`. "
        "BPF memory: `bytes_memlock` of the tool's maps and programs; the per-CPU part (per-CPU maps, "
        "arrays sized from the CPU count) grows linearly: total(N) = fixed + N x per CPU.")
    say()
    say("| tool | start-up ms (max) | peak RSS MiB | BPF MiB here | fixed MiB | per CPU KiB | at 256 CPUs MiB |")
    say("|---|---:|---:|---:|---:|---:|---:|")
    for f in feet:
        at256 = (f["bpf_fixed_bytes"] + 256 * f["bpf_per_cpu_bytes"]) / 2**20
        say(f"| {f['label']} | {f['startup_ms']:.0f} ({f['startup_max_ms']:.0f}) | {f['peak_rss_kib'] / 1024:.1f} | "
            f"{f['bpf_bytes'] / 2**20:.2f} | {f['bpf_fixed_bytes'] / 2**20:.2f} | "
            f"{f['bpf_per_cpu_bytes'] / 1024:.1f} | {at256:.2f} |")
    say()
    scaling_targets = scaling_section(say, scaling, why_not)
    say("## Targets")
    say()
    targets = target_verdicts(costs, slow, feet, rq) + scaling_targets
    for t in targets:
        say(f"- {t}")
    say()
    say(SCALING_NOTE)
    write_file(DOC, "\n".join(lines) + "\n")
    print(f"bench: wrote {DOC}", file=sys.stderr)
    if not QUICK and "BENCH_DOC" not in os.environ:
        update_readme(targets)


def write_file(path, text):
    try:
        with open(path, "w") as f:
            f.write(text)
    except OSError as e:
        die(f"writing {path} failed: {e.strerror}")


SCALING_NOTE = """## Why the targets are missed, and what would fix it

- **Per-event cost over the floor.** An empty program costs 50-100 ns per
  event here; the tools' hot programs do per event what the floor does not: CO-RE
  reads of runqueues (`nr_running`, `h_nr_idle`, `curr`, `ttwu_pending` of the
  chosen CPU and, when it is occupied, of its LLC), banked per-CPU counters,
  hash-map table rows (a lookup and atomic adds), histogram slots. runqlat, the
  reference, is itself 4-6x its floor. What would bring sisscan to 2x and half of
  runqlat: the per-LLC bitmaps below instead of runqueue reads at each wakeup,
  CPU-keyed tables as per-CPU arrays rather than hash maps, and one counter block
  written per event instead of several counters. idlebal's
  `sched_update_nr_running_tp` program (overload tracking on every
  enqueue/dequeue) is its most expensive hot hook: the overload state could be
  derived at `sched_switch` and the balance hooks instead.
- **Start-up.** sisscan and idlebal verify large programs (idlebal: about 220 ms
  of its start-up is `bpf()` time, measured with `strace -c`); sisscan read
  `/proc/kallsyms` in 4 KiB `fscanf()` steps (66 ms, fixed: a 1 MiB buffer and a
  match by name first). What would fix the rest: split the verifier-heavy
  programs (the migration-cause classifier) into smaller ones, or load them
  lazily for the options that use them.
- **Peak RSS.** The peak comes from the load: libbpf parses the kernel's 5.5 MB
  BTF for the CO-RE relocations and the attach targets, and holds the file's
  bytes twice while it parses (11 MiB at the peak, valgrind massif). After the
  load, sisscan and numascan hold 4 MiB (VmRSS), idlebal 15 MiB (12 MiB
  anonymous, not yet attributed). The tools' own parse (lib/probe.c) is freed
  before libbpf's begins: the attach targets used to be set while it was still
  held, three copies at once (`/usr/bin/time`, 1 s on an idle host: 20.7 MiB
  before, 15.0 MiB after; the table above, under load: 20.3-20.5 before, 17.5
  after). What would fix the rest: a minimised BTF (`bpftool gen
  min_core_btf`) for the relocations, and attach targets resolved from it.
- **numascan's BPF memory.** Its per-VMA and per-process tables are preallocated
  hash maps sized for large hosts (their `max_entries`); preallocation charges
  the whole size up front. What would fix it: `BPF_F_NO_PREALLOC` for the
  tables (an insert then allocates, with the table's drop count for failures),
  or sizes from `--max-vmas`-style options.

- **Per-wakeup cost against the LLC size (section 4).** sisscan's placement
  check (`check_placement()`) walks the CPUs of the chosen CPU's LLC that the
  wakee may use, one `bpf_loop()` step each, to find an unoccupied one
  (`missed_idle`), stopping at the first, when the chosen CPU is occupied;
  and the whole LLC, for the chosen CPU's place in the scan order, when a
  domain scan chose it (fentry, kprobe) or, on the tracepoint tier, when it is
  neither the previous CPU, the waker's nor the recent one. The filter audits
  walk the LLC at every audited wakeup (a verdict for each CPU is the audit's
  definition, so its walk stays). The walk steps per wakeup in section 4 count
  this work exactly (sisscan's `llc_walk_steps` map). What
  would fix it: per-LLC bitmaps of unoccupied CPUs, updated at the state
  changes (`sched_switch`, enqueue), so that a placement reads one word per 64
  CPUs, and the scan position as a popcount of the allowed CPUs between the
  start and the chosen CPU. idlebal keeps no per-LLC walk on its hot hooks."""


def target_verdicts(costs, slow, feet, rq):
    out = []
    default = [c for c in costs if c["label"] in ("sisscan", "idlebal", "numascan")]
    for c in default:
        worst = None
        for r in c["rows"]:
            f = next((x["ns_per_event"] for x in (c["floor"] or {"rows": []})["rows"]
                      if (x["flavour"], x["hook"]) == (r["flavour"], r["hook"])), None)
            if r["ns_per_event"] and f and r["run_cnt"] >= 1000:
                ratio = r["ns_per_event"] / f
                if worst is None or ratio > worst[0]:
                    worst = (ratio, r["hook"])
        if worst:
            out.append(f"{c['label']}, at most 2x the floor per hot event (1000+ events): "
                       f"{'met' if worst[0] <= 2 else 'missed'}, worst {worst[0]:.2f}x on {worst[1]}")
    sis = next((c for c in costs if c["label"] == "sisscan"), None)
    if sis and rq and sis["ns_per_wakeup"] and rq["ns_per_wakeup"]:
        r = sis["ns_per_wakeup"] / rq["ns_per_wakeup"]
        out.append(f"sisscan at most half of runqlat's cost per wakeup: {'met' if r <= 0.5 else 'missed'}, "
                   f"{sis['ns_per_wakeup']:.0f} vs {rq['ns_per_wakeup']:.0f} ns ({r:.2f}x)")
    heavy = next((c for c in costs if c["label"].startswith("sisscan --filter")), None)
    if sis and heavy and sis["ns_per_wakeup"] and heavy["ns_per_wakeup"]:
        r = heavy["ns_per_wakeup"] / sis["ns_per_wakeup"]
        out.append(f"the filter audit (4 filters) under 3x the default mode per wakeup: "
                   f"{'met' if r < 3 else 'missed'}, {heavy['ns_per_wakeup']:.0f} ns ({r:.2f}x)")
    pipe = {label: s for w, label, s in slow if w == "perf bench sched pipe"}
    if "runqlat (bcc)" in pipe:
        q = pipe["runqlat (bcc)"]
        for label in ("sisscan", "idlebal", "numascan"):
            if label in pipe:
                s = pipe[label]
                noise = max(s["spread_pct"], q["spread_pct"])
                met = s["slowdown_pct"] <= q["slowdown_pct"] + noise
                out.append(f"{label} slows perf bench sched pipe no more than runqlat (within the spread): "
                           f"{'met' if met else 'missed'}, {s['slowdown_pct']:+.1f}% vs {q['slowdown_pct']:+.1f}% "
                           f"(spread {noise:.1f}%)")
    for f in feet:
        out.append(f"{f['label']} start-up under 100 ms: {'met' if f['startup_ms'] < 100 else 'missed'}, "
                   f"{f['startup_ms']:.0f} ms; peak RSS under 10 MB: "
                   f"{'met' if f['peak_rss_kib'] < 10 * 1000 else 'missed'}, {f['peak_rss_kib'] / 1024:.1f} MiB; "
                   f"BPF memory under 4 MB here: {'met' if f['bpf_bytes'] < 4e6 else 'missed'}, "
                   f"{f['bpf_bytes'] / 1e6:.2f} MB")
    return out


def update_readme(targets):
    begin, end = "<!-- bench:begin -->", "<!-- bench:end -->"
    with open(README) as f:
        text = f.read()
    if begin not in text or end not in text:
        return
    block = (begin + "\nFrom the last `make bench` ([docs/performance.md](docs/performance.md)):\n\n"
             + "\n".join(f"- {t}" for t in targets) + "\n" + end)
    write_file(README, text[:text.index(begin)] + block + text[text.index(end) + len(end):])


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as e:
        die(str(e))
