# check_manifests.py - check manifests/daemonset against the agent's contracts; prints ok/not ok/skip per case.
# Usage: /usr/bin/python3 tests/lib/check_manifests.py TOPDIR [AGENT_BINARY]
# The schemas (tests/k8s/manifests.mjs) and the admission policy's decisions (tests/k8s/admission.mjs)
# are checked by tests/integration/test_manifests.sh with the npm tools of tests/k8s.
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

TOP = sys.argv[1]
AGENT = sys.argv[2] if len(sys.argv) > 2 else ""
MDIR = os.path.join(TOP, "manifests", "daemonset")
IMAGE_REPO = "ghcr.io/aicr/tcpxo-agent"
PREFIX = "fabric.aicr.run/"
NODE_NAME_CLAIM = "authentication.kubernetes.io/node-name"
HOST_MOUNTS = {"/sys", "/dev", "/proc", "/home/kubernetes/bin/nvidia"}
BINARIES = ("tcpxo-agent", "/usr/local/bin/tcpxo-agent")

failed = False


def case(name):
	def run(fn):
		global failed
		try:
			res = fn()
		except Exception as err:  # a broken manifest must be reported, never crash the run
			failed = True
			msg = str(err).replace("\n", " ") or type(err).__name__
			print("not ok %s: %s" % (name, msg[:400]))
			return fn
		if isinstance(res, str) and res.startswith("skip"):
			print("skip %s: %s" % (name, res[5:]))
		else:
			print("ok %s" % name)
		return fn
	return run


def check(cond, msg):
	if not cond:
		raise AssertionError(msg)


def load_all():
	docs = {}
	for dirpath, _, files in os.walk(MDIR):
		for f in sorted(files):
			if f.endswith((".yaml", ".yml")):
				path = os.path.join(dirpath, f)
				with open(path) as fh:
					docs[os.path.relpath(path, MDIR)] = [d for d in yaml.safe_load_all(fh) if d is not None]
	return docs


DOCS = {}
OBJS = []   # (file, object) of every Kubernetes object (kustomizations excluded)


@case("yaml-parses")
def _():
	DOCS.update(load_all())
	check(DOCS, "no YAML under manifests/daemonset")
	for f, docs in DOCS.items():
		for d in docs:
			check(isinstance(d, dict), "%s: a document is not a mapping" % f)
			if os.path.basename(f) == "kustomization.yaml":
				continue
			for key in ("apiVersion", "kind"):
				check(key in d, "%s: a document without %s" % (f, key))
			check(d.get("metadata", {}).get("name"), "%s: %s without metadata.name" % (f, d.get("kind")))
			OBJS.append((f, d))


def objs(kind, name=None):
	return [o for _, o in OBJS if o["kind"] == kind and (name is None or o["metadata"]["name"] == name)]


def one(kind, name=None):
	found = objs(kind, name)
	check(len(found) == 1, "expected one %s %s, found %d" % (kind, name or "", len(found)))
	return found[0]


def makefile_version():
	with open(os.path.join(TOP, "Makefile")) as fh:
		m = re.search(r"^VERSION\s*:?=\s*(\S+)\s*$", fh.read(), re.M)
	check(m, "no VERSION in the Makefile")
	return m.group(1)


def pod_specs():
	"""(where, pod spec) of every pod the manifests create."""
	out = []
	for f, o in OBJS:
		if o["kind"] == "Pod":
			out.append(("%s Pod/%s" % (f, o["metadata"]["name"]), o["spec"]))
		elif o["kind"] in ("DaemonSet", "Deployment", "Job"):
			out.append(("%s %s/%s" % (f, o["kind"], o["metadata"]["name"]), o["spec"]["template"]["spec"]))
	check(out, "no pods in the manifests")
	return out


def containers(spec):
	return list(spec.get("initContainers", [])) + list(spec.get("containers", []))


def agent_commands(spec):
	"""argv lists of every tcpxo-agent invocation in a pod spec: container args and exec probes."""
	out = []
	for c in containers(spec):
		cmd = c.get("command")
		if cmd is None or cmd[0] in BINARIES:
			out.append(list(cmd[1:] if cmd else []) + list(c.get("args", [])))
		for p in ("livenessProbe", "readinessProbe", "startupProbe"):
			ex = c.get(p, {}).get("exec")
			if ex:
				check(ex["command"][0] in BINARIES, "%s: %s does not run tcpxo-agent" % (c["name"], p))
				out.append(ex["command"][1:])
	return out


def opt_value(argv, name):
	"""Value of --name in argv (either --name=V or --name V), or None."""
	for i, a in enumerate(argv):
		if a == name and i + 1 < len(argv):
			return argv[i + 1]
		if a.startswith(name + "="):
			return a[len(name) + 1:]
	return None


@case("kustomization-lists-every-file")
def _():
	for dirpath, dirs, files in os.walk(MDIR):
		yamls = sorted(f for f in files if f.endswith((".yaml", ".yml")) and f != "kustomization.yaml")
		rel = os.path.relpath(dirpath, MDIR)
		if "kustomization.yaml" not in files:
			# Standalone manifests (the debug pod) must not be in any kustomization's resources.
			continue
		k = DOCS[os.path.normpath(os.path.join(rel, "kustomization.yaml"))][0]
		listed = list(k.get("resources", []))
		for r in listed:
			check(os.path.exists(os.path.join(dirpath, r)), "%s lists missing %s" % (rel, r))
		local = sorted(r for r in listed if "/" not in r)
		if k.get("kind") == "Component":
			check(not yamls, "%s: component with loose files %s" % (rel, yamls))
		else:
			check(local == yamls, "%s: resources %s but files %s" % (rel, local, yamls))
		for comp in k.get("components", []):
			check(os.path.isfile(os.path.join(dirpath, comp, "kustomization.yaml")), "%s: no component %s" % (rel, comp))
		# The commented "components:" hint must name a component that exists.
		with open(os.path.join(dirpath, "kustomization.yaml")) as fh:
			for m in re.finditer(r"^#\s+-\s+(\S+)\s*$", fh.read(), re.M):
				check(os.path.isfile(os.path.join(dirpath, m.group(1), "kustomization.yaml")),
				      "%s: commented component %s does not exist" % (rel, m.group(1)))
	top = DOCS["kustomization.yaml"][0]
	check("debug" not in " ".join(top.get("resources", [])), "the debug pod must not be installed")


@case("kustomize-builds")
def _():
	kubectl = shutil.which("kubectl")
	if not kubectl:
		return "skip kubectl (with its built-in kustomize) is not installed"
	with tempfile.TemporaryDirectory() as tmp:
		shutil.copytree(MDIR, os.path.join(tmp, "daemonset"))
		os.mkdir(os.path.join(tmp, "o"))
		with open(os.path.join(tmp, "o", "kustomization.yaml"), "w") as fh:
			fh.write("resources: [../daemonset]\ncomponents: [../daemonset/components/a3-high]\n")
		outs = {}
		for d in ("daemonset", "daemonset/uninstall", "o"):
			r = subprocess.run([kubectl, "kustomize", os.path.join(tmp, d)], capture_output=True, text=True, timeout=60)
			check(r.returncode == 0, "kubectl kustomize %s: %s" % (d, r.stderr.strip()[:300]))
			outs[d] = list(yaml.safe_load_all(r.stdout))
	kinds = sorted(o["kind"] for o in outs["daemonset"])
	check(kinds == sorted(o["kind"] for f, o in OBJS if "/" not in f), "rendered kinds %s" % kinds)
	ds = [o for o in outs["o"] if o["kind"] == "DaemonSet"][0]
	vals = ds["spec"]["template"]["spec"]["affinity"]["nodeAffinity"][
		"requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"][0]["matchExpressions"][0]["values"]
	check(vals == ["a3-megagpu-8g", "a3-highgpu-8g", "a3-edgegpu-8g"], "a3-high component gives %s" % vals)
	# components/rdma: the GPUDirect-RDMA machine types, and /home/kubernetes/bin read-only for gIB (agent only).
	with tempfile.TemporaryDirectory() as tmp:
		shutil.copytree(MDIR, os.path.join(tmp, "daemonset"))
		for name, base in (("o", "../daemonset"), ("u", "../daemonset/uninstall")):
			os.mkdir(os.path.join(tmp, name))
			with open(os.path.join(tmp, name, "kustomization.yaml"), "w") as fh:
				fh.write("resources: [%s]\ncomponents: [../daemonset/components/rdma]\n" % base)
		for name, ds_name in (("o", "tcpxo-agent"), ("u", "tcpxo-agent-cleanup")):
			r = subprocess.run([kubectl, "kustomize", os.path.join(tmp, name)], capture_output=True, text=True, timeout=60)
			check(r.returncode == 0, "kubectl kustomize with components/rdma: %s" % r.stderr.strip()[:300])
			if r.returncode:
				continue
			ds = [o for o in yaml.safe_load_all(r.stdout) if o["kind"] == "DaemonSet"][0]
			spec = ds["spec"]["template"]["spec"]
			vals = spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
				"nodeSelectorTerms"][0]["matchExpressions"][0]["values"]
			check(ds["metadata"]["name"] == ds_name and vals == ["a3-megagpu-8g", "a3-ultragpu-8g", "a4-highgpu-8g"],
			      "rdma component gives %s %s" % (ds["metadata"]["name"], vals))
			mounts = {m["mountPath"]: m for m in spec["containers"][0].get("volumeMounts", [])}
			bin_mount = mounts.get("/host/home/kubernetes/bin")
			if ds_name == "tcpxo-agent":
				check(bin_mount is not None and bin_mount.get("readOnly") is True,
				      "rdma component mounts /home/kubernetes/bin read-only: %r" % bin_mount)
			else:
				check(bin_mount is None, "the cleanup gets no host mount from components/rdma")


@case("namespace-consistent")
def _():
	ns = one("Namespace")["metadata"]["name"]
	check(one("Namespace")["metadata"]["labels"].get("pod-security.kubernetes.io/enforce") == "privileged",
	      "hostPath and hostNetwork need Pod Security level privileged on the namespace")
	for f, o in OBJS:
		if o["kind"] in ("ServiceAccount", "DaemonSet", "Pod"):
			check(o["metadata"].get("namespace") == ns, "%s %s not in namespace %s" % (f, o["kind"], ns))
	sa = one("ServiceAccount")["metadata"]["name"]
	subj = one("ClusterRoleBinding")["subjects"]
	check(subj == [{"kind": "ServiceAccount", "name": sa, "namespace": ns}], "binding subjects %s" % subj)
	user = "system:serviceaccount:%s:%s" % (ns, sa)
	for pol in objs("ValidatingAdmissionPolicy"):
		mcs = " ".join(m["expression"] for m in pol["spec"]["matchConditions"])
		check("'%s'" % user in mcs, "policy %s matchConditions do not name %s" % (pol["metadata"]["name"], user))
	for where, spec in pod_specs():
		if spec.get("automountServiceAccountToken", True):
			check(spec.get("serviceAccountName") == sa, "%s runs with a token but not as %s" % (where, sa))


@case("rbac-least-privilege")
def _():
	# networks: list and watch, never one by name; nodes list and watch: the daemon's watch of its
	# own Node (fieldSelector metadata.name), which RBAC cannot narrow (docs/deploy.md "Privileges");
	# nodes/status: patch (the FabricReady condition); events: create only (never read, changed, deleted);
	# resourceslices: list only (a DRANET node's slices, listed every interval, never watched).
	want = {("", "nodes", "get"), ("", "nodes", "patch"), ("", "nodes", "list"), ("", "nodes", "watch"),
	        ("", "nodes/status", "patch"), ("", "pods", "list"), ("", "pods", "watch"),
	        ("networking.gke.io", "networks", "list"), ("networking.gke.io", "networks", "watch"),
	        ("resource.k8s.io", "resourceslices", "list"),
	        ("events.k8s.io", "events", "create")}
	check(not objs("Role") and not objs("RoleBinding"), "unexpected namespaced Role/RoleBinding")
	role = one("ClusterRole")
	check("aggregationRule" not in role, "aggregated ClusterRole")
	got = set()
	for r in role["rules"]:
		check(set(r) <= {"apiGroups", "resources", "verbs"}, "rule with %s" % sorted(set(r)))
		for g in r["apiGroups"]:
			for res in r["resources"]:
				for v in r["verbs"]:
					check("*" not in (g, res, v), "wildcard in %s" % r)
					got.add((g, res, v))
	check(got == want, "extra %s, missing %s" % (sorted(got - want), sorted(want - got)))
	ref = one("ClusterRoleBinding")["roleRef"]
	check(ref == {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role["metadata"]["name"]},
	      "roleRef %s" % ref)
	check(not objs("Secret"), "the manifests hold a Secret")


@case("image-tag-is-version")
def _():
	v = makefile_version()
	for where, spec in pod_specs():
		for c in containers(spec):
			check(c["image"] == "%s:%s" % (IMAGE_REPO, v), "%s: image %s, Makefile VERSION %s" % (where, c["image"], v))
	for f, o in OBJS:
		lv = o["metadata"].get("labels", {}).get("app.kubernetes.io/version")
		check(lv in (None, v), "%s: version label %s" % (f, lv))
		tl = o.get("spec", {}).get("template", {}).get("metadata", {}).get("labels", {}).get("app.kubernetes.io/version")
		check(tl in (None, v), "%s: template version label %s" % (f, tl))
	doc = os.path.join(TOP, "docs", "deploy.md")
	if os.path.exists(doc):
		with open(doc) as fh:
			for tag in re.findall(re.escape(IMAGE_REPO) + r":(\S+?)[`\s]", fh.read()):
				check(tag == v, "docs/deploy.md names tag %s, Makefile VERSION %s" % (tag, v))


@case("security-context")
def _():
	want = {"privileged": False, "allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True,
	        "runAsNonRoot": True, "runAsUser": 65532, "runAsGroup": 65532,
	        "capabilities": {"drop": ["ALL"]}, "seccompProfile": {"type": "RuntimeDefault"}}
	for where, spec in pod_specs():
		psc = spec.get("securityContext", {})
		check(psc.get("runAsNonRoot") is True and psc.get("runAsUser") == 65532 and psc.get("runAsGroup") == 65532
		      and psc.get("seccompProfile") == {"type": "RuntimeDefault"}, "%s: pod securityContext %s" % (where, psc))
		check(not spec.get("hostPID") and not spec.get("hostIPC"), "%s: hostPID/hostIPC" % where)
		for c in containers(spec):
			check(c.get("securityContext") == want, "%s/%s: securityContext %s" % (where, c["name"], c.get("securityContext")))


@case("hostpath-read-only")
def _():
	for where, spec in pod_specs():
		vols = {v["name"]: v for v in spec.get("volumes", [])}
		for name, v in vols.items():
			check(set(v) - {"name"} <= {"hostPath", "emptyDir"}, "%s: volume %s of kind %s" % (where, name, sorted(v)))
		for c in containers(spec):
			for m in c.get("volumeMounts", []):
				v = vols[m["name"]]
				if "hostPath" not in v:
					continue
				check(m.get("readOnly") is True, "%s/%s: hostPath %s mounted writable" % (where, c["name"], v["hostPath"]["path"]))
				check(m.get("mountPropagation", "None") == "None", "%s: mount propagation on %s" % (where, m["name"]))
				check(m["mountPath"] == "/host" + v["hostPath"]["path"], "%s: %s mounted at %s, --root=/host expects /host%s"
				      % (where, v["hostPath"]["path"], m["mountPath"], v["hostPath"]["path"]))
				check(v["hostPath"].get("type") == "Directory", "%s: hostPath %s type %s would let the runtime create it"
				      % (where, v["hostPath"]["path"], v["hostPath"].get("type")))
		paths = {v["hostPath"]["path"] for v in vols.values() if "hostPath" in v}
		check(paths in (set(), HOST_MOUNTS), "%s: host paths %s" % (where, sorted(paths)))


@case("daemonset-matches-agent")
def _():
	ds = one("DaemonSet", "tcpxo-agent")
	spec = ds["spec"]["template"]["spec"]
	check(spec.get("hostNetwork") is True and spec.get("dnsPolicy") == "ClusterFirstWithHostNet",
	      "netlink needs hostNetwork with dnsPolicy ClusterFirstWithHostNet")
	check(spec.get("automountServiceAccountToken") is True, "the agent needs its token")
	c = [x for x in spec["containers"] if x["name"] == "tcpxo-agent"][0]
	args = c.get("args", [])
	check("command" not in c, "the image ENTRYPOINT is the agent; set args only")
	check("--root=/host" in args, "args %s lack --root=/host" % args)
	check("--log-format=json" in args, "args %s lack --log-format=json" % args)
	check(not {"--once", "--no-publish", "--cleanup"} & {a.split("=")[0] for a in args}, "daemon args %s" % args)
	env = {e["name"]: e for e in c.get("env", [])}
	check(env.get("NODE_NAME", {}).get("valueFrom") == {"fieldRef": {"fieldPath": "spec.nodeName"}},
	      "NODE_NAME must come from fieldRef spec.nodeName")
	hf = opt_value(args, "--health-file")
	check(hf, "no --health-file in args")
	probe = c["livenessProbe"]["exec"]["command"]
	check(probe[1] == "health", "liveness probe %s is not `tcpxo-agent health`" % probe)
	check(opt_value(probe, "--health-file") == hf, "probe checks %s, daemon touches %s" % (opt_value(probe, "--health-file"), hf))
	age = int(opt_value(probe, "--max-age") or 60)
	check(age >= 30, "--max-age %d leaves no slack over the 10 s loop" % age)
	check(c["livenessProbe"].get("initialDelaySeconds", 0) >= 10 + 10, "liveness starts before the first loop can finish")
	vols = {v["name"]: v for v in spec["volumes"]}
	mounts = {m["mountPath"]: m for m in c["volumeMounts"]}
	hdir = os.path.dirname(hf)
	check(hdir in mounts and "emptyDir" in vols[mounts[hdir]["name"]] and not mounts[hdir].get("readOnly"),
	      "health file dir %s is not a writable emptyDir (the root filesystem is read-only)" % hdir)
	ro = [x for x in c["volumeMounts"] if x.get("readOnly")]
	check({"/host" + vols[m["name"]]["hostPath"]["path"] for m in ro} == {"/host" + p for p in HOST_MOUNTS}, "host mounts")
	aff = spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
	check(len(aff) == 1 and aff[0]["matchExpressions"] == [{"key": "node.kubernetes.io/instance-type", "operator": "In",
	      "values": ["a3-megagpu-8g"]}], "node affinity %s" % aff)
	tol = spec.get("tolerations", [])
	check({"operator": "Exists"} in tol, "no blanket toleration: tainted/cordoned A3 Mega nodes go unobserved")
	check(any(t.get("key") == "nvidia.com/gpu" for t in tol), "no nvidia.com/gpu toleration")
	check(ds["spec"]["updateStrategy"] == {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "10%"}},
	      "updateStrategy %s" % ds["spec"]["updateStrategy"])
	pc = spec.get("priorityClassName")
	check(pc and (pc.startswith("system-") or objs("PriorityClass", pc)), "priorityClassName %s not defined" % pc)
	r = c.get("resources", {})
	check(r.get("requests", {}).get("cpu") and r.get("requests", {}).get("memory") and r.get("limits", {}).get("memory"),
	      "resources %s" % r)
	check("cpu" not in r.get("limits", {}), "a CPU limit throttles the agent's short bursts; set a request only")


@case("metrics-port")
def _():
	# The agent serves /metrics on the node's address at the port the DaemonSet declares as "metrics",
	# and both examples scrape that port and name the node in the label `node` (what the alerts join on),
	# PodMonitoring adds `pod` too, and the ServiceMonitor leaves honorLabels off.
	spec = one("DaemonSet", "tcpxo-agent")["spec"]["template"]["spec"]
	c = [x for x in spec["containers"] if x["name"] == "tcpxo-agent"][0]
	addr = opt_value(c.get("args", []), "--metrics-address")
	check(addr and addr.startswith("$(NODE_IP):"), "--metrics-address %s is not on $(NODE_IP)" % addr)
	env = {e["name"]: e for e in c.get("env", [])}
	check(env.get("NODE_IP", {}).get("valueFrom") == {"fieldRef": {"fieldPath": "status.hostIP"}},
	      "NODE_IP must come from fieldRef status.hostIP")
	port = int(addr.rsplit(":", 1)[1])
	check(port not in (9100, 9400, 20257, 8080, 8081, 10250, 10255, 10256), "port %d is a peer's" % port)
	ports = {p["name"]: p for p in c.get("ports", [])}
	check(ports.get("metrics", {}).get("containerPort") == port, "no containerPort %d named metrics: %s" % (port, ports))
	ex = os.path.join(TOP, "docs", "examples")
	with open(os.path.join(ex, "podmonitoring.yaml")) as fh:
		pm = [d for d in yaml.safe_load_all(fh) if d]
	check(len(pm) == 1 and pm[0]["apiVersion"] == "monitoring.googleapis.com/v1" and pm[0]["kind"] == "PodMonitoring",
	      "podmonitoring.yaml holds %s" % [(d.get("apiVersion"), d.get("kind")) for d in pm])
	pspec = pm[0]["spec"]
	check(pspec["selector"]["matchLabels"] == one("DaemonSet", "tcpxo-agent")["spec"]["selector"]["matchLabels"],
	      "PodMonitoring selects %s" % pspec["selector"])
	check([e["port"] for e in pspec["endpoints"]] == ["metrics"], "PodMonitoring endpoints %s" % pspec["endpoints"])
	meta = pspec.get("targetLabels", {}).get("metadata", [])
	check("node" in meta and "pod" in meta, "PodMonitoring's targetLabels.metadata %s lacks node or pod" % meta)
	with open(os.path.join(ex, "servicemonitor.yaml")) as fh:
		sm = {d["kind"]: d for d in yaml.safe_load_all(fh) if d}
	check(set(sm) == {"Service", "ServiceMonitor"}, "servicemonitor.yaml holds %s" % sorted(sm))
	svc = sm["Service"]["spec"]
	check(svc["selector"] == one("DaemonSet", "tcpxo-agent")["spec"]["selector"]["matchLabels"], "Service selects %s" % svc["selector"])
	check([(p["name"], p["port"], p["targetPort"]) for p in svc["ports"]] == [("metrics", port, "metrics")],
	      "Service ports %s" % svc["ports"])
	check(sm["ServiceMonitor"]["spec"]["selector"]["matchLabels"].items() <= sm["Service"]["metadata"]["labels"].items(),
	      "the ServiceMonitor does not select the Service")
	eps = sm["ServiceMonitor"]["spec"]["endpoints"]
	check([e["port"] for e in eps] == ["metrics"], "ServiceMonitor endpoints %s" % eps)
	check({"sourceLabels": ["__meta_kubernetes_pod_node_name"], "targetLabel": "node", "action": "replace"}
	      in eps[0].get("relabelings", []), "ServiceMonitor does not relabel the pod's node into node")
	# honorLabels off: the GPU pod's own namespace/pod labels read exported_namespace/exported_pod, as the rules expect.
	check(not eps[0].get("honorLabels"), "ServiceMonitor endpoint honorLabels true (the rules read exported_namespace/exported_pod)")


@case("flags-exist")
def _():
	used, per_cmd = set(), {}
	for _, spec in pod_specs():
		for argv in agent_commands(spec):
			flags = {a.split("=")[0] for a in argv if a.startswith("--")}
			used |= flags
			cmd = argv[0] if argv and not argv[0].startswith("-") else \
				"once" if "--once" in flags else "cleanup" if "--cleanup" in flags else "daemon"
			per_cmd.setdefault(cmd, set()).update(flags - {"--once", "--cleanup"})
			if argv and not argv[0].startswith("-"):
				used.add(argv[0])
	doc = os.path.join(TOP, "docs", "deploy.md")
	if os.path.exists(doc):
		with open(doc) as fh:
			for line in fh:
				# The command, not the namespace of a kubectl line (`kubectl -n tcpxo-agent logs POD --previous`).
				for m in re.finditer(r"(?<!-n)(?<!--namespace)(?:^|[\s/])tcpxo-agent((?:\s+[-\w./=<>$]+)+)", line):
					used |= {w.split("=")[0] for w in m.group(1).split() if w.startswith("--")}
	check(used, "no flags found")
	with open(os.path.join(TOP, "agent", "cli.c")) as fh:
		src = fh.read()
	# The one table's rows: { "name", 'x' or 0, CLI_KIND_..., and the command words of cli_cmds[].
	known = {"--" + n for n in re.findall(r'\{ "([a-z-]+)", (?:\'\w\'|0), CLI_KIND_', src)}
	known |= set(re.findall(r'\{ CLI_CMD_\w+, "([a-z]+)",', src))
	check(used - {"health"} <= known, "not in agent/cli.c: %s" % sorted(used - known))
	if not (AGENT and os.access(AGENT, os.X_OK)):
		return "skip %s is not built: flags checked against agent/cli.c only (%s)" % (AGENT or "binary", " ".join(sorted(used)))
	# Each flag in the --help of the command the manifest runs it with: that help lists its options only.
	for cmd, flags in sorted(per_cmd.items()):
		r = subprocess.run([AGENT, "help", cmd], capture_output=True, text=True, timeout=10)
		check(r.returncode == 0, "help %s exit %d" % (cmd, r.returncode))
		missing = [f for f in sorted(flags) if not re.search(r"(^|\s)" + re.escape(f) + r"(\s|=|$)", r.stdout, re.M)]
		check(not missing, "not in tcpxo-agent help %s: %s" % (cmd, missing))


# ---- the admission policy (its decisions: tests/k8s/admission/) ----------------------------------

@case("policy-static")
def _():
	# Two policies: the node (annotations, labels, the FabricReady condition) and the Events.
	want = {"tcpxo-agent-own-node-annotations": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["UPDATE"],
	                                              "resources": ["nodes", "nodes/status"]}],
	        "tcpxo-agent-own-events": [{"apiGroups": ["events.k8s.io"], "apiVersions": ["v1"], "operations": ["CREATE"],
	                                    "resources": ["events"]}]}
	pols = objs("ValidatingAdmissionPolicy")
	check(sorted(p["metadata"]["name"] for p in pols) == sorted(want), "policies %s" % [p["metadata"]["name"] for p in pols])
	for pol in pols:
		name = pol["metadata"]["name"]
		check(pol["apiVersion"] == "admissionregistration.k8s.io/v1", "policy apiVersion %s" % pol["apiVersion"])
		spec = pol["spec"]
		check(spec.get("failurePolicy") == "Fail", "%s: failurePolicy must be Fail" % name)
		rr = spec["matchConstraints"]["resourceRules"]
		check(rr == want[name], "%s: resourceRules %s" % (name, rr))
		text = " ".join([v["expression"] for v in spec["validations"]] + [v["expression"] for v in spec.get("variables", [])])
		check("'%s' in request.userInfo.extra" % NODE_NAME_CLAIM in text, "%s: no `'%s' in request.userInfo.extra`" % (name, NODE_NAME_CLAIM))
		b = one("ValidatingAdmissionPolicyBinding", name)
		check(b["apiVersion"] == "admissionregistration.k8s.io/v1", "binding apiVersion")
		check(b["spec"]["policyName"] == name, "binding names %s" % b["spec"]["policyName"])
		check(b["spec"]["validationActions"] == ["Deny"], "binding actions %s" % b["spec"]["validationActions"])
	node = " ".join(v["expression"] for v in one("ValidatingAdmissionPolicy", "tcpxo-agent-own-node-annotations")["spec"]["validations"])
	check("startsWith('%s')" % PREFIX in node, "the prefix %s is not in the CEL" % PREFIX)
	check("c.type != 'FabricReady'" in node, "the condition type FabricReady is not in the CEL")


sys.exit(1 if failed else 0)
