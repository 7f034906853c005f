#!/bin/sh
# test_docs.sh - the man page, the user guide and the README say what the code does (options, check ids, exit codes, sample output,
# the command reference made from each command's --help).
# Env: TOPDIR (repo root), BUILD, TCPXO_AGENT (the binary). Prints ok/not ok/skip per case.
# The code is the reference: long options from agent/cli.c's one table, check ids in the order the
# binary prints them (fixtures/a3-mega/expected.json), exit codes from agent/cli.h, environment
# variables from every getenv() in agent/ probes/ report/, remedies from the golden reports.
set -u
. "${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
AGENT=${TCPXO_AGENT:-$TOPDIR/$BUILD/tcpxo-agent}
MAN=$TOPDIR/docs/tcpxo-agent.8
failed=0
base=/tmp
[ -d /dev/shm ] && [ -w /dev/shm ] && base=/dev/shm
tmp=$(mktemp -d "$base/tcpxo-docs.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT


# --- the man page renders without a warning ---
if ! command -v groff >/dev/null 2>&1; then
	skip "man/groff" "groff not installed (Debian: groff-base)"
elif groff -man -Tutf8 -ww -z "$MAN" >"$tmp/groff.out" 2>&1 && [ ! -s "$tmp/groff.out" ]; then
	ok man/groff
else
	nok man/groff "groff -man -Tutf8 -ww: $(head -c 300 "$tmp/groff.out" | tr '\n' '|')"
fi
if ! command -v man >/dev/null 2>&1; then
	skip "man/man-l" "man not installed (the remaining man/* cases read groff's rendering)"
	groff -man -Tascii -P-cbou -rLL=250n "$MAN" >"$tmp/man.txt" 2>/dev/null || : >"$tmp/man.txt"
elif MANWIDTH=250 MAN_KEEP_FORMATTING= man --warnings -l "$MAN" >"$tmp/man.txt" 2>"$tmp/man.err" &&
     [ ! -s "$tmp/man.err" ] && [ -s "$tmp/man.txt" ]; then
	ok man/man-l
else
	nok man/man-l "man -l: $(head -c 300 "$tmp/man.err" | tr '\n' '|')"
fi

# --- the agent's own --help: the commands' list, and every command's own ---
if [ -x "$AGENT" ]; then
	"$AGENT" --help >"$tmp/help.txt" 2>&1 || nok help/exit "--help exited non-zero"
	: >"$tmp/help-all.txt"
	for c in daemon once cleanup interfaces health workloads runtime status help version; do
		"$AGENT" help "$c" >>"$tmp/help-all.txt" 2>&1 || nok help/exit "help $c exited non-zero"
	done
	"$AGENT" health --health-file "$tmp/no-such-file" >/dev/null 2>"$tmp/health.err"
else
	nok help/options "$AGENT is not built"
	: >"$tmp/help.txt"; : >"$tmp/help-all.txt"; : >"$tmp/health.err"
fi

# --- the user guide's command reference is what the binaries print (scripts/command-reference.sh) ---
if [ -x "$AGENT" ] && [ -x "$TOPDIR/$BUILD/kubectl-fabric" ]; then
	sh "$TOPDIR/scripts/command-reference.sh" "$BUILD" >"$tmp/reference.md" 2>"$tmp/reference.err" ||
		nok guide/command-reference "scripts/command-reference.sh failed: $(head -c 200 "$tmp/reference.err")"
else
	nok guide/command-reference "$AGENT or kubectl-fabric is not built"
	: >"$tmp/reference.md"
fi

/usr/bin/python3 - "$TOPDIR" "$tmp" <<'PYEOF' || failed=1
import json, os, re, sys

top, tmp = sys.argv[1], sys.argv[2]
bad = 0


def report(name, errs):
    global bad
    if errs:
        bad = 1
        print("not ok %s: %s" % (name, "; ".join(errs)[:700]))
    else:
        print("ok %s" % name)


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


# ---- the reference, from the code ----
cli = read(os.path.join(top, "agent/cli.c"))
table = re.search(r"const struct cli_opt cli_opts\[\] = \{(.*?)\n\};", cli, re.S)
rows = re.split(r"\n\t\{ ", table.group(1)) if table else []
longopts, shortopts = [], []
for row in rows:
    m = re.match(r'(NULL|"([a-z][a-z-]*)"), (\'(\w)\'|0), ', row)
    p = re.search(r"\.progs = (\w+)", row)
    if not m or not p or p.group(1) not in ("CLI_AGENT", "CLI_BOTH"):
        continue                # kubectl fabric's passthrough of kubectl's flags: its own section
    if m.group(2) and m.group(2) not in longopts:
        longopts.append(m.group(2))
    if m.group(4) and "-" + m.group(4) not in shortopts:
        shortopts.append("-" + m.group(4))
report("reference/options", [] if len(longopts) >= 10 and "-o" in shortopts else
       ["cannot read the options of agent/cli.c's table"])
ids = [c["id"] for c in json.loads(read(os.path.join(top, "fixtures/a3-mega/expected.json")))["checks"]]
exits = {}
for name, val in re.findall(r"\b(EXIT_[A-Z_]+)\s*=\s*(\d+)", read(os.path.join(top, "agent/cli.h"))):
    exits[name] = int(val)
envs = set()
for d in ("agent", "fabric", "probes", "report"):  # the layer folders: probes/host/, report/checks/, ...
    for dirpath, _, files in sorted(os.walk(os.path.join(top, d))):
        for f in sorted(files):
            if f.endswith(".c"):
                envs.update(re.findall(r'getenv\("([A-Z_]+)"\)', read(os.path.join(dirpath, f))))
version = re.search(r"^VERSION\s*:?=\s*(\S+)", read(os.path.join(top, "Makefile")), re.M).group(1)

# ---- the man page ----
src = read(os.path.join(top, "docs/tcpxo-agent.8"))
text = read(os.path.join(tmp, "man.txt")).replace("\u2010", "-").replace("\u2212", "-").replace("\u2011", "-")
text = re.sub(r".\x08", "", text)
sections = {}
cur = None
for line in text.splitlines():
    if re.match(r"^[A-Z][A-Z ]+$", line):
        cur = line.strip()
        sections[cur] = []
    elif cur:
        sections[cur].append(line)
sec = {k: "\n".join(v) for k, v in sections.items()}
rendered = bool(sections)


def report_rendered(name, errs):
    if rendered:
        report(name, errs)
    else:
        print("skip %s: the page could not be rendered here (no man, no groff)" % name)

want = ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "CHECKS", "EXIT STATUS", "FILES", "ENVIRONMENT",
        "EXAMPLES", "SEE ALSO"]
report_rendered("man/sections", ["missing section %s" % s for s in want if s not in sec] +
       ([] if [s for s in sections if s in want] == want else ["sections out of order: %s" % list(sections)]))
th = re.search(r'^\.TH\s+\S+\s+8\s+\S+\s+"tcpxo-agent ([^"]+)"', src, re.M)
report("man/version", [] if th and th.group(1) == version else
       ["the .TH line must name tcpxo-agent %s (the Makefile's VERSION)" % version])
syn = sec.get("SYNOPSIS", "")
forms = [r"tcpxo-agent \[OPTIONS\]", r"tcpxo-agent --once \[OPTIONS\]", r"tcpxo-agent interfaces \[OPTIONS\]",
         r"tcpxo-agent health --health-file", r"tcpxo-agent --cleanup \[OPTIONS\]",
         r"tcpxo-agent workloads \[--pods-file F\] \[OPTIONS\]",
         r"tcpxo-agent runtime \[--name NAME\] \[--runtime-file F\] \[--nodes-file F\] \[--networks-file F\] "
         r"\[OPTIONS\]"]
report_rendered("man/synopsis", ["SYNOPSIS lacks the form %s" % f.replace("\\", "") for f in forms if not re.search(f, syn)])
opts = sec.get("OPTIONS", "")
report_rendered("man/options", ["OPTIONS does not describe --%s" % o for o in longopts
                       if not re.search(r"^\s+(-\w( \S+)?, )?--%s\b(?![-\w])" % re.escape(o), opts, re.M)] +
       ["OPTIONS does not describe %s" % o for o in shortopts if not re.search(r"^\s+%s\b" % o, opts, re.M)])


def tp_tags(section):
    """The tags of the .TP paragraphs in one .SH section of the roff source, unescaped."""
    part = re.split(r"^\.SH ", src, flags=re.M)
    body = [p for p in part if p.startswith(section + "\n") or p.startswith('"%s"\n' % section)]
    if not body:
        return []
    tags = re.findall(r"^\.TP\n(?:\.B[IR]? )?(.*)$", body[0], re.M)
    return [re.sub(r"\\f[BIRP]", "", t).replace("\\-", "-").strip('"') for t in tags]


found = tp_tags("CHECKS")
report("man/checks", [] if found == ids else ["CHECKS lists %s, the agent prints %s" % (found, ids)] +
       ["CHECKS in the rendered page lacks %s" % i for i in ids
        if rendered and not re.search(r"^ +%s\b" % i, sec.get("CHECKS", ""), re.M)])
tags = tp_tags("EXIT STATUS")
report("man/exit-status", [] if tags == [str(v) for v in sorted(set(exits.values()))] and len(exits) >= 3 else
       ["EXIT STATUS lists %s, agent/cli.h defines %s" % (tags, exits)])
env = sec.get("ENVIRONMENT", "")
report_rendered("man/environment", ["ENVIRONMENT does not describe %s (read with getenv)" % e for e in sorted(envs)
                           if e not in env] + ([] if envs else ["no getenv() found in the sources"]))
files = sec.get("FILES", "")
report_rendered("man/files", ["FILES does not name %s" % p for p in
                     ("ROOT/sys", "ROOT/dev/aperture_devices", "ROOT/proc", "ROOT/home/kubernetes/bin/nvidia")
                     if p not in files])

# ---- --help ----
helptext = read(os.path.join(tmp, "help.txt"))
helpall = read(os.path.join(tmp, "help-all.txt"))
if helptext:
    # Every option in the help of a command that takes it (test_cli.c holds each help to its command's).
    report("help/options", ["no command's --help mentions --%s" % o for o in longopts
                            if not re.search(r"--%s\b(?![-\w])" % re.escape(o), helptext + helpall)] +
           ["no command's --help mentions %s" % o for o in shortopts
            if not re.search(r"(^|\s)%s\b" % o, helptext + helpall, re.M)])
    # The one rule for options outside their command: test_cli.c's table names every option.
    tcli = read(os.path.join(top, "tests/unit/test_cli.c"))
    report("help/option-scope", ["tests/unit/test_cli.c's scope_cases does not cover --%s" % o for o in longopts
                                 if o not in ("help", "version", "once", "cleanup") and '{ "--%s", ' % o not in tcli] +
           ["tests/unit/test_cli.c's scope_cases does not cover %s" % o for o in shortopts
            if o != "-h" and '{ "%s", ' % o not in tcli])
    # Each command of the man page has its usage line.
    cmds = [re.sub(r"\\-", "-", c).strip() for c in re.findall(r"^\.B tcpxo-agent(.*)$", read(os.path.join(top, "docs/tcpxo-agent.8")), re.M)]
    report("help/usage", ["--help has no usage line 'tcpxo-agent %s[OPTIONS]'" % (c + " " if c else "") for c in cmds
                          if not re.search(r"^  tcpxo-agent %s\[OPTIONS\]" % re.escape(c + " " if c else ""), helptext, re.M)] +
           (["no command found in the man page"] if len(cmds) < 5 else []))
    # One debug level: neither --help nor the man page may promise more with a repeated -v.
    report("help/verbose", ["%s says -v can be repeated for more; there is one debug level" % n
                            for n, t in (("--help", helptext), ("the man page", read(os.path.join(top, "docs/tcpxo-agent.8"))))
                            if re.search(r"repeat for debug|; repeat", t)])

# ---- the user guide ----
guide = read(os.path.join(top, "docs/user-guide.md"))
ref = read(os.path.join(tmp, "reference.md"))
m = re.search(r"^<!-- command-reference: [^\n]*-->\n\n(.*?)^<!-- end of command-reference -->$", guide, re.S | re.M)
if not ref:
    print("not ok guide/command-reference: scripts/command-reference.sh printed nothing")
    bad = 1
elif not m:
    report("guide/command-reference", ["docs/user-guide.md has no command-reference markers"])
elif m.group(1) != ref:
    import difflib
    d = [l for l in difflib.unified_diff(m.group(1).splitlines(), ref.splitlines(), "guide", "--help", lineterm="", n=0)
         if l[:1] in "+-" and l[:3] not in ("+++", "---")]
    report("guide/command-reference", ["the guide's command reference differs from what the commands' --help print "
                                       "(make update-docs): %s" % " | ".join(d[:6])])
else:
    report("guide/command-reference", [])
# Each command's reference section is listed in the table of the agent's commands: every usage line there.
report("guide/command-reference-commands", ["the command reference has no section for %s" % c for c in
       ("`tcpxo-agent` (the daemon)", "`tcpxo-agent --once`", "`tcpxo-agent status`", "`kubectl fabric status`",
        "`kubectl fabric workloads`") if "### %s\n" % c not in guide])
heads = re.findall(r"^### `([a-z-]+)`\s*$", guide, re.M)
report("guide/checks", [] if heads == ids else ["check sections %s, the agent prints %s" % (heads, ids)])
errs = []
for d in sorted(os.listdir(os.path.join(top, "fixtures"))):
    f = os.path.join(top, "fixtures", d, "expected.json")
    if not os.path.exists(f):
        continue
    for c in json.loads(read(f))["checks"]:
        if c["remedy"] and c["remedy"] not in guide:
            errs.append("the remedy %s prints for %s (fixtures/%s) is not quoted: %r" %
                        (c["id"], c["status"], d, c["remedy"][:80]))
report("guide/remedies", sorted(set(errs)))
section_ok = []
for i, cid in enumerate(heads):
    body = guide.split("### `%s`" % cid, 1)[1].split("\n### ", 1)[0].split("\n## ", 1)[0]
    if "**What**" not in body or "| Status |" not in body:
        section_ok.append("the %s section has no **What** or no status table" % cid)
report("guide/check-sections", section_ok)
report("guide/daemon-flags", ["the daemon section does not describe %s" % o
                              for o in ("--interval", "--start-jitter", "--health-file", "--max-age", "--log-format")
                              if o not in guide.split("## The daemon mode", 1)[-1].split("\n## ", 1)[0]])


def slug(h):
    h = re.sub(r"[^\w\- ]", "", h.strip().lower())
    return h.replace(" ", "-")


def links(name, path):
    doc = read(path)
    here = os.path.dirname(path)
    anchors = {slug(h) for h in re.findall(r"^#+ (.*)$", doc, re.M)}
    errs = []
    body = re.sub(r"```.*?```", "", doc, flags=re.S)
    for target in re.findall(r"\]\(([^)\s]+)\)", body):
        if re.match(r"[a-z]+:", target):
            errs.append("external link %s" % target)
            continue
        file, _, frag = target.partition("#")
        tpath = os.path.normpath(os.path.join(here, file)) if file else path
        if not os.path.exists(tpath):
            errs.append("%s: no such file" % target)
        elif frag:
            tdoc = read(tpath) if not os.path.isdir(tpath) else ""
            if frag not in {slug(h) for h in re.findall(r"^#+ (.*)$", tdoc, re.M)}:
                errs.append("%s: no such heading" % target)
    report(name, errs)


links("guide/links", os.path.join(top, "docs/user-guide.md"))
links("readme/links", os.path.join(top, "README.md"))

# ---- the README ----
readme = read(os.path.join(top, "README.md"))
report("readme/placeholder", ["SAMPLE_OUTPUT_PLACEHOLDER is still there"] if "SAMPLE_OUTPUT_PLACEHOLDER" in readme else [])
rows = re.findall(r"^\| `([a-z-]+)` \|", readme, re.M)
report("readme/checks", [] if rows == ids else ["the check table lists %s, the agent prints %s" % (rows, ids)])
errs, samples = [], 0
blocks, cur = [], None
for line in readme.splitlines():
    if line.startswith("```"):
        if cur is None:
            cur = []
        else:
            blocks.append("\n".join(cur))
            cur = None
    elif cur is not None:
        cur.append(line)
for block in blocks:
    m = re.search(r"^\$ scripts/fixture.sh netns ([a-z0-9-]+) build/tcpxo-agent --once ", block, re.M)
    if not m:
        continue
    samples += 1
    fx = os.path.join(top, "fixtures", m.group(1))
    golden = read(os.path.join(fx, "expected.txt")).splitlines()
    for line in block.splitlines():
        if not line.strip() or line.strip() == "..." or line.startswith("$ "):
            continue
        ex = re.match(r"exit code: (\d+) ", line)
        if ex:
            if ex.group(1) != read(os.path.join(fx, "expected.exit")).strip():
                errs.append("%s: %r, the golden exit is %s" % (m.group(1), line, read(os.path.join(fx, "expected.exit")).strip()))
            continue
        if line.endswith("; ...") or line.endswith(": ..."):
            if not any(g.startswith(line[:-3]) for g in golden):
                errs.append("%s: no golden line starts with %r" % (m.group(1), line[:-3][:60]))
        elif line not in golden:
            errs.append("%s: not in the golden output: %r" % (m.group(1), line[:80]))
report("readme/sample", errs + ([] if samples else ["no sample block with '$ scripts/fixture.sh netns NAME build/tcpxo-agent --once'"]))
pending = "not available in this version" in read(os.path.join(tmp, "health.err"))
for name, doc in (("readme/pending", readme), ("guide/pending", guide)):
    says = "not available yet" in doc
    report(name, [] if says == pending else
           ["the binary %s the daemon and health commands, but %s says %s: update the 'not available yet' notes" %
            ("lacks" if pending else "has", name.split("/")[0], "they are there" if not says else "they are not")])

# ---- deploy.md's install table names every object the kustomization installs ----
import yaml
mdir = os.path.join(top, "manifests/daemonset")
deploy = read(os.path.join(top, "docs/deploy.md"))
errs = []
for f in yaml.safe_load(read(os.path.join(mdir, "kustomization.yaml")))["resources"]:
    rows = [l for l in deploy.splitlines() if l.startswith("| ") and "`%s`" % f in l]
    if not rows:
        errs.append("no install table row for %s" % f)
        continue
    for doc in yaml.safe_load_all(read(os.path.join(mdir, f))):
        if doc and "`%s`" % doc["metadata"]["name"] not in rows[0]:
            errs.append("%s's %s %s is not in its row" % (f, doc["kind"], doc["metadata"]["name"]))
report("deploy/install-table", errs)

# ---- the schemas name the same checks ----
sch = json.loads(read(os.path.join(top, "docs/schema/report.schema.json")))
enum = sch["$defs"]["checkId"]["enum"]
order = [p["properties"]["id"]["const"] for p in sch["$defs"]["checks"]["prefixItems"]]
asch = json.loads(read(os.path.join(top, "docs/schema/attachment.schema.json")))
aenum = asch["properties"]["checks"]["items"]["properties"]["id"]["enum"]
report("schema/check-ids", [] if enum == ids and order == ids and aenum == ids else
       ["schema check ids %s / order %s / attachment %s, the agent prints %s" % (enum, order, aenum, ids)])

# ---- docs/ARCHITECTURE.md maps every source file (by name, or as stem.{c,h}) ----
arch = read(os.path.join(top, "docs/ARCHITECTURE.md"))
missing = []
for d in ("agent", "fabric", "probes", "report"):
    for dirpath, _, files in os.walk(os.path.join(top, d)):
        for f in sorted(files):
            if not f.endswith((".c", ".h")):
                continue
            stem = f.rsplit(".", 1)[0]
            if "`%s`" % f not in arch and "`%s.{c,h}`" % stem not in arch:
                missing.append(os.path.relpath(os.path.join(dirpath, f), top))
report("architecture/every-file", ["docs/ARCHITECTURE.md does not list %s" % m for m in missing])
sys.exit(bad)
PYEOF
exit $failed
