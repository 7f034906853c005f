// patch.mjs - the two patch types the agent sends, applied the way the API server applies them: JSON merge patch (RFC 7386) and the strategic merge patch of a Node.
//
// Strategic merge: maps merge, `null` deletes, lists are replaced unless the Node's Go types give
// them a patch strategy (the table below: merge by key, or a set of scalars). Of the directives, only
// {"$patch": "delete"} on an element of a list merged by key is modelled (the agent's --cleanup removes
// its condition so); the others ($patch elsewhere, $retainKeys, $setElementOrder,
// $deleteFromPrimitiveList) throw.

const clone = (v) => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));
const isMap = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

/** RFC 7386: @patch applied to @target (neither is changed). */
export function mergePatch(target, patch) {
	if (!isMap(patch)) return clone(patch);
	const out = isMap(target) ? clone(target) : {};
	for (const [k, v] of Object.entries(patch)) {
		if (v === null) delete out[k];
		else out[k] = mergePatch(out[k], v);
	}
	return out;
}

// patchStrategy/patchMergeKey of the Node's lists (k8s.io/api/core/v1 and meta/v1 struct tags).
const NODE_LIST_STRATEGY = {
	"metadata.ownerReferences": { key: "uid" },
	"metadata.finalizers": { set: true },
	"spec.podCIDRs": { set: true },
	"status.conditions": { key: "type" },
	"status.addresses": { key: "type" },
	"status.images": null,          // atomic
	"status.volumesAttached": null,
	"status.volumesInUse": null,
	"spec.taints": null,
};

function strategic(target, patch, path) {
	if (!isMap(patch)) {
		if (Array.isArray(patch)) return mergeList(target, patch, path);
		return clone(patch);
	}
	const out = isMap(target) ? clone(target) : {};
	for (const [k, v] of Object.entries(patch)) {
		if (k.startsWith("$")) throw new Error(`strategic merge directive ${k} at ${path || "(top)"} is not modelled`);
		const p = path ? `${path}.${k}` : k;
		if (v === null) delete out[k];
		else out[k] = strategic(out[k], v, p);
	}
	return out;
}

function mergeList(target, patch, path) {
	const how = NODE_LIST_STRATEGY[path];
	if (!how || !Array.isArray(target)) return clone(patch);
	if (how.set) return [...target, ...patch.filter((x) => !target.includes(x))];
	const out = clone(target);
	for (const item of patch) {
		if (!isMap(item) || !(how.key in item)) throw new Error(`${path}: an item without merge key ${how.key}`);
		const i = out.findIndex((o) => isMap(o) && o[how.key] === item[how.key]);
		if ("$patch" in item) {
			if (item.$patch !== "delete") throw new Error(`${path}: $patch ${item.$patch} is not modelled`);
			if (i >= 0) out.splice(i, 1);
			continue;
		}
		if (i < 0) out.push(clone(item));
		else out[i] = strategic(out[i], item, `${path}[]`);
	}
	return out;
}

/** A strategic merge patch of a Node (or its status) applied to @target. */
export function strategicMergePatchNode(target, patch) {
	if (!isMap(patch)) throw new Error("a strategic merge patch is a JSON object");
	return strategic(target, patch, "");
}

/** Apply @body sent with @contentType to @target; throws for a type the API server would refuse. */
export function applyPatch(target, body, contentType) {
	const ct = (contentType || "").split(";")[0].trim().toLowerCase();
	if (ct === "application/merge-patch+json") return mergePatch(target, body);
	if (ct === "application/strategic-merge-patch+json") return strategicMergePatchNode(target, body);
	throw new Error(`patch content type ${contentType} is not modelled`);
}
