"""fakeapi_patch.py - the patch formats of the fake API server: JSON merge patch (RFC 7386),
Kubernetes strategic merge patch, JSON patch (RFC 6902). python3 stdlib only.

The strategic merge follows k8s.io/apimachinery/pkg/util/strategicpatch for what the tests touch:
maps merge key by key (null deletes), lists named in the schema merge by their merge key (or as
sets of primitives), every other list is replaced; the directives $patch (replace, merge,
delete), $retainKeys, $deleteFromPrimitiveList/<list> and $setElementOrder/<list>. The errors
and their HTTP codes are the real server's: an unknown $patch value or a list element without
its merge key is not an API status error there, so it answers 500 with the library's message.
"""

import copy
import json

# patchStrategy/patchMergeKey struct tags of the Node fields (k8s.io/api/core/v1/types.go), by path.
# A merge key merges a list of objects; "" merges a list of primitives as a set; absent = replace.
NODE_SCHEMA = {
    ("metadata", "ownerReferences"): "uid",
    ("metadata", "finalizers"): "",
    ("spec", "podCIDRs"): "",
    ("status", "conditions"): "type",
    ("status", "addresses"): "type",
}

DIRECTIVE = "$patch"
RETAIN_KEYS = "$retainKeys"
DELETE_PRIMITIVE = "$deleteFromPrimitiveList/"
SET_ORDER = "$setElementOrder/"


class PatchError(Exception):
    """A patch the server refuses: HTTP code, Status reason, message."""

    def __init__(self, code, reason, message):
        super().__init__(message)
        self.code, self.reason, self.message = code, reason, message


def merge_patch(target, patch):
    """RFC 7386."""
    if not isinstance(patch, dict):
        return patch
    if not isinstance(target, dict):
        target = {}
    out = dict(target)
    for k, v in patch.items():
        if v is None:
            out.pop(k, None)
        else:
            out[k] = merge_patch(out.get(k), v)
    return out


def go_map(v):
    """A Go-ish rendering of a decoded JSON value, as strategicpatch's messages print it."""
    if isinstance(v, dict):
        return "map[" + " ".join("%s:%s" % (k, go_map(v[k])) for k in sorted(v)) + "]"
    if isinstance(v, list):
        return "[" + " ".join(go_map(x) for x in v) + "]"
    if v is None:
        return "<nil>"
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _internal(message):
    # strategicpatch returns plain errors for these; the apiserver wraps them as 500 / reason "".
    return PatchError(500, "", message)


def strategic_merge(original, patch, schema, path=()):
    """Apply a strategic merge @patch (a dict) to @original (a dict); returns the new object."""
    if not isinstance(patch, dict):
        raise PatchError(400, "BadRequest", "json: cannot unmarshal %s into Go value of type "
                         "map[string]interface {}" % type(patch).__name__)
    return _merge_map(original if isinstance(original, dict) else {}, patch, schema, path)


def _merge_map(original, patch, schema, path):
    patch = dict(patch)
    d = patch.pop(DIRECTIVE, None)
    if d is not None:
        if d == "replace":
            return _strip_directives(patch)
        if d == "delete":
            return None
        if d != "merge":
            raise _internal("Unknown patch type: %s in map: %s" % (d, go_map(dict(patch, **{DIRECTIVE: d}))))
    retain = patch.pop(RETAIN_KEYS, None)
    if retain is not None and not isinstance(retain, list):
        raise PatchError(400, "BadRequest", "invalid patch format: the value of $retainKeys must be a list")
    out = copy.deepcopy(original)
    orders = {}
    for k in list(patch):
        if k.startswith(SET_ORDER):
            orders[k[len(SET_ORDER):]] = patch.pop(k)
    for k in list(patch):
        if not k.startswith(DELETE_PRIMITIVE):
            continue
        field, values = k[len(DELETE_PRIMITIVE):], patch.pop(k)
        if not isinstance(values, list):
            raise PatchError(400, "BadRequest", "invalid patch format: $deleteFromPrimitiveList "
                             "wants a list")
        if isinstance(out.get(field), list):
            out[field] = [x for x in out[field] if x not in values]
    for k, v in patch.items():
        sub = path + (k,)
        if v is None:
            out.pop(k, None)
        elif isinstance(v, dict):
            cur = out.get(k)
            merged = _merge_map(cur if isinstance(cur, dict) else {}, v, schema, sub)
            if merged is None:
                out.pop(k, None)
            else:
                out[k] = merged
        elif isinstance(v, list) and sub in schema:
            cur = out.get(k)
            out[k] = _merge_list(cur if isinstance(cur, list) else [], v, schema[sub], schema, sub)
        else:
            out[k] = _strip_directives(v) if isinstance(v, list) else v
    for field, order in orders.items():
        if isinstance(out.get(field), list) and isinstance(order, list):
            out[field] = _reorder(out[field], order, schema.get(path + (field,)))
    if retain is not None:
        keep = set(retain)
        out = {k: v for k, v in out.items() if k in keep}
    return out


def _strip_directives(v):
    if isinstance(v, dict):
        return {k: _strip_directives(x) for k, x in v.items() if not k.startswith("$")}
    if isinstance(v, list):
        return [_strip_directives(x) for x in v]
    return v


def _merge_list(original, patch, key, schema, path):
    if key == "":                           # a set of primitives
        out = list(original)
        for x in patch:
            if isinstance(x, dict):
                if x.get(DIRECTIVE) == "replace":
                    return [y for y in patch if not isinstance(y, dict)]
                raise PatchError(400, "BadRequest", "invalid patch format: a map in a list of primitives")
            if x not in out:
                out.append(x)
        return out
    for x in patch:
        if isinstance(x, dict) and x.get(DIRECTIVE) == "replace":
            return [_strip_directives(y) for y in patch if y is not x]
    out = copy.deepcopy(original)
    for x in patch:
        if not isinstance(x, dict):
            raise PatchError(400, "BadRequest", "invalid patch format: %s is not a map in a list "
                             "merged by %s" % (go_map(x), key))
        d = x.get(DIRECTIVE)
        if d is not None and d not in ("delete", "merge"):
            raise _internal("Unknown patch type: %s in map: %s" % (d, go_map(x)))
        if key not in x:
            raise _internal("map: %s does not contain declared merge key: %s" % (go_map(x), key))
        idx = next((i for i, y in enumerate(out) if isinstance(y, dict) and y.get(key) == x[key]), None)
        if d == "delete":
            out = [y for y in out if not (isinstance(y, dict) and y.get(key) == x[key])]
            continue
        body = {k: v for k, v in x.items() if k != DIRECTIVE}
        if idx is None:
            out.append(_strip_directives(body))
        else:
            out[idx] = _merge_map(out[idx], body, schema, path)
    return out


def _reorder(items, order, key):
    if not key:
        rank = {json.dumps(v, sort_keys=True): i for i, v in enumerate(order)}
        return sorted(items, key=lambda v: rank.get(json.dumps(v, sort_keys=True), len(rank)))
    rank = {json.dumps(o.get(key), sort_keys=True): i for i, o in enumerate(order) if isinstance(o, dict)}
    return sorted(items, key=lambda v: rank.get(json.dumps(v.get(key) if isinstance(v, dict) else None,
                                                           sort_keys=True), len(rank)))


def _pointer(doc, ptr):
    """Split an RFC 6901 pointer into (parent container, last token)."""
    if ptr == "":
        raise PatchError(422, "Invalid", "the root of the document cannot be the target")
    if not ptr.startswith("/"):
        raise PatchError(422, "Invalid", "invalid JSON pointer %r" % ptr)
    toks = [t.replace("~1", "/").replace("~0", "~") for t in ptr[1:].split("/")]
    cur = doc
    for t in toks[:-1]:
        if isinstance(cur, dict) and t in cur:
            cur = cur[t]
        elif isinstance(cur, list) and t.isdigit() and int(t) < len(cur):
            cur = cur[int(t)]
        else:
            raise PatchError(422, "Invalid", "doc is missing path: \"%s\"" % ptr)
    return cur, toks[-1]


def json_patch(doc, ops):
    """RFC 6902 (add, remove, replace, move, copy, test)."""
    if not isinstance(ops, list):
        raise PatchError(400, "BadRequest", "json: cannot unmarshal object into Go value of type "
                         "jsonpatch.Patch")
    doc = copy.deepcopy(doc)

    def get(ptr):
        parent, t = _pointer(doc, ptr)
        if isinstance(parent, dict) and t in parent:
            return parent[t]
        if isinstance(parent, list) and t.isdigit() and int(t) < len(parent):
            return parent[int(t)]
        raise PatchError(422, "Invalid", "doc is missing key: %s" % ptr)

    def put(ptr, value, replace):
        parent, t = _pointer(doc, ptr)
        if isinstance(parent, dict):
            if replace and t not in parent:
                raise PatchError(422, "Invalid", "doc is missing key: %s" % ptr)
            parent[t] = value
        elif isinstance(parent, list):
            if t == "-" and not replace:
                parent.append(value)
            elif t.isdigit() and int(t) <= len(parent) - (1 if replace else 0):
                if replace:
                    parent[int(t)] = value
                else:
                    parent.insert(int(t), value)
            else:
                raise PatchError(422, "Invalid", "index out of range: %s" % ptr)
        else:
            raise PatchError(422, "Invalid", "doc is missing path: %s" % ptr)

    def remove(ptr):
        parent, t = _pointer(doc, ptr)
        if isinstance(parent, dict) and t in parent:
            return parent.pop(t)
        if isinstance(parent, list) and t.isdigit() and int(t) < len(parent):
            return parent.pop(int(t))
        raise PatchError(422, "Invalid", "doc is missing key: %s" % ptr)

    for op in ops:
        if not isinstance(op, dict) or not isinstance(op.get("path"), str):
            raise PatchError(400, "BadRequest", "invalid JSON patch operation %r" % (op,))
        kind, ptr = op.get("op"), op["path"]
        if kind == "add":
            put(ptr, copy.deepcopy(op.get("value")), False)
        elif kind == "remove":
            remove(ptr)
        elif kind == "replace":
            put(ptr, copy.deepcopy(op.get("value")), True)
        elif kind in ("move", "copy"):
            v = remove(op.get("from", "")) if kind == "move" else copy.deepcopy(get(op.get("from", "")))
            put(ptr, v, False)
        elif kind == "test":
            if get(ptr) != op.get("value"):
                raise PatchError(422, "Invalid", "testing value %s failed" % ptr)
        else:
            raise PatchError(400, "BadRequest", "Unexpected kind: %s" % kind)
    return doc
