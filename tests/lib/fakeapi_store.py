"""fakeapi_store.py - the fake API server's object store (python3 stdlib only).

Objects of every resource share one resourceVersion counter, as etcd's revision: each change
(a file a test rewrote, an API write, a scripted change) takes the next number, is kept in a
bounded history and reaches the open watches at once. The state directory's files are the
tests' way in: a collection's file is re-read when its signature changed (or when it was
written too recently to trust the timestamp) the next time that collection is read or watched,
and an open watch makes the poller look every poll_ms; the differences become ADDED / MODIFIED /
DELETED. Writes through the API are written back to the file the object came from.

Resource versions at start: objects that carry one keep it, the others take the largest seen
(so a fixture's node keeps its number and one PATCH makes it +1).
"""

import collections
import copy
import datetime
import json
import os
import threading
import time
import uuid

RACY_NS = 50_000_000        # a file written this close to its last read may have changed unseen


class Resource:
    def __init__(self, name, kind, group, version, namespaced, fields, files):
        self.name, self.kind, self.group, self.version = name, kind, group, version
        self.namespaced, self.fields, self.files = namespaced, fields, files

    @property
    def api_version(self):
        return "%s/%s" % (self.group, self.version) if self.group else self.version

    @property
    def group_resource(self):
        return "%s.%s" % (self.name, self.group) if self.group else self.name


def _meta_fields(extra):
    return dict({"metadata.name": ("metadata", "name"), "metadata.namespace": ("metadata", "namespace")},
                **extra)


# The field selectors each resource supports (the real registry's *ToSelectableFields), with the path
# they read; a missing value reads as "" (or the default in FIELD_DEFAULTS).
RESOURCES = {
    "nodes": Resource("nodes", "Node", "", "v1", False, _meta_fields({
        "spec.unschedulable": ("spec", "unschedulable")}), ("node.json", "nodes.json")),
    "pods": Resource("pods", "Pod", "", "v1", True, _meta_fields({
        "spec.nodeName": ("spec", "nodeName"), "spec.restartPolicy": ("spec", "restartPolicy"),
        "spec.schedulerName": ("spec", "schedulerName"),
        "spec.serviceAccountName": ("spec", "serviceAccountName"),
        "spec.hostNetwork": ("spec", "hostNetwork"), "status.phase": ("status", "phase"),
        "status.podIP": ("status", "podIP"),
        "status.nominatedNodeName": ("status", "nominatedNodeName")}), ("pods.json",)),
    "networks": Resource("networks", "Network", "networking.gke.io", "v1", False, _meta_fields({}),
                         ("networks.json",)),
    "events": Resource("events", "Event", "events.k8s.io", "v1", True, _meta_fields({
        "regarding.kind": ("regarding", "kind"), "regarding.namespace": ("regarding", "namespace"),
        "regarding.name": ("regarding", "name"), "regarding.uid": ("regarding", "uid"),
        "regarding.apiVersion": ("regarding", "apiVersion"),
        "regarding.resourceVersion": ("regarding", "resourceVersion"),
        "regarding.fieldPath": ("regarding", "fieldPath"), "reason": ("reason",),
        "reportingController": ("reportingController",), "type": ("type",),
        # core/v1 names of the same fields (kubectl describe asks with these)
        "involvedObject.kind": ("regarding", "kind"), "involvedObject.namespace": ("regarding", "namespace"),
        "involvedObject.name": ("regarding", "name"), "involvedObject.uid": ("regarding", "uid"),
        "involvedObject.apiVersion": ("regarding", "apiVersion"),
        "involvedObject.resourceVersion": ("regarding", "resourceVersion"),
        "involvedObject.fieldPath": ("regarding", "fieldPath"),
        "reportingComponent": ("reportingController",), "source": ("deprecatedSource", "component")}),
        ("events.json",)),
    # resource.k8s.io/v1 ResourceSlices: cluster-scoped; the registry's selectable fields are
    # spec.nodeName and spec.driver (pkg/registry/resource/resourceslice/strategy.go).
    "resourceslices": Resource("resourceslices", "ResourceSlice", "resource.k8s.io", "v1", False, _meta_fields({
        "spec.nodeName": ("spec", "nodeName"), "spec.driver": ("spec", "driver")}), ("resourceslices.json",)),
    "clustertrainingruntimes": Resource("clustertrainingruntimes", "ClusterTrainingRuntime", "trainer.kubeflow.org",
                                        "v1alpha1", False, _meta_fields({}), ("clustertrainingruntimes.json",)),
}
# Custom resources: their file absent means their CRD is (404, no group in discovery).
CRDS = ("networks", "clustertrainingruntimes", "resourceslices")     # resourceslices: absent as before GKE 1.34
FIELD_DEFAULTS = {"spec.unschedulable": "false", "spec.hostNetwork": "false"}


def now_rfc3339():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def meta(obj):
    m = obj.get("metadata") if isinstance(obj, dict) else None
    return m if isinstance(m, dict) else {}


def obj_key(res, obj, index):
    m = meta(obj)
    name = m.get("name")
    if not isinstance(name, str) or not name:
        return "#%d" % index
    if res.namespaced:
        ns = m.get("namespace") if isinstance(m.get("namespace"), str) else ""
        return "%s/%s" % (ns, name)
    return name


def field_value(res, obj, field):
    cur = obj
    for p in res.fields[field]:
        cur = cur.get(p) if isinstance(cur, dict) else None
    if cur is None or cur == "":
        return FIELD_DEFAULTS.get(field, "")
    if isinstance(cur, bool):
        return "true" if cur else "false"
    return str(cur)


def parse_field_selector(res, sel):
    """"a=b,c!=d" -> [(field, op, value)]; raises ValueError with the real server's message."""
    reqs = []
    if not sel:
        return reqs
    for part in sel.split(","):
        part = part.strip()
        if "!=" in part:
            k, v = part.split("!=", 1)
            op = "!="
        elif "==" in part:
            k, v = part.split("==", 1)
            op = "="
        elif "=" in part:
            k, v = part.split("=", 1)
            op = "="
        else:
            raise ValueError("invalid selector: '%s'; can't understand '%s'" % (sel, part))
        k = k.strip()
        if k not in res.fields:
            raise ValueError('field label not supported: %s' % k)
        reqs.append((k, op, v.strip()))
    return reqs


def field_match(res, reqs, obj):
    if not reqs:
        return True
    if not isinstance(obj, dict):
        return False
    for k, op, v in reqs:
        got = field_value(res, obj, k)
        if (op == "=") != (got == v):
            return False
    return True


class Change:
    __slots__ = ("rv", "res", "etype", "obj", "old")

    def __init__(self, rv, res, etype, obj, old):
        self.rv, self.res, self.etype, self.obj, self.old = rv, res, etype, obj, old


class Watcher:
    """One open watch: its filter, its queue of (type, object) pairs, how it should end. Its
    thread waits on its own condition (over the store's lock), woken only when something is
    queued for it or it must end: thousands of idle watches cost nothing per change."""

    def __init__(self, res, pred, query, lock):
        self.res, self.pred, self.query = res, pred, query
        self.q = collections.deque()
        self.end = None             # None, "clean" or "cut"
        self.sent = 0
        self.since = time.time()
        self.cv = threading.Condition(lock)

    def wake(self):
        """Caller holds the store's lock."""
        self.cv.notify()

    def offer(self, ch):
        """Queue @ch as this watch sees it: a change into or out of its selector is ADDED/DELETED."""
        if ch.res != self.res.name:
            return
        n = len(self.q)
        if ch.etype == "ADDED":
            if self.pred(ch.obj):
                self.q.append(("ADDED", ch.obj))
        elif ch.etype == "DELETED":
            if self.pred(ch.old if ch.old is not None else ch.obj):
                self.q.append(("DELETED", ch.obj))
        else:
            was, now = self.pred(ch.old), self.pred(ch.obj)
            if was and now:
                self.q.append(("MODIFIED", ch.obj))
            elif now:
                self.q.append(("ADDED", ch.obj))
            elif was:
                self.q.append(("DELETED", ch.obj))
        if len(self.q) != n:
            self.wake()


class Store:
    def __init__(self, state):
        self.state = state
        self.lock = threading.RLock()
        self.cond = threading.Condition(self.lock)  # lists waiting for a resourceVersion; watches have their own
        self.rv = 0
        self.objs = {r: collections.OrderedDict() for r in RESOURCES}
        self.src = {r: {} for r in RESOURCES}       # key -> the file item it was read from
        self.origin = {}                             # node key -> set of files ("node.json", "nodes.json")
        self.hidden = set()                          # node keys unlisted (node.json beside a nodes.json)
        self.present = {r: True for r in RESOURCES}  # CRDS: whether their file (the CRD) exists
        self.history = collections.deque()
        self.compacted = 0                           # a watch from an RV below this gets 410
        self.history_max = 10000
        self.sigs = {}                               # file -> (signature, read time ns)
        self.watchers = set()
        self.settings = {}
        self._initial_load()

    # --- files --------------------------------------------------------------------------
    def path(self, name):
        return os.path.join(self.state, name)

    def _sig(self, name):
        try:
            st = os.stat(self.path(name))
        except FileNotFoundError:
            return None
        return (st.st_ino, st.st_size, st.st_mtime_ns)

    def _stale(self, name):
        sig = self._sig(name)
        old = self.sigs.get(name)
        if old is None:
            return True
        if sig != old[0]:
            return True
        return sig is not None and old[1] - sig[2] < RACY_NS

    def _read(self, name):
        """The file's JSON (None when absent); raises ValueError when it is not JSON."""
        sig = self._sig(name)
        t = time.time_ns()
        try:
            with open(self.path(name), "rb") as f:
                data = json.loads(f.read())
        except FileNotFoundError:
            data = None
        self.sigs[name] = (sig, t)
        return data

    def _write(self, name, value):
        p = self.path(name)
        tmp = "%s.tmp.%d.%d" % (p, os.getpid(), threading.get_ident())
        with open(tmp, "wb") as f:
            f.write((json.dumps(value, indent=2) + "\n").encode())
        os.rename(tmp, p)
        self.sigs[name] = (self._sig(name), time.time_ns())

    def _remove(self, name):
        try:
            os.unlink(self.path(name))
        except FileNotFoundError:
            pass
        self.sigs[name] = (None, time.time_ns())

    def _file_view(self, rname):
        """The collection as the files say now: OrderedDict key -> item; None when unreadable."""
        res = RESOURCES[rname]
        try:
            docs = [self._read(f) for f in res.files]
        except (ValueError, OSError) as e:
            import sys
            sys.stderr.write("fakeapi: %s: %s; kept the previous state\n" % ("/".join(res.files), e))
            return None
        view = collections.OrderedDict()
        if rname == "nodes":
            node, listed = docs
            items = listed.get("items") if isinstance(listed, dict) else None
            items = items if isinstance(items, list) else []
            names = set()
            origin = {}
            for i, it in enumerate(items):
                k = self._unique(view, obj_key(res, it, i))
                view[k] = it
                names.add(k)
                origin[k] = {"nodes.json"}
            self.hidden = set()
            if isinstance(node, dict):
                k = obj_key(res, node, len(items))
                view[k] = node
                origin.setdefault(k, set()).add("node.json")
                if items and k not in names:
                    self.hidden = {k}
            self.origin = origin
            return view
        doc = docs[0]
        if rname in CRDS:
            self.present[rname] = doc is not None
        if doc is None:
            return view
        items = doc.get("items") if isinstance(doc, dict) else None
        if not isinstance(items, list):
            import sys
            sys.stderr.write("fakeapi: %s has no items list; kept the previous state\n" % res.files[0])
            return None
        for i, it in enumerate(items):
            view[self._unique(view, obj_key(res, it, i))] = it
        return view

    @staticmethod
    def _unique(view, k):
        n = 1
        base = k
        while k in view:
            k = "%s#dup%d" % (base, n)
            n += 1
        return k

    def _initial_load(self):
        top = 0
        for rname in RESOURCES:
            view = self._file_view(rname) or {}
            for k, it in view.items():
                try:
                    top = max(top, int(meta(it).get("resourceVersion", 0)))
                except (TypeError, ValueError):
                    pass
            self.src[rname] = dict(view)
            self.objs[rname] = collections.OrderedDict((k, copy.deepcopy(v)) for k, v in view.items())
        self.rv = max(top, 1)
        self.compacted = self.rv
        for rname in RESOURCES:
            for o in self.objs[rname].values():
                if isinstance(o, dict) and not meta(o).get("resourceVersion"):
                    o.setdefault("metadata", {})["resourceVersion"] = str(self.rv)

    def sync(self, rnames=None):
        """Apply what changed in the files of @rnames (default all). Caller holds cond."""
        for rname in rnames or RESOURCES:
            if not any(self._stale(f) for f in RESOURCES[rname].files):
                continue
            view = self._file_view(rname)
            if view is not None:
                self._apply_view(rname, view)

    def _apply_view(self, rname, view):
        cur, src = self.objs[rname], self.src[rname]
        new = collections.OrderedDict()
        changes = []
        for k, it in view.items():
            old = cur.get(k)
            if old is not None and src.get(k) == it:
                new[k] = old
                continue
            o = copy.deepcopy(it)
            new[k] = o
            changes.append(("ADDED" if old is None else "MODIFIED", k, o, old))
        for k, old in cur.items():
            if k not in view:
                changes.append(("DELETED", k, copy.deepcopy(old), old))
        self.objs[rname] = new
        self.src[rname] = dict(view)
        for etype, k, o, old in changes:
            self._emit(rname, etype, o, old)

    def _write_back(self, rname, key=None):
        """Write the collection's file (for nodes: the file(s) node @key lives in, default both)."""
        res = RESOURCES[rname]
        objs = self.objs[rname]
        if rname == "nodes":
            self._write_nodes(self.origin.get(key, {"nodes.json"}) if key else {"node.json", "nodes.json"})
            return
        if rname == "events" and not self.settings.get("events_file", True):
            return
        if rname in CRDS and not self.present[rname]:
            return
        self._write(res.files[0], {"kind": res.kind + "List", "apiVersion": res.api_version,
                                   "metadata": {}, "items": list(objs.values())})
        self.src[rname] = {k: copy.deepcopy(o) for k, o in objs.items()}

    def _write_nodes(self, files):
        objs = self.objs["nodes"]
        if "node.json" in files:
            k = next((k for k, o in self.origin.items() if "node.json" in o), None)
            if k in objs:
                self._write("node.json", objs[k])
            else:
                self._remove("node.json")
        if "nodes.json" in files:
            items = [o for k, o in objs.items() if "nodes.json" in self.origin.get(k, ())]
            self._write("nodes.json", {"kind": "NodeList", "apiVersion": "v1", "metadata": {},
                                       "items": items})
        for k, o in objs.items():
            if self.origin.get(k, set()) & set(files):
                self.src["nodes"][k] = copy.deepcopy(o)
        for k in list(self.src["nodes"]):
            if k not in objs:
                del self.src["nodes"][k]

    # --- changes ------------------------------------------------------------------------
    def _emit(self, rname, etype, obj, old):
        self.rv += 1
        if isinstance(obj, dict):
            obj.setdefault("metadata", {})
            if isinstance(obj["metadata"], dict):
                obj["metadata"]["resourceVersion"] = str(self.rv)
        ch = Change(self.rv, rname, etype, obj, old)
        self.history.append(ch)
        limit = max(1, int(self.settings.get("history", self.history_max)))
        while len(self.history) > limit:
            self.compacted = self.history.popleft().rv
        for w in self.watchers:
            w.offer(ch)
        self.cond.notify_all()
        return ch

    def compact(self):
        self.history.clear()
        self.compacted = self.rv

    def put(self, rname, obj, create):
        """Store @obj (create: must not exist; else: must exist). Returns (etype, stored) or raises KeyError/LookupError."""
        res = RESOURCES[rname]
        k = obj_key(res, obj, -1)
        old = self.objs[rname].get(k)
        if create and old is not None:
            raise KeyError(k)
        if not create and old is None:
            raise LookupError(k)
        o = copy.deepcopy(obj)
        m = o.setdefault("metadata", {})
        if create:
            m.setdefault("uid", str(uuid.uuid4()))
            m.setdefault("creationTimestamp", now_rfc3339())
            if rname == "nodes" and k not in self.origin:
                self._new_node_origin(k)
        self.objs[rname][k] = o
        ch = self._emit(rname, "ADDED" if create else "MODIFIED", o, old)
        self._write_back(rname, k)
        return ch

    def _new_node_origin(self, k):
        has_list = any("nodes.json" in o for o in self.origin.values())
        has_node = any("node.json" in o for o in self.origin.values())
        if not has_node and not has_list:
            self.origin[k] = {"node.json"}
            return
        if not has_list:
            # A second node: make nodes.json hold every node, so none falls out of the lists.
            for o in self.origin.values():
                o.add("nodes.json")
        self.origin[k] = {"nodes.json"}

    def delete(self, rname, key):
        old = self.objs[rname].pop(key)
        ch = self._emit(rname, "DELETED", copy.deepcopy(old), old)
        if rname == "nodes":
            self._write_nodes(self.origin.pop(key, {"nodes.json"}))
        else:
            self._write_back(rname, key)
        return ch

    def listed(self, rname, key, name_selected):
        """Whether a list/watch shows the object (the legacy node.json-beside-nodes.json rule)."""
        return rname != "nodes" or key not in self.hidden or name_selected

    def items(self, rname, pred, name_selected=False):
        return [o for k, o in self.objs[rname].items() if self.listed(rname, k, name_selected) and pred(o)]

    def get(self, rname, key):
        return self.objs[rname].get(key)

    def watch_open(self, rname, pred, query, since, initial, name_selected=False):
        """Register a watch. @since: an int RV (replay the history after it) or None; @initial:
        queue ADDED for every current object first. Returns the Watcher, or raises ValueError
        ("gone", message) when @since is older than the history."""
        res = RESOURCES[rname]
        w = Watcher(res, pred, query, self.lock)
        if since is not None:
            if since < self.compacted:
                raise ValueError("too old resource version: %d (%d)" % (since, self.compacted))
            for ch in self.history:
                if ch.rv > since:
                    w.offer(ch)
        if initial:
            for o in self.items(rname, pred, name_selected):
                w.q.append(("ADDED", o))
        self.watchers.add(w)
        return w

    def watch_close(self, w):
        self.watchers.discard(w)

    def wake_all(self):
        """Every waiting thread: the server stops, or watches must end. Caller holds the lock."""
        self.cond.notify_all()
        for w in self.watchers:
            w.wake()
