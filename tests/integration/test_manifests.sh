#!/bin/sh
# test_manifests.sh - manifests/daemonset: the agent's contracts, every rendered manifest against the Kubernetes OpenAPI models, and the admission policy's decisions (real CEL) over the agent's real PATCH bodies.
#   contracts      tests/lib/check_manifests.py: RBAC, security context, mounts, flags, versions, namespace
#   render/*       `kubectl kustomize` of every kustomization under manifests/daemonset (a Component
#                  through an overlay of each kustomization it is meant for), and of docs/deploy.md's image
#                  mirror overlay over the install, the debug pod and the uninstall
#   openapi/*      each rendered object against the Kubernetes 1.32 OpenAPI models, unknown fields
#                  rejected (tests/k8s/manifests.mjs); planted/*: the same check names planted mistakes
#   capture/*      the real agent's writes against tests/lib/fakeapi.py (netns, root): first publish,
#                  a republish after the daemon pair went out of step, --cleanup (each: the node's merge
#                  patch, the status patch of its condition, the Event it posted)
#   vap/*          the policy evaluator on small policies (tests/k8s/vap-selftest.mjs)
#   admission/*    the rendered policies decided by @bufbuild/cel (cel-spec) over the AdmissionRequest
#                  cases in tests/k8s/admission/ (tests/k8s/admission.mjs)
# Env: TOPDIR, BUILD, TCPXO_AGENT. The npm packages come from `sh scripts/deps.sh test` (npm ci).
set -u
. "${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
TCPXO_AGENT=${TCPXO_AGENT:-$TOPDIR/$BUILD/tcpxo-agent}
MDIR=$TOPDIR/manifests/daemonset
K8S=$TOPDIR/tests/k8s
PY=/usr/bin/python3
failed=0

base=/tmp
[ -d /dev/shm ] && [ -w /dev/shm ] && base=/dev/shm
tmp=$(mktemp -d "$base/tcpxo-manifests.XXXXXX") || exit 2
api_ready=0
cleanup() {
	[ "$api_ready" = 1 ] && api_done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# ---- the agent's contracts ----
if $PY -c 'import yaml' 2>/dev/null; then
	$PY "$TOPDIR/tests/lib/check_manifests.py" "$TOPDIR" "$TCPXO_AGENT" || failed=1
else
	skip "contracts" "python3-yaml is not installed (sh scripts/deps.sh test)"
fi

# ---- the npm tools (CEL engine, OpenAPI models), installed by scripts/deps.sh from the lockfile ----
if ! command -v node >/dev/null 2>&1; then
	nok "k8s-tools" "node is not installed (sh scripts/deps.sh test installs nodejs and npm)"
	exit 1
fi
want=$(sha256sum "$K8S/package-lock.json" | cut -d' ' -f1)
if [ "$(cat "$K8S/node_modules/.tcpxo-lock-sha256" 2>/dev/null)" != "$want" ]; then
	nok "k8s-tools" "tests/k8s/node_modules is missing or older than package-lock.json (sh scripts/deps.sh test runs npm ci)"
	exit 1
fi

# ---- render every kustomization ----
streams=""
render() {  # NAME DIR
	if kubectl kustomize "$2" >"$tmp/render-$1.yaml" 2>"$tmp/err"; then
		ok "render/$1"
		streams="$streams $1=$tmp/render-$1.yaml"
	else
		echo "not ok render/$1: kubectl kustomize: $(head -c 300 "$tmp/err" | tr '\n' ' ')"
		failed=1
	fi
}
policy_file=$MDIR/admission-policy.yaml
if command -v kubectl >/dev/null 2>&1; then
	# Every folder with a kustomization.yaml: "." (the install) is named base.
	kdirs=$(cd "$MDIR" && find . -name kustomization.yaml | sed 's|^\./||; s|/kustomization.yaml$||; s|^kustomization.yaml$|.|' | sort)
	for d in $kdirs; do
		name=$d
		[ "$d" = . ] && name=base
		name=$(printf '%s' "$name" | tr / -)
		if grep -q '^kind: Component' "$MDIR/$d/kustomization.yaml"; then
			# A Component renders only inside an overlay: one over the install and one over the uninstall,
			# unless it says it is for the install only (components/releases: the cleanup reads no table).
			overs="base uninstall"
			grep -q '^# For the install only\|For the install only' "$MDIR/$d/kustomization.yaml" && overs=base
			for over in $overs; do
				o=$tmp/overlay-$name-$over
				mkdir -p "$o"
				target=$MDIR
				[ "$over" = uninstall ] && target=$MDIR/uninstall
				rel=$(realpath --relative-to="$o" "$target")
				relc=$(realpath --relative-to="$o" "$MDIR/$d")
				printf 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [%s]\ncomponents: [%s]\n' \
					"$rel" "$relc" >"$o/kustomization.yaml"
				render "$over+$name" "$o"
			done
		else
			render "$name" "$MDIR/$d"
		fi
	done
	# components/releases: the DaemonSet reads the ConfigMap's table, mounted whole (a subPath mount never
	# sees an update), under a name without a hash suffix (an edit updates the file, it does not roll the
	# DaemonSet); the table it ships loads in the agent.
	r=$tmp/render-base+components-releases.yaml
	if [ -f "$r" ] && why=$($PY - "$r" "$tmp/releases.json" 2>&1 <<'PYEOF'
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
cms = [d for d in docs if d["kind"] == "ConfigMap" and d["metadata"]["name"] == "tcpxo-agent-releases"]
ds = [d for d in docs if d["kind"] == "DaemonSet" and d["metadata"]["name"] == "tcpxo-agent"][0]
spec = ds["spec"]["template"]["spec"]
c = spec["containers"][0]
assert len(cms) == 1 and cms[0]["metadata"]["namespace"] == ds["metadata"]["namespace"], "the ConfigMap beside the DaemonSet"
args = [a for a in c["args"] if a.startswith("--releases=")]
assert args == ["--releases=/etc/tcpxo-agent/releases/releases.json"], c["args"]
vol = [v for v in spec["volumes"] if v.get("configMap", {}).get("name") == "tcpxo-agent-releases"]
assert len(vol) == 1, spec["volumes"]
m = [m for m in c["volumeMounts"] if m["name"] == vol[0]["name"]]
assert len(m) == 1 and m[0]["mountPath"] == "/etc/tcpxo-agent/releases" and m[0].get("readOnly") is True, m
assert "subPath" not in m[0] and "subPathExpr" not in m[0], "a subPath mount never sees the ConfigMap's updates"
assert list(cms[0]["data"]) == ["releases.json"], list(cms[0]["data"])
open(sys.argv[2], "w").write(cms[0]["data"]["releases.json"])
PYEOF
); then
		"$TCPXO_AGENT" --once --no-publish --root "$TOPDIR/fixtures/a3-mega" --releases "$tmp/releases.json" >/dev/null 2>"$tmp/err"
		rc=$?
		if [ $rc = 0 ] || [ $rc = 1 ]; then
			ok "releases-component: ConfigMap tcpxo-agent-releases mounted whole, read-only, --releases set; its table loads ($(grep -c '"installer"' "$tmp/releases.json") rows)"
		else
			nok "releases-component" "the shipped table does not load (exit $rc): $(head -c 300 "$tmp/err")"
		fi
	elif [ -f "$r" ]; then
		nok "releases-component" "$(printf '%s' "$why" | tail -n 3 | tr '\n' ' ')"
	fi
	# The image mirror of docs/deploy.md ("From a mirror"): its overlay, as the user writes it beside the
	# manifests folder, renders with kubectl's kustomize alone, and renames every image of the install, the
	# debug pod and the cleanup DaemonSet (the same images block over each).
	mirror=$tmp/mirror-root
	mkdir -p "$mirror"
	ln -s "$TOPDIR/manifests" "$mirror/manifests"
	version=$(sed -n 's/^VERSION *:= *//p' "$TOPDIR/Makefile")
	if why=$($PY - "$TOPDIR/docs/deploy.md" "$mirror" "$version" 2>&1 <<'PYEOF'
import os, re, sys
doc, root, version = sys.argv[1:4]
m = re.search(r"```yaml\n# mirror/kustomization.yaml\n(.*?)```", open(doc).read(), re.S)
assert m, 'docs/deploy.md shows no "# mirror/kustomization.yaml" block'
text = m.group(1).replace("REGISTRY", "registry.example.com/mirror")
assert "newTag: %s" % version in text, "the overlay's newTag is not the Makefile's VERSION %s" % version
for name, base in (("install", "daemonset"), ("debug", "daemonset/debug"), ("uninstall", "daemonset/uninstall")):
    os.makedirs(os.path.join(root, "mirror-" + name))
    open(os.path.join(root, "mirror-" + name, "kustomization.yaml"), "w").write(
        text.replace("../manifests/daemonset\n", "../manifests/%s\n" % base))
PYEOF
); then
		errs=""
		for o in install debug uninstall; do
			if ! kubectl kustomize "$mirror/mirror-$o" >"$tmp/mirror-$o.yaml" 2>"$tmp/err"; then
				errs="$errs $o: $(head -c 200 "$tmp/err" | tr '\n' ' ')"
			elif [ "$(grep -c "image: registry.example.com/mirror/tcpxo-agent:$version\$" "$tmp/mirror-$o.yaml")" -lt 1 ] ||
			     grep 'image:' "$tmp/mirror-$o.yaml" | grep -qv "registry.example.com/mirror/tcpxo-agent:$version"; then
				errs="$errs $o: images $(grep 'image:' "$tmp/mirror-$o.yaml" | sort -u | tr -s ' \n' ' ')"
			fi
		done
		if [ -z "$errs" ]; then
			ok "render/mirror: deploy.md's overlay renders with kubectl kustomize; install, debug and uninstall pull only registry.example.com/mirror/tcpxo-agent:$version"
		else
			nok "render/mirror" "$errs"
		fi
	else
		nok "render/mirror" "$(printf '%s' "$why" | tail -n 2 | tr '\n' ' ')"
	fi
	t0=$(date +%s%N)
	# shellcheck disable=SC2086
	node "$K8S/manifests.mjs" $streams || failed=1
	t1=$(date +%s%N)
	planted=""
	for s in $streams; do
		case $s in base=*|debug=*) planted="$planted $s" ;; esac
	done
	# shellcheck disable=SC2086
	node "$K8S/manifests.mjs" --planted $planted || failed=1
	echo "# openapi: $(( (t1 - t0) / 1000000 )) ms for every rendered object"
	[ -f "$tmp/render-base.yaml" ] && policy_file=$tmp/render-base.yaml
else
	skip "render" "kubectl (with its built-in kustomize) is not installed: nothing rendered or validated against the OpenAPI models"
fi

# ---- the agent's real writes, against the fake API in the a3-mega scenario's namespace ----
captures=""
capture() {  # NAME WANT_RC ARGS...: run the agent, keep the node it started from and its writes
	_n=$1 _want=$2
	shift 2
	cp "$API_STATE/node.json" "$tmp/before.json"
	api_run a3-mega "$@"
	if [ "$API_RC" != "$_want" ]; then
		echo "not ok capture/$_n: tcpxo-agent $* exited $API_RC, want $_want: $(head -c 300 "$API_TMP/err" | tr '\n' ' ')"
		failed=1
		return
	fi
	if _w=$($PY - "$tmp/before.json" "$API_STATE/requests.log" "$tmp/captures/$_n.json" <<'PYEOF'
import json, sys
before = json.load(open(sys.argv[1]))
writes = [{k: r[k] for k in ("method", "path", "contentType", "body")}
          for r in map(json.loads, open(sys.argv[2])) if r["method"] != "GET"]
with open(sys.argv[3], "w") as f:
    json.dump({"before": before, "writes": writes}, f, indent=1, sort_keys=True)
def what(w):
    try:
        body = json.loads(w["body"])
    except ValueError:
        return ""
    if w["method"] == "POST":
        return " (Event %s)" % body.get("reason")
    if w["path"].endswith("/status"):
        c = ((body.get("status") or {}).get("conditions") or [{}])[0]
        return " (condition %s %s)" % (c.get("type"), c.get("status") or c.get("$patch"))
    meta = body.get("metadata", {}) or {}
    keys = lambda m, null: ",".join(sorted(k.split("/")[-1] for k, v in (meta.get(m) or {}).items() if (v is None) == null))
    return " (sets %s; removes %s; labels: sets %s, removes %s)" % (
        keys("annotations", False) or "nothing", keys("annotations", True) or "nothing",
        keys("labels", False) or "nothing", keys("labels", True) or "nothing")
print("; ".join("%s %s%s" % (w["method"], w["path"], what(w)) for w in writes))
PYEOF
	) && [ -n "$_w" ]; then
		ok "capture/$_n: $_w"
	else
		echo "not ok capture/$_n: the agent wrote nothing (requests: $(grep -c . "$API_STATE/requests.log" 2>/dev/null))"
		failed=1
	fi
}
. "$TOPDIR/tests/lib/netns.sh"
if ! why=$(netns_can_run 2>&1); then
	skip "capture" "$why (the agent's writes need the fixture's links in a private network namespace)"
elif [ ! -x "$TCPXO_AGENT" ]; then
	nok "capture" "$TCPXO_AGENT is not built"
else
	. "$TOPDIR/tests/lib/devnodes.sh"
	. "$TOPDIR/tests/lib/scenario.sh"
	. "$TOPDIR/tests/lib/api_scenario.sh"
	unset KUBERNETES_SERVICE_HOST KUBERNETES_SERVICE_PORT NODE_NAME
	mkdir -p "$tmp/captures"
	if api_init && api_state node-fixture-a3mega pods-healthy networks; then
		api_ready=1
		capture first-publish 0 --once
		cp "$TOPDIR/fixtures/kube/pods-skew.json" "$API_STATE/pods.json"
		capture republish-not-ready 1 --once
		capture cleanup 0 --cleanup
		captures="--captures $tmp/captures"
	else
		nok "capture" "the fake API's state could not be made"
	fi
fi

# ---- the admission policy, decided like the API server over the case table ----
# First the evaluator itself, on features the policy may start to use (variables, selectors, Warn...).
node "$K8S/vap-selftest.mjs" || failed=1
# shellcheck disable=SC2086
node "$K8S/admission.mjs" --top "$TOPDIR" --manifests "$policy_file" --cases "$K8S/admission" $captures || failed=1
exit $failed
