#!/usr/bin/python3
"""fakeapi.py - a fake Kubernetes API server for the tests (python3 stdlib only).

Usage: fakeapi.py --state DIR --port-file F --cert C --key K [--max-seconds N]

Listens on 127.0.0.1, port 0 (HTTPS only), writes the port to F atomically, and serves from
the state directory DIR (every file re-read per request, so a test changes them at will):

  token        the bearer token every request must carry (else 401 Status)
  node.json    the Node: GET and PATCH /api/v1/nodes/<its name>
  nodes.json   optional NodeList for GET /api/v1/nodes (else the list is [node.json]);
               its nodes are also readable one by one
  pods.json    PodList for GET /api/v1/pods (fieldSelector spec.nodeName=<n> filters it)
  networks.json  optional NetworkList for GET /apis/networking.gke.io/v1/networks (absent: 404,
               as when GKE multi-networking is not enabled)
  faults       optional JSON: {"mode": M, "count": N, "retry_after": S, "delay": S,
               "method": "PATCH", "path": "/api/v1/nodes/"} where M is one of
               401 403 404 429 500 503 slow truncated short invalid hang oversized
               oversized_stream close leak (a 403 whose message echoes the Authorization
               header, as a hostile or buggy server might); "count" (decremented in the file) limits how many
               requests it hits, absent = all; "method"/"path" (prefix) narrow which ones.
               "rate_limit": N answers 429 (Retry-After 1) beyond N requests per second.
  requests.log written: one JSON line per request received: method, path, query,
               contentType, body, auth ("none", "ok" or "bad"; never the token), fault,
               peer (the client's port: equal for requests on one kept-alive connection).

PATCH /api/v1/nodes/<name> wants Content-Type application/merge-patch+json (else 415),
applies the RFC 7386 merge patch to node.json, checks that labels and annotations stay
string maps (else 422), bumps metadata.resourceVersion and returns the node.
GET /api/v1/nodes honours labelSelector (k=v, k==v, k!=v, k, !k; comma = AND) and
limit/continue paging; a garbage continue token, or one from before the list changed,
gives 410 Gone. Exits on SIGTERM, when its parent dies, or after --max-seconds (600).
"""

import argparse
import base64
import collections
import hashlib
import http.server
import json
import os
import signal
import socket
import ssl
import sys
import threading
import time
import urllib.parse

STATE = None
LOCK = threading.Lock()          # state files, faults file, request log, rate window
STOP = threading.Event()
RATE_WINDOW = collections.deque()
BODY_MAX = 4 << 20


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


def status_body(code, reason, message, name=None, kind=None):
    st = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
          "message": message, "reason": reason, "code": code}
    if name is not None:
        st["details"] = {"name": name, "kind": kind or "nodes"}
    return st


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
    labels = labels or {}
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
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body) if length is None else length))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def send_status(self, code, reason, message, headers=None, name=None):
        self.send_json(code, status_body(code, reason, message, name), headers)

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

    def record(self, method, path, query, body, auth, fault):
        try:
            text = body.decode()
        except UnicodeDecodeError:
            text = None
        line = json.dumps({"method": method, "path": path, "query": query,
                           "contentType": self.headers.get("Content-Type"), "body": text,
                           "auth": auth, "fault": fault.get("mode") if fault else None,
                           "userAgent": self.headers.get("User-Agent"),
                           "peer": self.client_address[1]},
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
        url = urllib.parse.urlsplit(self.path)
        path, query = url.path, url.query
        try:
            body = self.read_body()
        except ValueError:
            self.close_connection = True
            self.send_status(413, "RequestEntityTooLarge", "request body too large")
            return
        auth = self.auth_state()
        fault = self.take_fault(method, path)
        self.record(method, path, query, body, auth, fault)
        if fault and self.apply_fault(fault, method, path, query, body):
            return
        if auth != "ok":
            self.send_status(401, "Unauthorized", "Unauthorized")
            return
        self.route(method, path, query, body, fault)

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

    def answer(self, code, value):
        cut = self._cut
        if cut is None:
            self.send_json(code, value)
            return
        full = (json.dumps(value) + "\n").encode()
        half = full[: len(full) // 2]
        if cut == "truncated":         # a well-formed HTTP answer carrying half a JSON text
            self.send_raw(code, half)
        else:                          # Content-Length promises more than arrives
            self.close_connection = True
            self.send_raw(code, half, length=len(full))

    def route(self, method, path, query, body, fault):
        q = urllib.parse.parse_qs(query, keep_blank_values=True)
        parts = path.strip("/").split("/")
        if parts[:3] == ["apis", "networking.gke.io", "v1"] and parts[3:] == ["networks"]:
            if method != "GET":
                self.send_status(405, "MethodNotAllowed", "method %s not allowed here" % method)
            else:
                self.list_networks()
            return
        if parts[:2] != ["api", "v1"] or len(parts) < 3:
            self.send_status(404, "NotFound", "the server could not find the requested resource")
            return
        res, name = parts[2], (parts[3] if len(parts) == 4 else None)
        if len(parts) > 4 or res not in ("nodes", "pods"):
            self.send_status(404, "NotFound", "the server could not find the requested resource")
        elif res == "pods" and name is None and method == "GET":
            self.list_pods(q)
        elif res == "nodes" and name is None and method == "GET":
            self.list_nodes(q)
        elif res == "nodes" and name is not None and method == "GET":
            self.get_node(name)
        elif res == "nodes" and name is not None and method == "PATCH":
            self.patch_node(name, body)
        else:
            self.send_status(405, "MethodNotAllowed", "method %s not allowed here" % method)

    def all_nodes(self):
        node = read_json("node.json")
        listed = read_json("nodes.json")
        items = list(listed.get("items", [])) if isinstance(listed, dict) else []
        if not items and node is not None:
            items = [node]
        return node, items

    def get_node(self, name):
        node, items = self.all_nodes()
        for n in ([node] if node else []) + items:
            if n.get("metadata", {}).get("name") == name:
                self.answer(200, n)
                return
        self.send_status(404, "NotFound", 'nodes "%s" not found' % name, name=name)

    def list_nodes(self, q):
        _, items = self.all_nodes()
        sel = q.get("labelSelector", [""])[0]
        if sel:
            try:
                reqs = parse_selector(sel)
            except ValueError as e:
                self.send_status(400, "BadRequest", "unable to parse requirement: %s" % e)
                return
            items = [n for n in items if selector_match(reqs, n.get("metadata", {}).get("labels"))]
        items.sort(key=lambda n: n.get("metadata", {}).get("name", ""))
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
        meta = {"resourceVersion": "1"}
        if end < len(items):
            meta["continue"] = encode_continue(end, digest)
            meta["remainingItemCount"] = len(items) - end
        self.answer(200, {"kind": "NodeList", "apiVersion": "v1", "metadata": meta,
                          "items": items[start:end]})

    def list_pods(self, q):
        pods = read_json("pods.json", {"kind": "PodList", "apiVersion": "v1", "items": []})
        items = list(pods.get("items", []))
        fs = q.get("fieldSelector", [""])[0]
        if fs:
            key, sep, val = fs.partition("=")
            val = val[1:] if val.startswith("=") else val
            if key != "spec.nodeName" or not sep:
                self.send_status(400, "BadRequest",
                                 '"%s" is not a known field selector: only "spec.nodeName"' % fs)
                return
            items = [p for p in items if p.get("spec", {}).get("nodeName") == val]
        self.answer(200, {"kind": "PodList", "apiVersion": "v1",
                          "metadata": {"resourceVersion": "1"}, "items": items})

    def list_networks(self):
        """GKE's Network list from networks.json; 404 (the CRD is not installed) when absent."""
        nets = read_json("networks.json")
        if nets is None:
            self.send_status(404, "NotFound", "the server could not find the requested resource")
            return
        self.answer(200, nets)

    def patch_node(self, name, body):
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if ctype != "application/merge-patch+json":
            self.send_status(415, "UnsupportedMediaType",
                             'the body of the request was in an unknown format - accepted media '
                             'types include: application/json-patch+json, '
                             'application/merge-patch+json, application/apply-patch+yaml')
            return
        try:
            patch = json.loads(body)
        except ValueError as e:
            self.send_status(400, "BadRequest", "error decoding patch: %s" % e)
            return
        if not isinstance(patch, dict):
            self.send_status(400, "BadRequest", "a merge patch for a node must be a JSON object")
            return
        with LOCK:
            node = read_json("node.json")
            if not node or node.get("metadata", {}).get("name") != name:
                self.send_status(404, "NotFound", 'nodes "%s" not found' % name, name=name)
                return
            new = merge_patch(node, patch)
            meta = new.get("metadata") if isinstance(new.get("metadata"), dict) else None
            for field in ("labels", "annotations"):
                m = meta.get(field) if meta else None
                if m is not None and (not isinstance(m, dict) or
                                      not all(isinstance(v, str) for v in m.values())):
                    self.send_status(422, "Invalid", 'Node "%s" is invalid: metadata.%s: '
                                     'values must be strings' % (name, field), name=name)
                    return
            if not meta or meta.get("name") != name:
                self.send_status(422, "Invalid", 'Node "%s" is invalid: metadata.name '
                                 'may not change' % name, name=name)
                return
            try:
                rv = int(meta.get("resourceVersion", "0"))
            except (TypeError, ValueError):
                rv = 0
            meta["resourceVersion"] = str(rv + 1)
            write_json("node.json", new)
        self.answer(200, new)


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request, client_address):
        e = sys.exc_info()[1]
        # Clients that refuse our certificate, time out or hang up are expected in tests.
        if not isinstance(e, (ssl.SSLError, ConnectionError, socket.timeout, TimeoutError)):
            sys.stderr.write("fakeapi: %s: %s\n" % (type(e).__name__, e))


def main():
    global STATE
    ap = argparse.ArgumentParser(description="fake Kubernetes API server for tests")
    ap.add_argument("--state", required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--cert", required=True)
    ap.add_argument("--key", required=True)
    ap.add_argument("--max-seconds", type=float, default=600)
    a = ap.parse_args()
    STATE = a.state

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
    deadline = time.monotonic() + a.max_seconds
    while not STOP.is_set():
        if os.getppid() != parent or time.monotonic() >= deadline:
            STOP.set()
        STOP.wait(0.2)
    srv.shutdown()
    srv.server_close()
    os._exit(0)          # handler threads stuck in "hang" must not delay the exit


if __name__ == "__main__":
    main()
