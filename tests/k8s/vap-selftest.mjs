// vap-selftest.mjs - vap.mjs against small policies that use what the project's policy does not use yet (variables, messageExpression, Warn, selectors, subresource rules, failurePolicy Ignore, CEL ints), so a policy that starts using them is decided right.
// Usage: node tests/k8s/vap-selftest.mjs; prints "ok|not ok vap/NAME" per case, exits 1 on any failure.
import { admit } from "./vap.mjs";

let failed = 0;
const node = (labels = {}, extra = {}) => ({
	apiVersion: "v1", kind: "Node", metadata: { name: "n1", labels, ...extra }, spec: { podCIDRs: ["10.0.0.0/24"] },
});
const request = (op = "UPDATE", sub = "", user = "u") => ({
	uid: "1", kind: { group: "", version: "v1", kind: "Node" }, resource: { group: "", version: "v1", resource: "nodes" },
	...(sub ? { subResource: sub } : {}), name: "n1", operation: op, userInfo: { username: user },
});
const policy = (spec) => ({
	apiVersion: "admissionregistration.k8s.io/v1", kind: "ValidatingAdmissionPolicy", metadata: { name: "p" },
	spec: { failurePolicy: "Fail", matchConstraints: { resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["UPDATE"], resources: ["nodes"] }] }, ...spec },
});
const binding = (spec = {}) => ({ metadata: { name: "b" }, spec: { policyName: "p", validationActions: ["Deny"], ...spec } });

const CASES = [
	["variables-chain", policy({
		variables: [{ name: "n", expression: "object.metadata.name" }, { name: "long", expression: "variables.n.size() > 5" }],
		validations: [{ expression: "variables.long", message: "short name" }],
	}), binding(), { request: request(), object: node(), oldObject: node() }, { matched: true, allowed: false, message: "short name" }],
	["variable-error-denies-where-used", policy({
		variables: [{ name: "x", expression: "object.metadata.nosuch" }],
		validations: [{ expression: "variables.x == 'a'", message: "m" }],
	}), binding(), { request: request(), object: node(), oldObject: node() }, { allowed: false, messageStarts: "expression 'variables.x == 'a'' resulted in error" }],
	["message-expression", policy({
		validations: [{ expression: "false", message: "static", messageExpression: "'node ' + object.metadata.name + ' refused'" }],
	}), binding(), { request: request(), object: node(), oldObject: node() }, { allowed: false, message: "node n1 refused" }],
	["warn-allows", policy({ validations: [{ expression: "false", message: "m" }] }), binding({ validationActions: ["Warn"] }),
		{ request: request(), object: node(), oldObject: node() }, { matched: true, allowed: true, warnings: 1 }],
	["cel-int", policy({ validations: [{ expression: "size(object.spec.podCIDRs) == 1 && 3 > 2 && object.metadata.generation == 7", message: "m" }] }),
		binding(), { request: request(), object: node({}, { generation: 7 }), oldObject: node() }, { allowed: true }],
	["object-selector-excludes", policy({
		matchConstraints: { objectSelector: { matchLabels: { pool: "gpu" } }, resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["UPDATE"], resources: ["nodes"] }] },
		validations: [{ expression: "false", message: "m" }],
	}), binding(), { request: request(), object: node({ pool: "cpu" }), oldObject: node({ pool: "cpu" }) }, { matched: false, allowed: true }],
	["object-selector-old-object-matches", policy({
		matchConstraints: { objectSelector: { matchExpressions: [{ key: "pool", operator: "In", values: ["gpu"] }] }, resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["UPDATE"], resources: ["nodes"] }] },
		validations: [{ expression: "false", message: "m" }],
	}), binding(), { request: request(), object: node({}), oldObject: node({ pool: "gpu" }) }, { matched: true, allowed: false, message: "m" }],
	["binding-match-resources-narrows", policy({ validations: [{ expression: "false", message: "m" }] }),
		binding({ matchResources: { resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["UPDATE"], resources: ["nodes"], resourceNames: ["other"] }] } }),
		{ request: request(), object: node(), oldObject: node() }, { matched: false, allowed: true }],
	["exclude-resource-rules", policy({
		matchConstraints: { resourceRules: [{ apiGroups: ["*"], apiVersions: ["*"], operations: ["*"], resources: ["*"] }], excludeResourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["UPDATE"], resources: ["nodes"] }] },
		validations: [{ expression: "false", message: "m" }],
	}), binding(), { request: request(), object: node(), oldObject: node() }, { matched: false, allowed: true }],
	["star-excludes-subresources", policy({
		matchConstraints: { resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["UPDATE"], resources: ["*"] }] },
		validations: [{ expression: "false", message: "m" }],
	}), binding(), { request: request("UPDATE", "status"), object: node(), oldObject: node() }, { matched: false, allowed: true }],
	["nodes-slash-star-matches-status", policy({
		matchConstraints: { resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["UPDATE"], resources: ["nodes/*"] }] },
		validations: [{ expression: "false", message: "m" }],
	}), binding(), { request: request("UPDATE", "status"), object: node(), oldObject: node() }, { matched: true, allowed: false, message: "m" }],
	["nodes-status-matches-status-only", policy({
		matchConstraints: { resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["UPDATE"], resources: ["nodes/status"] }] },
		validations: [{ expression: "false", message: "m" }],
	}), binding(), { request: request(), object: node(), oldObject: node() }, { matched: false, allowed: true }],
	["failure-policy-ignore-skips-errors", policy({ failurePolicy: "Ignore", validations: [{ expression: "object.nosuch == 1", message: "m" }] }),
		binding(), { request: request(), object: node(), oldObject: node() }, { matched: true, allowed: true, errors: 1 }],
	["match-condition-error-fails-closed", policy({ matchConditions: [{ name: "c", expression: "request.nosuch == 'x'" }], validations: [{ expression: "true" }] }),
		binding(), { request: request(), object: node(), oldObject: node() }, { allowed: false, messageStarts: "failed to evaluate matchConditions" }],
	["match-condition-false-wins-over-error", policy({ matchConditions: [{ name: "e", expression: "request.nosuch == 'x'" }, { name: "f", expression: "false" }], validations: [{ expression: "false", message: "m" }] }),
		binding(), { request: request(), object: node(), oldObject: node() }, { matched: false, allowed: true }],
	["delete-has-no-object", policy({
		matchConstraints: { resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["DELETE"], resources: ["nodes"] }] },
		validations: [{ expression: "object == null && oldObject.metadata.name == 'n1'", message: "m" }],
	}), binding(), { request: request("DELETE"), object: null, oldObject: node() }, { matched: true, allowed: true }],
	["params-refused", policy({ paramKind: { apiVersion: "v1", kind: "ConfigMap" }, validations: [{ expression: "true" }] }),
		binding(), { request: request(), object: node(), oldObject: node() }, { throws: "params" }],
];

for (const [name, p, b, attrs, want] of CASES) {
	const why = [];
	try {
		const got = admit(p, b, attrs);
		if (want.throws) why.push(`decided instead of refusing: ${JSON.stringify(got)}`);
		if (want.matched !== undefined && got.matched !== want.matched) why.push(`matched ${got.matched}`);
		if (want.allowed !== undefined && got.allowed !== want.allowed) why.push(`allowed ${got.allowed} (${got.message})`);
		if (want.message !== undefined && got.message !== want.message) why.push(`message ${got.message}`);
		if (want.messageStarts !== undefined && !(got.message || "").startsWith(want.messageStarts)) why.push(`message ${got.message}`);
		if (want.warnings !== undefined && got.warnings.length !== want.warnings) why.push(`${got.warnings.length} warnings`);
		if ((want.errors || 0) !== got.errors.length && !want.messageStarts) why.push(`errors ${got.errors.join("; ")}`);
	} catch (e) {
		if (!want.throws || !e.message.includes(want.throws)) why.push(`threw ${e.message}`);
	}
	if (why.length) {
		failed++;
		process.stdout.write(`not ok vap/${name}: ${why.join("; ")}\n`);
	} else {
		process.stdout.write(`ok vap/${name}\n`);
	}
}
process.exit(failed ? 1 : 0);
