#!/usr/bin/env python3
"""A real Prometheus server scrapes perfkit serve, and every expression of the Grafana
dashboard returns data through its /api/v1/query.

    web_prom.py TARGET DASHBOARD.json WORKDIR [SECONDS]

TARGET is perfkit serve's host:port (loopback). Starts Debian's prometheus on a free
loopback port with a 1 s scrape interval and its data in WORKDIR, waits up to SECONDS
(default 15) until every expression (Grafana's variables replaced: $system and $vswitch by
".*", $__rate_interval by 5s) returns at least one series, stops it. Prints one line per
expression; exit 0, 1 on an expression without data, 77 when prometheus is missing."""
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request

target, dash_path, work = sys.argv[1:4]
limit = float(sys.argv[4]) if len(sys.argv) > 4 else 15.0
prom = shutil.which("prometheus")
if not prom:
    print("SKIP: prometheus missing")
    sys.exit(77)
if not target.startswith("127.0.0.1:"):
    sys.exit("web_prom.py: loopback targets only")

s = socket.socket()
s.bind(("127.0.0.1", 0))
port = s.getsockname()[1]
s.close()
os.makedirs(work, exist_ok=True)
cfg = os.path.join(work, "prometheus.yml")
with open(cfg, "w") as f:
    f.write("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
            "scrape_configs:\n  - job_name: perfkit\n    static_configs:\n"
            "      - targets: ['%s']\n" % target)
log = open(os.path.join(work, "prometheus.log"), "w")
p = subprocess.Popen([prom, "--config.file=" + cfg, "--storage.tsdb.path=" + os.path.join(work, "tsdb"),
                      "--web.listen-address=127.0.0.1:%d" % port, "--log.level=warn"],
                     stdout=log, stderr=log)
base = "http://127.0.0.1:%d" % port


def query(expr):
    u = base + "/api/v1/query?" + urllib.parse.urlencode({"query": expr})
    with urllib.request.urlopen(u, timeout=3) as r:
        return json.load(r)


def exprs():
    d = json.load(open(dash_path))
    for panel in d["panels"]:
        for t in panel.get("targets", []):
            e = t["expr"].replace("$__rate_interval", "5s")
            e = e.replace("$system", ".*").replace("$vswitch", ".*")
            yield panel["title"], e


status = 0
try:
    end = time.time() + limit
    todo = list(exprs())
    if not todo:
        print("FAIL: the dashboard has no expression")
        sys.exit(1)
    last = {}
    while todo and time.time() < end:
        rest = []
        for title, e in todo:
            try:
                r = query(e)
                n = len(r["data"]["result"]) if r.get("status") == "success" else 0
            except OSError:
                n = 0
            last[e] = n
            if n:
                print("ok: %d series: %s" % (n, e))
            else:
                rest.append((title, e))
        todo = rest
        if todo:
            time.sleep(0.5)
    for title, e in todo:
        print("FAIL: no data from %s (panel %s)" % (e, title))
        status = 1
    up = query('up{job="perfkit"}')["data"]["result"]
    print("prometheus scraped %s: up=%s" % (target, up[0]["value"][1] if up else "none"))
finally:
    p.terminate()
    try:
        p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
sys.exit(status)
