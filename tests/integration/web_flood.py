#!/usr/bin/env python3
"""A bounded flood of perfkit serve on loopback: HOLD idle connections kept open (a client
that connects and says nothing), and WORKERS threads sending requests back to back, for
SECONDS; with RATE, the workers together open at most RATE connections a second (paced
evenly), so that the flood's own CPU is bounded too. Prints one line
"flood: requests=N answered=N refused=N held=N rate=R/s cpu=C" and exits 0: rate is the
connections opened a second, cpu the client's own CPU time (user + system, every thread)
over the wall time, in cores (1.00: one core busy all along).

    web_flood.py HOST PORT SECONDS [HOLD [WORKERS [RATE]]]

Only the address given is contacted, and only for SECONDS (the caller passes loopback)."""
import resource
import socket
import sys
import threading
import time

host, port, secs = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
hold = int(sys.argv[4]) if len(sys.argv) > 4 else 200
workers = int(sys.argv[5]) if len(sys.argv) > 5 else 4
rate = float(sys.argv[6]) if len(sys.argv) > 6 else 0.0
if not (host.startswith("127.") or host in ("::1", "localhost")):
    sys.exit("web_flood.py: loopback only")
start = time.time()
end = start + secs
count = {"requests": 0, "answered": 0, "refused": 0}
lock = threading.Lock()


def add(k):
    with lock:
        count[k] += 1


def worker(k):
    req = ("GET /FCX240 HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n" % host).encode()
    gap = workers / rate if rate > 0 else 0.0     # each worker's share of the rate
    due = time.time() + gap * k / workers
    while time.time() < end:
        if gap:
            now = time.time()
            if now < due:
                time.sleep(due - now)
            due = max(due + gap, time.time() - gap)   # no burst to catch up after a stall
            if time.time() >= end:
                break
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
threads = [threading.Thread(target=worker, args=(k,)) for k in range(workers)]
for t in threads:
    t.start()
for t in threads:
    t.join()
for s in held:
    s.close()
wall = max(time.time() - start, 1e-6)
ru = resource.getrusage(resource.RUSAGE_SELF)
print("flood: requests=%d answered=%d refused=%d held=%d rate=%.0f/s cpu=%.2f" %
      (count["requests"], count["answered"], count["refused"], len(held),
       (count["requests"] + len(held)) / wall, (ru.ru_utime + ru.ru_stime) / wall))
