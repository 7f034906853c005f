// admission.mjs - the admission policy's decisions over a table of AdmissionRequest cases (tests/k8s/admission/), each with the expected allow/deny and message.
//
// Usage: node tests/k8s/admission.mjs --top TOPDIR --manifests RENDERED.yaml --cases DIR [--captures DIR]
//   RENDERED.yaml  `kubectl kustomize manifests/daemonset`: every ValidatingAdmissionPolicy in it with
//                  its bindings is applied to each request, as an API server with them installed would.
//   DIR            base.yaml (named users and nodes) and cases/*.yaml (lists of cases); see base.yaml.
//   --captures     the agent's real writes (tests/integration/test_manifests.sh makes them against the
//                  fake API): NAME.json = {"before": node, "writes": [{method, path, contentType, body}]}
//                  (PATCHes of the node and its status, POSTs of Events). Without it, the cases built on
//                  them are skipped.
// Prints "ok|not ok|skip admission/NAME: ..." per case and a closing count; exits 1 on any failure.
import fs from "node:fs";
import path from "node:path";
import yaml from "js-yaml";
import { mergePatch, applyPatch } from "./patch.mjs";
import { admit, compile, denialText } from "./vap.mjs";

function args(argv) {
	const out = {};
	for (let i = 0; i < argv.length; i += 2) {
		if (!argv[i].startsWith("--") || argv[i + 1] === undefined) throw new Error(`usage: bad argument ${argv[i]}`);
		out[argv[i].slice(2)] = argv[i + 1];
	}
	for (const k of ["top", "manifests", "cases"]) if (!out[k]) throw new Error(`usage: --${k} is required`);
	return out;
}

const opt = args(process.argv.slice(2));
let failed = 0;
const counts = { allowed: 0, denied: 0, notMatched: 0, skipped: 0 };
const print = (s) => process.stdout.write(s.replace(/\n/g, " ") + "\n");
const bad = (name, why) => { failed++; print(`not ok admission/${name}: ${why}`); };

const readYaml = (f) => yaml.load(fs.readFileSync(f, "utf8"), { filename: f, json: false });
const objs = yaml.loadAll(fs.readFileSync(opt.manifests, "utf8")).filter(Boolean);
const policies = objs.filter((o) => o.kind === "ValidatingAdmissionPolicy");
const bindings = objs.filter((o) => o.kind === "ValidatingAdmissionPolicyBinding");
const pairs = policies.flatMap((p) => bindings.filter((b) => b.spec && b.spec.policyName === p.metadata.name).map((b) => [p, b]));

// ---- the policy compiles with the real parser (a syntax error would fail every request) ----
{
	const exprs = policies.flatMap((p) => [
		...(p.spec.matchConditions || []).map((m) => m.expression),
		...(p.spec.variables || []).map((v) => v.expression),
		...(p.spec.validations || []).flatMap((v) => [v.expression, v.messageExpression].filter(Boolean)),
		...(p.spec.auditAnnotations || []).map((a) => a.valueExpression),
	]);
	try {
		if (!pairs.length) throw new Error("no ValidatingAdmissionPolicy with a binding in the rendered manifests");
		exprs.forEach(compile);
		print(`ok admission/policy-compiles: ${exprs.length} expressions, ${pairs.length} policy binding(s)`);
	} catch (e) {
		bad("policy-compiles", e.message);
	}
}

// ---- the node policy names every NodeStatus field but conditions (Kubernetes 1.32's model): none may change ----
{
	try {
		const { model } = await import("./openapi.mjs");
		const node = policies.find((p) => (p.spec.matchConstraints.resourceRules || []).some((r) => (r.resources || []).includes("nodes/status")));
		if (!node) throw new Error("no policy matches nodes/status");
		const text = node.spec.validations.map((v) => v.expression).join("\n");
		const fields = [...model("V1NodeStatus").fields.keys()].filter((f) => f !== "conditions");
		const missing = fields.filter((f) => !text.includes(`object.status.${f} == oldObject.status.${f}`));
		if (missing.length) throw new Error(`NodeStatus fields the policy lets change: ${missing.join(", ")}`);
		print(`ok admission/policy-status-fields: all ${fields.length} NodeStatus fields but conditions held equal`);
	} catch (e) {
		bad("policy-status-fields", e.message);
	}
}

// ---- named users, nodes and events: an entry is a value, {file: PATH} or {like: NAME, patch: MERGE-PATCH} ----
const base = readYaml(path.join(opt.cases, "base.yaml"));

function resolve(table, what, ref, seen = []) {
	if (ref === null) return null;
	if (typeof ref !== "string") {
		if (ref && ref.like !== undefined) return mergePatch(resolve(table, what, ref.like, seen), ref.patch || {});
		if (ref && ref.file !== undefined) return JSON.parse(fs.readFileSync(path.join(opt.top, ref.file), "utf8"));
		return ref;
	}
	if (seen.includes(ref)) throw new Error(`${what} ${ref} refers to itself`);
	if (!(ref in (base[table] || {}))) throw new Error(`no ${what} named ${ref} in base.yaml`);
	return resolve(table, what, base[table][ref], [...seen, ref]);
}

function loadCapture(name) {
	if (!opt.captures) return null;
	const f = path.join(opt.captures, `${name}.json`);
	if (!fs.existsSync(f)) throw new Error(`no capture ${name} in ${opt.captures}`);
	return JSON.parse(fs.readFileSync(f, "utf8"));
}

// The write of capture NAME to the node ("NAME"), to a subresource ("NAME/status") or the first Event it
// posted ("NAME/events"), and the node as the server held it just before (every earlier PATCH of that run
// applied in order).
function agentWrite(ref) {
	const [name, sub = ""] = ref.split("/");
	const cap = loadCapture(name);
	if (!cap) return null;
	let node = cap.before;
	for (const w of cap.writes) {
		const ev = /^\/apis\/events\.k8s\.io\/v1\/namespaces\/([^/]+)\/events$/.exec(w.path);
		if (ev && w.method === "POST") {
			if (sub === "events") return { event: JSON.parse(w.body), namespace: ev[1] };
			continue;
		}
		const m = /^\/api\/v1\/nodes\/([^/]+)(?:\/([^/]+))?$/.exec(w.path);
		if (!m) throw new Error(`capture ${name}: a write to ${w.path} is not modelled`);
		if (w.method !== "PATCH") throw new Error(`capture ${name}: ${w.method} ${w.path} is not modelled`);
		const body = JSON.parse(w.body);
		if ((m[2] || "") === sub) return { name: m[1], sub, oldObject: node, body, contentType: w.contentType };
		node = applyPatch(node, body, w.contentType);
	}
	throw new Error(`capture ${name} has no ${sub === "events" ? "Event" : "PATCH of nodes/NAME" + (sub ? "/" + sub : "")} (writes: ${cap.writes.map((w) => w.method + " " + w.path).join(", ") || "none"})`);
}

const OPTIONS_KIND = { CREATE: "CreateOptions", UPDATE: "UpdateOptions", DELETE: "DeleteOptions", CONNECT: null };

// The AdmissionRequest as the API server serializes it for CEL (omitempty fields absent).
function buildRequest(c) {
	let oldObject = c.oldObject === undefined ? undefined : resolve("nodes", "node", c.oldObject);
	let object, sub = c.subResource || "", name = c.name, operation = c.operation || "UPDATE";
	let resourceRef = c.resource || "nodes", namespace = c.namespace;
	if (c.agent !== undefined) {
		const w = agentWrite(c.agent);
		if (!w) return null;
		if (w.event) {
			// An Event the agent posted: a CREATE of events.k8s.io/v1 events in its namespace.
			object = w.event;
			operation = "CREATE";
			resourceRef = "events.k8s.io/v1/events";
			namespace = w.namespace;
		} else {
			oldObject = w.oldObject;
			object = applyPatch(oldObject, w.body, w.contentType);
			sub = w.sub;
			name = name || w.name;
		}
	} else if (c.patch !== undefined) {
		if (!oldObject) throw new Error("patch needs an oldObject");
		object = applyPatch(oldObject, c.patch, c.patchType === "strategic" ? "application/strategic-merge-patch+json" : "application/merge-patch+json");
	} else if (c.object !== undefined) {
		object = resourceRef.endsWith("/events") ? resolve("events", "event", c.object) : resolve("nodes", "node", c.object);
	} else {
		throw new Error("a case needs agent, patch or object");
	}
	if (!(operation in OPTIONS_KIND)) throw new Error(`operation ${operation}`);
	if (operation === "CREATE" && oldObject) throw new Error("CREATE has no oldObject");
	if (operation === "DELETE" && object) throw new Error("DELETE has no object (object: null)");
	const ref = object || oldObject;
	const [group, version] = ref.apiVersion.includes("/") ? ref.apiVersion.split("/") : ["", ref.apiVersion];
	const r = resourceRef.split("/");
	const resource = r.length === 3 ? { group: r[0], version: r[1], resource: r[2] }
		: r.length === 2 ? { group: "", version: r[0], resource: r[1] } : { group: "", version: "v1", resource: r[0] };
	const kind = { group, version, kind: ref.kind };
	const userInfo = resolve("users", "user", c.user === undefined ? "agent" : c.user);
	const request = {
		uid: `00000000-0000-4000-8000-${String(c.index).padStart(12, "0")}`,
		kind, resource, requestKind: kind, requestResource: resource,
		...(sub ? { subResource: sub, requestSubResource: sub } : {}),
		name: name || ref.metadata.name,
		...(namespace ? { namespace } : {}),
		operation, userInfo,
		...(OPTIONS_KIND[operation] ? { options: { apiVersion: "meta.k8s.io/v1", kind: OPTIONS_KIND[operation] } } : {}),
	};
	return { request, object: object || null, oldObject: oldObject || null };
}

function decide(attrs) {
	const res = { matched: false, allowed: true, message: null, text: null, errors: [] };
	for (const [p, b] of pairs) {
		const r = admit(p, b, attrs);
		res.matched = res.matched || r.matched;
		res.errors.push(...r.errors);
		if (!r.allowed && res.allowed) Object.assign(res, { allowed: false, message: r.message, text: denialText(p, b, r) });
	}
	return res;
}

const KEYS = new Set(["name", "why", "user", "agent", "oldObject", "patch", "patchType", "object", "operation",
	"resource", "subResource", "namespace", "expect", "matched", "message"]);
const files = fs.readdirSync(path.join(opt.cases, "cases")).filter((f) => f.endsWith(".yaml")).sort();
const seen = new Set();
let index = 0;
for (const f of files) {
	let list;
	try {
		list = readYaml(path.join(opt.cases, "cases", f));
	} catch (e) {
		bad(f, e.message);
		continue;
	}
	if (!Array.isArray(list)) { bad(f, "a cases file is a YAML list"); continue; }
	for (const c of list) {
		c.index = ++index;
		const name = c.name || `${f}#${c.index}`;
		try {
			for (const k of Object.keys(c)) if (k !== "index" && !KEYS.has(k)) throw new Error(`unknown key ${k}`);
			if (seen.has(name)) throw new Error("duplicate case name");
			seen.add(name);
			if (!["allow", "deny"].includes(c.expect)) throw new Error("expect must be allow or deny");
			if (c.expect === "deny" && typeof c.message !== "string") throw new Error("a deny case names the message");
			const attrs = buildRequest(c);
			if (!attrs) {
				counts.skipped++;
				print(`skip admission/${name}: built on the agent's capture ${c.agent}, and no captures were made (needs root and a network namespace)`);
				continue;
			}
			const got = decide(attrs);
			const want = c.matched === undefined ? null : c.matched;
			const why = [];
			if (want !== null && got.matched !== want) why.push(`matched ${got.matched}, want ${want}`);
			if (got.allowed !== (c.expect === "allow")) why.push(got.allowed ? "allowed, want denied" : `denied (${got.text}), want allowed`);
			else if (!got.allowed && got.message !== c.message) why.push(`denied with "${got.message}", want "${c.message}"`);
			if (got.errors.length) why.push(`evaluation errors: ${got.errors.join("; ")}`);
			if (why.length) { bad(name, why.join("; ")); continue; }
			if (!got.matched) counts.notMatched++;
			got.allowed ? counts.allowed++ : counts.denied++;
			print(`ok admission/${name}: ${got.allowed ? (got.matched ? "allowed" : "not matched, allowed") : "denied: " + got.message}`);
		} catch (e) {
			bad(name, e.message);
		}
	}
}
print(`# admission: ${index} cases: ${counts.allowed} allowed (${counts.notMatched} of them not matched by the policy), ${counts.denied} denied, ${counts.skipped} skipped, ${failed} failed`);
process.exit(failed ? 1 : 0);
