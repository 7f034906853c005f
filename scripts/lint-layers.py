#!/usr/bin/python3
"""lint-layers.py - includes point down, each library has one adapter, no file or module cycles.

Usage: lint-layers.py [--root DIR] [--objects DIR]...

Reads every #include line of agent/, fabric/, probes/ and report/ (and, for the adapter rule, tests/
and fuzz/). With --objects (the build's obj/ folders: tcpxo-agent's, and kubectl-fabric's portable
one), also reads which symbols each object file
defines and uses (nm), so a call that reaches across layers or closes a circle without an
#include (a prototype declared by hand, a helper declared in the caller's header) is caught too.
Prints one line per violation, "FILE:LINE: what", and exits 1 if there is any.

The layers, lowest first; a file may include its own folder and the folders of lower rank only:
  probes/model (0)  <  probes/host, probes/kube (1)  <  report/checks (2)
                    <  report/fleet, report/render (3)  <  agent (4)  <  fabric (5)
Folders of equal rank never include each other (host and kube, fleet and render).
"""
import argparse
import os
import re
import subprocess
import sys

RANK = {
    "probes/model": 0,
    "probes/host": 1,
    "probes/kube": 1,
    "report/checks": 2,
    "report/fleet": 3,
    "report/render": 3,
    "agent": 4,
    "fabric": 5,
}
LAYERED = ("agent", "fabric", "probes", "report")
MAINS = ("agent/main.c", "fabric/main.c")      # each program's main: both define it, neither is called
ADAPTER_SCOPE = LAYERED + ("tests", "fuzz")

# Each external library's headers, and its adapter: the files allowed to include them (one file, or
# a library's files split by concern: libnl's parsing and watch, libcurl's three and their private
# header, never seen from outside them).
ADAPTERS = [
    (re.compile(r"^netlink/"), "libnl", ("probes/host/links_parse.c", "probes/host/links_watch.c")),
    (re.compile(r"^libudev\.h$"), "libudev", ("probes/host/uevents.c",)),
    (re.compile(r"^curl/"), "libcurl", ("probes/kube/http.c", "probes/kube/http_stream.c",
                                        "probes/kube/http_conf.c", "probes/kube/http_conf.h")),
    (re.compile(r"^cjson/"), "cJSON", ("probes/model/json.c",)),
    (re.compile(r"^yaml\.h$"), "libyaml", ("probes/model/yaml.c",)),
    (re.compile(r"^microhttpd\.h$"), "libmicrohttpd", ("agent/metrics_http.c",)),
]

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def folder(path):
    return os.path.dirname(path)


def rank(path):
    return RANK.get(folder(path))


def module(path):
    """A .c file and its .h are one module."""
    return os.path.splitext(path)[0]


def sources(root, tops):
    out = []
    for top in tops:
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in files:
                if f.endswith((".c", ".h")):
                    out.append(os.path.relpath(os.path.join(d, f), root))
    return sorted(out)


def includes(root, path):
    with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
        for n, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            if m:
                yield n, m.group(1) == "<", m.group(2)


def layer_problem(src, dst):
    """Why src may not depend on dst, or None."""
    rs, rd = rank(src), rank(dst)
    if rs is None:
        return "%s is in no layer (folders: %s)" % (src, ", ".join(sorted(RANK)))
    if rd is None:
        return "%s is in no layer" % dst
    if folder(src) == folder(dst) or rd < rs:
        return None
    if rd == rs:
        return "%s/ and %s/ are siblings: neither includes the other" % (folder(src), folder(dst))
    return "goes up a layer (%s/ may include only %s)" % (
        folder(src), ", ".join(sorted(k + "/" for k, v in RANK.items() if v < rs or k == folder(src))))


def cycles(edges):
    """Strongly connected components of more than one node (or a self loop), as sorted lists."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]
    nodes = sorted(set(edges) | {d for v in edges.values() for d in v})

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1 or v in edges.get(v, ()):
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in nodes:
        if v not in index:
            visit(v)
    return out


def cycle_path(edges, comp):
    """The shortest circle through the component's first node: a node list ending where it starts."""
    comp = set(comp)
    start = min(comp)
    prev, todo = {}, [start]
    while todo:
        v = todo.pop(0)
        for w in sorted(edges.get(v, ())):
            if w == start:
                path = [v]
                while path[-1] != start:
                    path.append(prev[path[-1]])
                return path[::-1] + [start]
            if w in comp and w not in prev:
                prev[w] = v
                todo.append(w)
    return [start, start]


def lint_includes(root):
    problems = []
    files = sources(root, ADAPTER_SCOPE)
    fedges, medges, where = {}, {}, {}
    for src in files:
        layered = src.split("/", 1)[0] in LAYERED
        for n, system, name in includes(root, src):
            loc = "%s:%d" % (src, n)
            if system:
                for pat, lib, owners in ADAPTERS:
                    if pat.search(name) and src not in owners:
                        problems.append("%s: <%s> is %s, which only %s includes (its adapter)" %
                                        (loc, name, lib, ", ".join(owners)))
                continue
            if not os.path.isfile(os.path.join(root, name)):
                problems.append('%s: "%s" does not exist (includes are relative to the top folder)' %
                                (loc, name))
                continue
            for _, lib, owners in ADAPTERS:
                if name in owners and src not in owners:
                    problems.append('%s: "%s" is inside the %s adapter, which only %s include' %
                                    (loc, name, lib, ", ".join(o for o in owners if o != name)))
            if not layered:
                continue
            why = layer_problem(src, name)
            if why:
                problems.append('%s: "%s" %s' % (loc, name, why))
            fedges.setdefault(src, set()).add(name)
            where.setdefault((src, name), loc)
            if module(src) != module(name):
                medges.setdefault(module(src), set()).add(module(name))
                where.setdefault((module(src), module(name)), loc)
    for comp in cycles(fedges):
        p = cycle_path(fedges, comp)
        problems.append("%s: include cycle: %s" % (where[(p[0], p[1])], " -> ".join(p)))
    hops = {k: "includes %s (%s)" % (os.path.basename(k[1]) + ".h", loc) for k, loc in where.items()
            if k[0] in medges}
    return problems, len(files), medges, hops


def nm_symbols(objs):
    """{object: (defined, used)} for every object, from two nm runs over all of them (one per object
    was 300 processes: most of the lint's time)."""
    table = {o: (set(), set()) for o in objs}
    if not objs:
        return table
    for flags, slot in ((["--defined-only", "-g"], 0), (["-u"], 1)):
        out = subprocess.run(["nm", "-A"] + flags + objs, capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            obj, _, rest = line.partition(":")     # "file.o:[value] type name" (no ':' in our paths)
            fields = rest.split()
            if obj in table and fields and (slot == 1 or len(fields) == 3):
                table[obj][slot].add(fields[-1])
    return table


def lint_links(root, objdirs):
    """The same rules over who calls whom: symbols each object uses from the others (a source built in
    two folders is read from the first)."""
    problems, defs, uses, stale, objs, srcs = [], {}, {}, [], [], set()
    for objdir in objdirs:
        for d, _, files in os.walk(objdir):
            for f in sorted(files):
                if not f.endswith(".o"):
                    continue
                src = os.path.relpath(os.path.join(d, f[:-2] + ".c"), objdir)
                if src.split("/", 1)[0] not in LAYERED or src in MAINS or src in srcs:
                    continue
                srcs.add(src)
                path = os.path.join(root, src)
                if not os.path.isfile(path):
                    continue        # an object left from a file that was moved away
                if os.path.getmtime(path) > os.path.getmtime(os.path.join(d, f)):
                    stale.append(src)
                    continue
                objs.append((os.path.join(d, f), src))
    table = nm_symbols([o for o, _ in objs])
    for o, src in objs:
        defined, used = table[o]
        for s in defined:
            defs[s] = src
        uses[src] = used
    medges, hops = {}, {}
    for src, used in sorted(uses.items()):
        for s in sorted(used):
            dst = defs.get(s)
            if not dst or dst == src:
                continue
            if module(dst) != module(src):
                why = layer_problem(src, dst)
                if why:
                    problems.append("%s: calls %s() of %s, which %s" % (src, s, dst, why))
            if module(dst) != module(src):
                medges.setdefault(module(src), set()).add(module(dst))
                hops.setdefault((module(src), module(dst)), "calls %s()" % s)
    return problems, len(uses), stale, medges, hops


def lint_cycles(medges, hops):
    """Modules (a .c and its .h) that depend on each other, by #include or by call."""
    problems = []
    for comp in cycles(medges):
        p = cycle_path(medges, comp)
        steps = " -> ".join("%s [%s]" % (b, hops[(a, b)]) for a, b in zip(p, p[1:]))
        problems.append("%s: modules depend on each other in a circle: %s -> %s" % (p[0], p[0], steps))
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=".")
    ap.add_argument("--objects", action="append", default=[])
    a = ap.parse_args()
    problems, n_files, medges, hops = lint_includes(a.root)
    summary = "%d files" % n_files
    objdirs = [o for o in a.objects if os.path.isdir(o)]
    if objdirs:
        more, n_objs, stale, ledges, lhops = lint_links(a.root, objdirs)
        problems += more
        for k, v in ledges.items():
            medges.setdefault(k, set()).update(v)
        for k, v in lhops.items():
            hops.setdefault(k, v)
        summary += ", %d objects" % n_objs
        if stale:
            summary += " (%d older than their source, not read: %s)" % (len(stale), " ".join(stale[:5]))
    problems += lint_cycles(medges, hops)
    for p in problems:
        print(p)
    if problems:
        print("lint-layers: %d problem%s (%s)" % (len(problems), "" if len(problems) == 1 else "s", summary))
        return 1
    print("lint-layers: ok (%s; includes point down, one adapter per library, no cycles)" % summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
