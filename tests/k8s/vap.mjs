// vap.mjs - a ValidatingAdmissionPolicy and its binding decided the way kube-apiserver decides one request, over @bufbuild/cel (cel-spec).
//
// Order (k8s.io/apiserver admission/plugin/policy): the policy's matchConstraints, then the binding's
// matchResources (each: namespaceSelector, objectSelector, resourceRules, excludeResourceRules); a
// request they exclude is not evaluated and this policy allows it. Then matchConditions (any false:
// not evaluated; an error and no false: failurePolicy), variables (lazily, in order), validations
// (false: message / messageExpression; an error: failurePolicy), then the binding's validationActions.
// Anything this harness does not model (paramKind, authorizer, namespaced requests with a
// namespaceSelector) throws: a case must never pass because a feature was ignored.
import { celEnv, isCelError, parse, plan } from "@bufbuild/cel";
import { strings } from "@bufbuild/cel/ext";

const env = celEnv({ funcs: strings });
const compiled = new Map();

/** Compile @expr once; a syntax error throws with the expression named. */
export function compile(expr) {
	let fn = compiled.get(expr);
	if (!fn) {
		let ast;
		try {
			ast = parse(expr);
		} catch (e) {
			throw new Error(`CEL syntax error in ${JSON.stringify(expr)}: ${e.message}`);
		}
		fn = plan(env, ast);
		compiled.set(expr, fn);
	}
	return fn;
}

/**
 * JSON (as the API server converts an object to unstructured) to CEL input: objects are maps,
 * integers are CEL int (int64), other numbers double. Throws on values JSON cannot hold.
 */
export function toCel(v) {
	if (v === null || typeof v === "string" || typeof v === "boolean") return v;
	if (typeof v === "number") return Number.isInteger(v) ? BigInt(v) : v;
	if (Array.isArray(v)) return v.map(toCel);
	if (typeof v === "object") return new Map(Object.entries(v).map(([k, x]) => [k, toCel(x)]));
	throw new Error(`not a JSON value: ${typeof v}`);
}

function evaluate(expr, bindings) {
	const r = compile(expr)(bindings);
	return isCelError(r) ? { error: r.message } : { value: r };
}

const SUPPORTED_RULE = new Set(["apiGroups", "apiVersions", "operations", "resources", "resourceNames", "scope"]);

// One RuleWithOperations against the request (k8s.io/apiserver/pkg/admission/plugin/webhook/predicates/rules).
function ruleMatches(rule, req) {
	for (const k of Object.keys(rule)) {
		if (!SUPPORTED_RULE.has(k)) throw new Error(`resource rule field ${k} is not modelled`);
	}
	const has = (list, v) => (list || []).includes("*") || (list || []).includes(v);
	if (!has(rule.operations, req.operation)) return false;
	if (!has(rule.apiGroups, req.resource.group)) return false;
	if (!has(rule.apiVersions, req.resource.version)) return false;
	const res = req.resource.resource, sub = req.subResource || "";
	// As the API server splits "res/sub": "*" is every resource without a subresource, "nodes/*"
	// nodes and all its subresources, "*/*" everything.
	const resOk = (rule.resources || []).some((r) => {
		const i = r.indexOf("/");
		const [rr, rs] = i < 0 ? [r, ""] : [r.slice(0, i), r.slice(i + 1)];
		return (rr === "*" || rr === res) && (rs === "*" || rs === sub);
	});
	if (!resOk) return false;
	const scope = rule.scope || "*";
	if (scope !== "*" && scope !== (req.namespace ? "Namespaced" : "Cluster")) return false;
	if (rule.resourceNames && rule.resourceNames.length && !rule.resourceNames.includes(req.name)) return false;
	return true;
}

// A metav1.LabelSelector over a labels map; an empty or absent selector matches everything.
function selectorMatches(sel, labels) {
	if (!sel) return true;
	labels = labels || {};
	for (const [k, v] of Object.entries(sel.matchLabels || {})) {
		if (labels[k] !== v) return false;
	}
	for (const e of sel.matchExpressions || []) {
		const present = Object.prototype.hasOwnProperty.call(labels, e.key);
		const vals = e.values || [];
		switch (e.operator) {
		case "In": if (!present || !vals.includes(labels[e.key])) return false; break;
		case "NotIn": if (present && vals.includes(labels[e.key])) return false; break;
		case "Exists": if (!present) return false; break;
		case "DoesNotExist": if (present) return false; break;
		default: throw new Error(`label selector operator ${e.operator} is not valid`);
		}
	}
	return true;
}

const isEmptySelector = (s) => !s || (!Object.keys(s.matchLabels || {}).length && !(s.matchExpressions || []).length);

/** Whether MatchResources @m selects the request (policy matchConstraints or binding matchResources). */
export function matchResources(m, req, object, oldObject) {
	for (const k of Object.keys(m)) {
		if (!["namespaceSelector", "objectSelector", "resourceRules", "excludeResourceRules", "matchPolicy"].includes(k)) {
			throw new Error(`matchResources field ${k} is not modelled`);
		}
	}
	// A cluster-scoped request (no namespace) is not filtered by namespaceSelector, except a Namespace itself.
	if (!isEmptySelector(m.namespaceSelector) && (req.namespace || req.resource.resource === "namespaces")) {
		throw new Error("a namespaceSelector on a namespaced request is not modelled");
	}
	// objectSelector: matches when the object or the old object matches.
	if (!isEmptySelector(m.objectSelector)) {
		const labelsOf = (o) => (o && o.metadata && o.metadata.labels) || {};
		const hit = (object && selectorMatches(m.objectSelector, labelsOf(object))) ||
			(oldObject && selectorMatches(m.objectSelector, labelsOf(oldObject)));
		if (!hit) return false;
	}
	if ((m.excludeResourceRules || []).some((r) => ruleMatches(r, req))) return false;
	return (m.resourceRules || []).some((r) => ruleMatches(r, req));
}

/**
 * Decide one request.
 * @policy, @binding: the objects as served (apiVersion admissionregistration.k8s.io/v1).
 * @attrs: { request: AdmissionRequest JSON (no object/oldObject inside), object, oldObject }.
 * Return { matched, allowed, message, reason, messages[], warnings[], errors[] }:
 *   matched false: matchConstraints, matchResources or a matchCondition excluded it (allowed).
 *   message: the first denial, in the API server's words minus the policy/binding prefix.
 */
export function admit(policy, binding, attrs) {
	const spec = policy.spec || {};
	const bspec = binding.spec || {};
	if (spec.paramKind || bspec.paramRef) throw new Error("params (paramKind/paramRef) are not modelled");
	if (bspec.policyName !== policy.metadata.name) throw new Error(`binding ${binding.metadata.name} names ${bspec.policyName}`);
	const { request, object = null, oldObject = null } = attrs;
	const out = { matched: false, allowed: true, message: null, reason: null, messages: [], warnings: [], errors: [] };

	if (!spec.matchConstraints || !matchResources(spec.matchConstraints, request, object, oldObject)) return out;
	if (bspec.matchResources && !matchResources(bspec.matchResources, request, object, oldObject)) return out;

	const fail = (spec.failurePolicy || "Fail") === "Fail";
	const vars = new Map();
	const bindings = {
		object: toCel(object), oldObject: toCel(oldObject), request: toCel(request),
		params: null, namespaceObject: null, variables: vars,
	};

	// matchConditions: any false skips the policy; an error (with none false) falls to failurePolicy.
	let condError = null;
	for (const mc of spec.matchConditions || []) {
		const r = evaluate(mc.expression, bindings);
		if (r.error !== undefined || typeof r.value !== "boolean") {
			condError = condError || `matchCondition ${mc.name}: ${r.error !== undefined ? r.error : "not a bool"}`;
			continue;
		}
		if (!r.value) return out;
	}
	out.matched = true;
	const decisions = [];
	if (condError) {
		out.errors.push(condError);
		if (!fail) return { ...out, matched: false };
		decisions.push({ message: `failed to evaluate matchConditions: ${condError}`, reason: "Invalid" });
	} else {
		// Variables: each sees the ones before it; one that errors is left out, so using it errors too.
		for (const v of spec.variables || []) {
			const r = evaluate(v.expression, bindings);
			if (r.error !== undefined) out.errors.push(`variable ${v.name}: ${r.error}`);
			else vars.set(v.name, r.value);
		}
		for (const v of spec.validations || []) {
			const r = evaluate(v.expression, bindings);
			if (r.error !== undefined || typeof r.value !== "boolean") {
				const why = r.error !== undefined ? r.error : "the expression is not a bool";
				out.errors.push(`${v.expression}: ${why}`);
				if (fail) decisions.push({ message: `expression '${v.expression}' resulted in error: ${why}`, reason: "Invalid" });
				continue;
			}
			if (r.value) continue;
			let msg = v.message;
			if (v.messageExpression) {
				const m = evaluate(v.messageExpression, bindings);
				if (m.error === undefined && typeof m.value === "string" && m.value.trim() && !m.value.includes("\n")) msg = m.value;
				else out.errors.push(`messageExpression ${v.messageExpression}: ${m.error || "not a one-line string"}`);
			}
			decisions.push({ message: msg || `failed expression: ${v.expression}`, reason: v.reason || "Invalid" });
		}
	}
	if (!decisions.length) return out;
	const actions = bspec.validationActions || [];
	if (!actions.length) throw new Error(`binding ${binding.metadata.name} has no validationActions`);
	out.messages = decisions.map((d) => d.message);
	if (actions.includes("Warn")) out.warnings = decisions.map((d) => `Validation failed for ValidatingAdmissionPolicy '${policy.metadata.name}' with binding '${binding.metadata.name}': ${d.message}`);
	if (actions.includes("Deny")) {
		out.allowed = false;
		out.message = decisions[0].message;
		out.reason = decisions[0].reason;
	}
	return out;
}

/** The API server's denial text for @res of @policy under @binding. */
export function denialText(policy, binding, res) {
	return `ValidatingAdmissionPolicy '${policy.metadata.name}' with binding '${binding.metadata.name}' denied request: ${res.message}`;
}
