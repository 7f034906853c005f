#!/usr/bin/python3
"""daemon_requests.py - summarise the fake API's requests.log for the daemon tests.

Usage: daemon_requests.py LOG FROM [PREFIX]
Prints one line per request after the first FROM lines of LOG:
  METHOD PATH auth=ok|bad|none fault=MODE|- [status=N] [watch [initial] [rv=N]] [ready=V] [nulls=k1,k2] [fail=id1,id2]
  STATUS PATH auth=... [status=N] cond=STATUS/REASON
  EVENT PATH auth=... [status=N] event=KIND/NAME/REASON
status is the answer's (absent when none was sent: a hang, a dropped connection); watch marks a
watch request (watch=1 in its query, whatever the answer), initial one that asks sendInitialEvents
(a store filled by the watch) and rv=N the resourceVersion it starts from; ready/nulls/fail
describe a PATCH body of the node: the ready value written, the keys set to null (removed) and the
ids of the failed checks in the attachment. A PATCH of nodes/N/status is shown as STATUS with the
condition it sets (so `grep '^PATCH'` counts the node's merge patches alone), a POST of an Event as
EVENT with what it regards and its reason.
"""
import json
import signal
import sys
import urllib.parse


def main():
    # `reqs ... | grep -q` stops reading at the first match: end quietly then.
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    log, start = sys.argv[1], int(sys.argv[2])
    prefix = sys.argv[3] if len(sys.argv) > 3 else "fabric.aicr.run/"
    try:
        lines = open(log).read().splitlines()
    except FileNotFoundError:
        return 0
    for line in lines[start:]:
        try:
            r = json.loads(line)
        except ValueError:
            continue
        method, path = r.get("method", "?"), r.get("path", "?")
        body = {}
        if r.get("body"):
            try:
                body = json.loads(r["body"])
            except ValueError:
                body = {}
        if not isinstance(body, dict):
            body = {}
        if method == "PATCH" and path.endswith("/status"):
            method = "STATUS"
        elif method == "POST" and path.endswith("/events"):
            method = "EVENT"
        out = [method, path, "auth=%s" % r.get("auth"), "fault=%s" % (r.get("fault") or "-")]
        if r.get("status") is not None:
            out.append("status=%s" % r["status"])
        q = urllib.parse.parse_qs(r.get("query") or "")
        if q.get("watch", [""])[0] in ("1", "true"):
            out.append("watch")
            if q.get("sendInitialEvents", [""])[0] == "true":
                out.append("initial")
            if q.get("resourceVersion", [""])[0]:
                out.append("rv=%s" % q["resourceVersion"][0])
        if method == "STATUS":
            conds = (body.get("status") or {}).get("conditions") or [{}]
            out.append("cond=%s/%s" % (conds[0].get("status") or conds[0].get("$patch"), conds[0].get("reason")))
        if method == "EVENT":
            reg = body.get("regarding") or {}
            out.append("event=%s/%s/%s" % (reg.get("kind"), reg.get("name"), body.get("reason")))
        if r.get("method") == "PATCH" and r.get("body"):
            try:
                ann = json.loads(r["body"]).get("metadata", {}).get("annotations", {})
            except ValueError:
                ann = {}
            if prefix + "ready" in ann:
                out.append("ready=%s" % ann[prefix + "ready"])
            nulls = sorted(k[len(prefix):] for k, v in ann.items() if v is None)
            if nulls:
                out.append("nulls=" + ",".join(nulls))
            att = ann.get(prefix + "attachment")
            if isinstance(att, str):
                try:
                    checks = json.loads(att).get("checks", [])
                except ValueError:
                    checks = []
                fails = [c.get("id") for c in checks if isinstance(c, dict) and c.get("status") == "fail"]
                if fails:
                    out.append("fail=" + ",".join(fails))
        print(" ".join(str(x) for x in out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
