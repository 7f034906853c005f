#!/usr/bin/python3
"""rollout_api.py - tests/lib/fakeapi.py serving many nodes, for the rollout benchmark.

Same command line, state directory, faults (rate_limit) and requests.log as fakeapi.py; in
addition every node name is served: GET /api/v1/nodes/<name> answers node.json renamed to
<name> (kept in memory per name), PATCH merges into that copy. Each request is also appended to
STATE/timeline.log as "<monotonic seconds> <method> <node or path> <status>"."""
import importlib.util
import json
import os
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "fakeapi", os.path.join(HERE, "..", "tests", "lib", "fakeapi.py"))
fakeapi = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fakeapi)

NODES = {}
NODES_LOCK = threading.Lock()
TIMELINE = threading.Lock()


class RolloutHandler(fakeapi.Handler):
    def send_response(self, code, message=None):
        self._status = code
        super().send_response(code, message)

    def handle_any(self, method):
        self._status = 0
        t = time.monotonic()
        super().handle_any(method)
        name = self.path.split("?")[0]
        with TIMELINE:
            with open(os.path.join(fakeapi.STATE, "timeline.log"), "a") as f:
                f.write("%.4f %s %s %d\n" % (t, method, name, self._status))

    def node_for(self, name):
        with NODES_LOCK:
            if name not in NODES:
                node = fakeapi.read_json("node.json")
                node["metadata"]["name"] = name
                NODES[name] = node
            return NODES[name]

    def get_node(self, name):
        self.answer(200, self.node_for(name))

    def patch_node(self, name, body):
        try:
            patch = json.loads(body)
        except ValueError as e:
            self.send_status(400, "BadRequest", "error decoding patch: %s" % e)
            return
        node = self.node_for(name)
        with NODES_LOCK:
            new = fakeapi.merge_patch(node, patch)
            meta = new["metadata"]
            meta["resourceVersion"] = str(int(meta.get("resourceVersion", "0") or 0) + 1)
            NODES[name] = new
        self.answer(200, new)


fakeapi.Handler = RolloutHandler
if __name__ == "__main__":
    sys.exit(fakeapi.main())
