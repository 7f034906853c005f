// openapi.mjs - strict validation of Kubernetes objects against the models generated from the Kubernetes OpenAPI spec (@kubernetes/client-node, spec v1.32.0): unknown fields rejected.
//
// The models are read as data, not run: each generated model file (dist/gen/models/<Type>.js) holds
// its fields with their OpenAPI types (attributeTypeMap), and its declaration (<Type>.d.ts) marks the
// required ones (no `?`). Which model serves an apiVersion/kind comes from the generated API clients:
// the model each `read<Kind>` call returns for GET /api(s)/<group>/<version>/.../<name>.
// Checked: unknown fields (as kubectl's strict field validation), types (string, integer/number,
// boolean, int-or-string, date-time, lists, maps, nested models), required fields, and the name
// rules of apimachinery's validation the schema cannot express (metadata.name/namespace,
// spec.nodeName, label keys and values). JSON null is accepted for any field, as the API server
// decodes it as absent. A Quantity is a string in the spec: `cpu: 1` (a YAML number) is rejected
// here though the API server would take it.
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const GEN = path.join(path.dirname(require.resolve("@kubernetes/client-node/package.json")), "dist", "gen");
const models = new Map();

/** The model named @type: { fields: Map(baseName -> {type, format}), required: Set }. Throws if absent. */
export function model(type) {
	let m = models.get(type);
	if (m) return m;
	const js = path.join(GEN, "models", `${type}.js`);
	if (!/^[A-Za-z0-9]+$/.test(type) || !fs.existsSync(js)) throw new Error(`no model ${type} in the Kubernetes OpenAPI models`);
	const src = fs.readFileSync(js, "utf8");
	const at = /\.attributeTypeMap = (\[[\s\S]*?\n\]);/.exec(src);
	if (!at) throw new Error(`model ${type}: no attributeTypeMap`);
	const fields = new Map(JSON.parse(at[1]).map((f) => [f.baseName, { type: f.type, format: f.format }]));
	const dts = fs.readFileSync(path.join(GEN, "models", `${type}.d.ts`), "utf8");
	const required = new Set();
	for (const r of dts.matchAll(/^\s+'([^']+)'(\?)?: /gm)) if (!r[2]) required.add(r[1]);
	for (const r of required) if (!fields.has(r)) throw new Error(`model ${type}: required ${r} is not a field`);
	m = { fields, required };
	models.set(type, m);
	return m;
}

let kinds = null;

/** apiVersion/kind -> model name, from the generated API clients' read calls. */
export function kindTable() {
	if (kinds) return kinds;
	kinds = new Map();
	const dir = path.join(GEN, "apis");
	for (const f of fs.readdirSync(dir).filter((x) => /V\d+(?:(?:alpha|beta)\d+)?Api\.js$/.test(x)).sort()) {
		const src = fs.readFileSync(path.join(dir, f), "utf8");
		const paths = new Map(), types = new Map();
		for (const m of src.matchAll(/async (read\w+?)\([^)]*\) \{[^]*?const localVarPath = '([^']+)'/g)) paths.set(m[1], m[2]);
		for (const m of src.matchAll(/async (read\w+?)WithHttpInfo\(response\) \{[^]*?deserialize\([^;]*?, "(\w+)", ""\)/g)) types.set(m[1], m[2]);
		for (const [fn, p] of paths) {
			const gv = /^\/(?:api\/(v1)|apis\/([^/]+)\/([^/]+))\/(?:namespaces\/\{namespace\}\/)?[a-z0-9]+\/\{name\}$/.exec(p);
			if (!gv || !types.has(fn)) continue;
			const apiVersion = gv[1] ? gv[1] : `${gv[2]}/${gv[3]}`;
			const kind = fn.replace(/^read(?:Namespaced)?/, "");
			kinds.set(`${apiVersion} ${kind}`, types.get(fn));
		}
	}
	if (!kinds.size) throw new Error(`no API read calls found under ${dir}`);
	return kinds;
}

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

const subdomain = (v) => typeof v === "string" && v.length <= 253 && DNS1123_SUBDOMAIN.test(v);
const label = (v) => typeof v === "string" && v.length <= 63 && DNS1123_LABEL.test(v);

function labelKeyOk(k) {
	const i = k.lastIndexOf("/");
	const [prefix, name] = i < 0 ? [null, k] : [k.slice(0, i), k.slice(i + 1)];
	return (prefix === null || subdomain(prefix)) && name.length <= 63 && QUALIFIED.test(name);
}

const labelValueOk = (v) => typeof v === "string" && v.length <= 63 && (v === "" || QUALIFIED.test(v));
const kindOf = (v) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);

function check(value, type, format, where, errs) {
	if (value === null) return;
	let m;
	if (type === "any" || type === "object") return;
	if (type === "string") {
		if (typeof value !== "string") errs.push(`${where}: ${kindOf(value)}, want string`);
	} else if (type === "boolean") {
		if (typeof value !== "boolean") errs.push(`${where}: ${kindOf(value)}, want boolean`);
	} else if (type === "number") {
		if (typeof value !== "number") errs.push(`${where}: ${kindOf(value)}, want ${format || "number"}`);
		else if (/^int(32|64)$/.test(format) && !Number.isInteger(value)) errs.push(`${where}: ${value} is not an integer`);
	} else if (type === "IntOrString") {
		if (!(typeof value === "string" || Number.isInteger(value))) errs.push(`${where}: ${kindOf(value)}, want integer or string`);
	} else if (type === "Date") {
		if (typeof value !== "string" || !RFC3339.test(value)) errs.push(`${where}: ${JSON.stringify(value)} is not an RFC 3339 date-time`);
	} else if ((m = /^Array<(.+)>$/.exec(type))) {
		if (!Array.isArray(value)) errs.push(`${where}: ${kindOf(value)}, want list`);
		else value.forEach((x, i) => check(x, m[1], "", `${where}[${i}]`, errs));
	} else if ((m = /^\{ \[key: string\]: (.+); \}$/.exec(type))) {
		if (kindOf(value) !== "object") errs.push(`${where}: ${kindOf(value)}, want map`);
		else for (const [k, x] of Object.entries(value)) check(x, m[1], "", `${where}[${JSON.stringify(k)}]`, errs);
	} else {
		const md = model(type);
		if (kindOf(value) !== "object") {
			errs.push(`${where}: ${kindOf(value)}, want object (${type})`);
			return;
		}
		for (const k of Object.keys(value)) {
			if (!md.fields.has(k)) errs.push(`${where ? where + "." : ""}${k}: unknown field (${type})`);
		}
		for (const r of md.required) {
			if (value[r] === undefined || value[r] === null) errs.push(`${where ? where + "." : ""}${r}: required (${type})`);
		}
		for (const [k, f] of md.fields) {
			if (value[k] !== undefined) check(value[k], f.type, f.format, where ? `${where}.${k}` : k, errs);
		}
	}
}

// Cluster-scoped kinds (no metadata.namespace) among those a manifest here may hold.
const NAMESPACE_NAME_IS_LABEL = new Set(["Namespace"]);

function names(obj, errs) {
	const md = obj.metadata || {};
	if (md.name !== undefined) {
		const ok = NAMESPACE_NAME_IS_LABEL.has(obj.kind) ? label(md.name) : subdomain(md.name);
		if (!ok) errs.push(`metadata.name: ${JSON.stringify(md.name)} is not a valid name (lowercase RFC 1123 ${NAMESPACE_NAME_IS_LABEL.has(obj.kind) ? "label" : "subdomain"})`);
	}
	if (md.namespace !== undefined && !label(md.namespace)) errs.push(`metadata.namespace: ${JSON.stringify(md.namespace)} is not a lowercase RFC 1123 label`);
	const labelMaps = [["metadata.labels", md.labels]];
	const tmpl = obj.spec && obj.spec.template;
	if (tmpl && tmpl.metadata) labelMaps.push(["spec.template.metadata.labels", tmpl.metadata.labels]);
	for (const [where, ls] of labelMaps) {
		for (const [k, v] of Object.entries(ls || {})) {
			if (!labelKeyOk(k)) errs.push(`${where}: key ${JSON.stringify(k)} is not a qualified name`);
			if (!labelValueOk(v)) errs.push(`${where}[${JSON.stringify(k)}]: ${JSON.stringify(v)} is not a valid label value`);
		}
	}
	const podSpec = obj.kind === "Pod" ? obj.spec : tmpl && tmpl.spec;
	if (podSpec && podSpec.nodeName !== undefined && !subdomain(podSpec.nodeName)) {
		errs.push(`${obj.kind === "Pod" ? "spec" : "spec.template.spec"}.nodeName: ${JSON.stringify(podSpec.nodeName)} is not a valid node name (lowercase RFC 1123 subdomain)`);
	}
}

/** Every problem of @obj against its apiVersion/kind's model, as "field: why" strings (empty: valid). */
export function validate(obj) {
	if (kindOf(obj) !== "object") return [`${kindOf(obj)}, want an object`];
	if (typeof obj.apiVersion !== "string" || typeof obj.kind !== "string") return ["apiVersion and kind are required strings"];
	const type = kindTable().get(`${obj.apiVersion} ${obj.kind}`);
	if (!type) return [`no ${obj.kind} in ${obj.apiVersion} in the Kubernetes 1.32 API`];
	const errs = [];
	check(obj, type, "", "", errs);
	if (!obj.metadata || (!obj.metadata.name && !obj.metadata.generateName)) errs.push("metadata.name: required");
	names(obj, errs);
	return errs;
}
