#!/usr/bin/python3
"""rollout_api.py - tests/lib/fakeapi.py serving many nodes, for the rollout benchmark.

Same command line, state directory, faults (rate_limit) and requests.log as fakeapi.py; in
addition every node name is served: the first request that names a node (GET or PATCH
/api/v1/nodes/<name>, or a list or watch of /api/v1/nodes with fieldSelector
metadata.name=<name>) creates it in the store from node.json renamed to <name>, so reads,
watches and patches of it behave as for the one node of the tests. Nodes live in memory only
(writing a NodeList of 1,000 nodes back to nodes.json at every PATCH would make the server the
bottleneck). Each request is also appended to STATE/timeline.log, when its answer starts, as
"<monotonic seconds at arrival> <method> <path> <status> <w|->" (w: a watch)."""
import copy
import importlib.util
import os
import sys
import threading
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "fakeapi", os.path.join(HERE, "..", "tests", "lib", "fakeapi.py"))
fakeapi = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fakeapi)
fs = fakeapi.fs

TIMELINE = threading.Lock()
TEMPLATE = {}


class RolloutHandler(fakeapi.Handler):
    def send_response(self, code, message=None):
        super().send_response(code, message)
        if getattr(self, "_arrived", None) is None:
            return
        q = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)
        watch = q.get("watch", [""])[0].lower() in ("1", "true")
        line = "%.4f %s %s %d %s\n" % (self._arrived, self.command, self.path.split("?")[0], code,
                                       "w" if watch else "-")
        self._arrived = None
        with TIMELINE:
            with open(os.path.join(fakeapi.STATE, "timeline.log"), "a") as f:
                f.write(line)

    def handle_any(self, method):
        self._arrived = time.monotonic()
        url = urllib.parse.urlsplit(self.path)
        name = None
        if url.path.startswith("/api/v1/nodes/"):
            name = url.path[len("/api/v1/nodes/"):].split("/")[0]
        elif url.path == "/api/v1/nodes":
            sel = urllib.parse.parse_qs(url.query).get("fieldSelector", [""])[0]
            if sel.startswith("metadata.name="):
                name = sel[len("metadata.name="):]
        if name:
            ensure_node(name)
        super().handle_any(method)


def ensure_node(name):
    with fakeapi.STORE.cond:
        if fakeapi.STORE.get("nodes", name) is not None:
            return
        if "node" not in TEMPLATE:
            TEMPLATE["node"] = fakeapi.read_json("node.json")
        node = copy.deepcopy(TEMPLATE["node"])
        node["metadata"]["name"] = name
        node["metadata"].pop("resourceVersion", None)
        node["metadata"].pop("uid", None)
        fakeapi.STORE.put("nodes", node, create=True)


class MemoryStore(fs.Store):
    """Nodes in memory: never written back, never re-read (their files do not change)."""

    def _write_back(self, rname, key=None):
        if rname != "nodes":
            super()._write_back(rname, key)

    def _write_nodes(self, files):
        pass


fakeapi.Handler = RolloutHandler
fs.Store = MemoryStore
# Thousands of watches are thousands of threads: a small stack each.
threading.stack_size(1 << 20)
if __name__ == "__main__":
    sys.exit(fakeapi.main())
