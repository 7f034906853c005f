# check_image.py - check the Dockerfile without an engine: its stages, its runtime packages against an ELF's
# libraries (ldd + dpkg -S + the Debian dependency closure), and that .dockerignore keeps what `make` needs.
# Usage: check_image.py TOPDIR dockerfile
#        check_image.py TOPDIR libs ELF [DOCKERFILE]   (exit 1 with the missing libraries named)
#        check_image.py TOPDIR ignore
# Prints one "ok NAME" / "not ok NAME: why" line per check.
import os
import re
import subprocess
import sys

TOP = sys.argv[1]
# Packages the runtime stage may list without any linked library needing them.
NON_LIBRARY = {"ca-certificates"}


def fail(name, why):
	print("not ok %s: %s" % (name, why))
	sys.exit(1)


def dockerfile_stages(path):
	"""[(from_line, [instruction lines])] with continuation lines joined and comments dropped."""
	with open(path) as fh:
		text = re.sub(r"\\\n", " ", fh.read())
	stages = []
	for line in text.splitlines():
		line = line.strip()
		if not line or line.startswith("#"):
			continue
		if re.match(r"FROM\s", line, re.I):
			stages.append((line, []))
		elif stages:
			stages[-1][1].append(line)
	return stages


def apt_installs(instructions):
	pkgs = []
	for ins in instructions:
		if not re.match(r"RUN\s", ins, re.I):
			continue
		for cmd in re.split(r"&&|;", ins[3:]):
			words = cmd.split()
			if words[:2] == ["apt-get", "install"]:
				pkgs += [w for w in words[2:] if not w.startswith("-")]
	return pkgs


def runtime_packages(path):
	stages = dockerfile_stages(path)
	if not stages:
		raise ValueError("no FROM in %s" % path)
	return apt_installs(stages[-1][1])


def cmd_dockerfile():
	path = os.path.join(TOP, "Dockerfile")
	st = dockerfile_stages(path)
	if len(st) < 2:
		fail("dockerfile-stages", "not multi-stage: %d FROM" % len(st))
	if not re.match(r"FROM\s+debian:12(@\S+)?\s+AS\s+\w+", st[0][0], re.I):
		fail("dockerfile-stages", "build stage is %r, want debian:12" % st[0][0])
	if not re.match(r"FROM\s+debian:12-slim(@\S+)?\s*$", st[-1][0], re.I):
		fail("dockerfile-stages", "runtime stage is %r, want debian:12-slim" % st[-1][0])
	print("ok dockerfile-stages")
	# The build stage installs what scripts/deps.sh calls the build packages (one list to keep in step).
	with open(os.path.join(TOP, "scripts", "deps.sh")) as fh:
		m = re.search(r'^build_pkgs="([^"]*)"', fh.read(), re.M)
	want = set(m.group(1).split()) if m else set()
	have = set(apt_installs(st[0][1]))
	if not want or want - have:
		fail("dockerfile-build-deps", "build stage lacks %s from scripts/deps.sh" % sorted(want - have))
	if not any(re.match(r"RUN\s.*\bmake\b", i) for i in st[0][1]):
		fail("dockerfile-build-deps", "the build stage never runs make")
	print("ok dockerfile-build-deps")
	rt = st[-1][1]
	if "rm -rf /var/lib/apt/lists" not in " ".join(rt):
		fail("dockerfile-runtime", "apt lists left in the runtime image")
	bad = [p for p in apt_installs(rt) if p.endswith("-dev") or p in ("build-essential", "gcc", "make", "pkg-config")]
	if bad:
		fail("dockerfile-runtime", "build packages in the runtime stage: %s" % bad)
	users = [i.split(None, 1)[1] for i in rt if re.match(r"USER\s", i, re.I)]
	if not users or users[-1].split(":")[0] != "65532":
		fail("dockerfile-runtime", "runtime USER %s, want 65532 (matches the manifests' runAsUser)" % users)
	eps = [i for i in rt if re.match(r"ENTRYPOINT\s", i, re.I)]
	if eps != ['ENTRYPOINT ["/usr/local/bin/tcpxo-agent"]']:
		fail("dockerfile-runtime", "entrypoint %s" % eps)
	if not any(re.match(r"COPY\s+--from=\S+\s+\S+\s+/usr/local/bin/tcpxo-agent$", i) for i in rt):
		fail("dockerfile-runtime", "the binary is not copied to /usr/local/bin/tcpxo-agent")
	if not any(re.match(r"COPY\s+--from=\S+\s+\S+\s+/usr/local/bin/kubectl-fabric$", i) for i in rt) or \
	   not any("build/kubectl-fabric" in i for i in st[0][1]):
		fail("dockerfile-runtime", "the built kubectl-fabric is not copied to /usr/local/bin/kubectl-fabric")
	print("ok dockerfile-runtime")


def run(argv):
	r = subprocess.run(argv, capture_output=True, text=True)
	return r.returncode, r.stdout


def path_variants(path):
	"""@path, its link target, and their usrmerge aliases (/lib <-> /usr/lib): dpkg knows one of them."""
	cands = [path, os.path.realpath(path)]
	for p in list(cands):
		cands.append(p[4:] if p.startswith("/usr/") else "/usr" + p)
	return cands


def packages_of(paths):
	"""{path: Debian package owning it, or None}, with one dpkg -S over every variant (it is slow per call)."""
	variants = {p: path_variants(p) for p in paths}
	r = subprocess.run(["dpkg", "-S"] + sorted({v for vs in variants.values() for v in vs}),
	                   capture_output=True, text=True)
	owner = {}
	for line in r.stdout.splitlines():
		pkgs, _, f = line.partition(": ")
		owner[f.strip()] = pkgs.split(",")[0].split(":")[0].strip()
	return {p: next((owner[v] for v in vs if v in owner), None) for p, vs in variants.items()}


def installed():
	"""{package: (priority, essential, [[alternatives of one Depends]], [provides])} from dpkg's status."""
	rc, out = run(["dpkg-query", "-W", "-f",
	               "${Package}\t${Priority}\t${Essential}\t${Pre-Depends}, ${Depends}\t${Provides}\t${db:Status-Abbrev}\n"])
	db = {}
	for line in out.splitlines():
		name, prio, ess, deps, prov, status = (line.split("\t") + [""] * 6)[:6]
		if not status.startswith("ii"):
			continue
		alts = []
		for d in deps.split(","):
			d = d.strip()
			if d:
				alts.append([re.sub(r"[\s(:].*", "", a.strip()) for a in d.split("|")])
		provides = [re.sub(r"[\s(].*", "", p.strip()) for p in prov.split(",") if p.strip()]
		db[name] = (prio, ess == "yes", alts, provides)
	return db


def closure(roots, db):
	providers = {}
	for name, (_, _, _, prov) in db.items():
		for p in prov:
			providers.setdefault(p, []).append(name)
	seen, todo = set(), list(roots)
	while todo:
		p = todo.pop()
		if p in seen or p not in db:
			continue
		seen.add(p)
		for alts in db[p][2]:
			for a in alts:
				for real in [a] if a in db else providers.get(a, []):
					todo.append(real)
	return seen


def needed(elf):
	rc, out = run(["objdump", "-p", elf])
	if rc != 0:
		raise RuntimeError("objdump -p %s failed" % elf)
	return set(re.findall(r"^\s*NEEDED\s+(\S+)", out, re.M))


def dlopened(elf):
	"""{soname: path} of the libraries the ELF declares it dlopens (FDO .note.dlopen, as systemd writes)."""
	import tempfile
	with tempfile.NamedTemporaryFile() as tmp:
		rc, _ = run(["objcopy", "-O", "binary", "--only-section=.note.dlopen", elf, tmp.name])
		data = open(tmp.name, "rb").read() if rc == 0 else b""
	sonames = set(re.findall(r'"soname":\[([^\]]*)\]', data.decode("utf-8", "replace")))
	names = {n for group in sonames for n in re.findall(r'"([^"]+)"', group)}
	rc, out = run(["ldconfig", "-p"])
	paths = {}
	for n in names:
		m = re.search(r"^\s*%s \(libc6,x86-64\) => (\S+)" % re.escape(n), out, re.M)
		if m:
			paths[n] = m.group(1)
	return paths


def cmd_libs(elf, dockerfile):
	listed = runtime_packages(dockerfile)
	if not listed:
		fail("image-libs", "no apt-get install in the runtime stage of %s" % dockerfile)
	rc, out = run(["ldd", elf])
	if rc != 0:
		fail("image-libs", "ldd %s failed" % elf)
	libs = {}
	for m in re.finditer(r"^\s*(\S+)\s+=>\s+(/\S+)", out, re.M):
		libs[m.group(1)] = m.group(2)
	if re.search(r"=>\s+not found", out):
		fail("image-libs", "ldd: unresolved libraries on this host: %s" % out.strip())
	# Libraries loaded on demand (dlopen) are not in ldd's list but the image must still ship them.
	opened = dlopened(elf)
	libs.update(opened)
	db = installed()
	# debian:12-slim is the required/essential set (and what it depends on, e.g. libc6): this host's
	# view of it, which matches the image as long as both are Debian 12.
	base = closure({p for p, (prio, ess, _, _) in db.items() if prio == "required" or ess}, db)
	direct_ok = set(listed) | base
	all_ok = closure(listed, db) | base
	direct = needed(elf) | set(opened)
	problems, used = [], set()
	owners = packages_of(libs.values())
	for soname, path in sorted(libs.items()):
		pkg = owners[path]
		if pkg is None:
			problems.append("%s (%s) belongs to no Debian package" % (soname, path))
			continue
		used.add(pkg)
		if soname in direct and pkg not in direct_ok:
			problems.append("%s is linked directly but its package %s is not in the runtime install line" % (soname, pkg))
		elif pkg not in all_ok:
			problems.append("%s comes from %s, which neither the runtime packages nor the base image pull in" % (soname, pkg))
	unused = [p for p in listed if p not in used and p not in NON_LIBRARY]
	if unused:
		problems.append("runtime packages no linked library needs: %s" % unused)
	if problems:
		fail("image-libs", "; ".join(problems))
	print("ok image-libs (%d libraries from %d packages; direct: %s)"
	      % (len(libs), len(used), " ".join(sorted(direct))))


def ignore_patterns():
	pats = []
	with open(os.path.join(TOP, ".dockerignore")) as fh:
		for line in fh:
			line = line.strip()
			if not line or line.startswith("#"):
				continue
			neg = line.startswith("!")
			p = os.path.normpath(line.lstrip("!").strip("/"))
			rx = "".join(".*" if t == "**" else "[^/]*" if t == "*" else "[^/]" if t == "?" else re.escape(t)
			             for t in re.split(r"(\*\*|\*|\?)", p))
			pats.append((re.compile(rx + "$"), neg))
	return pats


def ignored(path, pats):
	"""Docker's rule: the last pattern matching the path or one of its parent directories decides."""
	parts = path.split("/")
	prefixes = ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]
	out = False
	for rx, neg in pats:
		if any(rx.match(p) for p in prefixes):
			out = not neg
	return out


def cmd_ignore():
	pats = ignore_patterns()
	need = ["Makefile", "scripts/deps.sh", "scripts/portable-check.sh"]
	for d in ("agent", "fabric", "probes", "report"):
		for dirpath, _, files in os.walk(os.path.join(TOP, d)):
			need += [os.path.relpath(os.path.join(dirpath, f), TOP) for f in files if f.endswith((".c", ".h"))]
	lost = [p for p in need if ignored(p, pats)]
	if lost:
		fail("dockerignore", "the build needs %s but .dockerignore drops them" % lost)
	sent = [p for p in ("build/tcpxo-agent", "build-san/libtcpxo.a", ".git/HEAD", "fixtures/x", "tests/run.sh") if not ignored(p, pats)]
	if sent:
		fail("dockerignore", "build outputs or test trees reach the build context: %s" % sent)
	print("ok dockerignore (%d build inputs kept)" % len(need))


if __name__ == "__main__":
	what = sys.argv[2]
	if what == "dockerfile":
		cmd_dockerfile()
	elif what == "libs":
		cmd_libs(sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else os.path.join(TOP, "Dockerfile"))
	elif what == "ignore":
		cmd_ignore()
	else:
		sys.exit("check_image.py: unknown check %s" % what)
