#!/usr/bin/python3
"""fakeapi.py - a fake Kubernetes API server for the tests (python3 stdlib only).

Usage: fakeapi.py --state DIR --port-file F --cert C --key K [--max-seconds N]
       fakeapi.py ctl --port-file F --ca CA --token-file T 'JSON'    (a scripted change, below)

Listens on 127.0.0.1, port 0 (HTTPS only), writes the port to F atomically, and serves the
objects of the state directory DIR. It behaves like kube-apiserver where the agent and its tests
depend on it: one global resourceVersion (fakeapi_store.py), lists and watches, selectors,
merge / strategic merge / JSON patches with the Node strategies, Events with their validation,
discovery for kubectl. Files of DIR (a test changes them at will; see fakeapi_store.py for when a
change is seen):

  token        the bearer token every request must carry (else 401 Status)
  node.json    the Node: GET and PATCH /api/v1/nodes/<its name> (and /status)
  nodes.json   optional NodeList; its nodes are listed (node.json's node then only when it is
               among them, or when a fieldSelector names it) and readable one by one
  pods.json    PodList for /api/v1/pods and /api/v1/namespaces/<ns>/pods
  networks.json  optional NetworkList for /apis/networking.gke.io/v1/networks (absent: 404 and no
               networking.gke.io group in discovery, as when GKE multi-networking is not enabled)
  resourceslices.json  optional ResourceSliceList for /apis/resource.k8s.io/v1/resourceslices
               (cluster-scoped, fieldSelector spec.nodeName and spec.driver; absent: 404, as a
               server that does not serve resource.k8s.io/v1)
  clustertrainingruntimes.json  optional ClusterTrainingRuntimeList for
               /apis/trainer.kubeflow.org/v1alpha1/clustertrainingruntimes[/NAME] (absent: 404 and no
               group, as without Kubeflow Trainer v2; a name it lacks: a NotFound Status naming it)
  events.json  written: the Events posted (events.k8s.io/v1 EventList)
  settings     optional JSON, re-read per request:
                 history N        changes kept for watches (default 10000); older RVs get 410
                 gone "event"|"status"  a too-old watch RV: 200 and an ERROR event whose object
                                  is a Status with code 410 (the real watch cache; default), or
                                  an HTTP 410 answer
                 bookmark_ms N    BOOKMARK period of watches with allowWatchBookmarks (60000)
                 watch_timeout_s N  a watch without timeoutSeconds ends after N s (1800)
                 watch_split N    write each event line in pieces of N bytes (0: whole lines)
                 watch_split_ms N pause between pieces (2)
                 watch_coalesce   write all pending events in one chunk
                 watchlist false  reject sendInitialEvents (422), as servers without WatchList
                 resume_gone true  every watch from a resourceVersion gets 410 (in the "gone" form),
                                  however new: a watch cache that cannot resume anything
                 forbidden [..]   "RESOURCE" or "RESOURCE:VERB" (verbs get list watch patch create;
                                  RESOURCE may be "nodes/status"): 403 as RBAC would answer
                 status_merge_conditions "reject"|"replace"  a merge patch to nodes/N/status
                                  that sets status.conditions: 422 (default: the agent must
                                  never send one), or replace the whole list (the real server)
                 poll_ms N        how often open watches look at the files (20)
                 events_file false  do not write events.json (many Events)
  faults       optional JSON: {"mode": M, "count": N, "retry_after": S, "delay": S,
               "method": "PATCH", "path": "/api/v1/nodes/"} where M is one of
               401 403 404 429 500 503 slow truncated short invalid hang oversized
               oversized_stream close leak (a 403 whose message echoes the Authorization
               header, as a hostile or buggy server might); "count" (decremented in the file) limits how many
               requests it hits, absent = all; "method"/"path" (prefix) narrow which ones.
               "rate_limit": N answers 429 (Retry-After 1) beyond N requests per second.
  requests.log written: one JSON line per request received: method, path, query, contentType,
               body, auth ("none", "ok" or "bad"; never the token), fault, peer (the client's
               port: equal for requests on one kept-alive connection), status (null when no
               answer was sent: hang, close), reqBytes, respBytes (null for a watch stream),
               t (arrival, Unix seconds), ms (until the answer started), watch (true for a
               watch), userAgent. The line is written before the answer's body is sent.
  watches.log  written: one JSON line per watch when it ends: path, query, events, bookmarks,
               bytes, seconds, end ("timeout", "closed", "cut", "gone", "client", "stopped").

Scripted changes (tests only; never logged in requests.log, answered to the same bearer token):
POST /fakeapi/v1/changes with one operation or a list, each applied at once (a new
resourceVersion, delivered to open watches):
  {"op": "create"|"update"|"apply", "resource": R, "object": {...}}
  {"op": "patch", "resource": R, "name": N, "namespace": NS, "patch": {...}}   (merge patch, any field)
  {"op": "delete", "resource": R, "name": N, "namespace": NS}
  {"op": "compact"}                        forget the history: every older RV now gets 410
  {"op": "close", "resource": R, "mode": "clean"|"cut"}   end open watches (cut: no last chunk)
  {"op": "inject", "resource": R, "line": TEXT}            write TEXT as a line into open watches
  {"op": "wait", "watchers": N, "resource": R, "timeout": S}  until N watches are open
It answers {"resourceVersion": RV, "results": [...]}, and appends {"ops", "resourceVersion", "t"
(Unix seconds when applied)} to control.log. GET /fakeapi/v1/state answers the
resourceVersion, the oldest one a watch may start from, and the open watches.

PATCH wants application/merge-patch+json, application/strategic-merge-patch+json (not for the
Network CRD: 415, as for any custom resource) or application/json-patch+json (else 415). PATCH of
nodes/N ignores status changes, of nodes/N/status ignores spec changes (metadata changes apply
there too: the real Node status strategy resets spec only). A patch that changes nothing is no
write (no new resourceVersion); metadata.resourceVersion in a patch is a precondition (409).
Labels and annotations must stay string maps (422). GET /api/v1/nodes honours labelSelector
(k=v, k==v, k!=v, k, !k; comma = AND) and limit/continue paging, as every list does; a garbage
continue token, or one from before the list changed, gives 410 Gone. Exits on SIGTERM, when its
parent dies, or after --max-seconds (600).
"""

import argparse
import base64
import collections
import copy
import datetime
import hashlib
import http.server
import json
import os
import random
import re
import signal
import socket
import ssl
import string
import sys
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fakeapi_store as fs                                               # noqa: E402
from fakeapi_patch import (NODE_SCHEMA, PatchError, json_patch, merge_patch,  # noqa: E402,F401
                           strategic_merge)

STATE = None
STORE = None
LOCK = threading.Lock()          # faults file, request log, rate window
STOP = threading.Event()
RATE_WINDOW = collections.deque()
BODY_MAX = 4 << 20
USER = "system:serviceaccount:tcpxo:tcpxo-agent"
SETTINGS = {"sig": None, "value": {}}
EVENT_NS = ("default", "kube-system")

MERGE = "application/merge-patch+json"
STRATEGIC = "application/strategic-merge-patch+json"
JSONPATCH = "application/json-patch+json"
APPLY = "application/apply-patch+yaml"


def read_json(name, default=None):
    try:
        with open(os.path.join(STATE, name), "rb") as f:
            return json.loads(f.read())
    except FileNotFoundError:
        return default


def write_atomic(path, data):
    tmp = "%s.tmp.%d" % (path, os.getpid())
    with open(tmp, "wb") as f:
        f.write(data)
    os.rename(tmp, path)


def write_json(name, value):
    write_atomic(os.path.join(STATE, name), (json.dumps(value, indent=2) + "\n").encode())


def settings():
    """The settings file, re-read when it changed (bad JSON: ignored with a warning)."""
    p = os.path.join(STATE, "settings")
    try:
        st = os.stat(p)
        sig = (st.st_ino, st.st_size, st.st_mtime_ns)
    except FileNotFoundError:
        sig = None
    if sig != SETTINGS["sig"] or (sig and time.time_ns() - sig[2] < fs.RACY_NS):
        value = {}
        if sig:
            try:
                with open(p, "rb") as f:
                    value = json.loads(f.read()) or {}
                if not isinstance(value, dict):
                    raise ValueError("not an object")
            except (OSError, ValueError) as e:
                sys.stderr.write("fakeapi: settings: %s; ignored\n" % e)
                value = {}
        SETTINGS["sig"], SETTINGS["value"] = sig, value
        if STORE is not None:
            STORE.settings = value
    return SETTINGS["value"]


def status_body(code, reason, message, name=None, kind=None, group=None, causes=None, retry=None):
    st = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
          "message": message, "reason": reason, "code": code}
    if name is not None or causes or retry:
        d = {}
        if name is not None:
            d["name"] = name
        if group:
            d["group"] = group
        d["kind"] = kind or "nodes"
        if causes:
            d["causes"] = causes
        if retry:
            d["retryAfterSeconds"] = retry
        st["details"] = d
    return st


def parse_selector(sel):
    """Label selector (equality-based) -> list of (key, op, value); raises ValueError."""
    reqs = []
    for part in sel.split(","):
        part = part.strip()
        if not part:
            raise ValueError("empty requirement")
        if "!=" in part:
            k, v = part.split("!=", 1)
            reqs.append((k.strip(), "!=", v.strip()))
        elif "==" in part:
            k, v = part.split("==", 1)
            reqs.append((k.strip(), "=", v.strip()))
        elif "=" in part:
            k, v = part.split("=", 1)
            reqs.append((k.strip(), "=", v.strip()))
        elif part.startswith("!"):
            reqs.append((part[1:].strip(), "!", None))
        else:
            reqs.append((part, "exists", None))
    for k, _, _ in reqs:
        if not k or any(c.isspace() for c in k):
            raise ValueError("bad key %r" % k)
    return reqs


def selector_match(reqs, labels):
    labels = labels if isinstance(labels, dict) else {}
    for k, op, v in reqs:
        if op == "=" and labels.get(k) != v:
            return False
        if op == "!=" and labels.get(k) == v:
            return False
        if op == "exists" and k not in labels:
            return False
        if op == "!" and k in labels:
            return False
    return True


def list_digest(items, selector):
    h = hashlib.sha256(json.dumps([items, selector], sort_keys=True).encode())
    return h.hexdigest()[:16]


def encode_continue(start, digest):
    raw = json.dumps({"start": start, "digest": digest}).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_continue(tok):
    raw = base64.urlsafe_b64decode(tok + "=" * (-len(tok) % 4))
    d = json.loads(raw)
    return int(d["start"]), str(d["digest"])


# --- validation helpers ----------------------------------------------------------------------
DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
QUALIFIED = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
RFC3339 = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?(Z|[+-]\d\d:\d\d)$")


def qualified_name(v):
    """ValidateQualifiedName: [prefix/]name, prefix a DNS subdomain, name <= 63."""
    if not isinstance(v, str) or not v:
        return False
    prefix, _, name = v.rpartition("/")
    if prefix and (len(prefix) > 253 or not DNS_SUBDOMAIN.match(prefix)):
        return False
    return 0 < len(name) <= 63 and bool(QUALIFIED.match(name))


def field_err(causes, field, kind, detail=""):
    """Append a StatusCause the way field.ErrorList renders (Required value / Invalid value ...)."""
    reasons = {"required": ("FieldValueRequired", "Required value"),
               "invalid": ("FieldValueInvalid", "Invalid value"),
               "unsupported": ("FieldValueNotSupported", "Unsupported value"),
               "toolong": ("FieldValueTooLong", "Too long"),
               "forbidden": ("FieldValueForbidden", "Forbidden")}
    reason, text = reasons[kind]
    causes.append({"reason": reason, "message": text + (": " + detail if detail else ""), "field": field})


def invalid_status(kind_group, name, causes):
    parts = ["%s: %s" % (c["field"], c["message"]) for c in causes]
    msg = '%s "%s" is invalid: %s' % (kind_group, name, parts[0] if len(parts) == 1 else
                                       "[" + ", ".join(parts) + "]")
    kind, _, group = kind_group.partition(".")
    return status_body(422, "Invalid", msg, name=name, kind=kind, group=group or None, causes=causes)


def core_event(e):
    """An events.k8s.io/v1 Event as core/v1 serves it (the apiserver converts between the two)."""
    out = {"kind": "Event", "apiVersion": "v1", "metadata": copy.deepcopy(fs.meta(e))}
    m = {"regarding": "involvedObject", "related": "related", "note": "message", "reason": "reason",
         "type": "type", "action": "action", "eventTime": "eventTime", "series": "series",
         "reportingController": "reportingComponent", "reportingInstance": "reportingInstance",
         "deprecatedFirstTimestamp": "firstTimestamp", "deprecatedLastTimestamp": "lastTimestamp",
         "deprecatedCount": "count", "deprecatedSource": "source"}
    for k, v in m.items():
        if k in e:
            out[v] = copy.deepcopy(e[k])
    out.setdefault("involvedObject", {})
    out.setdefault("source", {})
    out.setdefault("firstTimestamp", None)
    out.setdefault("lastTimestamp", None)
    return out


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fakeapi/1"
    timeout = 30                 # idle keep-alive connections end

    def setup(self):
        super().setup()
        # Headers and body go out in separate writes: without this, Nagle + delayed ACK add 40 ms.
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        # The TLS handshake runs here, in this connection's thread, not in accept().
        self.request.settimeout(10)
        self.request.do_handshake()
        self.request.settimeout(self.timeout)

    def log_message(self, fmt, *args):
        pass

    # --- answers ---------------------------------------------------------------------
    def send_json(self, code, value, headers=None):
        body = (json.dumps(value) + "\n").encode()
        self.send_raw(code, body, headers)

    def send_raw(self, code, body, headers=None, length=None):
        self.record_once(code, len(body))
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body) if length is None else length))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def send_status(self, code, reason, message, headers=None, name=None, kind=None, group=None):
        self.send_json(code, status_body(code, reason, message, name, kind, group), headers)

    def not_found(self):
        self.send_status(404, "NotFound", "the server could not find the requested resource")

    # --- bookkeeping ------------------------------------------------------------------
    def read_body(self):
        n = self.headers.get("Content-Length")
        if n is None:
            return b""
        n = int(n)
        if n < 0 or n > BODY_MAX:
            raise ValueError("body too large")
        return self.rfile.read(n)

    def auth_state(self):
        h = self.headers.get("Authorization")
        if h is None:
            return "none"
        try:
            with open(os.path.join(STATE, "token"), "rb") as f:
                want = f.read().decode().rstrip("\r\n")
        except (OSError, UnicodeDecodeError):
            return "bad"
        return "ok" if want and h == "Bearer " + want else "bad"

    def take_fault(self, method, path):
        """The fault for this request (decrementing its count), or None; also the rate limit."""
        with LOCK:
            try:
                f = read_json("faults", {}) or {}
            except ValueError:
                sys.stderr.write("fakeapi: faults file is not JSON; ignored\n")
                f = {}
            limit = f.get("rate_limit")
            if limit:
                now = time.monotonic()
                while RATE_WINDOW and now - RATE_WINDOW[0] >= 1.0:
                    RATE_WINDOW.popleft()
                if len(RATE_WINDOW) >= int(limit):
                    return {"mode": "429", "retry_after": f.get("retry_after", 1)}
                RATE_WINDOW.append(now)
            mode = f.get("mode")
            if not mode:
                return None
            if "method" in f and f["method"] != method:
                return None
            if "path" in f and not path.startswith(f["path"]):
                return None
            count = f.get("count")
            if count is not None:
                if count <= 0:
                    return None
                f["count"] = count - 1
                write_json("faults", f)
            return f

    def record_once(self, status, resp_bytes=None, watch=False):
        """Log this request (once): what arrived and, when known, the answer's status and size."""
        if self._logged or self._req is None:
            return
        self._logged = True
        method, path, query, body, auth, fault = self._req
        try:
            text = body.decode()
        except UnicodeDecodeError:
            text = None
        line = json.dumps({"method": method, "path": path, "query": query,
                           "contentType": self.headers.get("Content-Type"), "body": text,
                           "auth": auth, "fault": fault.get("mode") if fault else None,
                           "peer": self.client_address[1], "status": status,
                           "reqBytes": len(body), "respBytes": resp_bytes,
                           "t": round(self._t0, 3),
                           "ms": round((time.monotonic() - self._m0) * 1000, 1),
                           "watch": watch, "userAgent": self.headers.get("User-Agent")},
                          sort_keys=True)
        with LOCK:
            with open(os.path.join(STATE, "requests.log"), "a") as f:
                f.write(line + "\n")

    # --- dispatch ---------------------------------------------------------------------
    def do_GET(self):
        self.handle_any("GET")

    def do_PATCH(self):
        self.handle_any("PATCH")

    def do_POST(self):
        self.handle_any("POST")

    def do_PUT(self):
        self.handle_any("PUT")

    def do_DELETE(self):
        self.handle_any("DELETE")

    def handle_any(self, method):
        # One handler serves every request of a kept-alive connection: a cut is per request.
        self._cut = None
        self._logged = False
        self._req = None
        self._t0, self._m0 = time.time(), time.monotonic()
        url = urllib.parse.urlsplit(self.path)
        path, query = url.path, url.query
        try:
            body = self.read_body()
        except ValueError:
            self.close_connection = True
            self.send_status(413, "RequestEntityTooLarge", "request body too large")
            return
        auth = self.auth_state()
        settings()
        if path.startswith("/fakeapi/"):
            self.control(method, path, body, auth)
            return
        fault = self.take_fault(method, path)
        self._req = (method, path, query, body, auth, fault)
        try:
            if fault and self.apply_fault(fault, method, path, query, body):
                return
            if auth != "ok":
                self.send_status(401, "Unauthorized", "Unauthorized")
                return
            self.route(method, path, query, body, fault)
        finally:
            self.record_once(None)

    def apply_fault(self, f, method, path, query, body):
        """Answer per the fault; False when the normal answer should follow (slow, truncated...)."""
        mode = str(f["mode"])
        ra = {"Retry-After": str(f["retry_after"])} if "retry_after" in f else None
        simple = {"401": ("Unauthorized", "Unauthorized"),
                  "403": ("Forbidden", 'nodes is forbidden: User "system:serviceaccount:'
                          'tcpxo:tcpxo-agent" cannot access this resource'),
                  "404": ("NotFound", "the server could not find the requested resource"),
                  "429": ("TooManyRequests", "too many requests, please try again later"),
                  "500": ("InternalError", "Internal error occurred: fake fault"),
                  "503": ("ServiceUnavailable", "the server is currently unable to handle the request")}
        if mode in simple:
            self.send_status(int(mode), simple[mode][0], simple[mode][1], ra)
            return True
        if mode == "leak":
            self.send_status(403, "Forbidden", "denied for %s" % self.headers.get("Authorization"))
            return True
        if mode == "slow":
            STOP.wait(float(f.get("delay", 2)))
            return False
        if mode == "hang":
            self.record_once(None)
            STOP.wait(float(f.get("delay", 3600)))
            self.close_connection = True
            return True
        if mode == "close":
            self.close_connection = True
            return True
        if mode == "invalid":
            self.send_raw(200, b'{"kind": "Node", "metadata": {"name": \x00 nope\n')
            return True
        if mode == "oversized":
            self.send_raw(200, b'{"pad":"' + b"x" * (9 << 20) + b'"}')
            return True
        if mode == "oversized_stream":
            self.record_once(200)
            self.close_connection = True
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Connection", "close")
            self.end_headers()
            chunk = b"x" * 65536
            try:
                self.wfile.write(b'{"pad":"')
                for _ in range((9 << 20) // len(chunk)):
                    self.wfile.write(chunk)
                self.wfile.write(b'"}')
            except OSError:
                pass
            return True
        if mode in ("truncated", "short"):
            self._cut = mode
            return False
        sys.stderr.write("fakeapi: unknown fault mode %r; ignored\n" % mode)
        return False

    def answer(self, code, value, headers=None):
        cut = self._cut
        if cut is None:
            self.send_json(code, value, headers)
            return
        full = (json.dumps(value) + "\n").encode()
        half = full[: len(full) // 2]
        if cut == "truncated":         # a well-formed HTTP answer carrying half a JSON text
            self.send_raw(code, half)
        else:                          # Content-Length promises more than arrives
            self.close_connection = True
            self.send_raw(code, half, length=len(full))

    # --- routing ------------------------------------------------------------------------
    def route(self, method, path, query, body, fault):
        q = urllib.parse.parse_qs(query, keep_blank_values=True)
        parts = [p for p in path.split("/") if p]
        if method == "GET" and self.discovery(parts):
            return
        target = self.resolve(parts)
        if target is None:
            self.not_found()
            return
        rname, ns, name, sub, view = target
        res = fs.RESOURCES[rname]
        if rname in fs.CRDS and not self.crd_present(rname):
            self.not_found()
            return
        watch = q.get("watch", [""])[0].lower() in ("1", "true")
        verb = {"GET": "watch" if watch else ("get" if name else "list"), "PATCH": "patch",
                "POST": "create", "PUT": "update", "DELETE": "delete"}[method]
        if self.forbidden(res, sub, verb, ns):
            return
        if name is None and method == "GET":
            if watch:
                self.serve_watch(rname, ns, q, view)
            else:
                self.list_objects(rname, ns, q, view)
        elif name is None and method == "POST" and rname == "events" and view == "v1" and ns:
            self.create_event(ns, body)
        elif name is not None and method == "GET" and sub is None:
            if rname == "nodes":
                self.get_node(name)
            else:
                self.get_object(rname, ns, name, view)
        elif name is not None and method == "GET" and rname == "nodes" and sub == "status":
            self.get_object(rname, ns, name, view)
        elif name is not None and method == "PATCH" and rname == "nodes" and sub is None:
            self.patch_node(name, body)
        elif name is not None and method == "PATCH" and rname == "nodes" and sub == "status":
            self.patch_node_status(name, body)
        elif name is not None and method == "PATCH" and sub is None and rname in ("pods", "networks"):
            self.patch_object(rname, ns, name, body, None)
        else:
            self.send_status(405, "MethodNotAllowed", "method %s not allowed here" % method)

    @staticmethod
    def resolve(parts):
        """(resource, namespace, name, subresource, view) for an API path, or None."""
        if parts[:2] == ["api", "v1"]:
            rest, view, group = parts[2:], "core", ""
        elif parts[:3] == ["apis", "networking.gke.io", "v1"]:
            rest, view, group = parts[3:], "v1", "networking.gke.io"
        elif parts[:3] == ["apis", "events.k8s.io", "v1"]:
            rest, view, group = parts[3:], "v1", "events.k8s.io"
        elif parts[:3] == ["apis", "trainer.kubeflow.org", "v1alpha1"]:
            rest, view, group = parts[3:], "v1alpha1", "trainer.kubeflow.org"
        elif parts[:3] == ["apis", "resource.k8s.io", "v1"]:
            rest, view, group = parts[3:], "v1", "resource.k8s.io"
        else:
            return None
        ns = None
        if len(rest) >= 3 and rest[0] == "namespaces":
            ns, rest = rest[1], rest[2:]
        if not rest or len(rest) > 3:
            return None
        rname = rest[0]
        res = fs.RESOURCES.get(rname)
        if res is None or (res.group != group and not (rname == "events" and view == "core")):
            return None
        if ns is not None and not res.namespaced:
            return None
        name = rest[1] if len(rest) > 1 else None
        sub = rest[2] if len(rest) > 2 else None
        if name is not None and res.namespaced and ns is None:
            return None
        if sub is not None and not (sub == "status" and rname in ("nodes", "pods")):
            return None
        return rname, ns, name, sub, view

    def networks_present(self):
        return self.crd_present("networks")

    @staticmethod
    def crd_present(rname):
        with STORE.cond:
            STORE.sync([rname])
            return STORE.present[rname]

    def forbidden(self, res, sub, verb, ns):
        rules = settings().get("forbidden") or []
        full = res.name + ("/" + sub if sub else "")
        if full not in rules and "%s:%s" % (full, verb) not in rules:
            return False
        where = 'in the namespace "%s"' % ns if ns else "at the cluster scope"
        msg = ('%s is forbidden: User "%s" cannot %s resource "%s" in API group "%s" %s'
               % (res.group_resource, USER, verb, full, res.group, where))
        self.send_json(403, status_body(403, "Forbidden", msg, name="", kind=res.name,
                                        group=res.group or None))
        return True

    # --- discovery (enough for kubectl) ----------------------------------------------------
    def discovery(self, parts):
        if parts == ["version"]:
            self.send_json(200, {"major": "1", "minor": "32", "gitVersion": "v1.32.4-fakeapi",
                                 "gitCommit": "0000000000000000000000000000000000000000",
                                 "gitTreeState": "clean", "buildDate": "2025-01-01T00:00:00Z",
                                 "goVersion": "go1.23.6", "compiler": "gc", "platform": "linux/amd64"})
        elif parts == ["api"]:
            self.send_json(200, {"kind": "APIVersions", "versions": ["v1"],
                                 "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0",
                                                                 "serverAddress": "127.0.0.1:443"}]})
        elif parts == ["apis"]:
            groups = [("events.k8s.io", "v1")] + ([("networking.gke.io", "v1")] if self.networks_present() else []) + \
                ([("trainer.kubeflow.org", "v1alpha1")] if self.crd_present("clustertrainingruntimes") else []) + \
                ([("resource.k8s.io", "v1")] if self.crd_present("resourceslices") else [])
            self.send_json(200, {"kind": "APIGroupList", "apiVersion": "v1", "groups": [
                {"name": g, "versions": [{"groupVersion": g + "/" + v, "version": v}],
                 "preferredVersion": {"groupVersion": g + "/" + v, "version": v}} for g, v in groups]})
        elif parts == ["api", "v1"]:
            self.send_json(200, self.resource_list("v1", [
                ("events", "event", True, "Event", ["ev"], True),
                ("nodes", "node", False, "Node", ["no"], True),
                ("nodes/status", "", False, "Node", [], False),
                ("pods", "pod", True, "Pod", ["po"], True),
                ("pods/status", "", True, "Pod", [], False)]))
        elif parts == ["apis", "events.k8s.io", "v1"]:
            self.send_json(200, self.resource_list("events.k8s.io/v1", [
                ("events", "event", True, "Event", ["ev"], True)]))
        elif parts == ["apis", "networking.gke.io", "v1"]:
            if not self.networks_present():
                self.not_found()
            else:
                self.send_json(200, self.resource_list("networking.gke.io/v1", [
                    ("networks", "network", False, "Network", [], True)]))
        elif parts == ["apis", "trainer.kubeflow.org", "v1alpha1"]:
            if not self.crd_present("clustertrainingruntimes"):
                self.not_found()
            else:
                self.send_json(200, self.resource_list("trainer.kubeflow.org/v1alpha1", [
                    ("clustertrainingruntimes", "clustertrainingruntime", False, "ClusterTrainingRuntime", [], True)]))
        elif parts == ["apis", "resource.k8s.io", "v1"]:
            if not self.crd_present("resourceslices"):
                self.not_found()
            else:
                self.send_json(200, self.resource_list("resource.k8s.io/v1", [
                    ("resourceslices", "resourceslice", False, "ResourceSlice", [], True)]))
        elif parts and parts[0] in ("openapi", "apis") and len(parts) <= 3:
            self.not_found()
        else:
            return False
        return True

    @staticmethod
    def resource_list(gv, rows):
        out = []
        for name, singular, namespaced, kind, short, main in rows:
            r = {"name": name, "singularName": singular, "namespaced": namespaced, "kind": kind,
                 "verbs": (["create", "delete", "deletecollection", "get", "list", "patch", "update",
                            "watch"] if main else ["get", "patch", "update"])}
            if short:
                r["shortNames"] = short
            out.append(r)
        return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": out}

    # --- reads --------------------------------------------------------------------------
    def predicate(self, rname, ns, q):
        """(pred(obj), name_selected) from namespace, labelSelector and fieldSelector; raises ValueError."""
        res = fs.RESOURCES[rname]
        sel = q.get("labelSelector", [""])[0]
        try:
            lreqs = parse_selector(sel) if sel else []
        except ValueError as e:
            raise ValueError("unable to parse requirement: %s" % e)
        freqs = fs.parse_field_selector(res, q.get("fieldSelector", [""])[0])
        if ns is not None:
            freqs.append(("metadata.namespace", "=", ns))
        named = any(f == "metadata.name" and op == "=" for f, op, _ in freqs)

        def pred(o):
            return (isinstance(o, dict) or not (lreqs or freqs)) and \
                (not lreqs or selector_match(lreqs, fs.meta(o).get("labels"))) and \
                fs.field_match(res, freqs, o)
        return pred, named

    def view_of(self, rname, view, obj, typed=False):
        """@obj as this path serves it; @typed: with kind and apiVersion, as single objects and
        watch events always carry them (list items of built-in kinds may lack them)."""
        if rname == "events" and view == "core":
            return core_event(obj)
        if typed and isinstance(obj, dict):
            res = fs.RESOURCES[rname]
            out = {"kind": res.kind, "apiVersion": res.api_version}
            out.update(obj)
            return out
        return obj

    def wait_rv(self, want, seconds=3.0):
        """Under STORE.cond: wait until the store reaches RV @want; False on timeout (504)."""
        end = time.monotonic() + seconds
        while STORE.rv < want and not STOP.is_set():
            left = end - time.monotonic()
            if left <= 0:
                return False
            STORE.cond.wait(min(left, 0.1))
            STORE.sync()
        return STORE.rv >= want

    def too_large(self, want, res):
        return status_body(504, "Timeout", "Too large resource version: %d, current: %d" % (want, STORE.rv),
                           name="", kind=res.name, group=res.group or None,
                           causes=[{"reason": "ResourceVersionTooLarge",
                                    "message": "Too large resource version"}], retry=1)

    def list_objects(self, rname, ns, q, view):
        res = fs.RESOURCES[rname]
        try:
            pred, named = self.predicate(rname, ns, q)
        except ValueError as e:
            self.send_status(400, "BadRequest", str(e))
            return
        rvq = q.get("resourceVersion", [""])[0]
        with STORE.cond:
            STORE.sync([rname])
            if rvq not in ("", "0"):
                try:
                    want = int(rvq)
                except ValueError:
                    self.send_status(400, "BadRequest", "invalid resource version: %s" % rvq)
                    return
                if not self.wait_rv(want):
                    self.send_json(504, self.too_large(want, res))
                    return
            items = [self.view_of(rname, view, o) for o in STORE.items(rname, pred, named)]
            rv = STORE.rv
        if rname == "nodes":
            items.sort(key=lambda n: fs.meta(n).get("name", ""))
        sel = q.get("labelSelector", [""])[0] + "|" + q.get("fieldSelector", [""])[0]
        digest = list_digest(items, sel)
        start = 0
        cont = q.get("continue", [""])[0]
        if cont:
            try:
                start, was = decode_continue(cont)
                if was != digest or start < 0 or start > len(items):
                    raise ValueError("stale")
            except (ValueError, KeyError, TypeError):
                self.send_status(410, "Expired", "The provided continue parameter is too old "
                                 "to display a consistent list result. You can start a new "
                                 "list without the continue parameter.")
                return
        try:
            limit = int(q.get("limit", ["0"])[0] or 0)
        except ValueError:
            self.send_status(400, "BadRequest", "limit must be an integer")
            return
        end = len(items) if limit <= 0 else min(len(items), start + limit)
        meta = {"resourceVersion": str(rv)}
        if end < len(items):
            meta["continue"] = encode_continue(end, digest)
            meta["remainingItemCount"] = len(items) - end
        api = "v1" if view == "core" else res.api_version
        self.answer(200, {"kind": res.kind + "List", "apiVersion": api, "metadata": meta,
                          "items": items[start:end]})

    def get_object(self, rname, ns, name, view):
        res = fs.RESOURCES[rname]
        key = "%s/%s" % (ns, name) if res.namespaced else name
        with STORE.cond:
            STORE.sync([rname])
            o = STORE.get(rname, key)
        if o is None:
            self.send_status(404, "NotFound", '%s "%s" not found' % (res.group_resource, name),
                             name=name, kind=rname, group=res.group or None)
            return
        self.answer(200, self.view_of(rname, view, o, typed=True))

    def get_node(self, name):
        self.get_object("nodes", None, name, "core")

    # --- watches ------------------------------------------------------------------------
    def serve_watch(self, rname, ns, q, view):
        res = fs.RESOURCES[rname]
        cfg = settings()
        try:
            pred, named = self.predicate(rname, ns, q)
        except ValueError as e:
            self.send_status(400, "BadRequest", str(e))
            return
        bookmarks = q.get("allowWatchBookmarks", [""])[0].lower() in ("1", "true")
        sie_q = q.get("sendInitialEvents", [None])[0]
        sie = None if sie_q is None else sie_q.lower() in ("1", "true")
        rvm = q.get("resourceVersionMatch", [""])[0]
        causes = []
        if sie is not None:
            if cfg.get("watchlist", True) is False:
                field_err(causes, "sendInitialEvents", "forbidden",
                          "sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled")
            else:
                if rvm != "NotOlderThan":
                    field_err(causes, "resourceVersionMatch", "forbidden",
                              "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan")
                if sie and not bookmarks:
                    field_err(causes, "allowWatchBookmarks", "forbidden",
                              "sendInitialEvents requires setting allowWatchBookmarks to true")
        elif rvm:
            field_err(causes, "resourceVersionMatch", "forbidden",
                      "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided")
        if causes:
            self.send_json(422, invalid_status("ListOptions.meta.k8s.io", "", causes))
            return
        try:
            timeout = float(q.get("timeoutSeconds", [cfg.get("watch_timeout_s", 1800)])[0])
        except ValueError:
            self.send_status(400, "BadRequest", "timeoutSeconds must be a number")
            return
        rvq = q.get("resourceVersion", [""])[0]
        since, initial = None, True if sie is None else sie
        if rvq not in ("", "0"):
            try:
                since = int(rvq)
            except ValueError:
                self.send_status(400, "BadRequest", "invalid resource version: %s" % rvq)
                return
            if sie is None:
                initial = False
        gone = None
        with STORE.cond:
            STORE.sync([rname])
            if since is not None and not self.wait_rv(since):
                gone = ("toolarge", self.too_large(since, res))
            elif since is not None and cfg.get("resume_gone") is True:
                gone = ("gone", status_body(410, "Expired",
                                            "too old resource version: %d (%d)" % (since, STORE.rv + 1)))
            else:
                try:
                    w = STORE.watch_open(rname, pred, self.path, None if sie else since, initial, named)
                except ValueError as e:
                    gone = ("gone", status_body(410, "Expired", str(e)))
                else:
                    if sie:
                        w.q.append(("INITIAL-END", None))
            rv0 = STORE.rv
        if gone and cfg.get("gone", "event") == "status":
            self.send_json(gone[1]["code"], gone[1])
            return
        self.record_once(200, None, watch=True)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        stats = {"events": 0, "bookmarks": 0, "bytes": 0, "end": "timeout"}
        t0 = time.monotonic()
        try:
            if gone:
                self.write_events([json.dumps({"type": "ERROR", "object": gone[1]}, separators=(",", ":"))],
                                  cfg, stats)
                stats["end"] = "gone"
                self.write_chunk(b"")
                return
            self.watch_loop(w, res, view, rv0, bookmarks, timeout, cfg, stats)
        except (OSError, ssl.SSLError):
            stats["end"] = "client"
            self.close_connection = True
        finally:
            if not gone:
                with STORE.cond:
                    STORE.watch_close(w)
            self.log_watch(stats, time.monotonic() - t0)

    def watch_loop(self, w, res, view, rv0, bookmarks, timeout, cfg, stats):
        deadline = time.monotonic() + timeout
        period = max(0.01, float(cfg.get("bookmark_ms", 60000)) / 1000)
        next_bm = time.monotonic() + period
        while True:
            with STORE.cond:
                while True:
                    now = time.monotonic()
                    if w.q or w.end or STOP.is_set() or now >= deadline or (bookmarks and now >= next_bm):
                        break
                    wake = min(deadline, next_bm) if bookmarks else deadline
                    # Woken when something is queued for this watch (or it must end); 5 s at most.
                    w.cv.wait(max(0.001, min(wake - now, 5.0)))
                batch = list(w.q)
                w.q.clear()
                end, rv_now = w.end, STORE.rv
            lines = []
            for etype, obj in batch:
                if etype == "RAW":
                    lines.append(obj)
                elif etype == "INITIAL-END":
                    lines.append(self.bookmark_line(res, rv0, True))
                    stats["bookmarks"] += 1
                else:
                    lines.append(json.dumps({"type": etype, "object": self.view_of(res.name, view, obj, True)},
                                            separators=(",", ":")))
                    stats["events"] += 1
            now = time.monotonic()
            if bookmarks and (now >= next_bm or (now >= deadline and not end)):
                lines.append(self.bookmark_line(res, rv_now, False))
                stats["bookmarks"] += 1
                next_bm = now + period
            if lines:
                self.write_events(lines, cfg, stats)
            if end == "cut":
                stats["end"] = "cut"
                self.close_connection = True
                self.wfile.flush()
                self.request.shutdown(socket.SHUT_RDWR)
                return
            if end or STOP.is_set() or now >= deadline:
                stats["end"] = "closed" if end else ("stopped" if STOP.is_set() else "timeout")
                self.write_chunk(b"")
                return

    @staticmethod
    def bookmark_line(res, rv, initial_end):
        o = {"kind": res.kind, "apiVersion": res.api_version,
             "metadata": {"resourceVersion": str(rv), "creationTimestamp": None}}
        if initial_end:
            o["metadata"]["annotations"] = {"k8s.io/initial-events-end": "true"}
        if res.name == "pods":              # a typed zero object, as the real server encodes it
            o["spec"], o["status"] = {"containers": None}, {}
        elif res.name == "nodes":
            o["spec"], o["status"] = {}, {"daemonEndpoints": {"kubeletEndpoint": {"Port": 0}},
                                          "nodeInfo": {}}
        return json.dumps({"type": "BOOKMARK", "object": o}, separators=(",", ":"))

    def write_chunk(self, data):
        self.wfile.write(b"%X\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def write_events(self, lines, cfg, stats):
        data = [(l + "\n").encode() for l in lines]
        stats["bytes"] += sum(len(d) for d in data)
        split = int(cfg.get("watch_split", 0) or 0)
        if cfg.get("watch_coalesce"):
            data = [b"".join(data)]
        for d in data:
            if split <= 0:
                self.write_chunk(d)
                continue
            for i in range(0, len(d), split):
                self.write_chunk(d[i:i + split])
                time.sleep(float(cfg.get("watch_split_ms", 2)) / 1000)

    def log_watch(self, stats, seconds):
        line = json.dumps(dict(stats, path=self._req[1], query=self._req[2], seconds=round(seconds, 3)),
                          sort_keys=True)
        with LOCK:
            with open(os.path.join(STATE, "watches.log"), "a") as f:
                f.write(line + "\n")

    # --- writes -------------------------------------------------------------------------
    def patch_node(self, name, body):
        self.patch_object("nodes", None, name, body, None)

    def patch_node_status(self, name, body):
        self.patch_object("nodes", None, name, body, "status")

    def patch_object(self, rname, ns, name, body, sub):
        res = fs.RESOURCES[rname]
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        accepted = [JSONPATCH, MERGE] + ([] if res.group == "networking.gke.io" else [STRATEGIC]) + [APPLY]
        if ctype not in accepted or ctype == APPLY:
            msg = ("the body of the request was in an unknown format - accepted media types include: "
                   + ", ".join(accepted))
            if ctype == APPLY:
                msg = "fakeapi: server-side apply (application/apply-patch+yaml) is not implemented"
            self.send_status(415, "UnsupportedMediaType", msg)
            return
        try:
            patch = json.loads(body)
        except ValueError as e:
            self.send_status(400, "BadRequest", "error decoding patch: %s" % e)
            return
        if ctype != JSONPATCH and not isinstance(patch, dict):
            self.send_status(400, "BadRequest", "a merge patch for a node must be a JSON object")
            return
        cfg = settings()
        if (rname == "nodes" and sub == "status" and ctype == MERGE and
                isinstance(patch.get("status"), dict) and "conditions" in patch["status"] and
                cfg.get("status_merge_conditions", "reject") != "replace"):
            self.send_json(422, invalid_status("Node", name, [{
                "reason": "FieldValueForbidden", "field": "status.conditions",
                "message": "Forbidden: fakeapi: a merge patch replaces the whole conditions list "
                           "(use application/strategic-merge-patch+json, merge key type)"}]))
            return
        key = "%s/%s" % (ns, name) if res.namespaced else name
        with STORE.cond:
            STORE.sync([rname])
            old = STORE.get(rname, key)
            if old is None:
                self.send_status(404, "NotFound", '%s "%s" not found' % (res.group_resource, name),
                                 name=name, kind=rname, group=res.group or None)
                return
            pre = fs.meta(patch).get("resourceVersion") if isinstance(patch, dict) else None
            if pre is not None and pre != fs.meta(old).get("resourceVersion"):
                self.send_status(409, "Conflict", 'Operation cannot be fulfilled on %s "%s": the object '
                                 'has been modified; please apply your changes to the latest version '
                                 'and try again' % (res.group_resource, name), name=name, kind=rname)
                return
            try:
                if ctype == MERGE:
                    new = merge_patch(old, patch)
                elif ctype == STRATEGIC:
                    new = strategic_merge(old, patch, NODE_SCHEMA if rname == "nodes" else {})
                else:
                    new = json_patch(old, patch)
            except PatchError as e:
                self.send_status(e.code, e.reason, e.message)
                return
            if not isinstance(new, dict):
                self.send_status(422, "Invalid", "the patched object is not an object")
                return
            # The strategies: the main resource keeps its status, the status subresource its spec.
            keep = "spec" if sub == "status" else "status"
            if rname in ("nodes", "pods"):
                new.pop(keep, None)
                if keep in old:
                    new[keep] = copy.deepcopy(old[keep])
            why = self.invalid_node(new, name) if rname == "nodes" else None
            if why is None and fs.meta(new).get("name") != name:
                why = ("metadata.name", "may not change")
            if why:
                self.send_status(422, "Invalid", '%s "%s" is invalid: %s: %s' % (res.kind, name, why[0], why[1]),
                                 name=name, kind=rname)
                return
            for f in ("uid", "creationTimestamp", "namespace"):
                if f in fs.meta(old):
                    new["metadata"][f] = fs.meta(old)[f]
            new["metadata"]["resourceVersion"] = fs.meta(old).get("resourceVersion")
            if new == old:
                out = old                   # nothing changed: no write, no new resourceVersion
            else:
                STORE.put(rname, new, create=False)
                out = STORE.get(rname, key)
            out = copy.deepcopy(out)
        self.answer(200, out)

    @staticmethod
    def invalid_node(n, name):
        """The typed checks a Node's patch result must pass: (field, why) or None."""
        meta = n.get("metadata")
        if not isinstance(meta, dict):
            return ("metadata", "must be an object")
        for field in ("labels", "annotations"):
            m = meta.get(field)
            if m is not None and (not isinstance(m, dict) or not all(isinstance(v, str) for v in m.values())):
                return ("metadata.%s" % field, "values must be strings")
        conds = (n.get("status") or {}).get("conditions") if isinstance(n.get("status"), dict) else None
        if conds is None:
            return None
        if not isinstance(conds, list):
            return ("status.conditions", "must be a list")
        for i, c in enumerate(conds):
            where = "status.conditions[%d]" % i
            if not isinstance(c, dict):
                return (where, "must be an object")
            for f in ("type", "status", "reason", "message"):
                if f in c and not isinstance(c[f], str):
                    return ("%s.%s" % (where, f), "must be a string")
            for f in ("lastHeartbeatTime", "lastTransitionTime"):
                if c.get(f) is not None and not (isinstance(c[f], str) and RFC3339.match(c[f])):
                    return ("%s.%s" % (where, f), "must be an RFC 3339 time")
            if not c.get("type"):
                return ("%s.type" % where, "Required value")
        return None

    def create_event(self, ns, body):
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if ctype not in ("application/json", ""):
            self.send_status(415, "UnsupportedMediaType", "the body of the request was in an unknown "
                             "format - accepted media types include: application/json, "
                             "application/yaml, application/vnd.kubernetes.protobuf")
            return
        try:
            e = json.loads(body)
        except ValueError as err:
            self.send_status(400, "BadRequest", "error decoding the Event: %s" % err)
            return
        if not isinstance(e, dict):
            self.send_status(400, "BadRequest", "an Event must be a JSON object")
            return
        if e.get("apiVersion", "events.k8s.io/v1") != "events.k8s.io/v1" or e.get("kind", "Event") != "Event":
            self.send_status(400, "BadRequest", "the API version in the data (%s) does not match the "
                             "expected API version (events.k8s.io/v1)" % e.get("apiVersion"))
            return
        m = e.get("metadata") if isinstance(e.get("metadata"), dict) else {}
        if m.get("namespace", ns) != ns:
            self.send_status(400, "BadRequest", "the namespace of the provided object does not match "
                             "the namespace sent on the request")
            return
        name = m.get("name") or ""
        if not name and m.get("generateName"):
            name = m["generateName"] + "".join(random.choice(string.ascii_lowercase + string.digits)
                                               for _ in range(5))
        causes = self.event_causes(e, ns, name)
        if causes:
            self.send_json(422, invalid_status("Event.events.k8s.io", name, causes))
            return
        e = copy.deepcopy(e)
        e["kind"], e["apiVersion"] = "Event", "events.k8s.io/v1"
        e["metadata"] = dict(m, name=name, namespace=ns)
        with STORE.cond:
            STORE.sync(["events"])
            try:
                ch = STORE.put("events", e, create=True)
            except KeyError:
                self.send_status(409, "AlreadyExists", 'events.events.k8s.io "%s" already exists' % name,
                                 name=name, kind="events", group="events.k8s.io")
                return
            out = copy.deepcopy(ch.obj)
        self.answer(201, out)

    @staticmethod
    def event_causes(e, ns, name):
        """pkg/apis/core/validation/events.go ValidateEventCreate for events.k8s.io/v1."""
        c = []
        if not name:
            field_err(c, "metadata.name", "required", "name or generateName is required")
        elif len(name) > 253 or not DNS_SUBDOMAIN.match(name):
            field_err(c, "metadata.name", "invalid", '"%s": a lowercase RFC 1123 subdomain must '
                      "consist of lower case alphanumeric characters, '-' or '.'" % name)
        if not DNS_LABEL.match(ns):
            field_err(c, "metadata.namespace", "invalid", ns)
        et = e.get("eventTime")
        if not et:
            field_err(c, "eventTime", "required")
        elif not isinstance(et, str) or not RFC3339.match(et):
            field_err(c, "eventTime", "invalid", "%r: not an RFC 3339 time with microseconds" % et)
        reg = e.get("regarding") if isinstance(e.get("regarding"), dict) else {}
        rns = reg.get("namespace") or ""
        if (not rns and ns not in EVENT_NS) or (rns and rns != ns):
            field_err(c, "regarding.namespace", "invalid", '"%s": does not match event.namespace' % rns)
        t = e.get("type")
        if t not in ("Normal", "Warning"):
            field_err(c, "type", "invalid", '"%s": has invalid value: %s' % (t or "", t or ""))
        rc = e.get("reportingController")
        if not rc:
            field_err(c, "reportingController", "required")
        elif not qualified_name(rc):
            field_err(c, "reportingController", "invalid", '"%s": must be a qualified name' % rc)
        for f, limit in (("reportingInstance", 128), ("action", 128), ("reason", 128)):
            v = e.get(f)
            if not v:
                field_err(c, f, "required")
            elif not isinstance(v, str) or len(v) > limit:
                field_err(c, f, "invalid", '"": can have at most %d characters' % limit)
        note = e.get("note")
        if note is not None and (not isinstance(note, str) or len(note.encode()) > 1024):
            field_err(c, "note", "invalid", '"": can have at most 1024 characters')
        s = e.get("series")
        if s is not None:
            if not isinstance(s, dict) or not isinstance(s.get("count"), int) or s["count"] < 2:
                field_err(c, "series.count", "invalid", "should be at least 2")
            if not isinstance(s, dict) or not s.get("lastObservedTime"):
                field_err(c, "series.lastObservedTime", "required")
        for f in ("deprecatedFirstTimestamp", "deprecatedLastTimestamp"):
            if e.get(f):
                field_err(c, f, "invalid", "needs to be unset")
        if e.get("deprecatedCount"):
            field_err(c, "deprecatedCount", "invalid", "needs to be unset")
        if isinstance(e.get("deprecatedSource"), dict) and any(e["deprecatedSource"].values()):
            field_err(c, "deprecatedSource", "invalid", "needs to be unset")
        return c

    # --- the tests' control path ----------------------------------------------------------
    def control(self, method, path, body, auth):
        def reply(code, value):
            data = (json.dumps(value) + "\n").encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        if auth != "ok":
            reply(401, status_body(401, "Unauthorized", "Unauthorized"))
            return
        if method == "GET" and path == "/fakeapi/v1/state":
            with STORE.cond:
                STORE.sync()
                reply(200, self.control_state())
            return
        if method != "POST" or path != "/fakeapi/v1/changes":
            reply(404, status_body(404, "NotFound", "fakeapi: no control path %s %s" % (method, path)))
            return
        try:
            ops = json.loads(body)
        except ValueError as e:
            reply(400, status_body(400, "BadRequest", "fakeapi: changes: %s" % e))
            return
        ops = ops if isinstance(ops, list) else [ops]
        results = []
        with STORE.cond:
            STORE.sync()
            for op in ops:
                try:
                    results.append(self.control_op(op))
                except (KeyError, LookupError, ValueError, TypeError, PatchError) as e:
                    reply(422, status_body(422, "Invalid", "fakeapi: change %r: %s: %s"
                                           % (op, type(e).__name__, e)))
                    return
            rv = STORE.rv
            applied = time.time()
        with LOCK:
            with open(os.path.join(STATE, "control.log"), "a") as f:
                f.write(json.dumps({"ops": ops, "resourceVersion": rv, "t": round(applied, 4)}, sort_keys=True) + "\n")
        reply(200, {"resourceVersion": str(rv), "results": results})

    def control_state(self):
        return {"resourceVersion": str(STORE.rv), "compacted": str(STORE.compacted),
                "watchers": [{"resource": w.res.name, "path": w.query, "queued": len(w.q),
                              "since": w.since} for w in STORE.watchers],
                "counts": {r: len(o) for r, o in STORE.objs.items()}}

    @staticmethod
    def control_op(op):
        kind = op.get("op")
        rname = op.get("resource")
        if rname is not None and rname not in fs.RESOURCES:
            raise ValueError("unknown resource %r" % rname)
        res = fs.RESOURCES.get(rname)

        def key():
            if res.namespaced:
                return "%s/%s" % (op.get("namespace") or "default", op["name"])
            return op["name"]

        if kind in ("create", "update", "apply"):
            obj = op["object"]
            if not isinstance(obj, dict) or not isinstance(fs.meta(obj).get("name"), str):
                raise ValueError("object needs metadata.name")
            obj = copy.deepcopy(obj)
            obj.setdefault("kind", res.kind)
            obj.setdefault("apiVersion", res.api_version)
            if res.namespaced:
                obj["metadata"].setdefault("namespace", "default")
            if rname in fs.CRDS:
                STORE.present[rname] = True
            exists = STORE.get(rname, fs.obj_key(res, obj, -1)) is not None
            create = kind == "create" or (kind == "apply" and not exists)
            if not create:
                old = STORE.get(rname, fs.obj_key(res, obj, -1))
                if old is not None:
                    for f in ("uid", "creationTimestamp"):
                        if f in fs.meta(old):
                            obj["metadata"].setdefault(f, fs.meta(old)[f])
            ch = STORE.put(rname, obj, create=create)
            return {"type": ch.etype, "resourceVersion": str(ch.rv)}
        if kind == "patch":
            old = STORE.get(rname, key())
            if old is None:
                raise LookupError("%s %s not found" % (rname, key()))
            new = merge_patch(old, op["patch"])
            ch = STORE.put(rname, new, create=False)
            return {"type": ch.etype, "resourceVersion": str(ch.rv)}
        if kind == "delete":
            ch = STORE.delete(rname, key())
            return {"type": ch.etype, "resourceVersion": str(ch.rv)}
        if kind == "compact":
            STORE.compact()
            return {"compacted": str(STORE.compacted)}
        if kind in ("close", "inject"):
            n = 0
            for w in list(STORE.watchers):
                if rname is None or w.res.name == rname:
                    if kind == "close":
                        w.end = op.get("mode", "clean")
                    else:
                        w.q.append(("RAW", str(op["line"])))
                    w.wake()
                    n += 1
            return {"watchers": n}
        if kind == "wait":
            end = time.monotonic() + float(op.get("timeout", 10))
            want = int(op.get("watchers", 1))
            while time.monotonic() < end:
                n = sum(1 for w in STORE.watchers if rname is None or w.res.name == rname)
                if n >= want:
                    return {"watchers": n}
                STORE.cond.wait(0.02)
            raise ValueError("fewer than %d watches open after %s s" % (want, op.get("timeout", 10)))
        raise ValueError("unknown op %r" % kind)


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 1024

    def handle_error(self, request, client_address):
        e = sys.exc_info()[1]
        # Clients that refuse our certificate, time out or hang up are expected in tests.
        if not isinstance(e, (ssl.SSLError, ConnectionError, socket.timeout, TimeoutError)):
            sys.stderr.write("fakeapi: %s: %s\n" % (type(e).__name__, e))


def poller():
    """Open watches see file changes within poll_ms without waiting for a request."""
    while not STOP.is_set():
        cfg = settings()
        with STORE.cond:
            active = sorted({w.res.name for w in STORE.watchers})
            if active:
                STORE.sync(active)
        STOP.wait(max(0.005, float(cfg.get("poll_ms", 20)) / 1000))


def ctl(argv):
    """fakeapi.py ctl --port-file F --ca CA --token-file T [--get] JSON: one control request."""
    ap = argparse.ArgumentParser(prog="fakeapi.py ctl")
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--ca", required=True)
    ap.add_argument("--token-file", required=True)
    ap.add_argument("--get", action="store_true", help="GET /fakeapi/v1/state instead")
    ap.add_argument("ops", nargs="?", default="[]")
    a = ap.parse_args(argv)
    import http.client
    port = int(open(a.port_file).read())
    token = open(a.token_file).read().strip()
    ctx = ssl.create_default_context(cafile=a.ca)
    conn = http.client.HTTPSConnection("127.0.0.1", port, context=ctx, timeout=60)
    if a.get:
        conn.request("GET", "/fakeapi/v1/state", headers={"Authorization": "Bearer " + token})
    else:
        conn.request("POST", "/fakeapi/v1/changes", body=a.ops.encode(),
                     headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
    r = conn.getresponse()
    sys.stdout.write(r.read().decode())
    return 0 if r.status == 200 else 1


def main():
    global STATE, STORE
    if len(sys.argv) > 1 and sys.argv[1] == "ctl":
        return ctl(sys.argv[2:])
    ap = argparse.ArgumentParser(description="fake Kubernetes API server for tests")
    ap.add_argument("--state", required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--cert", required=True)
    ap.add_argument("--key", required=True)
    ap.add_argument("--max-seconds", type=float, default=600)
    a = ap.parse_args()
    STATE = a.state
    STORE = fs.Store(STATE)
    settings()

    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    ctx.load_cert_chain(a.cert, a.key)
    srv = Server(("127.0.0.1", 0), Handler)
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True, do_handshake_on_connect=False)
    write_atomic(a.port_file, b"%d\n" % srv.server_address[1])

    parent = os.getppid()
    signal.signal(signal.SIGTERM, lambda *_: STOP.set())
    signal.signal(signal.SIGINT, lambda *_: STOP.set())
    threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True).start()
    threading.Thread(target=poller, daemon=True).start()
    deadline = time.monotonic() + a.max_seconds
    while not STOP.is_set():
        if os.getppid() != parent or time.monotonic() >= deadline:
            STOP.set()
        STOP.wait(0.2)
    with STORE.cond:
        STORE.wake_all()
    srv.shutdown()
    srv.server_close()
    os._exit(0)          # handler threads stuck in "hang" must not delay the exit


if __name__ == "__main__":
    sys.exit(main())
