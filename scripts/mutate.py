#!/usr/bin/python3
"""mutate.py - mutation testing, one mutant at a time: apply, build, run only the tests named, revert.

Usage: python3 scripts/mutate.py MUTANTS [ID...]
MUTANTS lists mutants as blocks separated by blank lines ('#' lines are comments):

    id: quantity-sign
    file: probes/kube/kubepod.c
    old: if (neg)
    new: if (0)
    tests: test_kubepod

`old` must occur exactly once in `file` (a mutant that does not apply is reported, never guessed);
`\\n` in old/new stands for a newline. For each mutant the file is changed, the binaries the tests
need are built (`make -j2 build/tcpxo-agent`, the unit binaries among `tests` and the test helpers;
with SAN=1 into build-san/ when the block says `san: 1`), `TESTS="..." sh tests/run.sh` runs, and the file is restored whatever happens
(also on Ctrl-C). A mutant is killed when a test fails, survives when all pass; one that does not
build is "stillborn" and not counted. Prints one line per mutant and the kill ratio; with ID...,
only those mutants run. Leaves the tree as it found it (rebuild afterwards: the last mutant's
objects are in build/).
"""
import os
import subprocess
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def parse(path):
    mutants, cur = [], {}
    for raw in open(path).read().split("\n") + [""]:
        line = raw.rstrip("\n")
        if line.startswith("#"):
            continue
        if not line.strip():
            if cur:
                mutants.append(cur)
            cur = {}
            continue
        key, _, val = line.partition(":")
        cur[key.strip()] = val[1:] if val.startswith(" ") else val
    for m in mutants:
        for k in ("id", "file", "old", "new", "tests"):
            if k not in m:
                sys.exit("mutate.py: mutant %r has no %s" % (m.get("id", "?"), k))
        m["old"] = m["old"].replace("\\n", "\n")
        m["new"] = m["new"].replace("\\n", "\n")
    return mutants


def run(cmd, env=None, timeout=1800):
    p = subprocess.run(cmd, cwd=TOP, shell=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       env=env, timeout=timeout)
    return p.returncode, p.stdout.decode(errors="replace")


def one(m):
    path = os.path.join(TOP, m["file"])
    text = open(path).read()
    if text.count(m["old"]) != 1:
        return "not-applied", "'old' occurs %d times" % text.count(m["old"])
    tests = m["tests"].split()
    units = ["tests/%s" % t for t in tests if os.path.exists(os.path.join(TOP, "tests/unit/%s.c" % t))] + \
        ["tests/integration/%s" % t for t in tests if os.path.exists(os.path.join(TOP, "tests/integration/%s.c" % t))]
    san = m.get("san", "0").strip() == "1"
    build = "build-san" if san else "build"
    try:
        open(path, "w").write(text.replace(m["old"], m["new"]))
        helpers = sorted(f[:-2] for f in os.listdir(os.path.join(TOP, "tests/helpers")) if f.endswith(".c"))
        targets = " ".join(["%s/tcpxo-agent" % build] + ["%s/%s" % (build, u) for u in units] +
                           ["%s/tests/helpers/%s" % (build, h) for h in helpers])
        rc, out = run("make -j2 %s %s" % ("SAN=1" if san else "", targets))
        if rc != 0:
            return "stillborn", out.strip().splitlines()[-1] if out.strip() else "build failed"
        env = dict(os.environ, TESTS=" ".join(tests))
        if san:
            env["BUILD"] = "build-san"
        rc, out = run("sh tests/run.sh", env=env)
        last = [l for l in out.splitlines() if l.strip()]
        failed = [l.strip() for l in out.splitlines() if l.lstrip().startswith("not ok")] + \
            [l.strip() for l in out.splitlines() if l.lstrip().startswith("FAIL")]
        if rc != 0:
            return "killed", failed[0] if failed else (last[-1] if last else "")
        return "survived", last[-1] if last else ""
    finally:
        open(path, "w").write(text)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    mutants = parse(sys.argv[1])
    want = set(sys.argv[2:])
    counts = {}
    for m in mutants:
        if want and m["id"] not in want:
            continue
        t0 = time.time()
        verdict, why = one(m)
        counts[verdict] = counts.get(verdict, 0) + 1
        print("%-10s %-40s %4.0fs  %s" % (verdict, m["id"], time.time() - t0, why[:160]), flush=True)
    k, s = counts.get("killed", 0), counts.get("survived", 0)
    print("killed %d, survived %d, stillborn %d, not applied %d: kill ratio %d/%d = %.0f%%" %
          (k, s, counts.get("stillborn", 0), counts.get("not-applied", 0), k, k + s,
           100.0 * k / (k + s) if k + s else 0.0))


if __name__ == "__main__":
    main()
