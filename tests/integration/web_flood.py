#!/usr/bin/env python3
"""A bounded flood of perfkit serve on loopback: HOLD idle connections kept open (a client
that connects and says nothing), and WORKERS threads sending requests back to back, for
SECONDS. Prints one line "flood: requests=N answered=N refused=N held=N" and exits 0.

    web_flood.py HOST PORT SECONDS [HOLD [WORKERS]]

Only the address given is contacted, and only for SECONDS (the caller passes loopback)."""
import socket
import sys
import threading
import time

host, port, secs = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
hold = int(sys.argv[4]) if len(sys.argv) > 4 else 200
workers = int(sys.argv[5]) if len(sys.argv) > 5 else 4
if not (host.startswith("127.") or host in ("::1", "localhost")):
    sys.exit("web_flood.py: loopback only")
end = time.time() + secs
count = {"requests": 0, "answered": 0, "refused": 0}
lock = threading.Lock()


def add(k):
    with lock:
        count[k] += 1


def worker():
    req = ("GET /FCX240 HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n" % host).encode()
    while time.time() < end:
        add("requests")
        try:
            s = socket.create_connection((host, port), timeout=2)
            s.sendall(req)
            data = s.recv(64)
            s.close()
            add("answered" if data.startswith(b"HTTP/1.1 ") else "refused")
        except OSError:
            add("refused")


held = []
for _ in range(hold):
    try:
        held.append(socket.create_connection((host, port), timeout=2))
    except OSError:
        break
threads = [threading.Thread(target=worker) for _ in range(workers)]
for t in threads:
    t.start()
for t in threads:
    t.join()
for s in held:
    s.close()
print("flood: requests=%d answered=%d refused=%d held=%d" %
      (count["requests"], count["answered"], count["refused"], len(held)))
