#!/usr/bin/python3
"""report.py - turn bench/run.sh's raw measurements into the results table (markdown on stdout).

Usage: report.py OUTDIR RUNS EXTRA_LINKS EXTRA_PCI   (env BENCH_OTHER_LABEL names agent-other)
Wall time: median (min..max) of hyperfine's runs. Peak RSS: median (min..max) of /usr/bin/time's
%M. CPU (user+sys): /usr/bin/time prints it in 10 ms steps, too coarse for runs of a few ms, so
the CPU column is hyperfine's mean (getrusage, microseconds) with /usr/bin/time's median beside it."""
import collections
import json
import os
import platform
import statistics
import subprocess
import sys
import time

OUT, RUNS, EXTRA_LINKS, EXTRA_PCI = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
RSS_TARGET_MIB = 12.0
RATIO_TARGET, RATIO_GOAL = 1.0, 0.25
WORKLOADS_TARGET = 0.10          # the workload check: at most 10% of --once's wall time
LABELS = {
    "agent": "tcpxo-agent --once --json",
    "agent-other": os.environ.get("BENCH_OTHER_LABEL") or "other agent binary",
    "peer": "peer: lspci -tv + ip -j addr",
    "peer-addr": "ip -j addr alone",
    "floor": "floor: libraries + curl initialised",
    "floor-nocurl": "floor without libcurl/OpenSSL",
    "true": "/bin/true",
}


def read(path, default=""):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return default


def stats(values):
    if not values:
        return None
    return statistics.median(values), min(values), max(values)


def fmt(s, unit, digits=1):
    if not s:
        return "n/a"
    return f"{s[0]:.{digits}f} ({s[1]:.{digits}f}..{s[2]:.{digits}f}) {unit}"


def load_case(case):
    d = os.path.join(OUT, case)
    hf = json.load(open(os.path.join(d, "hyperfine.json")))
    rows = {}
    for r in hf["results"]:
        name = r["command"]
        wall = [t * 1000 for t in r["times"]]
        cpu, rss = [], []
        for line in read(os.path.join(d, f"time-{name}.txt")).splitlines():
            parts = line.split()
            if len(parts) == 4 and not parts[0].startswith("Command"):
                cpu.append((float(parts[1]) + float(parts[2])) * 1000)
                rss.append(int(parts[3]) / 1024)
        rows[name] = {"wall": stats(wall), "cpu_time": stats(cpu), "rss": stats(rss),
                      "cpu": (r["user"] + r["system"]) * 1000}
    return rows


def recvmsg_calls(case, name):
    """recvmsg + recvfrom calls in the strace -c summary of one run of NAME, or None."""
    calls = 0
    text = read(os.path.join(OUT, f"{case}.strace-{name}"))
    if not text:
        return None
    for line in text.splitlines():
        f = line.split()
        if len(f) >= 5 and f[-1] in ("recvmsg", "recvfrom") and f[3].isdigit():
            calls += int(f[3])
    return calls


def case_table(case, title, peer="peer", goal=None):
    """One case's table; the ratio is the agent's against @peer; @goal: (limit, what it is) to judge it by."""
    rows = load_case(case)
    exit_code = read(os.path.join(OUT, f"{case}.exit"), "?")
    links = read(os.path.join(OUT, f"{case}.links"), "?")
    pci = read(os.path.join(OUT, f"{case}.pci"), "?")
    try:
        rep = json.load(open(os.path.join(OUT, f"{case}.json")))
        summary = rep.get("summary", "?")
    except (OSError, ValueError):
        summary = "NO JSON REPORT: " + read(os.path.join(OUT, f"{case}.err"))[:200]
    lines = [f"### {title}", "",
             f"{links} links in the namespace, {pci} PCI functions; agent exit {exit_code}: `{summary}`", "",
             "| command | wall ms | CPU ms: mean (time(1) median) | peak RSS MiB |", "|---|---|---|---|"]
    for name in ["agent", "agent-other", "peer", "peer-addr", "floor", "floor-nocurl", "true"]:
        if name in rows:
            r = rows[name]
            ct = f"{r['cpu_time'][0]:.0f}" if r["cpu_time"] else "n/a"
            lines.append(f"| {LABELS[name]} | {fmt(r['wall'], '')} | {r['cpu']:.1f} ({ct}) | "
                         f"{fmt(r['rss'], '', 2)} |")
    a, p = rows.get("agent"), rows.get(peer)
    if a and p and a["wall"] and p["wall"]:
        ratio = a["wall"][0] / p["wall"][0]
        ratio_min = a["wall"][1] / p["wall"][1]
        cratio = a["cpu"] / p["cpu"] if p["cpu"] else float("nan")
        met = "met" if ratio <= RATIO_TARGET else "MISSED"
        if goal:
            judged = f"{goal[1]} <= {goal[0]}: {'met' if ratio <= goal[0] else 'MISSED'}"
        else:
            judged = f"goal <= {RATIO_GOAL}: {'met' if ratio <= RATIO_GOAL else 'not met'}"
        lines += ["", f"ratio agent/{peer} (medians): wall **{ratio:.2f}** (of the minima {ratio_min:.2f}; "
                  f"target <= {RATIO_TARGET}: {met}; {judged}), CPU {cratio:.2f}"]
        o = rows.get("agent-other")
        if o and o["wall"]:
            lines.append(f"ratio {LABELS['agent-other']}/{peer} (medians): wall {o['wall'][0] / p['wall'][0]:.2f}")
    calls = [(n, recvmsg_calls(case, n)) for n in ["agent", "agent-other", peer]]
    calls = [f"{LABELS[n]} {c}" for n, c in calls if c is not None]
    if calls:
        lines.append("recvmsg calls in one run (strace -f -c): " + "; ".join(calls))
    if a and a["rss"]:
        met = "met" if a["rss"][0] <= RSS_TARGET_MIB else "MISSED"
        fl = rows.get("floor", {}).get("rss")
        fln = rows.get("floor-nocurl", {}).get("rss")
        lines.append(f"agent peak RSS {a['rss'][0]:.2f} MiB (target <= {RSS_TARGET_MIB:.0f} MiB: {met}); "
                     f"floor {fl[0]:.2f} MiB with libcurl, {fln[0]:.2f} MiB without" if fl and fln else "")
    return lines


def fuzz_table(path):
    """Totals per target of every `make fuzz` run recorded in fuzz/run.sh's stats file, if any."""
    tot = {}
    for line in read(path).splitlines():
        f = line.split("\t")
        if len(f) < 7:
            continue
        t = tot.setdefault(f[1], {"runs": 0, "secs": 0, "execs": 0, "cov": 0, "ft": 0, "failed": 0})
        t["runs"] += 1
        t["secs"] += int(f[2])
        t["execs"] += int(f[3])
        t["cov"] = max(t["cov"], int(f[4]))
        t["ft"] = max(t["ft"], int(f[5]))
        t["failed"] += f[6] != "ok"
    if not tot:
        return []
    lines = ["### Fuzzing (`make fuzz`, libFuzzer + ASan/UBSan, all runs so far on this machine)", "",
             "| target | runs | seconds | executions | cov (max) | ft (max) | runs ending in a finding |",
             "|---|---|---|---|---|---|---|"]
    for name in sorted(tot):
        t = tot[name]
        lines.append(f"| {name} | {t['runs']} | {t['secs']} | {t['execs']:,} | {t['cov']} | {t['ft']} | "
                     f"{t['failed']} |")
    return lines + ["", "cov/ft count edges and features of the instrumented project code only "
                    "(libnl, cJSON and libc are not instrumented).", ""]


def workloads_cost():
    """bench/judge's in-process figures against case 5's --once wall time."""
    try:
        j = json.load(open(os.path.join(OUT, "judge.json")))
    except (OSError, ValueError):
        return ["", "workload check cost: not measured (bench/judge failed)"]
    ev = stats([s["evaluate"] / 1000 for s in j["samples"]])
    dp = stats([s["daemon_pod"] / 1000 for s in j["samples"]])
    wl = stats([s["workloads"] / 1000 for s in j["samples"]])
    both = stats([(s["daemon_pod"] + s["workloads"]) / 1000 for s in j["samples"]])
    judged = j["samples"][0]["judged"] if j["samples"] else 0
    lines = ["", f"The workload check in process (`{os.environ.get('BUILD', 'build')}/bench/judge`, {j['runs']} runs, "
             f"{j['pods']} pods, {judged} GPU pods judged): ms median (min..max)", "",
             "| part | ms |", "|---|---|",
             f"| parse the Node and the PodList, evaluate the node (all checks) | {fmt(ev, '', 3)} |",
             f"| of which the daemon-pod check | {fmt(dp, '', 3)} |",
             f"| judge every GPU pod, render the table and the JSON member | {fmt(wl, '', 3)} |"]
    a = load_case("pods").get("agent")
    if a and a["wall"] and both:
        share = both[0] / a["wall"][0]
        met = "met" if share <= WORKLOADS_TARGET else "MISSED"
        lines += ["", f"workload check (daemon-pod + judging + rendering) {both[0]:.3f} ms of --once's "
                  f"{a['wall'][0]:.1f} ms median wall: **{100 * share:.1f}%** (target <= "
                  f"{100 * WORKLOADS_TARGET:.0f}%: {met})"]
    other = load_case("pods").get("agent-other")
    if a and other and a["wall"] and other["wall"]:
        lines.append(f"--once with 110 pods: this agent {a['wall'][0]:.1f} ms, "
                     f"{os.environ.get('BENCH_OTHER_LABEL') or 'the other binary'} {other['wall'][0]:.1f} ms (medians)")
    return lines


def verdict(ok):
    return "met" if ok else "MISSED"


def daemon_section(d):
    """Section 4 from bench/daemon.sh's raw files in @d; None when the case did not run."""
    if not os.path.isdir(d):
        return None
    lines = []
    idle = read(os.path.join(d, "idle.txt")).split()
    if len(idle) == 3:
        cpu, reqs, secs = float(idle[0]), int(idle[1]), idle[2]
        lines.append(f"- idle: **{cpu:.4f} CPU s** and **{reqs} API requests** in {secs} s with nothing changing "
                     f"(default --interval 3600, watches open) — targets <= 0.01 CPU s: {verdict(cpu <= 0.01)}; "
                     f"0 requests: {verdict(reqs == 0)}")
    met = read(os.path.join(d, "metrics.txt")).split()
    if len(met) == 8:
        off_cpu, off_rss, on_cpu, on_rss = float(met[0]), int(met[1]), float(met[2]), int(met[3])
        scrapes, size, secs, every = int(met[4]), int(met[5]), met[6], met[7]
        lines.append(f"- metrics: idle {secs} s without `--metrics-address` **{off_cpu:.4f} CPU s, RSS "
                     f"{off_rss / 1024:.2f} MiB**; with it, scraped every {every} s ({scrapes} scrapes of "
                     f"{size} bytes) **{on_cpu:.4f} CPU s, RSS {on_rss / 1024:.2f} MiB** "
                     f"({(on_rss - off_rss) / 1024:+.2f} MiB) — goal RSS within 1 MiB: "
                     f"{verdict(on_rss - off_rss <= 1024 and scrapes > 0)}")
    steady = read(os.path.join(d, "steady.txt")).split()
    if len(steady) == 2:
        secs, interval = int(steady[0]), int(steady[1])
        rows = [json.loads(l) for l in read(os.path.join(d, "steady.log")).splitlines() if l.strip()]
        watches = sum(1 for r in rows if r.get("watch"))
        initial = sum(1 for r in rows if "sendInitialEvents=true" in (r.get("query") or ""))
        per = len(rows) / (secs / interval)
        lines.append(f"- steady state: **{len(rows)} requests in {secs} s at --interval {interval}** with nothing "
                     f"changing ({watches} watches, {initial} of them refilling a store with sendInitialEvents; "
                     f"{len(rows) - watches} others) = **{per:.1f} per resync period**, so **{per:.1f} per node "
                     f"per hour** at the default --interval 3600 (each watch asks timeoutSeconds in "
                     f"[1.2, 2.4) intervals: the resync ends it first) — goal <= 4: {verdict(per <= 4)}")
    for name, label, target in (("reaction", "link change -> PATCH received (eth1..eth8 down/up once each)", 1500),
                                ("skew", "daemon container restarted at a skewed release (and back) -> PATCH "
                                 "received, after the change was applied at the server", 2000)):
        times = [l.strip() for l in read(os.path.join(d, name + ".txt")).splitlines() if l.strip()]
        ok = sorted(int(t) for t in times if t.lstrip("-").isdigit())
        lost = len(times) - len(ok)
        if ok:
            med = statistics.median(ok)
            lines.append(f"- {name}, {label}: **median {med:.0f} ms, max {max(ok)} ms** over {len(ok)} changes"
                         f"{f', {lost} without a PATCH within 5 s' if lost else ''} — target median <= {target} ms: "
                         f"{verdict(med <= target and not lost)}")
        elif times:
            lines.append(f"- {name}: no PATCH followed any change (MISSED)")
    rss = read(os.path.join(d, "rss.txt")).split()
    if len(rss) == 4:
        r0, r1, ev, rl = (int(x) for x in rss)
        seen = read(os.path.join(d, "rss.relists"), "?")
        lines.append(f"- RSS: **{r0 / 1024:.2f} MiB** after warming up (100 events, one relist), **{r1 / 1024:.2f} MiB** "
                     f"after {ev} more watch events and {rl} relists ({seen} relists logged in all): growth "
                     f"**{(r1 - r0) / 1024:+.2f} MiB** — goal <= 1 MiB: {verdict(r1 - r0 <= 1024)}")
    for mode, label in (("watch", "watches (the default)"), ("poll", "--no-watch (polling)")):
        rd = os.path.join(d, "rollout-" + mode)
        if not os.path.isdir(rd):
            continue
        t0 = float(read(os.path.join(rd, "start"), "0"))
        alive, agents, rate = (int(x) for x in read(os.path.join(rd, "agents"), "0 0 0").split())
        rows = [l.split() for l in read(os.path.join(rd, "timeline.log")).splitlines() if len(l.split()) == 5]
        per_sec, codes, published = collections.Counter(), collections.Counter(), {}
        kinds = collections.Counter()
        for t, method, path, status, w in rows:
            t = float(t)
            per_sec[int(t)] += 1
            codes[status] += 1
            parts = path.strip("/").split("/")      # api v1 nodes NAME [status]
            if method == "PATCH" and parts[-1] == "status":
                kinds["status"] += 1
            elif method == "PATCH":
                kinds["PATCH"] += 1
            elif method == "POST":
                kinds["POST"] += 1
            else:
                kinds["watch" if w == "w" else "GET"] += 1
            if method == "PATCH" and status == "200" and parts[:3] == ["api", "v1", "nodes"] and len(parts) == 4:
                published.setdefault(parts[3], t)
        total = len(rows)
        share = codes.get("429", 0) / total if total else 0
        peak = max(per_sec.values()) if per_sec else 0
        last = max(published.values()) - t0 if published else float("nan")
        lines.append(
            f"- rollout, {label}: {agents} daemons started together (default --start-jitter 60), server admitting "
            f"{rate} requests/s (429 + Retry-After: 1 beyond): **{total / max(agents, 1):.2f} requests per agent**, "
            f"{(total - codes.get('429', 0)) / max(agents, 1):.2f} not answered 429 "
            f"({total} in all: {kinds['watch']} watches, {kinds['GET']} other GETs, {kinds['PATCH']} node PATCHes, "
            f"{kinds['status']} status PATCHes, {kinds['POST']} Events; "
            f"{codes.get('200', 0)} answered 200, {codes.get('429', 0)} answered 429 = **{100 * share:.1f}%**); "
            f"**{len(published)} of {agents} nodes published**, the last {last:.1f} s after the start; **peak "
            f"{peak} requests/s** at the server; {agents - alive} agents exited — goals: <= 6 requests per agent "
            f"not answered 429 (one per watched resource, then the writes: PATCH, condition, Event): "
            f"{verdict((total - codes.get('429', 0)) / max(agents, 1) <= 6)}; 429 <= 5%: "
            f"{verdict(share <= 0.05)}; peak <= {2 * rate}/s: {verdict(peak <= 2 * rate)}; every node published, "
            f"none gives up: {verdict(alive == agents and len(published) == agents)}")
    return "\n".join(lines) if lines else None


def main():
    host = platform.uname()
    load = (read(os.path.join(OUT, "loadavg")) or read("/proc/loadavg")).split()[:3]
    out = ["# tcpxo-agent benchmark results", "",
           f"Written by `make bench` (bench/run.sh) on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
           f"{host.machine}, kernel {host.release}, {os.cpu_count()} CPUs (shared), load average at "
           f"the start {' '.join(load)}. Each figure: median (min..max) of {RUNS} runs; wall time by "
           "hyperfine (`-N`, 3 warm-up runs), CPU and peak RSS by `/usr/bin/time -f '%e %U %S %M'`. "
           "All commands of a case run side by side in the same private network namespace on the "
           "same tmpfs copy of the fixture.", ""]
    if os.path.isdir(os.path.join(OUT, "small")):
        out += case_table("small", "1. fixtures/a3-mega, `--no-publish`") + [""]
    if os.path.isdir(os.path.join(OUT, "big")):
        out += case_table("big", f"2. a3-mega + {EXTRA_LINKS} veth links (each with its peer) + "
                          f"{EXTRA_PCI} PCI functions, `--no-publish`", goal=(0.3, "issue 17")) + [""]
    if os.path.isdir(os.path.join(OUT, "veths")):
        out += case_table("veths", f"2b. a3-mega + {EXTRA_LINKS} veth links (each with its peer) alone, "
                          "`--no-publish`, against `ip -j addr` by itself", peer="peer-addr") + [""]
    if os.path.isdir(os.path.join(OUT, "api")):
        out += case_table("api", "3. fixtures/a3-mega with the API (fake server over TLS, publish on change)")
        total = int(read(os.path.join(OUT, "api.requests"), "0") or 0)
        agents = 1 + os.path.exists(os.path.join(OUT, "api", "cmd-agent-other.txt"))
        runs = 1 + agents * (3 + 2 * RUNS)   # sanity run; per agent binary: warm-up, hyperfine, time(1)
        out += [f"API requests: {total} over {runs} agent runs = {total / runs:.1f} per run "
                "(GET node, GET pods, GET networks; the first run also PATCHes; the peer and floor "
                "rows make none)."]
    if os.path.isdir(os.path.join(OUT, "pods")):
        out += [""] + case_table("pods", "5. fixtures/a3-mega with the API and 110 pods on the node "
                                 "(the kubelet's default maximum; 15 GPU pods among them)")
        out += workloads_cost()
    out += [""]
    out += fuzz_table(os.environ.get("FUZZ_STATS", "build-fuzz/fuzz-stats.tsv"))
    out += ["### 4. daemon (idle, steady state, reaction, RSS, rollout)", "",
            daemon_section(os.path.join(OUT, "daemon")) or "not measured in this run (BENCH_CASES)."]
    out += ["", "### 6. the node's state: labels, condition, Events (bench/status.sh)", "",
            read(os.path.join(OUT, "status", "status.md"), "not measured in this run (BENCH_CASES).")]
    out += ["", "### 7. the transport sample of the GPU pods and the one-shot window (bench/transport.sh, "
            "bench/window.sh)", ""]
    sample = read(os.path.join(OUT, "transport", "sample.txt"))
    if sample:
        out += ["One sample of 8 GPU pods (`podnet-dump --repeat`, the mean of 200 samples unless REPEAT said "
                "otherwise; `fixture-again`: "
                "the one-shot commands' second reading of the same pods' net/dev alone). `fixture-*`: a 2,000-process "
                "fixture /proc on tmpfs; `real-*`: this machine's /proc grown to 2,000 real processes, 8 in real pod "
                "cgroups: `cold` without hints, `steady` with each pod's pid from the sample before (the daemon), "
                "`absent` pods that are not there (every pid's cgroup read). The listing's cost is a few system calls "
                "per pid: compare machines by the `syscall` line.", "", "```", sample.rstrip("\n"), "```", ""]
    out += [read(os.path.join(OUT, "transport", "window.md"), "not measured in this run (BENCH_CASES).")]
    out += ["", "### 8. reading the PCI tree (bench/pci.sh)", "",
            read(os.path.join(OUT, "pci", "pci.md"), "not measured in this run (BENCH_CASES).")]
    print("\n".join(out))


if __name__ == "__main__":
    main()
