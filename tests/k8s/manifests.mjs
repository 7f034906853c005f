// manifests.mjs - every object of rendered manifests (`kubectl kustomize` output) against the Kubernetes OpenAPI models (openapi.mjs), unknown fields rejected; and proof that the check can fail.
//
// Usage: node tests/k8s/manifests.mjs [--planted] NAME=FILE...
//   NAME=FILE   a rendered YAML stream; prints "ok|not ok openapi/NAME/KIND/NAME" per object.
//   --planted   instead: plant known mistakes in the streams' objects (an unknown field, wrong types, a
//               missing required field, an invalid name, a kind the API does not serve) and print
//               "ok planted/CASE" only where the validator names the mistake.
// Exits 1 on any failure.
import fs from "node:fs";
import yaml from "js-yaml";
import { validate } from "./openapi.mjs";

let failed = 0;
const print = (s) => process.stdout.write(s.replace(/\n/g, " ") + "\n");
const argv = process.argv.slice(2);
const planted = argv[0] === "--planted";
const streams = (planted ? argv.slice(1) : argv).map((a) => {
	const i = a.indexOf("=");
	if (i <= 0) throw new Error(`usage: NAME=FILE, got ${a}`);
	return { name: a.slice(0, i), file: a.slice(i + 1) };
});
if (!streams.length) throw new Error("usage: manifests.mjs [--planted] NAME=FILE...");

function load(s) {
	// js-yaml refuses duplicate keys, as the API server's strict decoding does.
	return yaml.loadAll(fs.readFileSync(s.file, "utf8"), null, { filename: s.file }).filter((o) => o !== null);
}

if (!planted) {
	for (const s of streams) {
		let objs;
		try {
			objs = load(s);
			if (!objs.length) throw new Error("no objects rendered");
		} catch (e) {
			failed++;
			print(`not ok openapi/${s.name}: ${e.message}`);
			continue;
		}
		for (const o of objs) {
			const id = `openapi/${s.name}/${(o && o.kind) || "?"}/${(o && o.metadata && o.metadata.name) || "?"}`;
			const errs = validate(o);
			if (errs.length) {
				failed++;
				print(`not ok ${id}: ${errs.join("; ").slice(0, 600)}`);
			} else {
				print(`ok ${id}`);
			}
		}
	}
	process.exit(failed ? 1 : 0);
}

// ---- planted mistakes: each must be rejected, with the field named ----
const all = streams.flatMap(load);
const find = (kind) => {
	const o = all.find((x) => x.kind === kind);
	if (!o) throw new Error(`no ${kind} in the rendered manifests`);
	return JSON.parse(JSON.stringify(o));
};
const podSpec = (o) => (o.kind === "Pod" ? o.spec : o.spec.template.spec);
const CASES = [
	["unknown-field-typo", "DaemonSet", (o) => { podSpec(o).containers[0].volumeMounts[1].readonly = true; },
		"spec.template.spec.containers[0].volumeMounts[1].readonly: unknown field"],
	["unknown-field-other-kind", "DaemonSet", (o) => { o.spec.strategy = { type: "RollingUpdate" }; },
		"spec.strategy: unknown field"],
	["unknown-field-top", "ClusterRole", (o) => { o.spec = {}; }, "spec: unknown field"],
	["unknown-field-policy", "ValidatingAdmissionPolicy", (o) => { o.spec.validations[0].msg = "x"; },
		"spec.validations[0].msg: unknown field"],
	["wrong-type-bool", "DaemonSet", (o) => { podSpec(o).hostNetwork = "true"; },
		"spec.template.spec.hostNetwork: string, want boolean"],
	["wrong-type-int", "PriorityClass", (o) => { o.value = String(o.value); }, "value: string, want int32"],
	["wrong-type-list", "ClusterRole", (o) => { o.rules[0].verbs = o.rules[0].verbs.join(","); },
		"rules[0].verbs: string, want list"],
	["wrong-type-map", "DaemonSet", (o) => { o.metadata.labels = ["app"]; }, "metadata.labels: array, want map"],
	["wrong-type-int-or-string", "DaemonSet", (o) => { o.spec.updateStrategy.rollingUpdate.maxUnavailable = true; },
		"spec.updateStrategy.rollingUpdate.maxUnavailable: boolean, want integer or string"],
	["missing-required", "ClusterRole", (o) => { delete o.rules[0].verbs; }, "rules[0].verbs: required"],
	["missing-required-container-name", "DaemonSet", (o) => { delete podSpec(o).containers[0].name; },
		"spec.template.spec.containers[0].name: required"],
	["invalid-node-name", "Pod", (o) => { podSpec(o).nodeName = "NODE-NAME"; }, "spec.nodeName: \"NODE-NAME\" is not a valid node name"],
	["invalid-label-value", "DaemonSet", (o) => { o.metadata.labels["app.kubernetes.io/version"] = "0.1.0 beta"; },
		"is not a valid label value"],
	["kind-not-served", "DaemonSet", (o) => { o.apiVersion = "extensions/v1beta1"; }, "no DaemonSet in extensions/v1beta1"],
];
for (const [name, kind, mutate, want] of CASES) {
	try {
		const o = find(kind);
		const before = validate(o);
		if (before.length) throw new Error(`the unplanted ${kind} is already invalid: ${before.join("; ")}`);
		mutate(o);
		const errs = validate(o);
		if (!errs.some((e) => e.includes(want))) throw new Error(`want an error with "${want}", got ${errs.length ? errs.join("; ") : "none"}`);
		print(`ok planted/${name}: ${errs.find((e) => e.includes(want))}`);
	} catch (e) {
		failed++;
		print(`not ok planted/${name}: ${e.message}`);
	}
}
process.exit(failed ? 1 : 0);
